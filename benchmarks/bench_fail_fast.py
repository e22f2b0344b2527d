"""Benchmark: fail fast (issue 34) — 1 GiB of `8001<TAB>Other` lines, whose line 2 already repeats the id of
line 1, is refused in seconds with a small peak RSS, plain and gzipped.

Run: python benchmarks/bench_fail_fast.py [--gib 1]
Writes the file lazily (4 MiB blocks), runs `python -m releval stats FILE` and `python -m releval score FILE FILE`
on it and on its gzip (zlib level 6, as `gzip -6`), and prints for each: exit code, wall time, peak RSS of the
process (getrusage(RUSAGE_CHILDREN) of a fresh parent) and the first error line. Acceptance (issue 34): under 5 s
and under 300 MB for the plain file. Before the fix the gzip took 6 minutes and 22 GiB.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

MIB = 1 << 20
PROBE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
    "sys.stderr.write(code.stderr)\n"
    "print(code.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)
LINE = b"8001\tOther\n"


def write(path: Path, size: int, gzipped: bool) -> None:
    """`size` bytes of LINE repeated, written (and compressed) 4 MiB at a time."""
    block = LINE * (4 * MIB // len(LINE))
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31) if gzipped else None
    with path.open("wb") as out:
        for _ in range(size // len(block)):
            out.write(compressor.compress(block) if compressor else block)
        if compressor:
            out.write(compressor.flush())


def run(command: list[str]) -> tuple[int, float, float, str]:
    """(exit code, seconds, peak RSS in MiB, first stderr line) of `command` in a fresh parent process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE, *command], capture_output=True, text=True, check=True)
    code, peak_kib = map(int, done.stdout.split())
    first = next((line for line in done.stderr.splitlines() if "repeated" in line), done.stderr[:200])
    return code, time.perf_counter() - start, peak_kib / 1024, first.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0, help="size of the uncompressed file in GiB")
    args = parser.parse_args()
    size = int(args.gib * 1024 * MIB)
    with tempfile.TemporaryDirectory() as tmp:
        for gzipped in (False, True):
            path = Path(tmp) / ("key.txt.gz" if gzipped else "key.txt")
            write(path, size, gzipped)
            print(f"{path.name}: {path.stat().st_size / MIB:,.1f} MiB on disk, {size / MIB:,.0f} MiB of lines")
            for words in (["stats", str(path)], ["score", str(path), str(path)]):
                code, seconds, peak, first = run([sys.executable, "-m", "releval", *words])
                print(f"  releval {words[0]:<5}: exit {code}, {seconds:5.2f} s, peak RSS {peak:6.1f} MiB — {first}")
            path.unlink()


if __name__ == "__main__":
    main()
