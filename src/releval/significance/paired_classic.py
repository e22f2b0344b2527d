"""Classic paired tests on per-item (or per-seed) score pairs: paired t and Wilcoxon signed-rank, via SciPy.

For corpus-level F-scores use the resampling tests (releval.significance.paired); these are for paired scalar scores,
e.g. per-document F or per-seed results of two systems trained with the same seeds (statistics notes §2). A
`ClassicResult` writes itself as JSON with `to_dict()` and loads back equal with `from_dict()`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from releval.core.options import ALTERNATIVES, DEFAULT_CONFIDENCE
from releval.core.schema import check_schema, float_or_nan, header, known, reading, same

#: The tests of this module, as their results name them.
CLASSIC_TESTS = ("paired-t", "wilcoxon")


@dataclass(frozen=True)
class ClassicResult:
    """Test statistic, p-value, and (for the t-test) df, mean difference A − B and its confidence interval."""

    test: str
    alternative: str
    statistic: float
    p_value: float
    df: float | None = None
    mean_diff: float | None = None
    ci: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field, the interval as a list; `from_dict` reads it back."""
        return {
            **header("classic-test"),
            "test": self.test,
            "alternative": self.alternative,
            "statistic": self.statistic,
            "p_value": self.p_value,
            "df": self.df,
            "mean_diff": self.mean_diff,
            "ci": list(self.ci) if self.ci is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClassicResult:
        """The result `to_dict()` wrote (ValueError when it is not one). The t-test fills df, mean_diff and ci; for
        it a null there is a NaN that strict JSON could not write, for Wilcoxon a value that does not exist."""
        what = "classic paired test"
        check_schema(data, what, "classic-test")
        with reading(what):
            test = known(data["test"], CLASSIC_TESTS, what, "test")

            def optional(value: Any) -> float | None:
                return float_or_nan(value) if test == "paired-t" else None if value is None else float(value)

            ci = data.get("ci")
            return cls(
                test,
                known(data["alternative"], ALTERNATIVES, what, "alternative"),
                float_or_nan(data["statistic"]),
                float_or_nan(data["p_value"]),
                optional(data.get("df")),
                optional(data.get("mean_diff")),
                None if ci is None else (float_or_nan(ci[0]), float_or_nan(ci[1])),
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, NaN equal to NaN (SciPy returns NaN p-values for samples without any difference)."""
        if not isinstance(other, ClassicResult):
            return NotImplemented
        return same(self, other)


def _pair(a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError(f"paired tests need two equal-length 1-d samples of size >= 2, got {x.shape} and {y.shape}")
    return x, y


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {', '.join(ALTERNATIVES)}, not {alternative!r}")


def paired_t(
    a: Sequence[float], b: Sequence[float], alternative: str = "two-sided", confidence: float = DEFAULT_CONFIDENCE
) -> ClassicResult:
    """Student's paired t-test of mean(A − B) (scipy.stats.ttest_rel), with the CI of the mean difference."""
    from scipy import stats

    _check_alternative(alternative)
    x, y = _pair(a, b)
    res = stats.ttest_rel(x, y, alternative=alternative)
    ci = res.confidence_interval(confidence_level=confidence)
    return ClassicResult(
        "paired-t",
        alternative,
        float(res.statistic),
        float(res.pvalue),
        float(res.df),
        float(np.mean(x - y)),
        (float(ci.low), float(ci.high)),
    )


def wilcoxon_signed_rank(
    a: Sequence[float],
    b: Sequence[float],
    alternative: str = "two-sided",
    method: str = "auto",
    correction: bool = False,
) -> ClassicResult:
    """Wilcoxon signed-rank test of A − B, zero differences dropped (R's wilcox.test convention).

    The statistic is W+ (R's V), the sum of the ranks of positive differences, whatever the alternative.
    `method` is 'auto', 'exact' or 'asymptotic'; `correction` is the continuity correction of the latter.
    """
    from scipy import stats

    _check_alternative(alternative)
    x, y = _pair(a, b)
    d = x - y
    nonzero = d[d != 0]
    ranks = stats.rankdata(np.abs(nonzero))
    w_plus = float(ranks[nonzero > 0].sum())
    res = stats.wilcoxon(x, y, zero_method="wilcox", correction=correction, alternative=alternative, method=method)
    return ClassicResult("wilcoxon", alternative, w_plus, float(res.pvalue))
