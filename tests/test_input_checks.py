"""Strict input checks: every bad input gives a located error and exit 2, and nothing is written."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from tests.conftest import data_path, shared_path

import releval
from releval.cli import main


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def gold(tmp_path: Path) -> Path:
    return _write(
        tmp_path / "gold.jsonl",
        "".join(
            json.dumps({"id": f"i{i}", "label": lbl}) + "\n" for i, lbl in enumerate(["a", "b", "no_relation", "a"])
        ),
    )


def test_semeval_format_errors_all_named() -> None:
    path = data_path("semeval2010_task8", "scorer_examples", "proposed_answer4.txt")
    with pytest.raises(releval.InputErrors) as info:
        releval.load_labels(path)
    errors = info.value.errors
    assert [(e.line, e.field) for e in errors] == [(2, "label"), (3, "label"), (5, "label"), (7, "id")]
    assert "Message-Topc(e1,e2)" in errors[0].message and "Cause-Effect(e1, e2)" in errors[1].message
    assert "Instrument-Agency (e2,e1)" in errors[2].message and "id 1 repeated (first on line 4)" in errors[3].message


def test_cli_rejects_format_errors_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sem = data_path("semeval2010_task8", "scorer_examples")
    out = tmp_path / "out.json"
    rc = main(["score", str(sem / "answer_key1.txt"), str(sem / "proposed_answer4.txt"), "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 2
    assert "4 input problem(s)" in err and "proposed_answer4.txt:7" in err
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("pred_text", "message", "line"),
    [
        (
            '{"id": "i0", "label": "a"}\n{"id": "i1", "label": "b"}\n{"id": "i2", "label": "a"}\n',
            "1 gold item(s) have no prediction: 'i3'",
            None,
        ),
        ('{"id": "i0", "label": "a"}\n{"id": "i0", "label": "b"}\n', "id i0 repeated (first on line 1)", 2),
        ('{"id": "i0", "label": "a"}\n{"id": "zz", "label": "b"}\n', "1 prediction id(s) not in gold", 2),
        ('{"id": "i0", "label": "a"}\n\n{"id": "i1", "label": "b"}\n', "empty line", 2),
        ('{"id": "i0", "label": "a"}\n{"id": "i1", "label": \n', "invalid JSON", 2),
        ('{"id": "i0", "label": "a"}\n{"id": "i1"}\n', "missing field", 2),
        ('{"id": "i0", "label": ""}\n', "empty label", 1),
    ],
)
def test_bad_predictions_are_located(
    gold: Path, tmp_path: Path, pred_text: str, message: str, line: int | None, capsys: pytest.CaptureFixture[str]
) -> None:
    pred = _write(tmp_path / "pred.jsonl", pred_text)
    with pytest.raises(releval.RelevalError) as info:
        releval.score(gold, pred)
    assert message in str(info.value)
    if line is not None:
        assert f"pred.jsonl:{line}" in str(info.value)
    assert main(["score", str(gold), str(pred)]) == 2
    assert message in capsys.readouterr().err


def test_labels_never_seen_in_gold(gold: Path, tmp_path: Path) -> None:
    pred = _write(
        tmp_path / "p.jsonl",
        "".join(json.dumps({"id": f"i{i}", "label": x}) + "\n" for i, x in enumerate(["a", "zzz", "zzz", "a"])),
    )
    result = releval.score(gold, pred)
    row = next(r for r in result.per_class if r.label == "zzz")
    assert (row.fp, row.support) == (2, 0)
    assert result["micro"].precision == pytest.approx(2 / 4)
    assert "never seen in gold" in result.warnings[0]
    with pytest.raises(releval.InputError, match="never occur in gold: zzz"):
        releval.score(gold, pred, strict_labels=True)


def test_gzip_and_position_alignment(tmp_path: Path) -> None:
    gold = tmp_path / "gold.txt.gz"
    gold.write_bytes(gzip.compress(b"a\nno_relation\nb\n"))
    pred = _write(tmp_path / "pred.txt", "a\nb\nb\n")
    with pytest.raises(releval.InputError, match="looks like one label per line"):
        releval.load_labels(pred)
    g = releval.load_labels(gold, format="labels-lines")
    p = releval.load_labels(pred, format="labels-lines")
    result = releval.score(g, p, negative="no_relation")
    assert (result["micro"].precision, result["micro"].recall) == (pytest.approx(2 / 3), pytest.approx(1.0))
    short = _write(tmp_path / "short.txt", "a\n")
    with pytest.raises(releval.InputError, match="has 1 items but gold"):
        releval.score(g, releval.load_labels(short, format="labels-lines"))


def test_tacrev_patch_applied_by_id(tmp_path: Path) -> None:
    gold = _write(tmp_path / "g.json", json.dumps([{"id": "x", "relation": "a"}, {"id": "y", "relation": "b"}]))
    patch = _write(tmp_path / "patch.json", json.dumps([{"id": "y", "relation": "a"}]))
    patched = releval.apply_patch(releval.load_labels(gold), patch)
    assert patched.labels == ["a", "a"]
    bad = _write(tmp_path / "bad.json", json.dumps([{"id": "q", "relation": "a"}]))
    with pytest.raises(releval.InputError, match="1 patch id\\(s\\) not in gold"):
        releval.apply_patch(releval.load_labels(gold), bad)


def test_csv_and_tsv_with_configurable_fields(tmp_path: Path) -> None:
    gold = _write(tmp_path / "g.csv", "sid,gold_rel\n1,a\n2,b\n3,NA\n")
    pred = _write(tmp_path / "p.tsv", "sid\tguess\n3\ta\n2\tb\n1\ta\n")
    g = releval.load_labels(gold, id_field="sid", label_field="gold_rel")
    p = releval.load_labels(pred, id_field="sid", label_field="guess")
    result = releval.score(g, p, negative="NA")
    assert (result["micro"].precision, result["micro"].recall) == (pytest.approx(2 / 3), pytest.approx(1.0))
    with pytest.raises(releval.InputError, match="header has no column 'id'"):
        releval.load_labels(pred, format="tsv", label_field="guess")


def test_tacred_patch_on_real_data() -> None:
    """TACRev's patch on TACRED test gold gives tacred_label_distribution.tsv's TACRev counts (../shared only)."""
    gold = releval.load_labels(shared_path("data", "tacred_labels", "test_results", "cnn_test.jsonl.gz"))
    patched = releval.apply_patch(gold, shared_path("data", "tacred_labels", "patch", "test_patch.json"))
    changed = sum(a != b for a, b in zip(gold.labels, patched.labels))
    table = shared_path("data", "tacred_labels", "tacred_label_distribution.tsv").read_text().splitlines()
    expected = {row.split("\t")[0]: int(row.split("\t")[2]) for row in table[1:] if not row.startswith("TOTAL")}
    counts = {label: patched.labels.count(label) for label in set(patched.labels)}
    assert counts == {k: v for k, v in expected.items() if v > 0}
    assert 0 < changed <= 936
