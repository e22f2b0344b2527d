"""Comparing DrugProt systems (releval.tasks.drugprot): paired tests over abstracts, or seed runs.

One file per system: the paired bootstrap and the approximate randomization test resample (or swap) abstracts, each
carrying its per-type TP/FP/FN (`releval.tasks.drugprot.paired_cells`), through the same machinery as every other
task (releval.significance.compare). Several files per system: Welch's t and Cohen's d over the runs' F values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from releval.core.errors import InputError
from releval.core.notices import Notice
from releval.significance.compare import (
    PairedTable,
    SeedTable,
    _check_systems,
    _run_tests,
    pair_rows,
    score_runs,
    seed_table,
    system_pairs,
)
from releval.significance.config import SignificanceConfig, correction_field
from releval.tasks import drugprot as dp

_NOTE = "DrugProt: abstracts are resampled (per-abstract TP/FP/FN per relation type)"


def _score_all(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: dp.DrugProtConfig
) -> dict[str, list[dp.DrugProtResult]]:
    """Every run of every system scored against one gold standard; every file's problems reported together."""
    g = dp.load_gold(gold)
    return score_runs(systems, lambda name, run: dp.score(g, run, config, name))


def compare_files(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: dp.DrugProtConfig,
    test: SignificanceConfig,
    *,
    baseline: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> PairedTable | SeedTable:
    """DrugProt's `compare` (releval.tasks.drugprot.TASK): one file per system → paired tests over abstracts;
    several per system → runs over seeds. Mixing the two is an InputError."""
    names = _check_systems(systems)
    counts = {len(runs) for runs in systems.values()}
    if len(counts) > 1 and 1 in counts:
        raise InputError("give every system one file (paired tests) or several runs (seed comparison)", field="system")
    gold_set = dp.load_gold(gold)
    scored = _score_all(gold_set, systems, config)
    metrics = tuple(config.average_names)
    first = next(iter(scored.values()))[0]
    n = first.n
    if counts != {1}:
        runs = {name: {m: [r.averages[m].f for r in rs] for m in metrics} for name, rs in scored.items()}
        seed_fields = {
            "test": f"welch:{test.alternative},cohen-d:harbecke-eq4",
            "methods": correction_field(test.correction, baseline),
        }
        sig = dp.signature(config, gold_set, seed_fields)
        return seed_table(runs, metrics, sig, n, baseline, test, unit="documents")
    results = {name: rs[0] for name, rs in scored.items()}
    spec = dp.averaging_spec(config)

    def cells(a: str, b: str) -> list[tuple[str, Any, Any]]:
        return [("", dp.paired_cells(results[a], results[b]), spec)]

    raw = _run_tests(system_pairs(names, baseline), test, progress, cells, None)
    scores = {name: {m: r.averages[m].f for m in metrics} for name, r in results.items()}
    extra = test.signature_fields(unit="documents", baseline=baseline)
    return PairedTable(
        scores,
        pair_rows(raw, test.correction),
        baseline,
        test.tests,
        metrics,
        test.alternative,
        test.correction,
        n,
        dp.signature(config, gold_set, extra),
        test.interval_confidence,
        [_NOTE, *first.notes[:1]],
        unit="documents",
        warnings=[Notice(f"{name}: {w}", w.code) for name, r in results.items() for w in r.warnings],
    )
