"""Few-shot accuracy over episodes: per-episode accuracies, their mean per setting, and the per-episode statistics
the paired bootstrap and the randomization test resample (releval.metrics.cells).

An episode's accuracy is the share of its queries answered correctly; a setting's accuracy is the mean of its
episodes' accuracies (FewRel's `fewshot_re_kit` averages per-episode accuracies; with one query per episode, as in
FewRel's test input, it is the share of correct entries). Each episode contributes, per measure m, the pair
(accuracy · [episode in m], [episode in m]); a measure's value on any resample of episodes is the ratio of the
two sums, so resampling episodes resamples whole episodes, never single queries.

>>> acc = episode_accuracies(np.array([0, 0, 1]), np.array([True, False, True]))
>>> acc.tolist()
[0.5, 1.0]
>>> rows = measure_rows(acc, np.array([0, 0]), 1)
>>> ratios(rows.sum(axis=0)).tolist()
[0.75]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def episode_accuracies(episode: NDArray[np.int64], correct: NDArray[np.bool_]) -> NDArray[np.float64]:
    """The accuracy of each episode 0..E-1: its correct queries over its queries (`episode[i]` numbers query i)."""
    n = int(episode.max()) + 1 if episode.size else 0
    right = np.bincount(episode, weights=correct.astype(np.float64), minlength=n)
    queries = np.bincount(episode, minlength=n).astype(np.float64)
    return right / queries


def measure_rows(
    accuracy: NDArray[np.float64], setting: NDArray[np.int64], n_settings: int, overall: bool = False
) -> NDArray[np.float64]:
    """(E, 2M) per-episode statistics: for each measure, (accuracy · in, in). The measures are one per setting,
    preceded by all episodes together when `overall` (several settings)."""
    columns = []
    if overall:
        columns += [accuracy, np.ones_like(accuracy)]
    for s in range(n_settings):
        member = (setting == s).astype(np.float64)
        columns += [accuracy * member, member]
    return np.column_stack(columns) if columns else np.zeros((accuracy.shape[0], 0))


def ratios(totals: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each measure's mean from summed statistics (..., 2M) → (..., M); NaN where a resample holds no episode of
    the measure's setting."""
    num, den = totals[..., 0::2], totals[..., 1::2]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
