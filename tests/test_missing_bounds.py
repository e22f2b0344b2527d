"""Olek's correction for every weighting: `fill_bounds` against hand-worked cases and independent computations.

The reference values never come from `fill_bounds`' own machinery: hand arithmetic, every attribution of every
filled item enumerated and scored by `all_averages`, a linear program over the fill-to-class transport (worst
case), and every allocation that passes Hall's condition (best case).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from releval.metrics.averages import (
    AveragingSpec,
    all_averages,
    average_weights,
    prf_from_counts,
    weighted_averages,
)
from releval.metrics.counts import ClassCounts
from releval.metrics.missing_bounds import fill_bounds
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, power

WEIGHTINGS = (*DEFAULT_WEIGHTINGS, power(0.5))
TOL = 1e-12


def _counts(tp: list[int], fp: list[int], fn: list[int]) -> ClassCounts:
    return ClassCounts(np.array(tp, dtype=np.int64), np.array(fp, dtype=np.int64), np.array(fn, dtype=np.int64))


def _scores(counts: ClassCounts, extra_fp: np.ndarray, spec: AveragingSpec) -> dict:
    """all_averages on the counts plus each row of extra FPs (n, K): {name: PRF of arrays (n,)}."""
    batch = ClassCounts(
        np.broadcast_to(counts.tp, extra_fp.shape), counts.fp + extra_fp, np.broadcast_to(counts.fn, extra_fp.shape)
    )
    return all_averages(batch, spec)[1]


def _eligible(counts: ClassCounts, positive: np.ndarray, gold: int) -> list[int]:
    """Classes a fill of gold class `gold` may be counted for: positive, with gold support, not `gold`."""
    support = counts.tp + counts.fn
    return [c for c in range(len(support)) if positive[c] and support[c] > 0 and c != gold]


def _every_attribution(counts: ClassCounts, filled: list[int], positive: np.ndarray) -> tuple[np.ndarray, int]:
    """Extra FPs (n, K) of every attribution of every filled item to an eligible class, and the unattributable."""
    k = len(filled)
    items = [_eligible(counts, positive, g) for g in range(k) for _ in range(filled[g])]
    choices = [e for e in items if e]
    rows = []
    for pick in itertools.product(*choices):
        rows.append(np.bincount(np.array(pick, dtype=np.int64), minlength=k))
    return np.array(rows, dtype=np.int64).reshape(-1, k), len(items) - len(choices)


def _assert_interval(low: float, high: float, values: np.ndarray, exact_low: bool, exact_high: bool) -> None:
    lo, hi = np.min(values), np.max(values)  # NaN if any attribution's score is NaN
    if math.isnan(lo):
        assert math.isnan(low) and math.isnan(high)
        return
    assert low <= lo + TOL and high >= hi - TOL
    if exact_low:
        assert low == pytest.approx(lo, abs=TOL)
    if exact_high:
        assert high == pytest.approx(hi, abs=TOL)


def test_olek_counts_every_weighting_is_exact() -> None:
    """Olek's Table 1: r has TP 2182, FP 246, FN 1143; the 944 filled items are gold no_relation.

    r is the only class with gold support a fill may go to, so FP_r = 246 + 944 = 1190 under every weighting and
    F = 2·2182 / (2·2182 + 1143 + 1190) = 4364/6697 = 0.65163…, P = 2182/3372; the leaky F = 4364/5753 = 0.75856….
    The negative class: 500 right, 1143 gold-r items predicted no_relation (its FP), 246 + 944 of its items wrong.
    """
    counts = _counts([500, 2182], [1143, 246], [1190, 1143])
    spec = AveragingSpec(np.array([False, True]), WEIGHTINGS)
    bounds = fill_bounds(counts, np.array([944, 0]), spec)
    assert (bounds.n_filled, bounds.n_unattributable) == (944, 0)
    assert set(bounds.averages) == {w.name for w in WEIGHTINGS}
    leaky = 4364 / 5753
    for bound in bounds.averages.values():
        assert bound.exact_low and bound.exact_high
        assert bound.low.f == pytest.approx(4364 / 6697, abs=TOL) and bound.high.f == pytest.approx(4364 / 6697)
        assert bound.low.precision == pytest.approx(2182 / 3372, abs=TOL) == bound.high.precision
        assert bound.low.recall == bound.high.recall == pytest.approx(2182 / 3325, abs=TOL)
        assert not bound.low.f <= leaky <= bound.high.f
    assert round(100 * 4364 / 6697, 2) == 65.16 and round(100 * leaky, 2) == 75.86


@st.composite
def small_cases(draw: st.DrawFn) -> tuple[ClassCounts, list[int], AveragingSpec]:
    """≤ 4 positive classes (gold support may be 0) and maybe a negative one, ≤ 6 fills, random settings."""
    n_pos = draw(st.integers(1, 4))
    has_negative = draw(st.booleans())
    k = n_pos + has_negative
    small = st.lists(st.integers(0, 5), min_size=k, max_size=k)
    tp, fp, fn = draw(small), draw(small), draw(small)
    filled = [draw(st.integers(0, min(fn[c], 3))) for c in range(k)]
    while sum(filled) > 6:
        filled[int(np.argmax(filled))] -= 1
    positive = np.ones(k, dtype=bool)
    if has_negative:
        positive[draw(st.integers(0, k - 1))] = False
    spec = AveragingSpec(
        positive,
        WEIGHTINGS,
        beta=draw(st.sampled_from([0.5, 1.0, 2.0])),
        zero_division=draw(st.sampled_from([0.0, 0.5, 1.0, math.nan])),
        entropy_n=draw(st.sampled_from(["all", "positive"])),
    )
    return _counts(tp, fp, fn), filled, spec


@settings(max_examples=400, deadline=None)
@given(small_cases())
def test_bounds_against_every_attribution(case: tuple[ClassCounts, list[int], AveragingSpec]) -> None:
    """Every attribution of every filled item enumerated and scored by all_averages: the interval holds them all."""
    counts, filled, spec = case
    extra, n_unattributable = _every_attribution(counts, filled, spec.positive)
    bounds = fill_bounds(counts, np.array(filled, dtype=np.int64), spec)
    assert (bounds.n_filled, bounds.n_unattributable) == (sum(filled), n_unattributable)
    scores = _scores(counts, extra, spec)
    for name, bound in bounds.averages.items():
        s = scores[name]
        _assert_interval(bound.low.precision, bound.high.precision, s.precision, bound.exact_low, bound.exact_high)
        _assert_interval(bound.low.f, bound.high.f, s.f, bound.exact_low, bound.exact_high)
        recall = np.asarray(s.recall)
        np.testing.assert_array_equal(recall, recall[0])  # fills add FPs only
        np.testing.assert_array_equal(bound.low.recall, bound.high.recall)  # NaN == NaN here
        np.testing.assert_allclose(bound.low.recall, recall[0], atol=TOL)


def test_hand_worked_split() -> None:
    """Classes n (negative), a (TP 1), b (TP 2), no FP or FN among the positives; 3 filled items, gold n.

    Fills x = (x_a, x_b), x_a + x_b = 3. Per class F_a = 2/(2 + x_a), F_b = 4/(4 + x_b); P_a = 1/(1 + x_a),
    P_b = 2/(2 + x_b); recall is 1 throughout.

    macro F (equal weights): (3,0) → (2/5 + 1)/2 = 7/10; (2,1) → (1/2 + 4/5)/2 = 13/20; (1,2) → (2/3 + 2/3)/2 = 2/3;
    (0,3) → (1 + 4/7)/2 = 11/14. Worst 13/20 splits the fills (F_a's drops 1/3, 1/6 beat F_b's 1/5 then 2/15 only
    in that order: 1/3 (a), 1/5 (b), 1/6 (a)); best 11/14 puts them all on b.
    macro P: (3,0) → (1/4 + 1)/2 = 5/8; (2,1) → (1/3 + 2/3)/2 = 1/2; (1,2) → (1/2 + 1/2)/2 = 1/2;
    (0,3) → (1 + 2/5)/2 = 7/10. Worst 1/2 (split), best 7/10.
    weighted (w = 1/3, 2/3) F: (3,0) → 2/15 + 2/3 = 4/5; (2,1) → 1/6 + 8/15 = 7/10; (1,2) → 2/9 + 4/9 = 2/3;
    (0,3) → 1/3 + 8/21 = 5/7. Worst 2/3 (split the other way), best 4/5 (all on a).
    """
    counts = _counts([5, 1, 2], [0, 0, 0], [3, 0, 0])
    spec = AveragingSpec(np.array([False, True, True]))
    bounds = fill_bounds(counts, np.array([3, 0, 0]), spec)
    macro, weighted = bounds.averages["macro"], bounds.averages["weighted"]
    expected = {
        "macro F": (macro.low.f, macro.high.f, Fraction(13, 20), Fraction(11, 14)),
        "macro P": (macro.low.precision, macro.high.precision, Fraction(1, 2), Fraction(7, 10)),
        "weighted F": (weighted.low.f, weighted.high.f, Fraction(2, 3), Fraction(4, 5)),
    }
    for what, (low, high, want_low, want_high) in expected.items():
        assert low == pytest.approx(float(want_low), abs=TOL), what
        assert high == pytest.approx(float(want_high), abs=TOL), what
    assert macro.low.recall == macro.high.recall == 1.0


def test_no_fills_is_the_value() -> None:
    counts = _counts([5, 3, 7], [2, 1, 4], [1, 2, 3])
    spec = AveragingSpec(np.array([False, True, True]), WEIGHTINGS, beta=2.0)
    bounds = fill_bounds(counts, np.zeros(3, dtype=np.int64), spec)
    assert (bounds.n_filled, bounds.n_unattributable) == (0, 0)
    for name, value in weighted_averages(counts, spec).items():
        bound = bounds.averages[name]
        assert bound.exact_low and bound.exact_high
        for score in ("precision", "recall", "f"):
            assert getattr(bound.low, score) == getattr(bound.high, score) == float(getattr(value, score))


def test_unattributable_fills() -> None:
    """r is the only positive class: its own 3 filled items have no class to go to; the 4 gold-n ones go to r.

    r: TP 10, FP 2 + 4, FN 5 → P = 10/16, F = 20/(20 + 5 + 6) = 20/31 under every weighting.
    """
    counts = _counts([4, 10], [5, 2], [6, 5])
    spec = AveragingSpec(np.array([False, True]), WEIGHTINGS)
    bounds = fill_bounds(counts, np.array([4, 3]), spec)
    assert (bounds.n_filled, bounds.n_unattributable) == (7, 3)
    for bound in bounds.averages.values():
        assert bound.low.f == pytest.approx(20 / 31, abs=TOL) == bound.high.f
        assert bound.low.precision == pytest.approx(10 / 16, abs=TOL) == bound.high.precision


def test_no_weighted_class_at_all() -> None:
    """The only positive class has no gold support: every fill is unattributable and the averages stay 0."""
    counts = _counts([3, 0], [0, 3], [2, 0])
    bounds = fill_bounds(counts, np.array([2, 0]), AveragingSpec(np.array([False, True])))
    assert (bounds.n_filled, bounds.n_unattributable) == (2, 2)
    assert all(b.low.f == b.high.f == 0.0 for b in bounds.averages.values())


def test_zero_tp_class_absorbs_fills_in_the_best_case() -> None:
    """a: TP 0, FP 1, FN 3 (F_a = P_a = 0 whatever its FP); b: TP 5, FP 1, FN 1; 4 filled items, gold n.

    macro F: best all on a → (0 + 10/12)/2 = 5/12; worst all on b → (0 + 10/16)/2 = 5/16.
    macro P: best (0 + 5/6)/2 = 5/12; worst (0 + 5/10)/2 = 1/4.
    """
    counts = _counts([2, 0, 5], [3, 1, 1], [4, 3, 1])
    bounds = fill_bounds(counts, np.array([4, 0, 0]), AveragingSpec(np.array([False, True, True])))
    macro = bounds.averages["macro"]
    assert (macro.low.f, macro.high.f) == (pytest.approx(5 / 16, abs=TOL), pytest.approx(5 / 12, abs=TOL))
    assert (macro.low.precision, macro.high.precision) == (pytest.approx(1 / 4, abs=TOL), pytest.approx(5 / 12))


def test_zero_division_one_first_fill_drops_precision() -> None:
    """a: TP 0, FP 0 (P_a = zero_division = 1 until it gets a fill, then 0); b: TP 5, FP 1; 4 filled items, gold n.

    macro P: best all on b → (1 + 5/10)/2 = 3/4; worst one on a, three on b → (0 + 5/9)/2 = 5/18.
    """
    counts = _counts([2, 0, 5], [3, 0, 1], [4, 3, 1])
    bounds = fill_bounds(counts, np.array([4, 0, 0]), AveragingSpec(np.array([False, True, True]), zero_division=1.0))
    macro = bounds.averages["macro"]
    assert macro.high.precision == pytest.approx(3 / 4, abs=TOL)
    assert macro.low.precision == pytest.approx(5 / 18, abs=TOL)


def test_zero_division_nan() -> None:
    """NaN: a class left with TP = FP = 0 makes P undefined, so the P interval is NaN unless a must get a fill."""
    counts = _counts([2, 0, 5], [3, 0, 1], [4, 3, 2])
    spec = AveragingSpec(np.array([False, True, True]), zero_division=math.nan)
    free = fill_bounds(counts, np.array([4, 0, 0]), spec).averages["macro"]  # gold-n fills may avoid a
    assert math.isnan(free.low.precision) and math.isnan(free.high.precision)
    assert free.low.f == pytest.approx((0 + 10 / 17) / 2, abs=TOL)  # all on b: F_b = 10/(10 + 2 + 5)
    forced = fill_bounds(counts, np.array([0, 0, 2]), spec).averages["macro"]  # gold-b fills must go to a
    assert forced.low.precision == pytest.approx((0 + 5 / 6) / 2, abs=TOL) == forced.high.precision


@pytest.mark.parametrize(
    ("filled", "problem"),
    [([1, 0], "between 0 and FN"), ([-1, 0], "between 0 and FN"), ([1, 0, 0], "integer counts"), ([0.5, 0], "integer")],
)
def test_bad_fills_are_refused(filled: list[float], problem: str) -> None:
    counts = _counts([3, 2], [1, 1], [0, 1])
    with pytest.raises(ValueError, match=problem):
        fill_bounds(counts, np.array(filled), AveragingSpec(np.array([False, True])))


@st.composite
def larger_cases(
    draw: st.DrawFn, max_weighted: int = 5, max_fills: int = 12
) -> tuple[ClassCounts, list[int], AveragingSpec]:
    """2–`max_weighted` weighted classes and a negative one, tens of fills: too many attributions to list one by one."""
    k = draw(st.integers(2, max_weighted)) + 1
    tp = draw(st.lists(st.integers(0, 40), min_size=k, max_size=k))
    fp = draw(st.lists(st.integers(0, 20), min_size=k, max_size=k))
    filled = draw(st.lists(st.integers(0, max_fills), min_size=k, max_size=k))
    fn = [f + draw(st.integers(0, 10)) + (tp[c] == 0) for c, f in enumerate(filled)]  # gold support > 0
    spec = AveragingSpec(
        np.arange(k) > 0,
        WEIGHTINGS,
        beta=draw(st.sampled_from([0.5, 1.0, 3.0])),
        zero_division=draw(st.sampled_from([0.0, 1.0])),
        entropy_n=draw(st.sampled_from(["all", "positive"])),
    )
    return _counts(tp, fp, fn), filled, spec


def _transport_minimum(counts: ClassCounts, filled: list[int], spec: AveragingSpec, name: str, score: str) -> float:
    """Lowest average by a linear program: flow y[g, c] from each gold group to its eligible classes, and unit steps
    z[c, m] ∈ [0, 1] costing each class's m-th drop. Convex per-class costs make the LP exact, and its basic optimum
    integral (a network matrix); the allocation found is rescored by all_averages."""
    k = len(filled)
    weighted = [c for c in range(k) if spec.positive[c]]
    total = sum(filled)
    if total == 0:
        return float(np.asarray(getattr(weighted_averages(counts, spec)[name], score)))
    steps = np.arange(total + 1)
    drops = {}
    for c in weighted:
        per = prf_from_counts(counts.tp[c], counts.fp[c] + steps, counts.fn[c], spec.beta, spec.zero_division)
        seq = np.asarray(getattr(per, score), dtype=float)
        drops[c] = seq[:-1] - seq[1:]
    arcs = [(g, c) for g in range(k) if filled[g] for c in _eligible(counts, spec.positive, g)]
    units = [(c, m) for c in weighted for m in range(total)]
    n_var = len(arcs) + len(units)
    weights = average_weights(counts.tp + counts.fn, spec)[name]
    cost = np.concatenate([np.zeros(len(arcs)), [-weights[c] * drops[c][m] for c, m in units]])
    groups = [g for g in range(k) if filled[g]]
    a_eq = np.zeros((len(groups) + len(weighted), n_var))
    b_eq = np.zeros(len(groups) + len(weighted))
    for i, g in enumerate(groups):
        b_eq[i] = filled[g]
        for j, (gg, _) in enumerate(arcs):
            a_eq[i, j] = gg == g
    for i, c in enumerate(weighted, start=len(groups)):
        for j, (_, cc) in enumerate(arcs):
            a_eq[i, j] = cc == c
        for j, (cc, _) in enumerate(units, start=len(arcs)):
            a_eq[i, j] = -(cc == c)
    bounds = [(0, None)] * len(arcs) + [(0, 1)] * len(units)
    tight = {"dual_feasibility_tolerance": 1e-10, "primal_feasibility_tolerance": 1e-10}  # drops differ by ~1e-9
    res = linprog(cost / np.abs(cost).max(initial=1e-300), A_eq=a_eq, b_eq=b_eq, bounds=bounds, options=tight)
    assert res.status == 0
    extra = np.zeros(k, dtype=np.int64)
    for (_, c), y in zip(arcs, res.x[: len(arcs)]):
        extra[c] += round(y)
    assert extra.sum() == total
    return float(np.asarray(getattr(_scores(counts, extra[None, :], spec)[name], score))[0])


@settings(max_examples=60, deadline=None)
@given(larger_cases())
def test_worst_case_matches_a_linear_program(case: tuple[ClassCounts, list[int], AveragingSpec]) -> None:
    counts, filled, spec = case
    bounds = fill_bounds(counts, np.array(filled, dtype=np.int64), spec)
    for name in ("macro", "weighted", "entropy"):
        bound = bounds.averages[name]
        assert bound.low.f == pytest.approx(_transport_minimum(counts, filled, spec, name, "f"), abs=1e-12)
        want = _transport_minimum(counts, filled, spec, name, "precision")
        assert bound.low.precision == pytest.approx(want, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(larger_cases(max_weighted=4, max_fills=6))
def test_best_case_matches_every_feasible_allocation(case: tuple[ClassCounts, list[int], AveragingSpec]) -> None:
    """Every x with Σx = M that Hall's condition allows (each set of gold groups fits in its eligible classes)."""
    counts, filled, spec = case
    k = len(filled)
    total = sum(filled)
    weighted = [c for c in range(k) if spec.positive[c]]
    bars = np.array(list(itertools.combinations(range(total + len(weighted) - 1), len(weighted) - 1)))
    bars = bars.reshape(-1, len(weighted) - 1)
    edges = np.hstack([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), total + len(weighted) - 1)])
    x = np.zeros((len(bars), k), dtype=np.int64)
    x[:, weighted] = np.diff(edges, axis=1) - 1  # stars and bars: every composition of M over the weighted classes
    feasible = np.ones(len(x), dtype=bool)
    groups = [g for g in range(k) if filled[g]]
    for r in range(1, len(groups) + 1):
        for subset in itertools.combinations(groups, r):
            reach = np.zeros(k, dtype=np.int64)
            reach[sorted(set().union(*(_eligible(counts, spec.positive, g) for g in subset)))] = 1
            feasible &= x @ reach >= sum(filled[g] for g in subset)
    scores = _scores(counts, x[feasible], spec)
    bounds = fill_bounds(counts, np.array(filled, dtype=np.int64), spec)
    for name, bound in bounds.averages.items():
        assert bound.high.f == pytest.approx(np.max(scores[name].f), abs=TOL)
        assert bound.high.precision == pytest.approx(np.max(scores[name].precision), abs=TOL)
        assert bound.low.f == pytest.approx(np.min(scores[name].f), abs=TOL)
        assert bound.low.precision == pytest.approx(np.min(scores[name].precision), abs=TOL)


def test_many_fills_many_classes_is_quick() -> None:
    """TACRED-sized: 41 positive classes, tens of thousands of fills; worst ≤ value ≤ best, in well under a second."""
    rng = np.random.default_rng(7)
    k = 42
    tp, fp = rng.integers(0, 800, k), rng.integers(0, 200, k)
    filled = rng.integers(0, 2000, k)
    fn = filled + rng.integers(1, 100, k)
    filled[0] = fn[0] = 30_000
    counts = ClassCounts(tp, fp, fn)
    spec = AveragingSpec(np.arange(k) > 0, WEIGHTINGS)
    bounds = fill_bounds(counts, filled, spec)
    leaky = weighted_averages(counts, spec)
    for name, bound in bounds.averages.items():
        assert bound.low.f <= bound.high.f <= float(leaky[name].f)
        assert bound.low.precision <= bound.high.precision <= float(leaky[name].precision)
