"""Comparing two systems over random seeds: Welch's t-test, Cohen's d (Harbecke et al. 2022, Eq. 4), Hedges' g.

Definitions (statistics notes §2.6): Welch t = (x̄₁ − x̄₂)/√(s₁²/n₁ + s₂²/n₂) with the Welch–Satterthwaite df,
computed by ``scipy.stats.ttest_ind(equal_var=False)``; Cohen's d as Harbecke Eq. 4, d = √2 (μ₁ − μ₂)/√(σ₁² + σ₂²)
with sample variances (the "average variance" form, equal to the pooled-SD form when n₁ = n₂); Hedges' g =
d_pooled · (1 − 3/(4(n₁+n₂) − 9)); Sawilowsky (2009) descriptors, binned by the largest threshold ≤ |d|.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from releval.errors import InputError
from releval.validation import check_choice

#: Sawilowsky (2009) rules of thumb, as (threshold, label), ascending.
SAWILOWSKY = (
    (0.01, "very small"),
    (0.2, "small"),
    (0.5, "medium"),
    (0.8, "large"),
    (1.2, "very large"),
    (2.0, "huge"),
)
NEGLIGIBLE = "negligible (<0.01; below Sawilowsky's smallest descriptor)"
ALTERNATIVES = ("two-sided", "greater", "less")


def sawilowsky_label(d: float) -> str:
    """Sawilowsky's descriptor of |d|: the largest threshold ≤ |d| (below 0.01: negligible)."""
    size = abs(float(d))
    label = NEGLIGIBLE
    for threshold, name in SAWILOWSKY:
        if size >= threshold:
            label = name
    return label


def welch_df(s1: ArrayLike, n1: int, s2: ArrayLike, n2: int) -> Any:
    """Welch–Satterthwaite degrees of freedom from sample SDs and sizes (scalars or arrays; nan if both SDs are 0)."""
    v1 = np.asarray(s1, dtype=np.float64) ** 2 / n1
    v2 = np.asarray(s2, dtype=np.float64) ** 2 / n2
    den = v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(den > 0, (v1 + v2) ** 2 / np.where(den > 0, den, 1.0), np.nan)
    return float(df) if df.ndim == 0 else df


def welch_from_stats(
    m1: float, s1: float, n1: int, m2: float, s2: float, n2: int, alternative: str = "two-sided"
) -> tuple[float, float, float]:
    """(t, df, p) of Welch's test from means, sample SDs and sizes (``scipy.stats.ttest_ind_from_stats``)."""
    res = stats.ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=False, alternative=alternative)
    return float(res.statistic), welch_df(s1, n1, s2, n2), float(res.pvalue)


def cohen_d_harbecke(m1: float, s1: float, m2: float, s2: float) -> float:
    """Harbecke et al. (2022) Eq. 4: d = √2 (μ₁ − μ₂)/√(σ₁² + σ₂²)."""
    den = math.sqrt(s1 * s1 + s2 * s2)
    diff = m1 - m2
    if den == 0:
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)
    return math.sqrt(2.0) * diff / den


def cohen_d_pooled(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int) -> float:
    """Cohen's d with the pooled SD √(((n₁−1)s₁² + (n₂−1)s₂²)/(n₁+n₂−2))."""
    pooled = math.sqrt(((n1 - 1) * s1 * s1 + (n2 - 1) * s2 * s2) / (n1 + n2 - 2))
    diff = m1 - m2
    if pooled == 0:
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)
    return diff / pooled


def hedges_correction(n1: int, n2: int) -> float:
    """Hedges' small-sample factor J = 1 − 3/(4(n₁+n₂) − 9)."""
    return 1.0 - 3.0 / (4.0 * (n1 + n2) - 9.0)


@dataclass(frozen=True)
class SeedComparison:
    """Mean ± sample SD of each system over seeds, Welch's test and the effect sizes (A − B)."""

    mean_a: float
    sd_a: float
    n_a: int
    mean_b: float
    sd_b: float
    n_b: int
    t: float
    df: float
    p_value: float
    alternative: str
    cohen_d: float
    cohen_d_pooled: float
    hedges_g: float
    label: str

    @property
    def effect(self) -> float:
        """Difference of means, A − B."""
        return self.mean_a - self.mean_b

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "effect": self.effect}


def _as_runs(values: ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64).ravel()
    if arr.size < 2:
        raise InputError(f"needs at least 2 runs (seeds) to compare, got {arr.size}", field=name)
    if not np.all(np.isfinite(arr)):
        raise InputError("scores must be finite numbers", field=name)
    return arr


def compare_seeds(a: ArrayLike, b: ArrayLike, alternative: str = "two-sided") -> SeedComparison:
    """Welch's t-test (SciPy, Welch–Satterthwaite df) and Cohen's d (Eq. 4) / Hedges' g of runs a vs runs b."""
    check_choice(alternative, ALTERNATIVES, "--alternative")
    x, y = _as_runs(a, "a"), _as_runs(b, "b")
    m1, m2 = float(x.mean()), float(y.mean())
    s1, s2 = float(x.std(ddof=1)), float(y.std(ddof=1))
    n1, n2 = int(x.size), int(y.size)
    if s1 == 0 and s2 == 0:
        # SciPy returns nan here; the test is degenerate: equal means → p = 1, different → p = 0.
        t = 0.0 if m1 == m2 else math.copysign(math.inf, m1 - m2)
        p = _degenerate_p(m1 - m2, alternative)
        df = float("nan")
    else:
        res = stats.ttest_ind(x, y, equal_var=False, alternative=alternative)
        t, p, df = float(res.statistic), float(res.pvalue), welch_df(s1, n1, s2, n2)
        if not math.isclose(df, float(res.df), rel_tol=1e-9):  # our formula must agree with SciPy's
            raise AssertionError(f"Welch df mismatch: {df} vs SciPy {float(res.df)}")
    d = cohen_d_harbecke(m1, s1, m2, s2)
    d_pooled = cohen_d_pooled(m1, s1, n1, m2, s2, n2)
    return SeedComparison(
        mean_a=m1,
        sd_a=s1,
        n_a=n1,
        mean_b=m2,
        sd_b=s2,
        n_b=n2,
        t=t,
        df=df,
        p_value=p,
        alternative=alternative,
        cohen_d=d,
        cohen_d_pooled=d_pooled,
        hedges_g=d_pooled * hedges_correction(n1, n2),
        label=sawilowsky_label(d),
    )


def _degenerate_p(diff: float, alternative: str) -> float:
    if diff == 0:
        return 1.0 if alternative == "two-sided" else 0.5
    if alternative == "two-sided":
        return 0.0
    return 0.0 if (diff > 0) == (alternative == "greater") else 1.0


def compare_seed_tables(
    scores_a: Mapping[str, Sequence[float]],
    scores_b: Mapping[str, Sequence[float]],
    alternative: str = "two-sided",
) -> dict[str, SeedComparison]:
    """Per average (micro, weighted, …): `compare_seeds` of the runs of A and B under that average."""
    missing = [k for k in scores_a if k not in scores_b]
    if missing:
        raise InputError(f"averages missing for system B: {', '.join(missing)}")
    return {name: compare_seeds(scores_a[name], scores_b[name], alternative) for name in scores_a}
