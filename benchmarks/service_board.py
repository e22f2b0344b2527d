"""Benchmark: the server-side render of a 1,000-entry board (the HTML page, board.json, board.csv) against building
the same table with `releval.service.standings.board()` alone and serialising it with `json.dumps`, in one run.

Run: python benchmarks/service_board.py [--entries 1000] [--repeat 9] [--quick] [--upload-bytes N] [--profile]
     [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

Set-up (in this process, not timed): `releval.service.configure(URL, DIR)` and `setup.migrate()` on a fresh
database (SQLite in a temporary folder; with --database-url postgresql://…, a fresh database created beside the
one named and dropped at the end); one TACRED-size benchmark (15,509 items, `board.create_benchmark`); rows made
directly with the ORM models: 50 submitters, --entries entries (every 10th with three seeds, the rest one: about
1,200 runs), each run with its stored upload (by default as large as a TACRED prediction file in JSON lines,
891,001 bytes; --upload-bytes sets it), its aligned predictions (zlib, as `submit` stores them), its result (the
ScoreResult of a real run) and five cells (micro, weighted, dodrans, entropy, macro: F, 95 % interval and the
signature of a real cell), and the tie groups of every measure current (`TieCache` under `jobs.tie_key`, every
entry tested against the best). Nothing is queued: the board is a scored one.

Timed, in this process, --repeat times each, interleaved (the order alternating), after one warm-up each:

* page: `django.test.Client().get('/b/SLUG/')` (the whole Django stack: middleware, the view, `standings.board`,
  the table built as text, the template);
* board.json: `Client().get('/b/SLUG/board.json')`; board.csv: `Client().get('/b/SLUG/board.csv')`;
* the peer, `board()`: `standings.board(Benchmark.objects.get(slug=SLUG))` (the queries and the table in Python
  objects, nothing rendered); `json.dumps`: `json.dumps(table.to_dict())` of a table built before (serialisation
  alone); `board() + json.dumps`: both, what board.json does without Django.

Printed: medians, the queries each request makes, the response sizes, ratios request / peer (> 1: the request takes
longer), whether the target (page <= 200 ms at 1,000 entries) holds; with --profile, cProfile's top functions of
one page request.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from service_common import N_ITEMS, SLUG, backend, database, header, jsonl, load, perturbed, shifted_cell, tacred_like

TARGET_MS = 200.0
MEASURES = ("micro", "weighted", "dodrans", "entropy", "macro")
OWNERS = 50


def populate(
    n_entries: int, upload_bytes: int, seeded_every: int, ids: list[str], gold: list[str], pred: list[str]
) -> int:
    """The benchmark, its entries, runs, cells and tie groups (see the module's docstring); the number of runs."""
    from django.db import transaction

    from releval import __version__
    from releval.service import board, board_tasks, jobs, scoring
    from releval.service.models import Cell, Entry, Measure, Run, RunData, Submitter, TieCache

    bench = board.create_benchmark(SLUG, "TACRED-like", jsonl(ids, gold), "gold.jsonl", resamples=1000)
    spec = board.spec_of(bench)
    real = scoring.score_cells(gold, pred, spec, MEASURES, ids=ids)
    result = scoring.score_result(gold, pred, spec, MEASURES, ids=ids).to_dict()
    upload = (jsonl(ids, pred) * (upload_bytes // 891_001 + 1))[:upload_bytes] if upload_bytes else b""
    rng = np.random.default_rng(11)
    flags = [
        [{"code": "selection-undeclared", "severity": "info", "message": "model selection not declared"}],
        [{"code": "test-selected", "severity": "warning", "message": "model selected on the test set"}],
        [],
    ]
    with transaction.atomic():
        owners = Submitter.objects.bulk_create(
            [Submitter(name=f"team-{i:02d}", token_hash=hashlib.sha256(b"%d" % i).hexdigest()) for i in range(OWNERS)]
        )
        entries = Entry.objects.bulk_create(
            [
                Entry(
                    benchmark=bench,
                    owner=owners[k % OWNERS],
                    name=f"Model {k:04d} <{['CNN', 'LSTM', 'BERT', 'SpanBERT'][k % 4]}> & co",
                    paper_url=f"https://example.org/papers/{k}" if k % 3 else "",
                    selection=["unknown", "test", "dev"][k % 3],
                    training_data="train",
                    flags=flags[k % 3],
                )
                for k in range(n_entries)
            ],
            batch_size=500,
        )
        measures = list(Measure.objects.filter(benchmark=bench))
        n_runs = 0
        for e_index, entry in enumerate(entries):
            quality = float(rng.normal(0, 0.03))
            runs = []
            for seed in range(3 if seeded_every and e_index % seeded_every == 0 else 1):
                k = e_index * 3 + seed
                runs.append(
                    Run(
                        entry=entry,
                        seed=str(seed + 1),
                        split="test",
                        filename="pred.jsonl",
                        sha256=hashlib.sha256(b"run %d" % k).hexdigest(),
                        status="scored",
                    )
                )
            runs = Run.objects.bulk_create(runs)
            RunData.objects.bulk_create(
                RunData(
                    run=run,
                    upload=upload,
                    aligned=board_tasks.pack_run(perturbed(pred, gold, e_index * 3 + i, flips=20), positional=False),
                    result=result,
                )
                for i, run in enumerate(runs)
            )
            n_runs += len(runs)
            cells = []
            for run in runs:
                noise = float(rng.normal(0, 0.004))
                for m in measures:
                    cells.append(shifted_cell(run.pk, m, real[m.name], quality + noise, __version__))
            Cell.objects.bulk_create(cells)
        all_runs = jobs.test_runs(bench)
        primary = {e: rs[0] for e, rs in all_runs.items()}
        values = dict(Cell.objects.filter(measure=measures[0]).values_list("run_id", "value"))
        best = max(primary, key=lambda e: values[primary[e].pk])
        for m in measures:
            tests = {}
            for e in primary:
                if e != best:
                    p = float(rng.uniform(0, 0.2)) if rng.random() < 0.05 else float(rng.uniform(0, 0.001))
                    tests[str(e)] = [p, min(1.0, p * 10), p * 10 >= 0.05]
            # the seed tests as the ties job computes them (releval.compare_seeds), from the cells' values
            m_values = dict(Cell.objects.filter(measure=m).values_list("run_id", "value"))
            seeds = jobs.seed_tests({e: [m_values[r.pk] for r in rs] for e, rs in all_runs.items()}, m.name)
            data = {"best": best, "tests": tests, "seeds": seeds}
            TieCache.objects.create(measure=m, key=jobs.tie_key(bench, m, all_runs), data=data)
    return n_runs


def timer(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=1000, help="entries on the board")
    parser.add_argument(
        "--seeded-every", type=int, default=10, help="every Nth entry has three seeds, the others one (0: none)"
    )
    parser.add_argument("--repeat", type=int, default=9, help="timed runs of each (medians; at least 5)")
    parser.add_argument("--quick", action="store_true", help="200 entries, 5 runs")
    parser.add_argument("--upload-bytes", type=int, default=891_001, help="bytes of each run's stored upload")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions of one page request")
    parser.add_argument("--items", type=int, default=N_ITEMS, help="items of the test set (default: TACRED's)")
    parser.add_argument("--database-url", default=None, help="postgresql://USER@HOST:PORT/DB: a fresh DB beside DB")
    args = parser.parse_args()
    n_entries, repeat = (200, 5) if args.quick else (args.entries, max(5, args.repeat))
    ids, gold, pred = tacred_like(args.items)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        with database(args.database_url, tmp) as url:
            print(header())
            from releval.service import configure, setup

            configure(url, tmp / "data")
            setup.migrate()
            start = time.perf_counter()
            n_runs = populate(n_entries, args.upload_bytes, args.seeded_every, ids, gold, pred)
            print(
                f"{n_entries:,} entries ("
                + (f"every {args.seeded_every}th with three seeds" if args.seeded_every else "one seed each")
                + f"), {n_runs:,} runs (uploads of {args.upload_bytes:,} bytes), "
                f"{n_runs * len(MEASURES):,} cells, tie groups current; {backend(url)}; set-up "
                f"{time.perf_counter() - start:.1f} s; {repeat} runs each"
            )
            measure(repeat, n_entries, args.profile)
            from django.db import connections

            connections.close_all()


def measure(repeat: int, n_entries: int, profile: bool) -> None:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from releval.service import jobs, standings
    from releval.service.models import Benchmark

    client = Client()
    bench = Benchmark.objects.get(slug=SLUG)
    built = standings.board(bench)
    sizes: dict[str, int] = {}
    queries: dict[str, int] = {}

    def get(path: str, name: str) -> Callable[[], Any]:
        def run() -> None:
            response = client.get(path)
            assert response.status_code == 200, (path, response.status_code, response.content[:300])
            sizes[name] = len(response.content)

        return run

    cases: dict[str, Callable[[], Any]] = {
        "page": get(f"/b/{SLUG}/", "page"),
        "board.json": get(f"/b/{SLUG}/board.json", "board.json"),
        "board.csv": get(f"/b/{SLUG}/board.csv", "board.csv"),
        "board()": lambda: standings.board(Benchmark.objects.get(slug=SLUG)),
        "json.dumps": lambda: json.dumps(built.to_dict()),
        "board() + json.dumps": lambda: json.dumps(standings.board(Benchmark.objects.get(slug=SLUG)).to_dict()),
        # inside board(): the part that grows with the runs' count (printed apart, not a peer)
        "  of which test_runs": lambda: jobs.test_runs(bench),
    }
    for name, fn in cases.items():  # warm-up, and the queries each makes
        with CaptureQueriesContext(connection) as captured:
            fn()
        queries[name] = len(captured.captured_queries)
    rows = json.loads(client.get(f"/b/{SLUG}/board.json").content)["rows"]
    assert len(rows) == n_entries, len(rows)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for k in range(repeat):
        order = list(cases) if k % 2 == 0 else list(reversed(cases))
        for name in order:
            times[name].append(timer(cases[name]))
        print("  run " + str(k + 1) + ": " + ", ".join(f"{n.strip()} {times[n][-1] * 1000:.0f} ms" for n in cases))
    med = {name: statistics.median(v) * 1000 for name, v in times.items()}
    print(f"after: {load()}; medians of {repeat} interleaved runs (ms):")
    for name in cases:
        size = f", {sizes[name]:,} bytes" if name in sizes else ""
        print(f"  {name:<22} {med[name]:8.1f} ms  ({queries[name]} queries{size})")
    print("ratios request / peer (> 1: the request takes longer):")
    print(
        f"  page / board() {med['page'] / med['board()']:.2f}x; board.json / board() "
        f"{med['board.json'] / med['board()']:.2f}x; board.json / (board() + json.dumps) "
        f"{med['board.json'] / med['board() + json.dumps']:.2f}x; board.csv / board() "
        f"{med['board.csv'] / med['board()']:.2f}x"
    )
    scale = 1000 / n_entries
    verdict = "holds" if med["page"] * scale <= TARGET_MS else "MISSED"
    print(
        f"target page <= {TARGET_MS:.0f} ms at 1,000 entries: {med['page'] * scale:.0f} ms"
        + ("" if n_entries == 1000 else " (scaled)")
        + f": {verdict}"
    )
    if profile:
        prof = cProfile.Profile()
        prof.runcall(cases["page"])
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(30)
        print(out.getvalue())
        prof = cProfile.Profile()
        prof.runcall(cases["page"])
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())


if __name__ == "__main__":
    sys.exit(main())
