"""Mistaken end-to-end RE predictions (SpERT JSON), made from the bundled CoNLL04 slice
(examples/conll04/conll04_test_first30.json): the docs' toy system (docs/e2e.md's worked example: the fourth
mention of a sentence retyped, the last relation of every fifth sentence dropped; Strict 77.55, Boundaries 93.88
micro-F1) written with the mistake, scored against the slice.

Every command that scores e2e predictions must refuse the label mistakes (they match nothing: 0.00 shown as a
score) and warn for the two inputs that give a plausible number for the wrong reason (gold given twice, gold and
predictions given the other way round).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import CONLL04_TYPES, EXAMPLES

from mistakes import Files, Mistake

GOLD = json.loads((EXAMPLES / "conll04" / "conll04_test_first30.json").read_text(encoding="utf-8"))
SWAP = {"Loc": "Org", "Org": "Loc", "Peop": "Other", "Other": "Peop"}


def toy_system() -> list[dict]:
    """docs/e2e.md's worked example system on the 30 sentences."""
    docs = copy.deepcopy(GOLD)
    for k, doc in enumerate(docs):
        if len(doc["entities"]) >= 4:
            doc["entities"][3]["type"] = SWAP[doc["entities"][3]["type"]]
        if k % 5 == 0 and doc["relations"]:
            doc["relations"] = doc["relations"][:-1]
    return docs


def lower_relations(docs: list[dict]) -> list[dict]:
    """Every relation type lower-cased (`Live_In` → `live_in`): a system that lower-cased its label vocabulary."""
    for doc in docs:
        for relation in doc["relations"]:
            relation["type"] = relation["type"].lower()
    return docs


def upper_entities(docs: list[dict]) -> list[dict]:
    """Every entity type upper-cased (`Peop` → `PEOP`)."""
    for doc in docs:
        for entity in doc["entities"]:
            entity["type"] = entity["type"].upper()
    return docs


def misspelt_live_in(docs: list[dict]) -> list[dict]:
    """`Live_In` written `Lives_In`: a type the types file does not declare."""
    for doc in docs:
        for relation in doc["relations"]:
            if relation["type"] == "Live_In":
                relation["type"] = "Lives_In"
    return docs


def spaced_relations(docs: list[dict]) -> list[dict]:
    """A space after every relation type (`Live_In `): a type column written with its padding."""
    for doc in docs:
        for relation in doc["relations"]:
            relation["type"] += " "
    return docs


def _write(path: Path, docs: list[dict]) -> Path:
    path.write_text(json.dumps(docs), encoding="utf-8")
    return path


def _pair(mistake: Callable[[list[dict]], list[dict]]) -> Callable[[Path], Files]:
    """Gold, the toy system with `mistake`, and the toy system as it is (the second system of compare)."""

    def make(folder: Path) -> Files:
        gold = _write(folder / "conll04_test.json", GOLD)
        pred = _write(folder / "system_a.json", mistake(toy_system()))
        return Files(gold, pred, _write(folder / "system_b.json", toy_system()))

    return make


def _swapped(folder: Path) -> Files:
    """The toy system's output given as gold (named like an output) and the dataset as predictions (named
    like gold): precision and recall exchanged, nothing refused."""
    gold = _write(folder / "spert_predictions.json", toy_system())
    pred = _write(folder / "conll04_test_gold.json", GOLD)
    return Files(gold, pred, _write(folder / "system_b.json", toy_system()))


CASES = [
    Mistake(
        "e2e",
        "lower-cased relation types",
        _pair(lower_relations),
        "relation type(s) differ from gold's only in letter case",
    ),
    Mistake(
        "e2e",
        "upper-cased entity types",
        _pair(upper_entities),
        "entity type(s) differ from gold's only in letter case",
    ),
    Mistake(
        "e2e",
        "relation types with white space",
        _pair(spaced_relations),
        "relation type(s) carry trailing white space",
    ),
    Mistake(
        "e2e",
        "relation type outside --types",
        _pair(misspelt_live_in),
        "'Lives_In' (closest declared 'Live_In')",
        options=("--types", str(CONLL04_TYPES)),
    ),
    Mistake(
        "e2e",
        "predictions identical to gold",
        _pair(lambda _: copy.deepcopy(GOLD)),
        "predictions equal gold",
        refused=False,
    ),
    Mistake(
        "e2e", "gold and predictions swapped (by name)", _swapped, "gold and predictions may be swapped", refused=False
    ),
]
