"""Benchmark: `releval.score(list, list)` against the TACRED scorer's pure-Python loop, measured in the same run.

Run: python benchmarks/bench_api.py [--sizes 100000 1000000 10000000] [--repeat 5]

The peer is what a user runs today: the TACRED scorer's loop (Zhang et al. 2017, `scorer.py`): one pass over
(gold, guess) pairs with three Counters (correct, guessed and gold per relation), then micro P/R/F without the
negative class. It is re-implemented here from its description. releval computes more (micro, weighted, dodrans,
entropy, macro, per-class rows, the signature); the comparison is of what each user calls.

Each size is timed in its own child process (a fresh interpreter: no memory left over from a larger size), the
two callers alternating, `--repeat` runs each; printed: the median seconds of each, the ratio loop / releval
(> 1: releval faster), and the extra peak memory of one call of each (tracemalloc: Python objects and NumPy
buffers allocated during the call, the input lists excluded). Targets (issue 13): ratio >= 3 at 10^6 and 10^7,
and releval's extra peak <= the loop's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
NEGATIVE = "no_relation"


def tacred_loop(key: list[str], prediction: list[str]) -> tuple[float, float, float]:
    """Micro P, R, F1 over the positive relations, counted item by item as the TACRED scorer counts them (its
    loop's shape: an index over the rows and the four-way if/elif on gold and guess being the negative class)."""
    correct: Counter[str] = Counter()
    guessed: Counter[str] = Counter()
    gold_count: Counter[str] = Counter()
    for row in range(len(key)):
        gold, guess = key[row], prediction[row]
        if gold == NEGATIVE and guess == NEGATIVE:
            pass
        elif gold == NEGATIVE and guess != NEGATIVE:
            guessed[guess] += 1
        elif gold != NEGATIVE and guess == NEGATIVE:
            gold_count[gold] += 1
        elif gold != NEGATIVE and guess != NEGATIVE:
            guessed[guess] += 1
            gold_count[gold] += 1
            if gold == guess:
                correct[guess] += 1
    n_correct, n_guessed, n_gold = sum(correct.values()), sum(guessed.values()), sum(gold_count.values())
    precision = n_correct / n_guessed if n_guessed else 1.0
    recall = n_correct / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def child(n: int, repeat: int) -> dict[str, object]:
    """Times and peaks for one size (run in a fresh interpreter)."""
    sys.path.insert(0, str(HERE))
    import numpy as np

    import releval
    from synthetic import LABELS, label_indices

    g, p = label_indices(n)
    names = np.array(LABELS, dtype=object)
    gold, pred = names[g].tolist(), names[p].tolist()
    callers = {"releval": lambda: releval.score(gold, pred), "loop": lambda: tacred_loop(gold, pred)}
    ours, theirs = releval.score(gold, pred).averages["micro"].f, tacred_loop(gold, pred)[2]
    assert abs(ours - theirs) < 1e-12, (ours, theirs)  # the same number, or the comparison means nothing
    times: dict[str, list[float]] = {name: [] for name in callers}
    for _ in range(repeat):
        for name, call in callers.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    peaks = {}
    for name, call in callers.items():
        tracemalloc.start()
        call()
        peaks[name] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return {"n": n, "times": times, "peaks": peaks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each caller per size (median)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.repeat)))
        return
    head = ("n", "releval (s)", "loop (s)", "loop/releval", "peak releval", "peak loop")
    print("  ".join(f"{h:>12}" for h in head))
    for n in args.sizes:
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(n), "--repeat", str(args.repeat)],
            capture_output=True,
            text=True,
            check=True,
        )
        row = json.loads(out.stdout)
        ours, theirs = (statistics.median(row["times"][k]) for k in ("releval", "loop"))
        peak_ours, peak_theirs = (row["peaks"][k] / 2**20 for k in ("releval", "loop"))
        cells = (f"{n:,}", f"{ours:.3f}", f"{theirs:.3f}", f"{theirs / ours:.2f}x")
        print("  ".join(f"{c:>12}" for c in (*cells, f"{peak_ours:.1f} MB", f"{peak_theirs:.1f} MB")))


if __name__ == "__main__":
    main()
