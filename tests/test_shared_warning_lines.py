"""A warning several compared systems share is one stderr line naming them (issue 34: with --patch, 16 identical
lines for 49 systems); JSON keeps each system's own warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import EXAMPLES, SEMEVAL_KEY
from releval import cli

cli.register_commands([])


def _with_unseen(src: Path, out: Path) -> Path:
    """The system with its first prediction replaced by a label gold never uses."""
    lines = src.read_text().splitlines()
    item, _ = lines[0].split("\t")
    out.write_text("\n".join([f"{item}\tBogus-Relation(e1,e2)", *lines[1:]]) + "\n")
    return out


def test_a_warning_three_systems_share_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = ("cnn", "crcnn", "attcnn")
    paths = [_with_unseen(EXAMPLES / "semeval2010_task8" / f"onehaitao_{n}.txt", tmp_path / f"{n}.txt") for n in names]
    clean = EXAMPLES / "semeval2010_task8" / "onehaitao_rbert.txt"
    argv = ["compare", str(SEMEVAL_KEY), *map(str, paths), str(clean), "-R", "50", "--input-format", "id-tsv"]
    assert cli.main(argv) == 0
    err = capsys.readouterr().err.splitlines()
    shared = [line for line in err if "Bogus-Relation(e1,e2)" in line]
    assert shared == [
        "warning: 3 systems (cnn, crcnn, attcnn): predicted label(s) never seen in gold, counted as false positives: "
        "Bogus-Relation(e1,e2)"
    ]
    assert cli.main([*argv, "-f", "json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["results"][0]["warnings"]
    assert sorted(w["message"].split(":")[0] for w in warnings if "Bogus" in w["message"]) == sorted(names)
