"""Identification procedures (statsmodels' multipletests behind releval.replicability.analysis.identify) against
tests/data/testvectors/multitest_vectors.json: R multtest / p.adjust values and the TACL 2017 p-values."""

from __future__ import annotations

import json

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests
from tests.conftest import data_path

from releval.core.errors import InputError
from releval.replicability.analysis import identify, normalise_id_method, partial_conjunction_pvalues, running_max

VECTORS = data_path("testvectors", "multitest_vectors.json")
TSBH = "fdr_tsbh_at_alpha_0.05"


def _cases(column: str | None = None) -> list:
    cases = json.loads(VECTORS.read_text())["vectors"]
    return [pytest.param(c, id=c["id"]) for c in cases if column is None or column in c["expected_adjusted"]]


@pytest.mark.parametrize("case", _cases())
def test_adjusted_pvalues_and_rejections(case: dict) -> None:
    p = case["inputs"]["p_values"]
    alpha = case["inputs"]["alpha"]
    for method, expected in case["expected_adjusted"].items():
        if method == TSBH:
            continue  # alpha-dependent two-stage adjustment: see the dedicated test below
        result = identify(p, alpha, method)
        np.testing.assert_allclose(result.adjusted, expected, rtol=0, atol=1e-12, err_msg=method)
    for method, expected in case["expected_reject_at_alpha"].items():
        assert identify(p, alpha, method).rejected.tolist() == expected, method


@pytest.mark.parametrize("case", _cases(TSBH))
def test_two_stage_bh(case: dict) -> None:
    """Two-stage BH (Benjamini, Krieger & Yekutieli 2006) at alpha = 0.05, where the vectors give it."""
    expected = case["expected_adjusted"][TSBH]
    p = case["inputs"]["p_values"]
    result = identify(p, 0.05, "fdr_tsbh")
    assert result.rejected.tolist() == multipletests(p, 0.05, method="fdr_tsbh")[0].tolist()
    if case["id"] == "statsmodels_res_multtest2":
        # every hypothesis is rejected; R multtest reports adjusted 0 there, statsmodels (and we) keep BH's 0.012
        assert result.rejected.all() and np.allclose(result.adjusted, 0.012, atol=1e-12)
    else:
        np.testing.assert_allclose(result.adjusted, expected, rtol=0, atol=1e-12)


def test_holm_adjusted_equals_running_max_bonferroni_partial_conjunction() -> None:
    """Dror §4.3 / statistics.md §2.7: Holm's adjusted p-values are the running-max Bonferroni PC p-values."""
    p = [0.0979, 0.1662, 0.0046, 0.0376, 0.0969, 0.0912, 0.0823]  # Dror Table 2, Mate vs Redshift
    holm = identify(p, 0.05, "holm").adjusted
    pc = running_max(partial_conjunction_pvalues(p, "bonferroni"))
    np.testing.assert_array_equal(np.sort(holm), pc)
    assert holm.tolist() == pytest.approx([0.4115, 0.4115, 0.0322, 0.2256, 0.4115, 0.4115, 0.4115], abs=1e-12)


def test_input_order_is_preserved() -> None:
    """statistics.md §4.3: deepsig returns Bonferroni values in the wrong order for unsorted input."""
    r = identify([0.04, 0.001, 0.3, 0.02], 0.05, "bonferroni")
    assert r.adjusted.tolist() == pytest.approx([0.16, 0.004, 1.0, 0.08])
    assert r.indices == [1]


@pytest.mark.parametrize(
    ("alias", "name"),
    [("simes-hochberg", "hochberg"), ("BH", "fdr_bh"), ("Holm", "holm"), ("holm-sidak", "holm_sidak")],
)
def test_method_aliases(alias: str, name: str) -> None:
    assert normalise_id_method(alias) == name


def test_unknown_method() -> None:
    with pytest.raises(InputError, match="method: unknown identification method 'hs'"):
        identify([0.01, 0.2], method="hs")  # statsmodels' default Holm-Sidak shorthand is deliberately not accepted
