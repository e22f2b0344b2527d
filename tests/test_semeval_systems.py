"""`releval score --task semeval-official` with many systems: one line each, every format, the perl report.

Oracle: the official perl scorer v1.2 (semeval2010_task8_scorer-v1.2.pl), run outside the package on the five
bundled systems and on six made-up variants of them that `make_variants` writes; its printed macro-F1 of the
three evaluations, and its whole output for three files, are in testvectors/semeval2010_systems_perl.json
(tests/data/README.md says how they were made). Each variant's sha256 is stored with its numbers, so a change in
`make_variants` fails here instead of comparing against numbers of other bytes.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SEMEVAL_KEY, data_path, semeval_predictions

import releval
from releval.cli import main
from releval.core.notices import RelevalWarning
from releval.data.semeval_labels import DIRECTED, OTHER

VECTORS = ("testvectors", "semeval2010_systems_perl.json")
BUNDLED = ("attblstm", "attcnn", "cnn", "crcnn", "rbert")
SCORE = ["score", "--task", "semeval-official"]
COLUMNS = ("official", "19-way", "undirected")


def _lines(path: Path) -> list[tuple[str, str]]:
    return [tuple(line.split("\t")) for line in path.read_text(encoding="utf-8").splitlines()]  # type: ignore[misc]


def _write(path: Path, items: list[tuple[str, str]], newline: str = "\n") -> Path:
    path.write_bytes("".join(f"{i}\t{label}{newline}" for i, label in items).encode("utf-8"))
    return path


def _flip(label: str) -> str:
    return label.replace("(e1,e2)", "(e2,e1)") if "(e1,e2)" in label else label.replace("(e2,e1)", "(e1,e2)")


def make_variants(directory: Path) -> dict[str, Path]:
    """Six made-up systems from the bundled predictions (deterministic: the same bytes on every run).

    rbert_skip10: every 10th line dropped (271 key items skipped); cnn_flipped: every 4th relation prediction in
    the other direction; attcnn_other3: every 3rd prediction Other; crcnn_reversed_crlf: the lines in reverse order
    with CRLF endings; attblstm_shift5: every 5th prediction the next of the 19 directed labels; all_other: Other
    everywhere.
    """
    rbert, cnn, attcnn = (_lines(semeval_predictions(s)) for s in ("rbert", "cnn", "attcnn"))
    crcnn, attblstm = _lines(semeval_predictions("crcnn")), _lines(semeval_predictions("attblstm"))
    relations = [k for k, (_, label) in enumerate(cnn) if label != OTHER]
    flipped = set(relations[::4])
    nxt = {label: DIRECTED[(k + 1) % len(DIRECTED)] for k, label in enumerate(DIRECTED)}
    return {
        "rbert_skip10": _write(directory / "rbert_skip10.txt", [x for k, x in enumerate(rbert) if k % 10 != 9]),
        "cnn_flipped": _write(
            directory / "cnn_flipped.txt", [(i, _flip(y) if k in flipped else y) for k, (i, y) in enumerate(cnn)]
        ),
        "attcnn_other3": _write(
            directory / "attcnn_other3.txt", [(i, OTHER if k % 3 == 2 else y) for k, (i, y) in enumerate(attcnn)]
        ),
        "crcnn_reversed_crlf": _write(directory / "crcnn_reversed_crlf.txt", crcnn[::-1], "\r\n"),
        "attblstm_shift5": _write(
            directory / "attblstm_shift5.txt",
            [(i, nxt[y] if k % 5 == 4 else y) for k, (i, y) in enumerate(attblstm)],
        ),
        "all_other": _write(directory / "all_other.txt", [(i, OTHER) for i, _ in rbert]),
    }


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    made = make_variants(tmp_path_factory.mktemp("semeval_variants"))
    for name, path in made.items():  # the bytes the perl scorer was run on
        assert hashlib.sha256(path.read_bytes()).hexdigest() == _perl(name)["sha256"], name
    return made


def _systems(variants: dict[str, Path]) -> list[tuple[str, Path]]:
    """The 11 systems: the 5 bundled ones (named by their files) and the 6 variants (named NAME=PATH)."""
    return [(f"onehaitao_{s}", semeval_predictions(s)) for s in BUNDLED] + list(variants.items())


def _argv(variants: dict[str, Path]) -> list[str]:
    bundled = [str(semeval_predictions(s)) for s in BUNDLED]
    return [*bundled, *(f"{name}={path}" for name, path in variants.items())]


@cache
def _vectors() -> dict[str, Any]:
    systems: dict[str, Any] = json.loads(data_path(*VECTORS).read_text(encoding="utf-8"))["systems"]
    return systems


def _perl(name: str) -> dict[str, str]:
    """The perl scorer's numbers (and, for some, its whole output) for a system or variant."""
    return _vectors()[name.removeprefix("onehaitao_")]  # type: ignore[no-any-return]


def test_eleven_systems_print_one_line_each_with_the_perl_scorers_numbers(
    variants: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*SCORE, "--on-missing", "wrong", str(SEMEVAL_KEY), *_argv(variants)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    rule = next(k for k, line in enumerate(lines) if line.startswith("------"))
    assert lines[rule - 1].split() == ["system", *COLUMNS]
    rows = lines[rule + 1 : lines.index("", rule)]
    assert len(rows) == 11
    systems = _systems(variants)
    for row, (name, _) in zip(rows, systems):
        cells = row.split()
        assert cells[0] == name  # NAME=PATH names the row; a plain PATH is named by its file
        assert cells[1:] == [_perl(name)[c] for c in COLUMNS], name
    # the one warning (271 items of rbert_skip10 skipped) is one line on stderr, no Python source line
    assert err.splitlines() == ["warning (rbert_skip10): 271 of 2717 key item(s) skipped (no prediction)"]
    assert re.search(r"^signature: t:semeval-official\|.*\|miss:skip\|.*\|n:2717\|", out, re.M)


def test_every_output_format_renders_the_eleven_systems(variants: dict[str, Path], tmp_path: Path) -> None:
    systems = _systems(variants)
    outputs = {}
    for fmt in ("text", "json", "markdown", "latex", "csv"):
        target = tmp_path / f"out.{fmt}"
        argv = [*SCORE, "--on-missing", "wrong", "-f", fmt, "-o", str(target), str(SEMEVAL_KEY), *_argv(variants)]
        assert main(argv) == 0, fmt
        outputs[fmt] = target.read_text(encoding="utf-8")
    # CSV: the warnings as `#` lines, then one line per system with fractions, counts, warning codes and signature
    text = outputs["csv"]
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert comments == ["# warning: rbert_skip10: 271 of 2717 key item(s) skipped (no prediction)"]
    rows = list(csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#")))
    assert [r["system"] for r in rows] == [name for name, _ in systems]
    for row in rows:
        perl = _perl(row["system"])
        for key, column in zip(("official_macro_f1", "macro_f1_19_way", "undirected_macro_f1"), COLUMNS):
            assert f"{100 * float(row[key]):.2f}" == perl[column]
        skipped = 271 if row["system"] == "rbert_skip10" else 0
        assert (row["n"], row["skipped"], row["filled"]) == ("2717", str(skipped), "0")
        assert row["warnings"] == ("missing-skipped" if skipped else "")
        assert row["signature"].startswith("task:semeval-official|view:official|")
    # JSON: the envelope of every score, one result per system, each with its warnings as {code, message}
    data = json.loads(outputs["json"])
    assert (data["kind"], data["task"]) == ("score", "semeval-official")
    assert [r["system"] for r in data["results"]] == [name for name, _ in systems]
    for result in data["results"]:
        perl = _perl(result["system"])
        views = result["views"]
        got = (result["official_score"], views["directed"]["macro_excluding_other"]["f1"])
        got += (views["undirected"]["macro_excluding_other"]["f1"],)
        assert [f"{x:.2f}" for x in got] == [perl[c] for c in COLUMNS]
        codes = [w["code"] for w in result["warnings"]]
        assert codes == (["missing-skipped"] if result["system"] == "rbert_skip10" else [])
    # Markdown and LaTeX: one table row per system with the scorer's numbers, the warning as a footnote
    for fmt, prefix, sep in (("markdown", "| ", " | "), ("latex", "", " & ")):
        body = []
        for name, _ in systems:
            shown = name.replace("_", "\\_") if fmt == "latex" else name
            line = next(x for x in outputs[fmt].splitlines() if x.startswith(f"{prefix}{shown}{sep}"))
            for column in COLUMNS:
                assert f"{sep}{_perl(name)[column]}" in line, (fmt, name, column)
            body.append(line)
        assert len(body) == 11
        assert "271 of 2717 key item(s) skipped" in outputs[fmt]
    assert len([x for x in outputs["text"].splitlines() if x.startswith(("onehaitao_", *variants))]) == 11


def test_perl_report_is_the_scorers_output_for_one_and_several_systems(
    variants: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    cnn = semeval_predictions("cnn")
    assert main([*SCORE, "--perl-report", str(SEMEVAL_KEY), str(cnn)]) == 0
    out, err = capsys.readouterr()
    assert out == _perl("cnn")["stdout"]
    assert err.startswith("signature: t:semeval-official|") and len(err.splitlines()) == 1
    argv = [*SCORE, "--perl-report", "--on-missing", "wrong", str(SEMEVAL_KEY), f"CNN={cnn}"]
    assert main([*argv, str(variants["rbert_skip10"])]) == 0
    out, err = capsys.readouterr()
    assert out == f"==> CNN <==\n{_perl('cnn')['stdout']}\n==> rbert_skip10 <==\n{_perl('rbert_skip10')['stdout']}"
    assert err.splitlines()[0] == "warning (rbert_skip10): 271 of 2717 key item(s) skipped (no prediction)"


def test_on_missing_wrong_and_negative_are_the_scorer_on_the_file_as_given_and_completed_with_other(
    variants: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    skip10 = str(variants["rbert_skip10"])
    reports = {}
    for choice in ("wrong", "negative"):
        assert main([*SCORE, "--perl-report", "--on-missing", choice, str(SEMEVAL_KEY), skip10]) == 0
        reports[choice] = capsys.readouterr()
    assert reports["wrong"].out == _perl("rbert_skip10")["stdout"]  # perl on the file as given: skipped
    assert reports["negative"].out == _perl("rbert_skip10_completed_with_other")["stdout"]  # 271 ids added as Other
    assert reports["wrong"].out != reports["negative"].out
    assert "miss:skip|" in reports["wrong"].err and "miss:other|" in reports["negative"].err
    assert reports["negative"].err.splitlines()[0] == (
        "warning (rbert_skip10): 271 of 2717 key item(s) scored as Other (no prediction)"
    )
    # Other is outside every average: the three macro-F1 are the scorer's and the same under both choices
    perl = _perl("rbert_skip10_completed_with_other")
    assert all(perl[c] == _perl("rbert_skip10")[c] for c in COLUMNS)
    assert main([*SCORE, "--on-missing", "negative", "-f", "csv", str(SEMEVAL_KEY), skip10]) == 0
    row = next(csv.DictReader(x for x in io.StringIO(capsys.readouterr().out) if not x.startswith("#")))
    assert f"{100 * float(row['official_macro_f1']):.2f}" == perl["official"]
    assert (row["skipped"], row["filled"], row["warnings"]) == ("0", "271", "missing-filled-negative")


def test_api_on_missing_and_its_warning(variants: dict[str, Path]) -> None:
    with pytest.warns(RelevalWarning, match="271 of 2717 key item"):
        filled = releval.score_semeval_official(SEMEVAL_KEY, variants["rbert_skip10"], on_missing="negative")
    assert [w.code for w in filled.warnings] == ["missing-filled-negative"] and filled.n_filled == 271
    assert f"{filled.scores.official.coverage:.2f}" == "100.00"
    assert f"{filled.official_score:.2f}" == _perl("rbert_skip10_completed_with_other")["official"]
    with pytest.warns(RelevalWarning, match="skipped"):
        skipped = releval.score_semeval_official(SEMEVAL_KEY, variants["rbert_skip10"], allow_skipped=True)
    assert skipped.scores.n_skipped == 271 and skipped.signature["missing"] == "skip"


def test_cli_warnings_never_go_through_pythons_warnings_module(
    variants: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The old path printed `…/commands/semeval.py:25: RelevalWarning: …` and the source line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main([*SCORE, "--on-missing", "wrong", str(SEMEVAL_KEY), str(variants["rbert_skip10"])]) == 0
    assert [str(w.message) for w in caught] == []
    err = capsys.readouterr().err
    assert err.splitlines() == ["warning (rbert_skip10): 271 of 2717 key item(s) skipped (no prediction)"]
    assert ".py" not in err


@pytest.mark.parametrize("fmt", ["json", "csv", "markdown", "latex"])
def test_perl_report_with_another_format_is_refused_in_one_line(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out"
    argv = [*SCORE, "--perl-report", "-f", fmt, "-o", str(target), str(SEMEVAL_KEY), str(semeval_predictions("cnn"))]
    assert main(argv) == 2 and not target.exists()
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--perl-report" in err and f"--format {fmt}" in err
