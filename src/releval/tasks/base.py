"""The contract every kind of evaluation (a *task*) fulfils, so that the commands, the board and the significance
tests treat relation classification, the SemEval official scorer, end-to-end RE, DocRED … alike — and a task of
another package (a plugin) too. The extension API is exported in one place, releval.registry.

A task is a frozen Config — every setting that can change a number, validated when it is made (F-based tasks
derive it from `ScoringConfig`: weightings, β, the value of 0/0) — plus a `Task` object: its name, its Config
class, the unit the significance tests resample, `score_files` (gold + systems → one `Result` per system, whose
signature comes from the Config via `build_signature`), and its optional functions and declared capabilities
(`compare`, `statistics`, `per_class`, `audit`, `inputs`, …: see `Task`). The commands ask the Task what it can do;
no command names a task.

A new kind of evaluation is one module (here in `releval.tasks`, or in any package) that defines its Config, its
scoring and a `Task`, plus one line in releval.registry.TASKS (or `register_task(TASK)` / `RELEVAL_TASKS`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from releval.core.options import DEFAULT_WEIGHTING_NAMES
from releval.core.signature import Signature
from releval.core.validation import check_beta, check_zero_division


@dataclass(frozen=True)
class ScoringConfig:
    """The settings every F-based task shares: the weightings besides micro, F-beta's β, the value of 0/0.

    >>> ScoringConfig(weightings=("macro",), beta=0.5).signature_fields()["average"]
    ['micro', 'macro']
    """

    task: ClassVar[str] = ""

    weightings: tuple[Any, ...] = DEFAULT_WEIGHTING_NAMES  # names or Weighting objects; stored as Weightings
    beta: float = 1.0
    zero_division: float = 0.0

    def __post_init__(self) -> None:
        from releval.metrics.weightings import get_weightings

        object.__setattr__(self, "weightings", get_weightings(self.weightings))  # canonical: power:0.50 → power:0.5
        object.__setattr__(self, "beta", check_beta(self.beta))
        object.__setattr__(self, "zero_division", check_zero_division(self.zero_division))

    @property
    def average_names(self) -> list[str]:
        """micro, then the weightings in order: the averages every result of this Config reports."""
        return ["micro", *(w.name for w in self.weightings)]

    def signature_fields(self) -> dict[str, object]:
        """The Config's part of the signature (the data's part — gold digest, labels, n — comes from the task)."""
        return {
            "task": self.task,
            "average": self.average_names,
            "beta": float(self.beta),
            "zero_division": float(self.zero_division),
        }

    def to_dict(self) -> dict[str, Any]:
        """Every setting, JSON-ready."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "weightings":
                value = [w.name for w in value]
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


def build_signature(fields_: dict[str, object]) -> Signature:
    """The one place a result's signature is made (releval.core.signature.Signature.build, version appended)."""
    return Signature.build(**fields_)


C = TypeVar("C")
R = TypeVar("R", bound="Result")
C_contra = TypeVar("C_contra", contravariant=True)


@runtime_checkable
class Rendered(Protocol):
    """What releval.report renders: tables for every output format and a JSON-ready dict (a dataset statistics
    object, a comparison table)."""

    def to_tables(self) -> Any: ...

    def to_dict(self) -> Any: ...


@runtime_checkable
class Result(Rendered, Protocol):
    """One system's score under a task: rendered as any `Rendered`, with its signature (every setting that can change
    the number) and its warnings (releval.core.notices.Notice)."""

    @property
    def signature(self) -> Signature: ...

    @property
    def warnings(self) -> Sequence[Any]: ...


class Compare(Protocol[C_contra]):
    """A task's comparison: `(gold, {system: [prediction files]}, config, significance config)` → a paired table
    (one file per system) or a seed table (several), through the library's significance tests."""

    def __call__(
        self,
        gold: Any,
        systems: Mapping[str, Sequence[Any]],
        config: C_contra,
        test: Any,
        /,
        *,
        baseline: str | None = None,
        progress: Any = None,
    ) -> Any: ...


class Audit(Protocol[C_contra]):
    """A task's audit (`releval audit run`): `(gold, prediction, config, train=…, train_format=…)` → a report with
    `to_dict()` and `exit_status` (releval.audit.checks.AuditReport)."""

    def __call__(
        self, gold: Any, pred: Any, config: C_contra, /, *, train: Any = None, train_format: str | None = None
    ) -> Any: ...


class FullReport(Protocol[C_contra]):
    """A task's own whole-report layout (`releval score --perl-report`): `(gold, systems, config)` → (the results,
    for their warnings and signatures, and the report's text)."""

    def __call__(
        self, gold: Any, systems: Sequence[tuple[str | None, Any]], config: C_contra, /
    ) -> tuple[Sequence[Result], str]: ...


def rows_per_class(results: Sequence[R]) -> tuple[Sequence[R], Mapping[str, str] | None]:
    """The `per_class` capability of a task whose results are themselves per-class rows and averages
    (releval.result.ScoreResult): `plot per-class` draws them as they are, with the classes' own names.

    >>> rows_per_class([])
    ([], None)
    """
    return list(results), None


@dataclass(frozen=True)
class BoardExample:
    """The example benchmark a task brings to the board (`releval serve --examples`): the board creates it from
    the example folder `examples/FOLDER` (packaged with a wheel, or the repository's in an editable install) when
    the file `GOLD` is there, under `slug`, `title` and `description`, with `settings` (the Config's settings a
    benchmark stores) and open for submissions (the example files are public).

    * `gold`: the gold file (or, for a task with `gold_parts`, its folder), read through the task's `gold_upload`;
    * `part`: when set, `GOLD` is a JSON object and the gold is its value under this key (CoNLL04's split file:
      `part="test"`), stored as `FOLDER_PART.json`;
    * `position`: the board creates the examples in increasing position (so their ids, and the listings ordered by
      id, keep one order whatever the registry's).

    >>> BoardExample("toy-dev", "toy", "gold.txt", "Toy", "A toy benchmark.", part="dev").stored_name
    'toy_dev.json'
    """

    slug: str
    folder: str
    gold: str
    title: str
    description: str
    settings: Mapping[str, object] = field(default_factory=dict)
    part: str | None = None
    position: int = 0

    @property
    def stored_name(self) -> str | None:
        """The file name the board stores a `part` gold under (None: the task's `gold_upload` names it)."""
        return None if self.part is None else f"{self.folder}_{self.part}.json"


#: The input option groups (releval.commands.inputs.INPUT_OPTIONS, their `group`) a task may read besides the
#: options every label file has: SpERT-style end-to-end files, ranked relation facts, DocRED files.
INPUT_GROUPS = ("e2e-files", "ranked-facts", "docred-files")


@dataclass(frozen=True)
class Task(Generic[C, R]):
    """One kind of evaluation, as every command and the board see it: the extension API's contract (a plugin's
    task is one such object, registered with releval.registry.register_task or RELEVAL_TASKS).

    What it computes:

    * `name`, `help`: its `--task` value and a one-line description;
    * `config`: its Config class, a frozen dataclass whose fields are every setting of the task — a command option
      that sets a field the Config lacks is refused for this task, not ignored (releval.commands.inputs); F-based
      tasks derive it from `ScoringConfig`;
    * `unit`: what the significance tests resample (item, sentence, document, bag, episode);
    * `score_files(gold, systems, config)`: [(system name or None, prediction)] → one `Result` per system, gold
      read once; each renders through releval.report (`to_tables`, `to_dict`) and carries its signature and
      warnings;
    * `compare(gold, {name: [runs]}, config, test, baseline=, progress=)` (`Compare`): a paired or seed table, or
      None when the task has no per-unit statistics to resample (`compare`, `replicability` refuse it);
    * `statistics(paths, config, **options)`: dataset statistics of gold files (a `Rendered`), or None (`stats`);
    * `measures`: the board's default measures, headline first — names of the `metrics` of the PairedTable that
      `compare` returns for one file per system; empty: micro and the Config's weightings;
    * `measure_names(config)`: every measure a result and a comparison under `config` compute, when they depend on
      the Config beyond its weightings (ranked facts: `p@N` of `at`, `p@R%` of `at_recall`, `W-auc` of each
      weighting); the board accepts these as a benchmark's measures (releval.service.library_task); None:
      `measures`, and for a Config with weightings micro and any weighting;
    * `gold_parts(path)`: for a task whose gold is several files (DrugProt: relations, entities, PMID list), the
      files that the gold given as `path` (its folder or main file) is made of; None: gold is one file. The board
      stores them as one archive (releval.data.parts) and gives the task their folder.

    What the commands ask instead of its name (its declared capabilities):

    * `inputs`: the input option groups it reads besides the label-file ones (`INPUT_GROUPS`: `--types` … for
      "e2e-files", `--ties` … for "ranked-facts", `--train-facts` … for "docred-files");
    * `per_class(results)` → (per-class results, {class: display name} or None): `plot per-class` draws the task
      (`rows_per_class` for results that are per-class rows themselves); None: refused;
    * `audit(gold, pred, config, train=, train_format=)` (`Audit`): `audit run` runs it; None: refused;
    * `compare_per_class`: `compare --per-class` tests each class (False: refused, e.g. ranked facts);
    * `rank_intervals(gold, systems, config, test)`: `compare --rank-intervals`' bootstrap intervals of ranks;
    * `measure_draws(gold, systems, config, test, splits)` → (joint bootstrap draws, split halves), each
      {measure: systems × resamples (splits)}: `compare --evaluate-measures` adds the interval of Kendall's τ and
      the swap rates with them (releval.significance.meta); None: discriminative power, τ and flips only;
    * `fixed_width`: its results print this many decimals and no per-class rows (the SemEval perl scorer's
      layout: `score --width`, `--per-class` refused); None: any width;
    * `full_report` (`FullReport`): the task's own whole report, printed by `score --perl-report`;
    * `wide_tsv`: `score_files` takes label files (releval.data.labels.LabelFile), so a wide TSV (id, gold, one
      column per system) given alone is scored column by column;
    * `dataset_tests(datasets, test=, metric=, config=, resamples=, seed=, progress=)`: the task's own paired tests
      of `replicability from-predictions` (relation classification's, with per-item correctness tests); None: the
      generic path through `compare` (releval.replicability.task_tests);
    * `vocabularies(gold, pred, config)` → the labelled fields of a prediction beside gold's
      (releval.tasks.vocabulary.Vocabulary): the pipeline checks every prediction file of the task before any
      command reads it (releval.tasks.vocabulary.prediction_checks: letter case, white space, integer indices, no
      label in common refused; an empty file refused; gold passed twice and swapped file names warned), in `score`,
      `compare`, `replicability`, `audit run` and `plot per-class` alike (releval.registry adds the checks). None:
      the task checks its files itself (releval's own tasks, through the same functions);
    * `example` (`BoardExample`): the example benchmark `releval serve --examples` creates from the task's bundled
      files (releval.service.bundled); None: none.

    The layers above the tasks (significance, dataset statistics, audit, report) are imported by the functions
    that need them: releval.registry assembles the Task objects of releval's own tasks from their module's `TASK`
    plus those functions, so no module of `releval.tasks` names a layer above it.

    >>> from releval.registry import get_task
    >>> task = get_task("rc")
    >>> task.unit, "negative" in task.settings, task.per_class is not None
    ('item', True, True)
    """

    name: str
    help: str
    config: type[C]
    unit: str
    score_files: Callable[[Any, Sequence[tuple[str | None, Any]], C], Sequence[R]]
    compare: Compare[C] | None = None
    statistics: Callable[..., Rendered] | None = None
    measures: tuple[str, ...] = ()
    measure_names: Callable[[C], Sequence[str]] | None = None
    gold_parts: Callable[[Path], Sequence[Path]] | None = None
    inputs: frozenset[str] = frozenset()
    per_class: Callable[[Sequence[R]], tuple[Sequence[Any], Mapping[str, str] | None]] | None = None
    audit: Audit[C] | None = None
    compare_per_class: bool = True
    rank_intervals: Callable[[Any, Mapping[str, Sequence[Any]], C, Any], Any] | None = None
    measure_draws: Callable[[Any, Mapping[str, Sequence[Any]], C, Any, int], Any] | None = None
    fixed_width: int | None = None
    full_report: FullReport[C] | None = None
    wide_tsv: bool = False
    dataset_tests: Callable[..., Any] | None = None
    vocabularies: Callable[[Any, Any, C], Sequence[Any]] | None = None
    example: BoardExample | None = None

    def __post_init__(self) -> None:
        unknown = sorted(set(self.inputs) - set(INPUT_GROUPS))
        if unknown:
            raise ValueError(f"task {self.name!r}: input group(s) {unknown} are not among {list(INPUT_GROUPS)}")

    def gold_upload(self, gold: str | os.PathLike[str]) -> tuple[bytes, str]:
        """What a board stores of the gold `gold`: its bytes and file name; for a task whose gold is several files
        (`gold_parts`), those files packed as one tar archive (releval.data.parts), named after their folder. A
        missing part is refused here, naming it (`releval benchmark GOLD --task drugprot`: GOLD is the `gs-data/`
        folder or its relations file; stored as `gs-data.tar`).
        """
        from releval.data.io import read_bytes

        path = Path(gold)
        if self.gold_parts is None:
            return read_bytes(path), path.name
        from releval.data.parts import pack_parts

        parts = [Path(p) for p in resolve(self.gold_parts)(path)]
        folder = path if path.is_dir() else path.parent
        return pack_parts(parts), f"{folder.resolve().name or 'gold'}.tar"

    @property
    def settings(self) -> frozenset[str]:
        """The names of the Config's settings (its dataclass fields)."""
        return frozenset(f.name for f in fields(self.config))  # type: ignore[arg-type]

    def make_config(self, **settings: Any) -> C:
        """The task's Config of `settings`; a setting the Config lacks is an OptionError naming it."""
        unknown = sorted(set(settings) - self.settings)
        if unknown:
            from releval.core.errors import OptionError

            raise OptionError(f"{', '.join(unknown)}: not a setting of task {self.name!r}", option=unknown[0])
        return self.config(**settings)


def task_of(config: Any) -> Task[Any, Any]:
    """The Task that declares `config`'s class (or the nearest of its bases), found in the module that defines the
    class — a task module defines its Config and its Task side by side, releval's and a plugin's alike: what a
    library function given a Config asks instead of testing the Config's class. The Task found is the module's own,
    without the functions releval.registry adds from the layers above the tasks; its declared capabilities (`unit`,
    `settings`, …) are the same.

    >>> from releval.tasks.e2e import E2EConfig
    >>> task_of(E2EConfig()).unit
    'document'
    """
    import sys

    for kind in type(config).__mro__:
        module = sys.modules.get(kind.__module__)
        for value in vars(module).values() if module is not None else ():
            if isinstance(value, Task) and value.config is kind:
                return value
    raise TypeError(f"{type(config).__name__} is no task's Config (no Task declares it beside it)")


def resolve(reference: Any) -> Any:
    """A function given as itself or as a "module:attribute" reference (a plugin's older spelling), imported now.
    releval's own tasks give their functions themselves (releval.registry assembles them)."""
    if not isinstance(reference, str):
        return reference
    import importlib

    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)
