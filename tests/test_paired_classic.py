"""Paired t and Wilcoxon signed-rank against R's published values in paired_tests_vectors.json."""

from __future__ import annotations

import json

import pytest
from tests.conftest import data_path

from releval.significance.paired_classic import paired_t, wilcoxon_signed_rank


def _vector(vid: str) -> dict:
    vectors = json.loads(data_path("testvectors", "paired_tests_vectors.json").read_text())["vectors"]
    return next(v for v in vectors if v["id"] == vid)


def test_paired_t_sleep() -> None:
    vec = _vector("R_sleep_paired_t")
    res = paired_t(vec["inputs"]["a"], vec["inputs"]["b"])
    exp = vec["expected"]
    assert res.statistic == pytest.approx(exp["t"], abs=1e-4)
    assert res.df == exp["df"] and res.mean_diff == pytest.approx(exp["mean_diff"])
    assert res.p_value == pytest.approx(exp["p"], abs=1e-6)
    assert res.ci == pytest.approx(tuple(exp["ci95"]), abs=1e-6)


def test_wilcoxon_exact_greater() -> None:
    vec = _vector("R_wilcox_depression_greater")
    res = wilcoxon_signed_rank(vec["inputs"]["a"], vec["inputs"]["b"], alternative="greater")
    assert res.statistic == vec["expected"]["V_Wplus"]
    assert res.p_value == pytest.approx(vec["expected"]["p"], abs=1e-12)


def test_wilcoxon_asymptotic_with_and_without_correction() -> None:
    vec = _vector("R_wilcox_correction_asymptotic")
    a, b = vec["inputs"]["a"], vec["inputs"]["b"]
    plain = wilcoxon_signed_rank(a, b, method="asymptotic")
    corrected = wilcoxon_signed_rank(a, b, method="asymptotic", correction=True)
    assert min(plain.statistic, sum(range(1, 13)) - plain.statistic) == vec["expected"]["statistic_min"]
    assert plain.p_value == pytest.approx(vec["expected"]["p_no_correction"], abs=1e-9)
    assert corrected.p_value == pytest.approx(vec["expected"]["p_continuity_correction"], abs=1e-9)


def test_wilcoxon_one_sided_with_ties_and_zeros() -> None:
    vec = _vector("R_wilcox_onesided_ties_zero")
    a, b = vec["inputs"]["a"], vec["inputs"]["b"]
    exp = vec["expected"]
    for alt in ("less", "greater"):
        res = wilcoxon_signed_rank(a, b, alternative=alt, method="asymptotic")
        assert res.statistic == exp["W"]
        assert res.p_value == pytest.approx(exp[f"{alt}_nocorr"], abs=1e-9)
        res = wilcoxon_signed_rank(a, b, alternative=alt, method="asymptotic", correction=True)
        assert res.p_value == pytest.approx(exp[f"{alt}_corr"], abs=1e-9)


def test_wilcoxon_exact_p_values() -> None:
    vec = _vector("R_wilcox_exact_pvals")
    a, b = vec["inputs"]["a"], vec["inputs"]["b"]
    for alt in ("two-sided", "less", "greater"):
        res = wilcoxon_signed_rank(a, b, alternative=alt, method="exact")
        assert res.p_value == pytest.approx(vec["expected"][alt], abs=1e-9)


def test_identical_samples_and_bad_input() -> None:
    with pytest.raises(ValueError, match="equal-length"):
        paired_t([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="alternative must be"):
        wilcoxon_signed_rank([1.0, 2.0, 3.0], [0.0, 1.0, 1.0], alternative="bigger")


def test_welch_sleep_matches_r() -> None:
    """The seed comparison's Welch test on R's sleep data (t.test(var.equal = FALSE))."""
    from releval.significance.seeds import compare_seeds

    vec = _vector("R_sleep_welch_t")
    res = compare_seeds(vec["inputs"]["a"], vec["inputs"]["b"])
    assert res.t == pytest.approx(vec["expected"]["t"], abs=1e-4)
    assert res.df == pytest.approx(vec["expected"]["df"], abs=1e-3)
    assert res.p_value == pytest.approx(vec["expected"]["p"], abs=1e-5)
