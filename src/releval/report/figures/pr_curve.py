"""The precision-recall curves of ranked relation facts (`--task ranked`, NYT10 held-out): one line per system,
recall on x and precision on y over the whole ranking, the AUC in the legend and a marker at each P@N.

The curves are the results' own (releval.tasks.ranked.RankedResult.curve), thinned to at most `max_points` points
per system for drawing and for the JSON data (the first and last points and the P@N ranks always kept); the AUC
is the result's, computed on every point.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import OptionError
from releval.report.figures.base import new_figure, percent_axis, settle_layout, title_with
from releval.tasks.ranked import RankedResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Points kept per curve (a NYT10 ranking has ~10^6).
MAX_POINTS = 2000


@dataclass(frozen=True)
class CurveData:
    """What the figure plots (fractions): per system its thinned (recall, precision) points, the rank of each
    point (1-based), its AUC and P@N."""

    systems: list[str]
    ranks: list[NDArray[np.int64]]
    recall: list[NDArray[np.float64]]
    precision: list[NDArray[np.float64]]
    auc: list[float]
    precision_at: list[dict[int, float]]
    facts: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "facts": self.facts,
            "systems": [
                {
                    "system": name,
                    "auc": auc,
                    "precision_at": {str(n): v for n, v in p_at.items()},
                    "rank": ranks.tolist(),
                    "recall": recall.tolist(),
                    "precision": precision.tolist(),
                }
                for name, ranks, recall, precision, auc, p_at in zip(
                    self.systems, self.ranks, self.recall, self.precision, self.auc, self.precision_at
                )
            ],
        }


def thin(n: int, keep: Sequence[int] = (), max_points: int = MAX_POINTS) -> NDArray[np.int64]:
    """At most about `max_points` indices of 0..n-1, evenly spread, with the first, the last and `keep`.

    >>> thin(10, (5,), max_points=3).tolist()
    [0, 4, 5, 9]
    """
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    spread = np.linspace(0, n - 1, min(n, max_points)).round().astype(np.int64)
    extra = np.asarray([k for k in keep if 0 <= k < n], dtype=np.int64)
    return np.unique(np.concatenate((spread, extra)))


def pr_curves(results: Sequence[RankedResult], max_points: int = MAX_POINTS) -> CurveData:
    """The curves of results scored on the same gold (the same facts; else an OptionError)."""
    if not results:
        raise OptionError("precision-recall figure: no results given", option="results")
    facts = {r.n_facts for r in results}
    if len(facts) > 1:
        raise OptionError("precision-recall figure: the results were scored on different gold facts")
    at = [n for n in results[0].measures if n.startswith("p@") and n[2:].isdigit()]  # P@N, not P@R%
    ranks, recall, precision = [], [], []
    for r in results:
        if r.curve is None:
            raise OptionError(
                f"precision-recall figure: {r.system}'s result was read back from JSON, which keeps no curve: "
                "score its ranking file again",
                option="results",
            )
        idx = thin(r.curve.predictions, [int(n[2:]) - 1 for n in at], max_points)
        ranks.append(idx + 1)
        recall.append(r.curve.recall[idx])
        precision.append(r.curve.precision[idx])
    return CurveData(
        [r.system for r in results],
        ranks,
        recall,
        precision,
        [r.measures["auc"] for r in results],
        [{int(n[2:]): r.measures[n] for n in at} for r in results],
        facts.pop(),
    )


def pr_curve_figure(
    results: Sequence[RankedResult], *, dataset: str | None = None, max_points: int = MAX_POINTS
) -> tuple[CurveData, Figure]:
    """`pr_curves` and its figure: precision against recall per system, AUC in the legend, P@N marked."""
    data = pr_curves(results, max_points)
    fig = new_figure((6.4, 4.8), what="the precision-recall figure", layout="constrained")
    ax = fig.add_subplot()
    for i, name in enumerate(data.systems):
        ax.plot(
            100 * data.recall[i],
            100 * data.precision[i],
            color=f"C{i}",
            linewidth=1.2,
            label=f"{name} (AUC {data.auc[i]:.4f})",
        )
        for n in data.precision_at[i]:
            hit = np.flatnonzero(data.ranks[i] == n)
            if hit.size:
                k = int(hit[0])
                point = (100 * data.recall[i][k], 100 * data.precision[i][k])
                ax.plot(*point, marker="o", markersize=4, color=f"C{i}")
                ax.annotate(f"P@{n}", point, fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel(f"recall (of {data.facts:,} gold facts)")
    ax.set_ylabel("precision")
    percent_axis(ax.xaxis, decimals=0)
    percent_axis(ax.yaxis, decimals=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.suptitle(title_with("Precision-recall over the ranking (held-out facts)", dataset), fontsize=10)
    return data, settle_layout(fig)
