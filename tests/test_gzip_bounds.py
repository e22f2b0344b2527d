"""Bounded decompression (issue 27): a gzip input that expands far more than genuine data does is refused while it
is being decompressed, so a bomb costs little memory under the default limits; genuine compressible files read.

The bomb is 32 gzip members of 64 MiB of zeros each: 2 GiB from about 2 MB. Peak memory is measured in a child
process started by a fresh parent (its RUSAGE_CHILDREN, so no other test's child counts).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from releval.core.errors import InputError, OptionError
from releval.data import io as releval_io
from releval.data.io import max_gzip_ratio, read_bytes

MIB = 1 << 20


def _bomb(path: Path, members: int = 32, member_bytes: int = 64 * MIB) -> None:
    """`members` gzip members of `member_bytes` zeros each (a multi-member gzip file, as `cat a.gz b.gz` makes)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: a gzip wrapper
    block = compressor.compress(bytes(member_bytes)) + compressor.flush()
    path.write_bytes(block * members)


# Runs the command given as arguments and prints its exit code and peak RSS in KiB (Linux: ru_maxrss in KiB). The
# probe is a fresh, small parent: Linux keeps a process's peak RSS across exec, so a child forked straight from
# this (large) test process would report the test process's size, not its own.
PROBE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
    "sys.stderr.write(code.stderr)\n"
    "print(code.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def test_the_2_gib_bomb_is_refused_with_a_small_peak(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.jsonl.gz"
    _bomb(bomb)
    assert bomb.stat().st_size < 3 * MIB
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELEVAL_MAX_")}  # the defaults
    command = [sys.executable, "-m", "releval", "stats", str(bomb)]
    done = subprocess.run([sys.executable, "-c", PROBE, *command], capture_output=True, text=True, env=env, timeout=300)
    rc, peak_kib = map(int, done.stdout.split())
    assert rc == 2
    assert "expands more than 100 times" in done.stderr and "RELEVAL_MAX_GZIP_RATIO" in done.stderr
    assert peak_kib * 1024 < 300 * 10**6, f"peak RSS {peak_kib / 1024:.0f} MiB"


def _tacred_style_jsonl(n: int) -> bytes:
    rng = random.Random(27)
    labels = ["no_relation"] * 8 + ["per:title", "org:founded_by", "per:employee_of", "org:city_of_headquarters"]
    rows = ({"id": rng.randbytes(10).hex(), "label": rng.choice(labels)} for _ in range(n))
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def test_genuine_compressible_data_past_the_floor_is_read(tmp_path: Path, monkeypatch) -> None:
    """With the floor lowered to 1 MiB (instead of 64 MiB), 8 MB of TACRED-style JSONL (about 4 times
    compressible) is read whole, exactly; one repeated line of the same size (about 1,000 times) is refused, and
    read once the ratio limit is raised."""
    monkeypatch.setattr(releval_io, "GZIP_RATIO_FLOOR", MIB)
    monkeypatch.delenv("RELEVAL_MAX_GZIP_RATIO", raising=False)
    data = _tacred_style_jsonl(150_000)
    assert len(data) > 6 * MIB and len(data) / len(gzip.compress(data)) < 10
    genuine = tmp_path / "pred.jsonl.gz"
    genuine.write_bytes(gzip.compress(data))
    assert read_bytes(genuine) == data

    repeated = b'{"id": "x", "label": "no_relation"}\n' * 200_000
    bomb_like = tmp_path / "same.jsonl.gz"
    bomb_like.write_bytes(gzip.compress(repeated))
    assert len(repeated) / bomb_like.stat().st_size > 300
    with pytest.raises(InputError, match="expands more than 100 times") as info:
        read_bytes(bomb_like)
    assert info.value.file == str(bomb_like)
    monkeypatch.setenv("RELEVAL_MAX_GZIP_RATIO", "5000")
    assert read_bytes(bomb_like) == repeated


def test_below_the_floor_any_ratio_is_read(tmp_path: Path) -> None:
    """A small file of one repeated line (ratio about 500) is under the 64 MiB floor: read whatever its ratio."""
    data = b"no_relation\n" * 500_000
    path = tmp_path / "labels.txt.gz"
    path.write_bytes(gzip.compress(data))
    assert len(data) / path.stat().st_size > 300
    assert read_bytes(path) == data


@pytest.mark.parametrize("value", ["0", "-5", "1.5", "lots"])
def test_a_bad_ratio_limit_is_an_option_error(monkeypatch, value: str) -> None:
    monkeypatch.setenv("RELEVAL_MAX_GZIP_RATIO", value)
    with pytest.raises(OptionError, match="RELEVAL_MAX_GZIP_RATIO must be a positive whole number"):
        max_gzip_ratio()


def test_the_ratio_limit_is_read_from_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("RELEVAL_MAX_GZIP_RATIO", raising=False)
    assert max_gzip_ratio() == 100
    monkeypatch.setenv("RELEVAL_MAX_GZIP_RATIO", " 2000 ")
    assert max_gzip_ratio() == 2000
