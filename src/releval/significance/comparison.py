"""The one comparison path of every task: which systems are compared how, the checks, the table.

`releval compare` gives a task's `compare` the systems as {name: [runs]}. Whatever the task, the same rules hold
and are written here once:

* two systems at least; a `baseline` must be one of them;
* one run per system → paired tests on the same units (items, documents, bags, episodes); several runs per system
  → Welch's t and Cohen's d over the runs (Harbecke et al. 2022, §4, eq. 4); a mix of the two is refused, and a
  seed comparison needs two runs of every system;
* tests that need per-item correctness (McNemar, the sign test) are refused by a task whose units have none;
* every pair (or each system against the baseline) × every test × every measure, the p-values corrected per
  (test, measure) family (`releval.significance.compare.pair_rows`), one `PairedTable` or `SeedTable` out.

A task gives what only it knows — a `Scored`: its results per run, the measures, each result's values, the number
of units, its signature, notes and warnings, and the draws of two systems: `pair_statistics(a, b)`, their per-unit
statistics per criterion (`PairStatistics`: TP/FP/FN per class of every unit, `releval.metrics.cells`), from which
every resampling test is drawn here; or `paired(a, b, method, progress)`, the MetricComparison per measure of one
resampling test. A task whose draws are joint over all systems (ranked facts re-rank every resample) gives
`all_pairs` instead, which returns the raw rows of every pair and test. `compare --per-class` and the bootstrap
figure take a pair's `pair_statistics` from the same `Scored` (releval.significance.per_class,
releval.report.figures.bootstrap), so a seed gives them the draws it gives `compare`.

Example
-------
>>> check_systems({"a": ["a.txt"]}, None)
Traceback (most recent call last):
...
releval.core.errors.InputError: field 'system': comparison needs at least 2 systems, got 1
>>> check_systems({"a": ["a1", "a2"], "b": ["b"]}, None)
Traceback (most recent call last):
...
releval.core.errors.InputError: field 'system': mixing single-file systems (b) with multi-run systems: give every ...
>>> check_systems({"a": ["a"], "b": ["b"]}, None)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from releval.core.errors import InputError, OptionError
from releval.core.notices import Notice
from releval.core.options import RESAMPLING_TESTS
from releval.core.signature import Signature
from releval.significance.config import SignificanceConfig, correction_field
from releval.significance.tables import PairedTable, SeedTable, pair_rows, raw_row, seed_table, system_pairs
from releval.significance.ties import floor_warnings

#: The seed comparison's test field in every task's signature.
SEED_TEST = "welch:{alternative},cohen-d:harbecke-eq4"


def check_systems(systems: Mapping[str, Sequence[Any]], baseline: str | None) -> bool:
    """The rules every comparison shares (see the module); True for paired tests, False for runs over seeds."""
    if len(systems) < 2:
        raise InputError(f"comparison needs at least 2 systems, got {len(systems)}", field="system")
    if baseline is not None and baseline not in systems:
        raise OptionError(f"baseline {baseline!r} is not among the systems: {', '.join(systems)}", option="baseline")
    run_counts = {name: len(runs) for name, runs in systems.items()}
    if set(run_counts.values()) == {1}:
        return True
    single = [name for name, n in run_counts.items() if n == 1]
    if single:
        raise InputError(
            f"mixing single-file systems ({', '.join(single)}) with multi-run systems: give every system one file "
            "(paired tests) or several runs (seed comparison)",
            field="system",
        )
    return False


def check_resampling_tests(test: SignificanceConfig, what: str) -> None:
    """Refuse the tests a task's units cannot give (McNemar, sign: per-item correctness); `what` says why, after
    "not available for …"."""
    bad = [t for t in test.tests if t not in RESAMPLING_TESTS]
    if bad:
        raise OptionError(f"tests: {', '.join(bad)} not available for {what}", option="tests")


@dataclass(frozen=True)
class PairStatistics:
    """Two systems' per-unit statistics under one criterion: the distinct cells of TP/FP/FN per class of every unit
    (`cells`, A first), how they average (`spec`), the classes' names in the cells' order (`labels`) and the prefix
    of the criterion's measures ("" for a task of one criterion, "strict:" for end-to-end RE's Strict)."""

    prefix: str
    cells: Any
    spec: Any
    labels: Sequence[str]


#: One resampling test of two systems: (a, b, method, progress) → {measure: MetricComparison}.
PairedRows = Callable[[str, str, str, Callable[[int], None] | None], Mapping[str, Any]]


@dataclass
class Scored:
    """What a task gives the comparison path (see the module): `results` every run of every system, `metrics` the
    measures in order, `values(result)` a result's value per measure, `n` the number of units of `unit`,
    `signature(extra)` the task's signature with the test's fields, and `pair_statistics` (or `paired`, or
    `all_pairs`) the draws."""

    results: dict[str, list[Any]]
    metrics: tuple[str, ...]
    values: Callable[[Any], Mapping[str, float]]
    n: int
    unit: str
    signature: Callable[[dict[str, object]], Signature]
    paired: PairedRows | None = None
    pair_statistics: Callable[[str, str], list[PairStatistics]] | None = None
    all_pairs: Callable[[list[tuple[str, str]], Callable[[int], None] | None], list[dict[str, Any]]] | None = None
    notes: list[str] = field(default_factory=list)
    warnings: list[Notice] = field(default_factory=list)
    #: Notes of the seed comparison only (the paired one's `notes` speak of resampling).
    seed_notes: list[str] = field(default_factory=list)
    #: Whether the signature's test field names the resampled unit (`bootstrap:two-sided:documents`); the items of
    #: classification are implied.
    unit_signed: bool = True


def run_warnings(results: Mapping[str, Sequence[Any]]) -> list[Notice]:
    """Every run's warnings, each prefixed with its system's name (the table's warnings)."""
    return [Notice(f"{name}: {w}", w.code) for name, runs in results.items() for r in runs for w in r.warnings]


def compare_scored(
    scored: Scored,
    paired: bool,
    test: SignificanceConfig,
    baseline: str | None,
    progress: Callable[[int], None] | None = None,
) -> PairedTable | SeedTable:
    """The table of a task's `Scored` systems: paired tests (every pair × test × measure) or runs over seeds."""
    metrics = scored.metrics
    if not paired:
        runs = {
            name: {m: [float(scored.values(r)[m]) for r in rs] for m in metrics} for name, rs in scored.results.items()
        }
        fields: dict[str, object] = {
            "test": SEED_TEST.format(alternative=test.alternative),
            "methods": correction_field(test.correction, baseline),
        }
        seeds = seed_table(
            runs, metrics, scored.signature(fields), scored.n, baseline, test, scored.unit, scored.warnings
        )
        if scored.seed_notes:
            seeds.notes[:0] = scored.seed_notes
        return seeds
    one = {name: rs[0] for name, rs in scored.results.items()}
    pairs = system_pairs(list(one), baseline)
    if scored.all_pairs is not None:
        raw = scored.all_pairs(pairs, progress)
    else:
        raw = []
        for a, b in pairs:
            for method in test.tests:
                rows = pair_rows_of(scored, a, b, method, test, progress)
                raw.extend(raw_row(a, b, method, m, rows[m]) for m in metrics)
    scores = {name: {m: float(scored.values(r)[m]) for m in metrics} for name, r in one.items()}
    table = PairedTable(
        scores,
        pair_rows(raw, test.correction),
        baseline,
        test.tests,
        metrics,
        test.alternative,
        test.correction,
        scored.n,
        scored.signature(test.signature_fields(unit=scored.unit if scored.unit_signed else None, baseline=baseline)),
        test.interval_confidence,
        list(scored.notes),
        unit=scored.unit,
        warnings=list(scored.warnings),
    )
    table.warnings.extend(floor_warnings(table))
    return table


def pair_rows_of(
    scored: Scored,
    a: str,
    b: str,
    method: str,
    test: SignificanceConfig,
    progress: Callable[[int], None] | None = None,
) -> Mapping[str, Any]:
    """One resampling test of systems `a` and `b`: {measure: MetricComparison}, from the task's `paired`, or drawn
    from its `pair_statistics` (releval.significance.paired.resampling_rows, every criterion's cells with the same
    seed)."""
    if scored.paired is not None:
        return scored.paired(a, b, method, progress)
    assert scored.pair_statistics is not None, "a Scored gives pair_statistics, paired or all_pairs"
    from releval.significance.paired import resampling_rows

    rows: dict[str, Any] = {}
    for statistics in scored.pair_statistics(a, b):
        for m, r in resampling_rows(statistics.cells, statistics.spec, method, test, progress).items():
            rows[f"{statistics.prefix}{m}"] = r
    return rows


@dataclass(frozen=True)
class JointRows:
    """Every system's per-unit statistics on one set of units (`rows`: {system: (units, d)}, or {system: [(units,
    d), …]} for a system with several runs (seeds), the same units in the same order for every run of every system)
    and how totals become measures (`measures_of(totals (r, d))` → {measure: (r,)}): what a joint bootstrap of all
    the systems at once needs — rank intervals of any task, any number of systems, any number of runs."""

    rows: Mapping[str, Any]
    measures_of: Callable[[Any], Mapping[str, Any]]

    def runs(self) -> dict[str, list[Any]]:
        """{system: [its runs' (units, d) rows]}: a single 2-D array is one run."""
        import numpy as np

        out: dict[str, list[Any]] = {}
        for name, rows in self.rows.items():
            if isinstance(rows, np.ndarray) and rows.ndim == 2:
                out[name] = [rows]
            else:
                out[name] = [np.asarray(r, dtype=np.float64) for r in rows]
            if not out[name]:
                raise InputError(f"system {name!r} has no runs", field="system")
        return out


def joint_rank_intervals(
    joint: JointRows, metrics: Sequence[str], test: SignificanceConfig, block: int = 256
) -> dict[str, dict[str, Any]]:
    """Each system's rank and bootstrap rank interval under every measure, from one joint draw of the units for
    every system (releval.significance.ranks' definitions: competition ranks, the central `test.confidence` share
    of the resamples' ranks). The units are drawn as distinct joint rows (every run's statistics of a unit side by
    side: `releval.metrics.cells.draw_cell_counts`) in blocks of `block` resamples, and only a count of each
    system's ranks is kept (systems × systems per measure), so memory does not grow with the resamples — a board of
    1,000 entries needs 8 MB per measure.

    A system with several runs (seeds) is scored, observed and in each resample, by the mean of its runs' measure,
    every run on the same drawn units (releval.significance.ranks' definition, the one the board uses); one run per
    system is the mean of one value, so its intervals are those of a single-run draw, digit for digit.

    >>> import numpy as np
    >>> from releval.significance.config import SignificanceConfig
    >>> good = np.array([[1.0, 1.0]] * 4)  # (correct, total) per unit
    >>> bad = np.array([[0.0, 1.0]] * 4)
    >>> joint = JointRows({"a": [good, good], "b": [bad, good]}, lambda t: {"acc": t[..., 0] / t[..., 1]})
    >>> r = joint_rank_intervals(joint, ["acc"], SignificanceConfig(resamples=20))
    >>> r["a"]["acc"], r["b"]["acc"]
    (RankInterval(rank=1, low=1, high=1), RankInterval(rank=2, low=2, high=2))
    """
    import numpy as np

    from releval.metrics.cells import bootstrap_plan, draw_cell_counts
    from releval.significance.ranking import RankInterval, competition_ranks

    runs = joint.runs()
    names = list(runs)
    k = len(names)
    flat = [r for n in names for r in runs[n]]  # every run, system by system
    owner = np.repeat(np.arange(k), [len(runs[n]) for n in names])
    n_runs = np.array([len(runs[n]) for n in names], dtype=np.float64)
    stacked = np.hstack([np.asarray(r, dtype=np.float64) for r in flat])
    uniq, counts = np.unique(stacked, axis=0, return_counts=True)
    d = stacked.shape[1] // len(flat)
    per_run = [uniq[:, j * d : (j + 1) * d] for j in range(len(flat))]

    def system_means(totals: Iterable[Any], size: int) -> dict[str, Any]:
        """{measure: (k, size)}: the mean over each system's runs of the run's measure of its totals (one run's
        (size, d) at a time, so memory holds one run's draws)."""
        total = {m: np.zeros((k, size)) for m in metrics}
        for j, run_totals in enumerate(totals):
            values = joint.measures_of(run_totals)
            for m in metrics:
                total[m][owner[j]] += np.asarray(values[m], dtype=np.float64).reshape(-1)
        return {m: total[m] / n_runs[:, None] for m in metrics}

    observed = system_means((np.asarray(r, dtype=np.float64).sum(0)[None, :] for r in flat), 1)
    histogram = {m: np.zeros((k, k), dtype=np.int64) for m in metrics}  # system × (rank − 1)
    rng = np.random.default_rng(test.seed)
    plan = bootstrap_plan(counts.astype(np.int64))
    done = 0
    while done < test.resamples:
        size = min(block, test.resamples - done)
        draws = draw_cell_counts(counts.astype(np.int64), size, rng, plan)  # (size, cells)
        scores = system_means((draws @ rows for rows in per_run), size)
        for m in metrics:
            ranks = competition_ranks(scores[m])  # (k, size)
            np.add.at(histogram[m], (np.repeat(np.arange(k), size), ranks.ravel() - 1), 1)
        done += size
    out: dict[str, dict[str, Any]] = {n: {} for n in names}
    shown = {m: competition_ranks(observed[m][:, 0]) for m in metrics}
    for m in metrics:
        for s, name in enumerate(names):
            low, high = bounds_of_counts(histogram[m][s], float(test.confidence))
            out[name][m] = RankInterval(int(shown[m][s]), low, high)
    return out


def bounds_of_counts(counts: Any, confidence: float) -> tuple[int, int]:
    """`releval.significance.ranking.rank_bounds` of ranks given by their counts (`counts[r − 1]`: resamples that
    gave rank r): the same quantiles, numpy's "lower" and "higher" methods, read off the cumulative counts.

    >>> bounds_of_counts([0, 3, 95, 2], 0.95)
    (2, 3)
    """
    import numpy as np

    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    tail = (1.0 - confidence) / 2.0
    cumulative = np.cumsum(counts)
    low_index = int(np.floor(tail * (total - 1)))  # numpy's quantile, method "lower": index ⌊q(n − 1)⌋ of the sorted
    high_index = int(np.ceil((1.0 - tail) * (total - 1)))  # method "higher": ⌈q(n − 1)⌉
    low = int(np.searchsorted(cumulative, low_index, side="right")) + 1
    high = int(np.searchsorted(cumulative, high_index, side="right")) + 1
    return low, high
