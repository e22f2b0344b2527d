"""A toy task that no file of releval knows: accuracy of whitespace-separated tokens matched by position, with one
setting of its own. Tests register it (`register_task(TASK)`, or `RELEVAL_TASKS=toy=toy_task:TASK` for a board's
processes) to show that a task is one module plus one registry line for `score`, `compare`, `stats` and the board.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releval.core.errors import InputError
from releval.result import Average, ScoreResult
from releval.tasks.base import ScoringConfig, Task


@dataclass(frozen=True)
class ToyConfig(ScoringConfig):
    """A toy task: accuracy of exact-match lines, with one setting of its own."""

    task = "toy"
    case_insensitive: bool = False


def _toy_score(gold: Path, systems: list[tuple[str | None, Path]], config: ToyConfig) -> list[ScoreResult]:
    from releval.core.signature import Signature

    g = Path(gold).read_text().split()
    results = []
    for name, path in systems:
        p = Path(path).read_text().split()
        if len(p) != len(g):
            raise InputError(f"{len(p)} tokens; gold has {len(g)}", file=str(path))
        same = sum(x == y for x, y in zip(g, p))
        acc = same / len(g)
        sig = Signature.build(task="toy", average=["micro"], n=len(g))
        averages = {"micro": Average("micro", acc, acc, acc)}
        results.append(ScoreResult(name or Path(path).stem, [], averages, acc, len(g), None, sig))
    return results


def _toy_compare(gold: Any, systems: Any, config: Any, test: Any, *, baseline: Any = None, progress: Any = None) -> Any:
    """The toy task's comparison: its lines as labels, through the library's paired test (no file of releval
    knows this task)."""
    from releval.significance.compare import paired_table
    from releval.tasks.classification import ClassificationConfig

    g = Path(gold).read_text().split()
    preds = {name: Path(paths[0]).read_text().split() for name, paths in systems.items()}
    return paired_table(g, preds, ClassificationConfig(negative=None), test, baseline=baseline, progress=progress)


@dataclass(frozen=True)
class ToyStatistics:
    lines: int
    distinct: int

    def to_tables(self) -> Any:
        from releval.core.table import Column, Table

        return [Table("toy", [Column("lines", "count"), Column("distinct", "count")], [[self.lines, self.distinct]])]

    def to_dict(self) -> dict[str, int]:
        return {"lines": self.lines, "distinct": self.distinct}


def _toy_statistics(paths: Any, config: Any) -> ToyStatistics:
    words = [w for p in paths for w in Path(p).read_text().split()]
    return ToyStatistics(len(words), len(set(words)))


TASK = Task("toy", "exact-match lines", ToyConfig, "item", _toy_score, _toy_compare, _toy_statistics)
