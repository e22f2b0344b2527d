"""Evaluating the measures themselves, from the systems' runs alone (issue 33 item 3;
../shared/notes/measures-meta-evaluation.md).

Harbecke et al. (2022, §5) propose a bidimensional leaderboard where measures, like systems, are contributed; a
board that takes measures should say which of them separate systems and which restate micro-F. Information
retrieval evaluates measures without human judgments; three of its tools, computed here from one comparison of k
systems (a `PairedTable` of all pairs, bootstrap) and, for the interval of τ, the joint bootstrap's draws:

* **discriminative power** (Sakai, SIGIR 2006): per measure and test, the share of the k(k − 1)/2 system pairs
  whose difference is significant at α — here by the pair's p-value corrected over all pairs (the table's
  correction; Sakai counts raw achieved significance levels, which `raw=True` gives), with the smallest |Δ|
  found significant (a rough form of Sakai's "sensitivity");
* **agreement**: Kendall's τ-b between the rankings two measures induce on the systems (SciPy's `kendalltau`,
  ties counted as τ-b counts them), with a percentile interval from τ recomputed on each joint bootstrap resample
  (Sakai 2006) when the draws are given;
* **flips**: the system pairs whose order differs between two measures (micro vs macro: Harbecke's central
  observation), each with whether it is significant under both measures.

Example
-------
>>> import numpy as np
>>> tau_b(np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 3.0, 2.0, 4.0]))
0.6666666666666666
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

from releval.significance.tables import PairedTable

#: The level of discriminative power and of the flips' significance.
META_ALPHA = 0.05


def tau_b(x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
    """Kendall's τ-b of two score vectors over the same systems (NaN when either is constant): concordant minus
    discordant pairs over √((n0 − n1)(n0 − n2)), n1 and n2 the pairs tied in x and in y — SciPy's `kendalltau`
    (variant 'b'), tests/test_meta_measures.py."""
    return float(tau_b_columns(x[:, None], y[:, None])[0])


def tau_b_columns(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    """τ-b of each column of x (systems × resamples) with the same column of y, all columns at once."""
    i, j = np.triu_indices(x.shape[0], k=1)
    sx = np.sign(x[i] - x[j])
    sy = np.sign(y[i] - y[j])
    s = (sx * sy).sum(axis=0)
    untied_x = (sx != 0).sum(axis=0).astype(np.float64)
    untied_y = (sy != 0).sum(axis=0).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((untied_x > 0) & (untied_y > 0), s / np.sqrt(untied_x * untied_y), np.nan)


@dataclass(frozen=True)
class Power:
    """One measure's discriminative power under one test: `significant` of `pairs` pairs at `alpha`, and the
    smallest |Δ| (fraction) among the significant ones (None when none is)."""

    test: str
    metric: str
    pairs: int
    significant: int
    alpha: float
    smallest: float | None

    @property
    def share(self) -> float:
        return self.significant / self.pairs if self.pairs else float("nan")


@dataclass(frozen=True)
class Agreement:
    """Kendall's τ-b between two measures' rankings of the systems, with its bootstrap percentile interval."""

    a: str
    b: str
    tau: float
    interval: tuple[float, float] | None = None


@dataclass(frozen=True)
class Flip:
    """A pair ordered one way by measure `a` and the other by `b`: Δ = first − second under each, and the
    pair's adjusted p under each (`significant`: below α under both)."""

    a: str
    b: str
    first: str
    second: str
    delta_a: float
    delta_b: float
    p_a: float
    p_b: float
    significant: bool


@dataclass(frozen=True)
class Stability:
    """One measure's swap rate (Voorhees and Buckley 2002): over `splits` random splits of the items into two
    disjoint halves and the k(k − 1)/2 system pairs, the share of (split, pair) whose two halves order the pair
    differently (`rate`), overall and per bin of the pair's observed |Δ| (`bins`: (low, high, rate, count),
    fractions; high None for the last, open bin)."""

    metric: str
    splits: int
    rate: float
    bins: tuple[tuple[float, float | None, float, int], ...]


#: The |Δ| bins of the swap rates (fractions): 0–1, 1–2, 2–5 points and above.
SWAP_BINS = (0.0, 0.01, 0.02, 0.05)


def swap_rates(
    observed: Mapping[str, NDArray[np.float64]],
    first: Mapping[str, NDArray[np.float64]],
    second: Mapping[str, NDArray[np.float64]],
    edges: Sequence[float] = SWAP_BINS,
) -> list[Stability]:
    """Per measure: the swap rate of every system pair between the halves of each split (`first`, `second`:
    {measure: systems × splits}), binned by the pair's observed |Δ| (`observed`: {measure: (systems,)}). A pair
    tied on a half is no swap; a swap is one half ordering A above B and the other B above A."""
    out = []
    for metric, obs in observed.items():
        a, b = first[metric], second[metric]
        i, j = np.triu_indices(obs.shape[0], k=1)
        swapped = (np.sign(a[i] - a[j]) * np.sign(b[i] - b[j])) < 0  # pairs × splits
        gap = np.abs(obs[i] - obs[j])
        bins = []
        for n, low in enumerate(edges):
            high = edges[n + 1] if n + 1 < len(edges) else None
            in_bin = (gap >= low) & (gap < high) if high is not None else gap >= low
            count = int(in_bin.sum())
            rate = float(swapped[in_bin].mean()) if count else float("nan")
            bins.append((float(low), None if high is None else float(high), rate, count))
        out.append(
            Stability(metric, int(a.shape[1]), float(swapped.mean()) if swapped.size else float("nan"), tuple(bins))
        )
    return out


@dataclass
class MeasureEvaluation:
    """Every table of the meta-evaluation of a comparison's measures."""

    power: list[Power]
    agreement: list[Agreement]
    flips: list[Flip]
    systems: int
    resamples: int | None = None
    notes: list[str] = field(default_factory=list)
    stability: list[Stability] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready (`meta_dict`)."""
        return meta_dict(self)


def discriminative_power(table: PairedTable, alpha: float = META_ALPHA, *, raw: bool = False) -> list[Power]:
    """Per (test, measure) of the table's pair rows: the pairs significant at `alpha` (adjusted p, or raw p)."""
    out = []
    for test, metric in dict.fromkeys((r.test, r.metric) for r in table.rows):
        rows = [r for r in table.rows if (r.test, r.metric) == (test, metric)]
        significant = [r for r in rows if (r.p_value if raw else r.p_adjusted) < alpha]
        smallest = min((abs(r.effect) for r in significant), default=None)
        out.append(Power(test, metric, len(rows), len(significant), alpha, smallest))
    return out


def agreements(
    table: PairedTable,
    draws: Mapping[str, NDArray[np.float64]] | None = None,
    confidence: float = 0.95,
) -> list[Agreement]:
    """Kendall's τ-b of every pair of the table's measures over its systems (observed scores), with the
    percentile interval of τ over the joint bootstrap's resamples when `draws` ({measure: systems × resamples},
    systems in the table's order) are given."""
    names = list(table.scores)
    out = []
    for a, b in combinations(table.metrics, 2):
        x = np.array([table.scores[n][a] for n in names], dtype=np.float64)
        y = np.array([table.scores[n][b] for n in names], dtype=np.float64)
        interval = None
        if draws is not None and a in draws and b in draws:
            taus = tau_b_columns(draws[a], draws[b])
            taus = taus[~np.isnan(taus)]
            if taus.size:
                tail = (1.0 - confidence) / 2.0
                interval = (float(np.quantile(taus, tail)), float(np.quantile(taus, 1.0 - tail)))
        out.append(Agreement(a, b, tau_b(x, y), interval))
    return out


def flips(table: PairedTable, measures: Sequence[str] | None = None, alpha: float = META_ALPHA) -> list[Flip]:
    """The system pairs ordered differently by two measures (each pair of `measures`, default: micro against every
    other measure of the table), from the bootstrap rows (else the first test's)."""
    tests = list(dict.fromkeys(r.test for r in table.rows))
    test = "bootstrap" if "bootstrap" in tests else (tests[0] if tests else "")
    index = {(r.metric, r.a, r.b): r for r in table.rows if r.test == test}
    metrics = list(measures) if measures is not None else list(table.metrics)
    first, rest = metrics[0], metrics[1:]
    out = []
    for other in rest:
        for x, y in combinations(list(table.scores), 2):
            ra, rb = index.get((first, x, y)), index.get((other, x, y))
            if ra is None or rb is None:
                continue
            if ra.effect * rb.effect < 0:
                top, low = (x, y) if ra.effect > 0 else (y, x)
                sign = 1.0 if top == x else -1.0
                out.append(
                    Flip(
                        first,
                        other,
                        top,
                        low,
                        sign * ra.effect,
                        sign * rb.effect,
                        ra.p_adjusted,
                        rb.p_adjusted,
                        ra.p_adjusted < alpha and rb.p_adjusted < alpha,
                    )
                )
    return out


def evaluate_measures(
    table: PairedTable,
    draws: Mapping[str, NDArray[np.float64]] | None = None,
    alpha: float = META_ALPHA,
    halves: tuple[Mapping[str, NDArray[np.float64]], Mapping[str, NDArray[np.float64]]] | None = None,
) -> MeasureEvaluation:
    """The meta-evaluation of a table of all pairs (see the module); `halves`: each system's scores on the two
    halves of random splits of the items ({measure: systems × splits} each, systems in the table's order) for the
    swap rates."""
    notes = [
        f"discriminative power: the share of the {len(table.scores) * (len(table.scores) - 1) // 2} system pairs "
        f"significant at {alpha:g} ({table.correction}-adjusted p over all pairs; Sakai 2006)",
        "agreement: Kendall's τ-b between the measures' rankings of the systems"
        + (", 95% percentile interval over the joint bootstrap's resamples" if draws is not None else ""),
    ]
    resamples = table.signature.get("resamples")
    stability = []
    if halves is not None:
        names = list(table.scores)
        observed = {m: np.array([table.scores[n][m] for n in names], dtype=np.float64) for m in table.metrics}
        stability = swap_rates(observed, halves[0], halves[1])
        notes.append(
            "stability: the share of (split, pair) whose two disjoint halves of the items order the pair "
            "differently (Voorhees & Buckley 2002), by the pair's observed |Δ|"
        )
    return MeasureEvaluation(
        discriminative_power(table, alpha),
        agreements(table, draws, table.confidence or 0.95),
        flips(table, alpha=alpha),
        len(table.scores),
        None if resamples is None or resamples in ("", "none") else int(resamples),
        notes,
        stability,
    )


def meta_dict(meta: MeasureEvaluation) -> dict[str, object]:
    """The meta-evaluation as JSON-ready data (fractions, not percents)."""
    return {
        "systems": meta.systems,
        "resamples": meta.resamples,
        "discriminative_power": [
            {"test": p.test, "metric": p.metric, "pairs": p.pairs, "significant": p.significant, "share": p.share,
             "alpha": p.alpha, "smallest_significant_delta": p.smallest}
            for p in meta.power
        ],
        "agreement": [
            {"a": g.a, "b": g.b, "tau_b": g.tau, "interval": list(g.interval) if g.interval else None}
            for g in meta.agreement
        ],
        "flips": [
            {"a": f.a, "b": f.b, "first": f.first, "second": f.second, "delta_a": f.delta_a, "delta_b": f.delta_b,
             "p_a": f.p_a, "p_b": f.p_b, "significant_under_both": f.significant}
            for f in meta.flips
        ],
        "stability": [
            {"metric": t.metric, "splits": t.splits, "swap_rate": t.rate,
             "bins": [{"low": lo, "high": hi, "swap_rate": r, "pairs": c} for lo, hi, r, c in t.bins]}
            for t in meta.stability
        ],
        "notes": list(meta.notes),
    }  # fmt: skip
