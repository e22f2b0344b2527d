"""compare as users type it (issue 14): per-class differences of two systems, seed runs given by a pattern, and
the same refusal of a misspelt negative as score."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import releval
from releval.significance.per_class import per_class_table
from releval.tasks.classification import ClassificationConfig

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "semeval2010_task8"
KEY = EXAMPLES / "test_key_directed.txt"
RBERT, CNN = EXAMPLES / "onehaitao_rbert.txt", EXAMPLES / "onehaitao_cnn.txt"


def releval_cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "releval", *map(str, args)], capture_output=True, text=True)


def test_per_class_differences_from_the_command_line_equal_the_library() -> None:
    run = releval_cli(
        "compare", KEY, "-s", f"rbert={RBERT}", "-s", f"cnn={CNN}", "--per-class", "-R", 500, "-f", "json"
    )
    assert run.returncode == 0, run.stderr
    (doc,) = json.loads(run.stdout)["results"]
    from releval.significance.config import SignificanceConfig

    expected = per_class_table(
        KEY, RBERT, CNN, ClassificationConfig(), SignificanceConfig(resamples=500), names=("rbert", "cnn")
    )
    assert doc == json.loads(json.dumps(expected.to_dict()))
    rows = {row["label"]: row for row in doc["classes"]}
    assert rows["Member-Collection(e1,e2)"]["support"] == 32


def test_seed_runs_given_by_a_pattern_are_the_runs_listed_by_hand(tmp_path: Path) -> None:
    for system, files in {
        "a": ("onehaitao_rbert", "onehaitao_crcnn"),
        "b": ("onehaitao_cnn", "onehaitao_attcnn"),
    }.items():
        for seed, name in enumerate(files, 1):
            (tmp_path / system / f"seed{seed}").mkdir(parents=True)
            shutil.copy(EXAMPLES / f"{name}.txt", tmp_path / system / f"seed{seed}" / "pred.txt")
    pattern = releval_cli(
        "compare", KEY, "-s", f"A={tmp_path}/a/*/pred.txt", "-s", f"B={tmp_path}/b/*/pred.txt", "-f", "json"
    )
    listed = ",".join(str(tmp_path / "a" / f"seed{i}" / "pred.txt") for i in (1, 2))
    listed_b = ",".join(str(tmp_path / "b" / f"seed{i}" / "pred.txt") for i in (1, 2))
    by_hand = releval_cli("compare", KEY, "-s", f"A={listed}", "-s", f"B={listed_b}", "-f", "json")
    assert pattern.returncode == by_hand.returncode == 0, pattern.stderr
    assert json.loads(pattern.stdout) == json.loads(by_hand.stdout)
    run = json.loads(pattern.stdout)["results"][0]
    assert "runs" in json.dumps(run) or "seeds" in json.dumps(run)


def test_a_pattern_that_matches_nothing_is_refused() -> None:
    run = releval_cli("compare", KEY, "-s", "A=no/such/*.txt", "-s", f"B={CNN}")
    assert run.returncode == 2
    assert run.stderr.strip() == "error: --system A: no file matches 'no/such/*.txt'"


def test_compare_refuses_a_misspelt_negative_as_score_does() -> None:
    run = releval_cli("compare", KEY, "-s", f"a={RBERT}", "-s", f"b={CNN}", "--negative", "Othr", "-R", 10)
    assert run.returncode == 2 and "did you mean 'Other'" in run.stderr and run.stderr.startswith("error: --negative")
    with pytest.raises(releval.OptionError, match="did you mean 'Other'"):
        releval.compare_paired(KEY, {"a": RBERT, "b": CNN}, negative="Othr", resamples=10)
