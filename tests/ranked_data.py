"""A deterministic synthetic NYT10-like ranked-facts set (there is no NYT10 data in the repository): OpenNRE gold
JSON lines with NA bags and multi-sentence bags, and scored predictions for every (bag, relation) as OpenNRE's
`BagRE.eval_model` writes them, with scores rounded so that many tie, NA predictions, duplicated predictions and
predictions for entity pairs absent from gold.

`python -m tests.ranked_data DIR` writes gold.jsonl, pred.jsonl, pred.tsv (and pred_a/pred_b for comparisons).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

RELATIONS = [f"/rel/r{i}" for i in range(12)]


def make_gold(n_bags: int = 150, seed: int = 7, na_share: float = 0.6) -> list[dict[str, Any]]:
    """Gold sentences: each bag 1-3 sentences; an NA bag has only NA sentences; a positive bag 1-2 relations."""
    rng = np.random.default_rng(seed)
    rows = []
    popularity = 1.0 / np.arange(1, len(RELATIONS) + 1) ** 1.2
    popularity /= popularity.sum()
    for b in range(n_bags):
        head, tail = f"m.h{b % 97}", f"m.t{b}"
        if rng.random() < na_share:
            relations = ["NA"]
        else:
            k = 1 + int(rng.random() < 0.25)
            relations = list(rng.choice(RELATIONS, size=k, replace=False, p=popularity))
        for _ in range(1 + int(rng.integers(0, 3))):
            rel = relations[int(rng.integers(0, len(relations)))]
            rows.append(
                {
                    "text": f"{head} sentence about {tail}",
                    "h": {"id": head, "name": head[2:], "pos": [0, len(head) - 2]},
                    "t": {"id": tail, "name": tail[2:], "pos": [22, 22 + len(tail) - 2]},
                    "relation": rel,
                }
            )
    return rows


def make_predictions(
    gold: list[dict[str, Any]], seed: int = 11, decimals: int = 2, skill: float = 1.5
) -> list[dict[str, Any]]:
    """A score for every (bag, relation) incl. NA, rounded to `decimals` (ties), plus duplicates (same and other
    scores) and predictions for unknown pairs, in a shuffled order."""
    rng = np.random.default_rng(seed)
    facts = {(r["h"]["id"], r["t"]["id"], r["relation"]) for r in gold if r["relation"] != "NA"}
    pairs = list(dict.fromkeys((r["h"]["id"], r["t"]["id"]) for r in gold))
    out = []
    for h, t in pairs:
        for rel in ["NA", *RELATIONS]:
            signal = skill if (h, t, rel) in facts else 0.0
            score = 1 / (1 + np.exp(-(rng.normal() + signal - 1.5)))
            out.append({"h": h, "t": t, "relation": rel, "score": round(float(score), decimals)})
    for i in range(5):  # entity pairs gold does not have
        out.append({"h": f"m.x{i}", "t": f"m.y{i}", "relation": RELATIONS[i], "score": round(0.3 + 0.1 * i, 2)})
    order = rng.permutation(len(out))
    out = [out[i] for i in order]
    hits = [p for p in out if (p["h"], p["t"], p["relation"]) in facts]
    for p in hits[:4] + out[:4]:  # duplicates: the same score and another
        out.append(dict(p))
        out.append({**p, "score": round(float(p["score"]) / 2, decimals)})
    return out


def write(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    gold = make_gold()
    lines = "".join(json.dumps(r) + "\n" for r in gold)
    (directory / "gold.jsonl").write_text(lines, encoding="utf-8")
    for name, seed, skill in (("pred", 11, 1.5), ("pred_a", 21, 1.8), ("pred_b", 31, 1.2)):
        preds = make_predictions(gold, seed, skill=skill)
        (directory / f"{name}.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds), encoding="utf-8")
    tsv = "h\tt\trelation\tscore\n" + "".join(
        f"{p['h']}\t{p['t']}\t{p['relation']}\t{p['score']!r}\n" for p in make_predictions(gold, 11, skill=1.5)
    )
    (directory / "pred.tsv").write_text(tsv, encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1]))
