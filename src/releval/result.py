"""The result of scoring one system: per-class rows, every average, accuracy, notes and its signature."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from releval.core.signature import Signature
from releval.metrics.averages import PRF
from releval.metrics.classification import ClassificationScores


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
    warnings: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_scores(
        cls,
        system: str,
        scores: ClassificationScores,
        signature: Signature,
        notes: list[str] | None = None,
        warnings: list[str] | None = None,
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
            list(warnings or []),
            dict(extra or {}),
        )

    def __getitem__(self, name: str) -> Average:
        return self.averages[name]

    @property
    def pred_only_labels(self) -> list[str]:
        """Labels that occur only in predictions (support 0): counted as false positives, never weighted."""
        return [r.label for r in self.per_class if r.support == 0]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (real numbers as fractions in [0, 1])."""
        return {
            "system": self.system,
            "signature": str(self.signature),
            "signature_short": self.signature.format(short=True),
            "n": self.n,
            "negative": self.negative,
            "accuracy": self.accuracy,
            "averages": {k: {"precision": a.precision, "recall": a.recall, "f": a.f} for k, a in self.averages.items()},
            "per_class": [r.__dict__.copy() for r in self.per_class],
            "notes": list(self.notes),
            "warnings": list(self.warnings),
            **({"extra": self.extra} if self.extra else {}),
        }

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


def _average(name: str, prf: PRF) -> Average:
    return Average(name, float(prf.precision), float(prf.recall), float(prf.f))
