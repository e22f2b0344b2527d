"""Dataset statistics of FewRel files in Harbecke et al.'s Table 1 columns (`releval stats --task fewrel`).

A FewRel data file (`{relation: [instances]}`: val_wiki, val_pubmed, val_semeval, train_wiki) gives one label per
instance, its relation; gold episodes (releval.data.fewrel) give one per query, the relation of its answer, with
none-of-the-above queries counted as the negative class. The columns are those of every label file
(releval.dataset_stats.label_distribution): #relations, #samples, % negative, perplexity (2^H, bits) with and
without the negative class, and the ratio of the most to the least frequent relation. FewRel's validation sets have
no negative class (0 % NA); a relation named no_relation, Other or NA would count as one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from releval.core.errors import InputError
from releval.core.schema import header
from releval.core.table import Table
from releval.data.decoding import parse_json, read_utf8
from releval.data.fewrel import NOTA, load_episodes, load_relations
from releval.dataset_stats.label_distribution import LabelStatistics, LabelStats, label_stats
from releval.metrics.classification import detect_negative


def file_labels(path: Any) -> tuple[list[str], str | None, str, int]:
    """The labels of one FewRel file, its negative label, what a label counts — the relation per instance (a
    data file) or per query (gold episodes; none-of-the-above is the negative) — and its episodes (0: a data
    file)."""
    raw = parse_json(read_utf8(path), str(path))
    if isinstance(raw, dict) and not {"episodes", "answers"} <= set(raw):
        relations = load_relations(raw, str(path))
        labels = [r for r, instances in relations.items() for _ in instances]
        return labels, detect_negative(list(relations)), "instances", 0
    episodes = load_episodes(path)
    labels = []
    for i in range(episodes.n_queries):
        relation = episodes.gold_relation(i)
        if relation is None:
            raise InputError(
                "the episode names no relations ('relation'): its queries' relations are unknown",
                file=str(path),
                record=i + 1,
                field="relation",
            )
        labels.append(relation)
    return labels, NOTA, "queries", episodes.n_episodes


#: What `stats --task fewrel` says its rows count.
NOTES = (
    "fewrel: a data file counts its instances by relation; gold episodes count their queries by the relation of "
    "the answer, none-of-the-above queries as the negative class (%neg)",
)


@dataclass(frozen=True)
class FewRelStatistics:
    """The label statistics of FewRel files (releval.dataset_stats.label_distribution) with what their rows
    count."""

    labels: LabelStatistics
    #: Episodes in the gold episode files (0 for data files): the unit the bootstrap resamples.
    episodes: int = 0

    @property
    def rows(self) -> list[tuple[str, LabelStats]]:
        return self.labels.rows

    def to_tables(self) -> list[Table]:
        return [replace(t, notes=(*t.notes, *NOTES)) for t in self.labels.to_tables()]

    def to_dict(self) -> dict[str, Any]:
        """{"files": one object per row (releval.dataset_stats.label_distribution), "n": the samples of the last
        row (the total when there are several files), "episodes": the episodes of the episode files}: an object,
        as a board's statistics line is."""
        rows = self.labels.to_dict()
        n = rows[-1]["samples"] if rows else 0
        return {**header("fewrel-stats"), "files": rows, "n": n, "episodes": self.episodes}


def statistics(paths: Sequence[Any], config: Any = None) -> FewRelStatistics:
    """Harbecke Table 1 columns for every FewRel file, and for all of them together when there are several."""
    rows: list[tuple[str, LabelStats]] = []
    every: list[str] = []
    negatives: set[str | None] = set()
    units: set[str] = set()
    episodes = 0
    for path in paths:
        labels, negative, unit, in_file = file_labels(path)
        episodes += in_file
        negatives.add(negative)
        units.add(unit)
        every += labels
        rows.append((unit, label_stats(str(path), labels, negative)))
    if len(paths) > 1:
        negative = next((n for n in negatives if n is not None), None)
        rows.append(("+".join(sorted(units)), label_stats("total", every, negative)))
    return FewRelStatistics(LabelStatistics(rows), episodes)
