"""Olek's correction for every class weighting: the weighted averages of P and F as an interval over attributions.

What. Under ``on_missing="wrong"`` a gold item without a prediction counts as a wrong prediction (Olek's note on
RECENT, olek-recent-f1.txt, §6: the corrected experiment only adds false positives). Its FN is already in the
counts of its gold class, and micro-F counts its FP exactly, whatever class it would name. The class-weighted
averages of Harbecke et al. (2022, §2.3: weighted, dodrans, entropy, macro, power:A) cannot: the FP belongs to the
class the missing prediction would have named, which nobody knows, and the ``<missing>`` placeholder has no gold
support, hence weight 0, so its FPs vanish and these averages keep the leaky value. `fill_bounds` reports, for each
weighting, the lowest and the highest P and F over every attribution of the filled items' FPs.

Which classes may receive a fill. A fill with gold class g goes to a positive class with gold support other than g:
another class would be right (g itself) or weightless (no gold support, or the negative class), and counting a
fill there hides the leak again. With S the weighted classes (positive, gold support > 0), the *eligible* classes
of gold g are S \\ {g}. A fill whose gold class is the only class of S has no eligible class: it is counted in
`FillBounds.n_unattributable` and left out.

Which allocations are possible. Only the number x_c of fills each class receives matters (it adds x_c to FP_c;
TP, FN, the gold supports and so the weights stay as they are). With M the attributable fills and M_c those of gold
c, x (x_c ≥ 0, Σ x_c = M) is the result of some attribution iff x_c ≤ u_c = M − M_c for every c ∈ S: by Hall's
theorem (supply/demand form), any two groups of fills together may use all of S, so the only binding sets are the
single groups of gold c ∈ S, which may use every class but c and thus need M_c ≤ M − x_c.

Worst case (exact). Per class, s_c(m) = A_c / (B_c + m) for P (A = TP, B = TP + FP) and for F-beta
(A = (1+β²)TP, B = (1+β²)TP + β²FN + FP): convex and decreasing in the added FPs m, with decreases
d_c(m) = w_c A_c / ((B_c + m)(B_c + m + 1)) that shrink as m grows (a class with TP = FP = 0 drops from
zero_division to 0 at its first fill, then stays; a class with TP = 0 otherwise never drops). Any allocation lowers
the average by a sum of M decreases, at most u_c of them from class c, so the lowest average takes the M largest
decreases among {d_c(m) : m < u_c}; since each class's decreases shrink, they form a prefix per class and the
allocation is feasible. This is the greedy "give each fill to the class that loses most", done in one threshold
search instead of M steps. P and F are minimised separately (their allocations may differ), and so is each
weighting.

Best case (exact). Σ_c w_c s_c(x_c) is convex in x, so its maximum over the polytope {Σ x = M, 0 ≤ x ≤ u} is at a
vertex: every coordinate but at most one at a bound. Since u_c = M − M_c and Σ_c M_c ≤ M, at most two coordinates
can sit at their upper bound, and the vertices are among x_a = u_a, x_f = M − u_a = M_a (ordered pairs a ≠ f with
M_a ≤ u_f) and x_f = M (classes f with M_f = 0): O(|S|²) candidates, all scored. A class with TP = 0 absorbs fills
at no cost, which is right: its F is 0 whatever its FP.

Both bounds are therefore exact for this eligibility rule; `Bound.exact_low` / `exact_high` say so per bound and
stay in the result for eligibility rules (entity-type restrictions, say) whose best case would only be bounded.
Recall is exact: `Bound.low.recall == Bound.high.recall` is the average recall. Every reported value is computed
by `weighted_averages` on the counts of an attainable allocation, so it is a score releval itself gives.

zero_division as in `prf_from_counts`. With NaN (scikit-learn's option), a precision that is 0/0 is undefined and
so is any interval it enters: the precision bounds are NaN when some attribution leaves a weighted class with
TP = FP = 0 without a fill (and whenever releval's own average is NaN for every attribution).

Olek's counts (one positive class r: TP 2182, FP 246, FN 1143; 944 gold-negative items without prediction): r is
the only class the fills may go to, so every weighting gives 4364/6697 = 65.16, not the leaky 75.86.

>>> import numpy as np
>>> from releval.metrics.averages import AveragingSpec
>>> from releval.metrics.counts import ClassCounts
>>> counts = ClassCounts(tp=np.array([500, 2182]), fp=np.array([1143, 246]), fn=np.array([1190, 1143]))
>>> bounds = fill_bounds(counts, np.array([944, 0]), AveragingSpec(positive=np.array([False, True])))
>>> macro = bounds.averages["macro"]
>>> round(100 * macro.low.f, 2), round(100 * macro.high.f, 2), macro.exact_low and macro.exact_high
(65.16, 65.16, True)
>>> bounds.n_filled, bounds.n_unattributable
(944, 0)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from releval.metrics.averages import PRF, AveragingSpec, average_weights, weighted_averages
from releval.metrics.counts import ClassCounts

#: A class-wise sequence of decreases: m (one index per class) → d_c(m_c).
_Decreases = Callable[[NDArray[np.int64]], NDArray[np.float64]]


@dataclass(frozen=True)
class Bound:
    """One weighted average's interval: P and F at their minima (`low`) and maxima (`high`); recall is exact.

    The minimising attributions of P and of F may differ, so `low` (and `high`) need not be one attribution's
    scores. `exact_low` / `exact_high`: the bound is attained by some attribution (else it is only a valid bound).
    """

    low: PRF
    high: PRF
    exact_low: bool
    exact_high: bool


@dataclass(frozen=True)
class FillBounds:
    """Every weighting's `Bound` (micro is exact and not here), the filled items and those no class may receive."""

    averages: dict[str, Bound]
    n_filled: int
    n_unattributable: int


def _check(counts: ClassCounts, filled_by_gold: NDArray[np.int64], spec: AveragingSpec) -> NDArray[np.int64]:
    """One system's counts, (K,) each, and fills of gold class k no more than FN_k (each fill is an FN of its gold)."""
    shape = np.shape(counts.tp)
    if len(shape) != 1 or any(np.shape(x) != shape for x in (counts.fp, counts.fn, spec.positive)):
        raise ValueError("fill_bounds needs the counts of one system: tp, fp, fn and the positive mask of shape (K,)")
    filled = np.asarray(filled_by_gold)
    if filled.shape != shape or not np.issubdtype(filled.dtype, np.integer):
        raise ValueError(f"filled_by_gold must be {shape[0]} integer counts, one per class, got {filled!r}")
    if (filled < 0).any() or (filled > counts.fn).any():
        raise ValueError("filled_by_gold[k] must be between 0 and FN_k: every filled item is a false negative")
    return filled.astype(np.int64)


def _decreases(w: NDArray[np.float64], a: NDArray, b: NDArray, first: NDArray[np.float64]) -> _Decreases:
    """d(m) = w·A/((B+m)(B+m+1)) + [m = 0]·first, per class; nonincreasing in m, in floating point too."""
    num = w * np.asarray(a, dtype=np.float64)
    b = np.where(np.asarray(a) > 0, b, 1.0)  # A = 0: no drop after the first fill (and no 0/0)

    def d(m: NDArray[np.int64]) -> NDArray[np.float64]:
        x = b + m
        return num / (x * (x + 1.0)) + np.where(m == 0, first, 0.0)

    return d


def _prefix_counts(d: _Decreases, caps: NDArray[np.int64], level: float) -> NDArray[np.int64]:
    """Per class, how many of d(0), …, d(cap − 1) are ≥ level (a prefix, since d is nonincreasing)."""
    lo = np.zeros_like(caps)
    hi = caps.copy()
    while (active := lo < hi).any():
        mid = (lo + hi) // 2
        ok = d(mid) >= level
        lo = np.where(active & ok, mid + 1, lo)
        hi = np.where(active & ~ok, mid, hi)
    return lo


def _largest_decreases(d: _Decreases, caps: NDArray[np.int64], total: int) -> NDArray[np.int64]:
    """x with Σx = total, x ≤ caps, taking the `total` largest of {d_c(m) : m < cap_c}: the lowest average.

    Threshold search on the bit patterns of nonnegative doubles (monotone in the value): the largest level λ with
    at least `total` decreases ≥ λ; those > λ are all taken, the rest are ties at λ, any of which will do.
    """
    if total == 0:
        return np.zeros_like(caps)
    top = float(np.max(np.where(caps > 0, d(np.zeros_like(caps)), 0.0)))
    lo_bits, hi_bits = 0, int(np.float64(top).view(np.int64)) + 1  # count(0.0) ≥ total > count(next after top)
    while hi_bits - lo_bits > 1:
        mid = (lo_bits + hi_bits) // 2
        if _prefix_counts(d, caps, float(np.int64(mid).view(np.float64))).sum() >= total:
            lo_bits = mid
        else:
            hi_bits = mid
    at_least = _prefix_counts(d, caps, float(np.int64(lo_bits).view(np.float64)))
    above = _prefix_counts(d, caps, float(np.int64(hi_bits).view(np.float64)))
    x = above.copy()
    rest = total - int(above.sum())
    for c in np.flatnonzero(at_least > above):
        take = min(rest, int(at_least[c] - above[c]))
        x[c] += take
        rest -= take
    return x


def _vertices(in_s: NDArray[np.bool_], caps: NDArray[np.int64], total: int) -> NDArray[np.int64]:
    """Every vertex of {Σx = total, 0 ≤ x ≤ caps} (x = 0 off S), among a few more feasible points: (n, K)."""
    k = caps.shape[0]
    rows = []
    for f in np.flatnonzero(in_s):
        if caps[f] >= total:
            row = np.zeros(k, dtype=np.int64)
            row[f] = total
            rows.append(row)
        for a in np.flatnonzero(in_s):
            if a != f and total - min(caps[a], total) <= caps[f]:
                row = np.zeros(k, dtype=np.int64)
                row[a] = min(caps[a], total)
                row[f] = total - row[a]
                rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(-1, k)


def _shifted(counts: ClassCounts, extra_fp: NDArray[np.int64]) -> ClassCounts:
    """The counts with extra FPs (a batch (n, K) of allocations), TP and FN broadcast alongside."""
    shape = extra_fp.shape
    return ClassCounts(
        tp=np.broadcast_to(counts.tp, shape), fp=counts.fp + extra_fp, fn=np.broadcast_to(counts.fn, shape)
    )


def fill_bounds(counts: ClassCounts, filled_by_gold: NDArray[np.int64], spec: AveragingSpec) -> FillBounds:
    """Lowest and highest P and F of every weighting over all attributions of the filled items' false positives.

    `counts`: one system's per-class TP/FP/FN under ``on_missing="wrong"`` for the real classes (K of them, the
    ``<missing>`` placeholder's column dropped), so each filled item is already an FN of its gold class and not yet
    anyone's FP. `filled_by_gold[k]`: how many filled items have gold class k. `spec`: the positive classes, the
    weightings, β, zero_division and entropy's N, exactly as for `all_averages`. See the module docstring for the
    eligible classes and why both bounds are exact.
    """
    filled = _check(counts, filled_by_gold, spec)
    tp, fp, fn = (np.asarray(x, dtype=np.int64) for x in (counts.tp, counts.fp, counts.fn))
    support = tp + fn
    in_s = np.asarray(spec.positive, dtype=bool) & (support > 0)
    n_filled = int(filled.sum())
    lone = np.flatnonzero(in_s) if in_s.sum() == 1 else np.array([], dtype=np.int64)
    n_unattributable = n_filled if not in_s.any() else int(filled[lone].sum())
    total = n_filled - n_unattributable
    own = np.where(in_s, filled, 0)
    if lone.size:
        own[lone] = 0  # the lone class's own fills were left out
    caps = np.where(in_s, total - own, 0).astype(np.int64)

    base = weighted_averages(counts, spec)
    if total == 0:
        return FillBounds(
            {name: Bound(_floats(prf), _floats(prf), True, True) for name, prf in base.items()},
            n_filled,
            n_unattributable,
        )

    # Fewest fills class c gets in any attribution; NaN zero_division leaves P undefined if that can be 0 for a
    # class whose P is 0/0 without fills.
    least = np.maximum(0, total - (caps.sum() - caps))
    empty = in_s & (tp == 0) & (fp == 0)
    p_undefined = math.isnan(spec.zero_division) and bool((empty & (least == 0)).any())
    z = 1.0 if math.isnan(spec.zero_division) else spec.zero_division  # never used by an attainable allocation

    b2 = spec.beta * spec.beta
    weights = average_weights(support, spec)
    names = list(weights)
    allocations = []
    for name in names:
        w = np.where(in_s, weights[name], 0.0)
        p_drop = _decreases(w, tp.astype(float), (tp + fp).astype(float), np.where(empty, w * z, 0.0))
        f_drop = _decreases(w, (1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp, np.zeros_like(w))
        allocations += [_largest_decreases(p_drop, caps, total), _largest_decreases(f_drop, caps, total)]
    lows = weighted_averages(_shifted(counts, np.array(allocations)), spec)
    highs = weighted_averages(_shifted(counts, _vertices(in_s, caps, total)), spec)

    out: dict[str, Bound] = {}
    for i, name in enumerate(names):
        recall = float(base[name].recall)
        low_p, high_p = float(np.asarray(lows[name].precision)[2 * i]), float(np.max(highs[name].precision))
        if p_undefined:
            low_p = high_p = math.nan
        low = PRF(low_p, recall, float(np.asarray(lows[name].f)[2 * i + 1]))
        high = PRF(high_p, recall, float(np.max(highs[name].f)))
        out[name] = Bound(low, high, exact_low=True, exact_high=True)
    return FillBounds(out, n_filled, n_unattributable)


def _floats(prf: PRF) -> PRF:
    return PRF(float(prf.precision), float(prf.recall), float(prf.f))
