"""Benchmark: start-up of the command line against `python -c "import numpy"`, measured in the same run.

Run: python benchmarks/bench_startup.py [--repeat 15]
Times whole processes (wall clock, median of --repeat runs, the commands interleaved so that a noisy machine
hits all of them alike): `python -c pass` (the floor any Python tool pays), `python -c "import numpy"` (the peer:
what a script that scores with NumPy pays), and `releval --version`, `releval --help`, `releval score --help`,
`releval compare --help` and a whole `releval score --task semeval-official` run on the bundled SemEval test key
and one bundled system (through `python -m releval`, so the same interpreter runs every command). Prints each
median, its ratio to the import-numpy peer and to `python -c pass`, whether the targets of issue 13 hold
(`--version` and `score --help` within 1.5x the peer, the SemEval run within 2x), and for each releval command
which heavy modules (NumPy, SciPy, statsmodels, pandas, matplotlib, and rich, pydantic and typer, which the command
line loaded on every start while it was built on typer) it imported: only the SemEval run needs NumPy, and none
needs the others. The load average before and after is printed too: on a busy machine the ratios move.
Every process caches its bytecode in a temporary PYTHONPYCACHEPREFIX, whatever PYTHONDONTWRITEBYTECODE says: an
installed package runs from compiled modules (pip compiles them), and compiling releval's ~60 modules on every
start would add ~0.1 s that no user pays, to releval's side only (NumPy's wheel ships compiled).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = ("numpy", "scipy", "statsmodels", "pandas", "matplotlib", "rich", "pydantic", "typer")
SEMEVAL = Path(__file__).resolve().parents[1] / "examples" / "semeval2010_task8"
RELEVAL = [sys.executable, "-m", "releval"]
PEER = 'python -c "import numpy"'
SEMEVAL_RUN = "releval score --task semeval-official"

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    PEER: [sys.executable, "-c", "import numpy"],
    "releval --version": [*RELEVAL, "--version"],
    "releval --help": [*RELEVAL, "--help"],
    "releval score --help": [*RELEVAL, "score", "--help"],
    "releval compare --help": [*RELEVAL, "compare", "--help"],
    SEMEVAL_RUN: [
        *RELEVAL,
        "score",
        "--task",
        "semeval-official",
        str(SEMEVAL / "test_key_directed.txt"),
        str(SEMEVAL / "onehaitao_cnn.txt"),
    ],
}
#: Issue 13's targets: at most this many times the wall time of `python -c "import numpy"`.
TARGETS = {"releval --version": 1.5, "releval score --help": 1.5, SEMEVAL_RUN: 2.0}


def child_environment(pycache: str) -> dict[str, str]:
    """This process's environment with bytecode cached under `pycache`, even if PYTHONDONTWRITEBYTECODE is set."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def wall_time(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from spawn to exit of one process whose output is discarded."""
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


def heavy_imports(argv: list[str], env: dict[str, str]) -> list[str]:
    """The heavy top-level packages a process imports, read from `python -X importtime`."""
    proc = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    found = set()
    for line in proc.stderr.splitlines():
        module = line.rsplit("|", 1)[-1].strip()
        if module.split(".")[0] in HEAVY:
            found.add(module.split(".")[0])
    return sorted(found)


def load() -> str:
    """The 1, 5 and 15 minute load averages and the number of CPUs, to say how busy the machine was."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15, help="runs per command (median reported)")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}; before: {load()}")
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        env = child_environment(os.path.join(tmp, "pycache"))
        for argv in COMMANDS.values():  # warm the file cache and the bytecode before timing
            wall_time(argv, env)
        times: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(args.repeat):
            for name, argv in COMMANDS.items():
                times[name].append(wall_time(argv, env))
        heavy = {name: heavy_imports(argv, env) for name, argv in COMMANDS.items() if name.startswith("releval")}
    medians = {name: statistics.median(runs) for name, runs in times.items()}
    peer, floor = medians[PEER], medians["python -c pass"]
    print(f"after: {load()}; medians of {args.repeat} interleaved runs, wall clock, bytecode cached")
    print(f"{'command':<40} {'median':>9} {'x numpy':>8} {'x pass':>7}  {'target':<16} heavy modules imported")
    holds = []
    for name in COMMANDS:
        ratio = medians[name] / peer
        target = ""
        if name in TARGETS:
            met = ratio <= TARGETS[name]
            holds.append(met)
            target = f"<= {TARGETS[name]}x: {'yes' if met else 'NO'}"
        imported = (", ".join(heavy[name]) or "none") if name in heavy else ""
        print(
            f"{name:<40} {medians[name] * 1000:>7.1f}ms {ratio:>7.2f}x {medians[name] / floor:>6.1f}x  "
            f"{target:<16} {imported}"
        )
    print(f"targets met: {sum(holds)} of {len(holds)}")


if __name__ == "__main__":
    main()
