"""Benchmark: registering a measure (`power:0.5`) on a board of 1,000 stored TACRED-size runs, the backfill done by
two `releval worker` processes, against `releval compare … -w power:0.5` per run, measured in the same run.

Run: python benchmarks/service_backfill.py [--runs 1000] [--repeat 3] [--sample 5] [--quick] [--no-ties]
     [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

Set-up (in this process, not timed): `releval.service.configure(URL, DIR)` and `setup.migrate()` on a fresh
database (SQLite in a temporary folder; with --database-url postgresql://…, a fresh database created beside the
one named and dropped at the end); one benchmark (15,509 items, 42 labels, 1,000 resamples); --runs entries of one
run each, stored by `releval.service.board.submit` (validated and aligned; run k's predictions are one 85 %-correct
file with 150 items of its own relabelled). The score-run jobs those submissions enqueue are **marked done, not
run** (scoring 1,000 runs under five measures would take minutes and is not the backfill): the first run is scored
for real (`jobs.score_run`), the others get its five cells copied in bulk (values jittered) and the default
measures' tie groups are marked current, so the board is as a scored one looks and no job of the set-up is left.

Timed, --repeat times (the measure deleted between repeats, its cells and tie groups with it):
`board.register_measure(admin, SLUG, "power:0.5")` (enqueues a `cells` job per 25 runs and one `ties` job), then
two `releval worker` processes (RELEVAL_DATABASE_URL / RELEVAL_DATA_DIR set) until the queue is empty (their start
included). From the jobs' `finished` times (the database's clock): when the last `cells` job finished, and when the
last `ties` job did. Afterwards the script checks that every run has its power:0.5 cell and says whether the tie groups
of power:0.5 were computed for the current runs (each `cells` job asks for them; the last one finds every cell).
With ties (default; --no-ties skips it), the tie groups are timed again alone: their cache and pair tests deleted,
one `ties` job enqueued, two workers (the paired bootstrap of every entry with the best, in `pair-tests` jobs of
40, then Holm).

The peer: `releval compare GOLD -s a=P -s b=P -R 1000 -w power:0.5` (the same cell: F and its interval, micro
too) on --sample of the stored runs' files, interleaved with the repeats; its median per run, times --runs, is
what scoring the runs one command each would take on one core. Before timing, a sampled run's backfilled cell must
equal that command's numbers (1e-12).
Printed: medians, per-run cost (wall and the workers' CPU), ratios board / peer (> 1: the board takes longer),
and whether the target (<= 60 s for 1,000 runs on 2 cores) holds.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from service_common import (
    N_ITEMS,
    SLUG,
    accuracy,
    backend,
    child_environment,
    database,
    header,
    jsonl,
    load,
    perturbed,
    shifted_cell,
    tacred_like,
    timed,
)

MEASURE = "power:0.5"
TARGET_S = 60.0
WORKERS = 2


def populate(n_runs: int, ids: list[str], gold: list[str], pred: list[str]) -> float:
    """The benchmark and its runs (see the module's docstring); returns the seconds `submit` took per run."""
    from django.db import transaction
    from django.utils import timezone

    from releval.service import board, jobs
    from releval.service.models import Cell, Entry, Job, Measure, Run, RunData, Submitter, TieCache

    board.create_submitter("bench-admin", admin=True)
    admin = Submitter.objects.get(name="bench-admin")
    bench = board.create_benchmark(SLUG, "TACRED-like", jsonl(ids, gold), "gold.jsonl", resamples=1000)
    spent = 0.0
    for k in range(n_runs):
        data = jsonl(ids, perturbed(pred, gold, k))
        start = time.perf_counter()
        board.submit(admin, SLUG, f"entry-{k:04d}", data, "pred.jsonl", selection="dev")
        spent += time.perf_counter() - start
        if (k + 1) % 100 == 0:
            print(f"  {k + 1} runs stored ({spent / (k + 1) * 1000:.0f} ms per submit)", flush=True)
    first = Run.objects.order_by("id").first()
    assert first is not None
    jobs.score_run({"run": first.pk})
    measures = list(Measure.objects.filter(benchmark=bench))
    real = {c.measure_id: c for c in Cell.objects.filter(run=first)}
    rng = np.random.default_rng(7)
    with transaction.atomic():
        Job.objects.filter(status="queued").update(status="done", key=None, finished=timezone.now())
        Run.objects.exclude(pk=first.pk).update(status="scored")
        RunData.objects.exclude(run_id=first.pk).update(result=RunData.objects.get(run_id=first.pk).result)
        cells = []
        for run_id in Run.objects.exclude(pk=first.pk).values_list("id", flat=True):
            jitter = float(rng.normal(0, 0.01))
            for m in measures:
                cells.append(shifted_cell(run_id, m, real[m.pk], jitter, real[m.pk].version))
        Cell.objects.bulk_create(cells, batch_size=2000)
        runs = jobs.test_runs(bench)
        entries = sorted(runs)
        placeholder = {"best": entries[0], "tests": {str(e): [0.5, 1.0, True] for e in entries[1:]}}
        for m in measures:
            TieCache.objects.update_or_create(
                measure=m, key=jobs.tie_key(bench, m, runs), defaults={"data": placeholder}
            )
    assert Entry.objects.count() == n_runs and not Job.objects.filter(status__in=("queued", "running")).exists()
    return spent / n_runs


def start_workers(count: int, env: dict[str, str], folder: Path) -> list[subprocess.Popen[bytes]]:
    argv = [sys.executable, "-m", "releval", "worker"]
    logs = [open(folder / f"worker-{i}.log", "wb") for i in range(count)]  # noqa: SIM115
    procs = [subprocess.Popen(argv, env=env, stdout=log, stderr=log) for log in logs]
    for log in logs:
        log.close()
    return procs


def wait_all(procs: list[subprocess.Popen[bytes]], folder: Path) -> None:
    """Until no job is queued or running (a job enqueues its follow-ups before it finishes, so an empty queue is
    the end: the workers are idle), then stop the workers; a worker that died stops the script."""
    from releval.service.models import Job

    while Job.objects.filter(status__in=("queued", "running")).exists():
        for i, proc in enumerate(procs):
            if proc.poll() is not None:
                for other in procs:
                    if other.poll() is None:
                        other.terminate()
                sys.exit(f"a worker exited {proc.returncode}: {(folder / f'worker-{i}.log').read_text()[-3000:]}")
        time.sleep(0.05)
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.wait(timeout=60)


def backfill(env: dict[str, str], folder: Path) -> dict[str, object]:
    """One timed backfill of MEASURE: register, two workers until the queue is empty; what the jobs say."""
    from django.utils import timezone

    from releval.service import board, jobs, setup
    from releval.service.models import Benchmark, Cell, Job, Run, Submitter, TieCache

    setup.migrate()  # here, not in two workers starting at once (a migration added meanwhile would race there)
    admin = Submitter.objects.get(name="bench-admin")
    Job.objects.filter(status="done").delete()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = timezone.now()
    start = time.perf_counter()
    measure = board.register_measure(admin, SLUG, MEASURE)
    registered = time.perf_counter() - start
    procs = start_workers(WORKERS, env, folder)
    wait_all(procs, folder)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    done = list(
        Job.objects.filter(status__in=("done", "failed")).values("kind", "status", "finished", "attempts", "worker")
    )
    if any(j["status"] == "failed" for j in done) or Job.objects.filter(status__in=("queued", "running")).exists():
        sys.exit(f"jobs failed or left: {Job.objects.exclude(status='done').values('kind', 'status', 'error')[:3]}")
    cells_end = max(j["finished"] for j in done if j["kind"] == "cells")
    ties_end = max(j["finished"] for j in done if j["kind"] == "ties")
    n_cells = Cell.objects.filter(measure=measure).count()
    runs = Run.objects.count()
    if n_cells != runs:
        sys.exit(f"{n_cells} cells of {MEASURE} for {runs} runs after the backfill")
    bench = Benchmark.objects.get(slug=SLUG)
    key = jobs.tie_key(bench, measure, jobs.test_runs(bench))
    return {
        "wall": wall,
        "cpu": cpu,
        "register": registered,
        "cells": (cells_end - t0).total_seconds(),
        "ties_after_cells": (ties_end - cells_end).total_seconds(),
        "ties_computed": TieCache.objects.filter(measure=measure, key=key).exists(),
        "jobs": {k: sum(j["kind"] == k for j in done) for k in ("cells", "ties", "pair-tests")},
        "retried": sum(j["attempts"] > 1 for j in done),
        "per_worker": sorted(Counter(j["worker"] for j in done if j["kind"] == "cells").values()),
        "measure": measure,
    }


def tie_groups(measure: object, env: dict[str, str], folder: Path) -> tuple[float, bool]:
    """The tie groups of the new measure alone: one `ties` job enqueued (it hands the pair tests to `pair-tests`
    jobs), two workers until the queue is empty; (seconds, computed)."""
    from releval.service import jobs, queue
    from releval.service.models import Benchmark, TieCache

    bench = Benchmark.objects.get(slug=SLUG)
    TieCache.objects.filter(measure=measure).delete()
    if hasattr(measure, "pair_tests"):  # p-values kept per pair of runs, where the service keeps them: none reused
        measure.pair_tests.all().delete()
    start = time.perf_counter()
    queue.enqueue("ties", {"benchmark": bench.pk}, key=f"ties:{bench.pk}")
    wait_all(start_workers(WORKERS, env, folder), folder)
    seconds = time.perf_counter() - start
    key = jobs.tie_key(bench, measure, jobs.test_runs(bench))  # type: ignore[arg-type]
    return seconds, TieCache.objects.filter(measure=measure, key=key).exists()


def check_cell(gold_path: Path, pred_path: Path, run_index: int, env: dict[str, str]) -> None:
    """The backfilled cell of a sampled run equals `releval compare`'s F and interval of system a."""
    from releval.service.models import Cell, Entry

    out = subprocess.run(
        [sys.executable, "-m", "releval", "compare", str(gold_path), "-s", f"a={pred_path}", "-s", f"b={pred_path}"]
        + ["-R", "1000", "-w", MEASURE, "-f", "json"],
        env=env,
        capture_output=True,
        check=True,
    ).stdout
    row = next(r for r in json.loads(out)["results"][0]["pairs"] if r["metric"] == MEASURE)
    entry = Entry.objects.get(name=f"entry-{run_index:04d}")
    cell = Cell.objects.get(run__entry=entry, measure__name=MEASURE)
    got, want = (cell.value, cell.ci_low, cell.ci_high), (row["score_a"], *row["ci_a"])
    if any(abs(a - b) > 1e-12 for a, b in zip(got, want)):
        sys.exit(f"run {run_index}: the board's {MEASURE} cell {got} differs from releval compare's {want}")
    print(
        f"  check: run {run_index}'s {MEASURE} cell = releval compare's (F {got[0]:.10f}, CI [{got[1]:.6f}, "
        f"{got[2]:.6f}])"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=1000, help="stored runs (entries of one run each)")
    parser.add_argument("--repeat", type=int, default=3, help="timed backfills (medians)")
    parser.add_argument("--sample", type=int, default=5, help="runs the peer command is timed on")
    parser.add_argument("--quick", action="store_true", help="200 runs, 3 backfills, 3 sampled runs")
    parser.add_argument("--no-ties", action="store_true", help="skip the timing of the new measure's tie groups")
    parser.add_argument("--items", type=int, default=N_ITEMS, help="items of the test set (default: TACRED's)")
    parser.add_argument("--database-url", default=None, help="postgresql://USER@HOST:PORT/DB: a fresh DB beside DB")
    args = parser.parse_args()
    n_runs, repeat, sample = (200, 3, 3) if args.quick else (args.runs, max(1, args.repeat), max(1, args.sample))
    ids, gold, pred = tacred_like(args.items)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        gold_path = tmp / "gold.jsonl"
        gold_path.write_bytes(jsonl(ids, gold))
        with database(args.database_url, tmp) as url:
            print(header())
            print(
                f"{n_runs:,} runs of {len(gold):,} items, {len(set(gold))} labels, no_relation "
                f"{gold.count('no_relation') / len(gold):.1%}, runs {accuracy(gold, pred):.1%} correct (± 150 items "
                f"relabelled each); {backend(url)}; {WORKERS} workers; {repeat} backfills"
            )
            from releval.service import configure, setup

            configure(url, tmp / "data")
            setup.migrate()
            start = time.perf_counter()
            per_submit = populate(n_runs, ids, gold, pred)
            print(
                f"set-up: {n_runs:,} runs stored by board.submit in {time.perf_counter() - start:.1f} s "
                f"({per_submit * 1000:.0f} ms per submit, validation and alignment included); their score-run jobs "
                "MARKED DONE (not run), cells of the five default measures copied from run 0's, tie groups marked "
                "current"
            )
            env = child_environment(tmp, url)
            cli = child_environment(tmp)
            picks = [int(k) for k in np.linspace(0, n_runs - 1, sample).round()]
            files = []
            for k in picks:
                path = tmp / f"pred-{k:04d}.jsonl"
                path.write_bytes(jsonl(ids, perturbed(pred, gold, k)))
                files.append(path)
            peer_argv = [
                [sys.executable, "-m", "releval", "compare", str(gold_path), "-s", f"a={p}", "-s", f"b={p}"]
                + ["-R", "1000", "-w", MEASURE]
                for p in files
            ]
            print(f"peer: releval compare GOLD -s a=P -s b=P -R 1000 -w {MEASURE}, on runs {picks}")
            timed(peer_argv[0], cli)  # warm-up
            results, peer = [], []
            for r in range(repeat):
                got = backfill(env, tmp)
                results.append(got)
                if r == 0:
                    check_cell(gold_path, files[-1], picks[-1], cli)
                for argv in peer_argv:
                    peer.append(timed(argv, cli))
                print(
                    f"  backfill {r + 1}: {got['wall']:.2f} s (register {got['register'] * 1000:.0f} ms; last cells "
                    f"job done at {got['cells']:.2f} s; ties job done {got['ties_after_cells']:+.2f} s after it, "
                    f"tie groups of {MEASURE} {'computed' if got['ties_computed'] else 'NOT computed'}); workers' "
                    f"CPU {got['cpu']:.1f} s; jobs {got['jobs']} (cells jobs per worker {got['per_worker']}), retried "
                    f"{got['retried']}; peer median so far "
                    f"{statistics.median(w for w, _ in peer):.3f} s per run"
                )
                if r + 1 < repeat:
                    got["measure"].delete()  # type: ignore[attr-defined]
            ties = None if args.no_ties else tie_groups(results[-1]["measure"], env, tmp)
            empty = timed([sys.executable, "-m", "releval", "worker", "--burst"], env)
    wall = statistics.median(float(g["wall"]) for g in results)  # type: ignore[arg-type]
    cpu = statistics.median(float(g["cpu"]) for g in results)  # type: ignore[arg-type]
    cells = statistics.median(float(g["cells"]) for g in results)  # type: ignore[arg-type]
    pw = statistics.median(w for w, _ in peer)
    pc = statistics.median(c for _, c in peer)
    skipped = sum(not g["ties_computed"] for g in results)
    print(f"after: {load()}; medians of {repeat} backfills, peer of {len(peer)} commands:")
    print(
        f"  backfill of {MEASURE}, {n_runs:,} runs, {WORKERS} workers: last cells job {cells:.2f} s, queue empty "
        f"(tie groups done) {wall:.2f} s"
        f", workers' CPU {cpu:.1f} s"
    )
    print(
        f"    per run: {wall / n_runs * 1000:.1f} ms wall, {cpu / n_runs * 1000:.1f} ms CPU; a burst worker's "
        f"start-up on an empty queue: {empty[0]:.2f} s"
    )
    print(
        f"    tie groups of {MEASURE} after the backfill: computed in {repeat - skipped} of {repeat} backfills"
        + ("" if not skipped else " (the ties job ran while cells were missing and skipped the measure)")
    )
    if ties is not None:
        print(
            f"  tie groups of {MEASURE} alone ({n_runs - 1:,} paired bootstraps + Holm), {WORKERS} workers: "
            f"{ties[0]:.2f} s ({'computed' if ties[1] else 'NOT computed'})"
        )
    print(
        f"  peer: releval compare -w {MEASURE}: {pw:.3f} s per run (CPU {pc:.3f} s); x {n_runs:,} = "
        f"{pw * n_runs:.1f} s on one core, {pw * n_runs / WORKERS:.1f} s as {WORKERS} parallel streams"
    )
    print("ratios board / peer (< 1: the board is faster):")
    print(
        f"  cells / (peer x {n_runs:,}, one core) {cells / (pw * n_runs):.2f}x; "
        f"/ ({WORKERS} parallel streams) {cells / (pw * n_runs / WORKERS):.2f}x"
    )
    print(
        f"  cells and tie groups {wall:.1f} s / ({WORKERS} parallel streams) {wall / (pw * n_runs / WORKERS):.2f}x; "
        f"CPU {cpu / (pc * n_runs):.2f}x"
    )
    scale = 1000 / n_runs
    verdict = "holds" if cells * scale <= TARGET_S else "MISSED"
    total = "holds" if wall * scale <= TARGET_S else "missed"
    print(
        f"target <= {TARGET_S:.0f} s for 1,000 runs on {WORKERS} cores: every cell {cells * scale:.1f} s"
        + ("" if n_runs == 1000 else " (scaled)")
        + f": {verdict}; every cell and the tie groups {wall * scale:.1f} s: {total}"
    )


if __name__ == "__main__":
    main()
