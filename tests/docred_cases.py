"""Inputs of the DocRED tests: made-up edge cases and a deterministic perturbation of a gold file.

The reference scorers (thunlp/DocRED code/evaluation.py, wzhouad/ATLOP evaluation.py, tonytan48/Re-DocRED
evaluation.py) were run OUTSIDE this repository on exactly these inputs; their outputs are stored, with where they
came from, in tests/data/docred_reference_vectors.json. This module only builds the inputs (no reference code).
"""

from __future__ import annotations

import random
from typing import Any

#: Relations the perturbation mislabels to (frequent and rare Re-DocRED types).
SWAP_TO = ("P17", "P131", "P27", "P150", "P361", "P527", "P1001", "P205", "P86", "P22")


def perturb(gold: list[dict[str, Any]], seed: int = 0, unknown_title: bool = True) -> list[dict[str, Any]]:
    """A submission made from gold: drop ~15 % of facts, mislabel ~10 %, change evidence, add ~3 false facts per
    document, repeat a few predictions (with other evidence), give some no `evidence` key, add one prediction for
    a title absent from gold (unless `unknown_title` is False: Re-DocRED's benchmark function raises KeyError
    on one); every prediction has a `score` (correct ones higher on average).

    Deterministic: `random.Random(seed)` only (its sequence is stable across Python 3 versions).
    """
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for doc in gold:
        title, n_ent, n_sent = doc["title"], len(doc["vertexSet"]), len(doc["sents"])
        for label in doc["labels"]:
            u = rng.random()
            if u < 0.15:
                continue
            r = label["r"]
            correct = True
            if u < 0.25:
                r = SWAP_TO[rng.randrange(len(SWAP_TO))]
                correct = r == label["r"]
            evidence = list(label.get("evidence", []))
            v = rng.random()
            if v < 0.2 and evidence:
                evidence = evidence[1:]
            elif v < 0.4:
                evidence = sorted(set(evidence) | {rng.randrange(n_sent)})
            pred: dict[str, Any] = {"title": title, "h_idx": label["h"], "t_idx": label["t"], "r": r}
            if rng.random() < 0.9:
                pred["evidence"] = evidence
            pred["score"] = round(rng.random() * 0.5 + (0.5 if correct else 0.2), 6)
            out.append(pred)
            if rng.random() < 0.03:
                out.append({**pred, "evidence": [rng.randrange(n_sent)], "score": 0.1})
        for _ in range(3):
            h, t = rng.randrange(n_ent), rng.randrange(n_ent)
            if h == t:
                continue
            out.append(
                {
                    "title": title,
                    "h_idx": h,
                    "t_idx": t,
                    "r": SWAP_TO[rng.randrange(len(SWAP_TO))],
                    "evidence": [rng.randrange(n_sent)],
                    "score": round(rng.random() * 0.6, 6),
                }
            )
    if unknown_title:
        out.append({"title": "A title not in gold", "h_idx": 0, "t_idx": 1, "r": "P17", "evidence": [0], "score": 0.3})
    rng.shuffle(out)
    return out


def _mention(name: str, sent: int) -> dict[str, Any]:
    return {"name": name, "sent_id": sent, "pos": [0, 1], "type": "MISC"}


def _doc(title: str, entities: list[list[tuple[str, int]]], labels: list[tuple[int, int, str, list[int]]]) -> dict:
    n_sent = 1 + max(s for e in entities for _, s in e)
    return {
        "title": title,
        "sents": [["w"] for _ in range(n_sent)],
        "vertexSet": [[_mention(n, s) for n, s in e] for e in entities],
        "labels": [{"h": h, "t": t, "r": r, "evidence": ev} for h, t, r, ev in labels],
    }


_ENTS = [[("Alice", 0)], [("Acme", 0), ("Acme Corp", 2)], [("Paris", 1)], [("France", 3)]]
_GOLD = [
    _doc(
        "D1",
        _ENTS,
        [(0, 1, "P108", [0]), (1, 2, "P159", [1, 2]), (2, 3, "P17", [1, 3]), (0, 3, "P27", [0, 3])],
    ),
    _doc("D2", [[("Bob", 0)], [("Berlin", 0)], [("Germany", 1)]], [(0, 1, "P19", [0]), (1, 2, "P17", [0, 1])]),
]

#: name → {truth, train_annotated (facts), train_distant (facts), submission}: made-up edge cases.
CASES: dict[str, dict[str, Any]] = {
    "mixed": {
        "truth": _GOLD,
        "train_annotated": [["Acme", "Paris", "P159"], ["Bob", "Berlin", "P19"]],
        "train_distant": [["Paris", "France", "P17"], ["Alice", "Acme Corp", "P108"]],
        "submission": [
            {"title": "D1", "h_idx": 0, "t_idx": 1, "r": "P108", "evidence": [0, 1]},
            {"title": "D1", "h_idx": 1, "t_idx": 2, "r": "P159", "evidence": [1]},
            {"title": "D1", "h_idx": 1, "t_idx": 2, "r": "P159", "evidence": [1, 2]},
            {"title": "D1", "h_idx": 2, "t_idx": 3, "r": "P17"},
            {"title": "D1", "h_idx": 3, "t_idx": 2, "r": "P17", "evidence": [3]},
            {"title": "D2", "h_idx": 0, "t_idx": 1, "r": "P19", "evidence": [0]},
            {"title": "D2", "h_idx": 0, "t_idx": 2, "r": "P27", "evidence": [0, 1]},
            {"title": "D9", "h_idx": 0, "t_idx": 1, "r": "P17", "evidence": [0]},
        ],
    },
    "empty_submission": {"truth": _GOLD, "train_annotated": [], "train_distant": [], "submission": []},
    "all_correct_in_train": {
        "truth": _GOLD,
        "train_annotated": [["Alice", "Acme", "P108"], ["Bob", "Berlin", "P19"]],
        "train_distant": [],
        "submission": [
            {"title": "D1", "h_idx": 0, "t_idx": 1, "r": "P108", "evidence": [0]},
            {"title": "D2", "h_idx": 0, "t_idx": 1, "r": "P19", "evidence": [0]},
        ],
    },
    "gold_without_evidence": {
        "truth": [_doc("E1", _ENTS, [(0, 1, "P108", []), (2, 3, "P17", [])])],
        "train_annotated": [],
        "train_distant": [],
        "submission": [
            {"title": "E1", "h_idx": 0, "t_idx": 1, "r": "P108", "evidence": [0]},
            {"title": "E1", "h_idx": 0, "t_idx": 2, "r": "P17", "evidence": []},
        ],
    },
    "one_prediction": {
        "truth": _GOLD,
        "train_annotated": [],
        "train_distant": [],
        "submission": [{"title": "D1", "h_idx": 2, "t_idx": 3, "r": "P17", "evidence": [1]}],
    },
    "only_unknown_titles": {
        "truth": _GOLD,
        "train_annotated": [],
        "train_distant": [],
        "submission": [
            {"title": "X1", "h_idx": 0, "t_idx": 1, "r": "P17", "evidence": [0]},
            {"title": "X2", "h_idx": 0, "t_idx": 1, "r": "P19"},
        ],
    },
    "duplicate_gold_labels": {
        "truth": [_doc("G1", _ENTS, [(0, 1, "P108", [0]), (0, 1, "P108", [0, 2, 2]), (2, 3, "P17", [1])])],
        "train_annotated": [],
        "train_distant": [],
        "submission": [
            {"title": "G1", "h_idx": 0, "t_idx": 1, "r": "P108", "evidence": [0, 2]},
            {"title": "G1", "h_idx": 2, "t_idx": 3, "r": "P17", "evidence": [1, 1]},
        ],
    },
}
