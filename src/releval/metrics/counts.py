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


#: Items counted per `np.bincount` call by `confusion_matrix`: bincount widens its input to 8-byte integers, so
#: counting in chunks keeps that copy at 0.5 MB whatever the number of items.
_COUNT_CHUNK = 1 << 16


def confusion_matrix(gold: NDArray[np.integer], pred: NDArray[np.integer], n_labels: int) -> NDArray[np.int64]:
    """K×K matrix M[g, p] = number of items with gold code g and predicted code p.

    >>> confusion_matrix(np.array([0, 1, 1], dtype=np.uint8), np.array([0, 1, 0], dtype=np.uint8), 2).tolist()
    [[1, 0], [1, 1]]
    """
    gold, pred = np.asarray(gold), np.asarray(pred)
    if gold.shape != pred.shape:
        raise ValueError(f"gold and pred differ in length: {gold.shape[0]} vs {pred.shape[0]}")
    # the narrowest type that holds gold * K + pred: codes of at most 256 labels combine in two bytes
    wide = np.uint16 if n_labels <= 256 else np.uint32 if n_labels <= 65536 else np.int64
    flat = np.zeros(n_labels * n_labels, dtype=np.int64)
    for start in range(0, gold.shape[0], _COUNT_CHUNK):
        combined = gold[start : start + _COUNT_CHUNK].astype(wide) * wide(n_labels) + pred[start : start + _COUNT_CHUNK]
        flat += np.bincount(combined, minlength=n_labels * n_labels)
    return flat.reshape(n_labels, n_labels)


def counts_from_confusion(matrix: NDArray[np.integer]) -> ClassCounts:
    """TP on the diagonal, FP = column sum − TP, FN = row sum − TP; works on stacked (..., K, K) matrices."""
    m = np.asarray(matrix, dtype=np.int64)
    tp = np.diagonal(m, axis1=-2, axis2=-1).copy()
    return ClassCounts(tp=tp, fp=m.sum(axis=-2) - tp, fn=m.sum(axis=-1) - tp)


def class_counts(gold: NDArray[np.integer], pred: NDArray[np.integer], n_labels: int) -> ClassCounts:
    """Per-class counts of an aligned pair of integer-coded label arrays."""
    return counts_from_confusion(confusion_matrix(gold, pred, n_labels))
