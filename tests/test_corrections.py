"""Multiple-testing corrections (releval.significance.corrections): R's p.adjust / multtest vectors, statsmodels'
multipletests, cases worked by hand, and the invariants every correction keeps (Hypothesis).

The R vectors are bundled (tests/data/testvectors/multitest_vectors.json, the same file as
../shared/testvectors/multitest_vectors.json), so these tests never need ../shared.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests
from tests.conftest import data_path

from releval.core.errors import OptionError
from releval.core.options import CORRECTIONS
from releval.replicability.analysis import ID_GUARANTEE, identify, normalise_id_method
from releval.significance import corrections
from releval.significance.compare import adjust
from releval.significance.corrections import (
    ADJUSTMENTS,
    adjust_pvalues,
    bonferroni,
    fdr_bh,
    fdr_by,
    fdr_tsbh,
    hochberg,
    holm,
    holm_sidak,
    hommel,
    sidak,
)

VECTORS = json.loads(data_path("testvectors", "multitest_vectors.json").read_text(encoding="utf-8"))["vectors"]
TSBH = "fdr_tsbh_at_alpha_0.05"
#: Our names that statsmodels spells differently.
SM_NAME = {"hochberg": "simes-hochberg", "holm_sidak": "holm-sidak"}


def statsmodels_adjusted(p: list[float] | np.ndarray, method: str, alpha: float = 0.05) -> np.ndarray:
    """statsmodels' adjusted p-values. Its Holm calls gc.collect() on every call (~0.1 s under pytest), which is
    made a no-op for the call; its Sidak takes log1p(-1) for p = 1, which warns."""
    collect = gc.collect
    gc.collect = lambda *args: 0  # type: ignore[assignment]
    try:
        with np.errstate(divide="ignore"):
            result = multipletests(np.asarray(p, dtype=float), alpha=alpha, method=SM_NAME.get(method, method))
    finally:
        gc.collect = collect
    return np.asarray(result[1])


# ------------------------------------------------------------------------------------------------ R vectors


def _vector_cases() -> list:
    return [
        pytest.param(case, method, id=f"{case['id']}-{method}")
        for case in VECTORS
        for method in case["expected_adjusted"]
        if method != TSBH
    ]


@pytest.mark.parametrize(("case", "method"), _vector_cases())
def test_adjusted_pvalues_equal_the_r_vectors(case: dict, method: str) -> None:
    p, alpha = case["inputs"]["p_values"], case["inputs"]["alpha"]
    adjusted = ADJUSTMENTS[method](p, alpha)
    np.testing.assert_allclose(adjusted, case["expected_adjusted"][method], rtol=0, atol=1e-12)
    if method in case["expected_reject_at_alpha"]:
        assert (adjusted <= alpha).tolist() == case["expected_reject_at_alpha"][method]


def test_every_correction_has_an_r_vector() -> None:
    covered = {method for case in VECTORS for method in case["expected_adjusted"]}
    assert set(ADJUSTMENTS) - {"fdr_tsbh"} <= covered
    assert TSBH in covered


@pytest.mark.parametrize("case", [c for c in VECTORS if TSBH in c["expected_adjusted"]], ids=lambda c: c["id"])
def test_two_stage_bh_equals_the_vectors(case: dict) -> None:
    p = case["inputs"]["p_values"]
    adjusted = fdr_tsbh(p, 0.05)
    if case["id"] == "statsmodels_res_multtest2":
        # every hypothesis is rejected at the first stage: R multtest reports 0, we keep BH's values (0.012 each),
        # as statsmodels does, rather than scale them by n0 / n = 0
        assert adjusted.tolist() == pytest.approx([0.012] * 6, abs=1e-12)
        assert fdr_bh(p).tolist() == pytest.approx([0.012] * 6, abs=1e-12)
    else:
        np.testing.assert_allclose(adjusted, case["expected_adjusted"][TSBH], rtol=0, atol=1e-12)


def test_hommel_blocks_give_the_same_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hommel's matrix is evaluated in blocks of subset sizes; the size of the blocks changes nothing."""
    case = next(c for c in VECTORS if c["id"] == "statsmodels_hommel_vs_R_p_adjust")
    p = case["inputs"]["p_values"]
    whole = hommel(p)
    for rows in (1, 2, 7, 39, 40):  # 40 p-values: subset sizes 2..40
        monkeypatch.setattr(corrections, "_HOMMEL_ROWS", rows)
        np.testing.assert_array_equal(hommel(p), whole)
    monkeypatch.setattr(corrections, "_HOMMEL_CELLS", 100)  # at most 100 // 40 = 2 rows at once
    np.testing.assert_array_equal(hommel(p), whole)
    np.testing.assert_allclose(whole, case["expected_adjusted"]["hommel"], rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------------------------ statsmodels


pvalue = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 1e-300, 0.01, 0.05, 0.5]))
pvalue_lists = st.lists(pvalue, min_size=1, max_size=40)
alphas = st.sampled_from([0.001, 0.05, 0.1, 0.5])


@settings(max_examples=150, deadline=None)
@given(p=pvalue_lists, alpha=alphas)
def test_every_correction_equals_statsmodels(p: list[float], alpha: float) -> None:
    for method, correction in ADJUSTMENTS.items():
        np.testing.assert_allclose(
            correction(p, alpha), statsmodels_adjusted(p, method, alpha), rtol=0, atol=1e-12, err_msg=method
        )


@pytest.mark.parametrize("method", list(ADJUSTMENTS))
def test_many_pvalues_equal_statsmodels(method: str) -> None:
    """1,500 p-values in random order, a third of them rounded to 2 digits (ties): a size where an off-by-one in
    the ranks, the cumulative extremes or the unsort would show."""
    rng = np.random.default_rng(13)
    p = np.concatenate([rng.uniform(size=500) ** 3, np.round(rng.uniform(size=500), 2), rng.beta(0.5, 5, size=500)])
    rng.shuffle(p)
    np.testing.assert_allclose(ADJUSTMENTS[method](p, 0.05), statsmodels_adjusted(p, method), rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------------------------ by hand

HAND = [0.01, 0.04, 0.03]  # sorted: 0.01 (input #1), 0.03 (#3), 0.04 (#2); n = 3


def test_holm_by_hand() -> None:
    # 3 × 0.01 = 0.03, 2 × 0.03 = 0.06, 1 × 0.04 = 0.04; the running maximum lifts the last to 0.06
    assert holm(HAND).tolist() == pytest.approx([0.03, 0.06, 0.06], abs=1e-15)


def test_bonferroni_and_sidak_by_hand() -> None:
    assert bonferroni(HAND).tolist() == pytest.approx([0.03, 0.12, 0.09], abs=1e-15)
    assert bonferroni([0.2, 0.5, 0.9]).tolist() == [0.6000000000000001, 1.0, 1.0]  # capped at 1
    assert sidak(HAND).tolist() == pytest.approx([1 - 0.99**3, 1 - 0.96**3, 1 - 0.97**3], abs=1e-15)
    assert sidak([1e-20, 1e-20]).tolist() == [2e-20, 2e-20]  # 1 - (1 - p)^2 would give 0
    assert sidak([0.25]).tolist() == [0.25]  # -expm1(log1p(-0.25)) is 0.2499…: never below the raw p


def test_holm_sidak_by_hand() -> None:
    # 1 - 0.99^3 = 0.029701, 1 - 0.97^2 = 0.0591, 1 - 0.96^1 = 0.04 -> running max 0.029701, 0.0591, 0.0591
    assert holm_sidak(HAND).tolist() == pytest.approx([0.029701, 0.0591, 0.0591], abs=1e-15)


def test_hochberg_by_hand() -> None:
    # raw (n - i + 1) p_(i): 0.03, 0.06, 0.04; the running minimum from the top: 0.03, 0.04, 0.04
    assert hochberg(HAND).tolist() == pytest.approx([0.03, 0.04, 0.04], abs=1e-15)
    # p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "hochberg"): 5 × 0.01 and 1 × 0.05 are both 0.05
    assert hochberg([0.01, 0.02, 0.03, 0.04, 0.05]).tolist() == pytest.approx([0.05] * 5, abs=1e-15)


def test_benjamini_hochberg_and_yekutieli_by_hand() -> None:
    # n p_(i) / i: 0.03, 0.045, 0.04; the running minimum from the top: 0.03, 0.04, 0.04
    assert fdr_bh(HAND).tolist() == pytest.approx([0.03, 0.04, 0.04], abs=1e-15)
    # BY multiplies by 1 + 1/2 + 1/3 = 11/6
    assert fdr_by(HAND).tolist() == pytest.approx([0.03 * 11 / 6, 0.04 * 11 / 6, 0.04 * 11 / 6], abs=1e-15)


def test_hommel_by_hand() -> None:
    # Simes over the m largest of 0.01, 0.02, 0.03, 0.05: c_4 = min(0.04, 0.04, 0.04, 0.05) = 0.04,
    # c_3 = min(0.06, 0.045, 0.05) = 0.045, c_2 = min(0.06, 0.05) = 0.05, c_1 = 0.05.
    # p_(2) = 0.02: max(c_4, c_3, min(2 × 0.02, c_2), 0.02) = 0.045; p_(1): max(0.04, min(0.03, 0.045), 0.02, 0.01)
    assert hommel([0.01, 0.02, 0.03, 0.05]).tolist() == pytest.approx([0.04, 0.045, 0.05, 0.05], abs=1e-15)
    assert hochberg([0.01, 0.02, 0.03, 0.05]).tolist() == pytest.approx([0.04, 0.05, 0.05, 0.05], abs=1e-15)


def test_two_stage_bh_by_hand() -> None:
    p = [0.01, 0.02, 0.5, 0.9]
    # BH: 4 × 0.01 = 0.04, 4 × 0.02 / 2 = 0.04, 4 × 0.5 / 3, 0.9. At alpha 0.05, r = 2: n0 / n = 2 / 4
    assert fdr_tsbh(p, 0.05).tolist() == pytest.approx([0.02, 0.02, 1 / 3, 0.45], abs=1e-15)
    # no first-stage rejection (alpha 0.01) or all of them (alpha 0.95): BH's values as they are
    assert fdr_tsbh(p, 0.01).tolist() == pytest.approx([0.04, 0.04, 2 / 3, 0.9], abs=1e-15)
    assert fdr_tsbh(p, 0.95).tolist() == pytest.approx([0.04, 0.04, 2 / 3, 0.9], abs=1e-15)
    # the only correction whose adjusted p can fall below the raw one (0.45 < 0.9)
    assert fdr_tsbh(p, 0.05)[3] < p[3]


def test_one_and_no_pvalue() -> None:
    for method, correction in ADJUSTMENTS.items():
        assert correction([0.3], 0.05).tolist() == [0.3], method
        assert correction([], 0.05).tolist() == [], method


def test_zeros_and_ones() -> None:
    for method, correction in ADJUSTMENTS.items():
        if method != "fdr_tsbh":
            assert correction([0.0, 1.0, 0.0], 0.05).tolist() == [0.0, 1.0, 0.0], method
    # two first-stage rejections of three: the 1 is scaled by n0 / n = 1/3, as statsmodels does
    assert fdr_tsbh([0.0, 1.0, 0.0], 0.05).tolist() == [0.0, 1 / 3, 0.0]
    assert statsmodels_adjusted([0.0, 1.0, 0.0], "fdr_tsbh").tolist() == [0.0, 1 / 3, 0.0]


@pytest.mark.parametrize("bad", [[0.1, float("nan")], [0.1, -0.01], [1.5], [[0.1, 0.2]]])
def test_refuses_what_is_not_a_pvalue(bad: list) -> None:
    with pytest.raises(OptionError, match="pvalues: "):
        holm(bad)


def test_unknown_method_names_the_choices() -> None:
    with pytest.raises(OptionError, match="unknown correction 'simes'; choose from holm, bonferroni, hochberg"):
        adjust_pvalues([0.1], "simes")
    assert adjust_pvalues([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06], abs=1e-15)  # Holm


# ------------------------------------------------------------------------------------------------ the callers


def test_the_callers_name_the_registry() -> None:
    """replicability accepts every registered correction, compare a subset; the names live in one place."""
    assert list(ID_GUARANTEE) == list(ADJUSTMENTS)
    assert [normalise_id_method(name) for name in ADJUSTMENTS] == list(ADJUSTMENTS)
    assert set(CORRECTIONS) - {"none"} <= set(ADJUSTMENTS)
    with pytest.raises(OptionError, match="choose from holm, bonferroni, hochberg, hommel, fdr_bh, fdr_by, sidak"):
        normalise_id_method("hs")


@pytest.mark.parametrize("method", list(ADJUSTMENTS))
def test_identify_uses_the_registry(method: str) -> None:
    p = [0.0979, 0.1662, 0.0046, 0.0376, 0.0969, 0.0912, 0.0823]  # Dror et al. 2017, Table 2, Mate vs Redshift
    result = identify(p, 0.05, method)
    np.testing.assert_array_equal(result.adjusted, ADJUSTMENTS[method](p, 0.05))
    assert result.rejected.tolist() == (result.adjusted <= 0.05).tolist()


def test_identify_holm_on_dror_table_2() -> None:
    p = [0.0979, 0.1662, 0.0046, 0.0376, 0.0969, 0.0912, 0.0823]
    assert identify(p, 0.05, "holm").adjusted.tolist() == pytest.approx(
        [0.4115, 0.4115, 0.0322, 0.2256, 0.4115, 0.4115, 0.4115], abs=1e-12
    )


def test_compare_adjust() -> None:
    assert adjust(HAND, "holm") == pytest.approx([0.03, 0.06, 0.06], abs=1e-15)
    assert adjust(HAND, "bonferroni") == pytest.approx([0.03, 0.12, 0.09], abs=1e-15)
    assert adjust(HAND, "none") == HAND
    assert adjust([], "holm") == []
    with pytest.raises(OptionError, match="correction"):
        adjust(HAND, "fdr_bh")  # not offered by compare


def test_no_statsmodels_at_run_time() -> None:
    """Adjusting p-values, in compare and in the replicability analysis, never imports statsmodels."""
    code = (
        "import sys; from releval.significance.compare import adjust; from releval.replicability.analysis import "
        "identify; adjust([0.01, 0.2], 'holm'); [identify([0.01, 0.2, 0.03], 0.05, m) for m in "
        "('holm', 'hommel', 'fdr_tsbh')]; print(sorted(m for m in ('statsmodels', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ------------------------------------------------------------------------------------------------ invariants


@settings(max_examples=200, deadline=None)
@given(p=pvalue_lists, alpha=alphas, seed=st.integers(0, 2**32 - 1))
def test_invariants(p: list[float], alpha: float, seed: int) -> None:
    raw = np.asarray(p)
    ordered = np.sort(raw)
    perm = np.random.default_rng(seed).permutation(raw.size)
    for method, correction in ADJUSTMENTS.items():
        adjusted = correction(raw, alpha)
        assert adjusted.shape == raw.shape, method
        assert np.all((adjusted >= 0.0) & (adjusted <= 1.0)), method
        if method != "fdr_tsbh":  # it scales BH down by n0 / n (see the hand-worked case)
            assert np.all(adjusted >= raw), method
        # monotone: the adjusted values of the sorted p-values never decrease
        assert np.all(np.diff(correction(ordered, alpha)) >= 0.0), method
        # permutation equivariant, exactly (ties get equal values whatever their order)
        np.testing.assert_array_equal(correction(raw[perm], alpha), adjusted[perm], err_msg=method)


@settings(max_examples=200, deadline=None)
@given(p=pvalue_lists)
def test_how_the_corrections_order(p: list[float]) -> None:
    """Known dominance: Bonferroni >= Holm >= Hochberg >= Hommel, Holm >= Holm-Šidák, Bonferroni >= Šidák,
    Hochberg >= BH, and BY = BH × c(n) up to the cap."""
    slack = 1e-15  # the two sides of some comparisons round differently
    bonf, hlm, hoch, homm = bonferroni(p), holm(p), hochberg(p), hommel(p)
    assert np.all(bonf >= hlm) and np.all(hlm >= hoch) and np.all(hoch >= homm - slack)
    assert np.all(hlm >= holm_sidak(p) - slack) and np.all(bonf >= sidak(p) - slack)
    bh = fdr_bh(p)
    assert np.all(hoch >= bh - slack)
    c = sum(1.0 / k for k in range(1, len(p) + 1))
    np.testing.assert_allclose(fdr_by(p), np.minimum(1.0, bh * c), rtol=1e-14, atol=0)
