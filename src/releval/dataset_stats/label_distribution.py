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
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from releval.core.frames import data_frame
from releval.core.schema import check_schema, float_or_nan, header, reading, same
from releval.core.signature import Signature, parse, sequence_digest, short_hash
from releval.core.table import Column, Table
from releval.data.formats.base import LabelFile
from releval.data.semeval_labels import DIRECTED_SET, undirected

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


def _is_semeval(f: LabelFile) -> bool:
    return all(label in DIRECTED_SET for label in f.labels[:1000])


def collect(files: Sequence[LabelFile], negative: str | None, view: str) -> list[tuple[str, LabelStats]]:
    """Statistics per file and for all files together; SemEval files get a directed and an undirected row
    (`view` "both"), or the one `view` names."""
    from releval.metrics.classification import detect_negative

    rows: list[tuple[str, LabelStats]] = []
    views = ["directed", "undirected"] if view == "both" else [view]
    semeval = all(_is_semeval(f) for f in files)
    for v in views if semeval else ["labels"]:
        mapped = [(f.path, [undirected(x) for x in f.labels] if v == "undirected" else list(f.labels)) for f in files]
        neg = negative if negative != "auto" else detect_negative([x for _, labels in mapped for x in labels])
        signed_view = v if semeval else None
        for name, labels in mapped:
            rows.append((v, label_stats(name, labels, neg, signed_view)))
        if len(files) > 1:
            rows.append((v, label_stats("total", [x for _, labels in mapped for x in labels], neg, signed_view)))
    return rows


def _ratio(value: float) -> str:
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


_COLUMNS = (
    Column("file"),
    Column("view", align="left"),
    Column("#rel", "count", key="relations"),
    Column("#samples", "count", key="samples"),
    Column("%neg", "number", key="negative_percent", spec=".1f"),
    Column("ppl", "number", key="perplexity", spec=".2f"),
    Column("ppl w/o neg", "number", key="perplexity_without_negative", spec=".2f"),
    Column("ratio", "number", display=_ratio),
)
_NOTES = (
    "ppl = 2^H of the label distribution (bits); ratio = most / least frequent positive class",
    "%neg counts the negative class (no_relation / Other / NA unless --negative says otherwise)",
)


def stats_tables(rows: Sequence[tuple[str, LabelStats]], explain_no_negative: bool = False) -> list[Table]:
    """One row per (file, view): #relations, #samples, % negative, perplexity with and without it, ratio.
    `explain_no_negative`: a note says so when a row has no negative class (its %neg 0 is no measurement)."""
    body = [
        (s.name, v, s.n_labels, s.n_samples, s.negative_percent, s.perplexity, s.perplexity_positive, s.ratio)
        for v, s in rows
    ]
    notes = list(_NOTES)
    if explain_no_negative and any(s.signature["negative"] == "none" for _, s in rows):
        notes.append(
            "no negative class: none of no_relation / Other / NA occurs (or --no-negative), so %neg is 0 and "
            "'w/o neg' counts every class; name the negative label with --negative"
        )
    return [Table("", _COLUMNS, body, notes=notes)]


@dataclass(frozen=True)
class LabelStatistics:
    """The statistics `releval stats` shows for label files: one row per (view, file), and a total row for several
    files. Rendered by releval.report (to_tables, to_dict), like every result.

    >>> from releval.data.labels import LabelFile
    >>> f = LabelFile("toy", "list", None, ["A", "A", "B", "Other"], range(1, 5))
    >>> s = file_statistics([f], "Other", "both")
    >>> [(view, row.n_labels, row.ratio) for view, row in s.rows]
    [('labels', 3, 2.0)]
    """

    rows: list[tuple[str, LabelStats]]
    #: Whether the table notes a file without a negative class (`releval stats` on rc files; FewRel has none).
    explain_no_negative: bool = False

    def to_tables(self) -> list[Table]:
        return stats_tables(self.rows, self.explain_no_negative)

    def to_dict(self) -> list[dict[str, Any]]:
        """One object per row: its view, then the statistics' `to_dict`."""
        return [{"view": v, **s.to_dict()} for v, s in self.rows]


def file_statistics(files: Sequence[LabelFile], negative: str | None, view: str = "both") -> LabelStatistics:
    """The statistics of label files already read (the task's Config read them: format, fields, patch);
    `negative` is a label, "auto" or None; `view` directed, undirected or both (SemEval files)."""
    return LabelStatistics(collect(files, negative, view))


def statistics(paths: Sequence[Any], config: Any, view: str = "both") -> LabelStatistics:
    """The classification task's dataset statistics (releval.tasks.classification.TASK): every file (a path, or a
    LabelFile already read) read as its Config reads gold (format, fields, patch), a negative label gold lacks
    refused as `score` refuses it, then `file_statistics`."""
    from releval.data.columns import distinct
    from releval.tasks.classification import AUTO, load_gold
    from releval.tasks.label_mistakes import check_negative_exists

    files = [load_gold(p, config)[0] for p in paths]
    if config.negative not in (AUTO, None) and not config.allow_absent_negative:  # a typo
        check_negative_exists(config.negative, sorted({x for f in files for x in distinct(f.labels)}), [])
    return replace(file_statistics(files, config.negative, view), explain_no_negative=True)
