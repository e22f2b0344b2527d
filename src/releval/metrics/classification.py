"""Relation-classification scores: labels encoded to integers once, one bincount, every average from counts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from releval.core.label_codes import sorted_codes
from releval.data.alignment import MISSING_LABEL
from releval.metrics.averages import PRF, AveragingSpec, all_averages
from releval.metrics.counts import ClassCounts, confusion_matrix, counts_from_confusion
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, Weighting

NEGATIVE_CANDIDATES = ("no_relation", "Other", "NA")


@dataclass(frozen=True)
class Encoded:
    """Integer codes for gold and predictions over one label list (gold labels first, predicted-only after).

    Codes are small unsigned integers (`releval.core.label_codes`: one byte per item for up to 256 labels);
    widen them before arithmetic."""

    labels: list[str]
    gold: NDArray[np.integer]
    pred: NDArray[np.integer]
    n_gold_labels: int


def encode(gold: Sequence[object], pred: Sequence[object], missing: str = MISSING_LABEL) -> Encoded:
    """Sorted gold labels, then labels seen only in predictions (the missing placeholder `missing` last), as int
    codes. Non-str items are read as `str(item)`.

    >>> e = encode(["b", "a"], ["a", "c"])
    >>> e.labels, e.gold.tolist(), e.pred.tolist(), e.n_gold_labels
    (['a', 'b', 'c'], [1, 0], [0, 2], 2)
    """
    if len(gold) != len(pred):
        raise ValueError(f"gold and pred differ in length: {len(gold)} vs {len(pred)}")
    labels, (g, p) = sorted_codes([gold, pred], missing)
    n_gold_labels = int(g.max()) + 1 if len(g) else 0  # gold's labels are sorted first, so it uses all below
    return Encoded(labels, g, p, n_gold_labels)


def detect_negative(labels: Sequence[str]) -> str | None:
    """The first of no_relation / Other / NA among the labels, or None."""
    present = set(labels)
    return next((c for c in NEGATIVE_CANDIDATES if c in present), None)


@dataclass(frozen=True)
class ClassificationScores:
    """Per-class counts and scores, every average, and accuracy, for one system."""

    labels: list[str]
    counts: ClassCounts
    per_class: PRF
    averages: dict[str, PRF]
    accuracy: float
    n: int
    negative: str | None
    positive: NDArray[np.bool_]
    confusion: NDArray[np.int64]


def score_encoded(
    enc: Encoded,
    *,
    negative: str | None,
    weightings: Sequence[Weighting] = DEFAULT_WEIGHTINGS,
    beta: float = 1.0,
    zero_division: float = 0.0,
    entropy_n: str = "all",
) -> ClassificationScores:
    """All scores of one encoded system; the negative class is excluded from every average."""
    k = len(enc.labels)
    matrix = confusion_matrix(enc.gold, enc.pred, k)
    counts = counts_from_confusion(matrix)
    positive = np.array([label != negative for label in enc.labels], dtype=bool)
    spec = AveragingSpec(positive, tuple(weightings), beta, zero_division, entropy_n)
    per_class, averages = all_averages(counts, spec)
    n = int(enc.gold.shape[0])
    accuracy = float(np.trace(matrix) / n) if n else zero_division
    return ClassificationScores(enc.labels, counts, per_class, averages, accuracy, n, negative, positive, matrix)


def score_labels(
    gold: Sequence[str], pred: Sequence[str], *, negative: str | None, **options: object
) -> ClassificationScores:
    """Convenience: encode then score aligned label sequences."""
    return score_encoded(encode(gold, pred), negative=negative, **options)  # type: ignore[arg-type]
