"""The paired bootstrap distribution of Δ = F(B) − F(A) under one average, with its interval and 0 marked.

A paired comparison's result keeps the interval of Δ, not the resampled Δ themselves, so they are drawn again
here, on the one comparison path: the systems become the `Scored` that `releval compare` builds
(releval.significance.compare.scored_systems: the same checks, signature and warnings), and the pair's
`pair_statistics` are drawn by `releval.metrics.cells.resampled_f` and read by
`releval.significance.paired.comparison_rows`. For the same Configs and seed the draws, the interval and the
p-value are those of `paired_bootstrap(gold, pred_b, pred_a)`, of `releval compare` on these two systems alone
with A as --baseline, and — for one class (`label`) — of that class's row in `releval compare --per-class B A`
(releval.significance.per_class, before the correction across classes). (With three systems or more, compare
draws every pair from one joint resample: the same distribution, other draws for a seed.)

Δ is B minus A: positive when B, the system, beats A, the baseline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import OptionError
from releval.core.signature import Signature
from releval.core.validation import check_choice, check_nonempty
from releval.metrics.cells import f_scores, resampled_f
from releval.report.figures.base import metric_name, new_figure, settle_layout, title_with
from releval.significance.config import SignificanceConfig, split_settings
from releval.significance.paired import MetricComparison, comparison_rows
from releval.tasks.classification import ClassificationConfig

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: What each alternative's p-value tests, in the figure's terms.
_HYPOTHESIS = {"two-sided": "{b} ≠ {a}", "greater": "{b} > {a}", "less": "{b} < {a}"}

#: Most bins of the histogram: more would draw the lattice of attainable F differences, not a distribution.
MAX_BINS = 100


@dataclass(frozen=True)
class DeltaData:
    """What the bootstrap figure plots: Δ* = F(B) − F(A) in each resample (fractions, in draw order) and the test's
    row for B against A (`comparison`: both scores, the observed Δ, its percentile interval, p)."""

    metric: str
    system_a: str
    system_b: str
    deltas: NDArray[np.float64]
    comparison: MetricComparison
    confidence: float
    resamples: int
    seed: int | None
    n_items: int
    beta: float
    signature: Signature
    #: Whether `metric` names a class whose own F is resampled (`bootstrap_deltas(label=…)`), not an average.
    of_class: bool = False

    @property
    def score_a(self) -> float:
        """F of A, the baseline (the test's second system)."""
        return self.comparison.score_b

    @property
    def score_b(self) -> float:
        """F of B (the test's first system)."""
        return self.comparison.score_a

    @property
    def effect(self) -> float:
        """The observed Δ = F(B) − F(A)."""
        return self.comparison.effect

    @property
    def ci(self) -> tuple[float, float]:
        """The percentile interval of Δ at `confidence`."""
        assert self.comparison.ci_effect is not None  # a bootstrap row always has one
        return self.comparison.ci_effect

    @property
    def p_value(self) -> float:
        """The bootstrap p-value under the test's alternative (greater: B > A)."""
        return self.comparison.p_value

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the settings, both scores, Δ with its interval and p, and every Δ*."""
        return {
            "metric": self.metric,
            "system_a": self.system_a,
            "system_b": self.system_b,
            "score_a": self.score_a,
            "score_b": self.score_b,
            "effect": self.effect,
            "ci": list(self.ci),
            "confidence": self.confidence,
            "p_value": self.p_value,
            "alternative": self.comparison.alternative,
            "resamples": self.resamples,
            "seed": self.seed,
            "n_items": self.n_items,
            "of_class": self.of_class,
            "deltas": self.deltas.tolist(),
            **self.signature.to_json(),
        }


def bootstrap_deltas(
    gold: Sequence[str],
    pred_a: Sequence[str],
    pred_b: Sequence[str],
    config: ClassificationConfig | None = None,
    test: SignificanceConfig | None = None,
    *,
    metric: str = "micro",
    names: tuple[str, str] = ("A", "B"),
    label: str | None = None,
    **settings: Any,
) -> DeltaData:
    """Every paired-bootstrap Δ* = F(B) − F(A) under `metric` (micro or a weighting of the Config) — or, given a
    `label`, of that class's own F — for aligned label sequences, with the interval and p-value the test gives.
    `config`, `test` and keyword `settings` as for `releval.significance.paired.paired_bootstrap`; `names` = (A, B)
    for the figure's labels.

    >>> gold, a, b = ["r", "s", "r", "N"] * 5, ["r", "s", "N", "N"] * 5, ["r", "s", "r", "N"] * 5
    >>> data = bootstrap_deltas(gold, a, b, negative="N", label="r", resamples=99, seed=1)
    >>> data.metric, round(data.effect, 4)  # F(r): B 1, A 2/3 (P 1, R 1/2)
    ('r', 0.3333)
    """
    from releval.significance.compare import scored_systems
    from releval.significance.per_class import class_f, resampled_class_f

    scoring, testing = split_settings(ClassificationConfig, config, test, settings)
    if "bootstrap" not in testing.tests:
        testing = replace(testing, tests=("bootstrap",))
    for name in names:
        check_nonempty(name, "names")
    if names[0] == names[1]:
        raise OptionError(f"names: the two systems need different names, got {names[0]!r} twice", option="names")
    scored = scored_systems(list(gold), {names[0]: [list(pred_a)], names[1]: [list(pred_b)]}, scoring, testing, True)
    assert scored.pair_statistics is not None  # classification's Scored has them
    (pair,) = scored.pair_statistics(names[1], names[0])  # B first: the test's A − B is B − A
    tot_b, tot_a = pair.cells.observed()
    if label is None:
        metric = metric.strip().lower()
        check_choice(metric, tuple(scoring.average_names), "metric")
        observed = f_scores(tot_b, pair.spec)[metric], f_scores(tot_a, pair.spec)[metric]
        fb, fa = resampled_f(
            pair.cells, pair.spec, testing.resamples, testing.seed, "bootstrap", class_set=testing.class_set
        )[metric]
    else:
        metric = _class_of(label, pair.labels, pair.spec, tot_a)
        classes = np.array([list(pair.labels).index(metric)], dtype=np.intp)
        draws = resampled_class_f(
            pair.cells, pair.spec, classes, testing.resamples, testing.seed, "bootstrap", testing.class_set
        )
        fb, fa = draws.per_class_a[0], draws.per_class_b[0]
        observed = class_f(tot_b, classes, pair.spec)[0], class_f(tot_a, classes, pair.spec)[0]
    row = comparison_rows({metric: observed[0]}, {metric: observed[1]}, {metric: (fb, fa)}, "bootstrap", testing)
    return DeltaData(
        metric,
        names[0],
        names[1],
        fb - fa,
        row[metric],
        testing.confidence,
        testing.resamples,
        testing.seed,
        scored.n,
        scoring.beta,
        scored.signature(testing.signature_fields()),
        label is not None,
    )


def _class_of(label: str, labels: Sequence[str], spec: Any, totals: Any) -> str:
    """`label` when it is a positive class with gold support in the pair's cells (a class `compare --per-class`
    compares), else an OptionError naming those classes."""
    from releval.metrics.cells import counts_of

    support = counts_of(totals, len(labels)).support
    compared = [x for i, x in enumerate(labels) if spec.positive[i] and support[i] > 0]
    if label not in compared:
        raise OptionError(
            f"class: {label!r} is not a positive class with gold items; choose from {', '.join(compared)}",
            option="class",
        )
    return label


def _signed(value: float) -> str:
    """+1.23 or −1.23 (a true minus sign, as on the axis)."""
    return f"{value:+.2f}".replace("-", "−")


def histogram_edges(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Bin edges for the Δ* histogram: NumPy's 'auto' rule, at most `MAX_BINS` bins, one bin around a constant."""
    lo, hi = float(values.min()), float(values.max())
    if hi - lo < 1e-12:
        return np.array([lo - 0.5, hi + 0.5])
    edges = np.histogram_bin_edges(values, bins="auto")
    return edges if len(edges) <= MAX_BINS + 1 else np.linspace(lo, hi, MAX_BINS + 1)


def bootstrap_figure(
    gold: Sequence[str],
    pred_a: Sequence[str],
    pred_b: Sequence[str],
    config: ClassificationConfig | None = None,
    test: SignificanceConfig | None = None,
    *,
    metric: str = "micro",
    names: tuple[str, str] = ("A", "B"),
    dataset: str | None = None,
    label: str | None = None,
    **settings: Any,
) -> tuple[DeltaData, Figure]:
    """`bootstrap_deltas` and its figure: the histogram of Δ* in percentage points, the observed Δ, the percentile
    interval (shaded) and Δ = 0 (dashed). `dataset` names the data in the title; `label`, a class: its own F."""
    data = bootstrap_deltas(gold, pred_a, pred_b, config, test, metric=metric, names=names, label=label, **settings)
    pp = 100 * data.deltas
    counts, edges = np.histogram(pp, bins=histogram_edges(pp))
    fig = new_figure((10.0, 4.6), what="the bootstrap figure", layout="constrained")
    ax = fig.add_subplot()
    ax.stairs(counts, edges, fill=True, color="C0", alpha=0.7, label=f"Δ* of {data.resamples:,} resamples")
    lo, hi = (100 * v for v in data.ci)
    level = f"{100 * data.confidence:g}%"
    ax.axvspan(lo, hi, color="C1", alpha=0.18, label=f"{level} percentile CI [{_signed(lo)}, {_signed(hi)}]")
    for bound in (lo, hi):
        ax.axvline(bound, color="C1", linewidth=1.0)
    observed = (
        f"observed Δ = {_signed(100 * data.effect)} ({data.system_b} {100 * data.score_b:.2f}%, "
        f"{data.system_a} {100 * data.score_a:.2f}%)"
    )
    ax.axvline(100 * data.effect, color="C3", linewidth=2.0, label=observed)
    ax.axvline(0.0, color="black", linestyle="--", linewidth=1.2, label="Δ = 0 (no difference)")
    left, right = min(float(edges[0]), 0.0), max(float(edges[-1]), 0.0)
    pad = 0.05 * (right - left or 1.0)
    ax.set_xlim(left - pad, right + pad)
    ax.set_ylim(0, 1.05 * max(int(counts.max()), 1))
    f = metric_name("f", data.beta)
    score = f"{f} of class {data.metric}" if data.of_class else f"{data.metric}-{f}"
    ax.set_xlabel(f"Δ {score} = {f}({data.system_b}) − {f}({data.system_a}) (percentage points)")
    ax.set_ylabel("resamples")
    tested = _HYPOTHESIS[data.comparison.alternative].format(a=data.system_a, b=data.system_b)
    ax.plot([], [], " ", label=f"p = {data.p_value:.3g} ({data.comparison.alternative}, {tested})")
    # beside the axes: inside, it would cover bars or the marked lines wherever the distribution lies
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    seed = "none" if data.seed is None else str(data.seed)
    ax.set_title(
        title_with(f"Paired bootstrap of Δ {score}, {data.system_b} − {data.system_a}", dataset)
        + f"\nN = {data.n_items:,} items, {data.resamples:,} resamples, seed {seed}",
        fontsize=10,
    )
    return data, settle_layout(fig)
