"""The confusion matrix of one system as a heatmap: gold label × predicted label, counts or shares of each row.

Rows and columns are the same labels in the same order: the gold labels by support (descending; ties by name),
then the labels only predicted. The negative class is a label like any other here (its row and column are where
most of a relation extractor's errors are). Counts come from `releval.metrics.counts.confusion_matrix`, the
scorer's own.

>>> data = confusion(["a", "a", "b", "no_relation"], ["a", "b", "b", "a"])
>>> data.labels, data.counts.tolist()
(['a', 'b', 'no_relation'], [[1, 1, 0], [0, 1, 0], [1, 0, 0]])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import OptionError
from releval.metrics.classification import encode
from releval.metrics.counts import confusion_matrix
from releval.report.figures.base import class_ticks, new_figure, settle_layout, title_with

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Up to this many labels every cell is written into the heatmap; beyond, the numbers would not fit the cells.
MAX_ANNOTATED = 20


@dataclass(frozen=True)
class ConfusionData:
    """What the heatmap shows: `counts[g, p]` items with gold `labels[g]` predicted as `labels[p]`, and, when
    `normalized`, `values` = each row's share of its gold label's items (% of all of them, also of those whose
    prediction is a label left out by `labels=`; NaN for a label without gold items); else `values` = counts."""

    labels: list[str]
    counts: NDArray[np.int64]
    values: NDArray[np.float64]
    normalized: bool
    support: NDArray[np.int64]
    n_items: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN as null)."""
        return {
            "labels": list(self.labels),
            "counts": self.counts.tolist(),
            "normalized": self.normalized,
            "values": [[None if np.isnan(v) else v for v in row] for row in self.values.tolist()],
            "support": self.support.tolist(),
            "n_items": self.n_items,
        }


def confusion(
    gold: Sequence[object],
    pred: Sequence[object],
    *,
    normalize: bool = False,
    labels: Sequence[str] | None = None,
) -> ConfusionData:
    """The confusion matrix of aligned gold and predicted labels. `normalize`: each row as % of its gold label's
    items (the diagonal is then the recall). `labels`: only these rows and columns, in this order (each must occur
    in gold or predictions; an OptionError names one that does not)."""
    if len(gold) != len(pred):
        raise OptionError(f"confusion matrix: {len(gold)} gold labels but {len(pred)} predictions", option="pred")
    if not gold:
        raise OptionError("confusion matrix: no items", option="gold")
    enc = encode(gold, pred)
    matrix = confusion_matrix(enc.gold, enc.pred, len(enc.labels))
    support = matrix.sum(axis=1)
    if labels is None:
        order = sorted(range(enc.n_gold_labels), key=lambda i: (-int(support[i]), enc.labels[i]))
        order += sorted(range(enc.n_gold_labels, len(enc.labels)), key=lambda i: enc.labels[i])
    else:
        index = {label: i for i, label in enumerate(enc.labels)}
        unknown = [label for label in labels if label not in index]
        if unknown:
            raise OptionError(
                f"confusion matrix: label {unknown[0]!r} occurs neither in gold nor in the predictions", option="labels"
            )
        order = [index[label] for label in dict.fromkeys(labels)]
    counts = matrix[np.ix_(order, order)]
    row_support = support[order]
    if normalize:
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(row_support[:, None] > 0, 100.0 * counts / row_support[:, None], np.nan)
    else:
        values = counts.astype(np.float64)
    return ConfusionData([enc.labels[i] for i in order], counts, values, normalize, row_support, len(gold))


def confusion_figure(
    gold: Sequence[object],
    pred: Sequence[object],
    *,
    normalize: bool = False,
    labels: Sequence[str] | None = None,
    system: str | None = None,
    dataset: str | None = None,
) -> tuple[ConfusionData, Figure]:
    """`confusion` and its heatmap (rows: gold, columns: predicted). Counts are coloured on a logarithmic scale
    (one dominant cell, the negative class's diagonal, would leave every other cell white), with empty cells blank;
    shares of a row on a linear 0–100% scale. Up to `MAX_ANNOTATED` labels each cell shows its number.
    `system` and `dataset` name the predictions and the data in the title."""
    data = confusion(gold, pred, normalize=normalize, labels=labels)
    k = len(data.labels)
    side = min(16.0, max(5.0, 2.8 + 0.27 * k))
    fig = new_figure((side + 1.6, side), what="the confusion-matrix figure", layout="constrained")
    from matplotlib import colormaps  # after new_figure, which says so when matplotlib is missing
    from matplotlib.colors import ListedColormap, LogNorm, Normalize

    ax = fig.add_subplot()
    shown = np.ma.masked_invalid(np.where(data.values > 0, data.values, np.nan))
    if normalize:
        norm: Normalize = Normalize(vmin=0.0, vmax=100.0)
        what = "% of the gold label's items"
    else:
        norm = LogNorm(vmin=1.0, vmax=max(2.0, float(data.counts.max(initial=0))))
        what = "items (log scale; empty cells blank)"
    # Blues without its white end, so that a cell of 1 item stands out from an empty (blank) one
    cmap = ListedColormap(colormaps["Blues"](np.linspace(0.12, 1.0, 256))).with_extremes(bad="white")
    image = ax.imshow(shown, cmap=cmap, norm=norm, interpolation="nearest", aspect="equal")
    class_ticks(ax, data.labels)
    class_ticks(ax, data.labels, axis="y")
    ax.set_ylim(k - 0.5, -0.5)  # first label at the top, as a table reads
    ax.set_xlabel("predicted label")
    ax.set_ylabel("gold label")
    ax.tick_params(axis="x", top=False)
    fig.colorbar(image, ax=ax, shrink=0.8, label=what)
    if k <= MAX_ANNOTATED:
        _annotate(ax, data, image)
    name = f"Confusion matrix of {system}" if system else "Confusion matrix"
    kind = "rows as % of gold" if normalize else "counts"
    ax.set_title(title_with(name, dataset) + f"\n{k} labels, N = {data.n_items:,} items, {kind}", fontsize=10)
    return data, settle_layout(fig)


def _annotate(ax: Any, data: ConfusionData, image: Any) -> None:
    """Each non-empty cell's number, white on dark cells and black on light ones."""
    for g in range(len(data.labels)):
        for p in range(len(data.labels)):
            value = data.values[g, p]
            if np.isnan(value) or value == 0:
                continue
            text = f"{value:.0f}" if not data.normalized else f"{value:.1f}" if value < 9.95 else f"{value:.0f}"
            dark = image.norm(value) > 0.6
            ax.text(p, g, text, ha="center", va="center", fontsize=7, color="white" if dark else "black")
