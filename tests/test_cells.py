"""The cell algorithm draws exactly the distribution of per-item resampling (exact enumeration, KS, seeds)."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest
from scipy import stats

from releval.metrics.averages import AveragingSpec, all_averages
from releval.metrics.classification import score_labels
from releval.metrics.counts import counts_from_confusion
from releval.stats.cells import (
    cells_from_counts,
    cells_from_labels,
    encode_triplet,
    f_scores,
    resampled_f,
)

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


def test_pooled_multinomial_draw_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """The two-stage draw (multinomial over large cells + a pool of small ones) has the Multinomial(n, m/n) law."""
    import releval.stats.cells as cells_module

    monkeypatch.setattr(cells_module, "POOL_MAX", 2)  # cells of 1, 1, 2 items pooled; the 8-item cell is not
    g = np.array([0, 1, 2, 2] + [3] * 8)
    cells = cells_from_labels(g, g, g, 4)
    assert sorted(cells.counts) == [1, 1, 2, 8]
    draws = cells_module.bootstrap_cell_counts(cells, 200_000, np.random.default_rng(8))
    assert (draws.sum(axis=1) == 12).all()
    keys, observed = np.unique(draws, axis=0, return_counts=True)
    expected = stats.multinomial.pmf(keys, 12, cells.counts / 12) * draws.shape[0]
    big = expected >= 5  # pool the sparse bins so the χ² approximation holds
    obs = np.append(observed[big], observed[~big].sum() + (draws.shape[0] - observed.sum()))
    exp = np.append(expected[big], draws.shape[0] - expected[big].sum())
    assert stats.chisquare(obs, exp).pvalue > 1e-3
    # and the means are n·m/n per cell
    assert draws.mean(axis=0) == pytest.approx(cells.counts, abs=0.02)
