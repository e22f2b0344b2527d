"""Paired tests of ranked-facts systems (releval.tasks.ranked), with entity pairs (bags) as the resampled unit.

AUC, P@N and max F1 are not sums of per-bag statistics: every resample re-ranks. A resample is a weight per
entity pair, applied to every prediction of that pair and to its gold facts, and the measures are recomputed on
the weighted ranking (a pair drawn twice puts two copies of each of its predictions side by side, tied with each
other) — releval.metrics.ranked.

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
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError, OptionError, raise_all
from releval.core.notices import Notice
from releval.core.options import RESAMPLING_TESTS
from releval.metrics.ranked import ranked_curve, ranking_order, relation_aucs
from releval.significance.compare import (
    PairedTable,
    SeedTable,
    pair_rows,
    raw_row,
    seed_table,
    system_pairs,
)
from releval.significance.config import SignificanceConfig
from releval.significance.paired import comparison_rows
from releval.tasks import ranked as rk
from releval.tasks.base import build_signature


@dataclass(frozen=True)
class SortedSystem:
    """One system's predictions in ranking order: unit (entity pair) id, relation id, score, hit."""

    units: NDArray[np.int64]
    relations: NDArray[np.int64]
    scores: NDArray[np.float64]
    hits: NDArray[np.float64]

    @classmethod
    def of(cls, ranked: rk.Ranked) -> SortedSystem:
        order = ranking_order(ranked.scores)
        return cls(
            ranked.bags[order], ranked.relations[order], ranked.scores[order], ranked.hits[order].astype(np.float64)
        )


def weighted_measures(
    system: SortedSystem,
    weights: NDArray[np.int64],
    facts: float,
    relation_facts: NDArray[np.float64],
    config: rk.RankedConfig,
    class_mask: NDArray[np.bool_] | None = None,
) -> dict[str, float]:
    """The measures of a ranking in which each prediction occurs `weights[i]` times in a row (weights per sorted
    position), against `facts` gold facts (`relation_facts[r]` of relation r). `class_mask`: the relations the
    weightings average over (the bootstrap's class set "test": those with facts in the test set, fixed; None:
    those with facts here)."""
    keep = weights > 0
    w = weights[keep]
    scores = np.repeat(system.scores[keep], w)
    hits = np.repeat(system.hits[keep], w)
    relations = np.repeat(system.relations[keep], w)
    identity = np.arange(scores.shape[0])
    curve = ranked_curve(scores, hits, int(facts), config.ties, order=identity)
    out = rk.curve_measures(curve, config)
    with_facts = np.flatnonzero(relation_facts > 0)
    # a relation of the fixed class set without facts in this resample: its AUC is undefined (recall 0/0), so it
    # takes the zero_division value, as an F without gold items does (releval.metrics.averages.fix_class_set)
    aucs = np.full(relation_facts.shape[0], float(config.zero_division))
    if config.weightings:
        aucs[with_facts] = relation_aucs(scores, hits, relations, relation_facts, config.ties)[with_facts]
    support = relation_facts
    mask_r = support > 0 if class_mask is None else class_mask
    for weighting in config.weightings:
        weights_r = weighting.weights(support, mask_r, support.sum())
        if mask_r.any() and not weights_r.sum() > 0:  # entropy's -p log p of a class without facts: its limit, 0
            raw = np.nan_to_num(weighting.weights(support, mask_r & (support > 0), support.sum()))
            weights_r = raw / raw.sum() if raw.sum() > 0 else raw
        out[f"{weighting.name}-auc"] = float((weights_r * aucs).sum())
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
) -> dict[str, dict[str, NDArray[np.float64]]]:
    """Every system's measures in each of `test.resamples` joint bootstrap resamples of the entity pairs."""
    ordered = {name: SortedSystem.of(r) for name, r in prepared.systems.items()}
    names = config.metric_names
    out = {name: {m: np.empty(test.resamples) for m in names} for name in ordered}
    n = prepared.n_units
    fixed = _facts_of(prepared, np.ones(n, dtype=np.int64))[1] > 0 if test.class_set == "test" else None
    for i in range(test.resamples):
        counts = np.bincount(rng.integers(0, n, n), minlength=n)
        facts, per_relation = _facts_of(prepared, counts)
        for name, system in ordered.items():
            values = weighted_measures(system, counts[system.units], facts, per_relation, config, fixed)
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


def paired_table(
    gold: Any,
    systems: Mapping[str, Any],
    config: rk.RankedConfig,
    test: SignificanceConfig,
    *,
    baseline: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> PairedTable:
    """Paired bootstrap and/or randomization of every pair of systems (or each against `baseline`) on every
    measure, entity pairs resampled, p-values corrected across pairs per (test, measure)."""
    bad = [t for t in test.tests if t not in RESAMPLING_TESTS]
    if bad:
        raise OptionError(
            f"tests: {', '.join(bad)} not available for ranked facts: they need per-item correctness, which a "
            "ranking does not have (use bootstrap or randomization)",
            option="tests",
        )
    if len(systems) < 2:
        raise InputError(f"comparison needs at least 2 systems, got {len(systems)}", field="system")
    if baseline is not None and baseline not in systems:
        raise OptionError(f"baseline {baseline!r} is not among the systems: {', '.join(systems)}", option="baseline")
    prepared = prepare(gold, systems, config)
    names = config.metric_names
    scores = {name: dict(r.measures) for name, r in prepared.results.items()}
    pairs = system_pairs(list(systems), baseline)
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
            for m in names:
                r = rows[m]
                raw.append(raw_row(a, b, t, m, r))
            if progress is not None:
                progress(test.resamples)
    notes = [
        f"ranked facts: entity pairs resampled ({prepared.n_units:,}: the gold bags and every pair a system "
        "predicts); each resample re-ranks the predictions",
        *dict.fromkeys(f"{name}: {n}" for name, r in prepared.results.items() for n in r.notes),
    ]
    warnings = [Notice(f"{name}: {w}", w.code) for name, r in prepared.results.items() for w in r.warnings]
    return PairedTable(
        scores,
        pair_rows(raw, test.correction),
        baseline,
        test.tests,
        tuple(names),
        test.alternative,
        test.correction,
        prepared.n_units,
        _signature(config, prepared.gold, test.signature_fields(unit="bags", baseline=baseline)),
        test.interval_confidence,
        notes,
        unit="bags",
        warnings=warnings,
    )


def seed_runs(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: rk.RankedConfig,
    test: SignificanceConfig,
    baseline: str | None,
) -> SeedTable:
    """Several runs per system: each run scored; Welch's t and Cohen's d per measure (releval.significance.seeds)."""
    facts = rk.load_facts(gold, config)
    runs: dict[str, dict[str, list[float]]] = {}
    errors: list[InputError] = []
    for name, paths in systems.items():
        if len(paths) < 2:
            raise InputError(
                f"system '{name}' has {len(paths)} run(s); seed comparison needs at least 2", field="system"
            )
        for path in paths:
            try:
                result = rk.score(facts, path, config, name)
            except InputError as exc:
                errors.append(exc)
                continue
            for m, v in result.measures.items():
                runs.setdefault(name, {}).setdefault(m, []).append(v)
    raise_all(errors)
    extra: dict[str, object] = {"test": f"welch:{test.alternative},cohen-d:harbecke-eq4", "methods": test.correction}
    return seed_table(
        runs, tuple(config.metric_names), _signature(config, facts, extra), facts.n_bags, baseline, test, unit="bags"
    )


def compare_files(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: rk.RankedConfig,
    test: SignificanceConfig,
    *,
    baseline: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> PairedTable | SeedTable:
    """The ranked task's `compare`: one file per system → paired tests over entity pairs; several → seed runs."""
    counts = {len(paths) for paths in systems.values()}
    if counts == {1}:
        return paired_table(
            gold,
            {name: paths[0] for name, paths in systems.items()},
            config,
            test,
            baseline=baseline,
            progress=progress,
        )
    if 1 in counts:
        raise InputError(
            "mixing single-file systems with multi-run systems: give every system one file (paired tests) or several "
            "runs (seed comparison)",
            field="system",
        )
    if baseline is not None and baseline not in systems:
        raise OptionError(f"baseline {baseline!r} is not among the systems: {', '.join(systems)}", option="baseline")
    return seed_runs(gold, systems, config, test, baseline)
