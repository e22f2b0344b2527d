"""Precision, recall, F-beta per class and their averages under every weighting, from counts alone.

Every function accepts counts with leading batch dimensions (..., K), so resampling tests score thousands of
bootstrap draws in one call. Definitions: metrics notes §1.1–1.2, Harbecke et al. (2022) §2.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from releval.core.options import CLASS_SETS, ENTROPY_N, MACRO_CLASSES
from releval.core.validation import check_beta, check_choice, check_zero_division
from releval.metrics.counts import ClassCounts
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, Weighting

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
    #: Classes kept in the class set of every weighting that weighs a class without gold support (macro, power:0)
    #: even where the counts at hand have no gold item of them: the test set's classes, fixed in every bootstrap
    #: resample (`fix_class_set`). None: the class set is that of the counts at hand (each resample's own).
    fixed_classes: NDArray[np.bool_] | None = None

    def __post_init__(self) -> None:
        """Refuse settings that make no score (OptionError); NaN zero_division stays: scikit-learn's option."""
        check_choice(self.entropy_n, ENTROPY_N, "entropy_n")
        check_choice(self.classes, MACRO_CLASSES, "macro_classes")
        check_beta(self.beta)
        check_zero_division(self.zero_division, allow_nan=True)


def fix_class_set(spec: AveragingSpec, support: NDArray, class_set: str) -> AveragingSpec:
    """The spec a bootstrap resample is averaged with, given the gold `support` of the whole test set.

    class_set "test": the positive classes with gold support in the test set stay in the class set of every
    resample (`AveragingSpec.fixed_classes`), so each resample's macro-F averages over the classes the point
    estimate averages over. In a resample that holds no gold item of such a class, its per-class scores follow the
    zero_division rule of `prf_from_counts`: recall is 0/0 → zero_division; precision is 0 when the system predicts
    the class (FP > 0), else 0/0 → zero_division; F is 0 when FP > 0, else zero_division (scikit-learn's rule
    for F since 1.3). Weightings that give a class without gold items no weight (w(0) = 0: weighted, dodrans,
    entropy, power:A with A > 0) average as before; power:A with A < 0 (w(0) infinite) cannot weigh such a class
    and leaves it out. class_set "resample": a resample's classes are its own, those with gold support in it.

    >>> from releval.metrics.weightings import MACRO
    >>> spec = AveragingSpec(np.array([False, True, True]), weightings=(MACRO,))
    >>> resample = np.array([5, 3, 0])  # the second positive class has no gold item in this resample
    >>> average_weights(resample, spec)["macro"].tolist()
    [0.0, 1.0, 0.0]
    >>> average_weights(resample, fix_class_set(spec, np.array([9, 6, 1]), "test"))["macro"].tolist()
    [0.0, 0.5, 0.5]
    """
    check_choice(class_set, CLASS_SETS, "class_set")
    if class_set == "resample":
        return replace(spec, fixed_classes=None)
    return replace(spec, fixed_classes=spec.positive & (np.asarray(support) > 0))


#: A class with fewer gold items than this in the test set is rare: its per-class F rests on a handful of items and
#: jumps between its extremes from one bootstrap resample to the next.
RARE_SUPPORT = 5
#: A weighting is warned about when its rare classes together carry at least this share of its weight: about the
#: most their F can then move the average (one point of F). Macro over the 18 classes of SemEval-2010 Task 8 gives
#: its class of one gold item 5.6%; dodrans and entropy give it under 0.2%, weighted 0.04%.
RARE_WEIGHT = 0.01


@dataclass(frozen=True)
class RareClasses:
    """The rare classes a weighting averages over: their indices, gold supports and summed weight."""

    weighting: str
    classes: tuple[int, ...]
    support: tuple[int, ...]
    weight: float


def rare_classes(
    support: NDArray,
    spec: AveragingSpec,
    predicted: NDArray | None = None,
    below: int = RARE_SUPPORT,
    min_weight: float = RARE_WEIGHT,
) -> list[RareClasses]:
    """Every weighting of `spec` whose weights over the test set's gold `support` (K,) give the classes with
    fewer than `below` gold items a summed weight of at least `min_weight`, with those classes.

    Under macro every class counts as much as any other, so a class of one gold item carries 1/K of the average;
    weightings that grow with the support (weighted, dodrans, entropy) give it little (`RARE_WEIGHT`). A class
    without gold items (a declared type under macro_classes "declared") is not rare but absent: its F is the same
    convention in every resample, and the signature's `weighted_classes` states it.

    >>> spec = AveragingSpec(np.array([False, True, True, True]))
    >>> (rare,) = rare_classes(np.array([900, 400, 500, 1]), spec)  # weighted, dodrans, entropy: 0.1–0.6%
    >>> rare.weighting, rare.classes, rare.support, round(rare.weight, 3)
    ('macro', (3,), (1,), 0.333)
    """
    support = np.asarray(support)
    if spec.classes == "gold+pred" and predicted is None:  # the test set's gold classes: what every system shares
        spec = replace(spec, classes="gold")
    out = []
    for name, weights in average_weights(support, spec, predicted).items():
        rare = np.flatnonzero((weights > 0) & (support > 0) & (support < below))
        weight = float(weights[rare].sum())
        if rare.size and weight >= min_weight:
            out.append(RareClasses(name, tuple(rare.tolist()), tuple(int(support[i]) for i in rare), weight))
    return out


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
    SpERT's macro) or to every positive class (sincere's); `spec.fixed_classes` (the test set's classes in a
    bootstrap resample, `fix_class_set`) widens it to them. Every other weighting gives such a class w(0) = 0, so
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
    if spec.fixed_classes is not None:
        wider = wider | (spec.positive & spec.fixed_classes)
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
