"""Figures (releval.report.figures): the plotted data against hand-worked values or the lower layers that compute
them, what each Figure draws, saving (formats, magic bytes, byte-identical repeats, atomic writes) and the error
when matplotlib is missing. No pixel is compared: a figure's look is checked by eye (docs/figures.md)."""

from __future__ import annotations

import gzip
import importlib
import json
import math
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import EXAMPLES, SHARED, shared_path
from releval import score
from releval.core.errors import OptionError, OutputError, RelevalError
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, get_weighting
from releval.replicability.simulation import simulate
from releval.report import replicability_report
from releval.report.figures import (
    MatplotlibMissing,
    bootstrap_deltas,
    bootstrap_figure,
    class_weights,
    confusion,
    confusion_figure,
    figure_bytes,
    khat_figure,
    khat_histograms,
    per_class_figure,
    per_class_scores,
    save_figure,
    weights_figure,
)
from releval.result import ScoreResult
from releval.significance.compare import compare_paired
from releval.significance.paired import paired_bootstrap

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "svg": b"<?xml"}
TACRED_JSONL = ("data", "tacred_labels", "test_results", "cnn_test.jsonl.gz")

# A hand example: 6 a, 3 b, 1 c and 10 negatives (N = 20, 10 positive items).
HAND_GOLD = ["a"] * 6 + ["b"] * 3 + ["c"] + ["no_relation"] * 10


def _lines(ax: Any) -> list[Any]:
    """The labelled lines of an Axes (matplotlib names unlabelled ones _child0, …)."""
    return [line for line in ax.get_lines() if not line.get_label().startswith("_")]


def _vertical_lines(ax: Any) -> dict[float, str]:
    """x of every axvline → its label."""
    out = {}
    for line in ax.get_lines():
        x = np.asarray(line.get_xdata(), dtype=float)
        if x.size == 2 and x[0] == x[1]:
            out[float(x[0])] = line.get_label()
    return out


def _tacred_gold() -> list[str]:
    with gzip.open(shared_path(*TACRED_JSONL), "rt", encoding="utf-8") as handle:
        return [json.loads(line)["label_true"] for line in handle]


# ------------------------------------------------------------------------------------------------- class weights


def test_class_weights_of_a_hand_example() -> None:
    data = class_weights(HAND_GOLD, ["weighted", "dodrans", "entropy", "macro", "power:0.5"])
    n = np.array([6.0, 3.0, 1.0])
    expected = {
        "weighted": n / 10,
        "dodrans": n**0.75 / (n**0.75).sum(),
        "entropy": (-n * np.log2(n / 20)) / (-n * np.log2(n / 20)).sum(),  # N = 20: every gold item
        "macro": np.full(3, 1 / 3),
        "power:0.5": np.sqrt(n) / np.sqrt(n).sum(),
    }
    assert data.classes == ["a", "b", "c"] and data.support.tolist() == [6, 3, 1]
    assert (data.negative, data.negative_support, data.n_total, data.n_items) == ("no_relation", 10, 20, 20)
    assert list(data.weights) == list(expected)
    for name, w in expected.items():
        np.testing.assert_allclose(data.weights[name], w, rtol=1e-12)
        # ... and what the weighting module gives these supports
        module = get_weighting(name).weights(n, np.ones(3, dtype=bool), 20.0)
        np.testing.assert_allclose(data.weights[name], module, rtol=1e-13)
    json.dumps(data.to_dict())


def test_class_weights_options() -> None:
    n = np.array([6.0, 3.0, 1.0])
    positive = class_weights(HAND_GOLD, ["entropy"], entropy_n="positive")
    np.testing.assert_allclose(positive.weights["entropy"], (-n * np.log2(n / 10)) / (-n * np.log2(n / 10)).sum())
    assert positive.n_total == 10
    no_negative = class_weights(HAND_GOLD, ["weighted"], None)
    assert no_negative.classes == ["no_relation", "a", "b", "c"] and no_negative.negative is None
    np.testing.assert_allclose(no_negative.weights["weighted"], [0.5, 0.3, 0.15, 0.05])
    ties = class_weights(["y", "x", "z", "z"], ["macro"], None)
    assert ties.classes == ["z", "x", "y"]  # by support, then by name
    assert list(class_weights(HAND_GOLD).weights) == [w.name for w in DEFAULT_WEIGHTINGS]
    with pytest.raises(OptionError, match="entropy_n"):
        class_weights(HAND_GOLD, entropy_n="some")
    with pytest.raises(OptionError, match="micro"):
        class_weights(HAND_GOLD, ["micro"])
    with pytest.raises(OptionError, match="no gold labels"):
        class_weights([])
    assert class_weights(["no_relation"] * 3).classes == []  # no positive class: nothing is weighted


def test_weights_figure_draws_the_weights() -> None:
    data, fig = weights_figure(HAND_GOLD, ["weighted", "macro", "power:0.5"], dataset="hand example")
    ax = fig.axes[0]
    lines = _lines(ax)
    assert [line.get_label() for line in lines] == ["weighted", "macro", "power:0.5"]
    for line, w in zip(lines, data.weights.values()):
        np.testing.assert_array_equal(line.get_xdata(), [0, 1, 2])
        np.testing.assert_allclose(line.get_ydata(), 100 * w)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    assert "(%)" in ax.get_ylabel() and "hand example" in ax.get_title() and "'no_relation'" in ax.get_title()


def test_weights_on_tacred_test() -> None:
    gold = _tacred_gold()
    data, fig = weights_figure(gold, [*(w.name for w in DEFAULT_WEIGHTINGS), "power:0.5"], dataset="TACRED test")
    assert len(data.classes) == 41 and len(data.weights) == 5
    # the supports are TACRED's published test distribution (its TSV), largest first
    rows = shared_path("data", "tacred_labels", "tacred_label_distribution.tsv").read_text().splitlines()[1:]
    published = {r.split("\t")[0]: int(r.split("\t")[1]) for r in rows if not r.startswith("TOTAL")}
    assert dict(zip(data.classes, data.support.tolist())) == {k: v for k, v in published.items() if k != "no_relation"}
    assert data.classes[0] == "per:title" and data.negative_support == published["no_relation"] == 12184
    assert list(data.support) == sorted(data.support, reverse=True)
    n = data.support.astype(float)
    for name, w in data.weights.items():
        module = get_weighting(name).weights(n, np.ones(41, dtype=bool), 15509.0)
        np.testing.assert_allclose(w, module, rtol=1e-13)  # the scorer sums the negative's 0 too: last bits may differ
        assert math.isclose(w.sum(), 1.0)
    ax = fig.axes[0]
    assert len(_lines(ax)) == 5 and len(ax.get_xticklabels()) == 41


# ------------------------------------------------------------------------------------------------- per-class F

PC_GOLD = ["a", "a", "a", "a", "b", "b", "c", "no_relation", "no_relation", "no_relation"]
PC_PREDS = {
    "one": ["a", "a", "a", "b", "b", "no_relation", "c", "no_relation", "a", "no_relation"],
    "two": ["a", "b", "no_relation", "no_relation", "b", "b", "no_relation", "c", "no_relation", "no_relation"],
}
# F1 = 2TP / (2TP + FP + FN) per class, counted by hand
PC_F = {
    "one": {"a": 6 / 8, "b": 2 / 4, "c": 2 / 2},  # a: TP 3, FP 1, FN 1; b: TP 1, FP 1, FN 1; c: TP 1
    "two": {"a": 2 / 5, "b": 4 / 5, "c": 0.0},  # a: TP 1, FN 3; b: TP 2, FP 1; c: FP 1, FN 1
}


def _pc_results() -> list[ScoreResult]:
    return [score(PC_GOLD, pred, system=name) for name, pred in PC_PREDS.items()]


def test_per_class_scores_are_the_hand_counted_f() -> None:
    results = _pc_results()
    data = per_class_scores(results)
    assert data.systems == ["one", "two"] and data.classes == ["a", "b", "c"] and data.support.tolist() == [4, 2, 1]
    expected = np.array([[PC_F[s][c] for c in data.classes] for s in data.systems])
    np.testing.assert_allclose(data.values, expected, rtol=1e-12)
    assert list(data.averages) == ["micro", "weighted", "dodrans", "entropy", "macro"]
    for name, values in data.averages.items():
        assert values.tolist() == [r.averages[name].f for r in results]
    np.testing.assert_allclose(data.averages["macro"], expected.mean(axis=1))
    np.testing.assert_allclose(data.averages["weighted"], expected @ np.array([4, 2, 1]) / 7)
    recall = per_class_scores(results, metric="recall", averages=["macro"])
    np.testing.assert_allclose(recall.values, [[3 / 4, 1 / 2, 1.0], [1 / 4, 1.0, 0.0]])
    assert list(recall.averages) == ["macro"]
    json.dumps(data.to_dict())


def test_per_class_refuses_what_cannot_be_compared() -> None:
    results = _pc_results()
    other = score(["a", "b"], ["a", "b"], system="elsewhere")
    with pytest.raises(OptionError, match="not scored on the same gold"):
        per_class_scores([results[0], other])
    with pytest.raises(OptionError, match="power:2"):
        per_class_scores(results, averages=["power:2"])
    with pytest.raises(OptionError, match="metric"):
        per_class_scores(results, metric="accuracy")
    with pytest.raises(OptionError, match="no results"):
        per_class_scores([])


def test_per_class_figure_draws_classes_and_averages() -> None:
    data, fig = per_class_figure(_pc_results(), dataset="toy")
    left, right = fig.axes
    for i, line in enumerate(_lines(left)):
        assert line.get_label() == data.systems[i]
        np.testing.assert_allclose(line.get_ydata(), 100 * data.values[i])
        np.testing.assert_allclose(np.round(line.get_xdata()), [0, 1, 2])  # systems side by side around each class
    for i, line in enumerate(_lines(right)):
        np.testing.assert_allclose(line.get_ydata(), [100 * a[i] for a in data.averages.values()])
    assert [t.get_text() for t in left.get_xticklabels()] == ["a (4)", "b (2)", "c (1)"]
    assert [t.get_text() for t in right.get_xticklabels()] == list(data.averages)
    suptitle = fig._suptitle.get_text()  # Figure.get_suptitle is matplotlib >= 3.8; the floor is 3.5
    assert left.get_ylabel() == "F1 (%)" and "toy" in suptitle and "2 systems" in suptitle


# --------------------------------------------------------------------------------------------- bootstrap of Δ


def _pair(seed: int = 0, n: int = 300) -> tuple[list[str], list[str], list[str]]:
    rng = np.random.default_rng(seed)
    labels = np.array(["r1", "r2", "r3", "no_relation"])
    gold = rng.choice(labels, n, p=[0.2, 0.15, 0.05, 0.6])
    a = np.where(rng.random(n) < 0.7, gold, rng.choice(labels, n))
    b = np.where(rng.random(n) < 0.8, gold, rng.choice(labels, n))
    return gold.tolist(), a.tolist(), b.tolist()


def test_bootstrap_deltas_are_the_tests_draws() -> None:
    gold, a, b = _pair()
    data = bootstrap_deltas(gold, a, b, metric="macro", names=("base", "new"), resamples=999, seed=3)
    assert data.deltas.shape == (999,) and (data.system_a, data.system_b) == ("base", "new")
    # Δ = F(B) − F(A), from scoring each system alone
    f_a, f_b = score(gold, a)["macro"].f, score(gold, b)["macro"].f
    assert (data.score_a, data.score_b) == (f_a, f_b) and math.isclose(data.effect, f_b - f_a)
    # the interval is the 2.5% and 97.5% quantiles of the Δ* drawn
    tail = (1 - 0.95) / 2
    assert data.ci == tuple(np.quantile(data.deltas, [tail, 1 - tail]))
    # ... and the test's for B against A, with the same draws: paired_bootstrap(gold, B, A) and compare, A baseline
    test = paired_bootstrap(gold, b, a, metric="macro", resamples=999, seed=3)
    assert (data.ci, data.p_value, data.effect) == (test.ci_effect, test.p_value, test.effect)
    table = compare_paired(gold, {"base": a, "new": b}, baseline="base", resamples=999, seed=3)
    row = next(r for r in table.rows if r.metric == "macro")
    assert (row.a, row.b, row.ci_effect, row.p_value) == ("new", "base", data.ci, data.p_value)
    # identical systems: every Δ* is 0
    same = bootstrap_deltas(gold, a, a, resamples=99, seed=1)
    assert not same.deltas.any() and same.ci == (0.0, 0.0) and same.p_value == 1.0
    assert json.loads(json.dumps(data.to_dict()))["deltas"] == data.deltas.tolist()


def test_bootstrap_options_are_checked() -> None:
    gold, a, b = _pair()
    with pytest.raises(OptionError, match="metric"):
        bootstrap_deltas(gold, a, b, metric="power:2")
    with pytest.raises(OptionError, match="names"):
        bootstrap_deltas(gold, a, b, names=("", "B"))
    assert bootstrap_deltas(gold, a, b, metric="power:2", weightings=("power:2",), resamples=9).metric == "power:2"


def test_bootstrap_figure_marks_the_interval_the_effect_and_zero() -> None:
    gold, a, b = _pair(1)
    data, fig = bootstrap_figure(gold, a, b, names=("A", "B"), resamples=500, seed=2, dataset="toy")
    ax = fig.axes[0]
    stairs = ax.patches[0].get_data()
    heights, edges = stairs.values, stairs.edges
    assert heights.sum() == 500
    counts, _ = np.histogram(100 * data.deltas, bins=edges)
    np.testing.assert_array_equal(heights, counts)
    marks = _vertical_lines(ax)
    lo, hi = (100 * v for v in data.ci)
    assert {0.0, 100 * data.effect, lo, hi} <= set(marks)
    assert marks[0.0].startswith("Δ = 0") and marks[100 * data.effect].startswith("observed Δ")
    left, right = ax.get_xlim()
    assert left < min(0.0, edges[0]) and right > max(0.0, edges[-1])
    assert "percentage points" in ax.get_xlabel() and "B − A" in ax.get_title() and "toy" in ax.get_title()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("95% percentile CI") for t in labels) and any(t.startswith("p = ") for t in labels)


# ------------------------------------------------------------------------------------------------- confusion


def test_confusion_of_a_hand_example() -> None:
    gold = ["a", "a", "a", "b", "b", "n", "n", "n", "n"]
    pred = ["a", "a", "b", "b", "x", "n", "n", "a", "n"]
    data = confusion(gold, pred)
    assert data.labels == ["n", "a", "b", "x"]  # gold by support, then the label only predicted
    assert data.counts.tolist() == [[3, 1, 0, 0], [0, 2, 1, 0], [0, 0, 1, 1], [0, 0, 0, 0]]
    assert data.support.tolist() == [4, 3, 2, 0] and data.n_items == 9
    norm = confusion(gold, pred, normalize=True)
    np.testing.assert_allclose(norm.values[:3], [[75, 25, 0, 0], [0, 200 / 3, 100 / 3, 0], [0, 0, 50, 50]])
    assert np.isnan(norm.values[3]).all()
    part = confusion(gold, pred, normalize=True, labels=["a", "b"])
    assert part.counts.tolist() == [[2, 1], [0, 1]]
    np.testing.assert_allclose(part.values, [[200 / 3, 100 / 3], [0, 50]])  # still shares of all of a's items
    with pytest.raises(OptionError, match="'zz'"):
        confusion(gold, pred, labels=["a", "zz"])
    with pytest.raises(OptionError, match="9 gold labels but 2"):
        confusion(gold, pred[:2])
    with pytest.raises(OptionError, match="no items"):
        confusion([], [])
    json.dumps(norm.to_dict())


def test_confusion_counts_agree_with_scikit_learn() -> None:
    from sklearn.metrics import confusion_matrix

    gold, a, _ = _pair(4, 500)
    data = confusion(gold, a)
    assert data.counts.tolist() == confusion_matrix(gold, a, labels=data.labels).tolist()


@pytest.mark.parametrize("normalize", [False, True])
def test_confusion_figure_draws_the_matrix(normalize: bool) -> None:
    gold = ["a", "a", "a", "b", "b", "n", "n", "n", "n"]
    pred = ["a", "a", "b", "b", "x", "n", "n", "a", "n"]
    data, fig = confusion_figure(gold, pred, normalize=normalize, system="sys", dataset="toy")
    ax = fig.axes[0]
    shown = ax.get_images()[0].get_array()
    np.testing.assert_allclose(shown.filled(0), np.nan_to_num(data.values))
    assert shown.mask.tolist() == (~(data.values > 0)).tolist()  # empty cells (and rows with no gold) blank
    assert [t.get_text() for t in ax.get_xticklabels()] == data.labels
    assert [t.get_text() for t in ax.get_yticklabels()] == data.labels
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("predicted label", "gold label")
    texts = sorted(t.get_text() for t in ax.texts)
    expected = ["3", "1", "2", "1", "1", "1"] if not normalize else ["25", "33", "50", "50", "67", "75"]
    assert texts == sorted(expected)
    assert "sys" in ax.get_title() and "toy" in ax.get_title()
    colorbar = fig.axes[1].get_ylabel()
    assert ("%" in colorbar) == normalize and ("log" in colorbar) != normalize


# -------------------------------------------------------------------------------------------------- k̂ histogram


def test_khat_histograms_and_figure() -> None:
    sim = simulate(200, seed=5)
    panels, fig = khat_figure(sim)
    assert [p.scenario for p in panels] == list(sim.scenarios) and len(fig.axes) == len(panels)
    for panel, ax in zip(panels, fig.axes):
        sc = sim.scenarios[panel.scenario]
        heights = [bar.get_height() for bar in ax.patches]
        for m, fractions in panel.fractions.items():
            top = max(int(sc.k_hat[x].max()) for x in sim.methods)
            assert fractions.tolist() == [float(np.mean(sc.k_hat[m] == k)) for k in range(top + 1)]
            assert panel.p_over[m] == sc.p_over(m) and math.isclose(panel.p_over[m], 1 - fractions[0])
        np.testing.assert_allclose(heights, 100 * np.concatenate(list(panel.fractions.values())))
        assert "(%)" in ax.get_ylabel()
    assert khat_histograms(sim)[0].to_dict()["fractions"] == {m: f.tolist() for m, f in panels[0].fractions.items()}


def test_the_replicability_report_keeps_its_figure_names() -> None:
    sim = simulate(50, seed=1, scenarios=("independent",))
    for fmt in ("png", "svg", "pdf"):
        image = replicability_report.simulation_figure(sim, fmt)
        assert image.startswith(MAGIC[fmt]) and image == replicability_report.simulation_figure(sim, fmt)
    replicability_report.require_matplotlib()
    assert callable(replicability_report.write_bytes_atomic)


# ----------------------------------------------------------------------------------------------------- saving


def _figures() -> list[Any]:
    """One of each figure, drawn afresh."""
    gold, a, b = _pair(2, 120)
    return [
        weights_figure(HAND_GOLD)[1],
        per_class_figure(_pc_results())[1],
        bootstrap_figure(gold, a, b, resamples=200, seed=1)[1],
        confusion_figure(gold, a)[1],
        khat_figure(simulate(30, seed=2))[1],
    ]


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_save_writes_each_format_byte_for_byte_reproducibly(fmt: str, tmp_path: Path) -> None:
    for i, (first, second) in enumerate(zip(_figures(), _figures())):
        one, two = tmp_path / f"one{i}.{fmt}", tmp_path / f"two{i}.{fmt.upper()}"  # the suffix in any case
        assert save_figure(first, one) == one
        save_figure(second, two)
        data = one.read_bytes()
        assert data.startswith(MAGIC[fmt]) and len(data) > 1000
        assert data == two.read_bytes(), f"figure {i}: two saves of the same input differ"
        assert data == figure_bytes(first, fmt)  # and saving the same Figure again
    if fmt == "svg":
        assert b"<svg" in data and b"<dc:date>" not in data
    if fmt == "pdf":
        assert b"/CreationDate" not in data
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"one{i}.{fmt}" for i in range(5)] + [f"two{i}.{fmt.upper()}" for i in range(5)]
    )


@pytest.mark.parametrize("name", ["figure.jpg", "figure", "figure.png.txt", "figure.eps"])
def test_save_refuses_other_suffixes(name: str, tmp_path: Path) -> None:
    suffix = Path(name).suffix
    with pytest.raises(OptionError, match=re.escape(f"suffix {suffix!r}") if suffix else "no suffix") as info:
        save_figure(weights_figure(HAND_GOLD)[1], tmp_path / name, what="--figure")
    assert info.value.option == "--figure" and ".png, .svg, .pdf" in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_render_leaves_nothing(tmp_path: Path) -> None:
    class Broken(Exception):
        pass

    _, fig = weights_figure(HAND_GOLD)

    def explode(renderer: object) -> None:
        raise Broken

    fig.axes[0].lines[0].draw = explode  # type: ignore[method-assign]
    target = tmp_path / "out" / "w.png"
    with pytest.raises(Broken):
        save_figure(fig, target)
    assert list(tmp_path.iterdir()) == []  # no file, no temporary file, no folder made for it
    kept = tmp_path / "kept.svg"
    kept.write_bytes(b"old")
    with pytest.raises(Broken):
        save_figure(fig, kept)
    assert kept.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["kept.svg"]


def test_a_failed_write_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, fig = weights_figure(HAND_GOLD)
    kept = tmp_path / "w.pdf"
    kept.write_bytes(b"old")

    def no_rename(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_rename)
    for target in (kept, tmp_path / "new.png"):
        with pytest.raises(OutputError, match="No space left"):
            save_figure(fig, target)
    assert kept.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["w.pdf"]
    monkeypatch.undo()
    folder = tmp_path / "dir.png"
    folder.mkdir()
    with pytest.raises(OutputError, match="--figure .*is a directory"):
        save_figure(fig, folder, what="--figure")


# ------------------------------------------------------------------------------------------- without matplotlib


def test_missing_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now fails, as when not installed
    gold, a, b = _pair()
    drawn = [
        lambda: weights_figure(HAND_GOLD),
        lambda: per_class_figure(_pc_results()),
        lambda: bootstrap_figure(gold, a, b, resamples=9),
        lambda: confusion_figure(gold, a),
        lambda: khat_figure(simulate(10, seed=1)),
    ]
    for draw in drawn:
        with pytest.raises(MatplotlibMissing, match=re.escape("needs matplotlib: pip install 'releval[plot]'")) as info:
            draw()
        assert isinstance(info.value, RelevalError) and isinstance(info.value, ImportError)
    with pytest.raises(MatplotlibMissing, match=re.escape("the histogram figure needs matplotlib")):
        replicability_report.require_matplotlib()
    with pytest.raises(MatplotlibMissing, match=re.escape("(or drop --figure)")):
        replicability_report.simulation_figure(simulate(10, seed=1))
    # the data of every figure needs no matplotlib
    assert class_weights(HAND_GOLD).classes == ["a", "b", "c"]
    assert per_class_scores(_pc_results()).systems == ["one", "two"]
    assert bootstrap_deltas(gold, a, b, resamples=9).deltas.shape == (9,)
    assert confusion(gold, a).n_items == len(gold)
    assert len(khat_histograms(simulate(10, seed=1))) == 2


def test_importing_the_figures_loads_no_matplotlib() -> None:
    code = (
        "import sys\n"
        "import releval.report.figures as figures, releval.report.replicability_report\n"
        "figures.class_weights(['a', 'b', 'no_relation'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]"]


# ------------------------------------------------------------------------------------------------------ the docs

DOC = Path(__file__).resolve().parents[1] / "docs" / "figures.md"


def _doc_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_docs_show_every_figure() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in ("weights_figure", "per_class_figure", "bootstrap_figure", "confusion_figure", "khat_figure"):
        assert f"{name}(" in text
    for image in re.findall(r"!\[[^\]]*\]\((img/[^)]+)\)", text):
        path = DOC.parent / image
        assert path.read_bytes().startswith(MAGIC["png"]) and path.stat().st_size < 150_000, image


@pytest.mark.parametrize("index", range(len(_doc_blocks())))
def test_the_docs_python_runs(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each ```python block of docs/figures.md runs from a folder laid out like the repository (examples/,
    ../shared), writing its images into a scratch docs/img/."""
    code = _doc_blocks()[index]
    if "../shared/" in code and not SHARED.exists():
        pytest.skip(f"{SHARED} not available")
    work = tmp_path / "main"
    (work / "docs" / "img").mkdir(parents=True)
    (work / "examples").symlink_to(EXAMPLES)
    if SHARED.exists():
        (tmp_path / "shared").symlink_to(SHARED)
    monkeypatch.chdir(work)
    exec(compile(code, f"{DOC}[{index}]", "exec"), {"__name__": "__docs__"})
    written = list((work / "docs" / "img").iterdir())
    assert written and all(p.read_bytes().startswith(MAGIC["png"]) for p in written)


def test_no_lazy_name_is_also_a_submodule_name() -> None:
    """A lazily exported name equal to a submodule's name is the submodule once anything imports it (Python sets
    the package attribute): `figures.confusion` was the module, not the function, after `plot confusion` ran
    (an order-dependent failure of this file after tests/test_plot_cli.py)."""
    import releval.report.figures as figures

    submodules = {m.name for m in pkgutil.iter_modules(figures.__path__)}
    assert set(figures._MODULES) <= submodules
    assert not set(figures._LAZY) & submodules, set(figures._LAZY) & submodules
    for module in submodules:
        importlib.import_module(f"releval.report.figures.{module}")
    assert callable(figures.confusion) and not isinstance(figures.confusion, type(figures))
