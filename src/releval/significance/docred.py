"""Paired tests and seed comparisons of DocRED submissions, documents resampled (releval.tasks.docred).

Each document is a unit: its row holds, per relation type, TP|FP|FN and the counts the official numbers are made
of (predictions, correct, gold facts, correct facts seen in train, evidence counts, intra/inter counts). A paired
bootstrap resamples documents (the same documents for both systems) and a randomization swaps whole documents'
rows between the systems — releval.metrics.cells' samplers — and every measure (F1, Ign F1, Evi F1, every class
weighting, frequent / long-tail / intra / inter F1) is computed from the same resampled totals. Predictions for
titles absent from gold form units of their own (false positives that belong to no gold document).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError, raise_all
from releval.core.validation import refuse_options
from releval.data.docred import load_gold, load_submission
from releval.metrics.averages import fix_class_set
from releval.metrics.cells import (
    PairedCells,
    bootstrap_cell_counts,
    bootstrap_plan,
    cells_from_rows,
    randomization_totals,
)
from releval.significance.compare import PairedTable, SeedTable
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
from releval.significance.paired import comparison_rows
from releval.tasks import docred


def _scored(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: docred.DocredConfig
) -> tuple[Any, docred.Facts, dict[str, list[docred.DocredResult]]]:
    g = load_gold(gold, evidence=config.evidence)
    facts = docred.Facts.of(config)
    if len(systems) < 2:
        raise InputError(f"comparison needs at least 2 systems, got {len(systems)}", field="system")
    out: dict[str, list[docred.DocredResult]] = {}
    errors: list[InputError] = []
    for name, runs in systems.items():
        for run in runs:
            try:
                counts = docred.count(g, load_submission(run, g), facts, config)
                out.setdefault(name, []).append(docred.result_of(name, g, counts, facts, config, []))
            except InputError as exc:
                errors.append(exc)
    raise_all(errors)
    return g, facts, out


def _dense_bootstrap_totals(
    cells: PairedCells, resamples: int, rng: np.random.Generator
) -> Iterator[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """`releval.metrics.cells.bootstrap_totals` with the same draws, its totals taken by one dense product: a
    document's row has hundreds of columns (TP|FP|FN per relation type), where BLAS beats the sparse product."""
    plan = bootstrap_plan(cells.counts)
    both = np.hstack([cells.stats_a, cells.stats_b])
    d = cells.stats_a.shape[1]
    # A resample's totals are sums of integers, at most n × the largest cell value: below 2**24 every partial sum
    # is exact in float32 too, whose product is about twice as fast; else float64.
    bound = float(cells.counts.sum()) * float(np.abs(both).max(initial=0.0))
    dtype = np.float32 if bound < 2**24 else np.float64
    both_t = both.astype(dtype)
    for start in range(0, resamples, BLOCK):
        draws = bootstrap_cell_counts(cells, min(BLOCK, resamples - start), rng, plan)
        tot = (draws.astype(dtype) @ both_t).astype(np.float64)  # exact integers
        yield tot[:, :d], tot[:, d:]


#: Resamples per block of the dense bootstrap: 2,000 × 500 documents of counts is 8 MB.
BLOCK = 2000


def paired_rows(
    rows_a: np.ndarray,
    rows_b: np.ndarray,
    labels: Sequence[str],
    config: docred.DocredConfig,
    distant: bool,
    spec: Any,
    method: str,
    test: SignificanceConfig,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """One resampling test (bootstrap or randomization) of two systems' per-document rows: every measure's
    MetricComparison (releval.significance.paired.comparison_rows), all measures from the same draws."""
    cells = cells_from_rows(rows_a, rows_b)
    rng = np.random.default_rng(test.seed)
    draw = _dense_bootstrap_totals if method == "bootstrap" else randomization_totals
    parts_a: dict[str, list[Any]] = {}
    parts_b: dict[str, list[Any]] = {}
    for tot_a, tot_b in draw(cells, test.resamples, rng):
        for parts, tot in ((parts_a, tot_a), (parts_b, tot_b)):
            for m, v in docred.measures_of(np.asarray(tot), labels, config, distant, spec).items():
                parts.setdefault(m, []).append(v)
        if progress is not None:
            progress(int(tot_a.shape[0]))
    draws = {m: (np.concatenate(parts_a[m]), np.concatenate(parts_b[m])) for m in parts_a}
    obs_a = {m: float(v) for m, v in docred.measures_of(rows_a.sum(0), labels, config, distant, spec).items()}
    obs_b = {m: float(v) for m, v in docred.measures_of(rows_b.sum(0), labels, config, distant, spec).items()}
    return comparison_rows(obs_a, obs_b, draws, method, test)


def compare_files(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: docred.DocredConfig,
    test: SignificanceConfig,
    *,
    baseline: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> PairedTable | SeedTable:
    """DocRED submissions compared on the one comparison path (releval.significance.comparison): one file per
    system → paired bootstrap / randomization over documents, every measure at once (metrics:
    `releval.tasks.docred.measure_names`); several files per system → runs over seeds (Welch's t, Cohen's d per
    measure).

    >>> from releval.significance.config import SignificanceConfig
    >>> compare_files("g.json", {"a": ["a.json"]}, docred.DocredConfig(), SignificanceConfig())
    Traceback (most recent call last):
    ...
    releval.core.errors.InputError: field 'system': comparison needs at least 2 systems, got 1
    """
    paired = check_systems(systems, baseline)
    refuse_options({"--relation-names": config.relation_names is not None}, "not used by compare (no per-relation "
                   "table; `score` and `plot per-class` show the names)")  # fmt: skip
    check_resampling_tests(
        test, "DocRED: they need per-item correctness (use bootstrap or randomization, which resample documents)"
    )
    g, facts, results = _scored(gold, systems, config)
    distant = facts.distant is not None
    first = next(iter(results.values()))[0]
    notes = [
        "DocRED: documents are resampled (per-document counts of every measure); class weightings over the "
        "relation types with gold support"
    ]
    values: Callable[[Any], Mapping[str, float]] = lambda r: r.measures(config, distant)  # noqa: E731
    pair = None
    n = first.n_documents
    if paired:
        labels, units, wide, spec, observed = _paired_inputs(results, config, distant, test)
        values = lambda r: observed[r.system]  # noqa: E731 — the measures under the bootstrap's class set

        def pair(a: str, b: str, method: str, advance: Callable[[int], None] | None) -> Mapping[str, Any]:
            return paired_rows(wide[a], wide[b], labels, config, distant, spec, method, test, advance)

        n = len(units)
        if len(units) > first.n_documents:
            notes.append(f"{len(units) - first.n_documents} title(s) absent from gold resampled as units of their own")
    scored = Scored(
        results,
        docred.measure_names(config, distant),
        values,
        n,
        "documents",
        lambda extra: docred.signature(config, g, first.scored_counts(), facts, extra),
        paired=pair,
        notes=notes,
        warnings=run_warnings(results),
    )
    return compare_scored(scored, paired, test, baseline, progress)


def _paired_inputs(
    results: Mapping[str, Sequence[docred.DocredResult]],
    config: docred.DocredConfig,
    distant: bool,
    test: SignificanceConfig,
) -> tuple[list[str], list[Any], dict[str, np.ndarray], Any, dict[str, dict[str, float]]]:
    """The per-document rows of every system (one file each) on one set of relation types and units (gold's
    documents, then titles absent from gold), the averaging spec under the test's class set, and each system's
    observed measures under it."""
    one = {name: rs[0] for name, rs in results.items()}
    labels = sorted({x for r in one.values() for x in r.scored_counts().labels})
    units = list(dict.fromkeys(u for r in one.values() for u in r.scored_counts().units))
    wide = {name: r.scored_counts().widen(labels, units) for name, r in one.items()}
    k = len(labels)
    any_rows = next(iter(wide.values()))
    gold_support = (any_rows[:, :k] + any_rows[:, 2 * k : 3 * k]).sum(0)  # TP + FN: the same for every system
    spec = fix_class_set(docred.averaging_spec(config, k), gold_support, test.class_set) if k else None
    observed = {
        name: {m: float(v) for m, v in docred.measures_of(w.sum(0), labels, config, distant, spec).items()}
        for name, w in wide.items()
    }
    return labels, units, wide, spec, observed


def rank_intervals(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: docred.DocredConfig, test: SignificanceConfig
) -> dict[str, dict[str, Any]]:
    """Each submission's rank and bootstrap rank interval under every DocRED measure: documents drawn once for
    every system (releval.significance.comparison.joint_rank_intervals); a system with several submissions
    (seeds) ranked by the mean of its runs' measure, every run widened to the same relation types and documents."""
    _, facts, results = _scored(gold, systems, config)
    distant = facts.distant is not None
    owners = [(name, i) for name, runs in results.items() for i in range(len(runs))]
    every = {str(j): [results[name][i]] for j, (name, i) in enumerate(owners)}  # each run as a system of its own
    labels, _, wide_runs, spec, _ = _paired_inputs(every, config, distant, test)
    wide: dict[str, list[np.ndarray]] = {name: [] for name in results}
    for j, (name, _) in enumerate(owners):
        wide[name].append(wide_runs[str(j)])

    def measures(totals: np.ndarray) -> Mapping[str, Any]:
        return docred.measures_of(totals, labels, config, distant, spec)

    return joint_rank_intervals(JointRows(wide, measures), docred.measure_names(config, distant), test)
