"""Multiple-testing corrections: releval.significance.corrections against statsmodels' multipletests.

For every correction and family size, both compute the adjusted p-values of the same p-values (checked equal to
1e-12 first); the timings alternate releval and statsmodels, and each is the median over --runs runs of the time
per call (a run repeats the call until it has taken at least --min-time seconds). statsmodels is timed as users
get it: its Holm calls gc.collect() on every call, so its cost grows with the number of live Python objects (the
benchmark allocates --objects of them first, about what a `releval compare` run holds). Then the cost of importing
each, in fresh interpreters, medians over the same runs.
Run: `python benchmarks/bench_corrections.py [--sizes 10,45,1000,100000] [--runs 7]`.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial

import numpy as np
from statsmodels.stats.multitest import multipletests

from releval.significance.corrections import ADJUSTMENTS

#: Our names that statsmodels spells differently.
SM_NAME = {"hochberg": "simes-hochberg", "holm_sidak": "holm-sidak"}
#: Hommel is O(n²) in both implementations: left out above this size.
HOMMEL_MAX = 2000


def per_call(fn: Callable[[], object], min_time: float) -> float:
    """Seconds per call, from as many calls as take at least min_time."""
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return elapsed / calls


def import_time(module: str, runs: int) -> float:
    """Median wall time of `python -c "import MODULE"` in a fresh interpreter."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10,45,1000,100000", help="family sizes n, comma-separated")
    parser.add_argument("--runs", type=int, default=7, help="runs per timing; the median is reported")
    parser.add_argument("--min-time", type=float, default=0.05, help="seconds each run lasts at least")
    parser.add_argument("--objects", type=int, default=300_000, help="live Python objects held while timing")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    held = [[i] for i in range(args.objects)]  # what gc.collect() has to walk
    rng = np.random.default_rng(args.seed)

    print(f"{'correction':<11} {'n':>7} {'releval':>11} {'statsmodels':>12} {'ratio':>7}  max |diff|")
    ratios: dict[str, list[float]] = {}
    for n in sizes:
        p = np.concatenate([rng.uniform(size=n - n // 3) ** 2, np.round(rng.uniform(size=n // 3), 2)])
        rng.shuffle(p)
        for name, correction in ADJUSTMENTS.items():
            if name == "hommel" and n > HOMMEL_MAX:
                continue
            sm_name = SM_NAME.get(name, name)
            with np.errstate(divide="ignore"):  # statsmodels' Sidak takes log1p(-1) for p = 1
                ours, theirs = correction(p, 0.05), multipletests(p, alpha=0.05, method=sm_name)[1]
                diff = float(np.max(np.abs(ours - theirs)))
                assert diff <= 1e-12, (name, n, diff)
                ours_call = partial(correction, p, 0.05)
                theirs_call = partial(multipletests, p, alpha=0.05, method=sm_name)
                ours_t, theirs_t = [], []
                for _ in range(args.runs):  # alternating, so that a slow moment of the machine hits both
                    ours_t.append(per_call(ours_call, args.min_time))
                    theirs_t.append(per_call(theirs_call, args.min_time))
            a, b = statistics.median(ours_t), statistics.median(theirs_t)
            ratios.setdefault(name, []).append(b / a)
            print(f"{name:<11} {n:>7} {a * 1e6:>9.1f}µs {b * 1e6:>10.1f}µs {b / a:>6.1f}×  {diff:.1e}")
    del held

    print("\nratio = statsmodels time / releval time (> 1: releval faster); medians of", args.runs, "runs")
    print("geometric mean of the ratios over the sizes:")
    for name, values in ratios.items():
        print(f"  {name:<11} {float(np.exp(np.mean(np.log(values)))):.1f}×")

    ours_import = import_time("releval.significance.corrections", args.runs)
    theirs_import = import_time("statsmodels.stats.multitest", args.runs)
    bare = import_time("numpy", args.runs)
    print(
        f"\nimport, fresh interpreter (median of {args.runs}): numpy alone {bare * 1e3:.0f} ms, "
        f"releval.significance.corrections {ours_import * 1e3:.0f} ms, statsmodels.stats.multitest "
        f"{theirs_import * 1e3:.0f} ms; ratio {theirs_import / ours_import:.1f}×"
    )


if __name__ == "__main__":
    main()
