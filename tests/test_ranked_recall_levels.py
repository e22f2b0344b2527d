"""Precision at recall levels, the P@10 % / P@30 % of the NYT tables (issue 33 item 5): on the bundled ranked
example equal to a count made here from the files by hand, interpolated or not, signed; and a resample's value read
off one ranking equals the resampled list ranked again, under both tie policies."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from releval import cli
from releval.core.errors import OptionError
from releval.significance import ranked as sr
from releval.tasks.ranked import RankedConfig, score

ROOT = Path(__file__).resolve().parents[1]
GOLD, CNN = ROOT / "examples" / "ranked" / "gold.jsonl", ROOT / "examples" / "ranked" / "cnn.tsv"

cli.register_commands([])


def p_at_recall_by_hand(interpolated: bool, gold: Path = GOLD, pred: Path = CNN) -> dict[int, float]:
    """The facts: every (head, tail, relation) of gold but NA; the predictions of cnn.tsv without NA, best score
    first (ties in file order: the default tie policy; every copy of a repeated prediction ranked and counted, as
    OpenNRE does: --duplicates count); P at the first rank whose recall reaches r % (or the
    highest P from there on)."""
    facts = set()
    for line in gold.read_text(encoding="utf-8").splitlines():
        g = json.loads(line)
        if g["relation"] != "NA":
            facts.add((g["h"]["id"], g["t"]["id"], g["relation"]))
    rows = [line.split("\t") for line in pred.read_text(encoding="utf-8").splitlines()[1:]]
    preds = [(h, t, rel, float(s)) for h, t, rel, s in rows if rel != "NA"]
    ranking = sorted(preds, key=lambda p: -p[3])  # sorted() is stable: input order among equal scores
    correct, precision, recall = 0, [], []
    for k, (h, t, rel, _) in enumerate(ranking, start=1):
        correct += (h, t, rel) in facts
        precision.append(correct / k)
        recall.append(correct / len(facts))
    out = {}
    for level in (10, 30):
        first = next(k for k, r in enumerate(recall) if r * 100 >= level - 1e-12)
        out[level] = max(precision[first:]) if interpolated else precision[first]
    return out


@pytest.mark.parametrize("interpolated", [True, False])
def test_p_at_recall_levels_equal_a_hand_count(interpolated: bool) -> None:
    config = RankedConfig(at_recall="10%,30%", interpolated=interpolated, duplicates="count")
    result = score(GOLD, CNN, config)
    expected = p_at_recall_by_hand(interpolated)
    assert result.measures["p@10%"] == pytest.approx(expected[10], abs=1e-15)
    assert result.measures["p@30%"] == pytest.approx(expected[30], abs=1e-15)
    assert ("p@r=interpolated" if interpolated else "p@r=first") in str(result.signature)


def test_interpolation_changes_the_number_and_the_signature() -> None:
    a = score(GOLD, CNN, RankedConfig(at_recall=(10,), duplicates="max"))
    b = score(GOLD, CNN, RankedConfig(at_recall=(10,), interpolated=False, duplicates="max"))
    assert a.measures["p@10%"] >= b.measures["p@10%"]
    assert str(a.signature) != str(b.signature)
    plain = score(GOLD, CNN, RankedConfig(duplicates="max"))
    assert "p@r" not in str(plain.signature) and "p@10%" not in plain.measures  # off unless asked for


@pytest.mark.parametrize("bad", ["0", "101", "ten", "10.5"])
def test_bad_levels_are_refused_by_name(bad: str) -> None:
    with pytest.raises(OptionError, match="at_recall"):
        RankedConfig(at_recall=bad)


@pytest.mark.parametrize("ties", ["input-order", "average"])
@pytest.mark.parametrize("interpolated", [True, False])
def test_a_resample_read_off_one_ranking_equals_the_list_ranked_again(ties: str, interpolated: bool) -> None:
    config = RankedConfig(duplicates="count", ties=ties, at_recall=(5, 10, 30, 50), interpolated=interpolated)
    prepared = sr.prepare(GOLD, {"a": CNN}, config)
    system = sr.SortedSystem.of(prepared.systems["a"])
    rng = np.random.default_rng(3)
    for draw in range(6):
        counts = np.bincount(rng.integers(0, prepared.n_units, prepared.n_units), minlength=prepared.n_units)
        if draw == 0:
            counts[:] = 1  # the data themselves: the score's numbers
        if draw == 5:
            counts[int(system.units[0])] = 9  # a long run of copies at the top
        facts, per_relation = sr._facts_of(prepared, counts)
        weights = counts[system.units]
        fast = sr.weighted_measures(system, weights, facts, per_relation, config)
        slow = sr.expanded_measures(system, weights, facts, per_relation, config)
        for key in ("p@5%", "p@10%", "p@30%", "p@50%"):
            assert fast[key] == pytest.approx(slow[key], abs=1e-12, rel=0), (draw, key)
        if draw == 0:
            measures = prepared.results["a"].measures
            assert {k: fast[k] for k in measures} == pytest.approx(measures, abs=1e-12)
