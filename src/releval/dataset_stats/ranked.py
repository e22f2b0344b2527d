"""Dataset statistics of ranked-facts gold (OpenNRE JSON lines, e.g. NYT10): Harbecke et al. (2022) Table 1's
columns — #relations, #samples, % NA, perplexity with and without NA, imbalance ratio — counted twice: over the
sentences (each line's relation: Harbecke's samples) and over the bag-level facts (each distinct (h, t, relation);
a bag whose sentences are all NA counts once as NA), which is what the held-out evaluation ranks.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "g.jsonl"
>>> line = '{{"h": {{"id": "{}"}}, "t": {{"id": "b"}}, "relation": "{}"}}\\n'
>>> _ = p.write_text(line.format("a", "r") + line.format("a", "r") + line.format("c", "NA"))
>>> stats = statistics([p], None)
>>> [(view, s.n_samples, s.n_negative) for view, s in stats.rows], stats.to_dict()["n_items"]
([('sentences', 3, 1), ('facts', 2, 1)], 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from releval.core.schema import header
from releval.core.table import Table
from releval.data.ranked import RankedGold, load_gold
from releval.dataset_stats.label_distribution import LabelStats, label_stats, stats_tables

NA = "NA"


def fact_labels(gold: RankedGold, na: str | None) -> list[str]:
    """One label per bag-level fact: each distinct (h, t, relation) that is not NA, and NA once for each bag
    with no other relation. A sentence's `anno_relation_list`, when it has one, gives its relations (as scoring
    reads it)."""
    by_bag: dict[tuple[str, str], dict[str, None]] = {}
    listed = gold.annotations or [None] * gold.n_rows
    for h, t, r, a in zip(gold.heads, gold.tails, gold.sentence_relations, listed):
        by_bag.setdefault((h, t), {}).update(dict.fromkeys(a if a is not None else (r,)))
    out: list[str] = []
    for relations in by_bag.values():
        positive = [r for r in relations if r != na]
        out += positive if positive else [na or "NA"]
    return out


@dataclass(frozen=True)
class RankedStatistics:
    """Per file a `sentences` row and a `facts` row (Harbecke's columns), and each file's number of bags."""

    rows: list[tuple[str, LabelStats]]
    bags: list[int]

    def to_tables(self) -> list[Table]:
        return stats_tables(self.rows)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every row (its view, then the statistics), and `n_items`, the bags of the first file (the
        unit the paired tests resample)."""
        return {
            **header("ranked-stats"),
            "task": "ranked",
            "n_items": self.bags[0] if self.bags else 0,
            "bags": list(self.bags),
            "rows": [{"view": v, **s.to_dict()} for v, s in self.rows],
        }


def statistics(paths: Sequence[Any], config: Any = None, **options: Any) -> RankedStatistics:
    """The ranked task's `statistics` (releval.tasks.ranked.TASK): per file, a `sentences` row and a `facts` row
    (releval.dataset_stats.label_distribution.label_stats with NA as the negative class)."""
    na = NA if config is None or config.negative == "auto" else config.negative
    rows = []
    bags = []
    for path in paths:
        gold = path if isinstance(path, RankedGold) else load_gold(path)
        rows.append(("sentences", label_stats(str(gold.path), gold.sentence_relations, na, "sentences")))
        rows.append(("facts", label_stats(str(gold.path), fact_labels(gold, na), na, "facts")))
        bags.append(len(set(zip(gold.heads, gold.tails))))
    return RankedStatistics(rows, bags)
