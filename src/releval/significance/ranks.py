"""Bootstrap rank intervals: where each system ranks among several, and how sure that rank is.

A leaderboard's rank is a statistic of the test set like F itself. Resample the items with replacement (the
paired bootstrap of every system at once: one joint draw, `releval.metrics.joint_cells`), rank the systems by F
in each resample, and report per system the central range of its ranks over the resamples — the rank interval
(Hall and Miller 2009, "Using the bootstrap to quantify the authority of an empirical ranking"; the same
percentile construction as the intervals of F).

* Rank: standard competition ranking, 1 + the number of systems with a strictly higher F (F of 0.9, 0.5, 0.5,
  0.4 ranks 1, 2, 2, 4), in the observed scores and in each resample; an F that is NaN ranks below every number.
* Interval at level c (the bootstrap's `confidence`): with R resamples and tail t = (1 − c)/2, the low end is the
  rank at quantile t of the R ranks rounded down ("lower"), the high end the rank at 1 − t rounded up ("higher"):
  at least a fraction c of the resamples rank the system within [low, high].
* A system with several runs (seeds) is scored in each resample by the mean F of its runs, every run on the same
  resampled items; its observed score is the mean of its runs' F (what a board shows).
* Every run is scored on its own classes (the gold labels, then the labels only it predicts), as `releval score`
  scores it; the draw is the joint bootstrap's over all runs in the order given, with the test's resamples, seed
  and class set. The same systems, runs and order give the same intervals, digit for digit.

Example
-------
>>> from releval.tasks.classification import ClassificationConfig
>>> from releval.significance.config import SignificanceConfig
>>> gold = ["A", "B", "A", "B", "A", "B", "A", "B"]
>>> systems = {"good": [gold], "bad": [["B"] * 8]}
>>> r = rank_intervals(gold, systems, ClassificationConfig(negative=None), SignificanceConfig(resamples=50))
>>> r["good"]["micro"], r["bad"]["micro"]
(RankInterval(rank=1, low=1, high=1), RankInterval(rank=2, low=2, high=2))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError
from releval.metrics.joint_cells import joint_f_of_totals, joint_observed_f, joint_resampled_f, split_half_counts
from releval.significance.config import SignificanceConfig
from releval.significance.ranking import RankInterval, competition_ranks, rank_bounds
from releval.tasks import classification as rc

__all__ = [
    "RankInterval",
    "competition_ranks",
    "joint_system_draws",
    "joint_system_halves",
    "rank_bounds",
    "rank_intervals",
]


def _joint(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: rc.ClassificationConfig
) -> tuple[Any, Any, dict[tuple[str, str], tuple[int, int, int]], list[str], dict[str, list[int]], list[str]]:
    """Every run of every system in one set of joint cells: (cells, views, where, run keys, runs of each system,
    averages); runs aligned and checked as `releval compare` aligns them."""
    from releval.significance.compare import _label_lists, align_systems, joint_views, micro_only_when_wrong

    facts = rc.DataFacts()
    if not _label_lists(gold):
        gold, systems, facts = align_systems(gold, systems, config)
    gold = list(gold)
    if len(systems) < 2:
        raise InputError(f"ranking needs at least 2 systems, got {len(systems)}", field="system")
    columns: dict[str, Sequence[str]] = {}
    owner: list[str] = []
    for name, runs in systems.items():
        if not runs:
            raise InputError(f"system '{name}' has no run", field="system")
        for i, run in enumerate(runs):
            if len(run) != len(gold):
                raise InputError(
                    f"system '{name}' run {i + 1} has {len(run)} predictions for {len(gold)} gold items",
                    field="system",
                )
            columns[str(len(columns))] = run
            owner.append(name)
    config, facts = micro_only_when_wrong(config, facts)
    rc.check_negative_label(config, gold, columns.values())
    negative, _ = rc.resolve_negative(config.negative, gold)
    keys = list(columns)
    cells, views, where = joint_views(gold, columns, [(k, k) for k in keys], config, negative)
    runs_of = {name: [i for i, o in enumerate(owner) if o == name] for name in systems}
    return cells, views, where, keys, runs_of, list(config.average_names)


def _per_system(
    values: list[dict[str, NDArray[np.float64]]],
    where: dict[tuple[str, str], tuple[int, int, int]],
    keys: list[str],
    runs_of: dict[str, list[int]],
    metrics: list[str],
) -> dict[str, NDArray[np.float64]]:
    """{average: (systems, r)} from the views' F of every run, a system of several runs the mean of its runs."""
    out = {}
    for metric in metrics:
        per_run = np.stack([values[where[(key, key)][0]][metric][where[(key, key)][1]] for key in keys])
        out[metric] = np.stack([per_run[runs].mean(axis=0) for runs in runs_of.values()])
    return out


def joint_system_draws(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: rc.ClassificationConfig | None = None,
    test: SignificanceConfig | None = None,
) -> tuple[dict[str, NDArray[np.float64]], dict[str, NDArray[np.float64]]]:
    """Every system's F under every average, observed ({average: (systems,)}) and in each resample of one joint
    bootstrap draw ({average: (systems, resamples)}), systems in the order given; a system of several runs is
    the mean of its runs (module notes). What rank intervals and the agreement of measures
    (releval.significance.meta) are read from."""
    config = config or rc.ClassificationConfig()
    test = test or SignificanceConfig()
    cells, views, where, keys, runs_of, metrics = _joint(gold, systems, config)
    observed = _per_system(joint_observed_f(cells, views), where, keys, runs_of, metrics)
    draws = _per_system(
        joint_resampled_f(cells, views, test.resamples, test.seed, test.class_set), where, keys, runs_of, metrics
    )
    return observed, draws


def joint_system_halves(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: rc.ClassificationConfig | None = None,
    splits: int = 1000,
    seed: int | None = 12345,
) -> tuple[dict[str, NDArray[np.float64]], dict[str, NDArray[np.float64]]]:
    """Every system's F under every average on each half of `splits` random splits of the items into two
    disjoint halves (Voorhees and Buckley 2002): ({average: (systems, splits)} of the first halves, of the
    second), each half scored as a test set of its own (its classes: those with gold items in it, as `releval
    score` scores a file of those items)."""
    config = config or rc.ClassificationConfig()
    cells, views, where, keys, runs_of, metrics = _joint(gold, systems, config)
    first, second = split_half_counts(cells, splits, seed)
    halves = []
    for counts in (first, second):
        values = joint_f_of_totals(cells, views, [cells.totals(counts)], "resample")
        halves.append(_per_system(values, where, keys, runs_of, metrics))
    return halves[0], halves[1]


def rank_intervals(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: rc.ClassificationConfig | None = None,
    test: SignificanceConfig | None = None,
) -> dict[str, dict[str, RankInterval]]:
    """Each system's rank and bootstrap rank interval under every average of the Config: {system: {average: …}}.

    Parameters
    ----------
    gold, systems
        Gold labels and {name: [runs]}, each run the predicted labels aligned item by item; or gold and runs as
        files, {id: label} mappings or LabelFiles, aligned by id as `releval compare` aligns them.
    config
        The classification Config (its averages: micro and the weightings).
    test
        The bootstrap's resamples, seed, confidence and class set (`SignificanceConfig`).
    """
    test = test or SignificanceConfig()
    observed, draws = joint_system_draws(gold, systems, config, test)
    names = list(systems)
    out: dict[str, dict[str, RankInterval]] = {name: {} for name in names}
    for metric, system_obs in observed.items():
        shown = competition_ranks(system_obs)
        per_resample = competition_ranks(draws[metric])
        for s, name in enumerate(names):
            low, high = rank_bounds(per_resample[s], test.confidence)
            out[name][metric] = RankInterval(int(shown[s]), low, high)
    return out
