"""Comparing two systems over random seeds: Welch's t-test, Cohen's d (Harbecke et al. 2022, Eq. 4), Hedges' g.

Definitions (statistics notes §2.6): Welch t = (x̄₁ − x̄₂)/√(s₁²/n₁ + s₂²/n₂) with the Welch–Satterthwaite df,
computed by ``scipy.stats.ttest_ind(equal_var=False)``; Cohen's d as Harbecke Eq. 4, d = √2 (μ₁ − μ₂)/√(σ₁² + σ₂²)
with sample variances (the "average variance" form, equal to the pooled-SD form when n₁ = n₂); Hedges' g =
d_pooled · (1 − 3/(4(n₁+n₂) − 9)); Sawilowsky (2009) descriptors, binned by the largest threshold ≤ |d|.

Zero variance. Welch's t divides by the standard error √(s₁²/n₁ + s₂²/n₂) and Cohen's d by √(σ₁² + σ₂²); when both
systems score the same on every seed both are 0 and neither statistic exists (SciPy returns t = ±inf or nan with
p = nan; R's t.test stops with "data are essentially constant" once the standard error is below
10·ε·max(|x̄₁|, |x̄₂|), and releval uses R's criterion). Harbecke et al. compare runs over seeds because "two different
models never perform exactly the same": runs with no spread are not a sample of seeds (typically one prediction
file given as every seed, or a deterministic system, which a paired test on one test set compares properly). So:

* equal means (the same constant score on both sides): there is no difference to test. p = 1 (the test cannot
  reject, whatever the alternative), t and df are undefined (NaN; null in JSON output), d = d_pooled = g = 0,
  and `note` says so;
* different means: refused with an InputError naming both systems and the average, instead of t = ±inf, p = 0 and
  d = ±inf reported as a "huge", significant effect;
* only one side constant: the standard error is that of the other side and the test is well defined.

A `SeedComparison` writes itself as JSON with `to_dict()` (the undefined t and df as null) and loads back equal,
NaN for NaN, with `from_dict()`.
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from releval.core.errors import InputError
from releval.core.options import ALTERNATIVES
from releval.core.schema import check_schema, float_or_nan, header, known, reading, same
from releval.core.validation import check_choice

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


def sawilowsky_label(d: float) -> str:
    """Sawilowsky's descriptor of |d|: the largest threshold ≤ |d| (below 0.01: negligible)."""
    size = abs(float(d))
    label = NEGLIGIBLE
    for threshold, name in SAWILOWSKY:
        if size >= threshold:
            label = name
    return label


def welch_df(s1: ArrayLike, n1: int, s2: ArrayLike, n2: int) -> Any:
    """Welch–Satterthwaite degrees of freedom from sample SDs and sizes (scalars or arrays; nan if both SDs are 0).

    The df does not change when both SDs are scaled, so they are divided by the larger first: squared twice, SDs
    of 1e-100 would underflow to a 0/0 and a NaN df for well-defined runs.
    """
    a1, a2 = np.asarray(s1, dtype=np.float64), np.asarray(s2, dtype=np.float64)
    scale = np.maximum(np.abs(a1), np.abs(a2))
    safe = np.where(scale > 0, scale, 1.0)
    v1 = (a1 / safe) ** 2 / n1
    v2 = (a2 / safe) ** 2 / n2
    den = v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(den > 0, (v1 + v2) ** 2 / np.where(den > 0, den, 1.0), np.nan)
    return float(df) if df.ndim == 0 else df


def cohen_d_harbecke(m1: float, s1: float, m2: float, s2: float) -> float:
    """Harbecke et al. (2022) Eq. 4: d = √2 (μ₁ − μ₂)/√(σ₁² + σ₂²) (the root by `math.hypot`, which does not
    underflow for tiny SDs)."""
    den = math.hypot(s1, s2)
    diff = m1 - m2
    if den == 0:
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)
    return math.sqrt(2.0) * diff / den


def cohen_d_pooled(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int) -> float:
    """Cohen's d with the pooled SD √(((n₁−1)s₁² + (n₂−1)s₂²)/(n₁+n₂−2)) (as a hypot, which does not underflow)."""
    pooled = math.hypot(math.sqrt(n1 - 1) * s1, math.sqrt(n2 - 1) * s2) / math.sqrt(n1 + n2 - 2)
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
    #: Why a statistic is undefined (both sides constant with equal means: t and df are NaN); None otherwise.
    note: str | None = None

    @property
    def effect(self) -> float:
        """Difference of means, A − B."""
        return self.mean_a - self.mean_b

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field and the difference of means; `from_dict` reads it back."""
        return {**header("seed-comparison"), **asdict(self), "effect": self.effect}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeedComparison:
        """The comparison `to_dict()` wrote, null statistics as NaN (ValueError when it is not one); keys beside the
        fields (`effect`, derived) are ignored."""
        what = "seed comparison"
        check_schema(data, what, "seed-comparison")
        with reading(what):
            note = data.get("note")
            return cls(
                mean_a=float_or_nan(data["mean_a"]),
                sd_a=float_or_nan(data["sd_a"]),
                n_a=int(data["n_a"]),
                mean_b=float_or_nan(data["mean_b"]),
                sd_b=float_or_nan(data["sd_b"]),
                n_b=int(data["n_b"]),
                t=float_or_nan(data["t"]),
                df=float_or_nan(data["df"]),
                p_value=float_or_nan(data["p_value"]),
                alternative=known(data["alternative"], ALTERNATIVES, what, "alternative"),
                cohen_d=float_or_nan(data["cohen_d"]),
                cohen_d_pooled=float_or_nan(data["cohen_d_pooled"]),
                hedges_g=float_or_nan(data["hedges_g"]),
                label=str(data["label"]),
                note=None if note is None else str(note),
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, NaN equal to NaN (t and df of runs without spread are NaN)."""
        if not isinstance(other, SeedComparison):
            return NotImplemented
        return same(self, other)


def _as_runs(values: ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64).ravel()
    if arr.size < 2:
        raise InputError(f"needs at least 2 runs (seeds) to compare, got {arr.size}", field=name)
    if not np.all(np.isfinite(arr)):
        raise InputError("scores must be finite numbers", field=name)
    return arr


def _sample_sd(runs: np.ndarray) -> float:
    """The sample SD (ddof = 1), computed on the runs divided by their largest magnitude: squared deviations of
    scores near 1e-170 underflow to 0, which would call runs that differ constant."""
    scale = float(np.max(np.abs(runs)))
    return scale * float((runs / scale).std(ddof=1)) if scale > 0 else 0.0


def essentially_constant(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int) -> bool:
    """R's t.test criterion: the standard error √(s₁²/n₁ + s₂²/n₂) is 0 or below 10·ε·max(|m₁|, |m₂|).

    Scores computed from the same predictions are equal, but their mean over 3 runs need not be (0.1+0.1+0.1 ≠ 0.3),
    leaving a sample SD of ~1e-17 instead of 0; the tolerance treats that as the zero it is.
    """
    se = math.hypot(s1 / math.sqrt(n1), s2 / math.sqrt(n2))
    return se == 0.0 or se < 10 * sys.float_info.epsilon * max(abs(m1), abs(m2))


def compare_seeds(
    a: ArrayLike,
    b: ArrayLike,
    alternative: str = "two-sided",
    *,
    names: tuple[str, str] = ("a", "b"),
    metric: str | None = None,
) -> SeedComparison:
    """Welch's t-test (SciPy, Welch–Satterthwaite df) and Cohen's d (Eq. 4) / Hedges' g of runs a vs runs b.

    Both sides constant over their runs (see the module notes): equal means give p = 1, t = df = NaN, d = 0 and a
    `note`; different means are refused with an InputError that names `names` and `metric` (the average).
    """
    check_choice(alternative, ALTERNATIVES, "alternative")
    x, y = _as_runs(a, names[0]), _as_runs(b, names[1])
    m1, m2 = float(x.mean()), float(y.mean())
    s1, s2 = _sample_sd(x), _sample_sd(y)
    n1, n2 = int(x.size), int(y.size)
    if essentially_constant(m1, s1, n1, m2, s2, n2):
        return _constant_runs(x, y, names, metric, alternative)
    from scipy import stats  # here, not at the top: `releval compare` imports this module for paired tests too

    scale = max(s1, s2)  # > 0: runs that are not essentially constant vary. t, df and p do not change with the
    with warnings.catch_warnings():  # scale, and SciPy squares the SDs, which would underflow for SDs of 1e-170
        if np.ptp(x) == 0 or np.ptp(y) == 0:  # one side constant is fine, but SciPy warns of "catastrophic
            warnings.simplefilter("ignore", RuntimeWarning)  # cancellation" computing its zero variance
        res = stats.ttest_ind(x / scale, y / scale, equal_var=False, alternative=alternative)
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


def _constant_runs(
    x: np.ndarray, y: np.ndarray, names: tuple[str, str], metric: str | None, alternative: str
) -> SeedComparison:
    """Both sides (essentially) constant: no difference to test if the scores agree, else refused (module notes)."""
    m1, m2 = float(x.mean()), float(y.mean())
    under = f" under {metric}" if metric else ""
    if abs(m1 - m2) > 10 * sys.float_info.epsilon * max(abs(m1), abs(m2)):
        raise InputError(
            f"{names[0]} scores {m1:.6g} on every one of its {x.size} runs and {names[1]} {m2:.6g} on every one of "
            f"its {y.size}{under}: with zero variance Welch's t and Cohen's d do not exist (t = ±inf, p = 0 would be "
            "reported as a huge significant effect); runs over seeds must come from different seeds (is one "
            "prediction file given for every seed?), and deterministic systems are compared with a paired test "
            "(one prediction file per system)",
            field="system" if metric else None,
        )
    note = (
        f"{names[0]} and {names[1]} score {m1:.6g} on every run{under}: zero variance and no difference, so Welch's t "
        "and its df are undefined (– in tables, null in JSON), p = 1 and Cohen's d = 0"
    )
    return SeedComparison(
        mean_a=m1,
        sd_a=0.0,
        n_a=int(x.size),
        mean_b=m2,
        sd_b=0.0,
        n_b=int(y.size),
        t=math.nan,
        df=math.nan,
        p_value=1.0,
        alternative=alternative,
        cohen_d=0.0,
        cohen_d_pooled=0.0,
        hedges_g=0.0,
        label=sawilowsky_label(0.0),
        note=note,
    )


def mean_interval(values: ArrayLike, confidence: float = 0.95) -> tuple[float, float]:
    """Student's t interval of the mean of runs over seeds: x̄ ± t_{(1+c)/2, n−1} · s/√n (s the sample SD) — the
    interval that goes with Welch's test of the same runs. Needs two runs or more (InputError).

    >>> low, high = mean_interval([0.80, 0.84, 0.82], 0.95)
    >>> round(low, 4), round(high, 4)
    (0.7703, 0.8697)
    """
    x = _as_runs(values, "runs")
    from scipy import stats

    half = float(stats.t.ppf((1.0 + confidence) / 2.0, x.size - 1)) * _sample_sd(x) / math.sqrt(x.size)
    mean = float(x.mean())
    return mean - half, mean + half
