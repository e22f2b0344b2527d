"""Paired tests of two systems on the same test items: bootstrap, approximate randomization, McNemar, sign test.

Definitions (statistics notes §2.1–2.4). δ = F(A) − F(B) at corpus level, recomputed from summed sufficient
statistics of every resample (never an average of per-item F):

* paired bootstrap (Berg-Kirkpatrick et al. 2012): one resample of items applied to both systems; centred on δ
  and counting ≥ (ties are extreme), p_greater = (#{δ* − δ ≥ δ} + 1)/(B + 1), p_less with ≤, two-sided
  #{|δ* − δ| ≥ |δ|}; percentile confidence intervals of F(A), F(B) and δ.
* approximate randomization (Noreen 1989): swap A and B per item with probability ½; p = (c + 1)/(R + 1) with
  c = #{δ* ≥ δ} (greater), #{δ* ≤ δ} (less), #{|δ*| ≥ |δ|} (two-sided).
* McNemar: exact binomial on the discordant pairs b = #(A right, B wrong), c = #(A wrong, B right), or χ² with /
  without Edwards' correction; the sign test is the exact binomial test on the signs of non-zero differences.

With these rules identical systems get p = 1 (δ* = δ = 0 every time). Resampling runs on distinct cells
(releval.metrics.cells), so 10^4 resamples of 15,509 TACRED items take a fraction of a second. Every result
(`PairedResult`, `MetricComparison`, `DiscordantTest`) writes itself as JSON with `to_dict()` and loads back equal
with `from_dict()`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from releval.core.options import ALTERNATIVES, DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED, MCNEMAR_VARIANTS
from releval.core.schema import check_schema, float_or_nan, header, known, reading, same
from releval.core.signature import Signature, parse
from releval.core.validation import check_choice, check_confidence, check_resamples, check_seed
from releval.metrics.averages import MICRO, AveragingSpec
from releval.metrics.cells import PairedCells, cells_from_rows, f_scores, resampled_f
from releval.significance.config import SignificanceConfig, split_settings
from releval.tasks.classification import ClassificationConfig, paired_cells, signature

#: Scores are fractions in [0, 1]; differences closer than this count as ties (float noise is ~1e-16).
TIE_TOLERANCE = 1e-12
#: The names of the resampling tests in results and signatures.
_RESAMPLING_NAMES = ("paired-bootstrap", "approximate-randomization")
#: The names of the discordant-pair tests in results (derived from CORRECTNESS_TESTS at the end of the module).
_DISCORDANT_NAMES: tuple[str, ...] = ()


def _interval(value: Any) -> tuple[float, float] | None:
    """A saved [low, high] as a tuple (None stays None; a null bound is NaN)."""
    return None if value is None else (float_or_nan(value[0]), float_or_nan(value[1]))


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


@dataclass(frozen=True)
class MetricComparison:
    """One average: both systems' scores, δ = A − B, p under every alternative, percentile CIs (bootstrap)."""

    metric: str
    score_a: float
    score_b: float
    p_values: dict[str, float]
    alternative: str
    ci_a: tuple[float, float] | None = None
    ci_b: tuple[float, float] | None = None
    ci_effect: tuple[float, float] | None = None

    @property
    def effect(self) -> float:
        return self.score_a - self.score_b

    @property
    def p_value(self) -> float:
        return self.p_values[self.alternative]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: both scores, δ, p under the chosen and under every alternative, the intervals as lists."""
        return {
            **header("metric-comparison"),
            "metric": self.metric,
            "score_a": self.score_a,
            "score_b": self.score_b,
            "effect": self.effect,
            "p_value": self.p_value,
            "alternative": self.alternative,
            "p_values": dict(self.p_values),
            "ci_a": list(self.ci_a) if self.ci_a else None,
            "ci_b": list(self.ci_b) if self.ci_b else None,
            "ci_effect": list(self.ci_effect) if self.ci_effect else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MetricComparison:
        """The comparison `to_dict()` wrote (δ and p are derived, so not read; ValueError when it is not one)."""
        what = "metric comparison"
        check_schema(data, what, "metric-comparison")
        with reading(what):
            return cls(
                str(data["metric"]),
                float_or_nan(data["score_a"]),
                float_or_nan(data["score_b"]),
                {known(k, ALTERNATIVES, what, "alternative"): float_or_nan(v) for k, v in data["p_values"].items()},
                known(data["alternative"], ALTERNATIVES, what, "alternative"),
                _interval(data.get("ci_a")),
                _interval(data.get("ci_b")),
                _interval(data.get("ci_effect")),
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, NaN equal to NaN (a score of an empty average is undefined)."""
        if not isinstance(other, MetricComparison):
            return NotImplemented
        return same(self, other)


@dataclass(frozen=True)
class PairedResult:
    """A paired test of A vs B; `.p_value`, `.effect`, `.score_a`, … refer to the primary `metric`."""

    test: str
    metric: str
    alternative: str
    rows: dict[str, MetricComparison]
    n: int
    resamples: int | None
    seed: int | None
    signature: Signature
    confidence: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, metric: str) -> MetricComparison:
        return self.rows[metric]

    @property
    def primary(self) -> MetricComparison:
        return self.rows[self.metric]

    @property
    def p_value(self) -> float:
        return self.primary.p_value

    @property
    def effect(self) -> float:
        return self.primary.effect

    @property
    def score_a(self) -> float:
        return self.primary.score_a

    @property
    def score_b(self) -> float:
        return self.primary.score_b

    @property
    def ci_effect(self) -> tuple[float, float] | None:
        return self.primary.ci_effect

    @property
    def task(self) -> str:
        """The kind of evaluation, from the signature (rc, e2e, …)."""
        return self.signature.get("task") or "rc"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the test's settings, every average's `MetricComparison`, the signature and `extra` (the
        number of distinct cells resampled); `from_dict` reads it back."""
        return {
            **header("paired-test"),
            "task": self.task,
            "test": self.test,
            "metric": self.metric,
            "alternative": self.alternative,
            "n": self.n,
            "resamples": self.resamples,
            "seed": self.seed,
            "confidence": self.confidence,
            "rows": {k: v.to_dict() for k, v in self.rows.items()},
            **self.signature.to_json(),
            "extra": dict(self.extra),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PairedResult:
        """The paired test `to_dict()` wrote (ValueError when it is not one)."""
        what = "paired test"
        check_schema(data, what, "paired-test")
        with reading(what):
            rows = {str(k): MetricComparison.from_dict(v) for k, v in data["rows"].items()}
            metric = str(data["metric"])
            if metric not in rows:
                raise ValueError(f"{what}: metric {metric!r} is not among its rows ({', '.join(rows)})")
            resamples, seed = data.get("resamples"), data.get("seed")
            return cls(
                known(data["test"], _RESAMPLING_NAMES, what, "test"),
                metric,
                known(data["alternative"], ALTERNATIVES, what, "alternative"),
                rows,
                int(data["n"]),
                None if resamples is None else int(resamples),
                None if seed is None else int(seed),
                parse(data["signature"]),
                _optional_float(data.get("confidence")),
                dict(data.get("extra", {})),
            )


def _check_alternative(alternative: str) -> None:
    check_choice(alternative, ALTERNATIVES, "alternative")


def check_resampling(resamples: int, seed: int | None, confidence: float = DEFAULT_CONFIDENCE) -> None:
    """The settings of the resampling tests: resamples >= 1, seed None or >= 0, 0 < confidence < 1 (OptionError)."""
    check_resamples(resamples)
    check_seed(seed)
    check_confidence(confidence)


def _tail_p_values(draws: NDArray[np.float64], observed: float) -> dict[str, float]:
    """(c+1)/(n+1) per alternative, c the draws at least as extreme as `observed` (ties count as extreme)."""
    ds = np.asarray(draws)
    count = {
        "greater": int(np.count_nonzero(ds >= observed - TIE_TOLERANCE)),
        "less": int(np.count_nonzero(ds <= observed + TIE_TOLERANCE)),
        "two-sided": int(np.count_nonzero(np.abs(ds) >= abs(observed) - TIE_TOLERANCE)),
    }
    return {k: (c + 1) / (ds.shape[0] + 1) for k, c in count.items()}


def bootstrap_p_values(delta_star: NDArray[np.float64], delta: float) -> dict[str, float]:
    """Shifted paired-bootstrap p-values, ties extreme: (#{δ*−δ ≥ δ}+1)/(B+1) etc. (statistics notes §2.1)."""
    return _tail_p_values(np.asarray(delta_star) - delta, delta)


def randomization_p_values(delta_star: NDArray[np.float64], delta: float) -> dict[str, float]:
    """Approximate-randomization p-values (c+1)/(R+1), ties extreme (statistics notes §2.2)."""
    return _tail_p_values(delta_star, delta)


def _percentile(x: NDArray[np.float64], confidence: float) -> tuple[float, float]:
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(x, [tail, 1.0 - tail])
    return float(lo), float(hi)


def percentile_intervals(x: NDArray[np.float64], confidence: float) -> list[tuple[float, float]]:
    """The percentile interval of each row of x, (S, R): what `_percentile` gives each row, in one call."""
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(x, [tail, 1.0 - tail], axis=-1)
    return [(float(a), float(b)) for a, b in zip(lo, hi)]


def resampling_rows(
    cells: PairedCells,
    spec: AveragingSpec,
    method: str,
    config: SignificanceConfig,
    progress: Callable[[int], None] | None = None,
) -> dict[str, MetricComparison]:
    """Every average's comparison of A and B from one resampling run (bootstrap or randomization) on the cells
    of per-item statistics — of any task: labels per item, or TP/FP/FN per document. `progress`, when given, is
    called with the number of resamples of each block once it is drawn (they sum to `config.resamples`)."""
    tot_a, tot_b = cells.observed()
    obs_a, obs_b = f_scores(tot_a, spec), f_scores(tot_b, spec)
    on_block = None if progress is None else (lambda a, b: progress(int(a.shape[0])))
    draws = resampled_f(
        cells, spec, config.resamples, config.seed, method, class_set=config.class_set, on_block=on_block
    )
    return comparison_rows(obs_a, obs_b, draws, method, config)


def comparison_rows(
    obs_a: Mapping[str, Any],
    obs_b: Mapping[str, Any],
    draws: Mapping[str, tuple[NDArray[np.float64], NDArray[np.float64]]],
    method: str,
    config: SignificanceConfig,
    intervals: Mapping[str, tuple[tuple[float, float], tuple[float, float]]] | None = None,
) -> dict[str, MetricComparison]:
    """Every average's comparison from the observed F of A and B and their F in each resample (fa, fb): the
    p-values and, for the bootstrap, percentile intervals. `resampling_rows` draws them from a pair's cells;
    `releval compare` draws many pairs' from one joint bootstrap (releval.metrics.joint_cells), and may pass the
    intervals of F(A) and F(B) per average, computed once per system (`percentile_intervals`)."""
    rows = {}
    for name, (fa, fb) in draws.items():
        sa, sb = float(obs_a[name]), float(obs_b[name])
        delta = sa - sb
        if method == "bootstrap":
            ci_a, ci_b = (
                intervals[name]
                if intervals is not None
                else (_percentile(fa, config.confidence), _percentile(fb, config.confidence))
            )
            rows[name] = MetricComparison(
                name,
                sa,
                sb,
                bootstrap_p_values(fa - fb, delta),
                config.alternative,
                ci_a,
                ci_b,
                _percentile(fa - fb, config.confidence),
            )
        else:
            rows[name] = MetricComparison(name, sa, sb, randomization_p_values(fa - fb, delta), config.alternative)
    return rows


def _labels_test(
    method: str,
    gold: Sequence[str],
    pred_a: Sequence[str],
    pred_b: Sequence[str],
    metric: str,
    config: ClassificationConfig,
    test: SignificanceConfig,
) -> PairedResult:
    """One resampling test of two aligned label sequences, signed by the classification task."""
    cells, spec, negative = paired_cells(gold, pred_a, pred_b, config)
    metric = metric.strip().lower()
    check_choice(metric, tuple(config.average_names), "metric")
    rows = resampling_rows(cells, spec, method, test)
    sig = signature(
        config,
        [x if type(x) is str else str(x) for x in gold],
        negative=negative,
        missing="error",
        by_position=True,
        patch_digest=None,
        extra=test.signature_fields(),
    )
    name = "paired-bootstrap" if method == "bootstrap" else "approximate-randomization"
    confidence = test.confidence if method == "bootstrap" else None
    return PairedResult(
        name,
        metric,
        test.alternative,
        rows,
        cells.n_items,
        test.resamples,
        test.seed,
        sig,
        confidence,
        {"cells": cells.n_cells},
    )


def paired_bootstrap(
    gold: Sequence[str],
    pred_a: Sequence[str],
    pred_b: Sequence[str],
    config: ClassificationConfig | None = None,
    test: SignificanceConfig | None = None,
    *,
    metric: str = MICRO,
    **settings: Any,
) -> PairedResult:
    """Paired bootstrap of F(A) − F(B) on aligned label sequences, every average at once (notes §2.1).

    Parameters
    ----------
    gold, pred_a, pred_b
        Aligned label sequences of equal length.
    config
        The scoring settings (`ClassificationConfig`: negative class, weightings, β, …); default: its defaults.
    test
        The test settings (`SignificanceConfig`: alternative, resamples, seed, confidence).
    settings
        Any field of either Config as a keyword (`negative="Other"`, `resamples=1000`), validated by it.
    metric
        The average `.p_value` and `.effect` refer to (every average is in `.rows`).

    Returns
    -------
    PairedResult
        Per average: both scores, δ = A − B, p under every alternative, percentile intervals; the signature.

    References
    ----------
    Berg-Kirkpatrick et al. (2012); Koehn (2004).

    Examples
    --------
    >>> gold = ["r", "r", "no_relation", "r"] * 25
    >>> r = paired_bootstrap(gold, gold, ["r"] * 100, test=SignificanceConfig(resamples=999, seed=1))
    >>> r.effect > 0, r.p_value < 0.05, r.signature["resamples"]
    (True, True, '999')
    """
    scoring, testing = split_settings(ClassificationConfig, config, test, settings)
    if "bootstrap" not in testing.tests:
        testing = replace(testing, tests=("bootstrap",))
    return _labels_test("bootstrap", gold, pred_a, pred_b, metric, scoring, testing)


def approximate_randomization(
    gold: Sequence[str],
    pred_a: Sequence[str],
    pred_b: Sequence[str],
    config: ClassificationConfig | None = None,
    test: SignificanceConfig | None = None,
    *,
    metric: str = MICRO,
    **settings: Any,
) -> PairedResult:
    """Approximate randomization test of F(A) − F(B) on aligned label sequences (notes §2.2).

    Parameters and result as for `paired_bootstrap` (no confidence intervals).

    Examples
    --------
    >>> gold = ["r", "no_relation"] * 50
    >>> r = approximate_randomization(gold, gold, gold, test=SignificanceConfig(("randomization",), resamples=99))
    >>> r.p_value
    1.0
    """
    scoring, testing = split_settings(ClassificationConfig, config, test, settings)
    if "randomization" not in testing.tests:
        testing = replace(testing, tests=("randomization",))
    return _labels_test("randomization", gold, pred_a, pred_b, metric, scoring, testing)


def _mean_resamples(a: ArrayLike, b: ArrayLike, resamples: int, seed: int | None, method: str):  # noqa: ANN202
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    if x.shape != y.shape or x.size == 0:
        raise ValueError("a and b must be non-empty and of equal length")
    check_resampling(resamples, seed)
    cells = cells_from_rows(x, y)
    rng = np.random.default_rng(seed)
    from releval.metrics.cells import bootstrap_totals, randomization_totals

    draw = bootstrap_totals if method == "bootstrap" else randomization_totals
    ma, mb = [], []
    for ta, tb in draw(cells, resamples, rng):
        ma.append(ta[:, 0] / x.size)
        mb.append(tb[:, 0] / x.size)
    return float(x.mean()), float(y.mean()), np.concatenate(ma), np.concatenate(mb)


def paired_bootstrap_scores(
    a: ArrayLike,
    b: ArrayLike,
    *,
    alternative: str = "two-sided",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> MetricComparison:
    """Paired bootstrap of mean(a) − mean(b) for additive per-item scores (same p-value rules as for F)."""
    _check_alternative(alternative)
    check_confidence(confidence)
    sa, sb, fa, fb = _mean_resamples(a, b, resamples, seed, "bootstrap")
    return MetricComparison(
        "mean",
        sa,
        sb,
        bootstrap_p_values(fa - fb, sa - sb),
        alternative,
        _percentile(fa, confidence),
        _percentile(fb, confidence),
        _percentile(fa - fb, confidence),
    )


def approximate_randomization_scores(
    a: ArrayLike,
    b: ArrayLike,
    *,
    alternative: str = "two-sided",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
) -> MetricComparison:
    """Sign-flip randomization test of mean(a) − mean(b) for additive per-item scores."""
    _check_alternative(alternative)
    sa, sb, fa, fb = _mean_resamples(a, b, resamples, seed, "randomization")
    return MetricComparison("mean", sa, sb, randomization_p_values(fa - fb, sa - sb), alternative)


@dataclass(frozen=True)
class DiscordantTest:
    """McNemar or sign test: discordant counts b (A better) and c (B better), statistic, p, accuracy difference."""

    test: str
    b: int
    c: int
    statistic: float
    p_value: float
    alternative: str
    effect: float = 0.0
    score_a: float | None = None
    score_b: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field; `from_dict` reads it back."""
        fields = ("test", "b", "c", "statistic", "p_value", "alternative", "effect", "score_a", "score_b")
        return {**header("discordant-test"), **{k: getattr(self, k) for k in fields}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DiscordantTest:
        """The test `to_dict()` wrote (ValueError when it is not one)."""
        what = "discordant-pair test"
        check_schema(data, what, "discordant-test")
        with reading(what):
            return cls(
                known(data["test"], _DISCORDANT_NAMES, what, "test"),
                int(data["b"]),
                int(data["c"]),
                float_or_nan(data["statistic"]),
                float_or_nan(data["p_value"]),
                known(data["alternative"], ALTERNATIVES, what, "alternative"),
                float_or_nan(data["effect"]),
                _optional_float(data.get("score_a")),
                _optional_float(data.get("score_b")),
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, NaN equal to NaN."""
        if not isinstance(other, DiscordantTest):
            return NotImplemented
        return same(self, other)


def mcnemar_counts(b: int, c: int, *, alternative: str = "two-sided", variant: str = "exact") -> DiscordantTest:
    """McNemar from discordant counts: exact binomial (default), χ² = (b−c)²/(b+c), or Edwards' (|b−c|−1)²/(b+c)."""
    _check_alternative(alternative)
    check_choice(variant, MCNEMAR_VARIANTS, "mcnemar_variant")
    b, c = int(b), int(c)
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    m = b + c
    if m == 0:
        return DiscordantTest(f"mcnemar-{variant}", b, c, 0.0, 1.0, alternative)
    from scipy import stats  # only the discordant-count tests need SciPy here

    if variant == "exact":
        p = float(stats.binomtest(b, m, 0.5, alternative=alternative).pvalue)
        return DiscordantTest("mcnemar-exact", b, c, float(b), min(1.0, p), alternative)
    corr = 1.0 if variant == "chi2-corrected" else 0.0
    chi2 = (abs(b - c) - corr) ** 2 / m
    if alternative == "two-sided":
        p = float(stats.chi2.sf(chi2, 1))
    else:
        z = math.copysign(max(abs(b - c) - corr, 0.0), b - c) / math.sqrt(m)
        p = float(stats.norm.sf(z) if alternative == "greater" else stats.norm.cdf(z))
    return DiscordantTest(f"mcnemar-{variant}", b, c, chi2, p, alternative)


def sign_test_counts(n_positive: int, n_nonzero: int, *, alternative: str = "two-sided") -> DiscordantTest:
    """Exact sign test: Binomial(n_nonzero, ½) on the number of positive differences (zeros dropped before)."""
    _check_alternative(alternative)
    if n_nonzero == 0:
        return DiscordantTest("sign", 0, 0, 0.0, 1.0, alternative)
    from scipy import stats

    p = float(stats.binomtest(int(n_positive), int(n_nonzero), 0.5, alternative=alternative).pvalue)
    return DiscordantTest(
        "sign", int(n_positive), int(n_nonzero - n_positive), float(n_positive), min(1.0, p), alternative
    )


def _correct(gold: Sequence[str], pred_a: Sequence[str], pred_b: Sequence[str]) -> tuple[NDArray, NDArray]:
    if not (len(gold) == len(pred_a) == len(pred_b)):
        raise ValueError(f"gold and predictions differ in length: {len(gold)}, {len(pred_a)}, {len(pred_b)}")
    g = np.asarray(gold, dtype=object)
    return np.asarray(pred_a, dtype=object) == g, np.asarray(pred_b, dtype=object) == g


def mcnemar(
    gold: Sequence[str],
    pred_a: Sequence[str],
    pred_b: Sequence[str],
    *,
    alternative: str = "two-sided",
    variant: str = "exact",
) -> DiscordantTest:
    """McNemar's test on per-item correctness of A and B; `effect` is accuracy(A) − accuracy(B)."""
    ra, rb = _correct(gold, pred_a, pred_b)
    res = mcnemar_counts(int(np.sum(ra & ~rb)), int(np.sum(~ra & rb)), alternative=alternative, variant=variant)
    acc_a, acc_b = float(ra.mean()) if ra.size else 0.0, float(rb.mean()) if rb.size else 0.0
    return DiscordantTest(res.test, res.b, res.c, res.statistic, res.p_value, alternative, acc_a - acc_b, acc_a, acc_b)


def sign_test(
    gold: Sequence[str], pred_a: Sequence[str], pred_b: Sequence[str], *, alternative: str = "two-sided"
) -> DiscordantTest:
    """Sign test on per-item correctness differences (for 0/1 correctness it equals exact McNemar)."""
    ra, rb = _correct(gold, pred_a, pred_b)
    pos, neg = int(np.sum(ra & ~rb)), int(np.sum(~ra & rb))
    res = sign_test_counts(pos, pos + neg, alternative=alternative)
    acc_a, acc_b = float(ra.mean()) if ra.size else 0.0, float(rb.mean()) if rb.size else 0.0
    return DiscordantTest("sign", pos, neg, res.statistic, res.p_value, alternative, acc_a - acc_b, acc_a, acc_b)


@dataclass(frozen=True)
class CorrectnessTest:
    """A paired test on per-item correctness, as `compare` and `replicability from-predictions` run it.

    `run(gold, pred_a, pred_b, config)` takes the alternative (and any variant) from a `SignificanceConfig`;
    `result_names` are the `DiscordantTest.test` names its results carry, so that a saved result loads back;
    `title` names the test in notes and messages.
    """

    run: Callable[[Sequence[str], Sequence[str], Sequence[str], SignificanceConfig], DiscordantTest]
    result_names: tuple[str, ...]
    title: str


#: The registry of correctness tests, by the name `--test` takes (core.options.PAIRED_TESTS lists every paired
#: test's name for the command line; a test checks that the two agree). Adding a test on per-item correctness is
#: its function above and one line here (docs/contributing.md).
CORRECTNESS_TESTS: dict[str, CorrectnessTest] = {
    "mcnemar": CorrectnessTest(
        lambda g, a, b, t: mcnemar(g, a, b, alternative=t.alternative, variant=t.mcnemar_variant),
        tuple(f"mcnemar-{v}" for v in MCNEMAR_VARIANTS),
        "McNemar",
    ),
    "sign": CorrectnessTest(
        lambda g, a, b, t: sign_test(g, a, b, alternative=t.alternative), ("sign",), "the sign test"
    ),
}
#: "McNemar and the sign test": every correctness test by its title, for notes and messages.
CORRECTNESS_TITLES = " and ".join(", ".join(spec.title for spec in CORRECTNESS_TESTS.values()).rsplit(", ", 1))
_DISCORDANT_NAMES = tuple(name for spec in CORRECTNESS_TESTS.values() for name in spec.result_names)


def correctness_test(
    name: str, gold: Sequence[str], pred_a: Sequence[str], pred_b: Sequence[str], config: SignificanceConfig
) -> DiscordantTest:
    """Run the registered correctness test `name` under `config` (KeyError names the known tests)."""
    try:
        spec = CORRECTNESS_TESTS[name]
    except KeyError:
        raise KeyError(f"{name!r} is not a correctness test ({', '.join(CORRECTNESS_TESTS)})") from None
    return spec.run(gold, pred_a, pred_b, config)
