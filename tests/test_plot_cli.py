"""`releval plot weights|per-class|bootstrap|confusion` end to end: each writes its format, the figure is the
library's (the same SVG bytes, the same data in --data-json), and every refusal (a bad suffix, an output that is an
input, no matplotlib) is one line, exit 2, nothing written. On TACRED test the weights figure has Harbecke et al.'s
41 positive relations and the weights of releval.metrics.weightings."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import releval
from conftest import SEMEVAL_KEY, semeval_predictions, shared_path
from releval.cli import main
from releval.metrics.weightings import get_weighting
from releval.report.figures import (
    bootstrap_figure,
    confusion_figure,
    figure_bytes,
    per_class_figure,
    weights_figure,
)
from releval.report.strict_json import finite_or_null

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "svg": b"<?xml"}
KEY = str(SEMEVAL_KEY)
CNN, RBERT = str(semeval_predictions("cnn")), str(semeval_predictions("rbert"))
ATTBLSTM, ATTCNN = str(semeval_predictions("attblstm")), str(semeval_predictions("attcnn"))
ANOTHER = "choose another file name"
TACRED_JSONL = ("data", "tacred_labels", "test_results", "cnn_test.jsonl.gz")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list[str]]:
    """(exit code, stdout, stderr's non-empty lines) of `releval plot ARGV` in-process."""
    code = main(["plot", *argv])
    captured = capsys.readouterr()
    return code, captured.out, [line for line in captured.err.splitlines() if line.strip()]


def _aligned(*systems: str) -> tuple[list[str], list[list[str]]]:
    """Gold's labels and each system's predictions aligned by id, as the docs' library examples read them."""
    key = releval.load_labels(KEY)
    pairs = [releval.align(key, releval.load_labels(path, role="pred")) for path in systems]
    return list(pairs[0].gold if pairs else key.labels), [list(p.pred) for p in pairs]


def _as_json(data: object) -> object:
    """What the library's data becomes in a JSON file (strict JSON: NaN as null)."""
    return json.loads(json.dumps(finite_or_null(data)))


def _data_json(path: Path, figure: str) -> object:
    document = json.loads(path.read_text(encoding="utf-8"))
    assert (document["schema_version"], document["kind"], document["figure"]) == (1, "figure-data", figure)
    return document["data"]


# --------------------------------------------------------------------------------------------- every subcommand

CASES = {
    "weights": (["weights", KEY], "png", "18 classes, 4 weightings"),
    "per-class": (["per-class", KEY, CNN, RBERT], "svg", "18 classes, 2 systems"),
    "bootstrap": (["bootstrap", KEY, ATTBLSTM, ATTCNN, "-R", "50"], "pdf", "micro-F1 of onehaitao_attcnn minus "),
    "confusion": (["confusion", KEY, RBERT], "png", "19 labels, counts"),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_each_subcommand_writes_its_format(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, fmt, what = CASES[kind]
    target = tmp_path / f"figure.{fmt}"
    code, out, err = _run([*argv, "-o", str(target)], capsys)
    assert (code, out) == (0, "")
    assert len(err) == 1 and err[0].startswith(f"wrote {target} ({fmt.upper()}, {what}"), err
    assert target.read_bytes().startswith(MAGIC[fmt])
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temporary file left


def test_weights_is_the_library_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg, data_file = tmp_path / "w.svg", tmp_path / "w.json"
    argv = ["weights", KEY, "-w", "macro", "-w", "power:0.5", "--entropy-n", "positive", "--dataset", "SemEval"]
    code, _, err = _run([*argv, "-o", str(svg), "--data-json", str(data_file)], capsys)
    assert code == 0 and err == [f"wrote {svg} (SVG, 18 classes, 2 weightings)", f"wrote {data_file}"]
    gold, _ = _aligned()
    data, fig = weights_figure(gold, ["macro", "power:0.5"], "Other", entropy_n="positive", dataset="SemEval")
    assert svg.read_bytes() == figure_bytes(fig, "svg")
    assert _data_json(data_file, "weights") == _as_json(data.to_dict())
    assert data.negative == "Other" and len(data.classes) == 18


def test_per_class_is_the_library_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """NAME=PATH names a system; a bare path is named by its file, as `score` names it."""
    svg, data_file = tmp_path / "pc.svg", tmp_path / "pc.json"
    argv = ["per-class", KEY, CNN, f"R-BERT={RBERT}", "--metric", "recall", "-w", "macro"]
    code, _, err = _run([*argv, "-o", str(svg), "--data-json", str(data_file)], capsys)
    assert code == 0 and err[0] == f"wrote {svg} (SVG, 18 classes, 2 systems)"
    results = [
        releval.score(KEY, CNN, weightings=["macro"]),
        releval.score(KEY, RBERT, weightings=["macro"], system="R-BERT"),
    ]
    data, fig = per_class_figure(results, metric="recall")
    assert data.systems == ["onehaitao_cnn", "R-BERT"] and list(data.averages) == ["micro", "macro"]
    assert svg.read_bytes() == figure_bytes(fig, "svg")
    assert _data_json(data_file, "per-class") == _as_json(data.to_dict())


def test_bootstrap_is_the_library_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg, data_file = tmp_path / "b.svg", tmp_path / "b.json"
    argv = ["bootstrap", KEY, f"attblstm={ATTBLSTM}", f"attcnn={ATTCNN}", "--average", "Power:0.50", "-R", "300"]
    argv += ["--seed", "7", "--confidence", "0.9", "--alternative", "less"]
    code, _, err = _run([*argv, "-o", str(svg), "--data-json", str(data_file)], capsys)
    assert code == 0 and err[0] == f"wrote {svg} (SVG, power:0.5-F1 of attcnn minus attblstm, 300 resamples)"
    gold, (a, b) = _aligned(ATTBLSTM, ATTCNN)
    data, fig = bootstrap_figure(
        gold,
        a,
        b,
        metric="power:0.5",
        names=("attblstm", "attcnn"),
        weightings=["weighted", "dodrans", "entropy", "macro", "power:0.5"],
        resamples=300,
        seed=7,
        confidence=0.9,
        alternative="less",
    )
    assert svg.read_bytes() == figure_bytes(fig, "svg")
    saved = _data_json(data_file, "bootstrap")
    assert saved == _as_json(data.to_dict())
    assert isinstance(saved, dict) and len(saved["deltas"]) == 300 and saved["alternative"] == "less"


def test_bootstrap_draws_are_compares(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What the help promises: `compare GOLD -s A -s B --baseline A` with the same seed has the same Δ, interval
    and p for every average."""
    for average in ("micro", "macro"):
        data_file = tmp_path / f"{average}.json"
        argv = ["bootstrap", KEY, f"attblstm={ATTBLSTM}", f"attcnn={ATTCNN}", "-R", "200", "--average", average]
        assert _run([*argv, "-o", str(tmp_path / "b.png"), "--data-json", str(data_file)], capsys)[0] == 0
        drawn = _data_json(data_file, "bootstrap")
        systems = ["-s", f"attblstm={ATTBLSTM}", "-s", f"attcnn={ATTCNN}", "--baseline", "attblstm"]
        assert main(["compare", KEY, *systems, "-R", "200", "-t", "bootstrap", "-f", "json"]) == 0
        pairs = json.loads(capsys.readouterr().out)["results"][0]["pairs"]
        (row,) = [r for r in pairs if r["metric"] == average]
        assert (row["a"], row["b"]) == ("attcnn", "attblstm")
        assert isinstance(drawn, dict)
        assert (drawn["effect"], drawn["ci"], drawn["p_value"]) == (row["effect"], row["ci_effect"], row["p_value"])


@pytest.mark.parametrize("normalize", [False, True], ids=["counts", "normalized"])
def test_confusion_is_the_library_figure(normalize: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg, data_file = tmp_path / "c.svg", tmp_path / "c.json"
    labels = ["Other", "Cause-Effect(e1,e2)", "Cause-Effect(e2,e1)"]
    argv = ["confusion", KEY, f"rbert={RBERT}", *(x for label in labels for x in ("--label", label))]
    argv += ["--normalize"] if normalize else []
    code, _, err = _run([*argv, "-o", str(svg), "--data-json", str(data_file)], capsys)
    kind = "rows as % of gold" if normalize else "counts"
    assert code == 0 and err[0] == f"wrote {svg} (SVG, 3 labels, {kind})"
    gold, (pred,) = _aligned(RBERT)
    data, fig = confusion_figure(gold, pred, normalize=normalize, labels=labels, system="rbert")
    assert svg.read_bytes() == figure_bytes(fig, "svg")
    assert _data_json(data_file, "confusion") == _as_json(data.to_dict())


def test_png_dpi(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--dpi sets a PNG's pixel density (the same figure, 80 dpi: about half the pixels across of 150)."""
    sizes = []
    for dpi in ("80", "150"):
        target = tmp_path / f"w{dpi}.png"
        assert _run(["weights", KEY, "-o", str(target), "--dpi", dpi], capsys)[0] == 0
        header = target.read_bytes()[16:24]  # IHDR: width, height
        sizes.append((int.from_bytes(header[:4], "big"), int.from_bytes(header[4:], "big")))
    assert math.isclose(sizes[0][0] / sizes[1][0], 80 / 150, rel_tol=0.02)


# -------------------------------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("name", ["figure.jpg", "figure", "figure.png.txt"])
def test_a_bad_suffix_is_refused_before_reading(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Even with a gold file that does not exist: the suffix is checked first, and nothing is written."""
    target = tmp_path / name
    code, out, err = _run(["weights", str(tmp_path / "missing.txt"), "-o", str(target)], capsys)
    suffix = Path(name).suffix
    assert (code, out, len(err)) == (2, "", 1)
    assert err[0].startswith(f"error: --output '{target}': {f'suffix {suffix!r}' if suffix else 'no suffix'}")
    assert err[0].endswith("a figure is saved as .png, .svg, .pdf")
    assert list(tmp_path.iterdir()) == []


def test_output_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["confusion", KEY, RBERT], capsys)
    assert (code, out, len(err)) == (2, "", 1) and "Missing option '--output'" in err[0]


@pytest.mark.parametrize("named", [False, True], ids=["path", "NAME=PATH"])
def test_an_input_is_never_the_output(named: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A prediction file that happens to end in .png is still an input: -o on it is refused, the file kept."""
    pred = tmp_path / "rbert.png"
    pred.write_bytes(Path(RBERT).read_bytes())
    spec = f"rbert={pred}" if named else str(pred)
    for argv in (["confusion", KEY, spec, "-o", str(pred)], ["per-class", KEY, spec, "-o", str(pred)]):
        code, out, err = _run(argv, capsys)
        assert (code, out, len(err)) == (2, "", 1)
        assert err[0] == f"error: cannot write --output '{pred}': it is an input of this run; {ANOTHER}"
    assert pred.read_bytes() == Path(RBERT).read_bytes()
    gold = tmp_path / "gold.svg"
    gold.write_bytes(SEMEVAL_KEY.read_bytes())
    code, _, err = _run(["weights", str(gold), "-o", str(gold)], capsys)
    assert code == 2 and "it is an input of this run" in err[0]
    code, _, err = _run(["weights", str(gold), "-o", str(tmp_path / "w.png"), "--data-json", str(gold)], capsys)
    assert code == 2 and err == [f"error: cannot write --data-json '{gold}': it is an input of this run; {ANOTHER}"]
    assert gold.read_bytes() == SEMEVAL_KEY.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gold.svg", "rbert.png"]


def test_data_json_is_not_the_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "w.png"
    code, _, err = _run(["weights", KEY, "-o", str(target), "--data-json", str(target)], capsys)
    assert code == 2 and err == [f"error: --data-json '{target}' names the same file as --output"]
    assert list(tmp_path.iterdir()) == []


def test_without_matplotlib(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One line naming the extra, exit 2, nothing written; the check comes before any input is read."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now fails, as when not installed
    for argv in (
        ["weights", KEY],
        ["per-class", KEY, CNN],
        ["bootstrap", KEY, CNN, RBERT],
        ["confusion", str(tmp_path / "missing.txt"), RBERT],
    ):
        code, out, err = _run([*argv, "-o", str(tmp_path / "f.png"), "--data-json", str(tmp_path / "d.json")], capsys)
        assert (code, out) == (2, "")
        assert err == ["error: releval plot needs matplotlib: pip install 'releval[plot]'"]
    assert list(tmp_path.iterdir()) == []


def test_system_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two files with one name need NAME=PATH; an empty name is refused; a file whose name has '=' is a path."""
    other = tmp_path / "other"
    other.mkdir()
    copy = other / "onehaitao_cnn.txt"
    copy.write_bytes(Path(CNN).read_bytes())
    target = tmp_path / "pc.png"
    code, _, err = _run(["per-class", KEY, CNN, str(copy), "-o", str(target)], capsys)
    assert code == 2 and err == ["error: system name(s) used twice: onehaitao_cnn; name the files NAME=PATH"]
    code, _, err = _run(["per-class", KEY, f"={CNN}", "-o", str(target)], capsys)
    assert code == 2 and err == [f"error: a prediction file is given as PATH or NAME=PATH, not '={CNN}'"]
    assert not target.exists()
    odd = tmp_path / "a=b.txt"
    odd.write_bytes(Path(CNN).read_bytes())
    data_file = tmp_path / "pc.json"
    argv = ["per-class", KEY, str(odd), RBERT, "-o", str(target), "--data-json", str(data_file)]
    assert _run(argv, capsys)[0] == 0
    data = _data_json(data_file, "per-class")
    assert isinstance(data, dict) and data["systems"] == ["a=b", "onehaitao_rbert"]


def test_bad_input_is_one_located_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The library's error, not rewrapped: the file (and line) it is about; every system's problem at once."""
    bad = tmp_path / "bad.txt"
    bad.write_text("8001\tCause-Effect(e1,e2)\n8001\tOther\n", encoding="utf-8")
    code, out, err = _run(["confusion", KEY, str(bad), "-o", str(tmp_path / "c.png")], capsys)
    assert (code, out, len(err)) == (2, "", 1) and str(bad) in err[0]
    code, _, err = _run(["weights", KEY, "--negative", "Othr", "-o", str(tmp_path / "w.png")], capsys)
    assert code == 2 and err[0].startswith("error: --negative label 'Othr' occurs neither") and "'Other'" in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt"]


def test_a_missing_folder_is_made_as_for_every_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """write_atomic's rule for every command's -o: the folders are made (and removed again when the write fails)."""
    target = tmp_path / "new" / "sub" / "w.pdf"
    code, _, err = _run(["weights", KEY, "-o", str(target)], capsys)
    assert code == 0 and err == [f"wrote {target} (PDF, 18 classes, 4 weightings)"]
    assert target.read_bytes().startswith(MAGIC["pdf"])


def test_missing_predictions_are_warned_about(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    short = tmp_path / "short.txt"
    short.write_text("".join(Path(RBERT).read_text(encoding="utf-8").splitlines(keepends=True)[:-3]))
    target = tmp_path / "c.png"
    code, _, err = _run(["confusion", KEY, str(short), "-o", str(target)], capsys)
    assert code == 2 and "missing" in err[0] and not target.exists()
    code, _, err = _run(["confusion", KEY, str(short), "-o", str(target), "--on-missing", "negative"], capsys)
    assert code == 0 and len(err) == 2 and err[0].startswith("warning: short: ") and "3" in err[0]
    assert err[1].startswith(f"wrote {target} (PNG, ")


def test_help_lists_the_figures_and_points_to_the_khat_histogram(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for name in ("weights", "per-class", "bootstrap", "confusion"):
        assert f" {name} " in text
    assert "releval replicability simulate --figure FILE" in text and "pip install 'releval[plot]'" in text


# ----------------------------------------------------------------------------------- the acceptance test


def test_tacred_weights_reproduce_harbecke_figure_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """TACRED test's labels (the label_true of any system's results file): 41 positive relations by support, five
    weightings, each the weighting module's weights of those supports; no_relation's 12,184 items not weighted."""
    gold = shared_path(*TACRED_JSONL)
    names = ["weighted", "dodrans", "entropy", "macro", "power:0.5"]
    svg, data_file = tmp_path / "tacred.svg", tmp_path / "tacred.json"
    argv = ["weights", str(gold), *(x for name in names for x in ("-w", name)), "--dataset", "TACRED test"]
    code, _, err = _run([*argv, "-o", str(svg), "--data-json", str(data_file)], capsys)
    assert code == 0 and err == [f"wrote {svg} (SVG, 41 classes, 5 weightings)", f"wrote {data_file}"]
    data = _data_json(data_file, "weights")
    assert isinstance(data, dict)
    assert len(data["classes"]) == 41 and list(data["weights"]) == names and data["classes"][0] == "per:title"
    assert (data["negative"], data["negative_support"], data["n_items"]) == ("no_relation", 12184, 15509)
    rows = shared_path("data", "tacred_labels", "tacred_label_distribution.tsv").read_text().splitlines()[1:]
    published = {r.split("\t")[0]: int(r.split("\t")[1]) for r in rows if not r.startswith("TOTAL")}
    assert dict(zip(data["classes"], data["support"])) == {k: v for k, v in published.items() if k != "no_relation"}
    assert data["support"] == sorted(data["support"], reverse=True)
    n = np.array(data["support"], dtype=float)
    for name, weights in data["weights"].items():
        expected = get_weighting(name).weights(n, np.ones(41, dtype=bool), 15509.0)
        np.testing.assert_allclose(weights, expected, rtol=1e-13)  # the scorer's sum may differ in the last bits
    assert "Class weights of 41 positive classes on TACRED test" in svg.read_text(encoding="utf-8")
