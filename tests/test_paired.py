"""Paired tests against paired_tests_vectors.json and the negative cases of anchor_behaviour_vectors.json."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from tests.conftest import data_path

from releval.significance.paired import (
    ALTERNATIVES,
    approximate_randomization,
    approximate_randomization_scores,
    mcnemar,
    mcnemar_counts,
    paired_bootstrap,
    paired_bootstrap_scores,
    sign_test,
    sign_test_counts,
)

R = 20_000


def _counts_test(method: str, counts_a, counts_b, *, alternative: str = "two-sided", resamples: int, seed: int = 1):
    """A resampling test on per-item (tp, fp, fn) arrays, every class positive, micro only: the path every task's
    per-item statistics take (releval.significance.paired.resampling_rows on distinct cells)."""
    from releval.metrics.averages import AveragingSpec
    from releval.metrics.cells import cells_from_counts
    from releval.significance.config import SignificanceConfig
    from releval.significance.paired import resampling_rows

    cells = cells_from_counts(*counts_a, *counts_b)
    spec = AveragingSpec(np.ones(cells.stats_a.shape[1] // 3, dtype=bool), ())
    test = SignificanceConfig((method,), alternative, resamples, seed)
    return resampling_rows(cells, spec, method, test)["micro"]


def _load(name: str) -> dict:
    return {v["id"]: v for v in json.loads(data_path("testvectors", name).read_text())["vectors"]}


def _mc_tol(p: float, n: int) -> float:
    """Monte-Carlo acceptance of the vectors: 4·√(p(1−p)/R) + 1/R."""
    return 4 * math.sqrt(p * (1 - p) / n) + 1 / n


def test_bootstrap_micro_f1_from_per_item_counts() -> None:
    vec = _load("paired_tests_vectors.json")["exact_bootstrap_micro_f1_n6"]
    a = np.array(vec["inputs"]["a_instances_tp_fp_fn"])
    b = np.array(vec["inputs"]["b_instances_tp_fp_fn"])
    exp = vec["expected"]
    split = lambda x: (x[:, [0]], x[:, [1]], x[:, [2]])  # noqa: E731 - one class, K = 1
    res = {
        alt: _counts_test("bootstrap", split(a), split(b), alternative=alt, resamples=R, seed=7) for alt in ALTERNATIVES
    }
    assert res["greater"].score_a == pytest.approx(exp["micro_f1_a"], abs=1e-12)
    assert res["greater"].score_b == pytest.approx(exp["micro_f1_b"], abs=1e-12)
    assert res["greater"].effect == pytest.approx(exp["delta_obs"], abs=1e-12)
    p = exp["P[delta*>=2delta]"]
    assert res["greater"].p_value == pytest.approx(p, abs=_mc_tol(p, R))
    p = exp["P[|delta*-delta|>=|delta|]"]
    assert res["two-sided"].p_value == pytest.approx(p, abs=_mc_tol(p, R))


@pytest.mark.parametrize("vid", ["exact_bootstrap_mean_n6", "exact_bootstrap_mean_n6_mixed_signs"])
def test_bootstrap_mean_vectors(vid: str) -> None:
    vec = _load("paired_tests_vectors.json")[vid]
    exp = vec["expected"]
    res = paired_bootstrap_scores(vec["inputs"]["a"], vec["inputs"]["b"], alternative="greater", resamples=R, seed=3)
    assert res.effect == pytest.approx(exp["delta_obs (mean diff)"], abs=1e-12)
    p = exp["berg_kirkpatrick_P[delta*>=2delta]"]
    assert res.p_value == pytest.approx(p, abs=_mc_tol(p, R))
    p = exp["shifted_two_sided_P[|delta*-delta|>=|delta|]"]
    assert res.p_values["two-sided"] == pytest.approx(p, abs=_mc_tol(p, R))


def test_randomization_continuous_n10() -> None:
    vec = _load("paired_tests_vectors.json")["exact_permutation_continuous_n10"]
    res = approximate_randomization_scores(vec["inputs"]["a"], vec["inputs"]["b"], alternative="greater", resamples=R)
    for key, alt in (("one_sided_ge", "greater"), ("two_sided_abs_ge", "two-sided")):
        p = vec["expected"][key]
        assert res.p_values[alt] == pytest.approx(p, abs=_mc_tol(p, R))
    assert res.effect == pytest.approx(vec["expected"]["mean_diff"], abs=1e-12)


def _binary_as_labels(vec: dict) -> tuple[list[str], list[str], list[str]]:
    a, b = vec["inputs"]["a_correct"], vec["inputs"]["b_correct"]
    return ["x"] * len(a), ["x" if v else "y" for v in a], ["x" if v else "y" for v in b]


def test_binary_correctness_randomization_mcnemar_sign() -> None:
    vec = _load("paired_tests_vectors.json")["exact_permutation_binary_correctness"]
    gold, pa, pb = _binary_as_labels(vec)
    exp = vec["expected"]
    # no negative class and one label per item: micro-F = accuracy
    ar = approximate_randomization(gold, pa, pb, negative=None, alternative="greater", resamples=R, seed=11)
    assert ar.score_a == pytest.approx(exp["accuracy_a"]) and ar.score_b == pytest.approx(exp["accuracy_b"])
    p = exp["perm_exact_one_sided_ge (P[S>=s_obs], A better)"]
    assert ar.p_value == pytest.approx(p, abs=_mc_tol(p, R))
    assert ar.p_value > 3 * exp["perm_exact_one_sided_gt_strict"]  # ties count as extreme
    p = exp["perm_exact_two_sided_abs_ge"]
    assert ar.rows["micro"].p_values["two-sided"] == pytest.approx(p, abs=_mc_tol(p, R))
    m = mcnemar(gold, pa, pb)
    assert (m.b, m.c) == (exp["b_A_only"], exp["c_B_only"])
    assert m.p_value == pytest.approx(exp["mcnemar_exact_two_sided"], abs=1e-12)
    assert mcnemar(gold, pa, pb, variant="chi2").p_value == pytest.approx(exp["mcnemar_chi2_nocorr_p"], abs=1e-12)
    assert mcnemar(gold, pa, pb, variant="chi2-corrected").p_value == pytest.approx(
        exp["mcnemar_chi2_corr_p"], abs=1e-12
    )
    key = "sign_test_exact_one_sided (binomtest greater)"
    assert sign_test(gold, pa, pb, alternative="greater").p_value == pytest.approx(exp[key], abs=1e-12)


@pytest.mark.parametrize("vid", ["mcnemar_18_33", "mcnemar_15_19"])
def test_mcnemar_tables(vid: str) -> None:
    vec = _load("paired_tests_vectors.json")[vid]
    (_, b), (c, _) = vec["inputs"]["table"]
    ref = vec["statsmodels"]
    assert mcnemar_counts(b, c, variant="chi2").statistic == pytest.approx(ref["chi2_nocorr"], abs=1e-12)
    assert mcnemar_counts(b, c, variant="chi2").p_value == pytest.approx(ref["p_nocorr"], abs=1e-12)
    assert mcnemar_counts(b, c, variant="chi2-corrected").p_value == pytest.approx(ref["p_corr"], abs=1e-12)
    assert mcnemar_counts(b, c).p_value == pytest.approx(ref["p_exact"], abs=1e-12)
    table = np.array(vec["inputs"]["table"])
    assert mcnemar_counts(b, c).p_value == pytest.approx(sm_mcnemar(table, exact=True).pvalue, abs=1e-12)


@pytest.mark.parametrize("vid", ["sign_test_9_of_12", "sign_test_15_of_20", "sign_test_3_of_3"])
def test_sign_test_vectors(vid: str) -> None:
    vec = _load("paired_tests_vectors.json")[vid]
    for alt in ALTERNATIVES:
        got = sign_test_counts(vec["inputs"]["n_positive"], vec["inputs"]["n_nonzero"], alternative=alt).p_value
        assert got == pytest.approx(vec["expected"][alt], abs=1e-12)


def test_identical_systems_p_is_one() -> None:
    """sacreBLEU gives 1/(R+1) here (anchor_behaviour_vectors: sacrebleu_self_comparison); the right answer is 1."""
    anchors = _load("anchor_behaviour_vectors.json")["sacrebleu_self_comparison"]
    assert anchors["correct_expected"]["p"] == 1.0
    rng = np.random.default_rng(0)
    labels = ["Other", "A", "B", "C"]
    gold = list(rng.choice(labels, 300))
    pred = list(rng.choice(labels, 300))
    for alt in ALTERNATIVES:
        for res in (
            paired_bootstrap(gold, pred, pred, alternative=alt, resamples=500),
            approximate_randomization(gold, pred, pred, alternative=alt, resamples=500),
        ):
            assert all(row.p_value == 1.0 and row.effect == 0.0 for row in res.rows.values()), (res.test, alt)
        assert mcnemar(gold, pred, pred, alternative=alt).p_value == 1.0
        assert sign_test(gold, pred, pred, alternative=alt).p_value == 1.0
    assert paired_bootstrap_scores([1.0, 2.0], [1.0, 2.0], resamples=100).p_value == 1.0


def test_constant_improvement_is_paired() -> None:
    """deepsig resamples A and B independently and gets p = 0.308 here; a paired bootstrap gives ≈ 0."""
    anchors = _load("anchor_behaviour_vectors.json")["deepsig_bootstrap_not_paired"]
    assert anchors["anchor_output"]["bootstrap_test(num_samples=1000, seed=1)"] == 0.308
    base = np.random.default_rng(0).normal(0, 10, 200)
    res = paired_bootstrap_scores(base + 0.5, base, alternative="greater", resamples=1000, seed=1)
    assert res.p_value == pytest.approx(1 / 1001)
    assert res.ci_effect == pytest.approx((0.5, 0.5), abs=1e-9)


def test_direction_is_consistent_across_tests() -> None:
    """One explicit alternative for every test (anchor: rtmdrr/testSignificanceNLP mixes directions)."""
    gold = ["x"] * 40
    pa = ["x"] * 36 + ["y"] * 4
    pb = ["x"] * 26 + ["y"] * 14
    for test in (paired_bootstrap, approximate_randomization):
        greater = test(gold, pa, pb, negative=None, alternative="greater", resamples=4000)
        less = test(gold, pa, pb, negative=None, alternative="less", resamples=4000)
        assert greater.p_value < 0.01 < 0.99 < less.p_value, test.__name__
    assert mcnemar(gold, pa, pb, alternative="greater").p_value < 0.01
    assert mcnemar(gold, pa, pb, alternative="less").p_value > 0.99


def test_seed_and_signature() -> None:
    gold = ["Other", "A", "B", "A", "Other", "B"] * 20
    pa = ["Other", "A", "A", "A", "B", "B"] * 20
    pb = ["A", "A", "B", "Other", "Other", "B"] * 20
    r1 = paired_bootstrap(gold, pa, pb, resamples=300)
    r2 = paired_bootstrap(gold, pa, pb, resamples=300)
    r3 = paired_bootstrap(gold, pa, pb, resamples=300, seed=99)
    assert r1.to_dict() == r2.to_dict()
    assert r1.rows["macro"].ci_effect != r3.rows["macro"].ci_effect
    assert r1.signature["seed"] == "12345" and r1.signature["resamples"] == "300"
    assert r1.signature["negative"] == "Other"
    assert r1.signature["test"] == "bootstrap:two-sided" and r1.signature["confidence"] == "0.95"


def test_per_document_counts_randomization_identical() -> None:
    tp = np.array([[1, 0], [2, 1], [0, 0]])
    fp = np.array([[0, 1], [0, 0], [1, 0]])
    fn = np.array([[1, 0], [0, 0], [0, 2]])
    res = _counts_test("randomization", (tp, fp, fn), (tp, fp, fn), resamples=200)
    assert res.p_value == 1.0
    # micro F by hand: TP 4, FP 2, FN 3 → 8 / 13
    assert res.score_a == pytest.approx(8 / 13)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("NAB"), st.sampled_from("NAB"), st.sampled_from("NAB")), min_size=3, max_size=40)
)
def test_swapping_systems_mirrors_the_test(items: list[tuple[str, str, str]]) -> None:
    gold, pa, pb = (list(x) for x in zip(*items))
    ab = approximate_randomization(gold, pa, pb, negative="N", alternative="greater", resamples=200, seed=5)
    ba = approximate_randomization(gold, pb, pa, negative="N", alternative="less", resamples=200, seed=5)
    for name in ab.rows:
        assert ab.rows[name].effect == pytest.approx(-ba.rows[name].effect, abs=1e-12)
    # with one set of draws, the two-sided p is never below the one-sided p in the observed direction
    for name, row in ab.rows.items():
        one_sided = row.p_values["greater"] if row.effect >= 0 else row.p_values["less"]
        assert row.p_values["two-sided"] >= one_sided, name
        assert 0 < row.p_value <= 1


def test_every_paired_test_name_is_registered() -> None:
    """The command line's list of test names (core.options, read without importing the tests) names exactly the
    resampling tests and the registered correctness tests, so no name falls through to another test."""
    from releval.core.options import PAIRED_TESTS, RESAMPLING_TESTS
    from releval.significance.config import SignificanceConfig
    from releval.significance.paired import CORRECTNESS_TESTS, correctness_test

    assert sorted(PAIRED_TESTS) == sorted([*RESAMPLING_TESTS, *CORRECTNESS_TESTS])
    gold, a, b = ["r"] * 6, ["r", "r", "r", "x", "x", "r"], ["x", "x", "x", "r", "x", "r"]
    config = SignificanceConfig(("sign",))
    # only A right on 3 items, only B on 1: two-sided exact binomial p = 2 * P(X >= 3 | n = 4) = 2 * 5/16
    assert correctness_test("sign", gold, a, b, config).p_value == pytest.approx(10 / 16)
    with pytest.raises(KeyError, match="not a correctness test"):
        correctness_test("bootstrap", gold, a, b, config)
