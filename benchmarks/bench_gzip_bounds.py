"""Benchmark: bounded decompression (issue 27) — a large genuine gzip pair scores, a gzip bomb is refused early.

Run: python benchmarks/bench_gzip_bounds.py [--lines 10000000] [--level 6]
Writes a TACRED-style JSONL gold + prediction pair of --lines lines each (bench_memory.write_pair: ids `id0…`, 42
labels, 35 % of predictions wrong), gzips both (zlib level --level, as `gzip -6`), and runs
`python -m releval score GOLD.gz PRED.gz -f json -o OUT` under the default limits; then runs `releval stats` on a
2 GiB bomb (32 gzip members of 64 MiB of zeros). Printed for each: exit code, wall time, peak RSS of the process
(getrusage(RUSAGE_CHILDREN) of a fresh parent), and for the pair the sizes and the compression ratio, which must
stay below RELEVAL_MAX_GZIP_RATIO (default 100) for the pair to score.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from bench_memory import PROBE, write_pair
from synthetic import label_indices

MIB = 1 << 20


def gzip_file(source: Path, level: int) -> Path:
    """`source` gzipped beside it (streamed in 16 MiB blocks); the plain file is removed."""
    target = source.with_name(source.name + ".gz")
    compressor = zlib.compressobj(level, zlib.DEFLATED, 31)
    with source.open("rb") as plain, target.open("wb") as out:
        while block := plain.read(16 * MIB):
            out.write(compressor.compress(block))
        out.write(compressor.flush())
    source.unlink()
    return target


def run(command: list[str]) -> tuple[int, float, float]:
    """(exit code, seconds, peak RSS in MiB) of `command` in a fresh parent process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE, *command], capture_output=True, text=True, check=True)
    code, peak = json.loads(done.stdout)
    return code, time.perf_counter() - start, peak / MIB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--level", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        gold, pred = label_indices(args.lines)
        gold_path, pred_path, _ = write_pair(folder, "jsonl", gold, pred)
        plain = gold_path.stat().st_size + pred_path.stat().st_size
        gold_gz, pred_gz = gzip_file(gold_path, args.level), gzip_file(pred_path, args.level)
        packed = gold_gz.stat().st_size + pred_gz.stat().st_size
        out = folder / "out.json"
        code, seconds, peak = run(
            [sys.executable, "-m", "releval", "score", str(gold_gz), str(pred_gz)] + ["-f", "json", "-o", str(out)]
        )
        print(
            f"pair: {args.lines:,} lines per file, {plain / MIB:.0f} MiB plain, {packed / MIB:.1f} MiB gzipped "
            f"(ratio {plain / packed:.1f}); score exit {code}, {seconds:.1f} s, peak {peak:.0f} MiB"
        )
        bomb = folder / "bomb.gz"
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
        bomb.write_bytes((compressor.compress(bytes(64 * MIB)) + compressor.flush()) * 32)
        code, seconds, peak = run([sys.executable, "-m", "releval", "stats", str(bomb)])
        print(
            f"bomb: {bomb.stat().st_size / MIB:.1f} MiB → 2 GiB; stats exit {code}, {seconds:.1f} s, "
            f"peak {peak:.0f} MiB"
        )


if __name__ == "__main__":
    main()
