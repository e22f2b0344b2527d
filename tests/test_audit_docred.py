"""`releval audit run --task docred`: the integrity checks of a DocRED submission, with shares and counts worked out
by hand on tests/docred_cases.py's made-up documents (names and facts listed in the comments)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from docred_cases import CASES
from releval.cli import main

# D1: 0 Alice, 1 Acme / Acme Corp, 2 Paris, 3 France; gold (0,1,P108) (1,2,P159) (2,3,P17) (0,3,P27)
# D2: 0 Bob, 1 Berlin, 2 Germany; gold (0,1,P19) (1,2,P17)
TRAIN = [["Acme", "Paris", "P159"], ["Bob", "Berlin", "P19"], ["Alice", "Paris", "P17"]]


def _files(tmp: Path, submission: list[dict[str, Any]], truth: Any = None, train: Any = TRAIN) -> list[str]:
    paths = []
    for name, data in (("gold", truth or CASES["mixed"]["truth"]), ("pred", submission), ("train", train)):
        (tmp / f"{name}.json").write_text(json.dumps(data))
        paths.append(str(tmp / f"{name}.json"))
    return paths


def _audit(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, dict[str, Any]]]:
    code = main(["audit", "run", "--task", "docred", *argv, "-f", "json"])
    out = json.loads(capsys.readouterr().out)
    return code, {f["code"]: f for f in out["findings"]}


def test_leak_shares_titles_duplicates_and_evidence_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # mixed: D1 0-1 P108 ok, 1-2 P159 ok (twice: one duplicate), 2-3 P17 ok (no evidence key), 3-2 P17 wrong,
    # D2 0-1 P19 ok, 0-2 P27 wrong, D9 (no such title); plus D1 0-2 P17 (Alice, Paris, P17): wrong, a train fact
    sub = [*CASES["mixed"]["submission"], {"title": "D1", "h_idx": 0, "t_idx": 2, "r": "P17", "evidence": [1]}]
    gold, pred, train = _files(tmp_path, sub)
    code, f = _audit(capsys, gold, pred, "--train-facts", train)
    assert code == 0
    # gold facts seen in train: (Acme, Paris, P159) and (Bob, Berlin, P19): 2 of 6
    assert f["gold-facts-in-train"]["data"] == {"gold_facts": 6, "seen": 2, "share": 2 / 6}
    # predictions for gold documents after deduplication: 7; train facts among them: P159, P19 (correct) and
    # Alice-Paris P17 (wrong): 3 of 7, 2 correct
    assert f["predictions-copy-train"]["data"] == {"predictions": 7, "copies": 3, "correct": 2, "share": 3 / 7}
    assert f["unknown-titles"]["count"] == 1 and f["unknown-titles"]["examples"] == ["D9"]
    assert f["duplicate-predictions"]["count"] == 1
    assert f["pred-missing-evidence"]["count"] == 1 and f["pred-missing-evidence"]["data"]["predictions"] == 9
    assert "threshold-on-evaluated-split" not in f and "gold-missing-evidence" not in f
    assert "train-facts-origin-unknown" in f  # a .fact list: its dataset cannot be told


def test_scores_warn_of_a_threshold_tuned_on_the_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sub = [{**p, "score": 0.9 - 0.1 * i} for i, p in enumerate(CASES["mixed"]["submission"])]
    gold, pred, train = _files(tmp_path, sub)
    code, f = _audit(capsys, gold, pred, "--train-facts", train)
    assert code == 0 and "not a test result" in f["threshold-on-evaluated-split"]["message"]


def test_gold_without_evidence_is_an_error_unless_evidence_is_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    truth = json.loads(json.dumps(CASES["mixed"]["truth"]))
    del truth[1]["labels"][0]["evidence"]  # D2 label 0
    gold, pred, train = _files(tmp_path, CASES["mixed"]["submission"], truth)
    code, f = _audit(capsys, gold, pred, "--train-facts", train)
    assert code == 1
    finding = f["gold-missing-evidence"]
    assert (finding["severity"], finding["count"], finding["examples"]) == ("error", 1, ["'D2' label 0"])
    assert "--no-evidence" in finding["message"] and "gold-facts-in-train" in f  # the other checks still ran
    code, f = _audit(capsys, gold, pred, "--train-facts", train, "--no-evidence")
    assert code == 0 and f["gold-missing-evidence"]["severity"] == "info"


def test_gold_and_train_facts_of_different_datasets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Train facts from a DocRED training file of 1 fact per document, gold with 3: `stats`' own warning."""
    vertex = [[[{"name": "X", "sent_id": 0}], [{"name": f"Y{i}", "sent_id": 0}]] for i in range(2)]
    label = {"h": 0, "t": 1, "r": "P17"}
    train_docs = [{"title": f"T{i}", "sents": [["w"]], "vertexSet": vertex[i], "labels": [label]} for i in range(2)]
    gold, pred, train = _files(tmp_path, CASES["mixed"]["submission"], train=train_docs)
    code, f = _audit(capsys, gold, pred, "--train-facts", train)
    assert code == 0
    message = f["train-facts-other-dataset"]["message"]
    assert "3.0 facts per document, the train facts' documents 1.0" in message
    assert main(["stats", "--task", "docred", gold, "--train-facts", train]) == 0
    assert "3.0 facts per document, the train facts' documents 1.0" in capsys.readouterr().out  # the same words


def test_no_train_facts_and_bad_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold, pred, _ = _files(tmp_path, CASES["mixed"]["submission"])
    code, f = _audit(capsys, gold, pred)
    assert code == 0 and "no-train-facts" in f and "gold-facts-in-train" not in f
    Path(pred).write_text('[{"title": "D1", "h_idx": 0}]')
    code, f = _audit(capsys, gold, pred)
    assert code == 1 and "record 1" in f["unreadable-input"]["message"] and "t_idx" in f["unreadable-input"]["message"]
    assert main(["audit", "run", "--task", "docred", gold, pred, "--negative", "NA"]) == 2
    assert "--negative" in capsys.readouterr().err
    assert main(["audit", "run", gold, pred, "--train-facts", gold]) == 2  # a DocRED option without --task docred
    assert "--train-facts: apply to --task docred only" in capsys.readouterr().err


def test_text_output_names_the_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold, pred, train = _files(tmp_path, CASES["mixed"]["submission"])
    assert main(["audit", "run", "--task", "docred", gold, pred, "--train-facts", train]) == 0
    out = capsys.readouterr().out
    assert "INFO    gold-facts-in-train [2]: 2 of 6 gold fact(s) (33.3 %)" in out
    assert "WARNING unknown-titles [1]" in out
