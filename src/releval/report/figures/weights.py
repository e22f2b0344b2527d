"""The weight each class weighting gives each class of a dataset (Harbecke et al. 2022, Fig. 1).

The weights are the scorer's own: `releval.metrics.averages.average_weights` over the positive classes with gold
support, N (entropy's) counting every gold item or the positive ones only, as `entropy_n` says. Micro weighs no
class (it pools the counts); its per-class weight is that of `weighted`, w_i = n_i / Σ n_j.

>>> data = class_weights(["r1", "r1", "r1", "r2", "no_relation"], ["weighted", "macro"])
>>> data.classes, data.support.tolist(), data.negative
(['r1', 'r2'], [3, 1], 'no_relation')
>>> {name: w.tolist() for name, w in data.weights.items()}
{'weighted': [0.75, 0.25], 'macro': [0.5, 0.5]}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import OptionError
from releval.core.options import ENTROPY_N
from releval.core.validation import check_choice
from releval.metrics.averages import AveragingSpec, average_weights
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, Weighting, get_weightings
from releval.report.figures.base import class_ticks, new_figure, percent_axis, settle_layout, title_with
from releval.tasks.classification import AUTO, resolve_negative

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


@dataclass(frozen=True)
class WeightsData:
    """What the class-weights figure plots.

    `classes`: the positive classes with gold support, by support (descending; ties by name); `support`: their
    n_i; `weights`: per weighting, its normalised weights of those classes (fractions summing to 1, in the order
    of `classes`); `n_total`: N as entropy uses it; `negative` and `negative_support`: the class no weighting
    weighs (None, 0 when there is none)."""

    classes: list[str]
    support: NDArray[np.int64]
    weights: dict[str, NDArray[np.float64]]
    n_total: int
    n_items: int
    negative: str | None
    negative_support: int
    entropy_n: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the classes with their support and every weighting's weights (fractions)."""
        return {
            "classes": list(self.classes),
            "support": self.support.tolist(),
            "weights": {name: w.tolist() for name, w in self.weights.items()},
            "n_total": self.n_total,
            "n_items": self.n_items,
            "negative": self.negative,
            "negative_support": self.negative_support,
            "entropy_n": self.entropy_n,
        }


def class_weights(
    gold: Sequence[object],
    weightings: Sequence[str | Weighting] | None = None,
    negative: str | None = AUTO,
    *,
    entropy_n: str = "all",
) -> WeightsData:
    """The weight of every positive class of the gold labels under each weighting (default: weighted, dodrans,
    entropy, macro; any `power:A` may be named). `negative`: "auto" (no_relation / Other / NA when present), a
    label, or None for no negative class. Labels that are not strings are read as `str(label)`."""
    check_choice(entropy_n, ENTROPY_N, "entropy_n")
    schemes = DEFAULT_WEIGHTINGS if weightings is None else get_weightings(weightings)
    labels = [x if type(x) is str else str(x) for x in gold]
    if not labels:
        raise OptionError("class weights: no gold labels", option="gold")
    neg, _ = resolve_negative(negative, labels)
    counts = Counter(labels)
    order = sorted(counts, key=lambda label: (-counts[label], label))
    support = np.array([counts[label] for label in order], dtype=np.int64)
    positive = np.array([label != neg for label in order], dtype=bool)
    spec = AveragingSpec(positive, tuple(schemes), entropy_n=entropy_n)
    weights = average_weights(support, spec)
    n_total = int(support.sum() if entropy_n == "all" else support[positive].sum())
    return WeightsData(
        [label for label, p in zip(order, positive) if p],
        support[positive],
        {name: w[positive] for name, w in weights.items()},
        n_total,
        len(labels),
        neg,
        int(counts.get(neg, 0)) if neg is not None else 0,
        entropy_n,
    )


def weights_figure(
    gold: Sequence[object],
    weightings: Sequence[str | Weighting] | None = None,
    negative: str | None = AUTO,
    *,
    entropy_n: str = "all",
    dataset: str | None = None,
) -> tuple[WeightsData, Figure]:
    """`class_weights` and its figure: x the positive classes by support, y each class's weight (%), one series per
    weighting; the right axis reads the weighted scheme's weights as gold counts n_i (Harbecke et al.'s upper axis).
    `dataset` names the data in the title."""
    data = class_weights(gold, weightings, negative, entropy_n=entropy_n)
    k = len(data.classes)
    fig = new_figure((max(6.4, 2.5 + 0.24 * k), 5.2), what="the class-weights figure", layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(k)
    for i, (name, w) in enumerate(data.weights.items()):
        ax.plot(x, 100 * w, marker=_MARKERS[i % len(_MARKERS)], markersize=4, linewidth=1.2, label=name)
    class_ticks(ax, data.classes)
    ax.set_xlabel("positive class (by gold support, descending)")
    ax.set_ylabel("normalised weight (%)")
    ax.set_ylim(bottom=0)
    top = max((float(w.max()) for w in data.weights.values() if w.size), default=0.0)
    percent_axis(ax.yaxis, decimals=0 if top > 0.05 else 1)
    ax.grid(axis="y", alpha=0.3)
    n_pos = int(data.support.sum())
    if n_pos:
        scale = n_pos / 100  # a weight in % times the positive items is the weighted scheme's n_i

        def to_count(w: Any) -> Any:
            return np.asarray(w) * scale

        def to_weight(n: Any) -> Any:
            return np.asarray(n) / scale

        right = ax.secondary_yaxis("right", functions=(to_count, to_weight))
        right.set_ylabel(r"gold items $n_i$ (weighted: $w_i = n_i\,/\,\Sigma_j n_j$)")
    ax.legend(title="weighting", loc="best", fontsize=8)  # the classes go by support: mostly the upper right
    neg = f"; {data.negative!r} ({data.negative_support:,} items) not weighted" if data.negative else ""
    entropy = "" if data.entropy_n == "all" else ", entropy's N: positive items"
    ax.set_title(
        title_with(f"Class weights of {k} positive classes", dataset) + f"\nN = {data.n_items:,} items{neg}{entropy}",
        fontsize=10,
    )
    return data, settle_layout(fig)
