"""Precision, recall, F-beta per class and their averages under every weighting, from counts alone.

Every function accepts counts with leading batch dimensions (..., K), so resampling tests score thousands of
bootstrap draws in one call. Definitions: metrics notes §1.1–1.2, Harbecke et al. (2022) §2.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from releval.core.options import ENTROPY_N, MACRO_CLASSES
from releval.metrics.counts import ClassCounts
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, Weighting
from releval.validation import check_beta, check_choice, check_zero_division

MICRO = "micro"
#: Entropy's N: every gold item (incl. the negative class), or the positive classes' items only.


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F-beta (scalars or arrays of equal shape)."""

    precision: NDArray[np.float64] | float
    recall: NDArray[np.float64] | float
    f: NDArray[np.float64] | float


def _divide(num: NDArray, den: NDArray, zero_division: float) -> NDArray[np.float64]:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), zero_division)


def _f_beta(tp: NDArray, fp: NDArray, fn: NDArray, beta: float, zero_division: float) -> NDArray[np.float64]:
    b2 = beta * beta
    return _divide((1 + b2) * tp, (1 + b2) * tp + b2 * np.asarray(fn) + np.asarray(fp), zero_division)


def prf_from_counts(tp: NDArray, fp: NDArray, fn: NDArray, beta: float = 1.0, zero_division: float = 0.0) -> PRF:
    """P = TP/(TP+FP), R = TP/(TP+FN), F = (1+β²)TP / ((1+β²)TP + β²FN + FP); 0/0 → zero_division."""
    tp = np.asarray(tp, dtype=np.float64)
    return PRF(
        precision=_divide(tp, tp + fp, zero_division),
        recall=_divide(tp, tp + fn, zero_division),
        f=_f_beta(tp, fp, fn, beta, zero_division),
    )


@dataclass(frozen=True)
class AveragingSpec:
    """Every setting that changes an average: which classes are positive, β, zero_division, entropy's N."""

    positive: NDArray[np.bool_]
    weightings: tuple[Weighting, ...] = DEFAULT_WEIGHTINGS
    beta: float = 1.0
    zero_division: float = 0.0
    entropy_n: str = "all"  # "all": N counts every gold item incl. the negative class; "positive": only C+
    #: Which positive classes the weightings run over: "gold" (gold support > 0), "gold+pred" (gold or predicted
    #: > 0, SpERT's macro), "declared" (every class of the label list, sincere's macro). Only macro can differ:
    #: every other weighting gives a class without gold support the weight 0.
    classes: str = "gold"

    def __post_init__(self) -> None:
        """Refuse settings that make no score (OptionError); NaN zero_division stays: scikit-learn's option."""
        check_choice(self.entropy_n, ENTROPY_N, "entropy_n")
        check_choice(self.classes, MACRO_CLASSES, "macro_classes")
        check_beta(self.beta)
        check_zero_division(self.zero_division, allow_nan=True)


def micro_average(counts: ClassCounts, spec: AveragingSpec) -> PRF:
    """Counts pooled over the positive classes (the negative class's TPs are not counted; its FPs are)."""
    pos = spec.positive
    tp = (counts.tp * pos).sum(axis=-1)
    fp = (counts.fp * pos).sum(axis=-1)
    fn = (counts.fn * pos).sum(axis=-1)
    return prf_from_counts(tp, fp, fn, spec.beta, spec.zero_division)


def average_weights(
    support: NDArray, spec: AveragingSpec, predicted: NDArray | None = None
) -> dict[str, NDArray[np.float64]]:
    """Normalised weights of every weighting over the positive classes with gold support > 0, (..., K) each.

    `spec.classes` widens the class set of the weightings that give a class without gold support a weight — macro
    (w = 1) and any power:0 — to the classes with gold support or predictions (`predicted`, TP + FP, needed then;
    SpERT's macro) or to every positive class (sincere's). Every other weighting gives such a class w(0) = 0, so
    its weights are the same under any class set.

    >>> spec = AveragingSpec(np.ones(3, dtype=bool), classes="gold+pred")
    >>> [w.tolist() for w in average_weights(np.array([2, 0, 0]), spec, predicted=np.array([1, 1, 0])).values()]
    [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.5, 0.0]]
    """
    support = np.asarray(support)
    gold = spec.positive & (support > 0)
    wider = gold
    if spec.classes == "gold+pred":
        if predicted is None:
            raise ValueError("macro over gold and predicted classes needs the predicted counts")
        wider = spec.positive & ((support > 0) | (np.asarray(predicted) > 0))
    elif spec.classes == "declared":
        wider = np.broadcast_to(spec.positive, support.shape)
    n_total = support.sum(axis=-1) if spec.entropy_n == "all" else (support * spec.positive).sum(axis=-1)
    return {
        w.name: w.weights(support, wider if wider is not gold and _weighs_unsupported(w) else gold, n_total)
        for w in spec.weightings
    }


def _weighs_unsupported(weighting: Weighting) -> bool:
    """Whether the weighting gives a class without gold support a finite positive weight (macro, power:0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(weighting.fn(np.zeros(1), np.ones(1))[0])
    return math.isfinite(value) and value > 0


def weighted_averages(counts: ClassCounts, spec: AveragingSpec, per_class: PRF | None = None) -> dict[str, PRF]:
    """Σ w_i s_i for s ∈ {P, R, F} separately, weights over positive classes with gold support > 0."""
    if per_class is None:
        per_class = prf_from_counts(counts.tp, counts.fp, counts.fn, spec.beta, spec.zero_division)
    out: dict[str, PRF] = {}
    for name, w in average_weights(counts.support, spec, counts.predicted).items():
        out[name] = PRF(
            precision=(w * per_class.precision).sum(axis=-1),
            recall=(w * per_class.recall).sum(axis=-1),
            f=(w * per_class.f).sum(axis=-1),
        )
    return out


def all_averages(counts: ClassCounts, spec: AveragingSpec) -> tuple[PRF, dict[str, PRF]]:
    """Per-class scores and every average (micro first, then the weightings in order)."""
    per_class = prf_from_counts(counts.tp, counts.fp, counts.fn, spec.beta, spec.zero_division)
    averages = {MICRO: micro_average(counts, spec)}
    averages.update(weighted_averages(counts, spec, per_class))
    return per_class, averages


def f_averages(
    counts: ClassCounts, spec: AveragingSpec, weights: dict[str, NDArray[np.float64]] | None = None
) -> dict[str, NDArray[np.float64]]:
    """F alone of micro and every weighting, as `all_averages` gives it: the resampling tests' hot path.

    `weights` (from `average_weights`) may be computed once and shared by systems scored on the same gold items,
    as in every paired resample, since weights depend on the gold supports only.
    """
    tp, fp, fn = (np.asarray(x, dtype=np.float64) for x in (counts.tp, counts.fp, counts.fn))
    positive = spec.positive.astype(np.float64)
    out = {MICRO: _f_beta(tp @ positive, fp @ positive, fn @ positive, spec.beta, spec.zero_division)}
    per_class = _f_beta(tp, fp, fn, spec.beta, spec.zero_division)
    if weights is None or spec.classes == "gold+pred":  # the class set depends on each system's predictions
        weights = average_weights(tp + fn, spec, tp + fp)
    out.update({name: (w * per_class).sum(axis=-1) for name, w in weights.items()})
    return out


def average_names(weightings: Sequence[Weighting]) -> list[str]:
    """Names of the averages `all_averages` returns, in order."""
    return [MICRO, *(w.name for w in weightings)]
