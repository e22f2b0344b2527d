"""Per-class scores of several systems next to their averages: where each system wins and loses, and how each
weighting sums that up.

The classes are the positive classes with gold support (the negative class is in no average; a label only
predicted has support 0 and F = 0 whatever the system), by support (descending), as in the class-weights figure.
The values are the results' own per-class rows and averages (`releval.result.ScoreResult`), not recomputed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import OptionError
from releval.core.validation import check_choice
from releval.report.figures.base import class_ticks, metric_name, new_figure, percent_axis, settle_layout, title_with
from releval.result import ScoreResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The per-class and average scores that can be plotted (ClassRow / Average attributes).
METRICS = ("f", "precision", "recall")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


@dataclass(frozen=True)
class PerClassData:
    """What the per-class figure plots (fractions in [0, 1]).

    `values[s, c]`: system s's score on class c (`classes`, by gold support descending; NaN when the system's result
    has no row for it); `averages[name][s]`: system s's average under that name (micro, weighted, …)."""

    systems: list[str]
    classes: list[str]
    support: NDArray[np.int64]
    values: NDArray[np.float64]
    averages: dict[str, NDArray[np.float64]]
    metric: str
    n_items: int
    beta: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, NaN written as null."""
        return {
            "metric": self.metric,
            "systems": list(self.systems),
            "classes": list(self.classes),
            "support": self.support.tolist(),
            "values": [[_json(v) for v in row] for row in self.values.tolist()],
            "averages": {name: [_json(v) for v in a.tolist()] for name, a in self.averages.items()},
            "n_items": self.n_items,
        }


def _json(value: float) -> float | None:
    return None if math.isnan(value) else value


def per_class_scores(
    results: Sequence[ScoreResult],
    *,
    metric: str = "f",
    averages: Sequence[str] | None = None,
) -> PerClassData:
    """The per-class `metric` (f, precision or recall) of every result and its `averages` (default: every average
    all results have, in the first one's order). The results must be of the same gold items (same supports):
    otherwise their classes are not comparable and an OptionError says which class differs."""
    check_choice(metric, METRICS, "metric")
    if not results:
        raise OptionError("per-class figure: no results given", option="results")
    support: dict[str, int] = {}
    for result in results:
        for row in result.per_class:
            if not row.positive or row.support == 0:
                continue
            known = support.setdefault(row.label, row.support)
            if known != row.support:
                raise OptionError(
                    f"per-class figure: class {row.label!r} has {known} gold items in one result and {row.support} "
                    f"in {result.system!r}: the results were not scored on the same gold",
                    option="results",
                )
    classes = sorted(support, key=lambda label: (-support[label], label))
    index = {label: i for i, label in enumerate(classes)}
    values = np.full((len(results), len(classes)), np.nan)
    for s, result in enumerate(results):
        for row in result.per_class:
            if row.label in index:
                values[s, index[row.label]] = getattr(row, metric)
    names = _averages(results, averages)
    return PerClassData(
        [r.system for r in results],
        classes,
        np.array([support[c] for c in classes], dtype=np.int64),
        values,
        {name: np.array([getattr(r.averages[name], metric) for r in results], dtype=np.float64) for name in names},
        metric,
        results[0].n,
        results[0].signature.get("beta"),
    )


def _averages(results: Sequence[ScoreResult], averages: Sequence[str] | None) -> list[str]:
    common = [name for name in results[0].averages if all(name in r.averages for r in results)]
    if averages is None:
        return common
    for name in averages:
        if name not in common:
            raise OptionError(
                f"per-class figure: average {name!r} is not in every result; choose from {', '.join(common)}",
                option="averages",
            )
    return list(dict.fromkeys(averages))


def per_class_figure(
    results: Sequence[ScoreResult],
    *,
    metric: str = "f",
    averages: Sequence[str] | None = None,
    dataset: str | None = None,
    names: Mapping[str, str] | None = None,
) -> tuple[PerClassData, Figure]:
    """`per_class_scores` and its figure: on the left each class's score per system (one marker series per
    system, classes by support), on the right, on the same scale, each system's averages (one column per
    average). `dataset` names the data in the title; `names` ({class: name}, e.g. DocRED's relation names) are
    shown beside the class ids. Many classes (more than HORIZONTAL_FROM) or names: the classes are rows, one per
    line, the figure as tall as they need (every name readable, none overlapping), the averages below."""
    data = per_class_scores(results, metric=metric, averages=averages)
    k, s, a = len(data.classes), len(data.systems), len(data.averages)
    named = [f"{c} {names[c]}" if names and names.get(c) else c for c in data.classes]
    ticks = [f"{c} ({n:,})" for c, n in zip(named, data.support.tolist())]
    if k > HORIZONTAL_FROM or any(n != c for n, c in zip(named, data.classes)):
        return data, _horizontal(data, ticks, metric, dataset)
    fig = new_figure((max(7.0, 3.8 + 0.24 * k + 0.45 * a), 5.6), what="the per-class figure", layout="constrained")
    grid = fig.add_gridspec(1, 2, width_ratios=[max(k, 1), max(2.0, 0.9 * a)])
    left = fig.add_subplot(grid[0, 0])
    right = fig.add_subplot(grid[0, 1], sharey=left)
    spread = 0.5 / max(s, 1)  # systems side by side within a class, so equal scores do not hide each other
    name = metric_name(metric, data.beta)
    for i, system in enumerate(data.systems):
        offset = (i - (s - 1) / 2) * spread
        style: dict[str, Any] = {"marker": _MARKERS[i % len(_MARKERS)], "color": f"C{i}", "markersize": 5}
        left.plot(np.arange(k) + offset, 100 * data.values[i], linestyle="none", label=system, **style)
        right.plot(
            np.arange(a) + offset,
            [100 * v[i] for v in data.averages.values()],
            linestyle="-",
            linewidth=0.8,
            **style,
        )
    class_ticks(left, ticks)
    left.set_xlabel("positive class (gold items), by gold support")
    left.set_ylabel(f"{name} (%)")
    left.set_ylim(-3, 103)
    percent_axis(left.yaxis, decimals=0)
    for axes in (left, right):
        axes.grid(axis="y", alpha=0.3)
    right.set_xticks(range(a))
    right.set_xticklabels(list(data.averages), rotation=90)
    right.set_xlim(-0.6, a - 0.4)
    right.set_xlabel("average")
    right.tick_params(axis="y", labelleft=False)
    left.legend(loc="lower left", bbox_to_anchor=(0.0, 1.01), ncol=min(s, 6), fontsize=8, frameon=False)
    what = f"Per-class {name} of {s} system{'s' if s != 1 else ''}"
    fig.suptitle(title_with(what, dataset) + f" (N = {data.n_items:,} items), and their averages", fontsize=10)
    return data, settle_layout(fig)


#: Above this many classes the per-class figure draws them as rows (the figure grows in height).
HORIZONTAL_FROM = 40
#: Height of one class row in inches: more than a 7-pt tick label's height, so that labels never overlap.
ROW_INCHES = 0.2


def _horizontal(data: PerClassData, ticks: list[str], metric: str, dataset: str | None) -> Figure:
    """The per-class figure with the classes as rows (most gold support on top) and the averages as rows below,
    on the same score axis; the height grows with the number of classes (ROW_INCHES each)."""
    k, s, a = len(data.classes), len(data.systems), len(data.averages)
    longest = max(map(len, ticks), default=0)
    height = 1.6 + ROW_INCHES * (k + a + 2)
    width = max(7.0, 4.5 + 0.06 * longest)
    fig = new_figure((width, height), what="the per-class figure", layout="constrained")
    grid = fig.add_gridspec(2, 1, height_ratios=[max(k, 1), max(a, 1) + 1])
    top = fig.add_subplot(grid[0, 0])
    bottom = fig.add_subplot(grid[1, 0], sharex=top)
    spread = 0.5 / max(s, 1)
    name = metric_name(metric, data.beta)
    for i, system in enumerate(data.systems):
        offset = (i - (s - 1) / 2) * spread
        style: dict[str, Any] = {"marker": _MARKERS[i % len(_MARKERS)], "color": f"C{i}", "markersize": 4}
        top.plot(100 * data.values[i], np.arange(k) + offset, linestyle="none", label=system, **style)
        bottom.plot([100 * v[i] for v in data.averages.values()], np.arange(a) + offset, linestyle="none", **style)
    class_ticks(top, ticks, axis="y")
    top.set_ylim(k - 0.4, -0.6)  # most support on top
    top.set_ylabel("positive class (gold items), by gold support")
    bottom.set_yticks(range(a))
    bottom.set_yticklabels(list(data.averages))
    bottom.set_ylim(a - 0.4, -0.6)
    bottom.set_ylabel("average")
    bottom.set_xlabel(f"{name} (%)")
    top.set_xlim(-3, 103)
    percent_axis(bottom.xaxis, decimals=0)
    top.tick_params(axis="x", labelbottom=True)
    percent_axis(top.xaxis, decimals=0)
    for axes in (top, bottom):
        axes.grid(axis="x", alpha=0.3)
    top.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=min(s, 6), fontsize=8, frameon=False)
    what = f"Per-class {name} of {s} system{'s' if s != 1 else ''}"
    fig.suptitle(title_with(what, dataset) + f" (N = {data.n_items:,} items), and their averages", fontsize=10)
    return settle_layout(fig)
