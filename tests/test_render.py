"""The table model (releval.core.table) and its renderers (releval.report.render): exact output of every format,
raw values in CSV, pure-ASCII LaTeX that compiles, escaping, warnings kept out of the text document."""

from __future__ import annotations

import csv
import doctest
import io
import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

import releval.core.table
from releval.cli import main
from releval.core.errors import OptionError
from releval.core.options import OUTPUT_FORMATS
from releval.core.table import Column, Table, attach
from releval.report.render import latex_escape, render, render_json, warnings_of

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "semeval2010_task8"


def sample() -> Table:
    return Table(
        "Scores | demo",
        (
            Column("system"),
            Column("F1", "percent", key="f1"),
            Column("Δ", "signed-percent", key="delta"),
            Column("95% CI", "signed-interval", key="ci"),
            Column("p", "p"),
            Column("n", "count"),
        ),
        [
            ("a_b", 0.80051, 0.0123, (-0.0104, 0.0351), 0.00004, 12345),
            ("c|d", 0.5, float("nan"), None, None, 7),
        ],
        rule_before=[1],
        notes=["n ≥ 2 & 50%"],
        warnings=["3 missing prediction(s) filled"],
        signature="task:rc|n:2",
    )


TEXT = """\
== Scores | demo ==
system     F1      Δ          95% CI         p       n
------  -----  -----  --------------  --------  ------
a_b     80.05  +1.23  [-1.04, +3.51]  4.00e-05  12,345

c|d     50.00      –               –         –       7

note: n ≥ 2 & 50%
signature: task:rc|n:2
"""

MARKDOWN = """\
**Scores \\| demo**[^1]

| system | F1 | Δ | 95% CI | p | n |
|---|---:|---:|---:|---:|---:|
| a_b | 80.05 | +1.23 | [-1.04, +3.51] | 4.00e-05 | 12,345 |
| **c\\|d** | 50.00 | – | – | – | 7 |

- n ≥ 2 & 50%

Signature: `task:rc|n:2`

[^1]: Warning: 3 missing prediction(s) filled
"""

LATEX = r"""% Scores | demo
% warning: 3 missing prediction(s) filled
\begin{tabular}{lrrrrr}
\toprule
system & F1 & $\Delta$ & 95\% CI & p & n \\
\midrule
a\_b & 80.05 & +1.23 & [-1.04, +3.51] & 4.00e-05 & 12,345 \\
\midrule
c$|$d & 50.00 & -- & -- & -- & 7 \\
\bottomrule
\end{tabular}
{\footnotesize\textit{Warning:} 3 missing prediction(s) filled\par}
% note: n >= 2 & 50%
% signature: task:rc|n:2
"""

CSV = """\
# warning: 3 missing prediction(s) filled
# note: n ≥ 2 & 50%
system,f1,delta,ci_low,ci_high,p,n,signature
a_b,0.80051,0.0123,-0.0104,0.0351,4e-05,12345,task:rc|n:2
c|d,0.5,,,,,7,task:rc|n:2
"""


@pytest.mark.parametrize(("fmt", "expected"), [("text", TEXT), ("markdown", MARKDOWN), ("latex", LATEX), ("csv", CSV)])
def test_every_format_renders_the_sample_exactly(fmt: str, expected: str) -> None:
    assert render([sample()], fmt) == expected


def test_width_sets_the_decimals_of_percentages_only() -> None:
    out = render([sample()], "text", width=0)
    assert "a_b     80  +1  [-1, +4]  4.00e-05  12,345" in out.splitlines()
    assert render([sample()], "csv", width=0) == CSV  # CSV carries the raw values whatever the width


def test_csv_values_read_back_as_the_exact_floats() -> None:
    values = [0.1 + 0.2, 1 / 3, 2.5e-300, -0.0, 123456789.123456789, 0.80051]
    table = Table("", (Column("x", "percent"), Column("ci", "percent-interval")), [(v, (v, -v)) for v in values])
    rows = list(csv.DictReader(io.StringIO(render([table], "csv"))))
    assert [float(r["x"]) for r in rows] == values
    assert [(float(r["ci_low"]), float(r["ci_high"])) for r in rows] == [(v, -v) for v in values]


def test_warnings_are_in_markdown_latex_and_csv_but_not_in_the_text_document() -> None:
    warning = "3 missing prediction(s) filled"
    assert warning not in render([sample()], "text")
    for fmt in ("markdown", "latex", "csv"):
        assert warning in render([sample()], fmt), fmt
    assert warnings_of([sample(), sample()]) == [warning]  # for the caller to print, once


def test_missing_values_are_a_dash_in_text_and_empty_in_csv() -> None:
    table = Table("", (Column("name"), Column("f", "fraction"), Column("t", "number")), [("x", None, math.nan)])
    assert render([table], "text").splitlines()[-1] == "x     –  –"
    assert render([table], "csv").splitlines()[-1] == "x,,"
    blank = Table("", (Column("theory", "number", missing=""),), [(None,)])
    assert render([blank], "text").splitlines()[-1] == ""


def test_markdown_escapes_the_pipe_and_markup() -> None:
    table = Table("p* | q", (Column("a|b"),), [("x|y*z`<tag>",)])
    out = render([table], "markdown")
    assert "**p\\* \\| q**" in out
    assert "| a\\|b |" in out and "| x\\|y\\*z\\`\\<tag> |" in out


SPECIALS = "\\ & % $ # _ { } ~ ^ < > |"
UNICODE = "Δ − ± ≥ ≤ ≈ – — ² × ½ → ’ ‘ “ ” · √ μ σ χ β δ λ ε Σ § … † ∗ ✗ ✓ ⌈ ⌉ ∞ ∈ ≠ ∝ ₁ ₂ ⁻³ é ü ç ñ Å ø ß ﬁ x̄ 中 ٠"


def test_latex_is_pure_ascii_with_every_special_escaped() -> None:
    assert latex_escape(SPECIALS) == (
        r"\textbackslash{} \& \% \$ \# \_ \{ \} \textasciitilde{} \textasciicircum{} $<$ $>$ $|$"
    )
    assert latex_escape("Δ = A−B, ±, ≥, ≈, –, —, ², ×, ½, →, ’") == (
        r"$\Delta$ = A$-$B, $\pm$, $\geq$, $\approx$, --, ---, $^{2}$, $\times$, $\frac{1}{2}$, $\rightarrow$, '"
    )
    assert latex_escape("é ≠ 中 a--b") == r"\'{e} $\neq$ [U+4E2D] a-{}-b"
    table = Table(f"{UNICODE} {SPECIALS}", (Column(UNICODE), Column("v", "percent-sd")), [(SPECIALS, (0.5, 0.01))])
    table = attach([table], signature=f"sig {UNICODE}", warnings=[UNICODE], notes=[UNICODE + " ^^M"])[0]
    out = render([table], "latex")
    assert out.isascii()
    assert "^^" not in out  # TeX would read ^^M in a comment as a line end
    assert r"50.00$\pm$1.00" in out


def _compile(tex: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    doc = "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + tex + "\\end{document}\n"
    (tmp_path / "t.tex").write_text(doc, encoding="ascii")
    return subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


NO_PDFLATEX = pytest.mark.skipif(
    shutil.which("pdflatex") is None, reason="pdflatex is not installed (Debian: texlive-latex-recommended)"
)


@NO_PDFLATEX
def test_latex_compiles_with_pdflatex(tmp_path: Path) -> None:
    hostile = Table(
        f"{UNICODE} {SPECIALS}",
        (Column(UNICODE), Column("v", "percent-sd"), Column("ci", "signed-interval")),
        [(SPECIALS, (0.5, 0.01), (-0.1, 0.2)), (UNICODE, None, None)],
        rule_before=[1],
        warnings=[f"{UNICODE} {SPECIALS}"],
        notes=[f"{UNICODE} {SPECIALS} ^^M"],
        signature=(("a", "x|y"), ("b", UNICODE)),
    )
    done = _compile(render([sample(), hostile, Table("prose only", lead=["- a", "- b"])], "latex"), tmp_path)
    assert done.returncode == 0, done.stdout[-3000:]


def test_a_run_of_equal_signatures_prints_once_after_the_last_table() -> None:
    a = Table("A", (Column("x", "count"),), [(1,)])
    b = Table("B", (Column("y", "count"),), [(2,)])
    tables = attach([a, b], signature="task:rc", notes=["about y"])
    text = render(tables, "text")
    assert text.count("signature: task:rc") == 1 and text.endswith("note: about y\nsignature: task:rc\n")
    assert render(tables, "latex").count("% signature: task:rc") == 1
    assert render(tables, "markdown").count("Signature: `task:rc`") == 1


def test_csv_of_tables_with_different_columns_names_each_line_s_table() -> None:
    a = Table("A", (Column("x", "count"),), [(1,)], signature="s1")
    b = Table("B", (Column("x", "count"), Column("ci", "interval")), [(2, (0.1, 0.2))], signature="s2")
    assert render([a, b], "csv") == "table,x,ci_low,ci_high,signature\nA,1,,,s1\nB,2,0.1,0.2,s2\n"
    same = Table("C", (Column("x", "count"),), [(3,)])
    assert render([a, same], "csv") == "x,signature\n1,s1\n3,\n"


def test_display_and_data_parts() -> None:
    shown = Table("shown", (Column("a"), Column("raw", "number", show="data")), [("x", 0.5)], show="display")
    data = Table("", (Column("k"), Column("v")), [("n", 3)], show="data")
    assert render([shown, data], "text") == "== shown ==\na\n-\nx\n"
    assert render([shown, data], "csv") == "k,v\nn,3\n"


def test_several_signatures_side_by_side() -> None:
    table = Table("", (Column("label"),), [("x",)], signature=(("cnn", "task:rc|a"), ("rbert", "task:rc|b")))
    text = render([table], "text")
    assert "signature (cnn): task:rc|a\nsignature (rbert): task:rc|b\n" in text
    assert render([table], "csv").splitlines()[1] == "x,cnn=task:rc|a ; rbert=task:rc|b"


def test_score_table_shape_can_be_expressed() -> None:
    """What the score tables need: P/R/F of several systems side by side, a support column, a rule above the
    averages and an interval for some averages only."""
    columns = [Column("label", align="right")]
    for system in ("cnn", "rbert"):
        columns += [Column(f"{system} {m}", "percent", key=f"{system}_{m.lower()}") for m in ("P", "R", "F1")]
    columns += [Column("F1 95% CI", "percent-interval", key="f1_ci", missing=""), Column("support", "count")]
    rows = [
        ("Cause-Effect(e1,e2)", 0.9, 0.8, 0.85, 0.95, 0.9, 0.925, None, 134),
        ("micro", 0.8, 0.81, 0.805, 0.9, 0.89, 0.895, (0.79, 0.82), 2263),
        ("macro", 0.7, 0.71, 0.705, 0.8, 0.79, 0.795, None, 2263),
    ]
    table = Table("", columns, rows, rule_before=[1])
    text = render([table], "text").splitlines()
    assert text[3] == "" and text[4].startswith("              micro  80.00")
    assert text[4].endswith("[79.00, 82.00]    2,263")
    assert "\\midrule\nmicro & 80.00" in render([table], "latex")
    assert "| **micro** | 80.00 |" in render([table], "markdown")


def test_bad_tables_and_formats_are_refused() -> None:
    with pytest.raises(ValueError, match="row 0 has 1 cells for 2 columns"):
        Table("t", (Column("a"), Column("b")), [("x",)])
    with pytest.raises(ValueError, match="kind must be one of"):
        Column("a", "percentage")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rule_before 5"):
        Table("t", (Column("a"),), [("x",)], rule_before=[5])
    with pytest.raises(OptionError, match="^format: "):
        render([sample()], "json")
    with pytest.raises(OptionError, match="^width "):
        render([sample()], "text", width=-1)


def test_render_json_is_strict() -> None:
    expected = '{\n  "t": null,\n  "Δ": [\n    1.5,\n    null\n  ]\n}\n'
    assert render_json({"t": math.nan, "Δ": [1.5, math.inf]}) == expected


def test_module_examples() -> None:
    assert doctest.testmod(releval.core.table).failed == 0


# ----------------------------------------------------------------------------------------------- commands


def test_compare_csv_carries_fractions_and_the_signature(capsys: pytest.CaptureFixture[str]) -> None:
    gold, cnn, rbert = (EXAMPLES / f for f in ("test_key_directed.txt", "onehaitao_cnn.txt", "onehaitao_rbert.txt"))
    args = ["compare", str(gold), "-s", f"cnn={cnn}", "-s", f"rbert={rbert}", "-R", "200", "-w", "macro"]
    assert main([*args, "-f", "csv", "--no-progress"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # warnings lead the document as "# warning: …" rows (here: SemEval's class of one gold item under macro)
    assert lines[0].startswith("# warning: macro averages over 1 class with fewer than 5 gold items")
    rows = list(csv.DictReader(line for line in lines if not line.startswith("# warning: ")))
    assert [(r["pair"], r["a"], r["b"], r["average"]) for r in rows] == [
        ("cnn vs rbert", "cnn", "rbert", "micro"),
        ("cnn vs rbert", "cnn", "rbert", "macro"),
    ]
    for r in rows:
        assert 0 < float(r["score_a"]) < float(r["score_b"]) < 1
        assert float(r["delta"]) == pytest.approx(float(r["score_a"]) - float(r["score_b"]), abs=1e-12)
        assert float(r["delta_ci_low"]) < float(r["delta"]) < float(r["delta_ci_high"])
        assert "resamples:200" in r["signature"]


def test_check_stats_csv_carries_intervals_and_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-stats", "--a", "72.5±0.3", "--b", "71.5±0.4", "--claimed-d", "5.0", "-f", "csv"]) == 1
    out = capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(out[out.index("comparison,") :])))
    assert [r["reading"] for r in rows] == ["sample", "population"]
    assert [r["d_consistent"] for r in rows] == ["False", "False"] and rows[0]["p_consistent"] == ""
    assert float(rows[0]["t_low"]) < float(rows[0]["t_high"]) and rows[0]["n_a"] == "5"
    assert rows[0]["signature"].startswith("n:5|test:welch:two-sided")


@NO_PDFLATEX
def test_command_latex_compiles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold, cnn, rbert = (EXAMPLES / f for f in ("test_key_directed.txt", "onehaitao_cnn.txt", "onehaitao_rbert.txt"))
    assert main(["check-stats", "--a", "72.5±0.3", "--b", "71.5±0.4", "--claimed-d", "2.8", "-f", "latex"]) == 0
    assert main(["compare", str(gold), "-s", f"cnn={cnn}", "-s", f"rbert={rbert}", "-R", "50", "-f", "latex"]) == 0
    tex = capsys.readouterr().out
    assert tex.isascii()
    done = _compile(tex, tmp_path)
    assert done.returncode == 0, done.stdout[-3000:]


def _micro_by_hand(key: Path, pred: Path) -> float:
    """Micro-F1 of a SemEval prediction file, Other excluded, counted item by item."""
    gold = dict(line.split("\t") for line in key.read_text().splitlines())
    tp = n_pred = n_gold = 0
    for line in pred.read_text().splitlines():
        item, label = line.split("\t")
        tp += label == gold[item] != "Other"
        n_pred += label != "Other"
    n_gold = sum(label != "Other" for label in gold.values())
    return 2 * tp / (n_pred + n_gold)


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
@pytest.mark.parametrize("command", ["score", "compare"])
def test_every_output_format_renders_scores_and_comparisons(
    fmt: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every name of the one list of output formats (core/options.py) renders through the registry
    (releval.report.formats) — a new format is tested here without being named — with the numbers counted by hand."""
    semeval = Path(__file__).resolve().parents[1] / "examples" / "semeval2010_task8"
    key, systems = semeval / "test_key_directed.txt", [semeval / f"onehaitao_{n}.txt" for n in ("rbert", "cnn")]
    argv = [command, str(key), *map(str, systems), "-f", fmt] + (["-R", "50"] if command == "compare" else [])
    assert main(argv) == 0
    out = capsys.readouterr().out
    expected = [_micro_by_hand(key, s) for s in systems]
    if fmt == "json":
        doc = json.loads(out)
        got = (
            [r["averages"]["micro"]["f"] for r in doc["results"]]
            if command == "score"
            else [doc["results"][0]["scores"][f"onehaitao_{n}"]["micro"] for n in ("rbert", "cnn")]
        )
        assert got == pytest.approx(expected, abs=1e-12)
    elif fmt == "csv":
        values = {float(v) for row in csv.reader(x for x in out.splitlines() if not x.startswith("#")) for v in row
                  if v.replace(".", "", 1).isdigit()}  # fmt: skip
        assert all(any(abs(v - f) < 1e-12 for v in values) for f in expected)
    else:
        assert all(f"{100 * f:.2f}" in out for f in expected)
