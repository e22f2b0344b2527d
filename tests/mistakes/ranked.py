"""Ranked-facts predictions whose relations cannot match gold's, built from the bundled NYT10-like example
(examples/ranked, written by tests/ranked_data.py): a gold relation in other letter case and the negative class
in lower case (refused), and gold's facts as the predictions (warned). The example's predictions repeat some
(h, t, relation), so every command is given `--duplicates count` (OpenNRE's behaviour)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mistakes import Files, Mistake

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ranked"
GOLD = EXAMPLES / "gold.jsonl"
CNN = EXAMPLES / "cnn.tsv"
PCNN = EXAMPLES / "pcnn.jsonl"
COUNT = ("--duplicates", "count")


def relabelled(old: str, new: str) -> Callable[[Path], Files]:
    """cnn.tsv with every `old` relation written `new`."""

    def make(folder: Path) -> Files:
        pred = folder / "cnn.tsv"
        lines = CNN.read_text(encoding="utf-8").splitlines(keepends=True)
        pred.write_text("".join(line.replace(f"\t{old}\t", f"\t{new}\t") for line in lines), encoding="utf-8")
        return Files(GOLD, pred, PCNN)

    return make


def gold_facts(folder: Path) -> Files:
    """Every gold fact (h, t, relation not NA) once, with score 0.9."""
    facts = {}
    for line in GOLD.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["relation"] != "NA":
            facts[(r["h"]["id"], r["t"]["id"], r["relation"])] = None
    pred = folder / "facts.tsv"
    pred.write_text("".join(f"{h}\t{t}\t{r}\t0.9\n" for h, t, r in facts), encoding="utf-8")
    return Files(GOLD, pred, PCNN)


CASES = [
    Mistake(
        "ranked",
        "lower-cased relation",
        relabelled("/rel/r1", "/REL/R1"),
        "differ from gold's only in letter case: '/REL/R1' (gold '/rel/r1') (first at line",
        options=COUNT,
    ),
    Mistake("ranked", "lower-cased NA", relabelled("NA", "na"), "letter case: 'na' (gold 'NA')", options=COUNT),
    Mistake("ranked", "gold facts as predictions", gold_facts, "predictions equal gold", False, COUNT),
]
