"""Concurrency and faults, against a real board on SQLite and PostgreSQL: 50 submissions from several processes
at once, a worker killed in the middle of a job, a measure backfill while submissions arrive, a run withdrawn while a
job reads it."""

from __future__ import annotations

import json
import signal
import time
from concurrent.futures import ProcessPoolExecutor

import pytest
from tests.service import synthetic
from tests.service.boards import BACKENDS, Board, open_benchmark, releval, running_board

MEASURES = ["micro", "weighted", "dodrans", "entropy", "macro"]


def _submit_many(url: str, token: str, seeds: list[int]) -> list[int]:
    """One process's share of the submissions (run in a separate process)."""
    from releval.service.client import Client

    client = Client(url, token)
    out = []
    for seed in seeds:
        data = synthetic.jsonl(synthetic.predictions(seed))
        run = client.submit("toy", {"entry": f"m{seed % 7}", "seed": str(seed)}, f"s{seed}.jsonl", data)
        out.append(run["run"])
    return out


def _benchmark(board: Board, tmp_path) -> None:
    gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
    done = releval("benchmark", "toy", str(gold), env=board.env)
    open_benchmark(board, "toy")
    assert done.returncode == 0, done.stderr


def _submit_in_parallel(board: Board, seeds: list[int], processes: int = 5) -> list[int]:
    shares = [seeds[i::processes] for i in range(processes)]
    with ProcessPoolExecutor(processes) as pool:
        return [
            run
            for share in pool.map(_submit_many, [board.url] * processes, [board.admin] * processes, shares)
            for run in share
        ]


def _every_cell_fresh(board: Board, measures: list[str], runs: int) -> dict:
    data = board.json("/b/toy/board.json")
    assert data["measures"] == measures
    assert sum(r["runs"] for r in data["rows"]) == runs
    assert data["stale_cells"] == 0
    for row in data["rows"]:
        for m in measures:
            cell = row["cells"][m]
            assert not cell["stale"] and len(cell["seeds"]) == row["runs"], (row["name"], m)
    return data


@pytest.mark.parametrize("backend", BACKENDS)
def test_fifty_submissions_at_once(backend: str, tmp_path) -> None:
    """Every submission stored once and scored once; none lost."""
    with running_board(backend, tmp_path, workers=2) as board:
        _benchmark(board, tmp_path)
        worker = board.start_worker()  # and a worker process beside the in-process ones
        run_ids = _submit_in_parallel(board, list(range(50)))
        assert len(set(run_ids)) == 50
        board.wait_idle()
        assert worker.poll() is None, worker.communicate(timeout=5)
        queue = board.json("/api/v1/queue")
        assert queue["failed"] == 0
        assert queue["by_kind"]["score-run"]["done"] == 50  # once each: no job done twice
        _every_cell_fresh(board, MEASURES, 50)
        statuses = {board.json(f"/api/v1/runs/{r}")["status"] for r in run_ids}
        assert statuses == {"scored"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_killed_worker_job_is_retried(backend: str, tmp_path) -> None:
    """A worker killed (SIGKILL) while it holds a job: its lease runs out, another worker takes the job again and
    completes it."""
    with running_board(backend, tmp_path, workers=0, RELEVAL_JOB_LEASE="3") as board:
        _benchmark(board, tmp_path)
        _submit_in_parallel(board, list(range(12)), processes=3)  # queued: nobody works yet
        victim = board.start_worker()
        deadline = time.monotonic() + 60
        while board.json("/api/v1/queue")["running"] == 0:
            assert time.monotonic() < deadline, "the worker never took a job"
            time.sleep(0.005)
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        assert board.json("/api/v1/queue")["running"] >= 1  # the killed worker's job, leased still
        board.start_worker()
        board.wait_idle(timeout=120)
        queue = board.json("/api/v1/queue")
        assert queue["failed"] == 0
        assert sum(k["retried"] for k in queue["by_kind"].values()) >= 1
        _every_cell_fresh(board, MEASURES, 12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_backfill_while_submissions_arrive(backend: str, tmp_path) -> None:
    """A measure registered while 30 submissions arrive: in the end every cell is computed, none stale."""
    with running_board(backend, tmp_path, workers=2) as board:
        _benchmark(board, tmp_path)
        _submit_in_parallel(board, list(range(10)), processes=2)
        with ProcessPoolExecutor(3) as pool:
            later = pool.map(
                _submit_many, [board.url] * 3, [board.admin] * 3, [list(range(10 + i, 40, 3)) for i in range(3)]
            )
            time.sleep(0.3)
            for name in ("power:0.5", "power:2"):
                body = json.dumps({"name": name}).encode()
                status, out, _ = board.request(
                    "POST",
                    "/api/v1/benchmarks/toy/measures",
                    body,
                    {"Content-Type": "application/json"},
                    token=board.admin,
                )
                assert status == 201, out
            assert sum(len(x) for x in later) == 30
        board.wait_idle()
        data = _every_cell_fresh(board, [*MEASURES, "power:0.5", "power:2"], 40)
        assert all(data["ties_current"].values())


def _submit_counting(url: str, token: str, slug: str, seeds: list[int]) -> list[int]:
    """One process's share of the submissions: the HTTP status of each."""
    from tests.service.boards import Board

    board = Board(url, token, {})
    return [
        board.submit(slug, f"q{seed}", synthetic.jsonl(synthetic.predictions(seed)), "q.jsonl", token=token)[0]
        for seed in seeds
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_quota_is_charged_atomically(backend: str, tmp_path) -> None:
    """50 submissions of one submitter at once from 5 processes: against a daily quota of 20 on an open benchmark,
    exactly 20 stored and 30 refused (429); against a hidden phase's total limit of 12, exactly 12."""
    with running_board(backend, tmp_path, workers=0, RELEVAL_DAILY_QUOTA="20") as board:
        _benchmark(board, tmp_path)
        assert releval("benchmark", "hidden", str(tmp_path / "gold.jsonl"), env=board.env).returncode == 0
        phase = {"name": "test", "start": "2020-01-01T00:00:00Z", "total_limit": 12, "daily_limit": None}
        status, out, _ = board.request(
            "PUT", "/api/v1/benchmarks/hidden/phases", json.dumps({"phases": [phase]}).encode(), token=board.admin
        )
        assert status == 200, out
        for slug, token, stored in (("toy", board.token("dora"), 20), ("hidden", board.token("eve"), 12)):
            shares = [list(range(50))[i::5] for i in range(5)]
            with ProcessPoolExecutor(5) as pool:
                done = pool.map(_submit_counting, [board.url] * 5, [token] * 5, [slug] * 5, shares)
                statuses = sorted(s for share in done for s in share)
            assert statuses == [201] * stored + [429] * (50 - stored), (slug, statuses)
            rows = board.json(f"/b/{slug}/board.json")["rows"]
            assert sum(r["runs"] for r in rows) == stored, slug


WITHDRAWN_MEANWHILE = """
import json
from releval.service import configure
configure()
from django.db import connection
from releval.service import board, jobs
from releval.service.models import Benchmark, Cell, Job, Measure, Run, Submitter
bench = Benchmark.objects.get(slug="toy")
admin = Submitter.objects.get(is_admin=True)
a, b, c, d = Run.objects.filter(entry__benchmark=bench).order_by("id")
# d is scored, then withdrawn before its scores are stored
d = Run.objects.select_related("entry__benchmark").get(pk=d.pk)
scored = jobs.scores_of(d)
board.delete_run(admin, d.pk)
jobs.store_scores(d, scored)
for run in (a, b, c):
    jobs.score_run({{"run": run.pk}})
# a `ties` job has read the runs a, b, c and their cells; c is withdrawn as the job reads c's stored predictions
withdrawals = []


def withdraw_c_when_read(execute, sql, params, many, context):
    if not withdrawals and '"aligned"' in sql and list(params or ())[:1] == [c.pk]:
        withdrawals.append(c.pk)
        board.delete_run(admin, c.pk)
    return execute(sql, params, many, context)


with connection.execute_wrapper(withdraw_c_when_read):
    jobs.compute_ties({{"benchmark": bench.pk}})
assert withdrawals == [c.pk], "the job never read c's stored predictions"
print(json.dumps({{
    "measures": dict(Measure.objects.filter(benchmark=bench).values_list("name", "status")),
    "cells_of_withdrawn": Cell.objects.filter(run_id__in=[c.pk, d.pk]).count(),
    "runs": sorted(Run.objects.values_list("id", flat=True)),
    "ties_queued": Job.objects.filter(kind="ties", status="queued").count(),
}}))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_run_withdrawn_while_a_job_reads_it_fails_nothing(backend: str, tmp_path) -> None:
    """A run withdrawn while a `ties` job reads the runs (its stored predictions gone before the job reaches them)
    is not the measure's failure: no measure is marked failed (CI once saw `micro` leave the board this way), and
    the tie groups are computed on the runs left. A run withdrawn while it is scored stores nothing and fails no
    job. The withdrawals are made at the moment the job reads the run (Django's execute_wrapper) or between its
    scoring and its storing: the race made certain."""
    import subprocess
    import sys

    with running_board(backend, tmp_path, workers=0) as board:
        _benchmark(board, tmp_path)
        runs = [
            board.submit("toy", e, synthetic.jsonl(synthetic.predictions(i)), f"{e}.jsonl")[1]["run"]
            for i, e in enumerate("abcd")
        ]
        done = subprocess.run(
            [sys.executable, "-c", WITHDRAWN_MEANWHILE.format()], env=board.env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert out["measures"] == dict.fromkeys(MEASURES, "active")
        assert out["cells_of_withdrawn"] == 0 and out["runs"] == runs[:2] and out["ties_queued"] >= 1
        board.start_worker()
        board.wait_idle()
        assert board.json("/api/v1/queue")["failed"] == 0
        data = _every_cell_fresh(board, MEASURES, 2)
        assert sorted(r["name"] for r in data["rows"]) == ["a", "b"] and all(data["ties_current"].values())
        assert {r["cells"]["micro"]["tie"] for r in data["rows"]} <= {"best", "tied", "below"}
        assert board.json("/api/v1/benchmarks/toy")["measures_off"] == []


WITHDRAWN_WHILE_STORED = """
import json, threading, time
from releval.service import configure
configure()
from django.db import connection, connections
from releval.service import board, jobs
from releval.service.models import Cell, Run, RunData, Submitter
admin = Submitter.objects.get(is_admin=True)
run = Run.objects.select_related("entry__benchmark").get(pk={run})
scored = jobs.scores_of(run)
storing, errors = threading.Event(), []


def withdraw():
    storing.wait(60)
    try:
        board.delete_run(admin, run.pk)
    except Exception as exc:
        errors.append(f"withdrawal: {{type(exc).__name__}}: {{exc}}")
    finally:
        connections.close_all()


def pause_once_the_run_is_locked(execute, sql, params, many, context):
    out = execute(sql, params, many, context)
    if not storing.is_set() and "FOR UPDATE" in sql and '"board_run"' in sql:
        storing.set()
        time.sleep(2)  # the withdrawal starts while the run's scores are being stored
    return out


thread = threading.Thread(target=withdraw)
thread.start()
with connection.execute_wrapper(pause_once_the_run_is_locked):
    try:
        jobs.store_scores(run, scored)
    except Exception as exc:
        errors.append(f"storing: {{type(exc).__name__}}: {{exc}}")
storing.set()
thread.join()
print(json.dumps({{
    "errors": errors,
    "run_left": Run.objects.filter(pk=run.pk).exists(),
    "cells_left": Cell.objects.filter(run_id=run.pk).count(),
    "data_left": RunData.objects.filter(run_id=run.pk).exists(),
}}))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_run_withdrawn_while_its_scores_are_stored(backend: str, tmp_path) -> None:
    """A withdrawal that arrives while a job stores the run's scores waits for it, then removes the run with what
    was stored. Both take the run's row first: on PostgreSQL the withdrawal used to delete the run's stored data
    first and the run last, the job the other way round, and one of them died of `deadlock detected` (a 500 for
    the submitter who withdrew; seen under load in tests/service/test_quotas.py)."""
    import subprocess
    import sys

    with running_board(backend, tmp_path, workers=0) as board:
        _benchmark(board, tmp_path)
        run = board.submit("toy", "a", synthetic.jsonl(synthetic.predictions(1)), "a.jsonl")[1]["run"]
        done = subprocess.run(
            [sys.executable, "-c", WITHDRAWN_WHILE_STORED.format(run=run)],
            env=board.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"errors": [], "run_left": False, "cells_left": 0, "data_left": False}


DATABASE_REFUSES = """
import json
from releval.service import configure
configure()
from django.db import OperationalError, connection
from releval.service import jobs
from releval.service.models import Benchmark, Measure, Run, TieCache
bench = Benchmark.objects.get(slug="toy")
for run in Run.objects.filter(entry__benchmark=bench):
    jobs.score_run({{"run": run.pk}})
refused = []


def refuse_the_first_write(execute, sql, params, many, context):
    if not refused and sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
        refused.append(sql.split()[2])
        raise OperationalError("database is locked")
    return execute(sql, params, many, context)


try:
    with connection.execute_wrapper(refuse_the_first_write):
        jobs.compute_ties({{"benchmark": bench.pk}})
    raised = None
except OperationalError as exc:
    raised = str(exc)
after_refusal = dict(Measure.objects.filter(benchmark=bench).values_list("name", "status"))
jobs.compute_ties({{"benchmark": bench.pk}})  # the job's retry
print(json.dumps({{
    "refused": refused,
    "raised": raised,
    "after_refusal": after_refusal,
    "tie_groups": TieCache.objects.filter(measure__benchmark=bench).count(),
}}))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_database_error_fails_the_job_not_the_measure(backend: str, tmp_path) -> None:
    """The database refusing a `ties` job's write (a lock that timed out under load: SQLite's 'database is locked',
    PostgreSQL's deadlock) fails the job, which the queue retries; it never marks the measure failed (the first
    measure used to leave the board for good). The retry computes every tie group."""
    import subprocess
    import sys

    with running_board(backend, tmp_path, workers=0) as board:
        _benchmark(board, tmp_path)
        for i, e in enumerate("ab"):
            assert board.submit("toy", e, synthetic.jsonl(synthetic.predictions(i)), f"{e}.jsonl")[0] == 201
        done = subprocess.run(
            [sys.executable, "-c", DATABASE_REFUSES.format()], env=board.env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert out["after_refusal"] == dict.fromkeys(MEASURES, "active")
        assert len(out["refused"]) == 1 and out["raised"] == "database is locked"
        assert out["tie_groups"] == len(MEASURES)
