"""`print(result)` reads like scikit-learn's classification_report, and every scoring result has `to_frame()`
(issue 14). The expected numbers come from scikit-learn's own report and by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sklearn.metrics import classification_report

import releval
from releval.dataset_stats.label_distribution import label_stats

ROOT = Path(__file__).resolve().parents[1]
KEY = ROOT / "examples" / "semeval2010_task8" / "test_key_directed.txt"
RBERT = ROOT / "examples" / "semeval2010_task8" / "onehaitao_rbert.txt"
CONLL = ROOT / "examples" / "conll04" / "conll04_test_first30.json"


def rows_of(text: str) -> dict[str, list[str]]:
    """Label → the numbers of its line, for lines of a classification_report layout."""
    out = {}
    for line in text.splitlines():
        match = re.match(r"^\s*(.+?)\s+((?:\d+\.\d+\s+)+\d+)$", line)
        if match:
            out[match.group(1).removesuffix(" *")] = match.group(2).split()
    return out


def labels_of(path: Path) -> list[str]:
    return [line.split("\t")[1] for line in path.read_text().splitlines()]


def test_print_shows_sklearns_per_class_numbers_and_accuracy() -> None:
    gold, pred = labels_of(KEY), labels_of(RBERT)
    ours = rows_of(str(releval.score(KEY, RBERT)))
    theirs = rows_of(classification_report(gold, pred, digits=4, zero_division=0))
    for label in sorted(set(gold)):
        assert ours[label] == theirs[label], label
    assert ours["accuracy"] == theirs["accuracy"]
    # the averages excluding the negative class, with the positive items as support
    positive = sum(g != "Other" for g in gold)
    micro = releval.score(KEY, RBERT)["micro"]
    assert ours["micro"] == [f"{micro.precision:.4f}", f"{micro.recall:.4f}", f"{micro.f:.4f}", str(positive)]


def test_print_marks_the_negative_class_and_ends_with_the_signature() -> None:
    text = str(releval.score(["A", "no_relation"], ["A", "A"]))
    lines = text.splitlines()
    assert lines[0] == "system (2 items; negative class: no_relation, in no average)"
    assert any(line.strip().startswith("no_relation *") for line in lines)
    assert lines[-1].startswith("signature: t:rc|") and "neg:no_relation" in lines[-1]


def test_print_of_an_end_to_end_result_has_one_report_per_criterion() -> None:
    text = str(releval.score_e2e(CONLL, CONLL))
    assert [line for line in text.splitlines() if line.startswith("== ")] == [
        "== NER strict (span + type) ==",
        "== Strict (argument spans and types + relation type) ==",
        "== Boundaries (argument spans + relation type; argument types ignored) ==",
    ]
    assert "conll04_test_first30 (30 documents; no negative class)" in text


def test_score_frame_holds_the_rows_and_averages() -> None:
    result = releval.score(KEY, RBERT)
    frame = result.to_frame()
    assert frame.loc["Other", "support"] == 454 and frame.loc["Other", "tp"] == 267
    assert frame.loc["macro", "f"] == result["macro"].f and frame.loc["macro", "kind"] == "average"


def test_e2e_frame_is_indexed_by_criterion_and_label() -> None:
    result = releval.score_e2e(CONLL, CONLL)
    frame = result.to_frame()
    assert frame.loc[("strict", "Located_In"), "support"] == 24
    assert frame.loc[("ner", "Peop"), "support"] == 23
    assert set(frame.index.get_level_values(0)) == {"ner", "strict", "boundaries"}


def test_semeval_official_frame_gives_the_official_score() -> None:
    result = releval.score_semeval_official(KEY, RBERT)
    frame = result.to_frame()
    assert frame.loc[("official", "<macro>"), "f1"] == pytest.approx(result.official_score, abs=1e-12)
    assert frame.loc[("directed", "Other"), "actual"] == 454


def test_label_stats_frame_counts_each_label() -> None:
    gold = labels_of(KEY)
    frame = label_stats("test", gold, "Other").to_frame()
    assert frame.index[0] == "Other" and frame.loc["Other", "count"] == 454
    assert frame["count"].sum() == len(gold) == 2717
    assert frame.loc["Other", "percent"] == pytest.approx(100 * 454 / 2717)


def test_comparison_frames_hold_every_row() -> None:
    systems = {"rbert": RBERT, "cnn": KEY.parent / "onehaitao_cnn.txt"}
    paired = releval.compare_paired(KEY, systems, resamples=100)
    frame = paired.to_frame()
    assert len(frame) == len(paired.rows) == 5
    micro = next(r for r in paired.rows if r.metric == "micro")
    assert frame.loc[("rbert", "cnn", "bootstrap", "micro"), "effect"] == micro.effect
    runs = {"a": [RBERT, KEY.parent / "onehaitao_crcnn.txt"], "b": [KEY.parent / "onehaitao_cnn.txt"] * 2}
    seeds = releval.compare_seed_runs(KEY, runs)
    frame = seeds.to_frame()
    macro = next(r for r in seeds.rows if r.metric == "macro")
    assert frame.loc[("a", "b", "macro"), "mean_a"] == macro.result.to_dict()["mean_a"]


def test_replicability_frame_by_dataset() -> None:
    from releval.replicability.analysis import analyze

    frame = analyze([0.01, 0.2, 0.03, 0.5], names=["a", "b", "c", "d"]).to_frame()
    # Bonferroni partial conjunctions by hand: p_(u) * (N - u + 1), running max; Holm's adjusted p the same here
    assert frame["u"].tolist() == [1, 3, 2, 4]
    assert frame["p_pc_bonferroni"].tolist() == pytest.approx([0.04, 0.4, 0.09, 0.5])
    assert frame["p_adjusted"].tolist() == pytest.approx([0.04, 0.4, 0.09, 0.5])
    assert frame["identified"].tolist() == [True, False, False, False]


def test_end_to_end_dataset_frame_has_each_split_and_the_total() -> None:
    from releval.data.e2e import load_e2e
    from releval.dataset_stats.e2e_dataset import dataset_stats

    frame = dataset_stats(load_e2e(ROOT / "examples" / "conll04" / "conll04_sincere_all_splits.json")).to_frame()
    assert frame.index.tolist() == ["train", "dev", "test", "total"]
    assert frame["sentences"].tolist() == [922, 231, 288, 1441]
