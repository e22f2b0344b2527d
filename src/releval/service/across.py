"""Across benchmarks: the replicability analysis of Dror et al. (2017) for two methods submitted to several
classification benchmarks under the same entry names — per benchmark a one-sided paired bootstrap p-value (H1: A
better than B) on the entries' first runs, then k̂ and the benchmarks identified (releval.analyze_replicability). The
benchmarks read are those whose task declares it (`BoardTask.across_benchmarks`: gold and runs as {id: label})."""

from __future__ import annotations

from typing import Any

from releval.core.errors import OptionError, RelevalError
from releval.service import board as ops
from releval.service.board_tasks import board_tasks, task_of
from releval.service.jobs import primary_runs, stored_predictions
from releval.service.models import Benchmark, Entry, RunData
from releval.service.phases import view_for


def replicability(a: str, b: str, measure: str = "micro", alpha: float = 0.05) -> dict[str, Any]:
    """The analysis for entries named `a` and `b` over every benchmark both are on (at least two)."""
    from releval.replicability.analysis import analyze, dataset_tests
    from releval.service import scoring

    if not a or not b or a == b:
        raise ops.Refused("give two different entry names: ?a=…&b=…")
    try:
        measure = scoring.check_measure(measure)
    except OptionError as exc:
        raise ops.Refused(str(exc)) from None
    datasets = []
    readable = [name for name, task in board_tasks().items() if task.across_benchmarks]
    for bench in Benchmark.objects.filter(task__in=readable).order_by("id"):
        entries = {e.name: e for e in Entry.objects.filter(benchmark=bench, name__in=[a, b])}
        if len(entries) < 2:
            continue
        if not view_for(bench, None).detail:
            continue  # paired p-values against hidden labels: not while a hidden phase lasts
        runs = primary_runs(bench)
        if entries[a].pk not in runs or entries[b].pk not in runs:
            continue
        task = task_of(bench.task)
        try:
            stored_a, stored_b = (stored_predictions(runs[entries[e].pk].pk) for e in (a, b))
        except RunData.DoesNotExist:  # withdrawn as this request reads it: not on this benchmark any more
            continue
        gold, pred_a = task.inputs(bench, stored_a)
        pred_b = task.inputs(bench, stored_b)[1]
        datasets.append((bench.slug, gold, pred_a, pred_b))
    if len(datasets) < 2:
        raise ops.Refused(f"entries {a!r} and {b!r} share {len(datasets)} benchmark(s); the analysis needs two", 404)
    try:
        tests = dataset_tests(datasets, metric=measure)
        result = analyze(tests.pvalues, alpha, names=tests.names, effects=tests.effects)
    except RelevalError as exc:
        raise ops.Refused(str(exc)) from None
    analysis = result.to_dict()
    for row in analysis.get("datasets", []):
        row["effect_pct"] = f"{100 * row['effect']:+.2f}" if "effect" in row else ""
    return {"a": a, "b": b, "measure": measure, "tests": tests.to_dict(), "analysis": analysis}
