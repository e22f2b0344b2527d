"""Benchmark: start-up of the command line against a bare interpreter, measured in the same run.

Run: python benchmarks/bench_startup.py [--repeat 15]
Times whole processes (wall clock, median of --repeat runs, the commands interleaved so that a noisy machine
hits all of them alike): `python -c pass` (the floor any Python tool pays), `python -c "import numpy"` (what a
script that scores with NumPy pays), and `releval --version`, `releval --help`, `releval compare --help`
(through `python -m releval`, so the same interpreter runs every command). Prints each median and its ratio to
`python -c pass`, and for each releval command which heavy modules (SciPy, statsmodels, pandas, matplotlib) its
start-up imported — none is the goal: they load only when a command needs them.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

HEAVY = ("scipy", "statsmodels", "pandas", "matplotlib")

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    'python -c "import numpy"': [sys.executable, "-c", "import numpy"],
    "releval --version": [sys.executable, "-m", "releval", "--version"],
    "releval --help": [sys.executable, "-m", "releval", "--help"],
    "releval compare --help": [sys.executable, "-m", "releval", "compare", "--help"],
}


def wall_time(argv: list[str]) -> float:
    """Seconds from spawn to exit of one process whose output is discarded."""
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def heavy_imports(argv: list[str]) -> list[str]:
    """The heavy top-level packages a process imports, read from `python -X importtime`."""
    proc = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    found = set()
    for line in proc.stderr.splitlines():
        module = line.rsplit("|", 1)[-1].strip()
        if module.split(".")[0] in HEAVY:
            found.add(module.split(".")[0])
    return sorted(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15, help="runs per command (median reported)")
    args = parser.parse_args()
    for argv in COMMANDS.values():  # warm the file cache and the bytecode before timing
        wall_time(argv)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.repeat):
        for name, argv in COMMANDS.items():
            times[name].append(wall_time(argv))
    base = statistics.median(times["python -c pass"])
    print(f"{'command':<28} {'median':>9} {'x python -c pass':>17}  heavy modules imported")
    for name, argv in COMMANDS.items():
        median = statistics.median(times[name])
        heavy = ", ".join(heavy_imports(argv)) or "none" if name.startswith("releval") else ""
        print(f"{name:<28} {median * 1000:>7.1f}ms {median / base:>16.1f}x  {heavy}")


if __name__ == "__main__":
    main()
