"""FewRel accuracy of several systems per N-way K-shot setting, each with its bootstrap interval over episodes, and
per-relation accuracy (`releval plot episodes`): where the systems' intervals overlap, one number per paper
cannot tell them apart.

The values are the results' own (releval.tasks.fewrel.FewRelResult), not recomputed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import OptionError
from releval.report.figures.base import class_ticks, new_figure, percent_axis, settle_layout, title_with
from releval.tasks.fewrel import FewRelResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


@dataclass(frozen=True)
class EpisodesData:
    """What the figure plots (fractions in [0, 1]): `accuracy[s, k]` of system s in setting k with its interval
    `low`/`high`, and `relation_accuracy[s, r]` per gold relation (NaN where a system has no row)."""

    systems: list[str]
    settings: list[str]
    accuracy: NDArray[np.float64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    relations: list[str]
    relation_accuracy: NDArray[np.float64]
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, NaN written as null."""

        def listed(a: NDArray[np.float64]) -> list[list[float | None]]:
            return [[None if math.isnan(v) else v for v in row] for row in a.tolist()]

        return {
            "systems": list(self.systems),
            "settings": list(self.settings),
            "accuracy": listed(self.accuracy),
            "low": listed(self.low),
            "high": listed(self.high),
            "confidence": self.confidence,
            "relations": list(self.relations),
            "relation_accuracy": listed(self.relation_accuracy),
        }


def episode_scores(results: Sequence[FewRelResult]) -> EpisodesData:
    """Every result's accuracy per setting with its interval, and per relation; the results must be of the same
    gold episodes (same signature gold digest), else an OptionError."""
    if not results:
        raise OptionError("episodes figure: no results given", option="results")
    digests = {r.signature.get("gold") for r in results}
    if len(digests) > 1:
        raise OptionError("episodes figure: the results were not scored on the same gold episodes", option="results")
    settings = [s.name for s in results[0].settings]
    relations = list(dict.fromkeys(r.relation for result in results for r in result.relations))
    shape = (len(results), len(settings))
    acc, low, high = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
    rel = np.full((len(results), len(relations)), np.nan)
    for i, result in enumerate(results):
        for k, row in enumerate(result.settings):
            acc[i, k] = row.accuracy
            if row.ci is not None:
                low[i, k], high[i, k] = row.ci
        index = {r.relation: r for r in result.relations}
        for j, name in enumerate(relations):
            if name in index:
                rel[i, j] = index[name].accuracy
    return EpisodesData([r.system for r in results], settings, acc, low, high, relations, rel, results[0].confidence)


def episodes_figure(results: Sequence[FewRelResult], *, dataset: str | None = None) -> tuple[EpisodesData, Figure]:
    """`episode_scores` and its figure: on the left each setting's accuracy per system with its interval, on the
    right the accuracy per gold relation (when the episodes name their relations)."""
    data = episode_scores(results)
    s, k, r = len(data.systems), len(data.settings), len(data.relations)
    panels = 2 if r else 1
    fig = new_figure((max(6.0, 3.0 + 0.6 * k * s + 0.3 * r), 5.2), what="the episodes figure", layout="constrained")
    grid = fig.add_gridspec(1, panels, width_ratios=[max(k, 1) * max(s, 2), max(r, 1)][:panels])
    left = fig.add_subplot(grid[0, 0])
    spread = 0.6 / max(s, 1)
    for i, system in enumerate(data.systems):
        x = np.arange(k) + (i - (s - 1) / 2) * spread
        y = 100 * data.accuracy[i]
        err = np.vstack([y - 100 * data.low[i], 100 * data.high[i] - y])
        left.errorbar(
            x, y, yerr=err, fmt=_MARKERS[i % len(_MARKERS)], color=f"C{i}", capsize=3, label=system, markersize=5
        )
    class_ticks(left, data.settings)
    left.set_ylabel(f"accuracy (%), {int(round(100 * data.confidence))}% interval over episodes")
    percent_axis(left.yaxis, decimals=0)
    left.grid(axis="y", alpha=0.3)
    left.legend(loc="lower left", bbox_to_anchor=(0.0, 1.01), ncol=min(s, 6), fontsize=8, frameon=False)
    if r:
        right = fig.add_subplot(grid[0, 1], sharey=left)
        for i, _system in enumerate(data.systems):
            x = np.arange(r) + (i - (s - 1) / 2) * spread
            right.plot(
                x,
                100 * data.relation_accuracy[i],
                linestyle="none",
                marker=_MARKERS[i % len(_MARKERS)],
                color=f"C{i}",
                markersize=4,
            )
        class_ticks(right, data.relations)
        right.set_xlabel("gold relation (queries pooled over episodes)")
        right.grid(axis="y", alpha=0.3)
        right.tick_params(axis="y", labelleft=False)
    fig.suptitle(title_with(f"FewRel accuracy of {s} system{'s' if s != 1 else ''}", dataset), fontsize=10)
    return data, settle_layout(fig)
