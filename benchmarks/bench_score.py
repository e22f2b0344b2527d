"""Benchmark: releval's all-weightings scoring vs scikit-learn's precision_recall_fscore_support.

Run: python benchmarks/bench_score.py [--sizes 10000 100000 1000000] [--repeat 3]
Prints, for each n, the median time over --repeat runs of releval (micro + weighted + dodrans + entropy + macro, string
labels in, per-class table out) and of scikit-learn (micro, macro, weighted: three calls, string labels in),
their ratio, and the wall time of a whole `releval score` CLI run on an n-line JSONL gold + prediction pair.
Data: 42 labels with a TACRED-like skew (79.5 % negative, positive classes geometric), 35 % of predictions wrong.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import orjson
from sklearn.metrics import precision_recall_fscore_support

from releval.metrics.classification import score_labels
from synthetic import LABELS, label_indices


def make_data(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """Gold with TACRED-like skew, predictions with 35 % errors (half to negative, half to a random label)."""
    gold, pred = label_indices(n, seed)
    names = np.array(LABELS, dtype=object)
    return list(names[gold]), list(names[pred])


def median_of(repeat: int, fn) -> float:
    """The median seconds of `repeat` runs of fn (not the best: a benchmark reports what a user typically waits)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_cli(gold: list[str], pred: list[str], repeat: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        gp, pp = Path(tmp, "gold.jsonl"), Path(tmp, "pred.jsonl")
        gp.write_bytes(b"\n".join(orjson.dumps({"id": f"id{i}", "label": x}) for i, x in enumerate(gold)) + b"\n")
        pp.write_bytes(b"\n".join(orjson.dumps({"id": f"id{i}", "label": x}) for i, x in enumerate(pred)) + b"\n")
        out = str(Path(tmp, "o"))
        cmd = [sys.executable, "-m", "releval", "score", str(gp), str(pp), "--format", "json", "-o", out]

        def run() -> None:
            subprocess.run(cmd, check=True, capture_output=True)

        return median_of(repeat, run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    positive = LABELS[1:]
    print(f"{'n':>9}  {'releval (5 avgs)':>16}  {'sklearn (3 avgs)':>16}  {'ratio':>7}  {'CLI run':>8}")
    for n in args.sizes:
        gold, pred = make_data(n)
        ours = median_of(args.repeat, lambda g=gold, p=pred: score_labels(g, p, negative="no_relation"))

        def sklearn(g: list[str] = gold, p: list[str] = pred) -> None:
            for average in ("micro", "macro", "weighted"):
                precision_recall_fscore_support(g, p, labels=positive, average=average, zero_division=0)

        theirs = median_of(args.repeat, sklearn)
        cli = time_cli(gold, pred, args.repeat)
        print(f"{n:>9}  {ours:>15.4f}s  {theirs:>15.4f}s  {theirs / ours:>6.1f}x  {cli:>7.2f}s")


if __name__ == "__main__":
    main()
