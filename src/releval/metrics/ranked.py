"""Ranked relation facts (distant supervision, NYT10 held-out): the precision-recall curve of a ranking of scored
(entity pair, relation) predictions against a set of gold facts, and the numbers read off it.

The definitions are those of OpenNRE's bag-level evaluation (`BagREDataset.eval`, thunlp/OpenNRE,
opennre/framework/data_loader.py), restated here on arrays:

* the predictions are sorted by score, highest first; predictions with equal scores keep their input order
  (Python's stable `sorted(..., reverse=True)`) — tie policy ``input-order``;
* after the k-th prediction (k = 1..n), with c_k the number of the first k predictions that are gold facts,
  precision p_k = c_k / k and recall r_k = c_k / F, F the number of distinct gold facts (NA excluded);
* AUC = the trapezoidal area under (r_k, p_k), k = 1..n: ``sklearn.metrics.auc(recall, precision)``, i.e.
  ``numpy.trapezoid(p, r)`` — the curve is not anchored at recall 0, as in the reference;
* P@N = p_N; max F1 = max_k 2 p_k r_k / (p_k + r_k + 1e-20), the reference's formula with its 1e-20.

Tie policy ``average`` replaces c_k by its expected value when the predictions of each group of equal scores are
put in a uniformly random order: within a group the hits are spread evenly (c_k interpolated linearly between
the group's ends). P@N and every p_k, r_k are then exact expectations over the orders of tied predictions and do
not depend on the input order; the AUC is the area under that expected curve.

>>> curve = ranked_curve([0.9, 0.8, 0.8, 0.1], [True, False, True, False], 2)
>>> curve.precision.tolist(), curve.recall.tolist()
([1.0, 0.5, 0.6666666666666666, 0.5], [0.5, 0.5, 1.0, 1.0])
>>> round(curve.auc(), 6), curve.precision_at(2)
(0.291667, 0.5)
>>> ranked_curve([0.9, 0.8, 0.8, 0.1], [True, False, True, False], 2, ties="average").precision.tolist()
[1.0, 0.75, 0.6666666666666666, 0.5]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

#: The tie policies: the reference's (stable sort, input order kept) and the order-free expectation.
TIE_POLICIES = ("input-order", "average")
#: The reference's guard in max F1: 2pr / (p + r + 1e-20).
F1_EPSILON = 1e-20

_trapezoid: Any = getattr(np, "trapezoid", None) or getattr(np, "trapz")  # noqa: B009  # NumPy 2 renamed trapz


def ranking_order(scores: NDArray[np.float64]) -> NDArray[np.intp]:
    """The indices of `scores` from highest to lowest, equal scores in input order (a stable sort of -score, as
    Python's `sorted(key=score, reverse=True)` orders them).

    >>> ranking_order(np.array([0.5, 0.9, 0.5, 0.9])).tolist()
    [1, 3, 0, 2]
    """
    return np.argsort(-scores, kind="stable")


def tie_groups(sorted_scores: NDArray[np.float64]) -> NDArray[np.intp]:
    """The end (exclusive) of each run of equal scores in a sorted score array.

    >>> tie_groups(np.array([0.9, 0.8, 0.8, 0.1])).tolist()
    [1, 3, 4]
    """
    n = sorted_scores.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    change = np.flatnonzero(sorted_scores[1:] != sorted_scores[:-1]) + 1
    return np.append(change, n).astype(np.intp)


def expected_hits(hits: NDArray[np.float64], ends: NDArray[np.intp]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(c, k) under tie policy ``average``: c_k, the cumulative hits at each group end, interpolated linearly
    inside each group (the expectation over uniformly random orders of the group's predictions), and k = 1..n."""
    cum_w = np.arange(1, hits.shape[0] + 1, dtype=np.float64)
    cum_h = np.cumsum(hits)
    end_w = cum_w[ends - 1]
    end_h = cum_h[ends - 1]
    start_w = np.concatenate(([0.0], end_w[:-1]))
    start_h = np.concatenate(([0.0], end_h[:-1]))
    size = end_w - start_w
    rate = np.divide(end_h - start_h, size, out=np.zeros_like(size), where=size > 0)
    sizes = np.diff(np.concatenate(([0], ends)))
    c = np.repeat(start_h, sizes) + (cum_w - np.repeat(start_w, sizes)) * np.repeat(rate, sizes)
    return c, cum_w


@dataclass(frozen=True)
class RankedCurve:
    """The precision-recall curve of one ranking: precision[k-1] = p_k, recall[k-1] = r_k, the sorted scores,
    F, the number of gold facts, and c_n, the hits of the whole ranking. `predictions` is n (the curve's length)."""

    precision: NDArray[np.float64]
    recall: NDArray[np.float64]
    scores: NDArray[np.float64]
    facts: int
    hits: float = 0.0  # c_n: the hits of the whole ranking

    @property
    def predictions(self) -> int:
        return int(self.precision.shape[0])

    def auc(self) -> float:
        """The trapezoidal area under (recall, precision): `sklearn.metrics.auc(recall, precision)`, bit for bit
        (recall never decreases, so sklearn's direction is +1); 0.0 for fewer than two points (sklearn raises)."""
        if self.predictions < 2:
            return 0.0
        return float(_trapezoid(self.precision, self.recall))

    def precision_at(self, n: int) -> float:
        """P@N = p_N. With fewer than N predictions the missing ones count as wrong: c_n / N (the reference
        raises IndexError)."""
        if n <= self.predictions:
            return float(self.precision[n - 1])
        return float(self.hits / n)

    def f1(self) -> NDArray[np.float64]:
        """2 p_k r_k / (p_k + r_k + 1e-20) at every k (the reference's formula)."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r + F1_EPSILON)

    def max_f1(self) -> tuple[float, float]:
        """(max_k F1_k, the score of the prediction where it is reached): OpenNRE's max_micro_f1 and
        best_threshold. (0, nan) for an empty ranking."""
        if self.predictions == 0:
            return 0.0, float("nan")
        f = self.f1()
        k = int(f.argmax())
        return float(f[k]), float(self.scores[k])


def ranked_curve(
    scores: ArrayLike,
    hits: ArrayLike,
    facts: int,
    ties: str = "input-order",
    *,
    order: NDArray[np.intp] | None = None,
) -> RankedCurve:
    """The curve of predictions with `scores` of which `hits` are gold facts, against `facts` gold facts
    (`order`: the ranking, if already computed)."""
    s = np.asarray(scores, dtype=np.float64)
    h = np.asarray(hits, dtype=np.float64)
    if order is None:
        order = ranking_order(s)
    s_sorted, h_sorted = s[order], h[order]
    n = s_sorted.shape[0]
    if ties == "average" and n:
        c, k = expected_hits(h_sorted, tie_groups(s_sorted))
    else:
        c = np.cumsum(h_sorted)
        k = np.arange(1, n + 1, dtype=np.float64)
    precision = c / k
    recall = c / float(facts) if facts else np.zeros_like(c)
    return RankedCurve(precision, recall, s_sorted, int(facts), float(c[-1]) if n else 0.0)


def curve_auc(precision: NDArray[np.float64], recall: NDArray[np.float64]) -> float:
    """The trapezoidal area of a curve given as arrays (0.0 for fewer than two points)."""
    return 0.0 if precision.shape[0] < 2 else float(_trapezoid(precision, recall))


def weighted_curve(
    sorted_hits: NDArray[np.float64],
    weights: NDArray[np.float64],
    facts: float,
    ends: NDArray[np.intp] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(precision, recall) of a ranking in which the prediction at sorted position i occurs weights[i] times in a
    row (a bootstrap resample of bags: a bag drawn twice puts two copies of each of its predictions side by side),
    at every copy — the curve of the expanded ranking. `ends`: the tie groups, for tie policy ``average``
    (copies are tied with their original)."""
    keep = weights > 0
    h = sorted_hits[keep]
    w = weights[keep].astype(np.intp)
    expanded = np.repeat(h, w)
    if ends is None:
        c = np.cumsum(expanded)
        k = np.arange(1, expanded.shape[0] + 1, dtype=np.float64)
    else:
        group_of = np.repeat(np.arange(ends.shape[0]), np.diff(np.concatenate(([0], ends))))[keep]
        group_of = np.repeat(group_of, w)
        new_ends = tie_groups(group_of.astype(np.float64))
        c, k = expected_hits(expanded, new_ends)
    precision = c / k
    recall = c / facts if facts else np.zeros_like(c)
    return precision, recall


def relation_aucs(
    scores: NDArray[np.float64],
    hits: NDArray[np.float64],
    relations: NDArray[np.int64],
    facts_per_relation: NDArray[np.float64],
    ties: str = "input-order",
) -> NDArray[np.float64]:
    """The AUC of every relation's own ranking at once — its predictions, in the order of the ranking given
    (`scores` sorted, highest first), against its facts — indexed by relation id (0 for a relation without
    predictions). The trapezoid sums run per relation in index order (np.bincount), so a value may differ from
    `RankedCurve.auc` in the last bits; the resampling tests use it, the scores use `RankedCurve.auc`.

    >>> relation_aucs(np.array([0.9, 0.8, 0.7, 0.6]), np.array([1.0, 1.0, 0.0, 1.0]), np.array([0, 1, 0, 1]),
    ...               np.array([1.0, 2.0])).tolist()
    [0.0, 0.5]
    """
    n_rel = facts_per_relation.shape[0]
    out = np.zeros(n_rel)
    n = scores.shape[0]
    if n == 0:
        return out
    idx = np.argsort(relations, kind="stable")
    r, h, s = relations[idx], hits[idx], scores[idx]
    first = np.ones(n, dtype=bool)
    first[1:] = r[1:] != r[:-1]
    starts = np.flatnonzero(first)
    segment = np.cumsum(first) - 1
    if ties == "average":
        boundary = first.copy()
        boundary[1:] |= s[1:] != s[:-1]
        c, k = expected_hits(h, np.append(np.flatnonzero(boundary[1:]) + 1, n).astype(np.intp))
    else:
        c, k = np.cumsum(h), np.arange(1, n + 1, dtype=np.float64)
    c = c - np.concatenate(([0.0], c))[starts][segment]
    k = k - starts.astype(np.float64)[segment]
    facts = facts_per_relation[r].astype(np.float64)
    precision = c / k
    recall = np.divide(c, facts, out=np.zeros_like(c), where=facts > 0)
    same = segment[1:] == segment[:-1]
    terms = (recall[1:] - recall[:-1]) * (precision[1:] + precision[:-1]) / 2.0
    out[r[starts]] = np.bincount(segment[1:][same], weights=terms[same], minlength=starts.shape[0])
    return out
