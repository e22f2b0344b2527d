"""Multiple-testing corrections: adjusted p-values for a family of tests, a few lines of NumPy each.

Notation: p_(1) <= ... <= p_(n) are the n p-values sorted ascending, i the 1-based rank. Bonferroni and Šidák
adjust each p-value on its own; the others sort once, take a cumulative maximum (step-down: Holm, Holm-Šidák) or a
cumulative minimum from the top (step-up: Hochberg, BH, BY), or evaluate Hommel's closed test, cap at 1 and put the
values back in input order, so neither ties nor the input order change a value. The results equal R's
``p.adjust`` (holm, bonferroni, hochberg, hommel, BH, BY), R multtest's ``mt.rawp2adjp`` (Sidak, Holm-Sidak) and
statsmodels' ``multipletests`` to within 1e-12 (tests/test_corrections.py checks all three); statsmodels is not
needed: its import costs up to a second, and its Holm calls ``gc.collect()`` on every call.

A hypothesis is rejected at level alpha when its adjusted p-value is <= alpha. Only the two-stage ``fdr_tsbh``
depends on alpha (its adjusted p-values are specific to the alpha given). ``ADJUSTMENTS`` names every correction;
`adjust_pvalues` applies one by name.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from releval.core.errors import OptionError
from releval.core.options import DEFAULT_ALPHA

#: Hommel's procedure evaluates its (subset size × rank) matrix this many subset sizes at a time, and at most this
#: many cells at once (8 bytes each, so 32 MB).
_HOMMEL_ROWS = 64
_HOMMEL_CELLS = 1 << 22


def _pvalues(pvalues: ArrayLike) -> NDArray[np.float64]:
    """A 1-D float array of p-values in [0, 1] (an OptionError naming the first bad entry otherwise)."""
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise OptionError(f"pvalues: expected a flat list of p-values, got shape {p.shape}", option="pvalues")
    bad = np.flatnonzero(~((p >= 0.0) & (p <= 1.0)))  # NaN fails both comparisons
    if bad.size:
        i = int(bad[0])
        raise OptionError(
            f"pvalues: p-value #{i + 1} is {float(p[i])!r}; p-values must lie in [0, 1]", option="pvalues"
        )
    return p


def _sorted(p: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.intp], NDArray[np.float64]]:
    """(p sorted ascending, the order that sorts it, ranks i = 1..n as floats)."""
    order = np.argsort(p, kind="stable")
    return p[order], order, np.arange(1.0, p.size + 1.0)


def _unsorted(values: NDArray[np.float64], order: NDArray[np.intp]) -> NDArray[np.float64]:
    """`values`, computed for the sorted p-values, in the input order, capped at 1."""
    out = np.empty_like(values)
    out[order] = np.minimum(values, 1.0)
    return out


def _step_down(raw: NDArray[np.float64], order: NDArray[np.intp]) -> NDArray[np.float64]:
    """Cumulative maximum from the smallest p upwards, in input order."""
    return _unsorted(np.maximum.accumulate(raw), order)


def _step_up(raw: NDArray[np.float64], order: NDArray[np.intp]) -> NDArray[np.float64]:
    """Cumulative minimum from the largest p downwards, in input order."""
    return _unsorted(np.minimum.accumulate(raw[::-1])[::-1], order)


def _sidak_power(p: NDArray[np.float64], k: NDArray[np.float64] | float) -> NDArray[np.float64]:
    """1 - (1 - p)^k, as -expm1(k log1p(-p)) so that a tiny p keeps its digits (and p = 1 gives 1); never below p,
    as it is for k >= 1 (rounding can put it one unit in the last place under: 0.25 at k = 1 gives 0.2499…)."""
    with np.errstate(divide="ignore"):
        return np.maximum(-np.expm1(k * np.log1p(-p)), p)


def bonferroni(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Bonferroni: min(1, n p_i). Controls the FWER under any dependence.

    Reference: Dunn, O. J. (1961), "Multiple comparisons among means", JASA 56, 52-64.

    >>> bonferroni([0.01, 0.04, 0.03])
    array([0.03, 0.12, 0.09])
    """
    p = _pvalues(pvalues)
    return np.minimum(p * float(p.size), 1.0)


def sidak(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Šidák: 1 - (1 - p_i)^n. Controls the FWER for independent (or positively dependent) tests.

    Reference: Šidák, Z. (1967), "Rectangular confidence regions for the means of multivariate normal
    distributions", JASA 62, 626-633.

    >>> sidak([0.01, 0.5]).round(6)
    array([0.0199, 0.75  ])
    """
    p = _pvalues(pvalues)
    return _sidak_power(p, float(p.size))


def holm(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Holm's step-down: p~_(i) = min(1, max_{j<=i} (n - j + 1) p_(j)). FWER under any dependence.

    Reference: Holm, S. (1979), "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
    Statistics 6, 65-70. By hand for [0.01, 0.04, 0.03]: sorted 0.01, 0.03, 0.04 times 3, 2, 1 gives 0.03, 0.06,
    0.04, and the running maximum 0.03, 0.06, 0.06.

    >>> holm([0.01, 0.04, 0.03])
    array([0.03, 0.06, 0.06])
    """
    s, order, i = _sorted(_pvalues(pvalues))
    return _step_down((s.size - i + 1.0) * s, order)


def holm_sidak(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Holm-Šidák step-down: p~_(i) = max_{j<=i} 1 - (1 - p_(j))^(n - j + 1). FWER for independent tests.

    Holm's procedure with Šidák's bound in place of Bonferroni's (Holm 1979, §4; Šidák 1967); R multtest's
    "SidakSD".

    >>> holm_sidak([0.01, 0.04, 0.03]).round(6)
    array([0.029701, 0.0591  , 0.0591  ])
    """
    s, order, i = _sorted(_pvalues(pvalues))
    return _step_down(_sidak_power(s, s.size - i + 1.0), order)


def hochberg(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Hochberg's step-up: p~_(i) = min(1, min_{j>=i} (n - j + 1) p_(j)). FWER for independent or PRDS tests.

    Reference: Hochberg, Y. (1988), "A sharper Bonferroni procedure for multiple tests of significance",
    Biometrika 75, 800-802.

    >>> hochberg([0.01, 0.04, 0.03])
    array([0.03, 0.04, 0.04])
    """
    s, order, i = _sorted(_pvalues(pvalues))
    return _step_up((s.size - i + 1.0) * s, order)


def fdr_bh(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Benjamini-Hochberg: p~_(i) = min(1, min_{j>=i} n p_(j) / j). FDR for independent or PRDS tests.

    Reference: Benjamini, Y. & Hochberg, Y. (1995), "Controlling the false discovery rate: a practical and powerful
    approach to multiple testing", JRSS B 57, 289-300.

    >>> fdr_bh([0.01, 0.04, 0.03])
    array([0.03, 0.04, 0.04])
    """
    s, order, i = _sorted(_pvalues(pvalues))
    return _step_up(s.size / i * s, order)


def fdr_by(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Benjamini-Yekutieli: Benjamini-Hochberg times c(n) = sum_{k=1..n} 1/k,
    p~_(i) = min(1, min_{j>=i} c(n) n p_(j) / j). FDR under any dependence.

    Reference: Benjamini, Y. & Yekutieli, D. (2001), "The control of the false discovery rate in multiple testing
    under dependency", Annals of Statistics 29, 1165-1188 (Theorem 1.3).

    >>> fdr_by([0.01, 0.04, 0.03])  # c(3) = 11/6
    array([0.055     , 0.07333333, 0.07333333])
    """
    s, order, i = _sorted(_pvalues(pvalues))
    c = float(np.sum(1.0 / i))
    return _step_up(c * (s.size / i * s), order)


def hommel(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Hommel's procedure: closed testing with Simes' test, in its adjusted p-value form.

    For the m largest p-values, Simes' p-value is c_m = min_{k=1..m} m p_(n-m+k) / k. The adjusted p-value of
    p_(i) is the largest, over m = 1..n, of c_m when p_(i) is among the m largest (i > n - m), and of
    min(m p_(i), c_m) otherwise. FWER for independent or PRDS tests; it rejects everything Hochberg's procedure
    rejects, and sometimes more. It takes O(n²) time, evaluated in blocks of subset sizes (R's p.adjust and
    statsmodels loop over m).

    References: Hommel, G. (1988), "A stagewise rejective multiple test procedure based on a modified Bonferroni
    test", Biometrika 75, 383-386; Wright, S. P. (1992), "Adjusted p-values for simultaneous inference",
    Biometrics 48, 1005-1013 (the adjusted p-values, as R's p.adjust computes them).

    >>> hommel([0.01, 0.04, 0.03])
    array([0.03, 0.04, 0.04])
    >>> hommel([0.01, 0.02, 0.03, 0.05])  # Hochberg gives 0.04, 0.05, 0.05, 0.05
    array([0.04 , 0.045, 0.05 , 0.05 ])
    """
    p = _pvalues(pvalues)
    n = p.size
    s, order, _ = _sorted(p)
    adjusted = s.copy()  # the m = 1 term: c_1 = p_(n), and min(p_(i), p_(n)) = p_(i)
    rows = max(1, min(_HOMMEL_ROWS, _HOMMEL_CELLS // max(n, 1)))
    for first in range(2, n + 1, rows):
        # Subset sizes m = first..last, one per row. The sorted p-values fall in three runs of columns: `inner`, among
        # the m largest for every m of the block; `edge`, among them for some; `outer`, for none.
        last = min(first + rows, n + 1) - 1
        m = np.arange(first, last + 1, dtype=float)[:, None]
        lo, hi = n - last, n - first  # edge = s[lo:hi], inner = s[hi:]
        rank = np.arange(hi, n) - (n - m) + 1.0  # of each inner p-value among the m largest: >= 1
        simes = ((m * s[hi:]) / rank).min(axis=1, keepdims=True)
        if hi > lo:
            rank = np.arange(lo, hi) - (n - m) + 1.0
            inside = rank >= 1.0
            ratios = np.where(inside, (m * s[lo:hi]) / np.where(inside, rank, 1.0), np.inf)
            simes = np.minimum(simes, ratios.min(axis=1, keepdims=True))
            edge = np.where(inside, simes, np.minimum(m * s[lo:hi], simes)).max(axis=0)
            np.maximum(adjusted[lo:hi], edge, out=adjusted[lo:hi])
        np.maximum(adjusted[hi:], simes.max(), out=adjusted[hi:])
        if lo:
            np.maximum(adjusted[:lo], np.minimum(m * s[:lo], simes).max(axis=0), out=adjusted[:lo])
    return _unsorted(adjusted, order)


def fdr_tsbh(pvalues: ArrayLike, alpha: float = DEFAULT_ALPHA) -> NDArray[np.float64]:
    """Two-stage Benjamini-Hochberg: BH again with the number of true nulls estimated from BH's first stage.

    With q_i the Benjamini-Hochberg adjusted p-values and r = #{q_i <= alpha} the first stage's rejections, the
    number of true nulls is estimated as n0 = n - r, and p~_i = q_i n0 / n when 0 < r < n (q_i otherwise: with no
    rejection there is nothing to gain, and with all rejected n0 = 0 would make every p~ zero). Rejecting p~_i <= alpha
    is BH at level alpha n / n0. The values depend on alpha. FDR for independent tests.

    Reference: Benjamini, Y., Krieger, A. M. & Yekutieli, D. (2006), "Adaptive linear step-up procedures that control
    the false discovery rate", Biometrika 93, 491-507; this is their two-stage procedure without the
    alpha / (1 + alpha) of the first stage, as statsmodels' ``multipletests(method="fdr_tsbh")`` (maxiter=1)
    computes it.

    >>> fdr_tsbh([0.01, 0.02, 0.5, 0.9], alpha=0.05)  # BH gives 0.04, 0.04, 0.6667, 0.9; r = 2 so n0 / n = 1/2
    array([0.02      , 0.02      , 0.33333333, 0.45      ])
    """
    q = fdr_bh(pvalues)
    n = q.size
    r = int(np.sum(q <= alpha))
    return q * ((n - r) / n) if 0 < r < n else q


def _alpha_free(
    correction: Callable[[ArrayLike], NDArray[np.float64]],
) -> Callable[[ArrayLike, float], NDArray[np.float64]]:
    return lambda pvalues, alpha: correction(pvalues)


#: Every correction by name: f(pvalues, alpha) -> adjusted p-values in input order. `replicability analyze
#: --method` accepts all of them; `compare --correction` the ones in releval.core.options.CORRECTIONS.
ADJUSTMENTS: dict[str, Callable[[ArrayLike, float], NDArray[np.float64]]] = {
    "holm": _alpha_free(holm),
    "bonferroni": _alpha_free(bonferroni),
    "hochberg": _alpha_free(hochberg),
    "hommel": _alpha_free(hommel),
    "fdr_bh": _alpha_free(fdr_bh),
    "fdr_by": _alpha_free(fdr_by),
    "sidak": _alpha_free(sidak),
    "holm_sidak": _alpha_free(holm_sidak),
    "fdr_tsbh": fdr_tsbh,
}


def adjust_pvalues(pvalues: ArrayLike, method: str = "holm", alpha: float = DEFAULT_ALPHA) -> NDArray[np.float64]:
    """Adjusted p-values, in input order, by the correction `method` (a key of ADJUSTMENTS).

    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]
    """
    correction = ADJUSTMENTS.get(method)
    if correction is None:
        raise OptionError(
            f"method: unknown correction {method!r}; choose from {', '.join(ADJUSTMENTS)}", option="method"
        )
    return correction(pvalues, alpha)
