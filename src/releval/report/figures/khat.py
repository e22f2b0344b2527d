"""Histograms of k̂ per estimator in Dror et al.'s §5 simulation (all nulls true, so every k̂ > 0 overclaims):
one panel per scenario, one bar series per estimator, each bar the fraction of repetitions with that k̂.

`releval replicability simulate --figure` draws this figure (through
`releval.report.replicability_report.simulation_figure`, which keeps its bytes-returning form).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from releval.replicability.simulation import SimulationResult
from releval.report.figures.base import new_figure, percent_axis

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: How each k̂ estimator is named in tables and figures.
ESTIMATOR_LABELS = {
    "count": "count (naive)",
    "bonferroni": "Bonferroni",
    "fisher": "Fisher",
    "simes": "Simes",
    "stouffer": "Stouffer",
}


@dataclass(frozen=True)
class KhatPanel:
    """One scenario's panel: `fractions[method][k]` = share of the `reps` repetitions whose k̂ is k (k = 0 …
    the largest k̂ of any estimator), and P(k̂ > 0) per estimator."""

    scenario: str
    n: int
    reps: int
    fractions: dict[str, NDArray[np.float64]]
    p_over: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "n": self.n,
            "reps": self.reps,
            "fractions": {m: f.tolist() for m, f in self.fractions.items()},
            "p_over": dict(self.p_over),
        }


def khat_histograms(sim: SimulationResult) -> list[KhatPanel]:
    """Every scenario's k̂ histogram per estimator (what `khat_figure` draws)."""
    panels = []
    for name, sc in sim.scenarios.items():
        top = max(int(sc.k_hat[m].max()) for m in sim.methods)
        fractions = {m: np.bincount(sc.k_hat[m], minlength=top + 1) / sc.reps for m in sim.methods}
        panels.append(KhatPanel(name, sc.n, sc.reps, fractions, {m: sc.p_over(m) for m in sim.methods}))
    return panels


def khat_figure(sim: SimulationResult) -> tuple[list[KhatPanel], Figure]:
    """`khat_histograms` and the figure: per scenario a panel of grouped bars, one series per estimator labelled
    with its P(k̂ > 0)."""
    panels = khat_histograms(sim)
    fig = new_figure((5.5 * len(panels), 3.8), what="the histogram figure")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, panel in zip(axes, panels):
        methods = list(panel.fractions)
        width = 0.8 / len(methods)
        for j, m in enumerate(methods):
            k = np.arange(len(panel.fractions[m]))
            ax.bar(
                k + (j - (len(methods) - 1) / 2) * width,
                100 * panel.fractions[m],
                width,
                label=rf"{ESTIMATOR_LABELS[m]}: P($\hat{{k}}$ > 0) = {panel.p_over[m]:.3f}",
            )
        ax.set_title(f"{panel.scenario} datasets (N = {panel.n}, {panel.reps} reps)")
        ax.set_xlabel(r"$\hat{k}$, the number of datasets claimed (true $k$ = 0)")
        ax.set_ylabel("repetitions (%)")
        percent_axis(ax.yaxis, decimals=0)
        ax.legend(fontsize=8)
    fig.suptitle(
        rf"Dror et al. (2017) §5: $\hat{{k}}$ of each estimator when every null is true ($\alpha$ = {sim.alpha:g}, "
        f"seed {sim.seed})",
        fontsize=10,
    )
    fig.tight_layout()
    return panels, fig
