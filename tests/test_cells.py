"""The cell algorithm draws exactly the distribution of per-item resampling (exact enumeration, KS, seeds)."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from releval.metrics.averages import AveragingSpec, all_averages, average_weights, f_averages
from releval.metrics.cells import (
    _popcount,
    bootstrap_cell_counts,
    bootstrap_plan,
    cells_from_counts,
    cells_from_labels,
    cells_from_rows,
    encode_triplet,
    f_scores,
    randomization_totals,
    resampled_f,
    shares_gold,
)
from releval.metrics.classification import score_labels
from releval.metrics.counts import ClassCounts, counts_from_confusion

GOLD = ["N", "A", "B", "A", "N"]
PRED_A = ["N", "A", "A", "A", "B"]
PRED_B = ["A", "A", "B", "N", "N"]
METRICS = ("micro", "weighted", "macro", "entropy")


def _naive_delta(gold: list[str], pa: list[str], pb: list[str]) -> dict[str, float]:
    """Independent path: score both systems on the resampled item lists with the ordinary scorer."""
    sa = score_labels(gold, pa, negative="N").averages
    sb = score_labels(gold, pb, negative="N").averages
    return {m: float(sa[m].f - sb[m].f) for m in METRICS}


def _add(dist: dict, deltas: dict[str, float], prob: float) -> None:
    for m, d in deltas.items():
        dist[m][round(d, 12)] += prob


def _setup():  # noqa: ANN202
    labels, g, a, b = encode_triplet(GOLD, PRED_A, PRED_B)
    cells = cells_from_labels(g, a, b, len(labels))
    spec = AveragingSpec(np.array([lbl != "N" for lbl in labels]))
    return cells, spec


def _cell_deltas(cells, spec, tot_a, tot_b) -> dict[str, float]:  # noqa: ANN001
    fa, fb = f_scores(tot_a, spec), f_scores(tot_b, spec)
    return {m: float(fa[m] - fb[m]) for m in METRICS}


def _compare(naive: dict, fast: dict) -> None:
    for m in METRICS:
        keys = set(naive[m]) | set(fast[m])
        for k in keys:
            assert naive[m].get(k, 0.0) == pytest.approx(fast[m].get(k, 0.0), abs=1e-12), (m, k)
        assert sum(fast[m].values()) == pytest.approx(1.0, abs=1e-12)


def test_bootstrap_exact_enumeration() -> None:
    n = len(GOLD)
    naive: dict = defaultdict(lambda: defaultdict(float))
    for idx in itertools.product(range(n), repeat=n):  # all n^n equally likely ordered resamples
        g, a, b = ([seq[i] for i in idx] for seq in (GOLD, PRED_A, PRED_B))
        _add(naive, _naive_delta(g, a, b), 1.0 / n**n)
    cells, spec = _setup()
    fast: dict = defaultdict(lambda: defaultdict(float))
    probs = cells.counts / n
    for comp in itertools.product(range(n + 1), repeat=cells.n_cells):  # all cell-count vectors summing to n
        if sum(comp) != n:
            continue
        prob = float(stats.multinomial.pmf(comp, n, probs))
        tot_a, tot_b = cells.totals(np.array(comp))
        _add(fast, _cell_deltas(cells, spec, tot_a, tot_b), prob)
    _compare(naive, fast)


def test_randomization_exact_enumeration() -> None:
    n = len(GOLD)
    naive: dict = defaultdict(lambda: defaultdict(float))
    for swap in itertools.product((False, True), repeat=n):
        pa = [b if s else a for a, b, s in zip(PRED_A, PRED_B, swap)]
        pb = [a if s else b for a, b, s in zip(PRED_A, PRED_B, swap)]
        _add(naive, _naive_delta(GOLD, pa, pb), 0.5**n)
    cells, spec = _setup()
    fast: dict = defaultdict(lambda: defaultdict(float))
    base_a, base_b = cells.observed()
    diff = cells.stats_b - cells.stats_a
    for shares in itertools.product(*(range(m + 1) for m in cells.counts)):
        prob = float(np.prod([stats.binom.pmf(s, m, 0.5) for s, m in zip(shares, cells.counts)]))
        shift = np.array(shares, dtype=float) @ diff
        _add(fast, _cell_deltas(cells, spec, base_a + shift, base_b - shift), prob)
    _compare(naive, fast)


def _naive_bootstrap(g, a, b, k, spec, resamples, seed):  # noqa: ANN001, ANN202
    """Vectorised per-item bootstrap: draw item indices, one bincount per system and resample."""
    rng = np.random.default_rng(seed)
    n = g.shape[0]
    idx = rng.integers(0, n, size=(resamples, n))
    rows = np.arange(resamples)[:, None] * k * k
    out = []
    for pred in (a, b):
        flat = np.bincount((rows + g[idx] * k + pred[idx]).ravel(), minlength=resamples * k * k)
        _, av = all_averages(counts_from_confusion(flat.reshape(resamples, k, k)), spec)
        out.append({m: np.asarray(v.f) for m, v in av.items()})
    return {m: out[0][m] - out[1][m] for m in out[0]}


def test_bootstrap_ks_moderate_n() -> None:
    rng = np.random.default_rng(42)
    n, labels = 400, ["N", "A", "B", "C", "D", "E"]
    gold = rng.choice(labels, n, p=[0.5, 0.2, 0.1, 0.1, 0.05, 0.05])
    a = np.where(rng.random(n) < 0.75, gold, rng.choice(labels, n))
    b = np.where(rng.random(n) < 0.65, gold, rng.choice(labels, n))
    names, g, ca, cb = encode_triplet(list(gold), list(a), list(b))
    spec = AveragingSpec(np.array([x != "N" for x in names]))
    cells = cells_from_labels(g, ca, cb, len(names))
    fast = resampled_f(cells, spec, 10_000, seed=1)
    naive = _naive_bootstrap(g, ca, cb, len(names), spec, 10_000, seed=2)
    for m in ("micro", "weighted", "dodrans", "entropy", "macro"):
        res = stats.ks_2samp(fast[m][0] - fast[m][1], naive[m])
        assert res.pvalue > 1e-3, (m, res)
    # and a clearly different distribution (B's scores instead of the difference) is rejected
    assert stats.ks_2samp(fast["micro"][1], naive["micro"]).pvalue < 1e-10


def test_observed_totals_equal_plain_counts_and_seed_determinism() -> None:
    rng = np.random.default_rng(3)
    g, a, b = (rng.integers(0, 7, 500) for _ in range(3))
    cells = cells_from_labels(g, a, b, 7)
    tot_a, tot_b = cells.observed()
    for pred, tot in ((a, tot_a), (b, tot_b)):
        ref = counts_from_confusion(np.bincount(g * 7 + pred, minlength=49).reshape(7, 7))
        np.testing.assert_array_equal(tot, np.concatenate([ref.tp, ref.fp, ref.fn]))
    spec = AveragingSpec(np.array([True] * 6 + [False]))
    for method in ("bootstrap", "randomization"):
        r1 = resampled_f(cells, spec, 777, seed=5, method=method)
        r2 = resampled_f(cells, spec, 777, seed=5, method=method)
        r3 = resampled_f(cells, spec, 777, seed=6, method=method)
        for m in r1:
            np.testing.assert_array_equal(r1[m][0], r2[m][0])
            assert r1[m][0].shape == (777,)
        assert not np.array_equal(r1["macro"][0], r3["macro"][0])


def test_per_document_count_cells() -> None:
    tp = np.array([[1, 0], [1, 0], [0, 2]])
    fp = np.array([[0, 1], [0, 1], [0, 0]])
    fn = np.zeros((3, 2), dtype=int)
    cells = cells_from_counts(tp, fp, fn, tp, fn, fn)
    assert cells.n_cells == 2 and sorted(cells.counts) == [1, 2]  # documents 1 and 2 are identical
    tot_a, tot_b = cells.observed()
    np.testing.assert_array_equal(tot_a, [2, 2, 0, 2, 0, 0])
    np.testing.assert_array_equal(tot_b, [2, 2, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="shape"):
        cells_from_counts(tp, fp, fn, tp, fp, fn[:2])


def test_bootstrap_plan_splits_cells_into_pool_slots() -> None:
    """Smallest cells fill the 2**bits slots; the cell crossing the boundary is split between pool and multinomial."""
    counts = np.array([8, 1, 2, 1])
    plan = bootstrap_plan(counts, bits=3)  # 1 + 1 + 2 items of cells 1, 3, 2, then 4 of the 8 items of cell 0
    assert plan.slot_cell.tolist() == [0, 0, 0, 0, 1, 2, 2, 3]
    assert plan.big_cells.tolist() == [0] and plan.big_counts.tolist() == [4]
    plan = bootstrap_plan(counts, bits=2)  # exactly the three small cells
    assert plan.slot_cell.tolist() == [1, 2, 2, 3]
    assert plan.big_cells.tolist() == [0] and plan.big_counts.tolist() == [8]
    plan = bootstrap_plan(counts, bits=0)  # one pooled item of cell 1; everything else is a category
    assert plan.slot_cell.tolist() == [1]
    assert plan.big_cells.tolist() == [0, 2, 3] and plan.big_counts.tolist() == [8, 2, 1]
    with pytest.raises(ValueError, match="pool bits"):
        bootstrap_plan(counts, bits=4)  # 16 slots > 12 items
    # the cost model: 25 per multinomial category + 1 per pooled draw; TACRED-like counts pool most cells
    many = np.array([11_000] + [1] * 300 + [40] * 10)
    assert bootstrap_plan(many).bits == 9  # 300 singletons + 5 of the 40s in 512 slots beats 8 or 10 bits


@pytest.mark.parametrize("bits", [0, 2, 3, None])
def test_pooled_multinomial_draw_is_exact(bits: int | None) -> None:
    """The two-stage draw (multinomial outside the pool + uniform pool slots) has the Multinomial(n, m/n) law."""
    g = np.array([0, 1, 2, 2] + [3] * 8)
    cells = cells_from_labels(g, g, g, 4)
    assert sorted(cells.counts) == [1, 1, 2, 8]
    plan = bootstrap_plan(cells.counts, bits=bits)
    draws = bootstrap_cell_counts(cells, 200_000, np.random.default_rng(8), plan)
    assert (draws.sum(axis=1) == 12).all()
    keys, observed = np.unique(draws, axis=0, return_counts=True)
    expected = stats.multinomial.pmf(keys, 12, cells.counts / 12) * draws.shape[0]
    big = expected >= 5  # pool the sparse bins so the χ² approximation holds
    obs = np.append(observed[big], observed[~big].sum() + (draws.shape[0] - observed.sum()))
    exp = np.append(expected[big], draws.shape[0] - expected[big].sum())
    assert stats.chisquare(obs, exp).pvalue > 1e-3
    # and the means are n·m/n per cell
    assert draws.mean(axis=0) == pytest.approx(cells.counts, abs=0.02)


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    k=st.integers(1, 6),
    rows=st.integers(1, 5),
    beta=st.sampled_from([0.5, 1.0, 2.0]),
    zero_division=st.sampled_from([0.0, 1.0]),
    entropy_n=st.sampled_from(["all", "positive"]),
)
def test_f_averages_equal_all_averages(
    data: st.DataObject, k: int, rows: int, beta: float, zero_division: float, entropy_n: str
) -> None:
    """The F-only hot path gives all_averages' F bit for bit, with its own weights or weights of the same gold."""
    counts = st.lists(st.integers(0, 6), min_size=rows * k, max_size=rows * k)
    tp, fp, fn = (np.array(data.draw(counts)).reshape(rows, k) for _ in range(3))
    positive = np.array(data.draw(st.lists(st.booleans(), min_size=k, max_size=k)))
    spec = AveragingSpec(positive, beta=beta, zero_division=zero_division, entropy_n=entropy_n)
    _, reference = all_averages(ClassCounts(tp, fp, fn), spec)
    for weights in (None, average_weights(tp + fn, spec)):
        fast = f_averages(ClassCounts(tp, fp, fn), spec, weights)
        assert list(fast) == list(reference)
        for name, prf in reference.items():
            np.testing.assert_array_equal(fast[name], prf.f)


def test_shared_gold_detection() -> None:
    """Label cells always share the gold; per-document rows with different gold counts for A and B do not."""
    labels, g, a, b = encode_triplet(GOLD, PRED_A, PRED_B)
    assert shares_gold(cells_from_labels(g, a, b, len(labels)), len(labels))
    tp = np.array([[1, 0], [0, 1]])
    zero = np.zeros_like(tp)
    assert shares_gold(cells_from_counts(tp, zero, zero, zero, zero, tp), 2)  # B missed what A found
    assert not shares_gold(cells_from_counts(tp, zero, zero, zero, zero, zero), 2)


def test_randomization_swaps_are_binomial_half_across_word_boundaries() -> None:
    """Swaps per cell = popcount of m masked random bits: Binomial(m, ½) for m below, at and above 64 and 128."""
    sizes = [1, 63, 64, 65, 130]
    rows_a = np.repeat(np.eye(len(sizes)), sizes, axis=0)  # item of cell c counts 1 in column c for A only
    cells = cells_from_rows(rows_a, np.zeros_like(rows_a))
    assert sorted(cells.counts.tolist()) == sizes
    base_a = cells.observed()[0]
    swaps = np.concatenate(
        [base_a - tot_a for tot_a, _ in randomization_totals(cells, 40_000, np.random.default_rng(4))]
    )
    for c, m in enumerate(sizes):
        assert base_a[c] == m  # column c counts the items of the cell of size m
        values, observed = np.unique(swaps[:, c], return_counts=True)
        assert values.min() >= 0 and values.max() <= m
        expected = stats.binom.pmf(values, m, 0.5) * swaps.shape[0]
        keep = expected >= 5
        obs, exp = observed[keep], expected[keep]
        if keep.sum() < len(keep) or m > 1:  # the sparse tails, pooled into one bin
            obs = np.append(obs, swaps.shape[0] - obs.sum())
            exp = np.append(exp, swaps.shape[0] - exp.sum())
        assert stats.chisquare(obs, exp).pvalue > 1e-3, m
    assert np.corrcoef(swaps[:, 2], swaps[:, 3])[0, 1] == pytest.approx(0.0, abs=0.03)  # cells are independent


def test_popcount_table_matches_bitwise_count(monkeypatch: pytest.MonkeyPatch) -> None:
    words = np.random.default_rng(5).integers(0, 1 << 64, size=(7, 9), dtype=np.uint64)
    expected = np.array([[bin(int(w)).count("1") for w in row] for row in words])
    np.testing.assert_array_equal(_popcount(words), expected)
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    np.testing.assert_array_equal(_popcount(words), expected)
