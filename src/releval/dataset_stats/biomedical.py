"""Dataset statistics of the biomedical tasks: ChemProt's row of Harbecke et al. (2022), Table 1, and DrugProt.

Harbecke et al.'s Table 1 gives, per dataset, "the number of relations, samples and percent of negative samples
... for the whole dataset", and "perplexity of the classes ... for the test set, with and without negative
samples", and the "ratio ... between the counts of the most and least frequent positive class of the test set"
(its caption). `chemprot_statistics` prints that row from the split files (every file for the counts, the test
split for perplexity and ratio), next to the per-file rows of `releval stats` (releval.dataset_stats.
label_distribution: perplexity 2^H in bits, ratio most / least frequent positive class). On SciBERT's three files
it gives 13 / 10,065 / 0 % / 7.23 / 7.23 / 314 (docs/biomedical.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releval.core.table import Column, Table
from releval.dataset_stats.label_distribution import LabelStats, file_statistics, label_stats, stats_tables


def _short(value: float) -> str:
    """One decimal, none when it is 0 (Harbecke et al.'s Table 1 prints 0 and 79.4)."""
    return f"{value:.1f}".removesuffix(".0")


def _ratio(value: float) -> str:
    """Two decimals below 100, none from 100 on (as `releval stats` prints ratios)."""
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


_TABLE1_COLUMNS = (
    Column("dataset"),
    Column("#rel", "count", key="relations"),
    Column("#samples", "count", key="samples"),
    Column("%neg", "number", key="negative_percent", display=_short),
    Column("ppl", "number", key="perplexity", spec=".2f"),
    Column("ppl w/o neg", "number", key="perplexity_without_negative", spec=".2f"),
    Column("ratio", "number", key="ratio", display=_ratio),
)


def test_split(names: Sequence[str]) -> int:
    """The index of the test split among the files: the one file whose name contains 'test', else the last.

    >>> test_split(["train.txt", "test.txt", "dev.txt"]), test_split(["a", "b"])
    (1, 1)
    """
    hits = [i for i, name in enumerate(names) if "test" in Path(name).name.lower()]
    return hits[0] if len(hits) == 1 else len(names) - 1


@dataclass(frozen=True)
class Table1Statistics:
    """Per-file label statistics and Harbecke et al.'s Table 1 row: counts over every file (`whole`),
    perplexities and ratio of the test split (`test`)."""

    task: str
    rows: list[tuple[str, LabelStats]]
    whole: LabelStats
    test: LabelStats

    def row(self) -> dict[str, Any]:
        """The Table 1 row as numbers."""
        return {
            "dataset": self.task,
            "relations": self.whole.n_labels,
            "samples": self.whole.n_samples,
            "negative_percent": self.whole.negative_percent,
            "perplexity": self.test.perplexity,
            "perplexity_without_negative": self.test.perplexity_positive,
            "ratio": self.test.ratio,
            "test_file": self.test.name,
        }

    def to_tables(self) -> list[Table]:
        row = self.row()
        body = [tuple(row[c.key or c.name] for c in _TABLE1_COLUMNS)]
        notes = (
            "Harbecke et al. (2022), Table 1: #rel, #samples and %neg over all files; ppl, ppl w/o neg and ratio of "
            f"the test split ({self.test.name})",
        )
        return [
            *stats_tables(self.rows),
            Table("Table 1 row (Harbecke et al. 2022)", _TABLE1_COLUMNS, body, notes=notes),
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "files": [{"view": v, **s.to_dict()} for v, s in self.rows],
            "table1": self.row(),
        }


def chemprot_statistics(paths: Sequence[Any], config: Any, **options: Any) -> Table1Statistics:
    """Statistics of ChemProt split files read as the preset reads gold (releval.tasks.chemprot), with Harbecke et
    al.'s Table 1 row: #rel, #samples, %neg over every file; ppl (with and without the negative class) and ratio
    of the test split (`test_split`)."""
    from releval.tasks.classification import load_gold

    files = [load_gold(p, config)[0] for p in paths]
    rows = file_statistics(files, config.negative, "labels").rows
    everything = [x for f in files for x in f.labels]
    whole = label_stats("all files", everything, config.negative)
    test = next(s for v, s in rows if s.name == files[test_split([f.path for f in files])].path)
    return Table1Statistics(config.task, rows, whole, test)


def drugprot_statistics(paths: Sequence[Any], config: Any, **options: Any) -> Table1Statistics:
    """Statistics of DrugProt gold standards (folders or relations files, releval.data.drugprot): one row per gold
    standard over its candidate (chemical, gene) pairs — #rel the relation types used, #samples the candidate pairs
    (plus the extra labels of pairs with several relations), %neg the pairs without a relation — and Harbecke et
    al.'s Table 1 row over all of them (the test split: the one named 'test', else the last)."""
    from releval.data.drugprot import load_gold

    rows: list[tuple[str, LabelStats]] = []
    labels_of: list[list[str]] = []
    for path in paths:
        gold = load_gold(path)
        related: dict[tuple[str, str, str], int] = {}
        labels: list[str] = []
        for pmid, chemical, gene, kind in gold.gold.distinct:
            related[(pmid, chemical, gene)] = related.get((pmid, chemical, gene), 0) + 1
            labels.append(kind)
        labels += [NO_RELATION] * (gold.candidate_pairs() - len(related))
        labels_of.append(labels)
        rows.append(("pairs", label_stats(gold.relations_path, labels, NO_RELATION)))
    whole = label_stats("all files", [x for labels in labels_of for x in labels], NO_RELATION)
    test = rows[test_split([s.name for _, s in rows])][1]
    return Table1Statistics("drugprot", rows, whole, test)


#: The label of a candidate pair without a relation in DrugProt's statistics.
NO_RELATION = "no_relation"
