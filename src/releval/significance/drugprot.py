"""Comparing DrugProt systems (releval.tasks.drugprot): paired tests over abstracts, or seed runs.

One file per system: the paired bootstrap and the approximate randomization test resample (or swap) abstracts, each
carrying its per-type TP/FP/FN (`releval.tasks.drugprot.paired_cells`), through the same machinery as every other
task (releval.significance.compare). Several files per system: Welch's t and Cohen's d over the runs' F values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from releval.significance.compare import PairedTable, SeedTable, score_runs
from releval.significance.comparison import (
    JointRows,
    Scored,
    check_resampling_tests,
    check_systems,
    compare_scored,
    joint_rank_intervals,
    run_warnings,
)
from releval.significance.config import SignificanceConfig
from releval.significance.paired import resampling_rows
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
    """DrugProt's `compare` (releval.tasks.drugprot.TASK) on the one comparison path
    (releval.significance.comparison): one file per system → paired tests over abstracts; several per system →
    runs over seeds. Mixing the two is an InputError."""
    paired = check_systems(systems, baseline)
    check_resampling_tests(test, "DrugProt abstracts: they need per-item correctness (use bootstrap or randomization)")
    gold_set = dp.load_gold(gold)
    results = _score_all(gold_set, systems, config)
    first = next(iter(results.values()))[0]
    spec = dp.averaging_spec(config)

    def pair(a: str, b: str, method: str, advance: Callable[[int], None] | None) -> Mapping[str, Any]:
        cells = dp.paired_cells(results[a][0], results[b][0])
        return resampling_rows(cells, spec, method, test, advance)

    scored = Scored(
        results,
        tuple(config.average_names),
        lambda r: {m: r.averages[m].f for m in config.average_names},
        first.n,
        "documents",
        lambda extra: dp.signature(config, gold_set, extra),
        paired=pair,
        notes=[_NOTE, *first.notes[:1]],
        warnings=run_warnings(results),
    )
    return compare_scored(scored, paired, test, baseline, progress)


def rank_intervals(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: dp.DrugProtConfig, test: SignificanceConfig
) -> dict[str, dict[str, Any]]:
    """Each DrugProt system's rank and bootstrap rank interval under micro and each weighting: abstracts drawn
    once for every system (releval.significance.comparison.joint_rank_intervals); a system with several files
    (seeds) ranked by the mean of its runs' F."""
    import numpy as np

    from releval.metrics.averages import fix_class_set
    from releval.metrics.cells import f_scores

    results = _score_all(dp.load_gold(gold), systems, config)
    rows: dict[str, list[Any]] = {}
    for name, runs in results.items():
        rows[name] = []
        for r in runs:
            assert r.counts is not None
            rows[name].append(np.hstack([np.asarray(m, dtype=np.float64) for m in r.counts]))
    first = next(iter(rows.values()))[0]
    k = first.shape[1] // 3
    spec = fix_class_set(dp.averaging_spec(config), first[:, :k].sum(0) + first[:, 2 * k :].sum(0), test.class_set)
    return joint_rank_intervals(JointRows(rows, lambda t: f_scores(t, spec)), tuple(config.average_names), test)
