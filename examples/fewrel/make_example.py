"""Make the bundled FewRel example: 50 five-way one-shot episodes sampled from FewRel's val_wiki, and the
predictions of two simple nearest-support baselines (docs/fewrel.md shows them scored and compared).

    python examples/fewrel/make_example.py ../shared/data/fewrel/val_wiki.json.gz examples/fewrel

Writes `input-5-1.json.gz` (FewRel's test-input format: what a system reads), `gold-5-1.json.gz` (the same entries
with their answers: releval's gold), `answers-5-1.json` (the official answer list) and the two systems'
predictions, `pred-bow-5-1.json` and `pred-between-5-1.json` (the official submission format: one integer per
entry); then 50 episodes with one none-of-the-above query each (`gold-5-1-nota.json.gz`, na_rate 1) and the same
baselines answering none-of-the-above when their best overlap is below 0.1 (`pred-*-5-1-nota.json`).
FewRel (Han et al. 2018) is MIT-licensed (thunlp/FewRel); see NOTICE.

The baselines score each support relation by the best token-overlap (Jaccard) between the query and one of its
support instances: `bow` over all tokens of the sentence, `between` over the tokens between the two entities (the
context that usually expresses the relation). No training, no model weights: they are here so that the example
has two real, different systems.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from releval.data.fewrel import sample_episodes, write_episodes


def _tokens(instance: dict[str, Any], between: bool) -> set[str]:
    words = [w.lower() for w in instance["tokens"]]
    if not between:
        return set(words)
    h = [p for span in instance["h"][2] for p in span]
    t = [p for span in instance["t"][2] for p in span]
    lo, hi = sorted((max(h), min(t)) if max(h) < min(t) else (max(t), min(h)))
    return set(words[lo + 1 : hi]) or set(words)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def predict(entry: dict[str, Any], between: bool, nota_below: float | None = None) -> int:
    """The support relation whose closest support instance overlaps the query most (first on ties); with
    `nota_below`, none-of-the-above (N) when even that overlap is below it."""
    query = _tokens(entry["meta_test"], between)
    scores = [max(_jaccard(query, _tokens(s, between)) for s in support) for support in entry["meta_train"]]
    best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    return len(scores) if nota_below is not None and scores[best] < nota_below else best


def main(val: str, out: str) -> None:
    folder = Path(out)
    entries = sample_episodes(val, n_way=5, k_shot=1, q_query=1, episodes=50, seed=2018)
    write_episodes(
        entries,
        folder / "input-5-1.json.gz",
        folder / "gold-5-1.json.gz",
        folder / "answers-5-1.json",
    )
    for name, between in (("bow", False), ("between", True)):
        preds = [predict(e, between) for e in entries]
        (folder / f"pred-{name}-5-1.json").write_text(json.dumps(preds) + "\n", encoding="utf-8")
    # FewRel 2.0's none-of-the-above setting: one NOTA query per episode beside the five (na_rate 1: 1/6)
    nota = sample_episodes(val, n_way=5, k_shot=1, q_query=1, na_rate=1, episodes=50, seed=2019)
    write_episodes(nota, None, folder / "gold-5-1-nota.json.gz")
    for name, between in (("bow", False), ("between", True)):
        preds = [predict(e, between, nota_below=0.1) for e in nota]
        (folder / f"pred-{name}-5-1-nota.json").write_text(json.dumps(preds) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:3])
