"""What every kind of evaluation (a *task*) provides, so the commands, the significance tests and the signature
treat relation classification, the SemEval official scorer and end-to-end RE alike.

A task is a frozen `Config` — every setting that can change a number, validated when it is made — plus:

* `score(gold, pred)` → a Result (releval.results) whose signature comes from the Config in one place;
* `paired_cells(gold, pred_a, pred_b)` → the per-item sufficient statistics of two systems on the same items
  (releval.metrics.cells.PairedCells) and the averaging spec, which is all the paired bootstrap and the
  approximate randomization test need: one resampling path serves every task;
* `signature(facts)` → the Signature of the Config plus facts of the data (gold digest, label set, n).

A new kind of evaluation (document-level RE, ranked relation extraction, few-shot episodes) is one new module in
`releval.tasks` that defines its Config and these methods, plus one line in `releval.tasks.TASKS`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar

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


@dataclass(frozen=True)
class Task:
    """One kind of evaluation, as every command and the board see it (one module in `releval.tasks` each).

    * `name`, `help`: its `--task` value and a one-line description;
    * `config`: its Config class, a frozen dataclass whose fields are every setting of the task — a command option
      that sets a field the Config lacks is refused for this task, not ignored (releval.commands.inputs);
    * `unit`: what the significance tests resample (item, sentence, document, bag, episode);
    * `score_files(gold, systems, config)`: [(system name or None, prediction)] → one Result per system, gold
      read once; each Result renders through releval.report (to_tables) and carries its signature and warnings;
    * `compare(gold, systems, config, test, baseline, progress)`: {name: [runs]} → a paired or seed table, or
      None when the task has no per-unit statistics to resample;
    * `statistics(paths, config, **options)`: dataset statistics of gold files (an object with `to_tables()` and
      `to_dict()`, rendered by releval.report), or None;
    * `measures`: the board's default measures, headline first — names of the `metrics` of the PairedTable that
      `compare` returns for one file per system (its `scores[system][measure]` is the value, a row's `ci_a` the
      bootstrap interval, `p_value` the paired test); empty: micro and the Config's weightings;
    * `gold_parts(path)`: for a task whose gold is several files (DrugProt: relations, entities, PMID list), the
      files that the gold given as `path` (its folder or main file) is made of; None: gold is one file. The board
      stores them as one archive (releval.data.parts) and gives the task their folder.

    `compare`, `statistics` and `gold_parts` may be "module:function" references (`resolve`): a task names
    functions of the layers above it (significance, statistics) without importing them.

    >>> from releval.tasks import get_task
    >>> task = get_task("rc")
    >>> task.unit, "negative" in task.settings
    ('item', True)
    """

    name: str
    help: str
    config: type
    unit: str
    score_files: Any
    compare: Any = None
    statistics: Any = None
    measures: tuple[str, ...] = ()
    gold_parts: Any = None

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
        return frozenset(f.name for f in fields(self.config))

    def make_config(self, **settings: Any) -> Any:
        """The task's Config of `settings`; a setting the Config lacks is an OptionError naming it."""
        unknown = sorted(set(settings) - self.settings)
        if unknown:
            from releval.core.errors import OptionError

            raise OptionError(f"{', '.join(unknown)}: not a setting of task {self.name!r}", option=unknown[0])
        return self.config(**settings)


def resolve(reference: Any) -> Any:
    """A Task's function: the callable itself, or a "module:attribute" reference imported now (so that a task in a
    lower layer can name a function of a higher one, e.g. its comparison in releval.significance, without
    importing it)."""
    if not isinstance(reference, str):
        return reference
    import importlib

    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)
