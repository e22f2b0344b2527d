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

    def precision_at_recall(self, percent: int, interpolated: bool = True) -> float:
        """P at a recall level (the "P@10%", "P@30%" of the NYT tables: RESIDE, HRERE): the precision at the first
        position whose recall reaches `percent` % of the facts — or, `interpolated`, the highest precision at any
        position from there on (IR's interpolated precision, Manning et al. 2008, §8.4); 0.0 when the ranking never
        reaches that recall. Recall is compared exactly: c·100 ≥ percent·facts.

        >>> curve = ranked_curve([0.9, 0.8, 0.7, 0.6], [0, 1, 1, 0], facts=4)
        >>> curve.precision_at_recall(25, interpolated=False), curve.precision_at_recall(25)
        (0.5, 0.6666666666666666)
        >>> curve.precision_at_recall(75)
        0.0
        """
        return _precision_at_hits(self.precision, self.precision * np.arange(1, self.predictions + 1), percent,
                                  self.facts, interpolated)  # fmt: skip

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


#: The slack of the exact recall comparison c·100 ≥ percent·facts, for the expected hits of tie policy "average"
#: (sums of fractions): far below one hit, far above rounding.
_HIT_SLACK = 1e-9


def _precision_at_hits(
    precision: NDArray[np.float64], hits: NDArray[np.float64], percent: int, facts: int, interpolated: bool
) -> float:
    """RankedCurve.precision_at_recall on the arrays of precision and cumulative hits at every position."""
    if facts <= 0 or precision.shape[0] == 0:
        return 0.0
    reached = np.flatnonzero(hits * 100.0 >= percent * facts - _HIT_SLACK)
    if reached.shape[0] == 0:
        return 0.0
    first = int(reached[0])
    return float(precision[first:].max() if interpolated else precision[first])


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


# ----------------------------------------------------------------------------------------- resampled rankings


@dataclass(frozen=True)
class Runs:
    """A ranking arranged once for resampling: cut into segments (the whole ranking, or one per relation) and each
    segment into runs, the stretches over which c_k grows linearly — one prediction each under tie policy
    ``input-order``, one group of equal scores each under ``average``.

    A resample gives each prediction a multiplicity w_i (a bag drawn twice: two copies of each of its predictions,
    side by side at its place in the ranking, tied with each other). Copies never change a run: a run of total
    weight S holding H hits (Σ w_i h_i) covers positions K+1 … K+S of the expanded ranking, and at its m-th
    position c = C + m·H/S (C, K: the hits and positions before it) — exactly the cumulative hits of the expanded
    ranking under ``input-order`` (a run is one prediction: all hits or none) and its expected hits under
    ``average``. So the expanded curve is read off cumulative sums of run weights without building it: recall only
    moves at the positions of runs with hits, so the trapezoids of the AUC are summed there only, and P@N, F1 at a
    threshold and max F1 are read at run boundaries (2pr/(p+r) is monotone along a run, where c grows linearly in
    k). `order`: the ranking's positions in this arrangement (None: the ranking itself); `starts`: each run's first
    index (None: every prediction a run); `segment`: each run's segment; `first_run`: each segment's first run;
    `labels`: each segment's label (a relation id; 0 for the whole ranking); `hit_runs`: the predictions that
    are hits, in this arrangement.

    >>> runs = Runs.of(np.array([0.9, 0.8, 0.8, 0.1]), np.array([1.0, 0.0, 1.0, 0.0]))
    >>> point = runs.points(np.array([1, 2, 0, 1]))  # the expanded ranking: hit, miss, miss, miss
    >>> point.k_all.tolist(), point.index.tolist(), point.c_end.tolist()
    ([1, 3, 3, 4], [0], [1.0])
    >>> point.precision_at(2), point.max_f1(2.0)
    (0.5, 0.6666666666666666)
    """

    order: NDArray[np.intp] | None
    hits: NDArray[np.float64]
    starts: NDArray[np.intp] | None
    segment: NDArray[np.intp]
    first_run: NDArray[np.intp]
    labels: NDArray[np.int64]
    hit_runs: NDArray[np.intp]

    @classmethod
    def of(
        cls,
        sorted_scores: NDArray[np.float64],
        sorted_hits: NDArray[np.float64],
        ties: str = "input-order",
        segments: NDArray[np.int64] | None = None,
    ) -> Runs:
        """The runs of a ranking (scores and hits in ranking order); `segments`: a label per prediction (a relation
        id) to cut the ranking into one segment per label, each in ranking order."""
        n = sorted_scores.shape[0]
        order: NDArray[np.intp] | None = None
        scores, hits = sorted_scores, np.asarray(sorted_hits, dtype=np.float64)
        labels_per = np.zeros(n, dtype=np.int64)
        if segments is not None:
            order = np.argsort(segments, kind="stable")
            scores, hits, labels_per = scores[order], hits[order], np.asarray(segments, dtype=np.int64)[order]
        new_segment = np.ones(n, dtype=bool)
        new_segment[1:] = labels_per[1:] != labels_per[:-1]
        starts: NDArray[np.intp] | None = None
        if ties == "average":
            new_run = new_segment.copy()
            new_run[1:] |= scores[1:] != scores[:-1]
            starts = np.flatnonzero(new_run)
            run_segment = (np.cumsum(new_segment) - 1)[starts]
        else:
            run_segment = np.cumsum(new_segment) - 1
        first_run = np.flatnonzero(np.diff(run_segment, prepend=-1) != 0) if n else np.zeros(0, dtype=np.intp)
        return cls(
            order,
            hits,
            starts,
            run_segment.astype(np.intp),
            first_run.astype(np.intp),
            labels_per[new_segment],
            np.flatnonzero(hits > 0),
        )

    @property
    def n_segments(self) -> int:
        return int(self.first_run.shape[0])

    def points(self, weights: NDArray[np.int64], *, arranged: bool = False) -> RunPoints:
        """One resample: each run's weight S and hits H (weights: one per prediction, in ranking order, or in this
        arrangement's order if `arranged`), the cumulative positions over all runs, and for the runs with hits their
        positions K and hits C at their end, counted within their segment."""
        w = weights if self.order is None or arranged else weights[self.order]
        if self.starts is None:
            size = w
            with_hits = self.hit_runs[w[self.hit_runs] > 0]
            hit = w[with_hits] * self.hits[with_hits]
        else:
            size = np.add.reduceat(w, self.starts)
            all_hits = np.add.reduceat(w * self.hits, self.starts)
            with_hits = np.flatnonzero(all_hits > 0)
            hit = all_hits[with_hits]
        k_all = np.cumsum(size)
        h_size = size[with_hits].astype(np.float64)
        h_k = k_all[with_hits].astype(np.float64)
        h_c = np.cumsum(hit)
        h_segment = self.segment[with_hits]
        if self.n_segments > 1 and with_hits.shape[0]:  # each segment counts from 0
            before = self.first_run[1:] - 1
            k_base = np.concatenate(([0.0], k_all[before].astype(np.float64)))
            h_k = h_k - k_base[h_segment]
            first = np.flatnonzero(np.diff(h_segment, prepend=-1) != 0)
            c_base = (h_c - hit)[first]
            h_c = h_c - np.repeat(c_base, np.diff(np.append(first, h_segment.shape[0])))
        return RunPoints(k_all, with_hits, h_size, hit.astype(np.float64), h_k, h_c.astype(np.float64), h_segment)


@dataclass(frozen=True)
class RunPoints:
    """One resample's runs (Runs.points): `k_all`, the positions of the expanded ranking at each run's end (over
    the whole arrangement), and for the runs with hits — `index` — their weight S, hits H, and the positions K and
    hits C of their segment at their end (the run covers positions K−S+1 … K, where c goes from C−H to C in equal
    steps)."""

    k_all: NDArray[np.int64]
    index: NDArray[np.intp]
    size: NDArray[np.float64]
    hit: NDArray[np.float64]
    k_end: NDArray[np.float64]
    c_end: NDArray[np.float64]
    segment: NDArray[np.intp]

    @property
    def total(self) -> float:
        """The positions of the whole expanded ranking."""
        return float(self.k_all[-1]) if self.k_all.shape[0] else 0.0

    def aucs(self, facts: NDArray[np.float64], n_segments: int) -> NDArray[np.float64]:
        """The trapezoidal AUC of each segment's expanded curve (p = c/k, r = c/facts[segment]; a segment without
        facts: 0), summed over the positions where recall moves (the runs with hits); the first position of a
        segment opens its curve and adds no area (sklearn.metrics.auc from its first point)."""
        out = np.zeros(n_segments)
        if self.index.shape[0] == 0:
            return out
        sizes = self.size.astype(np.intp)
        run = np.repeat(np.arange(sizes.shape[0]), sizes)
        block_start = np.cumsum(sizes) - sizes
        m = np.arange(run.shape[0], dtype=np.float64) - np.repeat(block_start, sizes) + 1.0
        rate = self.hit[run] / self.size[run]
        k_before = self.k_end[run] - self.size[run]
        c_before = self.c_end[run] - self.hit[run]
        k = k_before + m
        c = c_before + m * rate
        c_prev = c_before + (m - 1.0) * rate
        seg = self.segment[run]
        f = facts[seg]
        valid = (k > 1.0) & (f > 0)
        k, c, c_prev, f, seg = k[valid], c[valid], c_prev[valid], f[valid], seg[valid]
        terms = (c / f - c_prev / f) * (c / k + c_prev / (k - 1.0)) / 2.0
        out += np.bincount(seg, weights=terms, minlength=n_segments)
        return out

    def hits_at(self, position: float) -> float:
        """c at a position 1 … total of the (single-segment) expanded ranking: the hits of the runs before it, plus
        its own run's at its rate."""
        g = int(np.searchsorted(self.k_all, np.int64(position), side="left"))  # positions are whole numbers
        j = int(np.searchsorted(self.index, g, side="right")) - 1
        if j < 0:
            return 0.0
        if self.index[j] != g:
            return float(self.c_end[j])
        c_before, k_before = self.c_end[j] - self.hit[j], self.k_end[j] - self.size[j]
        return float(c_before + (position - k_before) * (self.hit[j] / self.size[j]))

    def precision_at(self, n: int) -> float:
        """P@N of the expanded ranking (fewer than N positions: its hits / N, as RankedCurve.precision_at)."""
        if n <= self.total:
            return self.hits_at(float(n)) / float(n)
        return float(self.c_end[-1] if self.c_end.shape[0] else 0.0) / n

    def precision_at_recall(self, percent: int, facts: float, interpolated: bool = True) -> float:
        """RankedCurve.precision_at_recall of the (single-segment) expanded ranking: the first position where
        c·100 ≥ percent·facts lies in a run with hits (c grows linearly along it, so it is found by division);
        interpolated, the highest precision from there on is at that position or at the first or last position of
        a later run with hits (along a run c/k is monotone, and it falls along a run without hits)."""
        if self.index.shape[0] == 0 or facts <= 0:
            return 0.0
        target = percent * facts / 100.0
        slack = _HIT_SLACK / 100.0
        j = int(np.searchsorted(self.c_end, target - slack, side="left"))
        if j >= self.c_end.shape[0]:
            return 0.0
        rate = self.hit / self.size
        c_before, k_before = self.c_end - self.hit, self.k_end - self.size
        m = max(1.0, min(float(self.size[j]), float(np.ceil((target - slack - c_before[j]) / rate[j]))))
        if c_before[j] + m * rate[j] < target - slack:  # rounding in the division: one position further
            m = min(float(self.size[j]), m + 1.0)
        at = (c_before[j] + m * rate[j]) / (k_before[j] + m)
        if not interpolated:
            return float(at)
        later = slice(j, None)
        ends = self.c_end[later] / self.k_end[later]
        starts = (c_before[later] + rate[later]) / (k_before[later] + 1.0)
        starts[0] = at  # run j from the reached position on
        return float(max(at, ends.max(), starts.max()))

    def max_f1(self, facts: float) -> float:
        """max over the positions of 2pr/(p+r+1e-20) (RankedCurve.max_f1), read at the first and last position of
        each run with hits: along a run c grows linearly in k, so 2pr/(p+r) is monotone there, and along a run
        without hits it falls (c fixed, k growing) from the value before it."""
        if self.index.shape[0] == 0 or not facts:
            return 0.0
        rate = self.hit / self.size
        c_before = self.c_end - self.hit
        k = np.concatenate((self.k_end - self.size + 1.0, self.k_end))
        c = np.concatenate((c_before + rate, c_before + self.size * rate))
        p = c / k
        r = c / facts
        return float((2 * p * r / (p + r + F1_EPSILON)).max())
