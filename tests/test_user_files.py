"""The files people have (issue 14): each test is the command a user would type on the files their code wrote,
with the number, error or warning they must get.

* the TACRED scorer's convention: gold TACRED JSON and one predicted label per line (`--pred-format labels-lines`);
* gold and predictions that name their fields differently (`--gold-id-field`, `--pred-label-field`, …);
* predictions as one JSON list of records (`[{"id": …, "prediction": …}]`);
* several systems and seed runs for `score`: NAME=PATH, globs expanded by releval, `-` for stdin.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import releval
from releval import cli

GOLD = ["per:title", "no_relation", "org:founded", "no_relation", "per:title", "org:founded"]
PRED = ["per:title", "no_relation", "no_relation", "org:founded", "per:title", "org:founded"]


def _tacred_record(i: int, label: str) -> dict[str, object]:
    """One record of TACRED's test.json, with the fields the release has (only id and relation are read)."""
    return {
        "id": f"e{i:04d}",
        "docid": "APW_ENG_20101103.0539",
        "relation": label,
        "token": ["Bill", "Gates", "is", "founder", "of", "Microsoft"],
        "subj_start": 0,
        "subj_end": 1,
        "obj_start": 5,
        "obj_end": 5,
        "subj_type": "PERSON",
        "obj_type": "ORGANIZATION",
        "stanford_pos": ["NNP", "NNP", "VBZ", "NN", "IN", "NNP"],
    }


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    out = {
        "test.json": json.dumps([_tacred_record(i, lbl) for i, lbl in enumerate(GOLD)], indent=1),
        "predictions.txt": "\n".join(PRED) + "\n",
        "gold.jsonl": "".join(json.dumps({"guid": f"e{i:04d}", "relation": lbl}) + "\n" for i, lbl in enumerate(GOLD)),
        "pred.jsonl": "".join(
            json.dumps({"guid": f"e{i:04d}", "pred_label": lbl}) + "\n" for i, lbl in enumerate(PRED)
        ),
        "renamed_pred.jsonl": "".join(
            json.dumps({"guid": f"e{i:04d}", "relation": lbl}) + "\n" for i, lbl in enumerate(PRED)
        ),
        "preds.json": json.dumps([{"id": f"e{i:04d}", "prediction": lbl} for i, lbl in enumerate(PRED)]),
    }
    for name, text in out.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return {name: tmp_path / name for name in out}


def run(argv: list[object], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def micro(out: str, k: int = 0) -> float:
    return float(json.loads(out)["results"][k]["averages"]["micro"]["f"])


def expected_micro() -> float:
    return releval.score(GOLD, PRED).averages["micro"].f


# ----------------------------------------------------------------------------------------------- 1. TACRED scorer


def test_tacred_gold_and_one_label_per_line(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """The TACRED scorer's files, one command: aligned by position because the predictions have no ids."""
    code, out, err = run(
        ["score", files["test.json"], files["predictions.txt"], "--pred-format", "labels-lines", "-f", "json"], capsys
    )
    assert code == 0, err
    assert micro(out) == pytest.approx(expected_micro())
    assert json.loads(out)["results"][0]["signature"].count("alignment:position") == 1


def test_labels_lines_guessed_is_refused_with_the_command_to_type(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["score", files["test.json"], files["predictions.txt"]], capsys)
    assert code == 2
    assert "--pred-format labels-lines" in err and "--format labels-lines" not in err.replace("-pred-format", "")


def test_json_given_as_labels_lines_is_refused_at_its_line(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Following the hint with the gold file on the prediction side used to score each JSON line as a label."""
    code, out, err = run(
        ["score", files["gold.jsonl"], files["gold.jsonl"], "--pred-format", "labels-lines", "--id-field", "guid"],
        capsys,
    )
    assert code == 2 and out == ""
    assert f"{files['gold.jsonl']}:1: this line is JSON, not a label" in err
    assert "the same problem at 5 more lines (2, 3, 4, 5, 6)" in err  # every line of the file, said once
    assert "is this a gold or JSON lines file?" in err
    # a pretty-printed TACRED file: one JSON document, no line of it a JSON value
    code, out, err = run(["score", files["test.json"], files["test.json"], "--pred-format", "labels-lines"], capsys)
    assert code == 2 and out == ""
    assert f"{files['test.json']}:1: this file is a JSON document, not a label per line" in err


def test_input_format_still_reads_both_sides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold, pred = tmp_path / "gold.txt", tmp_path / "pred.txt"
    gold.write_text("\n".join(GOLD) + "\n")
    pred.write_text("\n".join(PRED) + "\n")
    code, out, err = run(["score", gold, pred, "--input-format", "labels-lines", "-f", "json"], capsys)
    assert code == 0, err
    assert micro(out) == pytest.approx(expected_micro())


# ----------------------------------------------------------------------------------------------- 2. field names


def test_gold_and_prediction_field_names_differ(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        [
            "score",
            files["gold.jsonl"],
            files["pred.jsonl"],
            "--gold-id-field",
            "guid",
            "--pred-id-field",
            "guid",
            "--pred-label-field",
            "pred_label",
            "-f",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    code, renamed, err = run(
        [
            "score",
            files["gold.jsonl"],
            files["renamed_pred.jsonl"],
            "--id-field",
            "guid",
            "--label-field",
            "relation",
            "-f",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    assert micro(out) == micro(renamed) == pytest.approx(expected_micro())
    first, second = json.loads(out)["results"][0], json.loads(renamed)["results"][0]
    assert first["signature"] == second["signature"]


def test_a_missing_field_lists_the_keys_found(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        ["score", files["gold.jsonl"], files["pred.jsonl"], "--id-field", "guid", "--label-field", "relation"], capsys
    )
    assert code == 2
    assert "pred.jsonl:1: field 'relation': missing field (the record has 'guid', 'pred_label')" in err
    code, _, err = run(["score", files["gold.jsonl"], files["pred.jsonl"], "--id-field", "guid"], capsys)
    assert code == 2
    assert "no label field found" in err and "the record has 'guid', 'pred_label'" in err
    assert "--pred-label-field" in err


def test_label_field_for_both_sides_is_refused_by_tacred_gold(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """--label-field names the predictions' field but applies to the TACRED gold too: refused with the reason."""
    code, _, err = run(
        ["score", files["test.json"], files["pred.jsonl"], "--pred-id-field", "guid", "--label-field", "pred_label"],
        capsys,
    )
    assert code == 2
    assert "record 1" in err and "whose label field is 'relation'" in err and "--pred-label-field" in err
    code, out, err = run(
        [
            "score",
            files["test.json"],
            files["pred.jsonl"],
            "--pred-id-field",
            "guid",
            "--pred-label-field",
            "pred_label",
            "-f",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    assert micro(out) == pytest.approx(expected_micro())


# ----------------------------------------------------------------------------------------------- 3. JSON arrays


def test_json_array_of_prediction_records(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["score", files["test.json"], files["preds.json"], "-f", "json"], capsys)
    assert code == 0, err
    assert micro(out) == pytest.approx(expected_micro())
    assert json.loads(out)["results"][0]["signature"].count("alignment:id") == 1


def test_json_array_bad_record_is_located(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"id": "e0000", "prediction": "per:title"}, {"id": "e0001", "prediction": 5}]))
    code, _, err = run(["score", files["test.json"], bad, "--on-missing", "wrong"], capsys)
    assert code == 2
    assert f"{bad}: record 2: field 'prediction'" in err


# ----------------------------------------------------------------------------------------------- subprocess


def test_the_tacred_command_as_typed(files: dict[str, Path]) -> None:
    """The documented command, in a shell's terms: `python -m releval score test.json predictions.txt …`."""
    done = subprocess.run(
        [sys.executable, "-m", "releval", "score", "test.json", "predictions.txt", "--pred-format", "labels-lines"],
        cwd=files["test.json"].parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "aligned by position" in done.stdout


# ----------------------------------------------------------------------------------------------- 4. many systems


def _runs(tmp_path: Path) -> str:
    """Two seed runs in run folders, as a training script leaves them; the glob that finds them."""
    for run, labels in (("seed1", PRED), ("seed2", GOLD)):
        (tmp_path / "runs" / run).mkdir(parents=True)
        (tmp_path / "runs" / run / "pred.txt").write_text("\n".join(labels) + "\n")
    return str(tmp_path / "runs" / "*" / "pred.txt")


def test_name_equals_path_names_the_system(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        ["score", files["test.json"], f"rbert={files['preds.json']}", files["preds.json"], "-f", "json"], capsys
    )
    assert code == 0, err
    results = json.loads(out)["results"]
    assert [r["system"] for r in results] == ["rbert", "preds"]
    assert micro(out, 0) == micro(out, 1) == pytest.approx(expected_micro())


def test_a_glob_is_expanded_by_releval(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Quoted (no shell expanded it): one system per run, named by its run folder."""
    pattern = _runs(tmp_path)
    code, out, err = run(
        ["score", files["test.json"], f"A={pattern}", pattern, "--pred-format", "labels-lines", "-f", "json"], capsys
    )
    assert code == 0, err
    results = json.loads(out)["results"]
    assert [r["system"] for r in results] == ["A[seed1]", "A[seed2]", "pred[seed1]", "pred[seed2]"]
    assert micro(out, 0) == pytest.approx(expected_micro())
    assert micro(out, 1) == 1.0
    code, _, err = run(["score", files["test.json"], str(tmp_path / "none" / "*.txt")], capsys)
    assert code == 2 and "no file matches" in err


def test_stdin_dash(files: dict[str, Path]) -> None:
    """`-` reads the predictions (or gold) from standard input; it can be read once."""

    def releval_run(*argv: str, stdin: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "releval", "score", *argv, "-f", "json"],
            input=stdin.read_text(),
            capture_output=True,
            text=True,
            check=False,
        )

    done = releval_run(str(files["test.json"]), "-", "--pred-format", "labels-lines", stdin=files["predictions.txt"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"][0]["system"] == "stdin"
    assert micro(done.stdout) == pytest.approx(expected_micro())
    done = releval_run("-", str(files["predictions.txt"]), "--pred-format", "labels-lines", stdin=files["test.json"])
    assert done.returncode == 0, done.stderr
    assert micro(done.stdout) == pytest.approx(expected_micro())
    done = releval_run(str(files["test.json"]), "-", "-", stdin=files["predictions.txt"])
    assert done.returncode == 2 and "standard input (-) can be read once" in done.stderr
