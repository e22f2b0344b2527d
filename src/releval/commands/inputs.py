"""The input stage every command that reads gold and predictions shares: one definition of each input option.

`score`, `compare`, `plot`, `audit run`, `replicability from-predictions`, `stats` and `claims check` read label
files the same way, so they take the same options with the same help, refused the same way where they do not apply:

* how files are read — `--input-format` (both sides), `--gold-format`, `--pred-format`, `--id-field`,
  `--label-field` and their per-side forms `--gold-id-field` … `--pred-label-field`;
* what gold means — `--patch` (a TACRev-style relabelling), `--view` (SemEval direction dropped), the negative class
  (`--negative`, `--no-negative`, `--allow-absent-negative`);
* how predictions meet gold — `--by-position`, `--on-missing`, `--strict-labels`;
* end-to-end files — `--types`, `--macro-classes`;
* ranked relation facts — `--ties`, `--duplicates`, `--at`, `--threshold`.
* DocRED files — `--train-facts`, `--distant-facts`, `--scorer`, `--no-evidence`, `--relation-names`.

The scoring settings (`--weighting`, `--beta`, `--zero-division`, `--entropy-n`, `--criterion`, `--relaxed`) are
the settings stage's, `releval.commands.settings`, built the same way; `config_of` there makes a Config of both.

`input_options()` adds them to a command and hands the command one `Inputs` value; `Inputs.classification_config`
turns them into the task's Config, where the library checks them (so the same mistake gets the same message from
every command). Each command that uses the decorator registers itself in `READERS` with an example invocation; the
mistake-matrix test (tests/test_input_stage.py) runs every registered command on every mistaken input, so a new
command cannot skip the checks.

>>> [o.flag for o in INPUT_OPTIONS if "gold_format" in o.fields]
['--input-format', '--gold-format']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from releval.commands.base import PATH, Choice
from releval.core.options import DOCRED_SCORERS, MACRO_CLASSES, MISSING_POLICIES, VIEWS
from releval.core.validation import check_nonempty, refuse_options
from releval.data.formats import LABEL_FORMATS

if TYPE_CHECKING:
    from releval.tasks.base import Task


@dataclass(frozen=True)
class InputOption:
    """One input option: its flag, parameter name and help, its side ("gold", "pred" or "both": a command reading
    only gold has no prediction-side option), its click settings, and the Config settings it sets (`sets`, default
    its own name): a task whose Config lacks one of them refuses the option (releval.tasks.base.Task.settings).
    `group`: "" for the options of every label file, else the input group (releval.tasks.base.INPUT_GROUPS) whose
    files have it: a command offers a group's options when it reads tasks that declare the group (Task.inputs)."""

    flag: str
    name: str
    help: str
    side: str = "both"
    settings: tuple[tuple[str, Any], ...] = ()
    sets: tuple[str, ...] = ()
    group: str = ""

    @property
    def fields(self) -> tuple[str, ...]:
        return self.sets or (self.name,)

    @property
    def default(self) -> Any:
        return dict(self.settings).get("default")


_FORMAT = (("type", Choice(tuple(LABEL_FORMATS))), ("default", None))
_FLAG = (("is_flag", True), ("default", False))

#: Every input option, in the order `--help` lists them. A new one is a line here and a field of `Inputs`.
INPUT_OPTIONS: tuple[InputOption, ...] = (
    InputOption(
        "--input-format",
        "input_format",
        "Force the format of gold and prediction files (both sides; --gold-format/--pred-format override one side).",
        settings=_FORMAT,
        sets=("gold_format", "pred_format"),
    ),
    InputOption("--gold-format", "gold_format", "Force the gold file's format (gold side only).", settings=_FORMAT),
    InputOption(
        "--pred-format",
        "pred_format",
        "Force the prediction files' format (gold is still detected), e.g. labels-lines.",
        side="pred",
        settings=_FORMAT,
    ),
    InputOption(
        "--id-field", "id_field", "Id field of JSONL/CSV/TSV files (both sides).", settings=(("default", "id"),)
    ),
    InputOption(
        "--label-field",
        "label_field",
        "Label field of JSONL/CSV/TSV files (both sides).",
        settings=(("default", None),),
    ),
    InputOption(
        "--gold-id-field",
        "gold_id_field",
        "Id field of the gold file (overrides --id-field).",
        settings=(("default", None),),
    ),
    InputOption(
        "--gold-label-field",
        "gold_label_field",
        "Label field of the gold file (overrides --label-field).",
        settings=(("default", None),),
    ),
    InputOption(
        "--pred-id-field",
        "pred_id_field",
        "Id field of the prediction files (overrides --id-field).",
        side="pred",
        settings=(("default", None),),
    ),
    InputOption(
        "--pred-label-field",
        "pred_label_field",
        "Label field of the prediction files (overrides --label-field).",
        side="pred",
        settings=(("default", None),),
    ),
    InputOption(
        "--patch",
        "patch",
        "TACRev-style relabelling of gold: a JSON list of {id, relation}.",
        settings=(("type", PATH), ("default", None)),
    ),
    InputOption(
        "--view",
        "view",
        "directed, or undirected (the SemEval-2010 Task 8 direction dropped from gold and predictions).",
        settings=(("type", Choice(VIEWS)), ("default", "directed")),
    ),
    InputOption(
        "--negative",
        "negative",
        "Negative label; 'auto' detects no_relation/Other/NA.",
        settings=(("default", "auto"),),
    ),
    InputOption("--no-negative", "no_negative", "The data has no negative class.", settings=_FLAG, sets=("negative",)),
    InputOption(
        "--allow-absent-negative",
        "allow_absent_negative",
        "Accept a --negative label that gold does not contain (else refused: a typo makes it a positive class).",
        settings=_FLAG,
    ),
    InputOption(
        "--by-position",
        "by_position",
        "Align by line (or document) position instead of by id.",
        side="pred",
        settings=_FLAG,
    ),
    InputOption(
        "--on-missing",
        "on_missing",
        "Missing predictions: error, negative (filled with the negative class: leaks gold), wrong (Olek).",
        side="pred",
        settings=(("type", Choice(MISSING_POLICIES)), ("default", "error")),
    ),
    InputOption(
        "--strict-labels",
        "strict_labels",
        "Refuse predicted labels absent from gold.",
        side="pred",
        settings=_FLAG,
    ),
    InputOption(
        "--types",
        "types",
        "e2e: SpERT types file (symmetric relations; the declared types).",
        settings=(("type", PATH), ("default", None)),
        group="e2e-files",
    ),
    InputOption(
        "--macro-classes",
        "macro_classes",
        "e2e: types macro-F averages over: with gold support, in gold or predictions (SpERT), declared (sincere).",
        settings=(("type", Choice(MACRO_CLASSES)), ("default", "gold")),
        group="e2e-files",
    ),
    InputOption(
        "--ties",
        "ties",
        "ranked: equal scores keep the file's order (input-order, OpenNRE's) or are averaged over their orders.",
        settings=(("type", Choice(("input-order", "average"))), ("default", "input-order")),
        group="ranked-facts",
    ),
    InputOption(
        "--duplicates",
        "duplicates",
        "ranked: a (h, t, relation) predicted twice is refused, counted each time (count, OpenNRE's) or kept once "
        "at its best score (max).",
        settings=(("type", Choice(("refuse", "count", "max"))), ("default", "refuse")),
        group="ranked-facts",
    ),
    InputOption(
        "--at",
        "at",
        "ranked: the N of P@N, comma-separated.",
        settings=(("default", "100,200,300"),),
        group="ranked-facts",
    ),
    InputOption(
        "--threshold",
        "threshold",
        "ranked: the score from which a prediction counts for F1 at a threshold (OpenNRE: 0.5).",
        settings=(("type", float), ("default", 0.5)),
        group="ranked-facts",
    ),
    InputOption(
        "--at-recall",
        "at_recall",
        "ranked: precision at these recall levels, in percent, comma-separated (the NYT tables' P@10%,P@30%: 10,30); "
        "none by default.",
        settings=(("default", ""),),
        group="ranked-facts",
    ),
    InputOption(
        "--interpolated/--first-reached",
        "interpolated",
        "ranked, --at-recall: the highest precision at that recall or beyond (interpolated, IR's convention; default) "
        "or the precision where the recall is first reached.",
        settings=(("default", True),),
        group="ranked-facts",
    ),
    InputOption(
        "--train-facts",
        "train_facts",
        "docred: train facts for Ign F1 — a DocRED training file or a .fact list of [head, tail, r] names "
        "(repeatable: the union).",
        settings=(("type", PATH), ("multiple", True), ("default", ())),
        group="docred-files",
    ),
    InputOption(
        "--distant-facts",
        "distant_facts",
        "docred: distantly supervised train facts for Ign-distant F1 (repeatable).",
        settings=(("type", PATH), ("multiple", True), ("default", ())),
        group="docred-files",
    ),
    InputOption(
        "--scorer",
        "scorer",
        "docred: whose quirks the official numbers reproduce: codalab (thunlp/DocRED), atlop, redocred.",
        settings=(("type", Choice(DOCRED_SCORERS)), ("default", "codalab")),
        group="docred-files",
    ),
    InputOption(
        "--no-evidence",
        "no_evidence",
        "docred: do not score evidence (gold labels may lack `evidence`).",
        settings=_FLAG,
        sets=("evidence",),
        group="docred-files",
    ),
    InputOption(
        "--relation-names",
        "relation_names",
        "docred: show relation names beside the ids in per-relation tables and figures: a file in DocRED's "
        'rel_info.json format ({"P131": "located in …"}), or \'docred\' for the bundled copy of DocRED\'s.',
        settings=(("default", None),),
        group="docred-files",
    ),
)

_BY_NAME = {o.name: o for o in INPUT_OPTIONS}
#: Every input group that some option belongs to (releval.tasks.base.INPUT_GROUPS: the tests check they agree).
GROUPS = tuple(dict.fromkeys(o.group for o in INPUT_OPTIONS if o.group))


@dataclass(frozen=True)
class Inputs:
    """The values of the input options of one command run (defaults: nothing given)."""

    input_format: str | None = None
    gold_format: str | None = None
    pred_format: str | None = None
    id_field: str = "id"
    label_field: str | None = None
    gold_id_field: str | None = None
    gold_label_field: str | None = None
    pred_id_field: str | None = None
    pred_label_field: str | None = None
    patch: Path | None = None
    view: str = "directed"
    negative: str = "auto"
    no_negative: bool = False
    allow_absent_negative: bool = False
    by_position: bool = False
    on_missing: str = "error"
    strict_labels: bool = False
    types: Path | None = None
    macro_classes: str = "gold"
    ties: str = "input-order"
    duplicates: str = "refuse"
    at: str = "100,200,300"
    threshold: float = 0.5
    at_recall: str = ""
    interpolated: bool = True
    train_facts: tuple[Path, ...] = ()
    distant_facts: tuple[Path, ...] = ()
    scorer: str = "codalab"
    no_evidence: bool = False
    relation_names: str | None = None

    def given_fields(self) -> dict[str, tuple[str, ...]]:
        """{flag: the Config settings it sets} of every option whose value is not the default."""
        return {o.flag: o.fields for o in INPUT_OPTIONS if getattr(self, o.name) != o.default}

    def negative_label(self) -> str | None:
        """None for --no-negative, else the label given or 'auto'; both at once, or an empty label, are refused."""
        check_nonempty(self.negative, "--negative")
        refuse_options(
            {"--negative": self.no_negative and self.negative != "auto"}, "give a label or --no-negative, not both"
        )
        return None if self.no_negative else self.negative

    def classification_settings(self) -> dict[str, Any]:
        """The ClassificationConfig settings these options give (the Config checks each value). Each side's format
        is its own option, else --input-format; a prediction-only format leaves gold's detected."""
        for option in INPUT_OPTIONS:
            if option.name.endswith("_field") and getattr(self, option.name) is not None:
                check_nonempty(getattr(self, option.name), option.flag)
        return {
            "negative": self.negative_label(),
            "on_missing": self.on_missing,
            "strict_labels": self.strict_labels,
            "by_position": self.by_position or None,
            "view": self.view,
            "patch": None if self.patch is None else str(self.patch),
            "gold_format": self.gold_format or self.input_format or ("auto" if self.pred_format else None),
            "pred_format": self.pred_format or self.input_format,
            "id_field": self.id_field,
            "label_field": self.label_field,
            "gold_id_field": self.gold_id_field,
            "gold_label_field": self.gold_label_field,
            "pred_id_field": self.pred_id_field,
            "pred_label_field": self.pred_label_field,
            "allow_absent_negative": self.allow_absent_negative,
            "rc_chosen": task_named(),
        }

    def settings_for(self, task: Task[Any, Any]) -> dict[str, Any]:
        """The Config settings these options give for `task`: the relation-classification ones for a Config that
        has them, the e2e ones likewise; settings its Config lacks are left out (refuse_foreign refuses the
        options that were given)."""
        offered = {
            **self.e2e_settings(),
            **self.classification_settings(),
            **self.ranked_settings(),
            **self.docred_settings(),
        }
        return {k: v for k, v in offered.items() if k in task.settings}

    def config(self, task: Task[Any, Any] | None = None, **settings: Any) -> Any:
        """The task's Config of these options plus the command's own `settings` (weightings, β, …); no task: the
        default task's (releval.registry.DEFAULT_TASK, relation classification)."""
        if task is None:
            from releval.registry import DEFAULT_TASK, get_task

            task = get_task(DEFAULT_TASK)
        return task.make_config(**{**self.settings_for(task), **settings})

    def ranked_settings(self) -> dict[str, Any]:
        """The RankedConfig settings these options give."""
        return {
            "ties": self.ties,
            "duplicates": self.duplicates,
            "at": self.at,
            "threshold": self.threshold,
            "at_recall": self.at_recall,
            "interpolated": self.interpolated,
        }

    def docred_settings(self) -> dict[str, Any]:
        """The DocredConfig settings these options give."""
        return {
            "train_facts": tuple(str(p) for p in self.train_facts),
            "distant_facts": tuple(str(p) for p in self.distant_facts),
            "scorer": self.scorer,
            "evidence": not self.no_evidence,
            "relation_names": self.relation_names,
        }

    def e2e_settings(self) -> dict[str, Any]:
        """The E2EConfig settings these options give."""
        return {"types": self.types, "by_position": self.by_position, "macro_classes": self.macro_classes}


def refuse_foreign(
    task: Task[Any, Any],
    given: Mapping[str, tuple[str, ...]],
    among: Sequence[str] | Callable[[], Sequence[str]] | None = None,
) -> None:
    """Refuse the given options ({flag: the Config settings it sets}) that set a setting `task`'s Config lacks:
    an option silently ignored looks like it took effect. Named in groups, with the tasks that do read them:
    "--types, --macro-classes: apply to --task e2e only" (`among`: the tasks the command offers, or a function
    giving them — called only to word a refusal, since it loads every task's module; default all)."""
    foreign = [flag for flag, sets in given.items() if not set(sets) <= task.settings]
    if not foreign:
        return
    from releval.registry import TASKS, get_task

    if callable(among):
        among = among()

    def readers(flag: str) -> tuple[str, ...]:
        return tuple(name for name in among or TASKS if set(given[flag]) <= get_task(name).settings)

    first = readers(foreign[0])
    where = f"apply to --task {' or '.join(first)} only" if first else f"do not apply to --task {task.name}"
    refuse_options({flag: readers(flag) == first for flag in foreign}, where)


@dataclass(frozen=True)
class Reader:
    """A command that reads gold (and predictions): its words (`compare`, `audit run`), an example invocation with
    `{gold}`, `{pred}`, `{pred2}` and `{out}` (an output file) placeholders, the input options it has, whether it
    reads predictions at all (`sides`: "both" or "gold"), and the Task capability it needs (`needs`: "compare",
    "per_class", "audit", …; "score_files": every task; None: the default task only, no --task option)."""

    words: str
    example: tuple[str, ...]
    needs: str | None
    options: tuple[str, ...]
    sides: str = "both"

    @property
    def tasks(self) -> tuple[str, ...]:
        """The registered tasks the command reads (their modules imported now): those with the capability."""
        from releval.registry import DEFAULT_TASK, tasks_with

        return (DEFAULT_TASK,) if self.needs is None else tuple(tasks_with(self.needs))

    def argv(self, gold: str, pred: str, pred2: str | None = None, out: str = "out.png") -> list[str]:
        """The example's words with the files put in (the mistake-matrix test runs them)."""
        values = {"gold": gold, "pred": pred, "pred2": pred2 or pred, "out": out}
        return [*self.words.split(), *(part.format(**values) for part in self.example)]


#: Every command that reads gold and predictions, registered by `input_options` (tests/test_input_stage.py).
READERS: dict[str, Reader] = {}


def input_options(
    words: str,
    example: tuple[str, ...],
    *,
    sides: str = "both",
    needs: str | None = None,
    groups: tuple[str, ...] = (),
    own: tuple[str, ...] = (),
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add the input options to a command and give it one `inputs: Inputs` parameter instead of one per option.

    `words`: how the command is invoked (`"replicability from-predictions"`), `example`: its arguments for one gold
    and one or two prediction files (registered in READERS for the mistake-matrix test); `sides`: "gold" for a
    command reading gold only (no prediction-side options); `needs`: the Task capability a task needs for the command
    to read it (releval.registry.tasks_with; None: the default task only); `groups`: the input groups
    (releval.tasks.base.INPUT_GROUPS) whose options it offers besides the label-file ones — those its tasks declare
    in `Task.inputs` (--types and --macro-classes: "e2e-files"; --ties, --duplicates, --at, --threshold:
    "ranked-facts"; --train-facts …: "docred-files"); no task is named here, so a plugin task with the capability is
    read too; `own`: options (by name) the command defines itself with a wider meaning (stats' `--view` adds
    `both`), left out here and not passed on in `inputs`.
    """
    unknown = sorted(set(groups) - set(GROUPS))
    assert not unknown, f"input_options({words!r}): unknown input group(s) {unknown}"
    chosen = [
        o
        for o in INPUT_OPTIONS
        if (sides == "both" or o.side != "pred") and (not o.group or o.group in groups) and o.name not in own
    ]
    READERS[words] = Reader(words, example, needs, tuple(o.flag for o in chosen), sides)

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        names = [o.name for o in chosen]

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name in names}
            return command(*args, inputs=Inputs(**values), **kwargs)

        wrapped: Callable[..., Any] = wrapper
        for o in reversed(chosen):
            wrapped = click.option(o.flag, o.name, help=o.help, **dict(o.settings))(wrapped)
        return wrapped

    return decorate


assert set(_BY_NAME) == {f.name for f in fields(Inputs)}, "every input option is a field of Inputs"


#: The click context's meta key under which `task_option` records that --task was given on the command line.
TASK_NAMED = "releval.task_named"


def task_named() -> bool:
    """Whether the running command was given `--task` on its command line (not left to its default): a user who
    names `--task rc` for a file in a preset's layout means plain classification
    (releval.tasks.classification.check_preset_layout). False outside a command.

    >>> task_named()
    False
    """
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(TASK_NAMED))


#: How a refused --task names the capability it lacks (Task's field → words).
_CAPABILITIES = {"per_class": "per-class results", "audit": "audit", "full_report": "report of its own"}


def task_option(default: str, help: str, *, needs: str | None = None) -> Callable[[Any], Any]:
    """The `--task` option of a command: a registered task's name (releval.registry.TASKS, checked when the command
    runs, so a task registered by a plugin or a test is accepted), or `default`. `needs` names the Task function
    the command calls (`compare`, `statistics`): a task without it is refused, naming the tasks that have it."""

    def check(ctx: click.Context, param: click.Parameter, value: str) -> str:
        from releval.core.errors import OptionError
        from releval.registry import TASKS, get_task

        source = ctx.get_parameter_source(param.name or "task")
        ctx.meta[TASK_NAMED] = source not in (None, click.core.ParameterSource.DEFAULT)
        if value == default and default not in TASKS:  # "auto": the command decides
            return value
        try:
            task = get_task(value)
        except OptionError as exc:
            raise OptionError(exc.message.replace("task: ", "--task: ", 1), option="--task") from None
        if needs is not None and getattr(task, needs) in (None, False):
            from releval.registry import tasks_with

            able = ", ".join(tasks_with(needs))
            what = _CAPABILITIES.get(needs, needs)
            raise OptionError(f"--task {value!r} has no {what} (tasks with one: {able})", option="--task")
        return task.name

    return click.option("--task", "task", default=default, callback=check, help=help)
