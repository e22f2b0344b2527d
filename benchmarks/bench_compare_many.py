"""`releval compare` of 10 systems, all 45 pairs: one joint bootstrap draw against one draw per pair.

Ten TACRED-like systems (15,509 items, 42 labels; gold from `synthetic.py`), 10^4 resamples, micro and the four
default weightings, Holm across pairs. Times the resampling stage in-process, both producing the same rows with
Holm-adjusted p-values: the joint path (`releval.significance.compare._joint_bootstrap`: one draw over the distinct
(gold, 10 predictions) tuples serves every pair) and the per-pair path (45 independent pair-cell bootstraps, what
`releval compare` did before). Prints the medians of several runs, the ratio, and whether the joint path keeps
the target of <= 1.5 s. `--tacred DIR` uses ten real TACRED systems instead (the `*_test.jsonl.gz` files of
`../shared/data/tacred_labels/test_results`).

Run: `python benchmarks/bench_compare_many.py [--runs 5] [--pair-runs 3] [--resamples 10000] [--tacred DIR]`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from releval.metrics.joint_cells import encode_systems, joint_cells_from_labels
from releval.significance import compare
from releval.significance.config import SignificanceConfig
from releval.tasks import classification as rc

HERE = Path(__file__).resolve().parent

N_ITEMS = 15_509
TARGET_S = 1.5
#: Share of a system's errors that go to the item's usual wrong label: with the patterns below, about 2,700
#: distinct (gold, 10 predictions) tuples, as real TACRED systems give (2,597).
USUAL_SHARE = 0.95
# (error rate, share of errors to the negative class, how closely errors follow the items' shared difficulty):
# ten systems from a weak bag-of-words-like model to a strong pretrained one, with different habits.
PATTERNS = [
    (0.42, 0.70, 0.68),
    (0.38, 0.40, 0.78),
    (0.35, 0.55, 0.88),
    (0.33, 0.80, 0.78),
    (0.31, 0.30, 0.88),
    (0.29, 0.60, 0.98),
    (0.27, 0.50, 0.93),
    (0.25, 0.75, 0.98),
    (0.23, 0.45, 0.98),
    (0.21, 0.65, 0.995),
]


def synthetic_systems(n: int = N_ITEMS, seed: int = 0) -> tuple[list[str], dict[str, list[str]]]:
    """Gold from `synthetic.label_indices`; ten systems whose errors fall mostly on the same hard items and,
    there, mostly on the same wrong label (as real systems' do), each with its own rate and negative bias."""
    sys.path.insert(0, str(HERE))
    from synthetic import LABELS, label_indices

    gold, _ = label_indices(n, seed)
    rng = np.random.default_rng(seed + 1)
    hardness = rng.random(n)  # shared: who errs
    usual = np.where(rng.random(n) < 0.5, 0, rng.integers(0, len(LABELS), n))  # shared: the usual wrong label
    systems = {}
    for i, (rate, negative, follow) in enumerate(PATTERNS):
        score = follow * hardness + (1 - follow) * rng.random(n)
        wrong = score < np.quantile(score, rate)
        own = np.where(rng.random(n) < negative, 0, rng.integers(0, len(LABELS), n))
        pred = np.where(wrong, np.where(rng.random(n) < USUAL_SHARE, usual, own), gold)
        systems[f"sys{i:02d}"] = [LABELS[j] for j in pred]
    return [LABELS[j] for j in gold], systems


def tacred_systems(folder: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The ten `*_test.jsonl.gz` systems of the TACRED test results (gold from the files)."""
    gold: list[str] = []
    systems = {}
    for path in sorted(folder.glob("*_test.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle]
        gold = [r["label_true"] for r in rows]
        systems[path.name.removesuffix("_test.jsonl.gz")] = [r["label_pred"] for r in rows]
    return gold, systems


def median_time(fn: Callable[[], list[compare.PairRow]], runs: int) -> tuple[float, list[compare.PairRow]]:
    times, out = [], []
    for _ in range(runs):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of the joint path (median)")
    parser.add_argument("--pair-runs", type=int, default=3, help="runs of the per-pair path (median)")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--tacred", type=Path, default=None, help="folder of TACRED *_test.jsonl.gz files")
    args = parser.parse_args()

    gold, systems = tacred_systems(args.tacred) if args.tacred else synthetic_systems()
    config = rc.ClassificationConfig(negative="no_relation")
    test = SignificanceConfig(tests=("bootstrap",), resamples=args.resamples, correction="holm")
    negative, _ = rc.resolve_negative(config.negative, gold)
    pairs = compare.system_pairs(list(systems))
    labels, g, codes = encode_systems(gold, list(systems.values()))
    tuples = joint_cells_from_labels(g, codes, len(labels)).n_cells
    print(
        f"{'TACRED' if args.tacred else 'synthetic TACRED-like'}: {len(systems)} systems, {len(pairs)} pairs, "
        f"{len(gold):,} items, {len(labels)} labels, {tuples:,} distinct (gold, predictions) tuples; "
        f"{args.resamples:,} resamples, 5 averages, Holm; {os.cpu_count()} cores"
    )

    def joint() -> list[compare.PairRow]:
        rows = compare._joint_bootstrap(gold, systems, pairs, config, negative, test)
        raw = compare._run_tests(pairs, test, None, lambda a, b: [], None, rows)
        return compare.pair_rows(raw, test.correction)

    def per_pair() -> list[compare.PairRow]:
        def cells(a: str, b: str) -> list[tuple[str, object, object]]:
            c, spec, _ = rc.paired_cells(gold, systems[a], systems[b], config)
            return [("", c, spec)]

        return compare.pair_rows(compare._run_tests(pairs, test, None, cells, None), test.correction)

    t_joint, rows_joint = median_time(joint, args.runs)
    print(f"joint draw:     {t_joint:6.2f} s (median of {args.runs})")
    t_pair, rows_pair = median_time(per_pair, args.pair_runs)
    print(f"one per pair:   {t_pair:6.2f} s (median of {args.pair_runs})")

    def observed(rows: list[compare.PairRow]) -> list[tuple[str, str, str, float, float]]:
        return [(r.a, r.b, r.metric, r.score_a, r.score_b) for r in rows]

    same = observed(rows_joint) == observed(rows_pair)
    print(f"same rows and observed scores: {same}")
    print(f"ratio: joint is {t_pair / t_joint:.1f}x faster")
    print(f"target <= {TARGET_S} s of resampling: {'holds' if t_joint <= TARGET_S else 'MISSED'} ({t_joint:.2f} s)")


if __name__ == "__main__":
    main()
