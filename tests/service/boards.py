"""Real boards for the service tests: `releval serve` in a subprocess on a free port, over a fresh SQLite file or
a fresh PostgreSQL database (created on 127.0.0.1:5432 and dropped afterwards; skipped, with the reason, where no
server answers). Nothing is mocked: requests go over HTTP to the real server, jobs run in real workers."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

#: The PostgreSQL server the tests use (CI provides one): trust authentication, database `test`.
PG_ADMIN_URL = os.environ.get("RELEVAL_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
#: The databases of a test whose subject the database can change: what is stored and read back (numbers, text),
#: locks, transactions and quotas under concurrency, migrations, pagination and ordering, the pages' queries (the
#: measures page, the board's API): both, each test on each.
BACKENDS = ("sqlite", "postgresql")
#: The database of a test whose subject is not the database — a page in the browser, a refusal before anything is
#: stored, the library's numbers shown through queries that tests of BACKENDS already run on PostgreSQL: SQLite
#: alone, so that the suite stays within its time (issue 32: the README's test command within 6 minutes on an idle
#: 2-core machine).
SQLITE_ONLY = ("sqlite",)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def database(backend: str, tmp: Path) -> Iterator[str]:
    """A fresh database URL of `backend`, removed afterwards."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp / 'board.sqlite3'}"
        return
    try:
        import psycopg

        admin = psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3)
    except Exception as exc:  # no server here: say so (CI has one, and runs these tests)
        pytest.skip(f"no PostgreSQL server at {PG_ADMIN_URL} ({type(exc).__name__}: {' '.join(str(exc).split())})")
    # one name per board: the xdist worker's id (gw0, gw1, … — "main" without xdist) and a random part, so parallel
    # workers, and other test runs on the same server, never share a database
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    name = f"releval_test_{worker}_{uuid.uuid4().hex[:12]}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        base = PG_ADMIN_URL.rsplit("/", 1)[0]
        yield f"{base}/{name}"
    finally:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.close()


def releval(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "releval", *args], env=env, capture_output=True, text=True, timeout=timeout
    )


@dataclass
class Board:
    """A running board: its address, an admin token, the environment its processes share."""

    url: str
    admin: str
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        token: str | None = None,
    ) -> tuple[int, bytes, dict[str, str]]:
        req = urllib.request.Request(self.url + path, data=body, method=method, headers=dict(headers or {}))
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.status, r.read(), dict(r.headers)
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(), dict(exc.headers)

    def json(self, path: str) -> Any:
        status, body, _ = self.request("GET", path)
        assert status == 200, (status, body[:500])
        return json.loads(body)

    def submit(
        self, benchmark: str, entry: str, data: bytes, filename: str, token: str | None = None, **fields: str
    ) -> tuple[int, Any]:
        from releval.service.client import multipart

        body, content_type = multipart({"entry": entry, **fields}, filename, data)
        status, out, _ = self.request(
            "POST",
            f"/api/v1/benchmarks/{benchmark}/runs",
            body,
            {"Content-Type": content_type},
            token=self.admin if token is None else token,
        )
        return status, json.loads(out) if out[:1] == b"{" else out

    def token(self, name: str, admin: bool = False) -> str:
        done = releval("token", name, *(["--admin"] if admin else []), env=self.env)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def wait_idle(self, timeout: float = 180) -> None:
        """Until no job is queued or running."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            q = self.json("/api/v1/queue")
            if q["queued"] == 0 and q["running"] == 0:
                return
            time.sleep(0.05)
        raise AssertionError(f"jobs still pending after {timeout} s: {q}")

    def start_worker(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "releval", "worker"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.workers.append(proc)
        return proc


def open_benchmark(board: Board, slug: str) -> None:
    """Mark a benchmark's test labels public, as its organiser (here an admin) does: every detail shown at once."""
    body = json.dumps({"open": True, "phases": []}).encode()
    status, out, _ = board.request("PUT", f"/api/v1/benchmarks/{slug}/phases", body, token=board.admin)
    assert status == 200, out


def board_env(database_url: str, tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELEVAL_")}
    env.update(RELEVAL_DATABASE_URL=database_url, RELEVAL_DATA_DIR=str(tmp / "data"), RELEVAL_SECRET_KEY="test-key")
    env.update(extra)
    return env


@contextmanager
def running_board(
    backend: str, tmp: Path, *, examples: bool = False, workers: int = 1, **extra_env: str
) -> Iterator[Board]:
    """`releval serve` on a fresh database of `backend`, with an admin token; stopped (and its workers) after."""
    with database(backend, tmp) as url:
        env = board_env(url, tmp, **extra_env)
        board = Board("", "", env)
        board.admin = board.token("admin", admin=True)
        log = open(tmp / "serve.log", "wb")  # noqa: SIM115
        try:
            _start(board, tmp / "serve.log", log, workers, examples)
            yield board
        except BaseException:  # what the server logged (a job's traceback) shows in the failing test's report
            log.flush()
            print(f"--- {tmp / 'serve.log'} (last 8,000 characters) ---")
            print((tmp / "serve.log").read_text(errors="replace")[-8000:])
            raise
        finally:
            for proc in [board.process, *board.workers]:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            for proc in [board.process, *board.workers]:
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
            log.close()


def _start(board: Board, log_path: Path, log: Any, workers: int, examples: bool, attempts: int = 3) -> None:
    """`releval serve` on a free port; started again on another port when the one chosen was taken meanwhile.

    `free_port` lets the system pick a port and releases it for the server: another process — a parallel test
    worker, another test run on the machine — can bind it first, and the server then exits at once."""
    for attempt in range(attempts):
        port = free_port()
        args = ["serve", "--port", str(port), "--workers", str(workers)]
        args.append("--examples" if examples else "--no-examples")
        board.process = subprocess.Popen(
            [sys.executable, "-m", "releval", *args], env=board.env, stdout=log, stderr=log
        )
        board.url = f"http://127.0.0.1:{port}"
        try:
            _wait_up(board, log_path)
            return
        except AssertionError:
            in_use = "address already in use" in log_path.read_text(errors="replace").lower()
            if not in_use or attempt == attempts - 1:
                raise
            board.process.wait(timeout=20)


def _wait_up(board: Board, log: Path, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert board.process is not None
        if board.process.poll() is not None:
            raise AssertionError(f"releval serve exited {board.process.returncode}: {log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(board.url + "/api/v1/queue", timeout=2):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.05)
    raise AssertionError(f"releval serve did not answer within {timeout} s: {log.read_text()[-3000:]}")
