"""A toy task that no file of releval knows, written only against the extension API (releval.registry): accuracy of
whitespace-separated tokens matched by position, with one setting of its own, per-class rows (each gold token a
class) and an audit. Tests register it (`register_task(TASK)`, or `RELEVAL_TASKS=toy=toy_task:TASK` for a board's
processes) to show that a task is one module plus one registry line for `score`, `compare`, `stats`,
`replicability from-predictions`, `audit run`, `plot per-class` and the board.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releval.core.errors import InputError
from releval.registry import ScoringConfig, Task, Vocabulary, build_signature, rows_per_class
from releval.result import Average, ClassRow, ScoreResult


@dataclass(frozen=True)
class ToyConfig(ScoringConfig):
    """A toy task: accuracy of exact-match lines, with one setting of its own."""

    task = "toy"
    case_insensitive: bool = False


def _tokens(path: Any, config: ToyConfig | None = None) -> list[str]:
    words = Path(path).read_text().split()
    return [w.lower() for w in words] if config is not None and config.case_insensitive else words


def _rows(g: Sequence[str], p: Sequence[str]) -> list[ClassRow]:
    """One row per gold token (a class), every class positive: tp, fp, fn, support, P, R, F."""
    rows = []
    for label in sorted(set(g)):
        tp = sum(x == y == label for x, y in zip(g, p))
        fp = sum(y == label != x for x, y in zip(g, p))
        fn = sum(x == label != y for x, y in zip(g, p))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        rows.append(ClassRow(label, tp, fp, fn, tp + fn, precision, recall, f, True))
    return rows


def _toy_score(gold: Any, systems: Sequence[tuple[str | None, Any]], config: ToyConfig) -> list[ScoreResult]:
    g = _tokens(gold, config)
    results = []
    for name, path in systems:
        p = _tokens(path, config)
        if len(p) != len(g):
            raise InputError(f"{len(p)} tokens; gold has {len(g)}", file=str(path))
        acc = sum(x == y for x, y in zip(g, p)) / len(g)
        sig = build_signature({"task": "toy", "average": ["micro"], "n": len(g)})
        averages = {"micro": Average("micro", acc, acc, acc)}
        results.append(ScoreResult(name or Path(path).stem, _rows(g, p), averages, acc, len(g), None, sig))
    return results


def _toy_compare(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: ToyConfig,
    test: Any,
    /,
    *,
    baseline: str | None = None,
    progress: Any = None,
) -> Any:
    """The toy task's comparison: its lines as labels, through the library's paired test (no file of releval
    knows this task)."""
    from releval.significance.compare import paired_table
    from releval.tasks.classification import ClassificationConfig

    g = _tokens(gold, config)
    preds = {name: _tokens(paths[0], config) for name, paths in systems.items()}
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


def _toy_audit(
    gold: Any, pred: Any, config: ToyConfig, /, *, train: Any = None, train_format: str | None = None
) -> Any:
    """One finding: how many tokens differ from gold (a warning), or that none does (a note)."""
    from releval.audit.findings import AuditReport, Finding

    g, p = _tokens(gold, config), _tokens(pred, config)
    differ = [f"{i + 1}: {x} → {y}" for i, (x, y) in enumerate(zip(g, p)) if x != y]
    finding = (
        Finding("toy-differ", "warning", f"{len(differ)} of {len(g)} tokens differ from gold", len(differ), differ)
        if differ
        else Finding("toy-same", "info", "every token is gold's")
    )
    return AuditReport([finding], {"gold": str(gold), "pred": str(pred)})


def _toy_vocabularies(gold: Any, pred: Any, config: ToyConfig) -> list[Vocabulary]:
    """The toy's one labelled field, its tokens, beside gold's: the pipeline checks them (letter case, indices, no
    token in common …) in every command; the toy itself checks nothing."""
    return [Vocabulary("token", frozenset(_tokens(gold, config)), tuple(_tokens(pred, config)), str(pred))]


TASK = Task(
    "toy",
    "exact-match lines",
    ToyConfig,
    "item",
    _toy_score,
    _toy_compare,
    _toy_statistics,
    per_class=rows_per_class,
    audit=_toy_audit,
    vocabularies=_toy_vocabularies,
)
