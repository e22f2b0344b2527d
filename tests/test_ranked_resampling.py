"""The paired bootstrap of ranked facts reads each resample off one ranking (releval.metrics.ranked.Runs): its
numbers must be those of the resampled list written out and ranked again.

A resample draws entity pairs (bags) with replacement; a bag drawn w times contributes w copies of each of its
predictions and of its gold facts. Here the resample is written out as data — copy j of bag (h, t) renamed
(h#j, t), each prediction row repeated in place, so copies of a row sit side by side in file order — and scored by
`opennre_loop` (tests/test_ranked.py: a stable sort by score, cumulative hits, sklearn.metrics.auc), per relation
too; and, for both tie policies, by `expanded_measures` (the expanded arrays ranked as a curve).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sklearn.metrics import auc as sklearn_auc
from tests.ranked_data import make_gold, make_predictions
from tests.test_ranked import opennre_loop

from releval.significance import ranked as sr
from releval.tasks.ranked import RankedConfig

GOLD = make_gold(n_bags=60, seed=3)
PREDS = make_predictions(GOLD, seed=5)  # ties (2 decimals), NA rows, duplicates, pairs gold does not have


def _prepared(tmp_path: Any, config: RankedConfig) -> tuple[sr.Prepared, dict[int, tuple[str, str]], list[dict]]:
    """Gold and PREDS prepared as `compare` prepares them, each unit's (h, t), and PREDS without NA rows (the rows
    the system's Ranked arrays follow, in file order)."""
    import json

    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    gold.write_text("".join(json.dumps(r) + "\n" for r in GOLD), encoding="utf-8")
    pred.write_text("".join(json.dumps(p) + "\n" for p in PREDS), encoding="utf-8")
    prepared = sr.prepare(gold, {"a": pred}, config)
    rows = [p for p in PREDS if p["relation"] != "NA"]
    units = {bag: pair for pair, bag in prepared.gold.pairs.items()}
    units |= {int(u): (p["h"], p["t"]) for u, p in zip(prepared.systems["a"].bags, rows)}
    assert len(units) == prepared.n_units
    return prepared, units, rows


def _written_out(counts: np.ndarray, units: dict[int, tuple[str, str]], rows: list[dict]) -> tuple[list, list]:
    """The resample as files: gold sentences and prediction rows, copy j of a pair renamed (h#j, t)."""
    unit_of = {pair: u for u, pair in units.items()}
    gold = [
        {**g, "h": {"id": f"{g['h']['id']}#{j}"}}
        for g in GOLD
        for j in range(int(counts[unit_of[(g["h"]["id"], g["t"]["id"])]]))
    ]
    preds = [{**p, "h": f"{p['h']}#{j}"} for p in rows for j in range(int(counts[unit_of[(p["h"], p["t"])]]))]
    return gold, preds


def _loop_measures(gold: list[dict], preds: list[dict], threshold: float) -> dict[str, float]:
    """auc, P@100/200/300, max F1, F1 at the threshold and macro-AUC (per relation: its predictions against its
    facts) of the written-out resample, by opennre_loop and sklearn."""
    whole = opennre_loop(gold, preds)
    ranking = sorted(preds, key=lambda p: p["score"], reverse=True)
    m = sum(p["score"] >= threshold for p in ranking)
    p, r = (whole["prec"][m - 1], whole["rec"][m - 1]) if m else (0.0, 0.0)
    out = {k: whole[k] for k in ("auc", "p@100", "p@200", "p@300", "max_f1")}
    out["f1@0.5"] = 2 * p * r / (p + r) if p + r > 0 else 0.0
    aucs = []
    for rel in sorted({g["relation"] for g in gold} - {"NA"}):
        facts = {(g["h"]["id"], g["t"]["id"]) for g in gold if g["relation"] == rel}
        mine = [x for x in ranking if x["relation"] == rel]
        c = np.cumsum([(x["h"], x["t"]) in facts for x in mine])
        aucs.append(sklearn_auc(c / len(facts), c / np.arange(1, len(c) + 1)) if len(c) >= 2 else 0.0)
    out["macro-auc"] = float(np.mean(aucs))
    return out


@pytest.mark.parametrize("ties", ["input-order", "average"])
def test_a_resample_read_off_one_ranking_is_the_resampled_list_ranked_again(ties: str, tmp_path: Any) -> None:
    config = RankedConfig(duplicates="count", ties=ties, weightings=("macro",))
    prepared, units, rows = _prepared(tmp_path, config)
    system = sr.SortedSystem.of(prepared.systems["a"])
    rng = np.random.default_rng(8)
    fixed = sr._facts_of(prepared, np.ones(prepared.n_units, dtype=np.int64))[1] > 0
    for draw in range(4):
        counts = np.bincount(rng.integers(0, prepared.n_units, prepared.n_units), minlength=prepared.n_units)
        if draw == 3:  # a resample with a bag drawn many times (long runs of copies)
            counts[int(system.units[0])] = 7
        facts, per_relation = sr._facts_of(prepared, counts)
        weights = counts[system.units]
        for mask in (None, fixed):
            fast = sr.weighted_measures(system, weights, facts, per_relation, config, mask)
            slow = sr.expanded_measures(system, weights, facts, per_relation, config, mask)
            assert fast.keys() == slow.keys()
            for key in fast:
                assert fast[key] == pytest.approx(slow[key], abs=1e-12, rel=0), (draw, key)
        if ties == "input-order":
            fast = sr.weighted_measures(system, weights, facts, per_relation, config)
            expected = _loop_measures(*_written_out(counts, units, rows), config.threshold)
            for key, value in expected.items():
                assert fast[key] == pytest.approx(value, abs=1e-12, rel=0), (draw, key)


def test_swapped_systems_0_1_weights_are_the_sub_ranking(tmp_path: Any) -> None:
    """The randomization test weighs the merged ranking of two systems 0/1: the fast path gives the measures of the
    rows kept, ranked alone."""
    config = RankedConfig(duplicates="count", weightings=("macro", "weighted"))
    prepared, _, _ = _prepared(tmp_path, config)
    system = sr.SortedSystem.of(prepared.systems["a"])
    keep = (np.random.default_rng(2).random(system.scores.size) < 0.5).astype(np.int64)
    facts, per_relation = sr._facts_of(prepared, np.ones(prepared.n_units, dtype=np.int64))
    fast = sr.weighted_measures(system, keep, facts, per_relation, config)
    slow = sr.expanded_measures(system, keep, facts, per_relation, config)
    assert fast == pytest.approx(slow, abs=1e-12, rel=0)
