"""Figures of releval results, the library side of `releval plot`: each figure is a pure function that returns
the plotted data (plain NumPy/Python, `to_dict()` for JSON) and a matplotlib Figure; `save_figure` writes one.

* `weights_figure(gold, weightings, negative)`: the weight each weighting gives each class (Harbecke et al. 2022,
  Fig. 1); data alone: `class_weights`.
* `per_class_figure(results)`: per-class F of several systems, with each average; `per_class_scores`.
* `bootstrap_figure(gold, pred_a, pred_b)`: the paired bootstrap distribution of Δ = F(B) − F(A) under one average,
  its interval and 0; `bootstrap_deltas`.
* `confusion_figure(gold, pred)`: the confusion matrix as a heatmap (counts, or rows as % of gold); `confusion`.
* `episodes_figure(results)`: FewRel accuracy per setting with its interval over episodes, and per relation;
  `episode_scores`.
* `khat_figure(sim)`: k̂ histograms of Dror et al.'s §5 simulation; `khat_histograms`.
* `save_figure(fig, path)`: PNG, SVG or PDF by the suffix, atomic, byte-for-byte reproducible; `figure_bytes`.

matplotlib (the `plot` extra) is imported when a figure is drawn; the data functions need only NumPy. Names are
resolved on first use (PEP 562), so importing one module of this package loads no other.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time `__getattr__` imports the module on first use
    from releval.report.figures.base import FIGURE_FORMATS as FIGURE_FORMATS
    from releval.report.figures.base import MatplotlibMissing as MatplotlibMissing
    from releval.report.figures.base import figure_bytes as figure_bytes
    from releval.report.figures.base import figure_format as figure_format
    from releval.report.figures.base import require_matplotlib as require_matplotlib
    from releval.report.figures.base import save_figure as save_figure
    from releval.report.figures.bootstrap import DeltaData as DeltaData
    from releval.report.figures.bootstrap import bootstrap_deltas as bootstrap_deltas
    from releval.report.figures.bootstrap import bootstrap_figure as bootstrap_figure
    from releval.report.figures.confusion_matrix import ConfusionData as ConfusionData
    from releval.report.figures.confusion_matrix import confusion as confusion
    from releval.report.figures.confusion_matrix import confusion_figure as confusion_figure
    from releval.report.figures.episodes import EpisodesData as EpisodesData
    from releval.report.figures.episodes import episode_scores as episode_scores
    from releval.report.figures.episodes import episodes_figure as episodes_figure
    from releval.report.figures.khat import KhatPanel as KhatPanel
    from releval.report.figures.khat import khat_figure as khat_figure
    from releval.report.figures.khat import khat_histograms as khat_histograms
    from releval.report.figures.per_class import PerClassData as PerClassData
    from releval.report.figures.per_class import per_class_figure as per_class_figure
    from releval.report.figures.per_class import per_class_scores as per_class_scores
    from releval.report.figures.weights import WeightsData as WeightsData
    from releval.report.figures.weights import class_weights as class_weights
    from releval.report.figures.weights import weights_figure as weights_figure

_MODULES = {
    "base": (
        "FIGURE_FORMATS",
        "MatplotlibMissing",
        "figure_bytes",
        "figure_format",
        "require_matplotlib",
        "save_figure",
    ),
    "bootstrap": ("DeltaData", "bootstrap_deltas", "bootstrap_figure"),
    "confusion_matrix": ("ConfusionData", "confusion", "confusion_figure"),
    "episodes": ("EpisodesData", "episode_scores", "episodes_figure"),
    "khat": ("KhatPanel", "khat_figure", "khat_histograms"),
    "per_class": ("PerClassData", "per_class_figure", "per_class_scores"),
    "weights": ("WeightsData", "class_weights", "weights_figure"),
}
#: name -> module of this package that defines it
_LAZY = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
