"""Paired tests of few-shot systems on the same FewRel episodes (`compare --task fewrel`): episodes are the unit.

Each system's per-episode accuracies (releval.tasks.fewrel.episode_stats) become per-episode statistic rows; the
paired bootstrap and approximate randomization of releval.metrics.cells resample (or swap) whole episodes, and
releval.significance.paired turns the draws into p-values and percentile intervals, as for every task. Several runs
per system are compared over seeds (Welch's t, Cohen's d) on each measure. The measures are `accuracy` (every
episode) and, for a file of several settings, one per setting (`accuracy:5-1`, `accuracy:5-1-nota`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from releval.core.errors import InputError, raise_all
from releval.core.notices import Notice
from releval.data.fewrel import load_episodes, load_predictions
from releval.metrics.cells import bootstrap_totals, cells_from_rows, randomization_totals
from releval.metrics.episodes import ratios
from releval.significance.compare import PairedTable, SeedTable
from releval.significance.comparison import (
    JointRows,
    Scored,
    check_resampling_tests,
    check_systems,
    compare_scored,
    joint_rank_intervals,
)
from releval.significance.config import SignificanceConfig
from releval.significance.paired import comparison_rows
from releval.tasks.fewrel import EpisodeStats, FewRelConfig, episode_stats, prediction_notices, signature

#: What the notes of every FewRel comparison say.
NOTE = (
    "FewRel: the measure is accuracy (the mean of per-episode accuracies), shown in the score columns; "
    "episodes are resampled (bootstrap) or swapped (randomization) whole"
)


def _stats(gold: Any, systems: Mapping[str, Sequence[Any]]) -> tuple[Any, dict[str, list[EpisodeStats]], list[Notice]]:
    episodes = load_episodes(gold)
    out: dict[str, list[EpisodeStats]] = {}
    errors: list[InputError] = []
    warnings: list[Notice] = []
    for name, runs in systems.items():
        for run in runs:
            try:
                values = load_predictions(run, episodes)
            except InputError as exc:
                errors.append(exc)
                continue
            out.setdefault(name, []).append(episode_stats(episodes, values))
            warnings += [Notice(f"{name}: {w}", w.code) for w in prediction_notices(episodes, run, values)]
    raise_all(errors)
    return episodes, out, warnings


def compare_files(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: FewRelConfig | None,
    test: SignificanceConfig | None,
    *,
    baseline: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> PairedTable | SeedTable:
    """Systems given as prediction files ({name: [files]}) on one gold episodes file, on the one comparison path
    (releval.significance.comparison): one file each → paired tests over episodes; several each → Welch/Cohen over
    seed runs. The `compare` of the fewrel Task."""
    config = config or FewRelConfig()
    test = test or SignificanceConfig()
    paired = check_systems(systems, baseline)
    check_resampling_tests(test, "FewRel episodes (use bootstrap or randomization)")
    episodes, results, warnings = _stats(gold, systems)
    metrics = next(iter(results.values()))[0].measures

    def pair(a: str, b: str, method: str, advance: Callable[[int], None] | None) -> dict[str, Any]:
        sa, sb = results[a][0], results[b][0]
        cells = cells_from_rows(sa.rows, sb.rows)
        rng = np.random.default_rng(test.seed)
        draw = bootstrap_totals if method == "bootstrap" else randomization_totals
        parts_a, parts_b = [], []
        for tot_a, tot_b in draw(cells, test.resamples, rng):
            parts_a.append(ratios(tot_a))
            parts_b.append(ratios(tot_b))
            if advance is not None:
                advance(int(tot_a.shape[0]))
        fa, fb = np.concatenate(parts_a), np.concatenate(parts_b)
        draws = {m: (fa[:, j], fb[:, j]) for j, m in enumerate(metrics)}
        return comparison_rows(sa.values(), sb.values(), draws, method, test)

    scored = Scored(
        results,
        metrics,
        lambda s: s.values(),
        episodes.n_episodes,
        "episodes",
        lambda extra: signature(config, episodes, extra),
        paired=pair,
        notes=[NOTE],
        warnings=warnings,
        seed_notes=[NOTE],
    )
    return compare_scored(scored, paired, test, baseline, progress)


def rank_intervals(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: FewRelConfig | None, test: SignificanceConfig
) -> dict[str, dict[str, Any]]:
    """Each few-shot system's rank and bootstrap rank interval under every measure (accuracy, per setting):
    episodes drawn once for every system (releval.significance.comparison.joint_rank_intervals); a system with
    several files (seeds) ranked by the mean of its runs' accuracy."""
    _, results, _ = _stats(gold, systems)
    metrics = next(iter(results.values()))[0].measures

    def measures(totals: np.ndarray) -> dict[str, Any]:
        values = ratios(totals)
        return {m: values[..., j] for j, m in enumerate(metrics)}

    runs = {n: [run.rows for run in r] for n, r in results.items()}
    return joint_rank_intervals(JointRows(runs, measures), metrics, test)
