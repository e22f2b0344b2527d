"""`releval replicability analyze|from-predictions|simulate` end to end, asserting the paper's numbers."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from releval.cli import main
from releval.replicability.simulation import simulate

# Dror et al. (TACL 2017) Table 2: Mate vs Redshift p-values per OntoNotes genre, with the UAS difference as effect
MATE_REDSHIFT = [
    ("BC", 0.0979, 90.73 - 90.19),
    ("BN", 0.1662, 90.82 - 90.46),
    ("MZ", 0.0046, 91.92 - 90.90),
    ("NW", 0.0376, 91.68 - 90.99),
    ("PT", 0.0969, 96.64 - 96.22),
    ("TC", 0.0912, 89.87 - 88.99),
    ("WB", 0.0823, 89.89 - 89.31),
]


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "mate_redshift.csv"
    path.write_text("dataset,p,effect\n" + "".join(f"{d},{p},{e:.2f}\n" for d, p, e in MATE_REDSHIFT))
    return path


def test_analyze_text(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replicability", "analyze", str(table)]) == 0
    out = capsys.readouterr().out
    assert "A is better than B on at least 1 of 7 datasets (k_bonferroni" in out
    assert "Identified by Holm (FWER <= 0.05): 1 of 7: MZ" in out
    assert "count (naive)      2" in out and "Fisher             5  needs independent datasets" in out
    assert (
        "signature: task:replicability|n:7|alpha:0.05|methods:bonferroni,fisher,simes,id=holm|dependence:dependent"
        in out
    )


def test_analyze_independent_json(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replicability", "analyze", str(table), "--independent", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["k"] == {"count": 2, "bonferroni": 1, "fisher": 5, "simes": 1}
    assert data["recommended"] == "fisher" and data["k_recommended"] == 5
    assert data["identification"]["identified"] == ["MZ"]
    assert data["datasets"][2] == {
        "dataset": "MZ",
        "p": 0.0046,
        "effect": 1.02,
        "adjusted_p": 0.0322,
        "identified": True,
    }
    pc = data["partial_conjunction"]["fisher"]
    assert pc["raw"][4] == pytest.approx(0.04457131609200648, abs=1e-12)  # replicability_vectors.json
    assert pc["running_max"][5] == pytest.approx(0.08328093049480864, abs=1e-12)
    assert "dependence:independent" in data["signature"]


def test_analyze_alpha_01_markdown_and_latex(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replicability", "analyze", str(table), "--independent", "-a", "0.01", "-f", "markdown"]) == 0
    md = capsys.readouterr().out
    # paper footnote 13: Mate vs Redshift at alpha = .01 gives (k_count, k_Bonf, k_Fisher) = (1, 0, 2)
    assert "| count (naive) | 1 | no guarantee |  |" in md
    assert "| Bonferroni | 0 | valid |  |" in md and "| Fisher | 2 | valid | recommended |" in md
    assert "Identified by Holm (FWER <= 0.01): 0 of 7: none." in md
    assert main(["replicability", "analyze", str(table), "--per-u", "-f", "latex"]) == 0
    tex = capsys.readouterr().out
    assert r"\begin{tabular}{lrrr}" in tex and r"Bonferroni & 1 & valid & recommended \\" in tex
    assert r"3 & 0.0823 & 0.4115 & 0.01195 & 0.1224 \\" in tex  # per-u row u = 3


def test_output_file_and_methods(table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res" / "rep.json"
    assert main(["replicability", "analyze", str(table), "-m", "fdr_bh", "-f", "json", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["identification"]["method"] == "fdr_bh" and data["identification"]["controls"] == "FDR"
    assert data["datasets"][0]["adjusted_p"] == pytest.approx(0.11421666666666667, abs=1e-12)  # multitest vectors
    assert "hochberg" not in capsys.readouterr().out


def test_mixed_signs_warn_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pos.tsv"
    path.write_text("language\tp_value\tdelta\nTamil\t0.0001\t-3.42\nHungarian\t1.12e-08\t3.10\nKazakh\t0.0944\t0.31\n")
    assert main(["replicability", "analyze", str(path)]) == 0
    captured = capsys.readouterr()
    assert "warning: mixed effect signs (2 positive, 1 negative)" in captured.err
    assert "identified dataset(s) with a negative effect (B better): Tamil" in captured.err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("dataset,p\nBC,0.5\nBN,1.3\n", "bad.csv:3: field 'p': p-value '1.3' is outside [0, 1]"),
        ("dataset,p\nBC,0.5\nBC,0.1\n", "bad.csv:3: field 'dataset': duplicate dataset 'BC' (first at line 2)"),
        ("dataset,p\nBC,nan\n", "bad.csv:2: field 'p': p-value must be finite"),
        ("system,score\nBC,0.5\n", "bad.csv:1: field 'dataset': header lacks column(s) dataset, p"),
        ("dataset,p\n", "bad.csv: no datasets"),
    ],
)
def test_bad_table_exits_2_without_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(content)
    out = tmp_path / "out.json"
    assert main(["replicability", "analyze", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in " ".join(err.split()).replace(str(tmp_path) + "/", "")
    assert not out.exists() and not list(tmp_path.glob(".out.json*"))


def test_json_table_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps([{"dataset": "a", "p": 0.01}, {"dataset": "b", "p": True}]))
    assert main(["replicability", "analyze", str(path)]) == 2
    assert "field 'p': record 2: p-value must be a number, got true" in capsys.readouterr().err
    path.write_text(json.dumps({"a": 0.001, "b": 1.0}))  # edge case: a p = 1 must not force k to 0
    assert main(["replicability", "analyze", str(path), "--independent", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["k"] == {"count": 1, "bonferroni": 1, "fisher": 1, "simes": 1}


def _labels(path: Path, labels: list[str]) -> Path:
    path.write_text("".join(f"{x}\n" for x in labels))
    return path


def test_from_predictions_mcnemar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One-sided exact McNemar per dataset = P(Bin(b + c, 1/2) >= b), checked with scipy.stats.binomtest."""
    specs = {"d1": (30, 10, 60), "d2": (14, 12, 70), "d3": (25, 5, 40)}  # (b: only A right, c: only B right, both)
    args = ["replicability", "from-predictions", "-t", "mcnemar", "--input-format", "labels-lines", "-f", "json"]
    expected = {}
    for name, (b, c, both) in specs.items():
        gold = ["r1"] * (b + c + both)
        pred_a = ["r1"] * b + ["r2"] * c + ["r1"] * both
        pred_b = ["r2"] * b + ["r1"] * c + ["r1"] * both
        files = [_labels(tmp_path / f"{name}_{k}.txt", v) for k, v in (("gold", gold), ("a", pred_a), ("b", pred_b))]
        args += ["--dataset", f"{name}={','.join(map(str, files))}"]
        expected[name] = stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    got = {row["dataset"]: row["p"] for row in data["datasets"]}
    assert got == pytest.approx(expected, rel=1e-12)
    p = np.array(list(expected.values()))
    assert data["k"]["count"] == int(np.sum(p <= 0.05)) == 2
    assert data["identification"]["identified"] == ["d1", "d3"]
    assert "test:mcnemar:greater:accuracy" in data["signature"]


def test_simulate_json_matches_api(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replicability", "simulate", "--reps", "300", "--seed", "5", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    sim = simulate(300, seed=5)
    for name in ("independent", "dependent"):
        for m in ("count", "bonferroni", "fisher", "simes"):
            assert data["scenarios"][name]["p_overestimate"][m] == sim.scenarios[name].p_over(m)
    ind = data["scenarios"]["independent"]
    assert ind["theory"]["count"] == pytest.approx(1 - 0.95**100) and ind["paper"]["count"] == 0.963
    assert sum(ind["histogram"]["fisher"].values()) == 300
    assert "seed:5" in data["signature"]


def test_simulate_text_and_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fig = tmp_path / "hist.png"
    assert main(["replicability", "simulate", "--reps", "200", "--scenario", "independent", "--figure", str(fig)]) == 0
    out = capsys.readouterr().out
    assert "independent (N=100, 200 reps)  count (naive)" in out and "0.994  0.963" in out
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_simulate_figure_without_matplotlib(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    out, fig = tmp_path / "sim.json", tmp_path / "hist.png"
    code = main(["replicability", "simulate", "--reps", "10", "-o", str(out), "--figure", str(fig)])
    assert code == 2
    assert "needs matplotlib: pip install 'releval[plot]'" in capsys.readouterr().err
    assert not out.exists() and not fig.exists()


def test_from_predictions_prints_effects_in_compare_units(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33 item 6: replicability printed +0.02662 where compare prints +2.66. Each dataset's printed Δ is
    compare's printed Δ for the same gold and systems (micro, the measure both test); JSON keeps the fraction, as
    compare's JSON does, and it equals compare's `effect`; a table's `effect` column (analyze) stays as written."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    semeval, fewrel = examples / "semeval2010_task8", examples / "fewrel"
    key = semeval / "test_key_directed.txt"
    datasets = {
        "crcnn-attcnn": (key, semeval / "onehaitao_crcnn.txt", semeval / "onehaitao_attcnn.txt"),
        "rbert-cnn": (key, semeval / "onehaitao_rbert.txt", semeval / "onehaitao_cnn.txt"),
    }
    shown, fractions = {}, {}
    for name, (gold, a, b) in datasets.items():
        assert main(["compare", str(gold), f"a={a}", f"b={b}", "-R", "200"]) == 0
        row = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("a vs b") and " micro " in ln)
        shown[name] = row.split()[row.split().index("micro") + 3]  # A, B, then Δ = A−B
        assert main(["compare", str(gold), f"a={a}", f"b={b}", "-R", "200", "-f", "json"]) == 0
        pairs = json.loads(capsys.readouterr().out)["results"][0]["pairs"]
        (pair,) = [p for p in pairs if p["metric"] == "micro"]
        fractions[name] = pair["effect"]
    argv = ["replicability", "from-predictions", "-R", "200"]
    for name, files in datasets.items():
        argv += ["-d", f"{name}=" + ",".join(map(str, files))]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Δ = A−B" in out and " effect " not in out
    for name in datasets:
        row = next(ln for ln in out.splitlines() if ln.startswith(name))
        assert row.split()[2] == shown[name], (row, shown[name])
        assert shown[name] == f"{100 * fractions[name]:+.2f}"  # points: +2.66, not +0.02662
    assert main([*argv, "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["datasets"]
    assert {r["dataset"]: r["effect"] for r in rows} == pytest.approx(fractions, abs=1e-15)
    # FewRel: accuracy over episodes, the same units as compare --task fewrel
    gold, a, b = fewrel / "gold-5-1.json.gz", fewrel / "pred-between-5-1.json", fewrel / "pred-bow-5-1.json"
    assert main(["compare", "--task", "fewrel", str(gold), f"a={a}", f"b={b}", "-R", "200"]) == 0
    row = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("a vs b"))
    delta = next(c for c in row.split() if c[0] in "+-" and "." in c)
    argv = ["replicability", "from-predictions", "--task", "fewrel", "-R", "200", "-d", f"x={gold},{a},{b}"]
    assert main(argv) == 0
    assert next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("x ")).split()[2] == delta
