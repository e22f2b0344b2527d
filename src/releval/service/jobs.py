"""The workers' jobs, each idempotent (cells and tests are upserted, copies skipped when done), so a retried job
is harmless:

* `score-run`: a new run under every measure, its result and audit flags; then `ties`;
* `cells`: one measure for a chunk of runs (a registered measure's backfill); then `ties`;
* `ties`: per measure, the best entry, each other entry's paired test with it (cached per pair of runs; many
  missing ones go to `pair-tests` jobs), Holm's correction, the seed tests; cached by `tie_key`;
* `pair-tests`: a chunk of paired tests with a measure's best run; then `ties`;
* `copy-runs`: a variant's share of its parent's runs, read again from their uploads and submitted to it.

A run may be withdrawn while a job reads it: that is no job's or measure's failure. A job stores nothing of a
withdrawn run (`withdrawn` locks the run's row while it writes), and the withdrawal queues the tie groups again. An
error of the database (a lock that timed out, a deadlock) is no measure's failure either: the job fails, to be
retried.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, transaction

from releval import __version__
from releval.service import board, queue, scoring
from releval.service.board_tasks import split_view, task_of
from releval.service.models import Benchmark, Cell, Entry, Measure, PairTest, Run, RunData, TieCache


def stored_predictions(run_id: int) -> bytes:
    """What a run stores to be scored again (`board_tasks`: aligned labels, or the validated e2e file)."""
    return bytes(RunData.objects.only("aligned").get(run_id=run_id).aligned)


def withdrawn(run_id: int) -> bool:
    """Whether run `run_id` is gone, its row locked until the caller's transaction ends when it is not: a
    withdrawal (`board.delete_run`) made meanwhile waits for what the caller writes and removes it with the run."""
    return not Run.objects.select_for_update().filter(pk=run_id).exists()


def _write_cells(run: Run, measures: list[Measure], cells: dict[str, scoring.Cell]) -> None:
    """Upsert a run's cells; inside a transaction that has checked the run is not `withdrawn`."""
    for measure in measures:
        c = cells[measure.name]
        Cell.objects.update_or_create(
            run=run,
            measure=measure,
            defaults={
                "value": c.value,
                "ci_low": c.ci_low,
                "ci_high": c.ci_high,
                "signature": c.signature,
                "version": __version__,
            },
        )


def _run_failed(payload: dict[str, Any]) -> None:
    Run.objects.filter(pk=payload["run"]).update(status="failed")


#: The flag of a test run that scores 1 under every measure: its predictions are gold's labels, item for item.
EQUALS_GOLD = {
    "code": "equals-gold",
    "severity": "warning",
    "message": "the predictions equal gold: 100.00 under every measure",
}


def measure_failed(measure: Measure, exc: BaseException) -> None:
    """Mark a measure failed (left off the board and out of every later job) with what went wrong."""
    message = f"{type(exc).__name__}: {exc}"[:2000]
    Measure.objects.filter(pk=measure.pk, status="active").update(status="failed", error=message)


def active_measures(bench: Benchmark) -> list[Measure]:
    return list(Measure.objects.filter(benchmark=bench, status="active"))


def _cells_isolated(
    task: Any, gold: Any, stored: bytes, spec: scoring.BenchmarkSpec, measures: list[Measure]
) -> tuple[list[Measure], dict[str, scoring.Cell]]:
    """Every measure's cell of a run; when that fails, each measure alone (the same numbers: a cell's draw does not
    depend on the other measures), the ones that fail marked failed: one bad measure never blocks a run. When every
    measure fails the run is at fault: its job fails (and is retried) and no measure is marked."""
    try:
        return measures, task.cells(gold, stored, spec, [m.name for m in measures])
    except DatabaseError:  # the database's (a lock timed out), never a measure's: the job is retried
        raise
    except Exception:
        pass
    cells: dict[str, scoring.Cell] = {}
    failed: list[tuple[Measure, Exception]] = []
    for measure in measures:
        try:
            cells.update(task.cells(gold, stored, spec, [measure.name]))
        except DatabaseError:
            raise
        except Exception as exc:
            failed.append((measure, exc))
    if not cells and failed:  # every measure fails on this run: the run is what fails, not the measures
        raise failed[0][1]
    for measure, error in failed:
        measure_failed(measure, error)
    return [m for m in measures if m.name in cells], cells


@queue.handler("score-run", give_up=_run_failed)
def score_run(payload: dict[str, Any]) -> None:
    """Every measure of a new run, its per-class result and its audit flags; then the tie groups again."""
    try:
        run = Run.objects.select_related("entry__benchmark").get(pk=payload["run"])
        scored = scores_of(run)
    except (Run.DoesNotExist, RunData.DoesNotExist):  # withdrawn meanwhile
        return
    store_scores(run, scored)


@dataclass(frozen=True)
class Scored:
    """What `score_run` computes of a run before it stores it."""

    measures: list[Measure]
    cells: dict[str, scoring.Cell]
    result: Any
    flags: list[dict[str, str]]


def scores_of(run: Run) -> Scored:
    """A run's cells under every active measure (a measure that fails alone marked failed), result and flags."""
    bench = run.entry.benchmark
    spec = board.spec_of(bench)
    task = task_of(bench.task)
    stored = stored_predictions(run.pk)
    gold = split_view(bench, run.split)
    measures, cells = _cells_isolated(task, gold, stored, spec, active_measures(bench))
    result = task.result(gold, stored, spec, [m.name for m in measures])
    flags = task.flags(gold, stored, spec) if run.split == "test" else []
    if run.split == "test" and cells and all(abs(c.value - 1.0) < 1e-9 for c in cells.values()):
        flags.append(EQUALS_GOLD)
    return Scored(measures, cells, result, flags)


def store_scores(run: Run, scored: Scored) -> None:
    """Store what `scores_of` computed and queue the tie groups; nothing when the run was withdrawn meanwhile (its
    withdrawal queued the tie groups)."""
    with transaction.atomic():
        if withdrawn(run.pk):
            return
        _write_cells(run, scored.measures, scored.cells)
        RunData.objects.filter(run_id=run.pk).update(result=scored.result)
        run.status = "scored"
        run.save(update_fields=["status"])
        entry = Entry.objects.select_for_update().get(pk=run.entry_id)
        known = {f["code"] for f in entry.flags}
        entry.flags = [*entry.flags, *(f for f in scored.flags if f["code"] not in known)]
        entry.save(update_fields=["flags"])
        queue.enqueue("ties", {"benchmark": run.entry.benchmark_id}, key=f"ties:{run.entry.benchmark_id}")


def _cells_failed(payload: dict[str, Any]) -> None:
    """A backfill chunk failed for the last time: its measure is marked failed (retirable), the board goes on."""
    measure = Measure.objects.filter(pk=payload["measure"]).first()
    if measure is not None:
        job_error = "its computation failed three times (see the queue's failed jobs)"
        measure_failed(measure, RuntimeError(job_error))
        queue.enqueue("ties", {"benchmark": measure.benchmark_id}, key=f"ties:{measure.benchmark_id}")


@queue.handler("cells", give_up=_cells_failed)
def compute_cells(payload: dict[str, Any]) -> None:
    """One measure for a chunk of runs (a registered measure's backfill)."""
    try:
        measure = Measure.objects.select_related("benchmark").get(pk=payload["measure"], status="active")
    except Measure.DoesNotExist:
        return
    bench = measure.benchmark
    spec = board.spec_of(bench)
    task = task_of(bench.task)
    for run in Run.objects.filter(pk__in=payload["runs"]).only("id", "split"):
        try:
            stored = stored_predictions(run.pk)
        except RunData.DoesNotExist:  # withdrawn since the query
            continue
        cells = task.cells(split_view(bench, run.split), stored, spec, [measure.name])
        with transaction.atomic():
            if not withdrawn(run.pk):
                _write_cells(run, [measure], cells)
    # the tie groups wait for every cell of the measure: the last chunk's request finds them all
    queue.enqueue("ties", {"benchmark": bench.pk}, key=f"ties:{bench.pk}")


@queue.handler("copy-runs")
def copy_runs(payload: dict[str, Any]) -> None:
    """A variant's share of its parent's runs: each re-read from its stored upload under the variant's Config and
    submitted to the variant (scored by its own job); a run the new Config refuses becomes a flag on its entry."""
    try:
        variant = Benchmark.objects.get(pk=payload["variant"])
    except Benchmark.DoesNotExist:
        return
    for run in Run.objects.filter(pk__in=payload["runs"]).select_related("entry__owner"):
        entry = run.entry
        if Run.objects.filter(
            entry__benchmark=variant, entry__name=entry.name, seed=run.seed, split=run.split
        ).exists():
            continue  # copied by an earlier attempt of this job
        try:
            board.submit(
                entry.owner,
                variant.slug,
                entry.name,
                bytes(RunData.objects.only("upload").get(run_id=run.pk).upload),
                run.filename,
                seed=run.seed,
                split=run.split,
                paper_url=entry.paper_url,
                selection=entry.selection,
                training_data=entry.training_data,
                quota=False,
            )
        except board.Refused as exc:
            copy, _ = Entry.objects.get_or_create(
                benchmark=variant,
                name=entry.name,
                defaults={"owner": entry.owner, "paper_url": entry.paper_url, "selection": entry.selection},
            )
            flag = {"code": "not-rescored", "severity": "warning", "message": f"{run.split} seed {run.seed}: {exc}"}
            if flag not in copy.flags:
                copy.flags = [*copy.flags, flag]
                copy.save(update_fields=["flags"])


#: Pair tests done inside one `ties` job; more are split into `pair-tests` jobs that workers share.
PAIR_CHUNK = 40


def test_runs(bench: Benchmark) -> dict[int, list[Run]]:
    """Each entry's test runs (seeds), in submission order: the first is the run its paired tests use."""
    out: dict[int, list[Run]] = {}
    for run in Run.objects.filter(entry__benchmark=bench, split="test").order_by("id").only("id", "entry_id", "sha256"):
        out.setdefault(run.entry_id, []).append(run)
    return out


def primary_runs(bench: Benchmark) -> dict[int, Run]:
    """Each entry's first test run (lowest id): the run its paired tests use."""
    return {entry: runs[0] for entry, runs in test_runs(bench).items()}


def tie_key(bench: Benchmark, measure: Measure, runs: Mapping[int, Sequence[Any]]) -> str:
    """What a measure's tie groups and seed tests depend on: every test run, the measure, the interval settings and
    the releval version that computed the cells."""
    parts = [f"{e}:{','.join(r.sha256 for r in rs)}" for e, rs in sorted(runs.items())]
    parts += [measure.name, str(bench.resamples), str(bench.seed), str(bench.confidence), bench.gold_sha256]
    parts += [__version__, "ties-3"]  # ties-3: rank intervals of every task with them (ties-2: of rc)
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def _pair_p(bench: Benchmark, measure: Measure, best: Run, other: Run, spec: scoring.BenchmarkSpec) -> float:
    task = task_of(bench.task)
    p = task.pair_p(bench, stored_predictions(best.pk), stored_predictions(other.pk), measure.name, spec)
    PairTest.objects.update_or_create(
        measure=measure, run_a=best, run_b=other, defaults={"p_value": p, "version": __version__}
    )
    return p


@queue.handler("pair-tests")
def pair_tests(payload: dict[str, Any]) -> None:
    """A share of the paired tests with a measure's best run (a large board's tie groups, spread over workers);
    then the tie groups are asked for again."""
    try:
        measure = Measure.objects.select_related("benchmark").get(pk=payload["measure"])
        best = Run.objects.get(pk=payload["best"])
    except (Measure.DoesNotExist, Run.DoesNotExist):
        return
    bench = measure.benchmark
    spec = board.spec_of(bench)
    done = set(
        PairTest.objects.filter(measure=measure, run_a=best, version=__version__).values_list("run_b_id", flat=True)
    )
    for other in Run.objects.filter(pk__in=payload["runs"]).exclude(pk__in=done).only("id"):
        try:
            _pair_p(bench, measure, best, other, spec)
        except Exception:
            if Run.objects.filter(pk__in=[best.pk, other.pk]).count() == 2:
                raise
            # one of the two was withdrawn meanwhile: its withdrawal queued the tie groups again, which ask again
            # for the tests they still need
    queue.enqueue("ties", {"benchmark": bench.pk}, key=f"ties:{bench.pk}")


@queue.handler("ties")
def compute_ties(payload: dict[str, Any]) -> None:
    """Tie groups and seed tests of every measure of a benchmark whose runs or measures changed (cached by
    `tie_key`). Up to PAIR_CHUNK missing pair tests are done here; more are handed to `pair-tests` jobs, which ask
    for the tie groups again when done."""
    try:
        bench = Benchmark.objects.get(pk=payload["benchmark"])
    except Benchmark.DoesNotExist:
        return
    spec = board.spec_of(bench)
    all_runs = test_runs(bench)
    if not all_runs:
        return
    runs = {entry: rs[0] for entry, rs in all_runs.items()}
    for measure in active_measures(bench):
        try:
            _measure_ties(bench, measure, spec, all_runs, runs)
        except DatabaseError:  # the database's (a lock timed out, a deadlock), never a measure's: the job is retried
            raise
        except Exception as exc:  # one measure's failure never blocks the others' tie groups
            if _run_ids(test_runs(bench)) != _run_ids(all_runs):
                # the runs changed while this job read them (a run withdrawn: its stored predictions gone): not the
                # measure's fault; the change queued the tie groups again, computed then on the runs left
                return
            measure_failed(measure, exc)


def _run_ids(runs: Mapping[int, Sequence[Run]]) -> set[int]:
    return {r.pk for rs in runs.values() for r in rs}


def _measure_ties(
    bench: Benchmark,
    measure: Measure,
    spec: scoring.BenchmarkSpec,
    all_runs: dict[int, list[Run]],
    runs: dict[int, Run],
) -> None:
    """One measure's tie groups, seed tests and rank intervals, unless cached for these runs.

    The best entry is the one with the highest shown value: its run's F, or the mean of its seeds' F. Each other
    entry is compared with it by `releval compare`'s test for what they have: two single runs by the paired
    bootstrap (`_pair_p`, cached per pair of runs); when either has several seeds, by Welch's t over the seeds
    (`releval.significance.seeds.compare_seeds`, as `releval compare` compares runs over seeds), an entry with one
    run taken as a constant (Welch with that side constant is the one-sample t-test of the other's seeds against
    it, df = seeds − 1). Seeds that are all equal (one file given as every seed) have no variance to test with:
    such a pair falls back to the paired bootstrap of the first runs. Holm's correction across all of them."""
    from releval.core.errors import InputError
    from releval.significance.seeds import compare_seeds

    key = tie_key(bench, measure, all_runs)
    if TieCache.objects.filter(measure=measure, key=key).exists():
        return
    ids = [r.pk for rs in all_runs.values() for r in rs]
    values = dict(Cell.objects.filter(measure=measure, run_id__in=ids).values_list("run_id", "value"))
    if len(values) < len(ids):  # some cell not computed yet: its job asks for the ties again
        return
    seeds = {e: [values[r.pk] for r in rs] for e, rs in all_runs.items()}
    shown = {e: sum(v) / len(v) for e, v in seeds.items()}  # what the board shows (standings.board)
    best = max(shown, key=lambda e: (shown[e], -e))
    best_run = runs[best]
    raw: dict[str, float] = {}
    how: dict[str, str] = {}
    paired: list[int] = []  # entries compared with the best by the paired bootstrap of their first runs
    for entry, scores in seeds.items():
        if entry == best:
            continue
        if len(scores) == 1 and len(seeds[best]) == 1:
            paired.append(entry)
            continue
        a, b = seeds[best], scores
        try:
            raw[str(entry)] = compare_seeds(a * 2 if len(a) == 1 else a, b * 2 if len(b) == 1 else b).p_value
            how[str(entry)] = "welch"
        except InputError:  # both sides without variance, different means: a paired test of the first runs
            paired.append(entry)
    known = dict(
        PairTest.objects.filter(measure=measure, run_a=best_run, version=__version__).values_list("run_b_id", "p_value")
    )
    missing = [runs[e].pk for e in paired if runs[e].pk not in known]
    if len(missing) > PAIR_CHUNK:
        for start in range(0, len(missing), PAIR_CHUNK):
            chunk = missing[start : start + PAIR_CHUNK]
            payload = {"measure": measure.pk, "best": best_run.pk, "runs": chunk}
            queue.enqueue("pair-tests", payload, key=f"pairs:{measure.pk}:{best_run.pk}:{chunk[0]}")
        return
    for entry in paired:
        run = runs[entry]
        if run.pk not in known:
            known[run.pk] = _pair_p(bench, measure, best_run, run, spec)
        raw[str(entry)] = known[run.pk]
    tests = scoring.tie_groups(raw, spec, resampled=[str(e) for e in paired])
    data = {
        "best": best,
        "tests": {t.entry: [t.p_value, t.p_adjusted, t.tied, how.get(t.entry, "bootstrap")] for t in tests},
        "seeds": seed_tests(seeds, measure.name),
        "ranks": rank_intervals(bench, measure, spec, all_runs),
    }
    TieCache.objects.update_or_create(measure=measure, key=key, defaults={"data": data})


#: Boards of more entries have no rank intervals: one joint draw of every run per measure and `ties` job costs about
#: 1.4 s for 100 entries on SemEval's 2,717 items, and grows with the entries. Memory grows as entries × resamples
#: (releval.significance.ranks keeps each entry's F per resample, never a matrix of pairs: 8 MB for 1,000 entries and
#: 1,000 resamples; tests/service/test_measures_page.py bounds it).
RANK_ENTRIES = 1000


def rank_intervals(
    bench: Benchmark, measure: Measure, spec: scoring.BenchmarkSpec, all_runs: dict[int, list[Run]]
) -> dict[str, list[int]]:
    """Each entry's bootstrap rank interval under `measure`: {entry: [low, high]}, from
    `releval.significance.ranks.rank_intervals` over every entry's test runs (in entry order; an entry with several
    seeds by the mean of its seeds in each resample), with the benchmark's resamples, seed and level — the numbers
    `releval compare --rank-intervals` gives the same files in the same order. Benchmarks of 2 to RANK_ENTRIES
    entries: a board task that ranks what it stores (`BoardTask.ranks_entries`: classification's aligned labels)
    ranks itself; every other task by its library Task's rank intervals (e2e, DocRED, FewRel, DrugProt:
    `Task.rank_intervals` over the stored runs, one run per entry); {} otherwise."""
    task = task_of(bench.task)
    if not 2 <= len(all_runs) <= RANK_ENTRIES:
        return {}
    if not task.ranks_entries:
        return _task_rank_intervals(bench, measure, spec, all_runs)
    systems = {str(e): [stored_predictions(r.pk) for r in rs] for e, rs in sorted(all_runs.items())}
    return task.rank_intervals(bench, systems, measure.name, spec)


def _task_rank_intervals(
    bench: Benchmark, measure: Measure, spec: scoring.BenchmarkSpec, all_runs: dict[int, list[Run]]
) -> dict[str, list[int]]:
    """`rank_intervals` of a benchmark of another task than classification: its library Task's own rank intervals
    (`releval compare --task T --rank-intervals`) over each entry's runs, in entry order (an entry with several
    seeds by the mean of its runs' measure in each resample, as `compare` ranks `-s NAME=a,b`); {} when the Task has
    none, and when the library refuses to rank these runs (a RelevalError): the intervals are left out, the
    measure's tie groups are not failed for them."""
    from releval.core.errors import RelevalError
    from releval.registry import get_task
    from releval.service.board_systems import stored_systems

    task = get_task(bench.task)
    if task.rank_intervals is None:
        return {}
    entries = sorted(all_runs.items())
    stored = {f"{e}#{i}": stored_predictions(r.pk) for e, rs in entries for i, r in enumerate(rs)}
    with stored_systems(bench, stored, spec, [measure.name]) as s:
        systems = {str(e): [s.runs[f"{e}#{i}"] for i in range(len(rs))] for e, rs in entries}
        try:
            got = task.rank_intervals(s.gold, systems, s.config, spec.test_config())
        except RelevalError:
            return {}
    return {e: [r[measure.name].low, r[measure.name].high] for e, r in got.items() if measure.name in r}


def seed_tests(scores: dict[int, list[float]], measure: str) -> dict[str, list[float]]:
    """Welch's t and Cohen's d (`releval.compare_seeds`) of each entry with several seeds against the best such
    entry (highest mean): {entry: [p, d]}; {} when fewer than two entries have several seeds."""
    from releval.core.errors import InputError
    from releval.significance.seeds import compare_seeds

    multi = {e: v for e, v in scores.items() if len(v) >= 2}
    if len(multi) < 2:
        return {}
    best = max(multi, key=lambda e: (sum(multi[e]) / len(multi[e]), -e))
    out = {}
    for entry, values in multi.items():
        if entry == best:
            continue
        try:
            res = compare_seeds(multi[best], values, metric=measure)
        except InputError:  # both constant with different means: no test (shown as none)
            continue
        out[str(entry)] = [res.p_value, res.cohen_d]
    return out
