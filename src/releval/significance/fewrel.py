"""Paired tests of few-shot systems on the same FewRel episodes (`compare --task fewrel`): episodes are the unit.

Each system's per-episode accuracies (releval.tasks.fewrel.episode_stats) become per-episode statistic rows; the
paired bootstrap and approximate randomization of releval.metrics.cells resample (or swap) whole episodes, and
releval.significance.paired turns the draws into p-values and percentile intervals, as for every task. Several runs
per system are compared over seeds (Welch's t, Cohen's d) on each measure. The measures are `accuracy` (every
episode) and, for a file of several settings, one per setting (`accuracy:5-1`, `accuracy:5-1-nota`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from releval.core.errors import InputError, OptionError, raise_all
from releval.core.notices import Notice
from releval.core.options import RESAMPLING_TESTS
from releval.data.fewrel import load_episodes, load_predictions
from releval.metrics.cells import bootstrap_totals, cells_from_rows, randomization_totals
from releval.metrics.episodes import ratios
from releval.significance.compare import PairedTable, SeedTable, pair_rows, raw_row, seed_table, system_pairs
from releval.significance.config import SignificanceConfig, correction_field
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
    """Systems given as prediction files ({name: [files]}) on one gold episodes file: one file each → paired tests
    over episodes; several each → Welch/Cohen over seed runs. The `compare` of the fewrel Task."""
    config = config or FewRelConfig()
    test = test or SignificanceConfig()
    if len(systems) < 2:
        raise InputError(f"comparison needs at least 2 systems, got {len(systems)}", field="system")
    run_counts = {name: len(paths) for name, paths in systems.items()}
    if len(set(run_counts.values())) > 1 and 1 in run_counts.values():
        single = [k for k, v in run_counts.items() if v == 1]
        raise InputError(
            f"mixing single-file systems ({', '.join(single)}) with multi-run systems: give every system one file "
            "(paired tests) or several runs (seed comparison)",
            field="system",
        )
    if baseline is not None and baseline not in systems:
        raise OptionError(f"baseline {baseline!r} is not among the systems: {', '.join(systems)}", option="baseline")
    bad = [t for t in test.tests if t not in RESAMPLING_TESTS]
    if bad:
        raise OptionError(
            f"tests: {', '.join(bad)} not available for FewRel episodes (use bootstrap or randomization)",
            option="tests",
        )
    episodes, scored, warnings = _stats(gold, systems)
    first = next(iter(scored.values()))[0]
    metrics = first.measures
    if set(run_counts.values()) != {1}:
        runs = {name: {m: [s.values()[m] for s in stats] for m in metrics} for name, stats in scored.items()}
        fields: dict[str, object] = {
            "test": f"welch:{test.alternative},cohen-d:harbecke-eq4",
            "methods": correction_field(test.correction, baseline),
        }
        sig = signature(config, episodes, fields)
        table = seed_table(runs, metrics, sig, episodes.n_episodes, baseline, test, unit="episodes")
        return replace(table, notes=[NOTE, *table.notes], warnings=[*warnings, *table.warnings])
    one = {name: stats[0] for name, stats in scored.items()}
    scores = {name: s.values() for name, s in one.items()}
    raw: list[dict[str, Any]] = []
    for a, b in system_pairs(list(one), baseline):
        cells = cells_from_rows(one[a].rows, one[b].rows)
        for method in test.tests:
            rng = np.random.default_rng(test.seed)
            draw = bootstrap_totals if method == "bootstrap" else randomization_totals
            parts_a, parts_b = [], []
            for tot_a, tot_b in draw(cells, test.resamples, rng):
                parts_a.append(ratios(tot_a))
                parts_b.append(ratios(tot_b))
                if progress is not None:
                    progress(int(tot_a.shape[0]))
            fa, fb = np.concatenate(parts_a), np.concatenate(parts_b)
            draws = {m: (fa[:, j], fb[:, j]) for j, m in enumerate(metrics)}
            rows = comparison_rows(scores[a], scores[b], draws, method, test)
            for m, r in rows.items():
                raw.append(raw_row(a, b, method, m, r))
    sig = signature(config, episodes, test.signature_fields(unit="episodes", baseline=baseline))
    return PairedTable(
        scores,
        pair_rows(raw, test.correction),
        baseline,
        test.tests,
        metrics,
        test.alternative,
        test.correction,
        episodes.n_episodes,
        sig,
        test.interval_confidence,
        [NOTE],
        unit="episodes",
        warnings=warnings,
    )
