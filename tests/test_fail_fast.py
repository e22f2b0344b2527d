"""Fail fast on huge inputs whose first lines are already fatal (issue 34: a 14.4 MB gzip of 1 GiB of
`8001<TAB>Other` lines peaked at 22 GiB after six minutes before being refused for repeated ids).

The file is written lazily (a repeated block, never held whole), then `releval stats` and `releval score` run in
a fresh small parent process that reports the child's peak RSS (resource.getrusage); the refusal must name line 2
and come in seconds with a small peak. benchmarks/bench_fail_fast.py measures the same on 1 GiB.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from releval.core.errors import InputError, InputErrors
from releval.data.labels import load_labels

MIB = 1 << 20
PROBE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
    "sys.stderr.write(code.stderr)\n"
    "print(code.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def write_repeated(path: Path, size: int, line: bytes = b"8001\tOther\n") -> None:
    """`size` bytes (rounded down to whole lines) of one line repeated, written 4 MiB at a time."""
    block = line * (4 * MIB // len(line))
    with path.open("wb") as out:
        for _ in range(size // len(block)):
            out.write(block)


def _run(command: list[str]) -> tuple[int, float, int, str]:
    """(exit code, seconds, peak RSS in bytes, stderr) of a releval command in a fresh parent."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELEVAL_MAX_")}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, sys.executable, "-m", "releval", *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    rc, peak_kib = map(int, done.stdout.split())
    return rc, time.perf_counter() - start, peak_kib * 1024, done.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux")
@pytest.mark.parametrize("command", ["stats", "score"])
def test_200_mb_of_repeated_ids_is_refused_at_line_2_early(tmp_path: Path, command: str) -> None:
    """Before: a 200 MB file took 3 minutes and 4.5 GB. The bounds leave room for a loaded machine (the start of
    the interpreter and its imports are about 1 s and 60 MB of it)."""
    big = tmp_path / "key.txt"
    write_repeated(big, 200 * MIB)
    args = [command, str(big)] + ([str(big)] if command == "score" else [])
    rc, seconds, peak, stderr = _run(args)
    assert rc == 2, stderr
    assert f"{big}:2: field 'id': id 8001 repeated (first on line 1)" in stderr
    assert seconds < 30, f"{seconds:.1f} s"
    assert peak < 300 * 10**6, f"peak RSS {peak / MIB:.0f} MiB"


def test_the_head_gives_the_errors_the_whole_file_gives(tmp_path: Path) -> None:
    """A file just large enough for the early look (over 2 MiB) and the same lines in a small file: the same
    errors, line for line (the head's problems are problems of the whole file)."""
    lines = [f"id{i}\tOther\n".encode() for i in range(10)] + [b"id3\tOther\n", b"bad line\n"]
    small = tmp_path / "small.tsv"
    small.write_bytes(b"".join(lines))
    big = tmp_path / "big.tsv"
    filler = b"".join(f"f{i}\tOther\n".encode() for i in range(300_000))
    big.write_bytes(b"".join(lines) + filler)
    assert big.stat().st_size > 2 * MIB
    found = []
    for path in (small, big):
        with pytest.raises(InputErrors) as info:
            load_labels(path)
        found.append([(e.line, e.field, e.message) for e in info.value.errors])
    assert (
        found[0]
        == found[1]
        == [
            (11, "id", "id id3 repeated (first on line 4)"),
            (12, None, "expected '<id>\\t<label>', got 'bad line'"),
        ]
    )


def test_a_late_repeat_in_a_large_gzip_is_named_from_the_compact_columns(tmp_path: Path) -> None:
    """A repeat past the early look is found on the compact id column (no str per line): its line and the line of
    the first copy, as the line-by-line reader names them."""
    body = b"".join(f"id{i}\tOther\n".encode() for i in range(400_000)) + b"id7\tOther\n"
    path = tmp_path / "late.tsv.gz"
    path.write_bytes(gzip.compress(body))
    with pytest.raises(InputError) as info:
        load_labels(path)
    assert (info.value.line, info.value.field) == (400_001, "id")
    assert info.value.message == "id id7 repeated (first on line 8)"


def test_a_gzip_whose_second_line_repeats_an_id_is_judged_on_its_head(tmp_path: Path, monkeypatch) -> None:
    """Of a gzip over 2 MiB on disk only the first MiB of lines is decompressed and judged when it is already fatal:
    the whole read is never reached (it would raise another error here: the read is stubbed to fail loudly)."""
    import random

    import releval.data.labels as labels_module

    rng = random.Random(3)
    rest = b"".join(rng.randbytes(12).hex().encode() + b"\tOther\n" for _ in range(300_000))
    body = b"8001\tOther\n8001\tOther\n" + rest
    path = tmp_path / "key.tsv.gz"
    path.write_bytes(gzip.compress(body))
    assert path.stat().st_size > 2 * MIB

    def whole_read(_: object) -> bytes:
        raise AssertionError("the whole file was read")

    monkeypatch.setattr(labels_module, "read_utf8", whole_read)
    with pytest.raises(InputError) as info:
        load_labels(path)
    assert (info.value.line, info.value.field, info.value.message) == (2, "id", "id 8001 repeated (first on line 1)")
