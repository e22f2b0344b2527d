"""Label-distribution statistics of a classification dataset (Harbecke et al. 2022, Table 1).

Perplexity = 2^H with H the Shannon entropy in bits of the label distribution (equal to #labels when balanced);
ratio = count of the most over the least frequent positive class (undefined, NaN, without a positive class).
`LabelStats` saves to JSON (`to_dict`, NaN as null) and loads back equal (`from_dict`); its signature names what
changes its numbers: the view, the negative class and the labels (set and sequence).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from releval.core.frames import data_frame
from releval.core.schema import check_schema, float_or_nan, header, reading, same
from releval.core.signature import Signature, parse, sequence_digest, short_hash

#: The `kind` of saved label statistics.
KIND = "label-stats"


@dataclass(frozen=True)
class LabelStats:
    """Statistics of one label sequence."""

    name: str
    n_labels: int
    n_samples: int
    n_negative: int
    perplexity: float
    perplexity_positive: float
    ratio: float
    counts: dict[str, int]
    signature: Signature

    @property
    def negative_percent(self) -> float:
        return 100.0 * self.n_negative / self.n_samples if self.n_samples else 0.0

    def to_frame(self) -> Any:
        """One row per label: its count and share of the samples in percent, most frequent first (pandas only
        here)."""
        ranked = sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        records = [{"label": k, "count": v, "percent": 100.0 * v / self.n_samples} for k, v in ranked]
        return data_frame(records, index="label")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (an undefined ratio as null; `negative_percent` for readers, not read back)."""
        return {
            **header(KIND),
            "name": self.name,
            "relations": self.n_labels,
            "samples": self.n_samples,
            "negative": self.n_negative,
            "negative_percent": self.negative_percent,
            "perplexity": self.perplexity,
            "perplexity_without_negative": self.perplexity_positive,
            "ratio": None if math.isnan(self.ratio) else self.ratio,
            "counts": dict(self.counts),
            **self.signature.to_json(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LabelStats:
        """The statistics `to_dict()` wrote (ValueError when `data` is not saved label statistics)."""
        what = "label statistics"
        check_schema(data, what, KIND)
        with reading(what):
            return cls(
                name=str(data["name"]),
                n_labels=int(data["relations"]),
                n_samples=int(data["samples"]),
                n_negative=int(data["negative"]),
                perplexity=float(data["perplexity"]),
                perplexity_positive=float(data["perplexity_without_negative"]),
                ratio=float_or_nan(data.get("ratio")),
                counts={str(k): int(v) for k, v in data["counts"].items()},
                signature=parse(data["signature"]),
            )

    def __eq__(self, other: object) -> bool:
        """Field by field; an undefined (NaN) ratio equals an undefined ratio."""
        if not isinstance(other, LabelStats):
            return NotImplemented
        return same(self, other)

    __hash__ = None  # type: ignore[assignment]  # a dict inside: not hashable


def perplexity(counts: Sequence[int]) -> float:
    """2^H(p) with p the normalised counts (zero counts ignored); 0 for an empty distribution."""
    c = np.asarray([x for x in counts if x > 0], dtype=np.float64)
    if c.size == 0:
        return 0.0
    p = c / c.sum()
    return float(2.0 ** (-(p * np.log2(p)).sum()))


def label_stats(name: str, labels: Sequence[str], negative: str | None, view: str | None = None) -> LabelStats:
    """#labels (incl. the negative class), #samples, negatives, perplexity with/without negative, ratio.

    `view` names how SemEval labels were read (directed or undirected), for the signature only: the labels are
    given as read.

    >>> s = label_stats("x", ["a", "a", "b", "no_relation"], "no_relation")
    >>> (s.n_labels, s.n_negative, s.ratio, s.signature["negative"], s.signature["n"])
    (3, 1, 2.0, 'no_relation', '4')
    """
    counts = Counter(labels)
    positive = [c for label, c in counts.items() if label != negative]
    ratio = max(positive) / min(positive) if positive else float("nan")
    signature = Signature.build(
        task="stats",
        view=view,
        negative=negative if negative is not None else "none",
        labels=short_hash(sorted(counts)),
        gold=sequence_digest(labels),
        n=len(labels),
    )
    return LabelStats(
        name=name,
        n_labels=len(counts),
        n_samples=len(labels),
        n_negative=counts.get(negative, 0) if negative is not None else 0,
        perplexity=perplexity(list(counts.values())),
        perplexity_positive=perplexity(positive),
        ratio=float(ratio),
        counts=dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        signature=signature,
    )
