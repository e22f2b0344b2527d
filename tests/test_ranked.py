"""Ranked relation facts (`--task ranked`, NYT10 / OpenNRE bag-level held-out evaluation).

The reference numbers in tests/data/ranked/opennre_reference.json were produced by running OpenNRE's own
`BagREDataset.eval` (thunlp/OpenNRE 8e42fd7) outside the repository on examples/ranked (see the file's `source`).
Everything else is checked against scikit-learn and against `opennre_loop` below, a plain restatement of that
loop (stable sort by score, cumulative hits, sklearn.metrics.auc), on synthetic data with ties, duplicates and NA.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import auc as sklearn_auc
from tests.ranked_data import make_gold, make_predictions

from releval.cli import main
from releval.core.errors import InputError, OptionError
from releval.metrics.ranked import ranked_curve
from releval.registry import get_task
from releval.significance.config import SignificanceConfig
from releval.significance.ranked import compare_files
from releval.tasks.ranked import RankedConfig, score

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "ranked"
GOLD = EXAMPLES / "gold.jsonl"
PCNN = EXAMPLES / "pcnn.jsonl"
CNN = EXAMPLES / "cnn.tsv"
REFERENCE = json.loads((ROOT / "tests" / "data" / "ranked" / "opennre_reference.json").read_text())


def opennre_loop(gold: list[dict[str, Any]], preds: list[dict[str, Any]]) -> dict[str, Any]:
    """OpenNRE's BagREDataset.eval, restated: facts = distinct non-NA (h, t, r); NA predictions dropped first (as
    BagRE.eval_model does); sorted(reverse=True) by score; precision/recall after each prediction; sklearn's auc."""
    facts = {(g["h"]["id"], g["t"]["id"], g["relation"]) for g in gold if g["relation"] != "NA"}
    ranking = sorted((p for p in preds if p["relation"] != "NA"), key=lambda p: p["score"], reverse=True)
    prec, rec, correct = [], [], 0
    for i, p in enumerate(ranking):
        if (p["h"], p["t"], p["relation"]) in facts:
            correct += 1
        prec.append(float(correct) / float(i + 1))
        rec.append(float(correct) / float(len(facts)))
    p_arr, r_arr = np.array(prec), np.array(rec)
    f1 = 2 * p_arr * r_arr / (p_arr + r_arr + 1e-20)
    return {
        "auc": sklearn_auc(x=rec, y=prec),
        "p@100": prec[99],
        "p@200": prec[199],
        "p@300": prec[299],
        "max_f1": f1.max(),
        "prec": prec,
        "rec": rec,
    }


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _tsv(path: Path, rows: list[dict[str, Any]]) -> Path:
    body = "".join(f"{r['h']}\t{r['t']}\t{r['relation']}\t{r['score']!r}\n" for r in rows)
    path.write_text(body, encoding="utf-8")
    return path


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


COUNT = RankedConfig(duplicates="count")


# ----------------------------------------------------------------------------------------- the reference itself


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda c: c["prediction"])
def test_auc_and_p_at_n_are_those_opennre_printed(case: dict[str, Any], tmp_path: Path) -> None:
    path = CNN if case["prediction"].startswith("cnn") else PCNN
    if case["reversed_input"]:
        path = _write(tmp_path / "reversed.jsonl", _read(PCNN)[::-1])
    result = score(GOLD, path, COUNT)
    for key in ("auc", "p@100", "p@200", "p@300"):
        assert result.measures[key] == case[key], key  # bit for bit
    assert result.measures["max_f1"] == case["max_micro_f1"]


def test_the_reference_numbers_show_the_tie_trap() -> None:
    forward, _, backward = REFERENCE["cases"]
    assert forward["auc"] != backward["auc"]  # the same predictions in reverse order: another AUC
    a = score(GOLD, PCNN, RankedConfig(duplicates="count", ties="average")).measures["auc"]
    assert min(forward["auc"], backward["auc"]) < a < max(forward["auc"], backward["auc"])


# ---------------------------------------------------------------------- the restated loop, scikit-learn, ties


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("decimals", [1, 2, 6])
def test_equals_the_restated_opennre_loop_with_ties_duplicates_and_na(seed: int, decimals: int, tmp_path: Path) -> None:
    gold = make_gold(n_bags=120 + seed * 10, seed=seed)
    preds = make_predictions(gold, seed=100 + seed, decimals=decimals)
    assert any(p["relation"] == "NA" for p in preds)
    assert len({(p["h"], p["t"], p["relation"]) for p in preds}) < len(preds)  # duplicates
    assert len({p["score"] for p in preds}) < len(preds) / 2 or decimals == 6  # ties
    expected = opennre_loop(gold, preds)
    result = score(_write(tmp_path / "g.jsonl", gold), _write(tmp_path / "p.jsonl", preds), COUNT)
    for key in ("auc", "p@100", "p@200", "p@300", "max_f1"):
        assert result.measures[key] == expected[key], key
    assert result.curve.precision.tolist() == expected["prec"]
    assert result.curve.recall.tolist() == expected["rec"]
    tsv = score(tmp_path / "g.jsonl", _tsv(tmp_path / "p.tsv", preds), COUNT)
    assert tsv.measures == result.measures


def test_auc_is_sklearns_on_the_curve() -> None:
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 20, 5000) / 20  # many ties
    hits = rng.random(5000) < 0.1
    curve = ranked_curve(scores, hits, int(hits.sum()) + 30)
    assert curve.auc() == sklearn_auc(curve.recall, curve.precision)
    order = sorted(range(5000), key=lambda i: scores[i], reverse=True)  # Python's stable sort
    assert curve.scores.tolist() == [scores[i] for i in order]


def test_average_ties_do_not_depend_on_the_input_order(tmp_path: Path) -> None:
    gold = make_gold(seed=9)
    preds = make_predictions(gold, seed=9, decimals=1)
    config = RankedConfig(duplicates="count", ties="average")
    g = _write(tmp_path / "g.jsonl", gold)
    first = score(g, _write(tmp_path / "a.jsonl", preds), config).measures
    random.Random(3).shuffle(preds)
    second = score(g, _write(tmp_path / "b.jsonl", preds), config).measures
    for key, value in first.items():
        assert second[key] == pytest.approx(value, abs=1e-12), key


def test_average_ties_give_the_expected_precision_over_every_order() -> None:
    """P@k under `average` is the mean of P@k over every order of the tied predictions (brute force)."""
    scores = [0.9, 0.5, 0.5, 0.5, 0.5, 0.2, 0.2]
    hits = [True, False, True, True, False, True, False]
    curve = ranked_curve(scores, hits, 5, ties="average")
    orders = list(itertools.permutations(range(1, 5)))
    for k in range(1, 8):
        mean = 0.0
        for perm in orders:
            for tail in itertools.permutations((5, 6)):
                ranking = [0, *perm, *tail]
                mean += sum(hits[i] for i in ranking[:k]) / k
        mean /= len(orders) * 2
        assert curve.precision[k - 1] == pytest.approx(mean, abs=1e-12)


# ------------------------------------------------------------------------------- duplicates, NA, short rankings


def test_duplicates_are_refused_by_default_at_their_line(tmp_path: Path) -> None:
    preds = [
        {"h": "m.h0", "t": "m.t0", "relation": "/rel/r0", "score": 0.5},
        {"h": "m.h1", "t": "m.t1", "relation": "/rel/r0", "score": 0.4},
        {"h": "m.h0", "t": "m.t0", "relation": "/rel/r0", "score": 0.3},
    ]
    with pytest.raises(InputError) as caught:
        score(GOLD, _write(tmp_path / "p.jsonl", preds))
    assert caught.value.line == 3 and "first at line 1" in caught.value.message


def test_duplicates_max_keeps_the_best_copy(tmp_path: Path) -> None:
    preds = _read(PCNN)
    best: dict[tuple[str, str, str], dict[str, Any]] = {}
    for p in preds:  # the best score, the earliest copy among equal ones
        key = (p["h"], p["t"], p["relation"])
        if key not in best or p["score"] > best[key]["score"]:
            best[key] = p
    kept = [p for p in preds if best[(p["h"], p["t"], p["relation"])] is p]
    deduplicated = score(GOLD, _write(tmp_path / "d.jsonl", kept))
    result = score(GOLD, PCNN, RankedConfig(duplicates="max"))
    assert result.measures == deduplicated.measures
    assert any("best-scoring copy" in w for w in result.warnings)


def test_counted_duplicates_can_push_recall_past_one(tmp_path: Path) -> None:
    gold = [{"h": {"id": "a"}, "t": {"id": "b"}, "relation": "r"}]
    preds = [{"h": "a", "t": "b", "relation": "r", "score": 0.9}] * 3
    g, p = _write(tmp_path / "g.jsonl", gold), _write(tmp_path / "p.jsonl", preds)
    result = score(g, p, COUNT)
    assert result.curve.recall.tolist() == [1.0, 2.0, 3.0]  # what OpenNRE's loop computes
    assert result.measures["auc"] == sklearn_auc([1.0, 2.0, 3.0], [1.0, 1.0, 1.0]) == 2.0
    assert any("exceed 1" in w for w in result.warnings)


def test_fewer_predictions_than_n_count_the_missing_ranks_as_wrong(tmp_path: Path) -> None:
    preds = [p for p in _read(PCNN) if p["relation"] != "NA"][:150]
    result = score(GOLD, _write(tmp_path / "p.jsonl", preds), RankedConfig(duplicates="count"))
    facts = {(g["h"]["id"], g["t"]["id"], g["relation"]) for g in _read(GOLD) if g["relation"] != "NA"}
    hits = sum((p["h"], p["t"], p["relation"]) in facts for p in preds)
    assert result.measures["p@200"] == hits / 200 and result.measures["p@300"] == hits / 300
    top = sorted(preds, key=lambda p: p["score"], reverse=True)[:100]
    assert result.measures["p@100"] == sum((p["h"], p["t"], p["relation"]) in facts for p in top) / 100
    assert any("P@200, P@300 count the missing ranks as wrong" in n for n in result.notes)


def test_na_predictions_are_dropped_and_na_gold_is_no_fact(tmp_path: Path) -> None:
    result = score(GOLD, PCNN, COUNT)
    n_na = sum(p["relation"] == "NA" for p in _read(PCNN))
    assert result.n_predictions == len(_read(PCNN)) - n_na
    assert any(f"{n_na} prediction(s) of the negative class 'NA' dropped" in n for n in result.notes)
    facts = {(g["h"]["id"], g["t"]["id"], g["relation"]) for g in _read(GOLD) if g["relation"] != "NA"}
    assert result.n_facts == len(facts)
    only_na = _write(tmp_path / "na.jsonl", [{"h": {"id": "a"}, "t": {"id": "b"}, "relation": "NA"}])
    with pytest.raises(InputError, match="no fact"):
        score(only_na, PCNN)


def test_per_relation_auc_feeds_the_weightings() -> None:
    result = score(GOLD, PCNN, RankedConfig(duplicates="max"))
    rows = result.relations
    support = np.array([r.facts for r in rows], dtype=float)
    aucs = np.array([r.auc for r in rows])
    assert result.measures["macro-auc"] == pytest.approx(aucs.mean(), abs=1e-15)
    assert result.measures["weighted-auc"] == pytest.approx((support / support.sum() * aucs).sum(), abs=1e-15)
    preds = [p for p in _read(PCNN) if p["relation"] == rows[0].relation]
    facts = {(g["h"]["id"], g["t"]["id"]) for g in _read(GOLD) if g["relation"] == rows[0].relation}
    best: dict[tuple[str, str], dict[str, Any]] = {}
    for p in preds:
        if (p["h"], p["t"]) not in best or p["score"] > best[(p["h"], p["t"])]["score"]:
            best[(p["h"], p["t"])] = p
    ranking = sorted([p for p in preds if best[(p["h"], p["t"])] is p], key=lambda p: p["score"], reverse=True)
    c = np.cumsum([(p["h"], p["t"]) in facts for p in ranking])
    assert rows[0].auc == sklearn_auc(c / len(facts), c / np.arange(1, len(c) + 1))


def test_f1_at_a_threshold_and_max_f1(tmp_path: Path) -> None:
    result = score(GOLD, PCNN, RankedConfig(duplicates="max", threshold=0.3, beta=2.0))
    preds = _read(PCNN)
    facts = {(g["h"]["id"], g["t"]["id"], g["relation"]) for g in _read(GOLD) if g["relation"] != "NA"}
    best: dict[tuple[str, str, str], float] = {}
    for p in preds:
        if p["relation"] != "NA":
            key = (p["h"], p["t"], p["relation"])
            best[key] = max(best.get(key, -1.0), p["score"])
    above = {k for k, s in best.items() if s >= 0.3}
    tp = len(above & facts)
    precision, recall = tp / len(above), tp / len(facts)
    assert result.measures["f1@0.3"] == pytest.approx(5 * precision * recall / (4 * precision + recall), abs=1e-15)


# --------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"h": "a", "t": "b", "relation": "r"}', "score"),
        ('{"h": "a", "t": "b", "relation": "r", "score": "0.5"}', "score"),
        ('{"h": "", "t": "b", "relation": "r", "score": 0.5}', "h"),
        ('{"h": "a", "relation": "r", "score": 0.5}', "t"),
        ('{"h": "a", "t": "b", "relation": "r", "score": 0.5', None),
    ],
)
def test_bad_prediction_lines_are_located(line: str, field: str | None, tmp_path: Path) -> None:
    good = '{"h": "a", "t": "b", "relation": "s", "score": 0.1}'
    path = tmp_path / "p.jsonl"
    other = good.replace('"s"', '"q"')
    path.write_text(f"{good}\n{other}\n{line}\n")
    with pytest.raises(InputError) as caught:
        score(GOLD, path)
    assert caught.value.line == 3 and caught.value.field == field


@pytest.mark.parametrize(
    ("body", "field", "line"),
    [("a\tb\tr\tx\n", "score", 2), ("a\tb\tr\n", None, 2), ("a\tb\tr\tnan\n", "score", 2), ("a\t\tr\t1\n", "t", 2)],
)
def test_bad_tsv_lines_are_located(body: str, field: str | None, line: int, tmp_path: Path) -> None:
    path = tmp_path / "p.tsv"
    path.write_text("h\tt\trelation\tscore\n" + body)
    with pytest.raises(InputError) as caught:
        score(GOLD, path)
    assert (caught.value.line, caught.value.field) == (line, field)


def test_bad_gold_lines_are_located(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text('{"h": {"id": "a"}, "t": {"id": "b"}, "relation": "r"}\n{"h": {"name": "x"}, "t": {"id": "b"}}\n')
    with pytest.raises(InputError) as caught:
        score(path, PCNN)
    assert (caught.value.line, caught.value.field) == (2, "h.id")


@pytest.mark.parametrize(
    "settings", [{"ties": "random"}, {"duplicates": "sum"}, {"at": "0"}, {"at": "x"}, {"threshold": "nan"}]
)
def test_bad_settings_are_option_errors(settings: dict[str, Any]) -> None:
    with pytest.raises(OptionError):
        RankedConfig(**settings)


def test_command_line_errors_exit_2_with_one_located_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "p.tsv"
    bad.write_text("a\tb\tr\t0.5\na\tb\tr\toops\n")
    out = tmp_path / "out.json"
    assert main(["score", "--task", "ranked", str(GOLD), str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {bad}:2: field 'score': expected a number, got 'oops'"]
    assert not out.exists()
    assert main(["score", "--task", "ranked", str(GOLD), str(PCNN)]) == 2  # duplicates refused
    assert "predicted again" in capsys.readouterr().err
    assert main(["score", "--task", "ranked", "--at", "0", str(GOLD), str(CNN)]) == 2
    assert "--at" in capsys.readouterr().err
    assert main(["score", str(GOLD), str(CNN), "--ties", "average"]) == 2  # an rc run: the option is refused
    assert "--ties" in capsys.readouterr().err
    assert main(["score", "--task", "ranked", "--negative", "N/A", str(GOLD), str(CNN)]) == 2  # a typo of NA
    assert "--negative: 'N/A' is not a relation of gold" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------- commands


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "latex", "csv"])
def test_score_compare_stats_in_every_format(fmt: str, tmp_path: Path) -> None:
    common = ["--task", "ranked", "--duplicates", "count", "-f", fmt]
    out = tmp_path / f"score.{fmt}"
    assert main(["score", *common, str(GOLD), f"pcnn={PCNN}", f"cnn={CNN}", "-o", str(out)]) == 0
    text = out.read_text()
    assert "pcnn" in text and "cnn" in text
    out = tmp_path / f"compare.{fmt}"
    assert main(["compare", *common, "-R", "20", str(GOLD), f"pcnn={PCNN}", f"cnn={CNN}", "-o", str(out)]) == 0
    assert "p@100" in out.read_text()
    out = tmp_path / f"stats.{fmt}"
    assert main(["stats", "--task", "ranked", "-f", fmt, str(GOLD), "-o", str(out)]) == 0
    assert "facts" in out.read_text()


def test_score_json_carries_the_measures_and_the_signature(tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    assert (
        main(["score", "--task", "ranked", "--duplicates", "count", str(GOLD), str(PCNN), "-f", "json", "-o", str(out)])
        == 0
    )
    document = json.loads(out.read_text())
    (result,) = document["results"]
    assert result["measures"]["auc"] == REFERENCE["cases"][0]["auc"]
    assert "ties=input-order,duplicates=count" in result["signature"]
    assert document["task"] == "ranked"


def test_stats_gives_harbecke_columns_over_sentences_and_facts(tmp_path: Path) -> None:
    out = tmp_path / "stats.json"
    assert main(["stats", "--task", "ranked", str(GOLD), "-f", "json", "-o", str(out)]) == 0
    document = json.loads(out.read_text())
    rows = {row["view"]: row for row in document["rows"]}
    gold = _read(GOLD)
    sentences = [g["relation"] for g in gold]
    assert rows["sentences"]["samples"] == len(sentences)
    assert rows["sentences"]["negative"] == sentences.count("NA")
    counts = {r: sentences.count(r) for r in set(sentences) if r != "NA"}
    assert rows["sentences"]["ratio"] == max(counts.values()) / min(counts.values())
    p = np.array([sentences.count(r) for r in set(sentences)]) / len(sentences)
    assert rows["sentences"]["perplexity"] == pytest.approx(2 ** -(p * np.log2(p)).sum(), abs=1e-12)
    bags: dict[tuple[str, str], set[str]] = {}
    for g in gold:
        bags.setdefault((g["h"]["id"], g["t"]["id"]), set()).add(g["relation"])
    facts = sum(len(r - {"NA"}) for r in bags.values())
    na_bags = sum(r == {"NA"} for r in bags.values())
    assert rows["facts"]["samples"] == facts + na_bags and rows["facts"]["negative"] == na_bags
    assert document["n_items"] == len(bags)


# --------------------------------------------------------------------------------------------- comparison


def test_compare_returns_a_paired_table_of_the_task_measures() -> None:
    config = RankedConfig(duplicates="count")
    test = SignificanceConfig(("bootstrap", "randomization"), resamples=200)
    table = compare_files(GOLD, {"pcnn": [PCNN], "cnn": [CNN]}, config, test)
    assert set(get_task("ranked").measures) <= set(table.metrics)
    assert table.scores["pcnn"]["auc"] == REFERENCE["cases"][0]["auc"]
    assert table.unit == "bags" and table.n == 155  # 150 gold bags and 5 pairs only predicted
    boot = {r.metric: r for r in table.rows if r.test == "bootstrap"}
    for m in table.metrics:
        low, high = boot[m].ci_a  # type: ignore[misc]
        assert low <= table.scores["pcnn"][m] <= high or m.endswith("-auc")
    assert "bags" in table.signature["test"]


def test_a_system_compared_with_itself_has_p_one(tmp_path: Path) -> None:
    copy = tmp_path / "copy.tsv"
    copy.write_text(CNN.read_text())
    test = SignificanceConfig(("bootstrap", "randomization"), resamples=50)
    table = compare_files(GOLD, {"a": [CNN], "b": [copy]}, RankedConfig(duplicates="count"), test)
    assert all(r.p_value == 1.0 and r.effect == 0.0 for r in table.rows)


def test_bootstrap_of_one_bag_per_draw_matches_a_direct_resample(tmp_path: Path) -> None:
    """A resample's AUC computed by weights equals the AUC of the resampled files written out."""
    from releval.significance.ranked import SortedSystem, prepare, weighted_measures

    config = RankedConfig(duplicates="max")
    prepared = prepare(GOLD, {"a": PCNN}, config)
    pairs = list(prepared.gold.pairs)
    rng = np.random.default_rng(4)
    counts = np.bincount(rng.integers(0, len(pairs), len(pairs)), minlength=prepared.n_units)
    system = SortedSystem.of(prepared.systems["a"])
    w = counts[prepared.fact_units].astype(float)
    per_relation = np.bincount(prepared.fact_relations, weights=w, minlength=prepared.n_relations)
    got = weighted_measures(system, counts[system.units], w.sum(), per_relation, config)
    # the same resample by hand: each bag's facts and predictions copied counts[bag] times, copies side by side
    ranking = sorted(range(system.scores.size), key=lambda i: -system.scores[i])
    hits = [h for i in ranking for h in [system.hits[i]] * int(counts[system.units[i]])]
    c = np.cumsum(hits)
    expected = sklearn_auc(c / w.sum(), c / np.arange(1, len(c) + 1))
    assert got["auc"] == pytest.approx(expected, abs=1e-12)
    assert not math.isnan(got["entropy-auc"])


@pytest.mark.parametrize("ties", ["input-order", "average"])
def test_resampling_measures_of_the_unresampled_data_are_the_scores(ties: str) -> None:
    """weighted_measures (the vectorised per-relation AUCs of the resampling tests) with every weight 1 gives the
    score's measures."""
    from releval.significance.ranked import SortedSystem, prepare, weighted_measures

    config = RankedConfig(duplicates="count", ties=ties)
    prepared = prepare(GOLD, {"a": PCNN}, config)
    system = SortedSystem.of(prepared.systems["a"])
    per_relation = np.bincount(prepared.fact_relations, minlength=prepared.n_relations).astype(float)
    got = weighted_measures(
        system, np.ones(system.scores.size, dtype=np.int64), prepared.gold.n_facts, per_relation, config
    )
    expected = prepared.results["a"].measures
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


def test_plot_pr_curve_draws_the_scored_curve(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out, data = tmp_path / "pr.png", tmp_path / "pr.json"
    argv = ["plot", "pr-curve", "--duplicates", "count", str(GOLD), f"pcnn={PCNN}", f"cnn={CNN}"]
    assert main([*argv, "-o", str(out), "--data-json", str(data)]) == 0
    assert out.read_bytes().startswith(b"\x89PNG")
    document = json.loads(data.read_text())["data"]
    first = document["systems"][0]
    assert first["system"] == "pcnn" and first["auc"] == REFERENCE["cases"][0]["auc"]
    expected = score(GOLD, PCNN, COUNT)
    rank = first["rank"].index(100)
    assert first["precision"][rank] == expected.measures["p@100"]
    assert first["rank"][-1] == expected.n_predictions
    assert main([*argv, "-o", str(tmp_path / "pr.gif")]) == 2  # the suffix picks the format: refused
    assert main(["plot", "pr-curve", str(GOLD), str(PCNN), "-o", str(out)]) == 2  # duplicates refused
