"""Ranks of scores and the bounds of a rank over resamples (releval.significance.ranks uses them on the joint
bootstrap's draws; the definitions are in its notes).

>>> competition_ranks(np.array([0.9, 0.5, 0.5, 0.4, np.nan])).tolist()
[1, 2, 2, 4, 5]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class RankInterval:
    """A system's rank by its observed score and the range of its ranks in the central `confidence` of resamples."""

    rank: int
    low: int
    high: int

    def to_dict(self) -> dict[str, int]:
        return {"rank": self.rank, "low": self.low, "high": self.high}


def competition_ranks(scores: NDArray[np.float64]) -> NDArray[np.int64]:
    """1 + the number of strictly higher scores, along the first axis (systems); NaN ranks below every number."""
    x = np.where(np.isnan(scores), -np.inf, scores)
    n = x.shape[0]
    ranked = np.sort(x, axis=0)
    if x.ndim == 1:
        return (n - np.searchsorted(ranked, x, side="right") + 1).astype(np.int64)
    out = np.empty(x.shape, dtype=np.int64)
    for r in range(x.shape[1]):  # one sort per resample; S log S each
        out[:, r] = n - np.searchsorted(ranked[:, r], x[:, r], side="right") + 1
    return out


def rank_bounds(ranks: NDArray[np.int64], confidence: float) -> tuple[int, int]:
    """The central range of `ranks` (one per resample) holding at least `confidence` of them (module notes)."""
    tail = (1.0 - confidence) / 2.0
    low = np.quantile(ranks, tail, method="lower")
    high = np.quantile(ranks, 1.0 - tail, method="higher")
    return int(low), int(high)
