"""`-o` onto a read-only or a full file system: one line naming --output, exit 2, nothing left behind.

Real file systems, not a patched `os`: each case runs `releval` inside a private mount namespace
(`unshare --mount --map-root-user`, so it needs no root and touches nothing outside the test's folder) on a
small tmpfs mounted read-only, or filled up before the run.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import EXAMPLES

KEY = str(EXAMPLES / "semeval2010_task8" / "test_key_directed.txt")

# $1 mount options, $2 folder; the rest is the command. Prints the exit code and what the folder holds after.
SCRIPT = r"""
opts=$1 dir=$2; shift 2
mount -t tmpfs -o "$opts" tmpfs "$dir" || exit 99
case $opts in *ro*) ;; *) head -c 1048576 /dev/zero > "$dir/fill" 2>/dev/null ;; esac
"$@"
echo "rc=$?" >&2
ls -A "$dir" >&2
"""


def run_on_tmpfs(tmp_path: Path, options: str, argv: list[str]) -> tuple[int, list[str], list[str]]:
    """(exit code, stderr lines of releval, files left in the mounted folder) of `releval ARGV -o FOLDER/out.txt`."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed")
    folder = tmp_path / "mnt"
    folder.mkdir()
    command = [sys.executable, "-m", "releval", *argv, "-o", str(folder / "out.txt")]
    proc = subprocess.run(
        ["unshare", "--mount", "--map-root-user", "sh", "-c", SCRIPT, "sh", options, str(folder), *command],
        capture_output=True,
        text=True,
    )
    if proc.returncode == 99 or "rc=" not in proc.stderr:
        pytest.skip(f"cannot mount a tmpfs in a private mount namespace here: {proc.stderr.strip()[:200]}")
    lines = proc.stderr.splitlines()
    at = max(i for i, ln in enumerate(lines) if ln.startswith("rc="))
    return int(lines[at][3:]), [ln for ln in lines[:at] if ln.strip()], lines[at + 1 :]


def test_read_only_file_system(tmp_path: Path) -> None:
    code, err, left = run_on_tmpfs(tmp_path, "ro,size=64k", ["stats", KEY])
    assert code == 2
    assert len(err) == 1 and err[0].startswith("error: ") and "--output" in err[0] and "Traceback" not in err[0]
    assert left == []


def test_full_file_system(tmp_path: Path) -> None:
    code, err, left = run_on_tmpfs(tmp_path, "size=64k", ["stats", KEY])
    assert code == 2
    assert len(err) == 1 and err[0].startswith("error: ") and "--output" in err[0]
    assert "No space left on device" in err[0]
    assert left == ["fill"]  # neither out.txt nor a temporary file is left behind
