"""Resampling speed per resample: releval's joint bootstrap of every system under every average against a per-item
NumPy bootstrap of micro-F alone (issue 33 item 2: ≥ 20× per resample).

The peer is the bootstrap a researcher writes in NumPy: per resample, n item indices drawn with replacement, and
for each system micro-F from its per-item TP/FP/FN indicators summed over the drawn items (micro only: the
weightings would need a bincount per class on top). releval draws the distinct (gold, every prediction) tuples once
per resample for all systems (releval.metrics.joint_cells) and computes micro and the four default weightings of
every system. Both run in this process on the same systems; the medians of several runs are printed, per resample,
and their ratio.

Systems: the five bundled SemEval-2010 Task 8 systems (2,717 items), and with `--synthetic K` K synthetic systems
on TACRED-sized data (15,509 items, 42 labels; benchmarks/synthetic.py's generator as bench_compare_many uses).

Run: `python benchmarks/bench_resampling.py [--resamples 2000] [--runs 5] [--synthetic 10]`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from releval.data.labels import load_labels
from releval.metrics.joint_cells import joint_resampled_f
from releval.significance.compare import joint_views
from releval.tasks.classification import ClassificationConfig

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SEMEVAL = ROOT / "examples" / "semeval2010_task8"
GOAL = 20.0


def semeval_systems() -> tuple[list[str], dict[str, list[str]], str]:
    gold = load_labels(SEMEVAL / "test_key_directed.txt", role="gold")
    assert gold.ids is not None  # the key has ids
    order = {i: k for k, i in enumerate(gold.ids)}
    systems = {}
    for path in sorted(SEMEVAL.glob("onehaitao_*.txt")):
        pred = load_labels(path)
        assert pred.ids is not None
        labels = [""] * len(order)
        for i, label in zip(pred.ids, pred.labels):
            labels[order[i]] = label
        systems[path.stem] = labels
    return list(gold.labels), systems, "Other"


def synthetic_systems(k: int, seed: int = 0) -> tuple[list[str], dict[str, list[str]], str]:
    rng = np.random.default_rng(seed)
    n, n_labels = 15_509, 42
    labels = ["no_relation", *(f"rel{i}" for i in range(1, n_labels))]
    p = np.r_[0.78, rng.dirichlet(np.full(n_labels - 1, 0.6)) * 0.22]
    gold = rng.choice(n_labels, size=n, p=p)
    usual = rng.integers(0, n_labels, size=n)
    systems = {}
    for s in range(k):
        wrong = rng.random(n) < 0.2 + 0.02 * s
        pred = np.where(wrong, np.where(rng.random(n) < 0.9, usual, rng.integers(0, n_labels, size=n)), gold)
        systems[f"sys{s}"] = [labels[i] for i in pred]
    return [labels[i] for i in gold], systems, "no_relation"


def numpy_micro_bootstrap(gold: list[str], systems: dict[str, list[str]], negative: str, resamples: int) -> float:
    """The peer: per-item indicators, n indices per resample, micro-F of every system; seconds."""
    g = np.asarray(gold)
    indicators = []
    for pred in systems.values():
        p = np.asarray(pred)
        tp = ((p == g) & (g != negative)).astype(np.int64)
        fp = ((p != g) & (p != negative)).astype(np.int64)
        fn = ((p != g) & (g != negative)).astype(np.int64)
        indicators.append((tp, fp, fn))
    rng = np.random.default_rng(12345)
    n = len(gold)
    start = time.perf_counter()
    for _ in range(resamples):
        idx = rng.integers(0, n, n)
        for tp, fp, fn in indicators:
            t, f_p, f_n = tp[idx].sum(), fp[idx].sum(), fn[idx].sum()
            _ = 2 * t / (2 * t + f_p + f_n) if t else 0.0
    return time.perf_counter() - start


def releval_joint(gold: list[str], systems: dict[str, list[str]], negative: str, resamples: int) -> float:
    """releval: one joint draw per resample, every system under micro and the four default weightings; seconds."""
    config = ClassificationConfig(negative=negative)  # micro and the four default weightings
    names = list(systems)
    pairs = [(names[0], other) for other in names[1:]] + [(names[1], names[0])]
    cells, views, _ = joint_views(gold, systems, pairs, config, negative)
    start = time.perf_counter()
    joint_resampled_f(cells, views, resamples, 12345)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--synthetic", type=int, default=10, help="synthetic TACRED-sized systems (0: none)")
    args = parser.parse_args(argv)
    cases = [("SemEval, 5 systems", *semeval_systems())]
    if args.synthetic:
        cases.append((f"TACRED-sized, {args.synthetic} systems", *synthetic_systems(args.synthetic)))
    worst = float("inf")
    for title, gold, systems, negative in cases:
        peer = statistics.median(
            numpy_micro_bootstrap(gold, systems, negative, args.resamples) for _ in range(args.runs)
        )
        mine = statistics.median(releval_joint(gold, systems, negative, args.resamples) for _ in range(args.runs))
        ratio = peer / mine
        worst = min(worst, ratio)
        print(
            f"{title}: per resample, NumPy per-item micro-only {1e6 * peer / args.resamples:.0f} µs, releval joint "
            f"(all systems, micro + 4 weightings) {1e6 * mine / args.resamples:.0f} µs: {ratio:.1f}x"
        )
    print(f"goal: >= {GOAL:.0f}x per resample; worst case {worst:.1f}x: {'met' if worst >= GOAL else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
