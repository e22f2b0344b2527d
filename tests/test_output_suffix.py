"""`-o` as users type it (issue 14): the suffix picks the format when -f is not given, a suffix that contradicts
-f is refused before anything is written, a folder that had to be made is said, an input is never overwritten."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEY = ROOT / "examples" / "semeval2010_task8" / "test_key_directed.txt"
RBERT = ROOT / "examples" / "semeval2010_task8" / "onehaitao_rbert.txt"


def releval(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "releval", *map(str, args)], capture_output=True, text=True)


def test_a_json_suffix_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    assert releval("score", KEY, RBERT, "-o", out).returncode == 0
    assert json.loads(out.read_text())["results"][0]["system"] == "onehaitao_rbert"


def test_each_suffix_names_its_format(tmp_path: Path) -> None:
    starts = {".csv": "system,kind,label", ".md": "| label |", ".tex": "\\begin{", ".txt": "label "}
    for suffix, start in starts.items():
        out = tmp_path / f"out{suffix}"
        assert releval("score", KEY, RBERT, "-o", out).returncode == 0
        text = out.read_text()
        assert start in text.splitlines()[0] or text.startswith(start), (suffix, text[:80])


def test_a_format_that_contradicts_the_suffix_is_refused_and_nothing_written(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    run = releval("score", KEY, RBERT, "-f", "csv", "-o", out)
    assert run.returncode == 2 and not out.exists()
    assert run.stderr.strip() == (
        "error: --format csv does not match --output's suffix .json (json); drop -f to write what the suffix says, "
        "or name the file for the format"
    )
    assert releval("score", KEY, RBERT, "-f", "json", "-o", tmp_path / "out.txt").returncode == 0  # .txt: any


def test_a_folder_made_for_the_output_is_said(tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper" / "out.csv"
    run = releval("score", KEY, RBERT, "-o", out)
    assert run.returncode == 0 and out.exists()
    assert f"wrote {out} (made the folder {tmp_path / 'new'}, and the ones in it)" in run.stderr
    again = releval("score", KEY, RBERT, "-o", out)
    assert f"wrote {out}\n" in again.stderr and "made the folder" not in again.stderr


def test_an_input_is_never_the_output() -> None:
    before = RBERT.read_bytes()
    run = releval("score", KEY, RBERT, "-o", RBERT)
    assert run.returncode == 2 and "it is an input of this run" in run.stderr and RBERT.read_bytes() == before
