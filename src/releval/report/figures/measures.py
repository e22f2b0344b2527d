"""The meta-evaluation of measures as one figure (releval.significance.meta): per measure its discriminative power
(the share of system pairs significant at α, Sakai 2006) and, when split halves were drawn, its swap rate
(Voorhees and Buckley 2002), beside the matrix of Kendall's τ-b between the measures' rankings of the systems.

Example
-------
>>> from releval.significance.meta import Agreement, MeasureEvaluation, Power
>>> meta = MeasureEvaluation([Power("bootstrap", "micro", 3, 2, 0.05, 0.1), Power("bootstrap", "macro", 3, 1, 0.05,
...     0.2)], [Agreement("micro", "macro", 1 / 3)], [], 3)
>>> tau_matrix(meta, ["micro", "macro"]).tolist()
[[1.0, 0.3333333333333333], [0.3333333333333333, 1.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from releval.report.figures.base import new_figure, settle_layout, title_with

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from releval.significance.meta import MeasureEvaluation


def tau_matrix(meta: MeasureEvaluation, measures: Sequence[str]) -> NDArray[np.float64]:
    """Kendall's τ-b of every pair of `measures` (1 on the diagonal, NaN where τ is undefined)."""
    index = {m: i for i, m in enumerate(measures)}
    out = np.full((len(measures), len(measures)), np.nan)
    np.fill_diagonal(out, 1.0)
    for g in meta.agreement:
        if g.a in index and g.b in index:
            out[index[g.a], index[g.b]] = out[index[g.b], index[g.a]] = g.tau
    return out


def measures_figure(meta: MeasureEvaluation, measures: Sequence[str], *, dataset: str | None = None) -> Figure:
    """Left: discriminative power (and swap rate) per measure, in %; right: τ-b between the measures."""
    power = {p.metric: p for p in meta.power}
    swap = {s.metric: s.rate for s in meta.stability}
    names = list(measures)
    n = len(names)
    fig = new_figure((9.0, 1.4 + 0.45 * max(n, 3)), what="the measures figure", layout="constrained")
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1.0]})
    y = np.arange(n)
    shares = [100 * power[m].share if m in power else np.nan for m in names]
    height = 0.4 if swap else 0.7
    left.barh(y - (height / 2 if swap else 0), shares, height=height, color="#4c72b0", label="discriminative power")
    if swap:
        left.barh(y + height / 2, [100 * swap.get(m, np.nan) for m in names], height=height, color="#dd8452",
                  label="swap rate")  # fmt: skip
    left.set_yticks(y, names)
    left.invert_yaxis()
    left.set_xlim(0, 100)
    left.set_xlabel("% of system pairs")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize="small", frameon=False)
    alpha = meta.power[0].alpha if meta.power else 0.05
    left.set_title(f"significant at α = {alpha:g}" + (" · swapped between halves" if swap else ""), fontsize="medium")
    tau = tau_matrix(meta, names)
    image = right.imshow(np.ma.masked_invalid(tau), vmin=-1, vmax=1, cmap="RdBu")
    right.set_xticks(y, names, rotation=45, ha="right")
    right.set_yticks(y, names)
    for i in range(n):
        for j in range(n):
            if np.isfinite(tau[i, j]):
                right.text(j, i, f"{tau[i, j]:.2f}", ha="center", va="center", fontsize="small",
                           color="white" if abs(tau[i, j]) > 0.6 else "black")  # fmt: skip
    right.set_title("Kendall's τ-b between the rankings", fontsize="medium")
    fig.colorbar(image, ax=right, shrink=0.8)
    fig.suptitle(title_with(f"Measures evaluated from {meta.systems} systems", dataset))
    return settle_layout(fig)
