"""Benchmark: one TACRED-size submission through a real board, end to end, against the command line's score and
compare of the same files, measured in the same run.

Run: python benchmarks/service_submit.py [--repeat 7] [--quick] [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

The board: `releval serve --no-examples --workers 1` in a subprocess (SQLite in a temporary folder; with
--database-url postgresql://…, a fresh database created beside the one named and dropped at the end). Each timed
run creates a fresh benchmark (`releval benchmark SLUG-k gold.jsonl`, 1,000 resamples, not timed), then, timed from
the start of the request:

* post: the prediction file (15,509 items, 85 % correct, JSON lines) POSTed as multipart to
  /api/v1/benchmarks/SLUG-k/runs with the admin's token, until the 201 answer (upload, the strict loaders, the
  alignment to gold, the run and its job stored);
* scored: then GET /api/v1/runs/ID every 20 ms until the run is `scored` with a cell for each of the five measures
  (F, 95 % interval of 1,000 resamples, signature): the in-process worker has scored it;
* idle: then until /api/v1/queue shows no job queued or running (the run's tie-group job too: one entry, no test).

The worker thread polls the queue every 0.2 s when idle, so `scored` includes 0-0.2 s of waiting for the next poll
(printed apart: the run's created time to its score-run job's finished time, read from the database afterwards).

The peer, both whole processes on the same files, interleaved with the board's runs:
`releval score GOLD PRED` (five averages, no intervals) and `releval compare GOLD -s a=PRED -s b=PRED -R 1000`
(the same intervals: a system paired with itself). Before timing, the board's cells must equal the command line's
numbers (F to 1e-12, interval bounds to 1e-12), else the script exits 1.
Printed: medians of --repeat runs, ratios board / command line (> 1: the board takes longer).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from service_common import (
    N_ITEMS,
    SLUG,
    Server,
    accuracy,
    backend,
    child_environment,
    database,
    header,
    jsonl,
    load,
    releval,
    tacred_like,
    timed,
)

MEASURES = ("micro", "weighted", "dodrans", "entropy", "macro")
POLL = 0.02


def submit_once(server: Server, token: str, slug: str, data: bytes) -> tuple[dict[str, float], dict]:
    """Times (s) of one submission: post, scored, idle; and the scored run's JSON."""
    from releval.service.client import multipart

    body, content_type = multipart({"entry": "bench", "seed": "1", "selection": "dev"}, "pred.jsonl", data)
    headers = {"Content-Type": content_type, "Authorization": f"Bearer {token}"}
    start = time.perf_counter()
    run = server.request("POST", f"/api/v1/benchmarks/{slug}/runs", body, headers)
    post = time.perf_counter() - start
    while True:
        got = server.get(f"/api/v1/runs/{run['run']}")
        if got["status"] == "scored" and all(m in got["cells"] for m in MEASURES):
            break
        if got["status"] == "failed" or time.perf_counter() - start > 300:
            sys.exit(f"the run was not scored: {got}")
        time.sleep(POLL)
    scored = time.perf_counter() - start
    while True:
        q = server.get("/api/v1/queue")
        if not q["queued"] and not q["running"]:
            break
        time.sleep(POLL)
    idle = time.perf_counter() - start
    return {"post": post, "scored": scored, "idle": idle}, got


def worker_share(database_url: str, folder: Path, repeat: int) -> tuple[list[float], float]:
    """From the database afterwards: each timed run's stored -> its score-run job finished (server clock), and
    `jobs.score_run` of the last run redone in this process (median of `repeat`): the worker's work, no poll."""
    from releval.service import configure

    configure(database_url, folder / "data")
    from releval.service import jobs
    from releval.service.models import Job, Run

    waits = []
    for run in Run.objects.order_by("id"):
        job = Job.objects.filter(kind="score-run", payload__run=run.pk).first()
        if job and job.finished:
            waits.append((job.finished - run.created).total_seconds())
    last = Run.objects.order_by("id").last()
    assert last is not None
    again = []
    for _ in range(repeat):
        start = time.perf_counter()
        jobs.score_run({"run": last.pk})
        again.append(time.perf_counter() - start)
    return waits[1:], statistics.median(again)  # the warm-up's run first


def agree(cells: dict, score_out: str, compare_out: str) -> bool:
    """The board's cells against `releval score` (F) and `releval compare` (interval of system a)."""
    averages = json.loads(score_out)["results"][0]["averages"]
    rows = {r["metric"]: r for r in json.loads(compare_out)["results"][0]["pairs"] if r["test"] == "bootstrap"}
    ok = True
    print(f"{'measure':<9} {'F board':>13} {'F score':>13} {'CI board':>29} {'CI compare':>29}")
    for m in MEASURES:
        c, f, ci = cells[m], averages[m]["f"], rows[m]["ci_a"]
        same = abs(c["value"] - f) <= 1e-12 and all(abs(x - y) <= 1e-12 for x, y in zip(c["ci"], ci))
        ok &= same
        print(
            f"{m:<9} {c['value']:>13.10f} {f:>13.10f}   [{c['ci'][0]:.10f}, {c['ci'][1]:.10f}]"
            f"   [{ci[0]:.10f}, {ci[1]:.10f}]" + ("" if same else "  DIFFER")
        )
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs of each side, interleaved (medians)")
    parser.add_argument("--quick", action="store_true", help="3 runs (a smoke test; the sizes stay TACRED's)")
    parser.add_argument("--items", type=int, default=N_ITEMS, help="items of the test set (default: TACRED's)")
    parser.add_argument("--database-url", default=None, help="postgresql://USER@HOST:PORT/DB: a fresh DB beside DB")
    args = parser.parse_args()
    repeat = 3 if args.quick else max(3, args.repeat)
    ids, gold, pred = tacred_like(args.items)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        gold_path, pred_path = tmp / "gold.jsonl", tmp / "pred.jsonl"
        gold_path.write_bytes(jsonl(ids, gold))
        pred_path.write_bytes(jsonl(ids, pred))
        data = pred_path.read_bytes()
        with database(args.database_url, tmp) as url:
            env = child_environment(tmp, url)
            token = releval("token", "bench-admin", "--admin", env=env).strip()
            print(header())
            print(
                f"{len(gold):,} items, {len(set(gold))} labels, no_relation {gold.count('no_relation') / len(gold):.1%}"
                f"; prediction {accuracy(gold, pred):.1%} correct, {len(data):,} bytes; {backend(url)}; "
                f"{repeat} runs"
            )
            cli = child_environment(tmp)
            py = [sys.executable, "-m", "releval"]
            peers = {
                "score": [*py, "score", str(gold_path), str(pred_path)],
                "compare": [*py, "compare", str(gold_path), "-s", f"a={pred_path}", "-s", f"b={pred_path}"]
                + ["-R", "1000"],
            }
            for name, argv in peers.items():
                print(f"  peer {name}: {' '.join(argv[2:])}")
            server = Server(env, tmp / "serve.log")
            try:
                # warm-up (file cache, bytecode, the server's first request) and the check of the numbers
                releval("benchmark", f"{SLUG}-0", str(gold_path), "--resamples", "1000", env=env)
                _, run = submit_once(server, token, f"{SLUG}-0", data)
                score_out = releval("score", str(gold_path), str(pred_path), "-f", "json", env=cli)
                compare_out = releval(*peers["compare"][3:], "-f", "json", env=cli)
                if not agree(run["cells"], score_out, compare_out):
                    sys.exit("the board's cells differ from the command line's numbers: the comparison is void")
                board: dict[str, list[float]] = {"post": [], "scored": [], "idle": []}
                peer: dict[str, list[tuple[float, float]]] = {name: [] for name in peers}
                for k in range(1, repeat + 1):
                    slug = f"{SLUG}-{k}"
                    releval("benchmark", slug, str(gold_path), "--resamples", "1000", env=env)
                    sides = ["board", *peers] if k % 2 else [*reversed(peers), "board"]
                    for side in sides:
                        if side == "board":
                            times, _ = submit_once(server, token, slug, data)
                            for key, value in times.items():
                                board[key].append(value)
                        else:
                            peer[side].append(timed(peers[side], cli))
                    print(
                        f"  run {k}: board post {times['post']:.3f} s, scored {times['scored']:.3f} s, idle "
                        f"{times['idle']:.3f} s; score {peer['score'][-1][0]:.3f} s, "
                        f"compare {peer['compare'][-1][0]:.3f} s"
                    )
            finally:
                server.close()
            waits, in_process = worker_share(url, tmp, repeat)
    med = {key: statistics.median(v) for key, v in board.items()}
    pmed = {name: statistics.median(w for w, _ in runs) for name, runs in peer.items()}
    pcpu = {name: statistics.median(c for _, c in runs) for name, runs in peer.items()}
    both = pmed["score"] + pmed["compare"]
    print(f"after: {load()}; medians of {repeat} interleaved runs:")
    print(f"  board: POST answered     {med['post']:7.3f} s  (upload, strict loaders, alignment, stored)")
    print(f"  board: run scored        {med['scored']:7.3f} s  (+ worker: 5 cells with 1,000-resample intervals)")
    print(f"  board: queue empty       {med['idle']:7.3f} s  (+ the tie-group job)")
    print(
        f"    run stored -> its score-run job finished (server clock): {statistics.median(waits):.3f} s, of which "
        f"the worker's idle poll 0-0.2 s; jobs.score_run in-process: {in_process:.3f} s"
    )
    print(f"  releval score            {pmed['score']:7.3f} s  (CPU {pcpu['score']:.3f} s)")
    print(f"  releval compare -R 1000  {pmed['compare']:7.3f} s  (CPU {pcpu['compare']:.3f} s)")
    print("ratios board (run scored) / command line (> 1: the board takes longer):")
    print(
        f"  / score {med['scored'] / pmed['score']:.2f}x, / compare {med['scored'] / pmed['compare']:.2f}x, "
        f"/ (score + compare) {med['scored'] / both:.2f}x"
    )


if __name__ == "__main__":
    main()
