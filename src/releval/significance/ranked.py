"""Paired tests of ranked-facts systems (releval.tasks.ranked), with entity pairs (bags) as the resampled unit.

AUC, P@N and max F1 are not sums of per-bag statistics: each resample is a new ranking. A resample is a weight per
entity pair, applied to every prediction of that pair and to its gold facts, and the measures are those of the
weighted ranking (a pair drawn twice puts two copies of each of its predictions side by side, tied with each
other). The ranking is sorted once; a resample's curve is read off cumulative sums of the weights over it
(releval.metrics.ranked.Runs: `weighted_measures`), equal to the expanded list ranked again (`expanded_measures`,
tests/test_ranked_resampling.py) and ~20x faster at 10^6 predictions (benchmarks/bench_ranked_compare.py).

* paired bootstrap: the pairs (every gold bag and every pair some system predicts) drawn with replacement, the
  same draw for every system (one joint draw: each pair of systems reads its δ* from it); p-values and percentile
  intervals as every paired test of releval (releval.significance.paired.comparison_rows);
* approximate randomization: per entity pair, the two systems' predictions for that pair swapped with
  probability ½; each pseudo-system's ranking is the merge of its rows by score (ties: A's rows before B's, each
  in file order). Scores of two systems may be on different scales; the test then mixes them, as any
  randomization test of rankings does.

Several files per system compare runs over seeds (Welch's t, Cohen's d) on the same measures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError, raise_all
from releval.metrics.ranked import Runs, ranked_curve, ranking_order, relation_aucs
from releval.significance.compare import PairedTable, SeedTable, raw_row, score_runs
from releval.significance.comparison import (
    Scored,
    check_resampling_tests,
    check_systems,
    compare_scored,
    run_warnings,
)
from releval.significance.config import SignificanceConfig
from releval.significance.paired import comparison_rows
from releval.tasks import ranked as rk
from releval.tasks.base import build_signature


@dataclass(frozen=True)
class SortedSystem:
    """One system's predictions in ranking order: unit (entity pair) id, relation id, score, hit. Its `runs` (the
    whole ranking's and each relation's, releval.metrics.ranked.Runs) are arranged once per tie policy and reused
    by every resample."""

    units: NDArray[np.int64]
    relations: NDArray[np.int64]
    scores: NDArray[np.float64]
    hits: NDArray[np.float64]
    _runs: dict[str, tuple[Runs, Runs]] = field(default_factory=dict, compare=False, repr=False)
    _units: dict[str, NDArray[np.int64]] = field(default_factory=dict, compare=False, repr=False)  # and counts

    @classmethod
    def of(cls, ranked: rk.Ranked) -> SortedSystem:
        order = ranking_order(ranked.scores)
        return cls(
            ranked.bags[order], ranked.relations[order], ranked.scores[order], ranked.hits[order].astype(np.float64)
        )

    def runs(self, ties: str) -> tuple[Runs, Runs]:
        """(the whole ranking's runs, one segment per relation) under tie policy `ties`, made on first use."""
        if ties not in self._runs:
            self._runs[ties] = (
                Runs.of(self.scores, self.hits, ties),
                Runs.of(self.scores, self.hits, ties, segments=self.relations),
            )
        return self._runs[ties]

    def count_above(self, threshold: float) -> int:
        """How many predictions score >= threshold (a prefix of the ranking; counted on first use)."""
        key = f"above:{threshold!r}"
        if key not in self._units:
            self._units[key] = np.array(np.count_nonzero(self.scores >= threshold))
        return int(self._units[key])

    def units_by_relation(self, ties: str) -> NDArray[np.int64]:
        """The unit of each prediction in the per-relation arrangement of `runs(ties)` (made on first use)."""
        key = f"units:{ties}"
        if key not in self._units:
            order = self.runs(ties)[1].order
            self._units[key] = self.units if order is None else self.units[order]
        return self._units[key]


def weighted_measures(
    system: SortedSystem,
    weights: NDArray[np.int64],
    facts: float,
    relation_facts: NDArray[np.float64],
    config: rk.RankedConfig,
    class_mask: NDArray[np.bool_] | None = None,
    *,
    unit_counts: NDArray[np.int64] | None = None,
) -> dict[str, float]:
    """The measures of a ranking in which each prediction occurs `weights[i]` times in a row (weights per sorted
    position), against `facts` gold facts (`relation_facts[r]` of relation r). `class_mask`: the relations the
    weightings average over (the bootstrap's class set "test": those with facts in the test set, fixed; None:
    those with facts here). `unit_counts`: the resample's count of each unit, when `weights` are
    `unit_counts[system.units]` (the per-relation arrangement then reads them from it directly).

    The numbers are those of the expanded ranking (`expanded_measures`: the copies written out and ranked again,
    copies tied with their original), read off cumulative sums of the weights over the ranking arranged once
    (releval.metrics.ranked.Runs): a resample costs a few passes over the n predictions, not a sort of the
    expanded list."""
    whole, by_relation = system.runs(config.ties)
    point = whole.points(weights)
    out = {"auc": float(point.aucs(np.array([float(facts)]), 1)[0]) if whole.n_segments else 0.0}
    for n in config.at:
        out[f"p@{n}"] = point.precision_at(n)
    for r in config.at_recall:
        out[f"p@{r}%"] = point.precision_at_recall(r, float(int(facts)), config.interpolated)
    out["max_f1"] = point.max_f1(float(int(facts)))
    above = system.count_above(config.threshold)  # a prefix of the ranking, whole runs
    runs_above = above if whole.starts is None else int(np.searchsorted(whole.starts, above, side="left"))
    m = float(point.k_all[runs_above - 1]) if runs_above else 0.0
    b2 = config.beta * config.beta
    if m == 0:
        p, r = float(config.zero_division), 0.0
    else:
        c = point.hits_at(m)
        p, r = c / m, (c / float(int(facts)) if int(facts) else 0.0)
    f = (1 + b2) * p * r / (b2 * p + r) if (b2 * p + r) > 0 else config.zero_division
    out[config.threshold_name] = float(f)
    with_facts = np.flatnonzero(relation_facts > 0)
    # a relation of the fixed class set without facts in this resample: its AUC is undefined (recall 0/0), so it
    # takes the zero_division value, as an F without gold items does (releval.metrics.averages.fix_class_set)
    aucs = np.full(relation_facts.shape[0], float(config.zero_division))
    if config.weightings:
        segment_facts = np.zeros(by_relation.n_segments)
        known = by_relation.labels < relation_facts.shape[0]
        segment_facts[known] = relation_facts[by_relation.labels[known]]
        if unit_counts is not None:
            relation_points = by_relation.points(unit_counts[system.units_by_relation(config.ties)], arranged=True)
        else:
            relation_points = by_relation.points(weights)
        per_segment = relation_points.aucs(segment_facts, by_relation.n_segments)
        per_relation = np.zeros(relation_facts.shape[0])
        per_relation[by_relation.labels[known]] = per_segment[known]
        aucs[with_facts] = per_relation[with_facts]
    _weighting_averages(out, aucs, relation_facts, config, class_mask)
    return out


def _weighting_averages(
    out: dict[str, float],
    aucs: NDArray[np.float64],
    support: NDArray[np.float64],
    config: rk.RankedConfig,
    class_mask: NDArray[np.bool_] | None,
) -> None:
    """Each weighting's average of the per-relation AUCs, into `out`."""
    mask_r = support > 0 if class_mask is None else class_mask
    for weighting in config.weightings:
        weights_r = weighting.weights(support, mask_r, support.sum())
        if mask_r.any() and not weights_r.sum() > 0:  # entropy's -p log p of a class without facts: its limit, 0
            raw = np.nan_to_num(weighting.weights(support, mask_r & (support > 0), support.sum()))
            weights_r = raw / raw.sum() if raw.sum() > 0 else raw
        out[f"{weighting.name}-auc"] = float((weights_r * aucs).sum())


def expanded_measures(
    system: SortedSystem,
    weights: NDArray[np.int64],
    facts: float,
    relation_facts: NDArray[np.float64],
    config: rk.RankedConfig,
    class_mask: NDArray[np.bool_] | None = None,
) -> dict[str, float]:
    """`weighted_measures` the straightforward way: every prediction written out `weights[i]` times in a row and
    the expanded list scored as a ranking (a sort-free re-ranking: copies sit where a stable sort puts them). Kept
    as the slow statement of what the fast path computes (tests; O(expanded list) per resample)."""
    keep = weights > 0
    w = weights[keep]
    scores = np.repeat(system.scores[keep], w)
    hits = np.repeat(system.hits[keep], w)
    relations = np.repeat(system.relations[keep], w)
    identity = np.arange(scores.shape[0])
    curve = ranked_curve(scores, hits, int(facts), config.ties, order=identity)
    out = rk.curve_measures(curve, config)
    with_facts = np.flatnonzero(relation_facts > 0)
    aucs = np.full(relation_facts.shape[0], float(config.zero_division))
    if config.weightings:
        aucs[with_facts] = relation_aucs(scores, hits, relations, relation_facts, config.ties)[with_facts]
    _weighting_averages(out, aucs, relation_facts, config, class_mask)
    return out


@dataclass(frozen=True)
class Prepared:
    """Gold and every system, encoded on one numbering of entity pairs (the resampled units)."""

    gold: rk.GoldFacts
    systems: dict[str, rk.Ranked]
    results: dict[str, rk.RankedResult]
    n_units: int
    n_relations: int
    fact_units: NDArray[np.int64]
    fact_relations: NDArray[np.int64]


def prepare(gold: Any, systems: Mapping[str, Any], config: rk.RankedConfig) -> Prepared:
    """Read gold once and every system against it, on one shared numbering of entity pairs."""
    facts = rk.load_facts(gold, config)
    numbering = rk.Numbering(facts)
    ranked: dict[str, rk.Ranked] = {}
    errors: list[InputError] = []
    for name, pred in systems.items():
        try:
            ranked[name] = rk.load_ranked(pred, facts, config, numbering)[1]
        except InputError as exc:
            errors.append(exc)
    raise_all(errors)
    results = {name: rk.score_ranked(r, facts, config, name) for name, r in ranked.items()}
    n_rel = max(len(r.relation_names) for r in ranked.values())
    mask = (1 << rk.SHIFT) - 1
    return Prepared(
        facts,
        ranked,
        results,
        numbering.n_units,
        n_rel,
        facts.fact_codes >> rk.SHIFT,
        facts.fact_codes & mask,
    )


def _facts_of(prepared: Prepared, unit_weights: NDArray[np.int64]) -> tuple[float, NDArray[np.float64]]:
    w = unit_weights[prepared.fact_units].astype(np.float64)
    per_relation = np.bincount(prepared.fact_relations, weights=w, minlength=prepared.n_relations)
    return float(w.sum()), per_relation.astype(np.float64)


def bootstrap_draws(
    prepared: Prepared,
    config: rk.RankedConfig,
    test: SignificanceConfig,
    rng: np.random.Generator,
    measures: Callable[..., dict[str, float]] | None = None,
) -> dict[str, dict[str, NDArray[np.float64]]]:
    """Every system's measures in each of `test.resamples` joint bootstrap resamples of the entity pairs
    (`measures`: weighted_measures, or expanded_measures to time or check the straightforward path)."""
    measures = measures or weighted_measures
    ordered = {name: SortedSystem.of(r) for name, r in prepared.systems.items()}
    names = config.metric_names
    out = {name: {m: np.empty(test.resamples) for m in names} for name in ordered}
    n = prepared.n_units
    fixed = _facts_of(prepared, np.ones(n, dtype=np.int64))[1] > 0 if test.class_set == "test" else None
    for i in range(test.resamples):
        counts = np.bincount(rng.integers(0, n, n), minlength=n)
        facts, per_relation = _facts_of(prepared, counts)
        for name, system in ordered.items():
            if measures is weighted_measures:
                values = weighted_measures(
                    system, counts[system.units], facts, per_relation, config, fixed, unit_counts=counts
                )
            else:
                values = measures(system, counts[system.units], facts, per_relation, config, fixed)
            for m in names:
                out[name][m][i] = values[m]
    return out


def randomization_draws(
    prepared: Prepared,
    a: str,
    b: str,
    config: rk.RankedConfig,
    test: SignificanceConfig,
    rng: np.random.Generator,
) -> dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """(A*, B*) measures in each of `test.resamples` swaps of the two systems' predictions per entity pair."""
    ra, rb = prepared.systems[a], prepared.systems[b]
    scores = np.concatenate([ra.scores, rb.scores])
    order = ranking_order(scores)
    origin = np.concatenate([np.zeros(ra.scores.size, dtype=bool), np.ones(rb.scores.size, dtype=bool)])[order]
    merged = SortedSystem(
        np.concatenate([ra.bags, rb.bags])[order],
        np.concatenate([ra.relations, rb.relations])[order],
        scores[order],
        np.concatenate([ra.hits, rb.hits])[order].astype(np.float64),
    )
    facts, per_relation = _facts_of(prepared, np.ones(prepared.n_units, dtype=np.int64))
    names = config.metric_names
    fa = {m: np.empty(test.resamples) for m in names}
    fb = {m: np.empty(test.resamples) for m in names}
    for i in range(test.resamples):
        swap = rng.random(prepared.n_units) < 0.5
        to_a = origin == swap[merged.units]  # A's rows where not swapped, B's where swapped
        va = weighted_measures(merged, to_a.astype(np.int64), facts, per_relation, config)
        vb = weighted_measures(merged, (~to_a).astype(np.int64), facts, per_relation, config)
        for m in names:
            fa[m][i], fb[m][i] = va[m], vb[m]
    return {m: (fa[m], fb[m]) for m in names}


def _signature(config: rk.RankedConfig, gold: rk.GoldFacts, extra: dict[str, object]) -> Any:
    sig = rk.signature(config, gold)
    return build_signature({**{k: v for k, v in sig.fields.items() if k != "version"}, **extra})


def paired_scored(
    gold: Any,
    systems: Mapping[str, Any],
    config: rk.RankedConfig,
    test: SignificanceConfig,
) -> Scored:
    """One file per system, on one numbering of entity pairs, for the one comparison path: the bootstrap's draws
    are joint over every system (each resample re-ranks each system's predictions), so the task gives every pair's
    rows at once (`Scored.all_pairs`) rather than one pair's."""
    prepared = prepare(gold, systems, config)
    names = config.metric_names
    scores = {name: dict(r.measures) for name, r in prepared.results.items()}

    def all_pairs(pairs: list[tuple[str, str]], progress: Callable[[int], None] | None) -> list[dict[str, Any]]:
        rng = np.random.default_rng(test.seed)
        raw: list[dict[str, Any]] = []
        boot = bootstrap_draws(prepared, config, test, rng) if "bootstrap" in test.tests else {}
        for t in test.tests:
            for a, b in pairs:
                if t == "bootstrap":
                    draws = {m: (boot[a][m], boot[b][m]) for m in names}
                else:
                    draws = randomization_draws(prepared, a, b, config, test, rng)
                rows = comparison_rows(scores[a], scores[b], draws, t, test)
                raw.extend(raw_row(a, b, t, m, rows[m]) for m in names)
                if progress is not None:
                    progress(test.resamples)
        return raw

    notes = [
        f"ranked facts: entity pairs resampled ({prepared.n_units:,}: the gold bags and every pair a system "
        "predicts); each resample re-ranks the predictions",
        *dict.fromkeys(f"{name}: {n}" for name, r in prepared.results.items() for n in r.notes),
    ]
    results = {name: [r] for name, r in prepared.results.items()}
    return Scored(
        results,
        tuple(names),
        lambda r: r.measures,
        prepared.n_units,
        "bags",
        lambda extra: _signature(config, prepared.gold, extra),
        all_pairs=all_pairs,
        notes=notes,
        warnings=run_warnings(results),
    )


def seed_scored(gold: Any, systems: Mapping[str, Sequence[Any]], config: rk.RankedConfig) -> Scored:
    """Several runs per system, each scored on its own (releval.significance.seeds compares their measures)."""
    facts = rk.load_facts(gold, config)
    results = score_runs(systems, lambda name, path: rk.score(facts, path, config, name))
    return Scored(
        results,
        tuple(config.metric_names),
        lambda r: r.measures,
        facts.n_bags,
        "bags",
        lambda extra: _signature(config, facts, extra),
    )


def paired_table(
    gold: Any,
    systems: Mapping[str, Any],
    config: rk.RankedConfig,
    test: SignificanceConfig,
    *,
    baseline: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> PairedTable | SeedTable:
    """Paired bootstrap and/or randomization of every pair of systems (or each against `baseline`) on every
    measure, entity pairs resampled, p-values corrected across pairs per (test, measure)."""
    return compare_files(gold, {name: [pred] for name, pred in systems.items()}, config, test, baseline=baseline,
                         progress=progress)  # fmt: skip


def compare_files(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: rk.RankedConfig,
    test: SignificanceConfig,
    *,
    baseline: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> PairedTable | SeedTable:
    """The ranked task's `compare` on the one comparison path (releval.significance.comparison): one file per
    system → paired tests over entity pairs; several → seed runs."""
    paired = check_systems(systems, baseline)
    check_resampling_tests(
        test, "ranked facts: they need per-item correctness, which a ranking does not have (use bootstrap or "
        "randomization)"
    )  # fmt: skip
    if paired:
        scored = paired_scored(gold, {name: runs[0] for name, runs in systems.items()}, config, test)
    else:
        scored = seed_scored(gold, systems, config)
    return compare_scored(scored, paired, test, baseline, progress)


def rank_intervals(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: rk.RankedConfig, test: SignificanceConfig
) -> dict[str, dict[str, Any]]:
    """Each system's rank and bootstrap rank interval under every ranked measure (releval.significance.ranks'
    definitions: competition ranks, the central `test.confidence` share of the resamples' ranks): every run read on
    one numbering of entity pairs and re-ranked in each joint resample (`bootstrap_draws`, the draws of `compare`'s
    paired bootstrap for one file per system, same resamples and seed); a system with several files (seeds) ranked
    by the mean of its runs' measure. The draws are kept (runs × measures × resamples), so this suits boards of
    hundreds of entries, not the count-only memory of `joint_rank_intervals`."""
    from releval.significance.ranking import RankInterval, competition_ranks, rank_bounds

    owners = [name for name, runs in systems.items() for _ in runs]
    prepared = prepare(
        gold, {str(j): run for j, run in enumerate(r for runs in systems.values() for r in runs)}, config
    )
    boot = bootstrap_draws(prepared, config, test, np.random.default_rng(test.seed))
    names = list(systems)
    at = {name: s for s, name in enumerate(names)}
    n_runs = np.array([len(systems[n]) for n in names], dtype=np.float64)
    out: dict[str, dict[str, Any]] = {name: {} for name in names}
    for m in config.metric_names:
        observed = np.zeros(len(names))
        draws = np.zeros((len(names), test.resamples))
        for j, name in enumerate(owners):
            observed[at[name]] += prepared.results[str(j)].measures[m]
            draws[at[name]] += boot[str(j)][m]
        shown = competition_ranks(observed / n_runs)
        per_resample = competition_ranks(draws / n_runs[:, None])
        for s, name in enumerate(names):
            low, high = rank_bounds(per_resample[s], test.confidence)
            out[name][m] = RankInterval(int(shown[s]), low, high)
    return out
