"""Benchmark: what the input-stage checks of issue 23 (item 3) cost on a large pair, next to `prepare` itself.

Run: python benchmarks/bench_checks.py [--n 1000000] [--repeat 5]
Loads an n-line JSONL gold + prediction pair (synthetic TACRED-like labels, benchmarks/synthetic.py) and prints the
median time of: the whole `prepare` (alignment and every warning), the swap check (file names and label
vocabularies: no pass over the items), the trailing-junk check (vocabularies), the identity check on a real
system (stops at the first difference) and on gold given twice (the one case that reads the aligned lists whole).
The goal: every check but the last well under a millisecond at 10^6 items, so `releval score` is not slower.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import orjson

from releval.data.labels import load_labels
from releval.tasks.classification import ClassificationConfig, prepare
from releval.tasks.label_mistakes import check_label_junk, identical_to_gold, swapped_files, vocabulary
from synthetic import LABELS, label_indices


def median_ms(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    gold_idx, pred_idx = label_indices(args.n)
    names = np.array(LABELS, dtype=object)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for role, idx in (("gold", gold_idx), ("pred", pred_idx)):
            path = Path(tmp, f"{role}.jsonl")
            rows = (orjson.dumps({"id": f"id{i}", "label": x}) for i, x in enumerate(names[idx]))
            path.write_bytes(b"\n".join(rows) + b"\n")
            paths.append(path)
        gold = load_labels(paths[0])
        pred = load_labels(paths[1], role="pred", check_unique=False)
    config = ClassificationConfig()
    prepared = prepare(gold, pred, config)
    aligned_gold, aligned_pred = prepared.alignment.gold, prepared.alignment.pred
    twice = list(aligned_gold)
    gold_labels = sorted(vocabulary(gold.labels))
    timings = {
        "prepare (alignment + warnings)": median_ms(args.repeat, lambda: prepare(gold, pred, config)),
        "swap check (names, vocabularies)": median_ms(args.repeat, lambda: swapped_files(gold, pred)),
        "trailing-junk check (vocabularies)": median_ms(args.repeat, lambda: check_label_junk(gold_labels, [], "p")),
        "identity check, a real system": median_ms(
            args.repeat, lambda: identical_to_gold(aligned_gold, aligned_pred, "p")
        ),
        "identity check, gold given twice": median_ms(args.repeat, lambda: identical_to_gold(aligned_gold, twice, "p")),
    }
    print(f"n = {args.n:,}")
    for what, ms in timings.items():
        print(f"{what:<36} {ms:>10.3f} ms")


if __name__ == "__main__":
    main()
