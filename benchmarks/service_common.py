"""What the three service benchmarks share: TACRED-like files, a fresh database, a real `releval serve`, timing.

* Data: 15,509 items (TACRED's test set), 42 labels with `synthetic.py`'s class distribution (`no_relation` 79.5 %,
  the 41 relations sharing the rest geometrically), 24-hex-digit ids as TACRED's; a prediction file 85 % correct
  (a wrong positive item goes half to `no_relation`, half to another relation; a wrong negative item to a
  relation). Files are JSON lines, `{"id": …, "label": …}`, as the board takes them.
* Database: SQLite in a temporary folder by default; `--database-url postgresql://USER@HOST:PORT/DB` makes the
  script create a fresh database beside DB on that server (DB itself is only connected to) and drop it at the end.
* Processes: `python -m releval …` with this interpreter, bytecode cached in a temporary PYTHONPYCACHEPREFIX (as an
  installed copy has it), `RELEVAL_*` variables of the caller dropped.
"""

from __future__ import annotations

import json
import os
import resource
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
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import LABELS  # noqa: E402

N_ITEMS = 15_509
NEGATIVE = LABELS[0]
SLUG = "tacred-like"


def gold_probabilities() -> np.ndarray:
    """`synthetic.label_indices`' class distribution: no_relation 0.795, the 41 relations geometric."""
    positive = 0.5 ** (np.arange(41) / 6.0)
    return np.concatenate([[0.795], 0.205 * positive / positive.sum()])


def tacred_like(n: int = N_ITEMS, seed: int = 0, correct: float = 0.85) -> tuple[list[str], list[str], list[str]]:
    """(ids, gold labels, predicted labels): exactly round(n·(1 − correct)) items predicted wrong."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(len(LABELS), size=n, p=gold_probabilities())
    raw = rng.bytes(12 * n).hex()
    ids = [raw[24 * i : 24 * i + 24] for i in range(n)]
    assert len(set(ids)) == n
    pred = gold.copy()
    wrong = rng.permutation(n)[: round(n * (1 - correct))]
    for i in wrong:
        pred[i] = wrong_label(rng, int(gold[i]))
    return ids, [LABELS[g] for g in gold], [LABELS[p] for p in pred]


def wrong_label(rng: np.random.Generator, gold: int) -> int:
    """A label other than `gold`: a positive gold goes half to the negative class, half to another relation."""
    if gold != 0 and rng.random() < 0.5:
        return 0
    other = int(rng.integers(1, len(LABELS) - 1))
    return other if other < gold or gold == 0 else other + 1


def perturbed(pred: list[str], gold: list[str], k: int, flips: int = 150) -> list[str]:
    """Run k's predictions: `pred` with `flips` items (k's own choice) relabelled, so no two runs are equal."""
    rng = np.random.default_rng(1_000_003 + k)
    out = list(pred)
    index = {label: i for i, label in enumerate(LABELS)}
    for i in rng.choice(len(pred), size=flips, replace=False):
        g = index[gold[i]]
        out[i] = gold[i] if rng.random() < 0.4 else LABELS[wrong_label(rng, g)]
    return out


def shifted_cell(run_id: int, measure: Any, cell: Any, shift: float, version: str) -> Any:
    """A copy of a real cell for another run, its value and interval moved by `shift` (a board's filler cells)."""
    from releval.service.models import Cell

    return Cell(
        run_id=run_id,
        measure=measure,
        value=cell.value + shift,
        ci_low=cell.ci_low + shift,
        ci_high=cell.ci_high + shift,
        signature=cell.signature,
        version=version,
    )


def jsonl(ids: list[str], labels: list[str]) -> bytes:
    return "".join(f'{{"id": "{i}", "label": "{x}"}}\n' for i, x in zip(ids, labels)).encode()


def accuracy(gold: list[str], pred: list[str]) -> float:
    return sum(g == p for g, p in zip(gold, pred)) / len(gold)


# ---------------------------------------------------------------- databases


@contextmanager
def database(url: str | None, folder: Path) -> Iterator[str]:
    """A fresh database URL: SQLite in `folder`, or a new PostgreSQL database beside the one `url` names."""
    if not url or url.startswith("sqlite"):
        yield url or f"sqlite:///{folder / 'board.sqlite3'}"
        return
    import psycopg

    admin = psycopg.connect(url, autocommit=True, connect_timeout=5)
    name = f"releval_bench_{uuid.uuid4().hex[:12]}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{url.rsplit('/', 1)[0]}/{name}"
    finally:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.close()


def backend(url: str) -> str:
    return "PostgreSQL" if url.startswith("postgres") else "SQLite"


# ---------------------------------------------------------------- processes


def child_environment(folder: Path, database_url: str | None = None, **extra: str) -> dict[str, str]:
    """This environment without RELEVAL_* (and with bytecode cached in `folder`/pycache), plus the board's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELEVAL_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    if database_url:
        env.update(RELEVAL_DATABASE_URL=database_url, RELEVAL_DATA_DIR=str(folder / "data"))
        env.setdefault("RELEVAL_SECRET_KEY", "benchmark-key")
    env.update(extra)
    return env


def releval(*args: str, env: dict[str, str]) -> str:
    """stdout of `python -m releval ARGS`; a failure stops the benchmark with its stderr."""
    done = subprocess.run([sys.executable, "-m", "releval", *args], env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"releval {' '.join(args[:3])} … exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done.stdout


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s) of one whole process; CPU is user + system of that child alone."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"{' '.join(argv[:5])} … exited {done.returncode}:\n{done.stderr.decode(errors='replace')[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`releval serve --no-examples` on a free port, stopped (SIGTERM, then SIGKILL) on `close`."""

    def __init__(self, env: dict[str, str], log: Path, workers: int = 1) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._log = open(log, "wb")  # noqa: SIM115
        argv = [sys.executable, "-m", "releval", "serve", "--no-examples", "--port", str(self.port)]
        self.process = subprocess.Popen([*argv, "--workers", str(workers)], env=env, stdout=self._log, stderr=self._log)
        end = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                sys.exit(f"releval serve exited {self.process.returncode}: {log.read_text()[-3000:]}")
            try:
                self.get("/api/v1/queue")
                return
            except (urllib.error.URLError, OSError):
                if time.monotonic() > end:
                    self.close()
                    sys.exit(f"releval serve did not answer within 60 s: {log.read_text()[-3000:]}")
                time.sleep(0.1)

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> Any:
        req = urllib.request.Request(self.url + path, data=body, method=method, headers=dict(headers or {}))
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as exc:
            sys.exit(f"{method} {path}: HTTP {exc.code}: {exc.read()[:2000].decode(errors='replace')}")

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


def load() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def header() -> str:
    import releval

    return f"python {sys.version.split()[0]}, releval {releval.__version__}, {load()}"
