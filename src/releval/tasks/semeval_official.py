"""The SemEval-2010 Task 8 official scorer (perl v1.2) as a task, with releval's input checks.

Its Config has one setting, `on_missing`: what a key item without a prediction is. The scorer itself skips such
an item — it lowers recall and coverage, and its report counts it once "as Wrong" and once "as Other" in two
accuracy lines. releval refuses it by default ("error"); "wrong" skips it as the scorer does (the same report as
the perl scorer on the file as given); "negative" scores it as Other (the same report as the perl scorer on the
file with each missing id added as `ID<TAB>Other`). Other is outside every average, so the three macro-F1 do not
change between the two; the confusion matrix, coverage, accuracies and Other's row do.

The signature is made here, in one place. A result saves to JSON (`to_dict`) and loads back equal
(`from_dict`); `tables_of` lays out one line per system for releval.report.render (every output format); the
scorer's text layout is rendered by releval.report.semeval_report.

>>> SemevalOfficialConfig(on_missing="wrong").allow_skipped, SemevalOfficialConfig(on_missing="negative").fill
(True, 'Other')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from releval.core.errors import InputError
from releval.core.frames import data_frame
from releval.core.notices import Notice, as_notices
from releval.core.options import MISSING_POLICIES
from releval.core.schema import check_schema, header, reading, same
from releval.core.signature import Signature, parse, sequence_digest, short_hash
from releval.core.table import Column, Table
from releval.core.validation import check_choice
from releval.data.alignment import align
from releval.data.columns import distinct
from releval.data.label_inputs import LabelsInput, as_label_file
from releval.data.label_inputs import system_name as _system_name
from releval.data.labels import LabelFile
from releval.data.semeval_labels import DIRECTED_SET, OTHER, UNDIRECTED_SET
from releval.metrics.semeval import VIEW_TITLES, VIEWS, Prf, SemevalScores, SemevalView, semeval_scores
from releval.tasks.base import Task
from releval.tasks.label_mistakes import identical_to_gold, swapped_files
from releval.tasks.vocabulary import Vocabulary, check_vocabulary

TASK = "semeval-official"


@dataclass(frozen=True)
class SemevalOfficialConfig:
    """`on_missing`: a key item without a prediction is an error (default); wrong: skipped as by the scorer
    (a miss: lowers recall, never precision); negative: scored as Other (the scorer on the file completed with
    Other)."""

    task: ClassVar[str] = TASK
    on_missing: str = "error"

    def __post_init__(self) -> None:
        check_choice(self.on_missing, MISSING_POLICIES, "on_missing")

    @property
    def allow_skipped(self) -> bool:
        """Whether a key item may lack a prediction (skipped or scored as Other)."""
        return self.on_missing != "error"

    @property
    def fill(self) -> str | None:
        """The label a missing prediction is scored as (Other under "negative"), or None when it is skipped."""
        return OTHER if self.on_missing == "negative" else None

    @property
    def missing(self) -> str:
        """The signature's `missing` field: error, skip (as the scorer) or other (scored as Other)."""
        return {"error": "error", "wrong": "skip", "negative": "other"}[self.on_missing]


@dataclass(frozen=True)
class SemevalOfficialResult:
    """The scorer's three views for one system, with the settings' signature and any warnings."""

    system: str
    scores: SemevalScores
    signature: Signature
    warnings: list[Notice] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Key items without a prediction that were scored as Other (on_missing="negative").
    n_filled: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "warnings", as_notices(self.warnings))

    @property
    def official_score(self) -> float:
        """Macro-F1 (percent) of the 10-way evaluation taking direction into account."""
        return self.scores.official_score

    @property
    def task(self) -> str:
        return TASK

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready numbers of all three views (percentages unrounded, in [0, 100]) with the signature.

        Every field of the scores is written (the derived ones too, for readers of the JSON), so `from_dict` reads
        the result back equal.
        """
        s = self.scores
        return {
            **header(TASK),
            "system": self.system,
            "task": TASK,
            "official_score": s.official_score,
            "percentages": True,
            "views": {v.name: _view_dict(v) for v in s.views},
            "absent_from_key": dict(s.absent_from_key),
            "skipped": s.n_skipped,
            "filled": self.n_filled,
            "warnings": [w.to_dict() for w in self.warnings],
            "notes": list(self.notes),
            **self.signature.to_json(),
        }

    def to_frame(self) -> Any:
        """Per-relation rows of the three views (percentages, as the scorer prints them), indexed by (view,
        label); each view's micro and macro averages without Other as rows labelled `<micro>` and `<macro>`."""
        records: list[dict[str, Any]] = []
        for view in self.scores.views:
            data = _view_dict(view)
            records += [{"view": view.name, **row} for row in data["per_relation"]]
            for average in ("micro", "macro"):
                numbers = data[f"{average}_excluding_other"]
                records.append(
                    {
                        "view": view.name,
                        "label": f"<{average}>",
                        **{k: numbers[k] for k in ("precision", "recall", "f1")},
                    }
                )
        return data_frame(records, index=["view", "label"])

    def to_tables(self) -> list[Table]:
        """This result's tables for `releval.report.render` (see `tables_of`)."""
        return SemevalOfficialResult.tables_of([self])

    @classmethod
    def tables_of(cls, results: Sequence[SemevalOfficialResult], per_class: bool | None = None) -> list[Table]:
        """One line per system: the macro-F1 (percent, two decimals as the scorer prints them) of the official
        (9+1)-way evaluation with direction, of the (2*9+1)-way one and of the (9+1)-way one without direction.

        Display formats (text, Markdown, LaTeX) get one table, its warnings each prefixed by the system, and the
        signature once when every system shares it. CSV gets one data block per system with the same columns —
        fractions, the counts of key items, skipped and filled items, the warnings' codes and the long signature —
        the warnings themselves as `# warning:` lines first. The per-relation numbers are the perl report's
        (`releval.report.semeval_report`); `per_class=True` is refused rather than ignored.

        >>> key = {"1": "Cause-Effect(e1,e2)", "2": "Other", "3": "Message-Topic(e2,e1)"}
        >>> from releval.report.render import render
        >>> text = render(SemevalOfficialResult.tables_of([score(key, key, system="same")]), "text")
        >>> print(*text.splitlines()[:4], sep=chr(10))
        == SemEval-2010 Task 8 macro-F1 (%), Other excluded ==
        system  official  19-way  undirected
        ------  --------  ------  ----------
        same      100.00  100.00      100.00
        """
        if per_class:
            raise ValueError("the per-relation numbers of --task semeval-official are the perl scorer's report")
        rows = [
            (r.system, r.scores.official.macro_f1, r.scores.directed.macro_f1, r.scores.undirected.macro_f1)
            for r in results
        ]
        signatures = [r.signature.format(short=True) for r in results]
        signature: Any = (
            signatures[0] if len(set(signatures)) == 1 else tuple((r.system, x) for r, x in zip(results, signatures))
        )
        warnings = [f"{r.system}: {w}" for r in results for w in r.warnings]
        display = Table(
            "SemEval-2010 Task 8 macro-F1 (%), Other excluded",
            [Column("system"), *(Column(name, "number", spec=".2f") for name in _SCORE_COLUMNS)],
            rows,
            notes=_TABLE_NOTES,
            warnings=warnings,
            signature=signature,
            show="display",
        )
        columns = [Column("system"), *(Column(name, "fraction", key=key) for name, key in _SCORE_COLUMNS.items())]
        columns += [Column(name, "count") for name in ("n", "skipped", "filled")]
        columns.append(Column("warnings"))
        data = [
            Table(
                "",
                columns,
                [
                    (
                        r.system,
                        *(x / 100 for x in row[1:]),
                        r.scores.official.n_total,
                        r.scores.n_skipped,
                        r.n_filled,
                        " ".join(dict.fromkeys(w.code for w in r.warnings)),
                    )
                ],
                warnings=warnings if i == 0 else (),
                signature=str(r.signature),
                show="data",
            )
            for i, (r, row) in enumerate(zip(results, rows))
        ]
        return [display, *data]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SemevalOfficialResult:
        """The result `to_dict()` wrote (ValueError when `data` is not a saved SemEval official result)."""
        what = "SemEval official result"
        check_schema(data, what, TASK)
        with reading(what):
            views = data["views"]
            directed, undirected, official = (_view_from_dict(name, views[name]) for name in VIEWS)
            scores = SemevalScores(
                directed,
                undirected,
                official,
                {str(k): int(v) for k, v in data.get("absent_from_key", {}).items()},
                int(data["skipped"]),
            )
            return cls(
                str(data["system"]),
                scores,
                parse(data["signature"]),
                [Notice.from_dict(w) for w in data.get("warnings", [])],
                [str(n) for n in data.get("notes", [])],
                int(data.get("filled", 0)),
            )

    def __eq__(self, other: object) -> bool:
        """Field by field: the views' arrays by dtype, shape and value (they have no truth value), warnings with
        their codes."""
        if not isinstance(other, SemevalOfficialResult):
            return NotImplemented
        return same(self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable lists inside: not hashable


#: The three macro-F1 of a system's line: display header → CSV column.
_SCORE_COLUMNS = {"official": "official_macro_f1", "19-way": "macro_f1_19_way", "undirected": "undirected_macro_f1"}
_TABLE_NOTES = (
    "official: (9+1)-way, direction taken into account; 19-way: (2*9+1)-way; undirected: (9+1)-way",
    "the perl scorer's whole report: --perl-report",
)


def _view_dict(view: SemevalView) -> dict[str, Any]:
    """One view as the JSON output lays it out: matrix, coverage, accuracies, per-relation lines and averages."""
    per = []
    for i, label in enumerate(view.labels):
        row: dict[str, Any] = {
            "label": label,
            "correct": int(view.correct[i]),
            "proposed": int(view.proposed[i]),
            "p_denominator": int(view.p_denominator[i]),
            "actual": int(view.actual[i]),
            "skipped": int(view.skipped[i]),
            "precision": float(view.precision[i]),
            "recall": float(view.recall[i]),
            "f1": float(view.f1[i]),
        }
        if view.uses_wrong_direction:
            row["wrong_direction"] = int(view.wrong_direction[i])
        per.append(row)
    mi = view.micro
    return {
        "title": VIEW_TITLES[view.name],
        "labels": list(view.labels),
        "columns": list(view.columns),
        "confusion": view.confusion.tolist(),
        "wrong_direction": view.wrong_direction.tolist() if view.uses_wrong_direction else None,
        "skipped": view.skipped.tolist(),
        "actual": view.actual.tolist(),
        "coverage": {"proposed": view.n_proposed, "total": view.n_total, "percent": view.coverage},
        "accuracy": {
            "correct": view.n_correct,
            "on_proposed": view.accuracy,
            "skipped_as_wrong": view.accuracy_skipped_wrong,
            "skipped_as_other": view.accuracy_skipped_other,
            "other_skipped": view.other_skipped,
        },
        "per_relation": per,
        "micro_excluding_other": {
            "correct": mi.correct,
            "proposed": mi.proposed,
            "actual": mi.actual,
            "precision": mi.precision,
            "recall": mi.recall,
            "f1": mi.f1,
        },
        "macro_excluding_other": {
            "precision": view.macro_precision,
            "recall": view.macro_recall,
            "f1": view.macro_f1,
            "n_labels": view.n_macro_labels,
        },
    }


def _view_from_dict(name: str, data: dict[str, Any]) -> SemevalView:
    """The view `_view_dict` wrote; the derived numbers (title, percentages of coverage and accuracy) are not read."""
    labels = tuple(str(x) for x in data["labels"])
    per = data["per_relation"]
    if [row["label"] for row in per] != list(labels):
        raise ValueError(f"SemEval official result: view {name}: per_relation rows do not follow the labels")

    def counts(values: Any) -> np.ndarray:
        return np.asarray(values, dtype=np.int64)

    def column(key: str, dtype: type) -> np.ndarray:
        return np.asarray([row[key] for row in per], dtype=dtype)

    wrong = data.get("wrong_direction")
    mi, macro, coverage, accuracy = (
        data["micro_excluding_other"],
        data["macro_excluding_other"],
        data["coverage"],
        data["accuracy"],
    )
    return SemevalView(
        name=name,
        labels=labels,
        columns=tuple(str(x) for x in data["columns"]),
        confusion=counts(data["confusion"]).reshape(len(labels), len(data["columns"])),
        wrong_direction=counts(wrong) if wrong is not None else np.zeros(len(labels), dtype=np.int64),
        skipped=counts(data["skipped"]),
        actual=counts(data["actual"]),
        correct=column("correct", np.int64),
        proposed=column("proposed", np.int64),
        precision=column("precision", np.float64),
        recall=column("recall", np.float64),
        f1=column("f1", np.float64),
        micro=Prf(
            int(mi["correct"]),
            int(mi["proposed"]),
            int(mi["actual"]),
            float(mi["precision"]),
            float(mi["recall"]),
            float(mi["f1"]),
        ),
        macro_precision=float(macro["precision"]),
        macro_recall=float(macro["recall"]),
        macro_f1=float(macro["f1"]),
        n_macro_labels=int(macro["n_labels"]),
        n_proposed=int(coverage["proposed"]),
        n_total=int(coverage["total"]),
        n_correct=int(accuracy["correct"]),
        other_skipped=int(accuracy["other_skipped"]),
    )


def _check_directed(labels: LabelFile) -> None:
    """The scorer accepts only the 19 directed labels; an undirected key (TEST_FILE_KEY.TXT) is refused."""
    bad = [i for i, label in enumerate(labels.labels) if label not in DIRECTED_SET]
    if not bad:
        return
    i = bad[0]
    more = f" ({len(bad)} such labels in the file)" if len(bad) > 1 else ""
    raise InputError(
        f"'{labels.labels[i]}' is not one of the 19 directed SemEval-2010 Task 8 labels{more}; the official score "
        "needs directed labels such as Cause-Effect(e1,e2) or Other",
        file=labels.path,
        line=labels.lines[i] if i < len(labels.lines) else None,
        field="label",
    )


def check_labels(gold: LabelFile, pred: LabelFile) -> None:
    """The label mistakes `--task rc` refuses, refused with the same diagnosis before the scorer's own label check
    (which only says a label is not one of the 19): integer class indices, another dataset's labels, letter case,
    white space, an id glued to each label (releval.tasks.vocabulary). Undirected predictions are left to that
    check, which names the 19 directed labels. Gold is a directed key (checked before).

    >>> key = LabelFile("<key>", "mapping", ["1", "2"], ["Other", "Cause-Effect(e1,e2)"], [1, 2])
    >>> try:
    ...     check_labels(key, LabelFile("p.txt", "id-tsv", ["1", "2"], ["0", "3"], [1, 2]))
    ... except InputError as error:
    ...     print(error.message.split(" (")[0])
    the predicted labels are integers
    """
    predicted = distinct(pred.labels)
    if predicted <= DIRECTED_SET or predicted & (UNDIRECTED_SET - {OTHER}):
        return
    check_vocabulary(Vocabulary("label", frozenset(distinct(gold.labels)), predicted, pred.path, allowed=DIRECTED_SET))


def score(
    gold: LabelsInput,
    pred: LabelsInput,
    config: SemevalOfficialConfig | None = None,
    system: str | None = None,
) -> SemevalOfficialResult:
    """Score `pred` against the answer key `gold` as `semeval2010_task8_scorer-v1.2.pl PRED GOLD` does.

    Items are matched by id; an id not in the key is an error; a key id without prediction is an error unless
    the Config says what it is: skipped as by the scorer (on_missing="wrong": lowers recall and coverage only) or
    scored as Other (on_missing="negative"). Warnings are carried by the result (its `warnings`), never printed.

    >>> key = {"1": "Cause-Effect(e1,e2)", "2": "Other", "3": "Message-Topic(e2,e1)"}
    >>> r = score(key, {"1": "Cause-Effect(e1,e2)", "2": "Other"}, SemevalOfficialConfig("negative"))
    >>> round(r.official_score, 2), r.n_filled, r.scores.n_skipped, r.signature["missing"], r.warnings[0].code
    (50.0, 1, 0, 'other', 'missing-filled-negative')
    """
    config = config or SemevalOfficialConfig()
    g = as_label_file(gold, "gold")
    p = as_label_file(pred, "pred")
    _check_directed(g)
    check_labels(g, p)
    _check_directed(p)
    by_position = g.ids is None and p.ids is None
    policy = "error" if not config.allow_skipped else "negative" if config.fill else "wrong"
    alignment = align(g, p, on_missing=policy, negative=config.fill, by_position=by_position, position_option=False)
    # every prediction id is a key id (unknown and repeated ids are refused), so the key's size less the
    # predictions' is the number of key items the alignment filled with Other
    n_filled = len(alignment.gold) - len(p) if config.fill else 0
    scores = semeval_scores(alignment.gold, alignment.pred)
    warnings = [
        Notice(
            f"the proposed file contains {n} label(s) of type '{label}', which is NOT present in the key file",
            "label-absent-from-key",
        )
        for label, n in scores.absent_from_key.items()
    ]
    if scores.n_skipped:
        warnings.append(
            Notice(
                f"{scores.n_skipped} of {len(alignment.gold)} key item(s) skipped (no prediction)",
                "missing-skipped",
            )
        )
    if n_filled:
        warnings.append(
            Notice(
                f"{n_filled} of {len(alignment.gold)} key item(s) scored as Other (no prediction)",
                "missing-filled-negative",
            )
        )
    warnings += swapped_files(g, p)
    if not (scores.n_skipped or n_filled):
        warnings += identical_to_gold(alignment.gold, alignment.pred, p.path)
    signature = Signature.build(
        task=TASK,
        view="official",
        negative="Other",
        average="macro",
        missing=config.missing,
        labels=short_hash(sorted(set(alignment.gold))),
        gold=sequence_digest(alignment.gold),  # gold labels in gold order: the same for any file format
        n=len(alignment.gold),
    )
    return SemevalOfficialResult(system or _system_name(p), scores, signature, warnings, [], n_filled)


def score_files(
    gold: LabelsInput, systems: Sequence[tuple[str | None, LabelsInput]], config: SemevalOfficialConfig
) -> list[SemevalOfficialResult]:
    """Score several systems as the perl scorer would, one result each."""
    return [score(gold, pred, config, name) for name, pred in systems]


OFFICIAL_TASK = Task(
    name=TASK,
    help="the SemEval-2010 Task 8 perl scorer v1.2: (9+1)-way macro-F1 with direction, and its other views",
    config=SemevalOfficialConfig,
    unit="item",
    score_files=score_files,
    fixed_width=2,  # the perl scorer's two decimals, and no per-class rows beside other systems'
)
