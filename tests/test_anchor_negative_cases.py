"""The remaining negative cases of anchor_behaviour_vectors.json: releval returns `correct_expected`."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tests.conftest import data_path

from releval.replicability.analysis import identify, k_estimate, partial_conjunction_pvalues, running_max
from releval.significance.paired import approximate_randomization, mcnemar, paired_bootstrap, sign_test


def _case(case_id: str) -> dict:
    vectors = json.loads(data_path("testvectors", "anchor_behaviour_vectors.json").read_text())["vectors"]
    return next(v for v in vectors if v["id"] == case_id)


def test_holm_adjusted_values_stay_in_input_order() -> None:
    """deepsig un-sorts with the sort permutation instead of its inverse and skips the running max."""
    case = _case("deepsig_bonferroni_correction_order")
    expected = case["correct_expected"]["holm_adjusted_in_input_order (running max)"]
    got = identify(case["inputs"]["p_values"], method="holm").adjusted
    np.testing.assert_allclose(got, expected, atol=1e-12)
    assert got.tolist() != case["anchor_output"]


def test_p_value_of_one_is_not_special() -> None:
    """A p-value of exactly 1 must enter the partial conjunction like any other (k_B = k_F = 1 here)."""
    case = _case("gbaumer_R_p_equal_1_special_case")
    p, alpha = case["inputs"]["p_values"], case["inputs"]["alpha"]
    exp = case["correct_expected"]
    assert k_estimate(p, alpha, "bonferroni") == exp["k_B"] == 1
    assert k_estimate(p, alpha, "fisher") == exp["k_F"] == 1
    assert running_max(partial_conjunction_pvalues(p, "bonferroni"))[0] == pytest.approx(exp["p^{1/2}_Bonf"])
    assert partial_conjunction_pvalues(p, "fisher")[0] == pytest.approx(exp["p^{1/2}_Fisher"], abs=5e-5)


def test_every_test_uses_one_explicit_direction() -> None:
    """testSignificanceNLP's tests disagree on the direction; here 'greater' means A > B for every test."""
    _case("dror_testSignificance_direction_inconsistency")
    rng = np.random.default_rng(7)
    labels = np.array(["Other", "r1", "r2", "r3"])
    gold = rng.choice(labels, 800)
    better = np.where(rng.random(800) < 0.8, gold, rng.choice(labels, 800))  # A: 80 % kept right
    worse = np.where(rng.random(800) < 0.6, gold, rng.choice(labels, 800))  # B: 60 % kept right
    a, b, g = list(better), list(worse), list(gold)
    tests = (
        lambda alt: paired_bootstrap(g, a, b, alternative=alt, resamples=2000).p_value,
        lambda alt: approximate_randomization(g, a, b, alternative=alt, resamples=2000).p_value,
        lambda alt: mcnemar(g, a, b, alternative=alt).p_value,
        lambda alt: sign_test(g, a, b, alternative=alt).p_value,
    )
    for run in tests:
        assert run("greater") < 0.01
        assert run("less") > 0.99
    assert paired_bootstrap(g, a, b, alternative="greater", resamples=2000).effect > 0
