"""A small benchmark for the service tests: 300 items, labels A–D and no_relation, and predictions with a given
share of errors, deterministic by seed; written as JSONL (`{"id", "label"}`), a format every path reads."""

from __future__ import annotations

import json
import random
from pathlib import Path

LABELS = ["no_relation", "A", "B", "C", "D"]
WEIGHTS = [0.6, 0.2, 0.1, 0.07, 0.03]
N = 300


def gold_labels(n: int = N) -> list[str]:
    rng = random.Random(7)
    return rng.choices(LABELS, WEIGHTS, k=n)


def predictions(seed: int, error: float = 0.25, n: int = N) -> list[str]:
    rng = random.Random(1000 + seed)
    return [rng.choice(LABELS) if rng.random() < error else g for g in gold_labels(n)]


def jsonl(labels: list[str]) -> bytes:
    return "".join(json.dumps({"id": f"x{i}", "label": lbl}) + "\n" for i, lbl in enumerate(labels)).encode()


def write(path: Path, labels: list[str]) -> Path:
    path.write_bytes(jsonl(labels))
    return path
