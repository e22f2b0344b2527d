"""The score and stats commands end to end: specific numbers, formats, signatures, and a light start-up."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.conftest import EXAMPLES, SEMEVAL_TRAIN_KEY, data_path, one_result

import releval
from releval.cli import main
from releval.core.signature import FIELDS, Signature, parse

KEY = EXAMPLES / "semeval2010_task8" / "test_key_directed.txt"
RBERT = EXAMPLES / "semeval2010_task8" / "onehaitao_rbert.txt"
CNN = EXAMPLES / "semeval2010_task8" / "onehaitao_cnn.txt"


def test_bundled_example_text(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's main command: R-BERT directed micro 89.48 and macro 82.81 (metrics notes §1.3), one line per
    system; with --per-class the per-class block, R-BERT's micro P and R too."""
    assert main(["score", str(KEY), str(RBERT), str(CNN)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["system"] == ["micro", "weighted", "dodrans", "entropy", "macro", "accuracy"]
    assert rows["onehaitao_rbert"][0] == "89.48" and rows["onehaitao_rbert"][4] == "82.81"
    assert "negative class 'Other' detected automatically" in out
    assert out.count("signature: ") == 1  # both systems share it
    assert main(["score", str(KEY), str(RBERT), str(CNN), "--per-class"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["micro"][:3] == ["88.06", "90.94", "89.48"]
    assert out.count("signature (") == 2


def test_json_output_round_trips(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["score", str(KEY), str(RBERT), "--format", "json", "-o", str(out), "--width", "4"]) == 0
    data = one_result(json.loads(out.read_text()))
    assert data["averages"]["micro"]["f"] == pytest.approx(releval.score(KEY, RBERT)["micro"].f, abs=0)
    assert data["n"] == 2717 and data["negative"] == "Other"
    sig = parse(data["signature"])
    assert sig == parse(data["signature_short"])
    assert (sig["task"], sig["negative"], sig["missing"], sig["n"]) == ("rc", "Other", "error", "2717")


def test_csv_markdown_latex(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(KEY), str(RBERT), "-f", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    macro = next(r for r in rows if r["label"] == "macro")
    assert float(macro["f"]) == pytest.approx(releval.score(KEY, RBERT)["macro"].f)
    assert main(["score", str(KEY), str(RBERT), "-f", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("| label | P | R | F1 | support |") and "| **macro** | 82.06 | 83.72 | 82.81 | 2263 |" in md
    assert main(["score", str(KEY), str(RBERT), "-f", "latex"]) == 0
    tex = capsys.readouterr().out
    assert "\\toprule" in tex and "macro & 82.06 & 83.72 & 82.81 & 2263 \\\\" in tex


def test_undirected_view_and_no_negative(capsys: pytest.CaptureFixture[str]) -> None:
    undirected = releval.score(KEY, RBERT, view="undirected")
    assert len([r for r in undirected.per_class if r.positive]) == 9
    assert undirected.signature["view"] == "undirected"
    with_other = releval.score(KEY, RBERT, negative=None)
    assert with_other["micro"].f == pytest.approx(with_other.accuracy)  # every class positive: micro-F = accuracy
    assert main(["score", str(KEY), str(RBERT), "--no-negative", "-f", "json"]) == 0
    assert one_result(json.loads(capsys.readouterr().out))["negative"] is None


def test_bad_option_values_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(KEY), str(RBERT), "--on-missing", "maybe"]) == 2
    assert "'maybe' is not one of error, negative, wrong" in capsys.readouterr().err
    assert main(["score", str(KEY), "/nonexistent/pred.txt"]) == 2
    assert "/nonexistent/pred.txt: file not found" in capsys.readouterr().err


def test_stats_reproduce_harbecke_table_1(capsys: pytest.CaptureFixture[str]) -> None:
    """Train (train_key_directed.txt, the scorer's answer_key2.txt: TRAIN_FILE.TXT's labels) and test (the official
    4-line blocks)."""
    train = SEMEVAL_TRAIN_KEY
    test_full = data_path("semeval2010_task8", "TEST_FILE_FULL.TXT")
    assert main(["stats", str(train), str(test_full), "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    test = {r["view"]: r for r in rows if r["name"].endswith("TEST_FILE_FULL.TXT")}
    total = {r["view"]: r for r in rows if r["name"] == "total"}
    assert [round(test["directed"][k], 2) for k in ("perplexity", "perplexity_without_negative", "ratio")] == [
        14.45,
        14.37,
        291.0,
    ]
    assert [round(test["undirected"][k], 2) for k in ("perplexity", "perplexity_without_negative", "ratio")] == [
        9.61,
        8.80,
        2.10,
    ]
    assert total["directed"]["samples"] == 10717 and round(total["directed"]["negative_percent"], 1) == 17.4
    assert (total["directed"]["relations"], total["undirected"]["relations"]) == (19, 10)


def test_stats_text_on_bundled_key(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(KEY)]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "directed " in ln and "undirected" not in ln)
    assert line.split()[2:] == ["19", "2,717", "16.7", "14.45", "14.37", "291"]


@given(
    st.dictionaries(
        st.sampled_from(sorted(set(FIELDS) - {"version"})),
        st.text(min_size=1, max_size=12).filter(lambda s: s == s.strip()),
        min_size=1,
    )
)
def test_signature_round_trip(values: dict[str, str]) -> None:
    sig = Signature.build(**values)
    assert parse(sig.format()) == sig
    assert parse(sig.format(short=True)) == sig


def test_signature_differences() -> None:
    a = Signature.build(task="e2e", criterion="strict", n=10)
    b = Signature.build(task="e2e", criterion="boundaries", n=10)
    assert a.differences(b) == {"criterion": ("strict", "boundaries")}
    with pytest.raises(ValueError, match="unknown signature key 'bogus'"):
        parse("bogus:1")


def test_cli_start_up_stays_light() -> None:
    """Scoring must not pay for SciPy/statsmodels/matplotlib imports: command modules import them lazily."""
    heavy = "('scipy', 'statsmodels', 'matplotlib', 'pandas')"
    code = f"import sys, releval.cli; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_public_api_names_resolve() -> None:
    """Every name in releval.__all__ resolves, lazily imported statistics included."""
    missing = [name for name in releval.__all__ if not hasattr(releval, name)]
    assert missing == []
    assert releval.partial_conjunction_pvalues([0.01, 0.04], "bonferroni").tolist() == [0.02, 0.04]


def test_to_frame_matches_to_dict() -> None:
    result = releval.score(KEY, RBERT)
    frame = result.to_frame()
    data = result.to_dict()
    assert frame.loc["macro", "f"] == pytest.approx(data["averages"]["macro"]["f"])
    assert int(frame.loc["Other", "support"]) == 454
    assert len(frame) == len(data["per_class"]) + len(data["averages"])


def test_console_entry_exit_codes_and_flushed_output(tmp_path: Path) -> None:
    """`python -m releval` leaves through os._exit: output must still be complete and the exit code kept."""
    ok = subprocess.run(
        [sys.executable, "-m", "releval", "score", str(KEY), str(RBERT), "-f", "csv"], capture_output=True, text=True
    )
    assert ok.returncode == 0
    rows = list(csv.DictReader(io.StringIO(ok.stdout)))
    assert len(rows) == len(releval.score(KEY, RBERT).per_class) + 5 + 1
    bad = subprocess.run(
        [sys.executable, "-m", "releval", "score", str(KEY), str(tmp_path / "nope.txt")], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "nope.txt: file not found" in bad.stderr


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown", "latex"])
def test_negative_fill_warns_in_every_format(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A prediction file without its last 217 items, filled with the negative class: the warning reaches stderr
    in every format, and the written document in every format but text (issue 12: a fill is never silent)."""
    lines = RBERT.read_text(encoding="utf-8").splitlines(keepends=True)
    part = tmp_path / "part.txt"
    part.write_text("".join(lines[:2500]), encoding="utf-8")
    out = tmp_path / f"out.{fmt}"
    assert main(["score", str(KEY), str(part), "--on-missing", "negative", "-f", fmt, "-o", str(out)]) == 0
    message = "217 missing prediction(s) filled with 'Other'"
    assert message in capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    if fmt == "json":
        (warning,) = one_result(json.loads(text))["warnings"]
        assert warning["code"] == "missing-filled-negative" and warning["message"].startswith(message)
    elif fmt == "csv":
        assert text.splitlines()[0].startswith(f"# warning: part: {message}")
    elif fmt == "text":
        assert message not in text  # text leaves warnings to stderr, once
    else:
        assert message in text


def test_negative_fill_warns_in_python() -> None:
    """The Python API repeats the result's warning through warnings.warn, with releval's category."""
    gold = {f"i{k}": ("r" if k % 2 else "no_relation") for k in range(10)}
    pred = {k: v for k, v in gold.items() if k != "i0"}
    with pytest.warns(releval.RelevalWarning, match="1 missing prediction"):
        result = releval.score(gold, pred, on_missing="negative")
    assert [w.code for w in result.warnings] == ["missing-filled-negative"]
    assert result.signature["missing"] == "negative"
