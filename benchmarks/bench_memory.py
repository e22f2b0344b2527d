"""Benchmark: peak memory (RSS) of `releval score` on a JSONL and a TSV gold + prediction pair.

Run: python benchmarks/bench_memory.py [--sizes 1000000 10000000] [--repeat 3] [--shuffle]
For each size n (lines per file) and format, the median over --repeat runs of the peak RSS of a whole
`python -m releval score GOLD PRED -f json -o OUT` process, measured by a fresh parent process through
getrusage(RUSAGE_CHILDREN) (Linux reports ru_maxrss in KiB), so nothing but that run counts. Printed: the files'
size, the id + label bytes they hold (gold and prediction: what a loader must keep), the peak RSS, the peak above
the start-up floor (the same command on a 10-line pair) per 10^6 lines, and the peak and the part above the floor
as multiples of the id + label bytes. Data: ids `id0…`, 42 labels with a TACRED-like skew (79.5 % negative), 35 %
of predictions wrong, as in bench_score.py. The predictions are in gold's order, unless --shuffle writes them in a
random order (seeded), which makes alignment match every id instead of finding the two files' ids equal.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np

from synthetic import LABELS, label_indices

FORMATS = ("jsonl", "tsv")

# Runs the command given as arguments and prints [exit code, peak RSS of the child in bytes].
PROBE = textwrap.dedent(
    """
    import json, resource, subprocess, sys
    code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    print(json.dumps([code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024]))
    """
)


def write_pair(
    folder: Path, fmt: str, gold: np.ndarray, pred: np.ndarray, shuffle: bool = False
) -> tuple[Path, Path, int]:
    """Write gold and prediction files in `fmt`, in blocks (the predictions in a random order when `shuffle`);
    return their paths and the id + label bytes held."""
    paths = (folder / f"gold.{fmt}", folder / f"pred.{fmt}")
    id_label_bytes = 0
    orders = (
        np.arange(gold.size),
        np.random.default_rng(1).permutation(pred.size) if shuffle else np.arange(pred.size),
    )
    for path, labels, order in zip(paths, (gold, pred), orders):
        with path.open("w", encoding="utf-8") as handle:
            if fmt == "tsv":
                handle.write("id\tlabel\n")
            for start in range(0, labels.size, 1_000_000):
                items = order[start : start + 1_000_000]
                ids = [f"id{i}" for i in items]
                names = [LABELS[k] for k in labels[items]]
                id_label_bytes += sum(map(len, ids)) + sum(map(len, names))
                if fmt == "tsv":
                    handle.write("".join(f"{i}\t{x}\n" for i, x in zip(ids, names)))
                else:
                    handle.write("".join(f'{{"id": "{i}", "label": "{x}"}}\n' for i, x in zip(ids, names)))
    return paths[0], paths[1], id_label_bytes


def peak_rss(gold: Path, pred: Path, out: Path, repeat: int) -> float:
    """Median peak RSS (bytes) of `releval score GOLD PRED -f json -o OUT` over `repeat` runs; each must succeed."""
    command = [sys.executable, "-m", "releval", "score", str(gold), str(pred), "-f", "json", "-o", str(out)]
    peaks = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", PROBE, *command], capture_output=True, text=True, check=True)
        code, peak = json.loads(done.stdout)
        if code != 0:
            raise SystemExit(f"releval score exited {code} on {gold}")
        peaks.append(peak)
    return statistics.median(peaks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shuffle", action="store_true", help="write the predictions in a random order")
    args = parser.parse_args()
    mib = 1 << 20
    print(
        f"{'format':>6} {'n':>9} {'files MiB':>9} {'id+label MiB':>12} {'peak MiB':>9} "
        f"{'above floor MiB/1e6':>19} {'peak / id+label':>15} {'above floor / id+label':>22}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for fmt in FORMATS:
            small = folder / "small"
            small.mkdir(exist_ok=True)
            g, p = label_indices(10)
            floor = peak_rss(*write_pair(small, fmt, g, p)[:2], small / "out.json", args.repeat)
            for n in args.sizes:
                gold, pred = label_indices(n)
                gold_path, pred_path, held = write_pair(folder, fmt, gold, pred, args.shuffle)
                size = gold_path.stat().st_size + pred_path.stat().st_size
                peak = peak_rss(gold_path, pred_path, folder / "out.json", args.repeat)
                above = peak - floor
                print(
                    f"{fmt:>6} {n:>9} {size / mib:>9.1f} {held / mib:>12.1f} {peak / mib:>9.1f} "
                    f"{above / mib / (n / 1e6):>19.1f} {peak / held:>15.2f} {above / held:>22.2f}"
                )
            print(f"{fmt:>6} start-up floor (10-line pair): {floor / mib:.1f} MiB")


if __name__ == "__main__":
    main()
