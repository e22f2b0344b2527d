"""`releval compare` end to end: paired and seed modes, formats, Holm, errors (exit 2, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from tests.conftest import SEMEVAL_KEY, one_result, semeval_predictions

import releval
from releval.cli import main
from releval.significance.compare import adjust, system_pairs

GOLD = ["Other", "A", "B", "A", "C", "Other", "B", "A", "C", "Other"] * 6


def _write(path: Path, labels: list[str]) -> Path:
    path.write_text("".join(f"{i + 1}\t{lab}\n" for i, lab in enumerate(labels)), encoding="utf-8")
    return path


def _variant(seed: int, keep: float) -> list[str]:
    rng = np.random.default_rng(seed)
    labels = ["Other", "A", "B", "C"]
    return [g if rng.random() < keep else str(rng.choice(labels)) for g in GOLD]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {"gold": _write(tmp_path / "gold.tsv", GOLD)}
    for name, seed, keep in (("good", 1, 0.9), ("bad", 2, 0.5), ("mid", 3, 0.7)):
        out[name] = _write(tmp_path / f"{name}.tsv", _variant(seed, keep))
        for run in range(3):
            out[f"{name}{run}"] = _write(tmp_path / f"{name}_{run}.tsv", _variant(10 * seed + run, keep))
    return out


def test_paired_json_matches_score_and_holm(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(
        [
            "compare",
            str(files["gold"]),
            "--system",
            f"good={files['good']}",
            "--system",
            f"bad={files['bad']}",
            "--system",
            f"mid={files['mid']}",
            "--test",
            "bootstrap,mcnemar",
            "-R",
            "2000",
            "--format",
            "json",
        ]
    )
    assert rc == 0
    data = one_result(json.loads(capsys.readouterr().out))
    expected = releval.score(str(files["gold"]), str(files["good"]))
    assert data["scores"]["good"]["macro"] == pytest.approx(expected["macro"].f, abs=1e-12)
    pairs = [(p["a"], p["b"]) for p in data["pairs"] if p["test"] == "bootstrap" and p["metric"] == "micro"]
    assert pairs == [("good", "bad"), ("good", "mid"), ("bad", "mid")]
    micro = [p for p in data["pairs"] if p["test"] == "bootstrap" and p["metric"] == "micro"]
    holm = multipletests([p["p_value"] for p in micro], method="holm")[1]
    assert [p["p_adjusted"] for p in micro] == pytest.approx(list(holm))
    mc = [p for p in data["pairs"] if p["test"] == "mcnemar"]
    assert len(mc) == 3 and all(p["metric"] == "accuracy" for p in mc)
    assert "resamples:2000" in data["signature"] and "seed:12345" in data["signature"]


def test_identical_systems_text(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(
        [
            "compare",
            str(files["gold"]),
            "-s",
            f"x={files['good']}",
            "-s",
            f"y={files['good']}",
            "--test",
            "randomization,sign",
            "-R",
            "500",
            "--no-progress",
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("x vs y")]
    assert len(rows) == 6  # 5 averages + sign
    assert all(line.split()[-2:] == ["1.0000", "1.0000"] for line in rows)


def test_seed_mode_matches_scipy(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    good = ",".join(str(files[f"good{i}"]) for i in range(3))
    bad = ",".join(str(files[f"bad{i}"]) for i in range(3))
    out_file = files["gold"].parent / "seeds.json"
    rc = main(
        ["compare", str(files["gold"]), "-s", f"good={good}", "-s", f"bad={bad}", "-f", "json", "-o", str(out_file)]
    )
    assert rc == 0
    data = one_result(json.loads(out_file.read_text()))
    runs_g, runs_b = data["runs"]["good"]["micro"], data["runs"]["bad"]["micro"]
    ref_g = [releval.score(str(files["gold"]), str(files[f"good{i}"]))["micro"].f for i in range(3)]
    assert runs_g == pytest.approx(ref_g, abs=1e-12)
    row = next(p for p in data["pairs"] if p["metric"] == "micro")
    ref = stats.ttest_ind(runs_g, runs_b, equal_var=False)
    assert row["t"] == pytest.approx(float(ref.statistic)) and row["p_value"] == pytest.approx(float(ref.pvalue))
    assert row["cohen_d"] == pytest.approx(
        np.sqrt(2) * (np.mean(runs_g) - np.mean(runs_b)) / np.sqrt(np.var(runs_g, ddof=1) + np.var(runs_b, ddof=1))
    )


@pytest.mark.parametrize("fmt", ["markdown", "latex", "csv"])
def test_other_formats(files: dict[str, Path], fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(
        [
            "compare",
            str(files["gold"]),
            "-s",
            f"good={files['good']}",
            "-s",
            f"bad={files['bad']}",
            "-R",
            "300",
            "-f",
            fmt,
            "--baseline",
            "bad",
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    marker = {"markdown": "| good vs bad |", "latex": "\\begin{tabular}", "csv": "good vs bad,bootstrap,micro"}[fmt]
    assert marker in out


def test_errors_exit_2_and_write_nothing(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    out = files["gold"].parent / "never.txt"
    cases = [
        ["-s", "nameless", "-s", f"b={files['bad']}"],
        ["-s", f"a={files['good']}", "-s", f"b={files['gold'].parent / 'missing.tsv'}"],
        ["-s", f"a={files['good']}", "-s", f"a={files['bad']}"],
        ["-s", f"a={files['good']}", "-s", f"b={files['bad0']},{files['bad1']}"],
        ["-s", f"a={files['good']}", "-s", f"b={files['bad']}", "--baseline", "zzz"],
    ]
    for extra in cases:
        assert main(["compare", str(files["gold"]), *extra, "-o", str(out)]) == 2, extra
        assert not out.exists()
    err = capsys.readouterr().err
    assert "missing.tsv: file not found" in err and "used twice: a" in err and "baseline 'zzz'" in err
    short = _write(files["gold"].parent / "short.tsv", GOLD[:-1])
    assert main(["compare", str(files["gold"]), "-s", f"a={files['good']}", "-s", f"b={short}", "-o", str(out)]) == 2
    assert "have no prediction" in capsys.readouterr().err
    assert (
        main(
            [
                "compare",
                str(files["gold"]),
                "-s",
                f"a={files['good']}",
                "-s",
                f"b={short}",
                "--on-missing",
                "negative",
                "-R",
                "100",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert out.exists()


def test_pairs_and_adjust() -> None:
    assert system_pairs(["a", "b", "c"], "b") == [("a", "b"), ("c", "b")]
    assert adjust([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])  # Holm by hand
    assert adjust([0.01, 0.04], "none") == [0.01, 0.04]


def test_semeval_rbert_vs_cnn(capsys: pytest.CaptureFixture[str]) -> None:
    gold, rbert, cnn = SEMEVAL_KEY, semeval_predictions("rbert"), semeval_predictions("cnn")
    rc = main(["compare", str(gold), "-s", f"rbert={rbert}", "-s", f"cnn={cnn}", "-R", "1000", "-f", "json"])
    assert rc == 0
    data = one_result(json.loads(capsys.readouterr().out))
    ref = releval.score(str(gold), str(rbert))
    assert data["scores"]["rbert"]["micro"] == pytest.approx(ref["micro"].f, abs=1e-12)
    micro = next(p for p in data["pairs"] if p["metric"] == "micro")
    assert micro["p_value"] == pytest.approx(1 / 1001)  # no resample comes near a difference of 9 points
    assert micro["ci_effect"][0] > 0.07


@pytest.mark.parametrize(("variant", "exact", "correction"), [("chi2", False, False), ("chi2-corrected", False, True)])
def test_cli_mcnemar_chi2_variants_match_statsmodels(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], variant: str, exact: bool, correction: bool
) -> None:
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    args = ["compare", str(files["gold"]), "--system", f"good={files['good']}", "--system", f"bad={files['bad']}"]
    assert main([*args, "--test", "mcnemar", "--mcnemar", variant, "-f", "json"]) == 0
    data = one_result(json.loads(capsys.readouterr().out))
    good = [g == p for g, p in zip(GOLD, _variant(1, 0.9))]
    bad = [g == p for g, p in zip(GOLD, _variant(2, 0.5))]
    table = [
        [sum(a and b for a, b in zip(good, bad)), sum(a and not b for a, b in zip(good, bad))],
        [sum(b and not a for a, b in zip(good, bad)), sum(not a and not b for a, b in zip(good, bad))],
    ]
    (row,) = data["pairs"]
    assert row["test"] == f"mcnemar-{variant}"
    assert row["p_value"] == pytest.approx(sm_mcnemar(table, exact=exact, correction=correction).pvalue, rel=1e-10)
    assert f"test:mcnemar-{variant}:two-sided" in data["signature"]
    assert main([*args, "--test", "mcnemar", "--mcnemar", "chi3"]) == 2
