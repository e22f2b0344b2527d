"""The new inputs of issue 23 (item 3): Re-TACRED's `{id: label}` JSON files (`id-label-json`) and a wide TSV (id,
gold, one column per system: `wide-tsv`) scored as many systems in one call. Expected values are counted by hand
in this file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from releval import cli
from releval.commands.inputs import READERS

cli.register_commands([])

GOLD = ["no_relation", "per:title", "org:founded", "per:title", "no_relation", "org:founded", "per:title"]
A = ["no_relation", "per:title", "per:title", "per:title", "org:founded", "org:founded", "no_relation"]
B = ["no_relation", "no_relation", "org:founded", "per:title", "no_relation", "per:title", "per:title"]
IDS = [
    "e7798fb926b9403cfcd2",
    "e779865fb96bbbcc4ca4",
    "e7798ae9c0adbcdc81e7",
    "e7798a1be1ed4b32c1a0",
    "e7798ae5",
    "x",
    "y",
]


def _micro_f(gold: list[str], pred: list[str], negative: str = "no_relation") -> float:
    """Micro-F1 over the positive classes, counted by hand."""
    tp = sum(g == p != negative for g, p in zip(gold, pred))
    n_pred = sum(p != negative for p in pred)
    n_gold = sum(g != negative for g in gold)
    return 2 * tp / (n_pred + n_gold)


def test_the_hand_counts() -> None:
    # A: tp = items 2, 4, 6 (per:title, per:title, org:founded) = 3; predicted positives 5; gold positives 5
    assert _micro_f(GOLD, A) == pytest.approx(2 * 3 / (5 + 5))
    # B: tp = items 3, 4, 7 = 3; predicted positives 4
    assert _micro_f(GOLD, B) == pytest.approx(2 * 3 / (4 + 5))


@pytest.fixture()
def retacred(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Re-TACRED's layout: gold one object id → label (pretty-printed, as json.dump(…, indent=1) writes it),
    predictions the same on one line and in another order."""
    gold, a, b = tmp_path / "test_id2label.json", tmp_path / "a.json", tmp_path / "b.json"
    gold.write_text(json.dumps(dict(zip(IDS, GOLD)), indent=1))
    a.write_text(json.dumps(dict(reversed(list(zip(IDS, A))))))
    b.write_text(json.dumps(dict(zip(IDS, B))))
    return gold, a, b


@pytest.mark.parametrize("words", sorted(READERS))
def test_every_reader_reads_retacred_id_label_files(
    words: str, retacred: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, a, b = retacred
    figure = words.startswith("plot")  # a figure file, no -f: its data as JSON through --data-json
    out_path, data = tmp_path / "out.png", tmp_path / "data.json"
    argv = [*READERS[words].argv(str(gold), str(a), str(b), str(out_path))]
    code = cli.main([*argv, "--data-json", str(data)] if figure else [*argv, "-f", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out = json.loads(data.read_text() if figure else captured.out)
    assert out_path.exists() == figure
    if words == "score":
        assert out["results"][0]["averages"]["micro"]["f"] == pytest.approx(_micro_f(GOLD, A), abs=1e-12)
    elif words == "compare":
        scores = out["results"][0]["scores"]
        assert scores["a"]["micro"] == pytest.approx(_micro_f(GOLD, A), abs=1e-12)
        assert scores["b"]["micro"] == pytest.approx(_micro_f(GOLD, B), abs=1e-12)


def test_an_id_label_file_is_detected_and_its_problems_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "test_id2label.json"
    gold.write_text(json.dumps(dict(zip(IDS, GOLD))))
    bad = tmp_path / "pred.json"
    bad.write_text(json.dumps({**dict(zip(IDS, A)), IDS[2]: 3}))  # a number where a label belongs
    assert cli.main(["score", str(gold), str(bad)]) == 2
    assert "record 3: field 'label': label must be a string" in capsys.readouterr().err


def _wide(path: Path, columns: dict[str, list[str]]) -> Path:
    header = ["id", *columns]
    rows = ["\t".join(header)] + ["\t".join([i, *(c[k] for c in columns.values())]) for k, i in enumerate(IDS)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_score_reads_a_wide_tsv_as_gold_and_one_system_per_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wide = _wide(tmp_path / "results.tsv", {"gold": GOLD, "cnn": A, "rbert": B})
    assert cli.main(["score", str(wide), "-f", "json"]) == 0
    results = {r["system"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    assert list(results) == ["cnn", "rbert"]
    assert results["cnn"]["averages"]["micro"]["f"] == pytest.approx(_micro_f(GOLD, A), abs=1e-12)
    assert results["rbert"]["averages"]["micro"]["f"] == pytest.approx(_micro_f(GOLD, B), abs=1e-12)
    # the same numbers and gold digest as the same data in separate files
    (tmp_path / "g.txt").write_text("".join(f"{i}\t{x}\n" for i, x in zip(IDS, GOLD)))
    (tmp_path / "cnn.txt").write_text("".join(f"{i}\t{x}\n" for i, x in zip(IDS, A)))
    assert cli.main(["score", str(tmp_path / "g.txt"), str(tmp_path / "cnn.txt"), "-f", "json"]) == 0
    single = json.loads(capsys.readouterr().out)["results"][0]
    assert single["signature"] == results["cnn"]["signature"]


def test_compare_reads_a_wide_tsv_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wide = _wide(tmp_path / "results.tsv", {"gold": GOLD, "cnn": A, "rbert": B})
    assert cli.main(["compare", str(wide), "-R", "50", "-f", "json"]) == 0
    scores = json.loads(capsys.readouterr().out)["results"][0]["scores"]
    assert scores["cnn"]["micro"] == pytest.approx(_micro_f(GOLD, A), abs=1e-12)
    assert scores["rbert"]["micro"] == pytest.approx(_micro_f(GOLD, B), abs=1e-12)


def test_a_wide_tsvs_systems_get_every_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each column goes through the input stage: a column equal to gold is warned of, a column with a score glued
    to its labels is refused, naming the column."""
    wide = _wide(tmp_path / "results.tsv", {"gold": GOLD, "copy": GOLD, "cnn": A})
    assert cli.main(["score", str(wide)]) == 0
    assert "warning (copy): predictions equal gold" in capsys.readouterr().err
    wide = _wide(tmp_path / "results.tsv", {"gold": GOLD, "cnn": [f"{x} 0.9" for x in A]})
    assert cli.main(["score", str(wide)]) == 2
    err = capsys.readouterr().err
    assert f"{wide} (column cnn)" in err and "end in trailing junk" in err


def test_a_wide_tsv_given_as_predictions_takes_one_named_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wide = _wide(tmp_path / "results.tsv", {"gold": GOLD, "cnn": A, "rbert": B})
    assert cli.main(["score", str(wide), str(wide)]) == 2
    assert "a wide TSV holds 2 systems (cnn, rbert)" in capsys.readouterr().err
    assert cli.main(["score", str(wide), str(wide), "--pred-label-field", "rbert", "-f", "json"]) == 0
    f = json.loads(capsys.readouterr().out)["results"][0]["averages"]["micro"]["f"]
    assert f == pytest.approx(_micro_f(GOLD, B), abs=1e-12)


def test_no_prediction_file_and_no_wide_tsv_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "g.txt"
    gold.write_text("".join(f"{i}\t{x}\n" for i, x in zip(IDS, GOLD)))
    for command in ("score", "compare"):
        assert cli.main([command, str(gold)]) == 2
        err = capsys.readouterr().err
        assert f"{command} needs prediction files" in err and "wide TSV" in err and "Traceback" not in err


def test_a_ragged_wide_row_is_refused_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wide = tmp_path / "results.tsv"
    wide.write_text("id\tgold\tcnn\na\tx\tx\nb\ty\n")
    assert cli.main(["score", str(wide)]) == 2
    assert f"{wide}:3: 2 columns, header has 3" in capsys.readouterr().err
