"""Make a made-up DocRED submission from a gold file (not a real system), for the worked examples.

    python examples/docred/make_systems.py GOLD OUT KEEP SEED

keeps each gold fact with probability KEEP (its relation replaced by a random one of the gold's types 5 % of the
time), adds one false fact per document, copies the gold evidence; deterministic (`random.Random(SEED)`).
The bundled `revisit_system_a.json.gz` and `revisit_system_b.json.gz` were made with

    python examples/docred/make_systems.py examples/docred/revisit_valid_scratch.json.gz \
        examples/docred/revisit_system_a.json.gz 0.6 1
    python examples/docred/make_systems.py examples/docred/revisit_valid_revise.json.gz \
        examples/docred/revisit_system_b.json.gz 0.85 2

— A finds 60 % of the facts of Revisit-DocRED's annotation from scratch, B 85 % of the original (incomplete)
annotation's: like a model trained on complete labels against one trained on DocRED's missing ones.
"""

from __future__ import annotations

import gzip
import json
import random
import sys


def submission(gold: list[dict], keep: float, seed: int) -> list[dict]:
    rng = random.Random(seed)
    relations = sorted({label["r"] for doc in gold for label in doc["labels"]})
    out = []
    for doc in gold:
        seen = set()
        for label in doc["labels"]:
            if rng.random() >= keep:
                continue
            r = label["r"] if rng.random() >= 0.05 else rng.choice(relations)
            if (label["h"], label["t"], r) in seen:
                continue
            seen.add((label["h"], label["t"], r))
            pred = {"title": doc["title"], "h_idx": label["h"], "t_idx": label["t"], "r": r}
            out.append({**pred, "evidence": list(label.get("evidence", []))})
        h, t, r = rng.randrange(len(doc["vertexSet"])), rng.randrange(len(doc["vertexSet"])), rng.choice(relations)
        if h != t and (h, t, r) not in seen:
            out.append({"title": doc["title"], "h_idx": h, "t_idx": t, "r": r, "evidence": [0]})
    return out


if __name__ == "__main__":
    gold_path, out_path, keep, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    opener = gzip.open if gold_path.endswith(".gz") else open
    with opener(gold_path, "rt", encoding="utf-8") as f:
        gold = json.load(f)
    data = json.dumps(submission(gold, keep, seed)).encode("utf-8")
    if out_path.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    with open(out_path, "wb") as f:
        f.write(data)
