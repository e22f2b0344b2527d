"""Confusion counts from integer-coded labels in one vectorised pass (np.bincount over gold*K + pred)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class ClassCounts:
    """Per-class TP / FP / FN (arrays of shape (..., K)); support n_c = TP_c + FN_c (metrics notes §1.1)."""

    tp: NDArray[np.int64]
    fp: NDArray[np.int64]
    fn: NDArray[np.int64]

    @property
    def support(self) -> NDArray[np.int64]:
        return self.tp + self.fn

    @property
    def predicted(self) -> NDArray[np.int64]:
        return self.tp + self.fp


def confusion_matrix(gold: NDArray[np.integer], pred: NDArray[np.integer], n_labels: int) -> NDArray[np.int64]:
    """K×K matrix M[g, p] = number of items with gold code g and predicted code p."""
    gold = np.asarray(gold, dtype=np.int64)
    pred = np.asarray(pred, dtype=np.int64)
    if gold.shape != pred.shape:
        raise ValueError(f"gold and pred differ in length: {gold.shape[0]} vs {pred.shape[0]}")
    flat = np.bincount(gold * n_labels + pred, minlength=n_labels * n_labels)
    return flat.reshape(n_labels, n_labels)


def counts_from_confusion(matrix: NDArray[np.integer]) -> ClassCounts:
    """TP on the diagonal, FP = column sum − TP, FN = row sum − TP; works on stacked (..., K, K) matrices."""
    m = np.asarray(matrix, dtype=np.int64)
    tp = np.diagonal(m, axis1=-2, axis2=-1).copy()
    return ClassCounts(tp=tp, fp=m.sum(axis=-2) - tp, fn=m.sum(axis=-1) - tp)


def class_counts(gold: NDArray[np.integer], pred: NDArray[np.integer], n_labels: int) -> ClassCounts:
    """Per-class counts of an aligned pair of integer-coded label arrays."""
    return counts_from_confusion(confusion_matrix(gold, pred, n_labels))
