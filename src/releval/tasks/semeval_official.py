"""The SemEval-2010 Task 8 official scorer (perl v1.2) as a task, with releval's input checks.

Its Config has one setting — whether key items without a prediction are an error or skipped as the perl
scorer skips them — and its signature is made here, in one place. Its result saves to JSON (`to_dict`) and loads
back equal (`from_dict`); the scorer's text layout is rendered by releval.report.semeval_report.

>>> SemevalOfficialConfig(on_missing="wrong").allow_skipped
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from releval.core.frames import data_frame
from releval.core.notices import Notice, as_notices
from releval.core.options import MISSING_POLICIES
from releval.core.schema import check_schema, header, reading, same
from releval.core.signature import Signature, parse, sequence_digest, short_hash
from releval.data.alignment import align
from releval.data.labels import LabelFile
from releval.data.semeval_labels import DIRECTED_SET
from releval.errors import InputError
from releval.metrics.semeval import VIEW_TITLES, VIEWS, Prf, SemevalScores, SemevalView, semeval_scores
from releval.tasks.base import Task
from releval.tasks.classification import LabelsInput, as_label_file
from releval.tasks.classification import system_name as _system_name
from releval.validation import check_choice

TASK = "semeval-official"


@dataclass(frozen=True)
class SemevalOfficialConfig:
    """`on_missing`: error (default), or wrong: key items without a prediction are skipped, as by the scorer."""

    task: ClassVar[str] = TASK
    on_missing: str = "error"

    def __post_init__(self) -> None:
        check_choice(self.on_missing, MISSING_POLICIES, "on_missing")

    @property
    def allow_skipped(self) -> bool:
        return self.on_missing != "error"


@dataclass(frozen=True)
class SemevalOfficialResult:
    """The scorer's three views for one system, with the settings' signature and any warnings."""

    system: str
    scores: SemevalScores
    signature: Signature
    warnings: list[Notice] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

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
            )

    def __eq__(self, other: object) -> bool:
        """Field by field: the views' arrays by dtype, shape and value (they have no truth value), warnings with
        their codes."""
        if not isinstance(other, SemevalOfficialResult):
            return NotImplemented
        return same(self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable lists inside: not hashable


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


def score(
    gold: LabelsInput,
    pred: LabelsInput,
    config: SemevalOfficialConfig | None = None,
    system: str | None = None,
) -> SemevalOfficialResult:
    """Score `pred` against the answer key `gold` as `semeval2010_task8_scorer-v1.2.pl PRED GOLD` does.

    Items are matched by id; an id not in the key is an error; a key id without prediction is an error unless
    the Config allows skipping, in which case it is skipped as by the scorer (lowers recall and coverage only).
    """
    allow_skipped = (config or SemevalOfficialConfig()).allow_skipped
    g = as_label_file(gold, "gold")
    p = as_label_file(pred, "pred")
    _check_directed(g)
    _check_directed(p)
    by_position = g.ids is None and p.ids is None
    alignment = align(g, p, on_missing="wrong" if allow_skipped else "error", by_position=by_position)
    scores = semeval_scores(alignment.gold, alignment.pred)
    warnings = [
        Notice(
            f"the proposed file contains {n} label(s) of type '{label}', which is NOT present in the key file",
            "label-absent-from-key",
        )
        for label, n in scores.absent_from_key.items()
    ]
    notes: list[str] = []
    if scores.n_skipped:
        warnings.append(
            Notice(
                f"{scores.n_skipped} of {len(alignment.gold)} key item(s) skipped (no prediction)", "missing-skipped"
            )
        )
    signature = Signature.build(
        task=TASK,
        view="official",
        negative="Other",
        average="macro",
        missing="skip" if allow_skipped else "error",
        labels=short_hash(sorted(set(alignment.gold))),
        gold=sequence_digest(alignment.gold),  # gold labels in gold order: the same for any file format
        n=len(alignment.gold),
    )
    return SemevalOfficialResult(system or _system_name(p), scores, signature, warnings, notes)


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
)
