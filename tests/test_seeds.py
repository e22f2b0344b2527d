"""Seed comparisons: Welch's t (SciPy), Cohen's d (Harbecke Eq. 4), Hedges' g, Sawilowsky labels vs test vectors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from tests.conftest import data_path

from releval.core.errors import InputError
from releval.significance.seeds import cohen_d_harbecke, compare_seeds, sawilowsky_label, welch_df

VECTORS = data_path("testvectors", "seed_comparison_vectors.json")


def _vectors() -> dict:
    return json.loads(VECTORS.read_text())


def test_seed_vectors() -> None:
    for vec in _vectors()["vectors"]:
        a, b, exp = vec["inputs"]["a"], vec["inputs"]["b"], vec["expected"]
        res = compare_seeds(a, b)
        assert res.t == pytest.approx(exp["welch_t"], abs=1e-12), vec["id"]
        assert res.df == pytest.approx(exp["welch_df"], rel=1e-12), vec["id"]
        assert res.p_value == pytest.approx(exp["welch_p_two_sided"], abs=1e-12), vec["id"]
        assert compare_seeds(a, b, "greater").p_value == pytest.approx(exp["welch_p_greater"], abs=1e-12)
        assert res.cohen_d == pytest.approx(exp["cohen_d_avg_variance"], abs=1e-12), vec["id"]
        assert res.cohen_d_pooled == pytest.approx(exp["cohen_d_pooled_sd"], abs=1e-12), vec["id"]
        assert res.hedges_g == pytest.approx(exp["hedges_g (J=1-3/(4(n1+n2)-9))"], abs=1e-12), vec["id"]
        assert res.label == exp["sawilowsky_label_of_pooled_d"], vec["id"]


def test_sawilowsky_vectors() -> None:
    for case in _vectors()["sawilowsky_labels"]:
        assert sawilowsky_label(case["d"]) == case["label"], case


def test_harbecke_eq4_by_hand() -> None:
    # √2 · (72.5 − 71.5) / √(0.3² + 0.4²) = √2 / 0.5
    assert cohen_d_harbecke(72.5, 0.3, 71.5, 0.4) == pytest.approx(math.sqrt(2) / 0.5, abs=1e-12)


def test_too_few_runs_is_an_input_error() -> None:
    with pytest.raises(InputError, match="at least 2 runs"):
        compare_seeds([0.7], [0.6, 0.5])


def test_zero_variance_runs() -> None:
    assert compare_seeds([0.5, 0.5], [0.5, 0.5]).p_value == 1.0
    # both constant, different means: t = ±inf, p = 0 would be a "huge" significant effect; refused (R's t.test too)
    with pytest.raises(InputError, match="do not exist"):
        compare_seeds([0.6, 0.6], [0.5, 0.5])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 100, allow_nan=False), min_size=2, max_size=8),
    st.lists(st.floats(0, 100, allow_nan=False), min_size=2, max_size=8),
)
def test_matches_scipy_and_is_antisymmetric(a: list[float], b: list[float]) -> None:
    if np.std(a) < 1e-6 or np.std(b) < 1e-6:
        return
    ab, ba = compare_seeds(a, b), compare_seeds(b, a)
    ref = stats.ttest_ind(a, b, equal_var=False)
    assert ab.t == pytest.approx(float(ref.statistic), rel=1e-9, abs=1e-9)
    assert ab.df == pytest.approx(float(ref.df), rel=1e-9)
    assert ab.cohen_d == pytest.approx(-ba.cohen_d, abs=1e-9)
    assert ab.p_value == pytest.approx(ba.p_value, abs=1e-12)
    assert welch_df(np.std(a, ddof=1), len(a), np.std(b, ddof=1), len(b)) == pytest.approx(float(ref.df), rel=1e-9)
