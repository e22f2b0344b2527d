"""ChemProt as two presets of relation classification: BLUE's five CPR groups and SciBERT's 13 labels.

"ChemProt" names two tasks whose numbers are not comparable (Harbecke et al. 2022, Table 1; docs/biomedical.md):

* `chemprot-blue` — the BLUE benchmark's (Peng et al. 2019), also BioBERT's and BLURB's: every candidate
  (chemical, gene) pair of a sentence, labelled CPR:3, CPR:4, CPR:5, CPR:6, CPR:9 or `false`; the reported number
  is micro-F1 over the five groups with `false` left out (BLUE's `eval_rel.py`: the sub-report without `false`).
  That is releval's micro with `false` as the negative class: P = ΣTP / Σ(TP+FP), R = ΣTP / Σ(TP+FN) over the five
  groups, which equals scikit-learn's `f1_score(..., labels=[CPR:3, CPR:4, CPR:5, CPR:6, CPR:9], average="micro")`
  once every label is one of the six (checked: any other label is refused at its line).
* `chemprot-scibert` — SciBERT's JSON lines (Beltagy et al. 2019): only pairs that have a relation, 13 labels, no
  negative class. Every item is then a positive item and micro-F1 equals accuracy; the result says so.

Both are `ClassificationConfig`s with their negative class, format and alignment fixed: the rows have no ids (BLUE's
index repeats when a pair has two labels), so they are aligned by position, and a prediction file with another
number of rows is refused at the line where it stops matching gold, as is (BLUE) a row whose index differs from
gold's, or (BLUE's evaluation layout) whose docid or arguments differ from gold's. The task name is the signature's
`task` field, so `releval audit compare` refuses to compare a `chemprot-blue` result with a `chemprot-scibert` one.

>>> config = BlueConfig()
>>> config.negative, config.by_position, config.gold_format
('false', True, 'chemprot-blue')
>>> SciBertConfig().negative is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from releval.core.errors import InputError, OptionError
from releval.data.formats.chemprot import BLUE_GROUPS, BLUE_LABELS, BLUE_NEGATIVE, PAIR_COLUMNS, SCIBERT_LABELS
from releval.data.labels import LabelFile
from releval.result import ScoreResult
from releval.tasks import classification as rc
from releval.tasks.base import BoardExample, Task, rows_per_class

#: The note every ChemProt-BLUE result carries.
BLUE_NOTE = (
    f"BLUE ChemProt: micro over the five groups {', '.join(BLUE_GROUPS)}; '{BLUE_NEGATIVE}' is the negative class "
    "(not averaged) — not comparable with SciBERT's 13-label ChemProt"
)
#: The note every ChemProt-SciBERT result carries.
SCIBERT_NOTE = (
    "no negative class: micro-F1 equals accuracy (SciBERT's ChemProt, 13 labels) — not comparable with BLUE's "
    "micro over CPR groups"
)


@dataclass(frozen=True)
class _ChemProtConfig(rc.ClassificationConfig):
    """What both presets fix: their file format for gold (and predictions unless another is named), alignment by
    position, no relabelling patch (the rows have no ids to name)."""

    fixed_negative: ClassVar[str | None] = None
    format_name: ClassVar[str] = ""
    labels_allowed: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        negative = self.fixed_negative
        if self.negative not in (rc.AUTO, negative):
            wanted = f"'{negative}'" if negative is not None else "none (--no-negative)"
            raise OptionError(
                f"negative: {self.task}'s negative class is {wanted}, not {self.negative!r}", option="negative"
            )
        object.__setattr__(self, "negative", negative)
        # the preset fixes the negative class, so it cannot be a typo: a gold slice without it is no mistake
        object.__setattr__(self, "allow_absent_negative", True)
        if self.by_position is False:
            raise OptionError(
                f"by_position: {self.task} rows have no ids, they are aligned by position", option="by_position"
            )
        object.__setattr__(self, "by_position", True)
        if self.gold_format not in (None, rc.AUTO, self.format_name):
            raise OptionError(f"gold_format: {self.task} gold is read as {self.format_name}", option="gold_format")
        object.__setattr__(self, "gold_format", self.format_name)
        if self.pred_format is None:
            object.__setattr__(self, "pred_format", self.format_name)
        if self.patch is not None:
            raise OptionError(f"patch: {self.task} rows have no ids for a relabelling patch to name", option="patch")
        super().__post_init__()


@dataclass(frozen=True)
class BlueConfig(_ChemProtConfig):
    """ChemProt as BLUE scores it: CPR:3/4/5/6/9 and `false` (the negative class); micro over the five groups."""

    task: ClassVar[str] = "chemprot-blue"
    fixed_negative: ClassVar[str | None] = BLUE_NEGATIVE
    format_name: ClassVar[str] = "chemprot-blue"
    labels_allowed: ClassVar[frozenset[str]] = BLUE_LABELS

    negative: str | None = BLUE_NEGATIVE


@dataclass(frozen=True)
class SciBertConfig(_ChemProtConfig):
    """ChemProt as SciBERT distributes it: 13 relation labels, no negative class (micro-F1 = accuracy)."""

    task: ClassVar[str] = "chemprot-scibert"
    fixed_negative: ClassVar[str | None] = None
    format_name: ClassVar[str] = "chemprot-scibert"
    labels_allowed: ClassVar[frozenset[str]] = frozenset(SCIBERT_LABELS)

    negative: str | None = None


def _check_rows(gold: LabelFile, pred: LabelFile, config: _ChemProtConfig) -> None:
    """Refuse, at the prediction file's line, a label outside the task's set, a row count that differs from
    gold's, (when both files carry BLUE's index) a row whose index is not gold's at that position, and (when both
    are in BLUE's evaluation layout) a row whose docid, arg1 or arg2 is not gold's for the same id."""
    for i, label in enumerate(pred.labels):
        if label not in config.labels_allowed:
            allowed = ", ".join(sorted(config.labels_allowed))
            raise pred.error(f"{label!r} is not a {config.task} label (expected one of {allowed})", i, "label")
    n_gold, n_pred = len(gold), len(pred)
    if n_pred > n_gold:
        raise pred.error(
            f"{n_pred} prediction rows for {n_gold} gold rows: this row has no gold row (line counts differ)",
            n_gold,
        )
    if n_pred < n_gold:
        raise InputError(
            f"{n_pred} prediction rows for {n_gold} gold rows: the predictions end here, gold continues at its "
            f"line {gold.lines[n_pred]} (line counts differ)",
            file=pred.path,
            line=pred.lines[-1] + 1 if n_pred else 1,
        )
    gold_index, pred_index = gold.fields.get("index"), pred.fields.get("index")
    if gold_index is not None and pred_index is not None and list(gold_index) != list(pred_index):
        i = next(k for k, (a, b) in enumerate(zip(gold_index, pred_index)) if a != b)
        raise pred.error(
            f"index {pred_index[i]!r} where gold has {gold_index[i]!r} (gold line {gold.lines[i]}): the rows are not "
            "in gold's order",
            i,
            "index",
        )
    for column in PAIR_COLUMNS:  # BLUE's evaluation layout: the same id must name the same candidate pair
        gold_values, pred_values = gold.fields.get(column), pred.fields.get(column)
        if gold_values is None or pred_values is None or list(gold_values) == list(pred_values):
            continue
        i = next(k for k, (a, b) in enumerate(zip(gold_values, pred_values)) if a != b)
        raise pred.error(
            f"{column} {pred_values[i]!r} where gold has {gold_values[i]!r} for the same id (gold line "
            f"{gold.lines[i]}): this row is another candidate pair than gold's (BLUE's evaluation skips such a row "
            "with a warning, which changes the score)",
            i,
            column,
        )


def load_checked(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: _ChemProtConfig
) -> tuple[LabelFile, str | None, dict[str, list[LabelFile]]]:
    """Gold and every prediction file read as the Config reads them and checked row by row (`_check_rows`)."""
    gold_file, digest = rc.load_gold(gold, config)
    runs: dict[str, list[LabelFile]] = {}
    for name, preds in systems.items():
        for pred in preds:
            pred_file = rc.load_pred(pred, config)
            _check_rows(gold_file, pred_file, config)
            runs.setdefault(name, []).append(pred_file)
    return gold_file, digest, runs


def _note(config: _ChemProtConfig) -> str:
    return BLUE_NOTE if isinstance(config, BlueConfig) else SCIBERT_NOTE


def score_files(gold: Any, systems: Sequence[tuple[str | None, Any]], config: _ChemProtConfig) -> list[ScoreResult]:
    """Score each prediction file against gold under the preset (one ScoreResult each, with the preset's note)."""
    named = {str(k): [pred] for k, (_, pred) in enumerate(systems)}
    gold_file, digest, runs = load_checked(gold, named, config)
    results = []
    for (name, _), (pred_file,) in zip(systems, runs.values()):
        prepared = rc.prepare(gold_file, pred_file, config, digest)
        result = rc.score_prepared(prepared, config, name or rc.system_name(pred_file))
        results.append(replace(result, notes=[_note(config), *result.notes]))
    return results


def compare(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: _ChemProtConfig,
    test: Any,
    *,
    baseline: str | None = None,
    progress: Any = None,
    compare_files: Callable[..., Any],
) -> Any:
    """Paired tests (one file per system) or seed comparisons (several), as `rc` compares them
    (`compare_files`: releval.significance.compare's, which releval.registry passes in), after the row checks of
    `load_checked`; the table carries the preset's note."""
    gold_file, _, runs = load_checked(gold, systems, config)
    table = compare_files(gold_file, runs, config, test, baseline=baseline, progress=progress)
    return replace(table, notes=[_note(config), *table.notes])


def rank_intervals(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: _ChemProtConfig,
    test: Any,
    *,
    rank_intervals: Callable[..., Any],
) -> Any:
    """Bootstrap rank intervals as `rc` computes them (`rank_intervals`: releval.significance.ranks', which
    releval.registry passes in; several files of a system are its seeds, ranked by their mean), after the row checks
    of `load_checked`."""
    gold_file, _, runs = load_checked(gold, systems, config)
    return rank_intervals(gold_file, runs, config, test)


@dataclass(frozen=True)
class PresetTask(Task[_ChemProtConfig, ScoreResult]):
    """A Task whose Config inherits settings the preset fixes: `fixed` names them, and they are not among the task's
    `settings`, so the input stage refuses their options for this task ("--view: apply to --task rc only") instead
    of accepting a setting that cannot change a number or would contradict the preset."""

    fixed: tuple[str, ...] = ()

    @property
    def settings(self) -> frozenset[str]:
        return super().settings - set(self.fixed)


#: The classification settings a ChemProt preset fixes: no SemEval direction to drop, no ids for a patch to name.
FIXED = ("view", "patch")

#: Why the scores of two presets are not comparable ({their two task names}: the reason), for `audit compare`.
PRESET_REASONS: dict[frozenset[str], str] = {
    frozenset(("chemprot-blue", "chemprot-scibert")): (
        "task differs: chemprot-blue (BLUE/BioBERT/BLURB: micro-F1 over CPR:3/4/5/6/9 with 'false' candidate pairs "
        "as negatives) and chemprot-scibert (SciBERT: 13 labels, no negatives, micro-F1 = accuracy) are different "
        "tasks on different data: their numbers are not comparable"
    ),
}

BLUE_TASK = PresetTask(
    name="chemprot-blue",
    help="ChemProt as BLUE/BioBERT/BLURB score it: micro-F1 over CPR:3/4/5/6/9, 'false' the negative class",
    config=BlueConfig,
    unit="item",
    score_files=score_files,
    measures=(),
    per_class=rows_per_class,
    fixed=FIXED,
)
SCIBERT_TASK = PresetTask(
    name="chemprot-scibert",
    help="ChemProt as SciBERT distributes it: 13 labels, no negative class (micro-F1 = accuracy)",
    config=SciBertConfig,
    unit="item",
    score_files=score_files,
    measures=(),
    per_class=rows_per_class,
    fixed=FIXED,
    example=BoardExample(
        slug="chemprot-scibert",
        folder="chemprot",
        gold="scibert_chemprot_test.txt.gz",
        title="ChemProt as SciBERT distributes it (13 labels, test split)",
        description="Krallinger et al. (2017) via Beltagy et al. (2019): no negative class, so micro-F1 equals "
        "accuracy; not comparable with BLUE's ChemProt (micro over CPR:3/4/5/6/9).",
        position=1,
    ),
)
