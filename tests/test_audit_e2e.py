"""`releval audit` on end-to-end files: duplicates, dangling relation arguments, sentence coverage and type
constraints on CoNLL04, with expected values from plain-Python sets over the raw JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from releval.audit import audit
from releval.cli import main


def _strict_f(gold: list[dict], pred: list[dict]) -> float:
    """Strict relation micro-F1 with per-sentence sets (Taillé et al. 2020), written independently of releval."""

    def keys(docs: list[dict]) -> set[tuple]:
        out = set()
        for k, doc in enumerate(docs):
            ents = doc["entities"]
            for r in doc["relations"]:
                h, t = ents[r["head"]], ents[r["tail"]]
                out.add((k, h["start"], h["end"], h["type"], t["start"], t["end"], t["type"], r["type"]))
        return out

    g, p = keys(gold), keys(pred)
    tp = len(g & p)
    return 2 * tp / (len(g) + len(p))


def test_conll04_duplicates_and_type_constraints(conll04_test: Path, conll04_train: Path, tmp_path: Path) -> None:
    """Retyped entities in every fourth sentence, one relation and two entity mentions listed twice: exact counts,
    and the Strict F1 without the type-violating relations."""
    gold_path = conll04_test
    train = json.loads(conll04_train.read_text())
    gold = json.loads(gold_path.read_text())
    pred = json.loads(gold_path.read_text())
    for k, doc in enumerate(pred):
        if k % 4 == 0 and doc["entities"]:
            doc["entities"][0]["type"] = "Loc" if doc["entities"][0]["type"] == "Other" else "Other"
    pred[1]["relations"].append(pred[1]["relations"][0])
    pred[2]["entities"].append(pred[2]["entities"][0])
    pred[5]["entities"].append(pred[5]["entities"][1])
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(pred))
    report = audit(gold_path, path, conll04_train)
    assert report.get("duplicate-relations").count == 1
    assert report.get("duplicate-entities").count == 2

    allowed = {
        (d["entities"][r["head"]]["type"], d["entities"][r["tail"]]["type"], r["type"])
        for d in train
        for r in d["relations"]
    }
    bad = [
        (k, j)
        for k, d in enumerate(pred)
        for j, r in enumerate(d["relations"])
        if (d["entities"][r["head"]]["type"], d["entities"][r["tail"]]["type"], r["type"]) not in allowed
    ]
    finding = report.get("type-constraints")
    assert finding.severity == "warning" and finding.count == len(bad) > 0
    cleaned = [
        {**d, "relations": [r for j, r in enumerate(d["relations"]) if (k, j) not in set(bad)]}
        for k, d in enumerate(pred)
    ]
    assert finding.data["strict_f_before"] == pytest.approx(_strict_f(gold, pred))
    assert finding.data["strict_f_without"] == pytest.approx(_strict_f(gold, cleaned))
    criteria = report.get("criteria").data
    assert criteria["strict"] == pytest.approx(_strict_f(gold, pred)) and criteria["boundaries"] == pytest.approx(1.0)
    assert report.exit_status == 0


def test_dygie_dangling_arguments_and_missing_sentences(
    conll04_test: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A DyGIE++ prediction with two relations whose spans are not predicted entities: both counted, exit 1; a SpERT
    prediction lacking three sentences: the alignment finding counts them."""
    gold = tmp_path / "gold.jsonl"
    tokens = [["A", "works", "for", "B", "."], ["C", "lives", "in", "D", "."]]
    gold.write_text(
        json.dumps(
            {
                "doc_key": "d1",
                "sentences": tokens,
                "ner": [[[0, 0, "Peop"], [3, 3, "Org"]], [[5, 5, "Peop"], [8, 8, "Loc"]]],
                "relations": [[[0, 0, 3, 3, "Work_For"]], [[5, 5, 8, 8, "Live_In"]]],
            }
        )
        + "\n"
    )
    pred = tmp_path / "pred.jsonl"
    pred.write_text(
        json.dumps(
            {
                "doc_key": "d1",
                "sentences": tokens,
                "predicted_ner": [[[0, 0, "Peop"]], [[5, 5, "Peop"], [8, 8, "Loc"]]],
                "predicted_relations": [[[0, 0, 3, 3, "Work_For"]], [[5, 5, 7, 8, "Live_In"], [5, 5, 8, 8, "Live_In"]]],
            }
        )
        + "\n"
    )
    report = audit(gold, pred)
    dangling = report.get("relation-arguments-not-entities")
    assert dangling.count == 2 and dangling.examples == [
        "d1 sentence 0: Work_For argument(s) [[3, 3]] not in predicted_ner",
        "d1 sentence 1: Live_In argument(s) [[7, 8]] not in predicted_ner",
    ]
    assert report.get("unreadable-input").data["file"] == "pred"
    assert main(["audit", str(gold), str(pred)]) == 1
    assert "ERROR   relation-arguments-not-entities [2]" in capsys.readouterr().out

    gold_path = conll04_test
    docs = json.loads(gold_path.read_text())
    short = tmp_path / "short.json"
    short.write_text(json.dumps(docs[3:]))
    finding = audit(gold_path, short).get("sentence-alignment")
    assert finding.severity == "error" and finding.data == {"missing": 3, "unknown": 0}
