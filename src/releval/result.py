"""The result of scoring one system: per-class rows, every average, accuracy, notes and its signature.

Every result type of releval follows one protocol: `to_dict()` (JSON-ready, with `schema_version` and `task`),
`from_dict()` (a saved result loads back equal), `to_tables()` (for the one renderer), `signature` and
`warnings` (structured notices, releval.core.notices).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from releval.core.notices import Notice, as_notices
from releval.core.signature import Signature, parse
from releval.metrics.averages import PRF
from releval.metrics.classification import ClassificationScores

#: The version of every result's JSON layout; a reader refuses a newer one instead of misreading it.
SCHEMA_VERSION = 1


def check_schema(data: dict[str, Any], what: str) -> None:
    """Refuse data that is not a releval result of this schema version (ValueError naming what is wrong)."""
    if not isinstance(data, dict):
        raise ValueError(f"{what}: expected a JSON object")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ValueError(f"{what}: schema_version {version!r} is not {SCHEMA_VERSION}")


@dataclass(frozen=True)
class ClassRow:
    """One class of the per-class table (support 0 marks a label that only occurs in predictions)."""

    label: str
    tp: int
    fp: int
    fn: int
    support: int
    precision: float
    recall: float
    f: float
    positive: bool


@dataclass(frozen=True)
class Average:
    """One averaged score: precision, recall and F under one weighting (or micro)."""

    name: str
    precision: float
    recall: float
    f: float


@dataclass(frozen=True)
class ScoreResult:
    """Scores of one system against gold, with every setting recorded in `signature`."""

    system: str
    per_class: list[ClassRow]
    averages: dict[str, Average]
    accuracy: float
    n: int
    negative: str | None
    signature: Signature
    notes: list[str] = field(default_factory=list)
    warnings: list[Notice] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    #: Under Olek's correction: each class-weighted average's interval over every attribution of the filled
    #: items' false positives, {average: (low, high)} (releval.metrics.missing_bounds).
    bounds: dict[str, tuple[Average, Average]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "warnings", as_notices(self.warnings))

    @property
    def task(self) -> str:
        """The kind of evaluation, from the signature (rc, e2e, …)."""
        return self.signature.get("task") or "rc"

    @classmethod
    def from_scores(
        cls,
        system: str,
        scores: ClassificationScores,
        signature: Signature,
        notes: list[str] | None = None,
        warnings: list[Notice] | list[str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> ScoreResult:
        c, pc = scores.counts, scores.per_class
        rows = [
            ClassRow(
                label,
                int(c.tp[i]),
                int(c.fp[i]),
                int(c.fn[i]),
                int(c.tp[i] + c.fn[i]),
                float(pc.precision[i]),  # type: ignore[index]
                float(pc.recall[i]),  # type: ignore[index]
                float(pc.f[i]),  # type: ignore[index]
                bool(scores.positive[i]),
            )
            for i, label in enumerate(scores.labels)
        ]
        averages = {name: _average(name, prf) for name, prf in scores.averages.items()}
        return cls(
            system,
            rows,
            averages,
            scores.accuracy,
            scores.n,
            scores.negative,
            signature,
            list(notes or []),
            [*(warnings or [])],
            dict(extra or {}),
        )

    def __getitem__(self, name: str) -> Average:
        return self.averages[name]

    @property
    def pred_only_labels(self) -> list[str]:
        """Labels that occur only in predictions (support 0): counted as false positives, never weighted."""
        return [r.label for r in self.per_class if r.support == 0]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (real numbers as fractions in [0, 1]); `from_dict` reads it back."""
        out = {
            "schema_version": SCHEMA_VERSION,
            "task": self.task,
            "system": self.system,
            "signature": str(self.signature),
            "signature_short": self.signature.format(short=True),
            "n": self.n,
            "negative": self.negative,
            "accuracy": None if math.isnan(self.accuracy) else self.accuracy,
            "averages": {k: _average_dict(a) for k, a in self.averages.items()},
            "per_class": [r.__dict__.copy() for r in self.per_class],
            "notes": list(self.notes),
            "warnings": [w.to_dict() for w in self.warnings],
        }
        if self.bounds:
            out["bounds"] = {
                k: {"low": _average_dict(lo), "high": _average_dict(hi)} for k, (lo, hi) in self.bounds.items()
            }
        if self.extra:
            out["extra"] = self.extra
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoreResult:
        """The result `to_dict()` wrote (ValueError when it is not one)."""
        check_schema(data, "score result")
        accuracy = data.get("accuracy")
        return cls(
            str(data["system"]),
            [ClassRow(**row) for row in data["per_class"]],
            {k: Average(k, v["precision"], v["recall"], v["f"]) for k, v in data["averages"].items()},
            math.nan if accuracy is None else float(accuracy),
            int(data["n"]),
            data.get("negative"),
            parse(data["signature"]),
            list(data.get("notes", [])),
            [Notice.from_dict(w) for w in data.get("warnings", [])],
            dict(data.get("extra", {})),
            {k: (Average(k, **v["low"]), Average(k, **v["high"])) for k, v in data.get("bounds", {}).items()},
        )

    def __eq__(self, other: object) -> bool:
        """Field by field; NaN accuracy (end-to-end RE has none) equals NaN."""
        if not isinstance(other, ScoreResult):
            return NotImplemented
        same_accuracy = self.accuracy == other.accuracy or (math.isnan(self.accuracy) and math.isnan(other.accuracy))
        mine = {k: v for k, v in self.__dict__.items() if k != "accuracy"}
        theirs = {k: v for k, v in other.__dict__.items() if k != "accuracy"}
        return same_accuracy and mine == theirs

    __hash__ = None  # type: ignore[assignment]  # mutable lists inside: not hashable

    def to_frame(self):  # noqa: ANN201 - pandas is optional
        """Per-class rows and averages as a pandas DataFrame (pandas imported only here)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("to_frame() needs pandas: pip install 'releval[frame]'") from exc
        rows = [
            {
                "label": r.label,
                "kind": "class",
                "precision": r.precision,
                "recall": r.recall,
                "f": r.f,
                "support": r.support,
                "tp": r.tp,
                "fp": r.fp,
                "fn": r.fn,
            }
            for r in self.per_class
        ]
        rows += [
            {"label": a.name, "kind": "average", "precision": a.precision, "recall": a.recall, "f": a.f}
            for a in self.averages.values()
        ]
        return pd.DataFrame(rows).set_index("label")


def _average_dict(a: Average) -> dict[str, float]:
    return {"precision": a.precision, "recall": a.recall, "f": a.f}


def _average(name: str, prf: PRF) -> Average:
    return Average(name, float(prf.precision), float(prf.recall), float(prf.f))
