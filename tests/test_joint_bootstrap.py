"""The joint bootstrap of many systems (releval.metrics.joint_cells) is an exact reformulation of the paired one.

One draw of Multinomial(n, m/n) counts over the distinct (gold, p_1, …, p_K) cells gives every pair a paired
bootstrap resample. Proven as the pair engine was: exact enumeration of all n^n item resamples and of all
joint cell-count vectors on a small case (every pair's δ*, and all pairs' δ* jointly, have the distribution of
resampling items), the joint counts summed to a pair's cells have exactly the pair's multinomial law, χ² of the
real draw against the exact law, and two-sample KS tests against the pair engine and a per-item bootstrap on a
larger case. `releval compare` uses it for two pairs or more, with each pair scored on its own classes.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from releval.metrics.averages import AveragingSpec, f_averages
from releval.metrics.cells import (
    bootstrap_plan,
    cells_from_labels,
    counts_of,
    draw_cell_counts,
    encode_triplet,
    f_scores,
    resampled_f,
)
from releval.metrics.counts import counts_from_confusion
from releval.metrics.joint_cells import (
    JOINT_BLOCK_ELEMENTS,
    JointCells,
    encode_systems,
    joint_blocks,
    joint_cells_from_labels,
    joint_observed_f,
    joint_resampled_f,
)
from releval.metrics.weightings import DEFAULT_WEIGHTINGS
from releval.significance.compare import compare_paired, joint_views, system_pairs
from releval.significance.config import SignificanceConfig
from releval.significance.paired import resampling_rows
from releval.tasks import classification as rc

# Five items, three systems. Items 0 and 1 are the same joint tuple; A and B agree on items 0–2, so the pair
# (A, B) merges three items whose joint cells differ (C predicts s on 0 and 1, r on 2). B predicts `t`, a label
# no gold item has: the pairs with B are scored on the gold labels and t, the pair (A, C) on the gold labels only.
GOLD = ["r", "r", "r", "s", "N"]
SMALL = {"A": ["r", "r", "r", "s", "r"], "B": ["r", "r", "r", "N", "t"], "C": ["s", "s", "r", "s", "N"]}
PAIRS = [("A", "B"), ("A", "C"), ("B", "C")]
CONFIG = rc.ClassificationConfig(negative="N")


def _compositions(n: int, parts: int):  # noqa: ANN202
    """Every vector of `parts` non-negative integers summing to n."""
    for bars in itertools.combinations(range(n + parts - 1), parts - 1):
        edges = (-1, *bars, n + parts - 1)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(parts))


def _multinomial(counts: tuple[int, ...], sizes: np.ndarray) -> Fraction:
    """P(counts) under Multinomial(n, sizes/n), exactly."""
    n = int(sizes.sum())
    p = Fraction(math.factorial(n))
    for c, m in zip(counts, sizes):
        p *= Fraction(int(m), n) ** c / math.factorial(c)
    return p


def _pair_spec(a: str, b: str) -> tuple[list[str], AveragingSpec]:
    labels = encode_triplet(GOLD, SMALL[a], SMALL[b])[0]
    return labels, AveragingSpec(np.array([x != "N" for x in labels]), DEFAULT_WEIGHTINGS)


def _key(values: dict[str, float]) -> tuple[float, ...]:
    return tuple(round(float(v), 12) for v in values.values())


def _item_law() -> dict[tuple, Fraction]:
    """All 5^5 item resamples, each of probability 1/5^5: the joint law of every pair's δ* under every average,
    each pair scored from per-item confusion counts (no cells)."""
    n = len(GOLD)
    law: Counter = Counter()
    for draw in itertools.product(range(n), repeat=n):
        key = []
        for a, b in PAIRS:
            labels, spec = _pair_spec(a, b)
            code = {x: i for i, x in enumerate(labels)}
            k = len(labels)
            f = []
            for name in (a, b):
                confusion = np.zeros((k, k))
                for i in draw:
                    confusion[code[GOLD[i]], code[SMALL[name][i]]] += 1
                f.append(f_averages(counts_from_confusion(confusion), spec))
            key.append(_key({m: f[0][m] - f[1][m] for m in f[0]}))
        law[tuple(key)] += Fraction(1, n**n)
    return dict(law)


def _joint_law() -> tuple[dict[tuple, Fraction], int]:
    """All vectors of joint cell counts with their multinomial probabilities, scored as `releval compare` scores
    them (joint totals, each pair's view of its classes)."""
    cells, views, where = joint_views(GOLD, SMALL, PAIRS, CONFIG, "N")
    law: Counter = Counter()
    for counts in _compositions(cells.n_items, cells.n_cells):
        totals = cells.totals(np.array(counts, dtype=np.float64))
        key = []
        for pair in PAIRS:
            v, ia, ib = where[pair]
            view = views[v]
            fa = f_scores(view.select(totals[view.systems[ia]], cells.n_labels), view.spec)
            fb = f_scores(view.select(totals[view.systems[ib]], cells.n_labels), view.spec)
            key.append(_key({m: fa[m] - fb[m] for m in fa}))
        law[tuple(key)] += _multinomial(counts, cells.counts)
    return dict(law), cells.n_cells


def test_joint_cells_of_the_small_case() -> None:
    labels, g, codes = encode_systems(GOLD, list(SMALL.values()))
    assert labels == ["N", "r", "s", "t"]
    cells = joint_cells_from_labels(g, codes, len(labels))
    # lexicographic (gold, A, B, C): (N; r,t,N), (r; r,r,r), (r; r,r,s) ×2, (s; s,N,s)
    assert cells.counts.tolist() == [1, 1, 2, 1]
    assert cells.gold.tolist() == [0, 1, 1, 2]
    assert cells.preds.tolist() == [[1, 1, 1, 2], [3, 1, 1, 0], [0, 1, 2, 2]]
    assert cells.inverse.tolist() == [2, 2, 1, 3, 0]
    # system A's observed TP|FP|FN over N, r, s, t: TP r=3, s=1; FP r=1 (the N item); FN N=1
    assert cells.observed()[0].tolist() == [0, 3, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0]


def test_two_systems_make_the_pair_engines_cells_in_its_order() -> None:
    rng = np.random.default_rng(3)
    g, a, b = rng.integers(0, 5, 400), rng.integers(0, 5, 400), rng.integers(0, 5, 400)
    pair = cells_from_labels(g, a, b, 5)
    joint = joint_cells_from_labels(g, np.stack([a, b]), 5)
    np.testing.assert_array_equal(joint.counts, pair.counts)
    np.testing.assert_array_equal(joint.inverse, pair.inverse)
    totals = joint.observed()
    np.testing.assert_array_equal(totals[0], pair.observed()[0])
    np.testing.assert_array_equal(totals[1], pair.observed()[1])


def test_many_systems_keys_do_not_overflow() -> None:
    # 40 systems over 50 labels: a mixed-radix key would need 50^41 values; renumbering keeps it below n·L
    rng = np.random.default_rng(0)
    g = rng.integers(0, 50, 300)
    preds = np.where(rng.random((40, 300)) < 0.8, g, rng.integers(0, 50, (40, 300)))
    cells = joint_cells_from_labels(g, preds, 50)
    rows = np.vstack([g, preds]).T
    assert cells.n_cells == len({tuple(r) for r in rows.tolist()}) == 300
    np.testing.assert_array_equal(np.vstack([cells.gold, cells.preds]).T[cells.inverse], rows)
    order = [tuple(r) for r in np.vstack([cells.gold, cells.preds]).T.tolist()]
    assert order == sorted(order)


def test_joint_counts_summed_to_a_pair_have_the_pairs_multinomial_law() -> None:
    """Enumeration of all joint count vectors: for each pair, P(pair cell counts) equals the pair's own
    Multinomial(n, m_pair/n) exactly, and the joint totals of A and B equal the pair cells' totals."""
    cells, _, _ = joint_views(GOLD, SMALL, PAIRS, CONFIG, "N")
    labels, g, codes = encode_systems(GOLD, list(SMALL.values()))
    names = list(SMALL)
    for a, b in PAIRS:
        ia, ib = names.index(a), names.index(b)
        pair = cells_from_labels(g, codes[ia], codes[ib], len(labels))
        to_pair = pair.inverse[np.unique(cells.inverse, return_index=True)[1]]  # joint cell → pair cell
        law: Counter = Counter()
        for counts in _compositions(cells.n_items, cells.n_cells):
            summed = np.bincount(to_pair, weights=np.array(counts, dtype=float), minlength=pair.n_cells)
            law[tuple(int(c) for c in summed)] += _multinomial(counts, cells.counts)
            totals = cells.totals(np.array(counts, dtype=np.float64))
            tot_a, tot_b = pair.totals(summed)
            np.testing.assert_array_equal(totals[ia], tot_a)
            np.testing.assert_array_equal(totals[ib], tot_b)
        exact = {c: _multinomial(c, pair.counts) for c in _compositions(pair.n_items, pair.n_cells)}
        assert law == exact
        if (a, b) == ("A", "B"):  # 3 pair cells from the 4 joint cells: (r, r, r) holds items 0–2
            assert pair.counts.tolist() == [1, 3, 1]
            assert law[(0, 5, 0)] == Fraction(243, 3125)  # all 5 draws in it: (3/5)^5


def test_enumeration_every_pairs_delta_has_the_item_bootstrap_law() -> None:
    """All 5^5 = 3,125 item resamples against all 56 joint cell-count vectors: the joint law of the three pairs'
    δ* under all five averages is the same, probability for probability."""
    item = _item_law()
    joint, n_cells = _joint_law()
    assert n_cells == 4
    assert sum(item.values()) == sum(joint.values()) == 1
    assert joint == item
    # the marginal law of (A vs B)'s micro δ*: A and B differ only on items 3 and 4
    micro_ab: Counter = Counter()
    for key, p in joint.items():
        micro_ab[key[0][0]] += p
    assert len(micro_ab) == 16
    # micro δ* = 0 exactly when item 3 is not drawn, (4/5)^5: on item 4 both systems make one false positive
    # (A `r`, B `t`), which micro counts alike
    assert micro_ab[0.0] == Fraction(1024, 3125)


def test_real_draw_matches_the_exact_law_chi_square() -> None:
    """200,000 resamples of the real joint draw on the small case against the exact law of (δ*_AB, δ*_AC, δ*_BC)
    under micro: χ² goodness of fit, cells of expected count < 5 pooled."""
    joint, _ = _joint_law()
    exact: Counter = Counter()
    for key, p in joint.items():
        exact[tuple(k[0] for k in key)] += p
    cells, views, where = joint_views(GOLD, SMALL, PAIRS, CONFIG, "N")
    resamples = 200_000
    draws = joint_resampled_f(cells, views, resamples, seed=11)
    deltas = []
    for pair in PAIRS:
        v, ia, ib = where[pair]
        deltas.append(np.round(draws[v]["micro"][ia] - draws[v]["micro"][ib], 12))
    seen = Counter(zip(*(d.tolist() for d in deltas)))
    assert set(seen) <= set(exact)
    keys = sorted(exact, key=lambda k: exact[k])
    expected = np.array([float(exact[k]) * resamples for k in keys])
    observed = np.array([seen.get(k, 0) for k in keys], dtype=float)
    small = expected < 5
    if small.any():
        expected = np.append(expected[~small], expected[small].sum())
        observed = np.append(observed[~small], observed[small].sum())
    result = stats.chisquare(observed, expected)
    assert len(keys) == 55  # distinct (δ*_AB, δ*_AC, δ*_BC) under micro
    assert result.pvalue > 0.001  # 0.38 with NumPy 2 (seed 11)


def _larger_case(n: int = 3000, k: int = 8, systems: int = 4, seed: int = 5):  # noqa: ANN202
    """Correlated systems: a shared item difficulty decides who errs, most errors go to the negative class."""
    rng = np.random.default_rng(seed)
    labels = ["none"] + [f"rel{i}" for i in range(1, k)]
    gold = rng.choice(k, n, p=[0.6] + [0.4 / (k - 1)] * (k - 1))
    hard = rng.random(n)
    out = {}
    for s in range(systems):
        wrong = hard < 0.15 + 0.05 * s + 0.1 * rng.random(n)
        noise = np.where(rng.random(n) < 0.5, 0, rng.integers(0, k, n))
        out[f"s{s}"] = [labels[i] for i in np.where(wrong, noise, gold)]
    return [labels[i] for i in gold], out


def test_ks_joint_draw_against_the_pair_engine_and_a_per_item_bootstrap() -> None:
    """Per pair and average, δ* of the joint draw (seed 1) against the pair engine's (seed 2): two-sample KS
    p > 0.001 for all 6 pairs × 5 averages. And a statistic of two pairs at once, δ*(s0,s1) − δ*(s0,s2), against
    a per-item bootstrap of the three systems together: the joint draw keeps the dependence of resampling items."""
    gold, systems = _larger_case()
    config = rc.ClassificationConfig(negative="none")
    pairs = system_pairs(list(systems))
    cells, views, where = joint_views(gold, systems, pairs, config, "none")
    assert len(views) == 1 and cells.n_cells < 3000
    resamples = 4000
    joint = joint_resampled_f(cells, views, resamples, seed=1)
    p_values = []
    for a, b in pairs:
        pair_cells, spec, _ = rc.paired_cells(gold, systems[a], systems[b], config)
        single = resampled_f(pair_cells, spec, resamples, seed=2)
        v, ia, ib = where[(a, b)]
        for m, (fa, fb) in single.items():
            p_values.append(stats.ks_2samp(joint[v][m][ia] - joint[v][m][ib], fa - fb).pvalue)
    assert len(p_values) == 30
    assert min(p_values) > 0.001

    # per-item bootstrap of all systems at once (item indices drawn with replacement)
    labels, g, codes = encode_systems(gold, list(systems.values()))
    spec = views[0].spec
    rng = np.random.default_rng(3)
    k = len(labels)
    f_item = []
    for _ in range(8):
        idx = rng.integers(0, len(gold), (250, len(gold)))
        rows = np.arange(250)[:, None] * k * k
        per = []
        for s in range(3):
            flat = np.bincount((rows + g[idx] * k + codes[s][idx]).ravel(), minlength=250 * k * k)
            per.append(f_averages(counts_from_confusion(flat.reshape(250, k, k)), spec)["micro"])
        f_item.append((per[0] - per[1]) - (per[0] - per[2]))
    item_stat = np.concatenate(f_item)
    v, i0, i1 = where[("s0", "s1")]
    _, _, i2 = where[("s0", "s2")]
    joint_stat = (joint[v]["micro"][i0] - joint[v]["micro"][i1]) - (joint[v]["micro"][i0] - joint[v]["micro"][i2])
    assert stats.ks_2samp(joint_stat, item_stat).pvalue > 0.001
    # the pairs share their draws: δ*(s0,s1) and δ*(s0,s2) are correlated (both hold F(s0)), as over items
    corr = np.corrcoef(joint[v]["micro"][i0] - joint[v]["micro"][i1], joint[v]["micro"][i0] - joint[v]["micro"][i2])
    assert corr[0, 1] > 0.2


def test_compare_observed_scores_and_randomization_equal_the_pair_engine() -> None:
    """Three systems (three pairs, so the joint path), one predicting a label outside the gold: every row's
    observed scores equal the pair engine's exactly; the randomization rows still come from the pair engine,
    per pair, so they are unchanged; each pair is scored on the classes `rc.paired_cells` gives it."""
    gold, systems = _larger_case(n=600, systems=3, seed=9)
    systems["s1"] = [*systems["s1"][:-3], "made-up", "made-up", "other-up"]
    test = SignificanceConfig(tests=("bootstrap", "randomization"), resamples=500, seed=4)
    config = rc.ClassificationConfig(negative="none")
    table = compare_paired(gold, systems, config, test)
    pairs = system_pairs(list(systems))
    cells, views, where = joint_views(gold, systems, pairs, config, "none")
    assert [where[p][0] for p in pairs] == [0, 1, 0]  # pairs with s1 see made-up and other-up; (s0, s2) does not
    assert views[1].columns is not None and views[1].columns.tolist() == list(range(8))
    observed = joint_observed_f(cells, views)
    for a, b in pairs:
        pair_cells, spec, _ = rc.paired_cells(gold, systems[a], systems[b], config)
        v, ia, ib = where[(a, b)]
        np.testing.assert_array_equal(views[v].spec.positive, spec.positive)
        boot = resampling_rows(pair_cells, spec, "bootstrap", test)
        rand = resampling_rows(pair_cells, spec, "randomization", test)
        for row in table.rows:
            if (row.a, row.b) != (a, b):
                continue
            ref = boot[row.metric] if row.test == "bootstrap" else rand[row.metric]
            assert (row.score_a, row.score_b, row.effect) == (ref.score_a, ref.score_b, ref.effect)
            assert row.score_a == table.scores[a][row.metric] or math.isclose(
                row.score_a, table.scores[a][row.metric], rel_tol=1e-15
            )
            assert row.score_a == float(observed[v][row.metric][ia])
            if row.test == "randomization":
                assert row.p_value == ref.p_value
    boot_rows = [r for r in table.rows if r.test == "bootstrap"]
    assert len(boot_rows) == 15 and all(r.ci_effect is not None for r in boot_rows)


def test_compare_two_systems_keeps_the_pair_engine_and_its_numbers() -> None:
    gold, systems = _larger_case(n=500, systems=2, seed=2)
    test = SignificanceConfig(resamples=300, seed=8)
    config = rc.ClassificationConfig(negative="none")
    table = compare_paired(gold, systems, config, test)
    pair_cells, spec, _ = rc.paired_cells(gold, systems["s0"], systems["s1"], config)
    ref = resampling_rows(pair_cells, spec, "bootstrap", test)
    for row in table.rows:
        assert (row.p_value, row.ci_effect, row.ci_a, row.ci_b) == (
            ref[row.metric].p_value,
            ref[row.metric].ci_effect,
            ref[row.metric].ci_a,
            ref[row.metric].ci_b,
        )


def test_compare_joint_is_reproducible_and_its_intervals_are_the_pairs_percentiles() -> None:
    gold, systems = _larger_case(n=800, systems=3, seed=4)
    config = rc.ClassificationConfig(negative="none")
    one = compare_paired(gold, systems, config, SignificanceConfig(resamples=400, seed=21))
    again = compare_paired(gold, systems, config, SignificanceConfig(resamples=400, seed=21))
    other = compare_paired(gold, systems, config, SignificanceConfig(resamples=400, seed=22))
    assert one.rows == again.rows
    assert [r.ci_effect for r in one.rows] != [r.ci_effect for r in other.rows]
    assert one.signature.get("seed") == "21" and other.signature.get("seed") == "22"
    # intervals are the 2.5 and 97.5 % percentiles of each pair's F*(A), F*(B) and δ* from the one joint draw
    pairs = system_pairs(list(systems))
    cells, views, where = joint_views(gold, systems, pairs, config, "none")
    draws = joint_resampled_f(cells, views, 400, seed=21)
    for row in one.rows:
        v, ia, ib = where[(row.a, row.b)]
        fa, fb = draws[v][row.metric][ia], draws[v][row.metric][ib]
        for ci, values in ((row.ci_a, fa), (row.ci_b, fb), (row.ci_effect, fa - fb)):
            assert ci == pytest.approx(np.quantile(values, [0.025, 0.975]), rel=1e-12, abs=1e-15)
        shifted = (fa - fb) - row.effect
        count = int(np.count_nonzero(np.abs(shifted) >= abs(row.effect) - 1e-12))
        assert row.p_value == (count + 1) / 401


def test_joint_blocks_stay_in_cache_and_cover_every_resample() -> None:
    labels, g, codes = encode_systems(GOLD, list(SMALL.values()))
    small = joint_cells_from_labels(g, codes, len(labels))
    # width max(4 cells, 3 systems × 3 × 4 labels = 36): 2^20 // 36 = 29,127 per block
    assert joint_blocks(10_000, small) == [10_000]
    assert joint_blocks(70_000, small) == [29_127, 29_127, 11_746]
    gold, systems = _larger_case(n=3000, systems=4)
    _, g, codes = encode_systems(gold, list(systems.values()))
    big = joint_cells_from_labels(g, codes, 8)
    blocks = joint_blocks(10_000, big)
    assert sum(blocks) == 10_000 and blocks[0] == JOINT_BLOCK_ELEMENTS // big.n_cells


@pytest.mark.parametrize("seed", [0, 1])
def test_resampled_totals_are_integers_summing_to_n(seed: int) -> None:
    gold, systems = _larger_case(n=700, systems=3, seed=seed)
    _, g, codes = encode_systems(gold, list(systems.values()))
    cells = joint_cells_from_labels(g, codes, 8)
    from releval.metrics.joint_cells import bootstrap_system_totals

    for totals in bootstrap_system_totals(cells, 300, np.random.default_rng(seed)):
        counts = counts_of(totals, 8)
        support = counts.tp + counts.fn  # every system sees the same resampled gold
        np.testing.assert_array_equal(support, np.broadcast_to(support[0], support.shape))
        np.testing.assert_array_equal((counts.tp + counts.fn).sum(axis=-1), 700)
        np.testing.assert_array_equal((counts.tp + counts.fp).sum(axis=-1), 700)
        assert np.all(totals == np.round(totals))


def _per_cell_totals(cells, counts: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """Every system's TP|FP|FN for one vector of cell counts, cell by cell in Python: (systems, 3L)."""
    k = cells.n_labels
    out = np.zeros((cells.n_systems, 3 * k))
    for j, m in enumerate(counts.tolist()):
        g = int(cells.gold[j])
        for s in range(cells.n_systems):
            p = int(cells.preds[s, j])
            if p == g:
                out[s, g] += m
            else:
                out[s, k + p] += m
                out[s, 2 * k + g] += m
    return out


def test_totals_from_supports_and_wrong_cells_equal_a_cell_by_cell_count_in_float32_and_float64() -> None:
    gold, systems = _larger_case(n=700, systems=4, seed=5)
    _, g, codes = encode_systems(gold, list(systems.values()))
    cells = joint_cells_from_labels(g, codes, 8)
    plan = bootstrap_plan(cells.counts)
    wide = draw_cell_counts(cells.counts, 40, np.random.default_rng(9), plan)
    narrow = draw_cell_counts(cells.counts, 40, np.random.default_rng(9), plan, np.float32)
    assert narrow.dtype == np.float32 and wide.dtype == np.float64
    np.testing.assert_array_equal(narrow, wide)  # the same draws, whatever the dtype
    by_scipy, by_loop = cells.totals(narrow), cells.totals(wide)  # float32 through SciPy, float64 by the loop
    assert by_scipy.shape == (4, 40, 24)
    np.testing.assert_array_equal(by_scipy, by_loop)
    for r in (0, 17, 39):
        np.testing.assert_array_equal(by_scipy[:, r], _per_cell_totals(cells, wide[r]))
    np.testing.assert_array_equal(cells.observed(), _per_cell_totals(cells, cells.counts))


def test_float32_counts_beyond_2_to_the_24_are_multiplied_in_float64() -> None:
    # 2^24 + 1 gold items of class 0: in float32 their support would round to 2^24 and TP to 2^24 − 1
    big = 2**24
    cells = JointCells(np.array([big, 1]), np.array([0, 0]), np.array([[0, 1]]), 2, np.zeros(0, dtype=np.int64))
    assert not cells.fast_counts(10_000)
    totals = cells.totals(np.array([[big, 1]], dtype=np.float32))  # 2^24 and 1 are exact in float32
    assert totals[0, 0].tolist() == [big, 0, 0, 1, 1, 0]  # TP 0: 2^24; FP 1: 1; FN 0: 1
    assert cells.observed()[0].tolist() == [big, 0, 0, 1, 1, 0]
