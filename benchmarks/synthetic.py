"""Synthetic TACRED-like label data shared by the benchmarks (one generator, so they time the same data).

42 labels: `no_relation` holds 79.5 % of the gold, the 41 positive classes share the rest geometrically;
35 % of predictions are wrong, half of those to the negative class and half to a random label.
"""

from __future__ import annotations

import numpy as np

LABELS = ["no_relation"] + [f"rel:{i:02d}" for i in range(41)]


def label_indices(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Gold and predicted indices into LABELS for n items."""
    rng = np.random.default_rng(seed)
    positive = 0.5 ** (np.arange(41) / 6.0)
    probs = np.concatenate([[0.795], 0.205 * positive / positive.sum()])
    gold = rng.choice(42, size=n, p=probs)
    pred = gold.copy()
    wrong = rng.random(n) < 0.35
    pred[wrong] = np.where(rng.random(wrong.sum()) < 0.5, 0, rng.integers(0, 42, wrong.sum()))
    return gold, pred
