"""Comparing many systems: all pairs or each against a baseline, with a Holm correction across the pairs.

Paired tests (one prediction file per system) come from releval.stats.paired; seed comparisons (several runs
per system) from releval.stats.seeds. The family for the multiple-testing correction is one (test, average)
across all compared pairs; adjusted p-values come from ``statsmodels.stats.multitest.multipletests``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from releval.core.options import CORRECTIONS, PAIRED_TESTS
from releval.core.signature import Signature, short_hash
from releval.errors import InputError, OptionError
from releval.metrics.averages import MICRO
from releval.metrics.classification import detect_negative, score_labels
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, Weighting, get_weightings
from releval.stats.paired import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MCNEMAR_VARIANTS,
    PairedResult,
    approximate_randomization,
    check_resampling,
    mcnemar,
    paired_bootstrap,
    sign_test,
)
from releval.stats.seeds import ALTERNATIVES, SeedComparison, compare_seeds
from releval.validation import check_choice, check_choices


def _data_settings(gold: Sequence[str], negative: str | None, metrics: Sequence[str]) -> dict[str, object]:
    """The signature fields that describe the data and the averages (shared by paired and seed tables)."""
    return {
        "task": "rc",
        "negative": negative if negative is not None else "none",
        "average": list(metrics),
        "labels": short_hash(sorted(set(gold))),
        "gold": short_hash(list(gold)),
        "n": len(gold),
    }


@dataclass(frozen=True)
class PairRow:
    """One test of system `a` against system `b` under one average (`effect` = a − b)."""

    a: str
    b: str
    test: str
    metric: str
    score_a: float
    score_b: float
    effect: float
    p_value: float
    p_adjusted: float
    ci_effect: tuple[float, float] | None = None
    ci_a: tuple[float, float] | None = None
    ci_b: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        for key in ("ci_effect", "ci_a", "ci_b"):
            out[key] = list(out[key]) if out[key] else None
        return out


@dataclass(frozen=True)
class PairedTable:
    """Scores of every system under every average, and the pairwise tests with adjusted p-values."""

    scores: dict[str, dict[str, float]]
    rows: list[PairRow]
    baseline: str | None
    tests: tuple[str, ...]
    metrics: tuple[str, ...]
    alternative: str
    correction: str
    n: int
    signature: Signature
    confidence: float = 0.95
    notes: list[str] = field(default_factory=list)
    unit: str = "items"  # what n counts: items (classification) or documents (end-to-end RE)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "paired",
            "n": self.n,
            "unit": self.unit,
            "baseline": self.baseline,
            "tests": list(self.tests),
            "metrics": list(self.metrics),
            "alternative": self.alternative,
            "correction": self.correction,
            "confidence": self.confidence,
            "scores": self.scores,
            "pairs": [r.to_dict() for r in self.rows],
            "signature": str(self.signature),
            "notes": self.notes,
        }


@dataclass(frozen=True)
class SeedRow:
    """Welch's test and Cohen's d of `a` against `b` under one average."""

    a: str
    b: str
    metric: str
    result: SeedComparison
    p_adjusted: float

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "metric": self.metric, "p_adjusted": self.p_adjusted, **self.result.to_dict()}


@dataclass(frozen=True)
class SeedTable:
    """Per system and average the runs' F, their mean ± sample SD, and the pairwise Welch/Cohen rows."""

    runs: dict[str, dict[str, list[float]]]
    rows: list[SeedRow]
    baseline: str | None
    metrics: tuple[str, ...]
    alternative: str
    correction: str
    n: int
    signature: Signature
    notes: list[str] = field(default_factory=list)
    unit: str = "items"

    def summary(self, system: str, metric: str) -> tuple[float, float, int]:
        """(mean, sample SD, number of runs)."""
        values = np.asarray(self.runs[system][metric])
        return float(values.mean()), float(values.std(ddof=1)) if values.size > 1 else float("nan"), int(values.size)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "seeds",
            "n": self.n,
            "unit": self.unit,
            "baseline": self.baseline,
            "metrics": list(self.metrics),
            "alternative": self.alternative,
            "correction": self.correction,
            "runs": self.runs,
            "summary": {
                s: {m: dict(zip(("mean", "sd", "runs"), self.summary(s, m))) for m in self.metrics} for s in self.runs
            },
            "pairs": [r.to_dict() for r in self.rows],
            "signature": str(self.signature),
            "notes": self.notes,
        }


def system_pairs(names: Sequence[str], baseline: str | None = None) -> list[tuple[str, str]]:
    """(system, baseline) for every other system, or every (earlier, later) pair when no baseline is given."""
    if baseline is not None:
        if baseline not in names:
            raise OptionError(
                f"--baseline {baseline!r} is not among the systems: {', '.join(names)}", option="--baseline"
            )
        return [(name, baseline) for name in names if name != baseline]
    return [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]


def adjust(p_values: Sequence[float], correction: str = "holm") -> list[float]:
    """Adjusted p-values across one family of pairs (statsmodels ``multipletests``; 'none' returns them as is)."""
    check_choice(correction, CORRECTIONS, "--correction")
    if correction == "none" or len(p_values) == 0:
        return [float(p) for p in p_values]
    from statsmodels.stats.multitest import multipletests  # statsmodels loads pandas: only when a correction runs

    return [float(p) for p in multipletests(np.asarray(p_values, dtype=float), method=correction)[1]]


def _progress(enabled: bool, total: int, description: str):  # noqa: ANN202
    if not enabled:
        return nullcontext(None)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    progress.start()
    progress.add_task(description, total=total)
    return _Closing(progress)


class _Closing:
    def __init__(self, progress: Any) -> None:
        self.progress = progress

    def __enter__(self) -> Any:
        return self.progress

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()


def _check_systems(gold: Sequence[str], systems: Mapping[str, Any]) -> list[str]:
    names = list(systems)
    if len(names) < 2:
        raise InputError(f"comparison needs at least 2 systems, got {len(names)}", field="system")
    return names


def compare_paired(
    gold: Sequence[str],
    systems: Mapping[str, Sequence[str]],
    *,
    baseline: str | None = None,
    tests: Sequence[str] = ("bootstrap",),
    negative: str | None = "auto",
    weightings: Sequence[str | Weighting] = DEFAULT_WEIGHTINGS,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    correction: str = "holm",
    progress: bool = False,
    mcnemar_variant: str = "exact",
) -> PairedTable:
    """Paired tests of several systems on the same aligned items, all pairs or against `baseline`, Holm-adjusted.

    `mcnemar_variant`: exact (binomial on the discordant pairs), chi2, or chi2-corrected (Edwards).
    """
    check_choices(tests, PAIRED_TESTS, "--test")
    check_choice(mcnemar_variant, MCNEMAR_VARIANTS, "--mcnemar")
    check_choice(alternative, ALTERNATIVES, "--alternative")
    check_choice(correction, CORRECTIONS, "--correction")
    check_resampling(resamples, seed, confidence)
    schemes = get_weightings(weightings)
    names = _check_systems(gold, systems)
    for name, pred in systems.items():
        if len(pred) != len(gold):
            raise InputError(f"system '{name}' has {len(pred)} predictions for {len(gold)} gold items", field="system")
    neg = detect_negative(gold) if negative == "auto" else negative
    metrics = (MICRO, *(w.name for w in schemes))
    scores = {
        name: {
            m: float(prf.f) for m, prf in score_labels(gold, pred, negative=neg, weightings=schemes).averages.items()
        }
        for name, pred in systems.items()
    }
    raw = run_pair_tests(
        system_pairs(names, baseline),
        tests,
        progress,
        lambda test, a, b: _one_test(
            test,
            gold,
            systems[a],
            systems[b],
            a,
            b,
            neg,
            schemes,
            resamples,
            seed,
            alternative,
            confidence,
            mcnemar_variant,
        ),
    )
    rows = pair_rows(raw, correction)
    signature = Signature.build(
        **_data_settings(gold, neg, metrics),
        test=",".join(f"{_test_name(t, mcnemar_variant)}:{alternative}" for t in tests),
        resamples=resamples if {"bootstrap", "randomization"} & set(tests) else None,
        seed=(seed if seed is not None else "none") if {"bootstrap", "randomization"} & set(tests) else None,
        methods=correction,
    )
    notes = []
    if "mcnemar" in tests or "sign" in tests:
        notes.append("McNemar and the sign test compare per-item correctness (accuracy), the same for every average")
    return PairedTable(
        scores, rows, baseline, tuple(tests), metrics, alternative, correction, len(gold), signature, confidence, notes
    )


def resampling_rows(res: PairedResult, a: str, b: str, test: str, prefix: str = "") -> list[dict[str, Any]]:
    """One raw row per average of a bootstrap / randomization result (`prefix` names e.g. an e2e criterion)."""
    return [
        {
            "a": a,
            "b": b,
            "test": test,
            "metric": f"{prefix}{m}",
            "score_a": r.score_a,
            "score_b": r.score_b,
            "effect": r.effect,
            "p_value": r.p_value,
            "ci_effect": r.ci_effect,
            "ci_a": r.ci_a,
            "ci_b": r.ci_b,
        }
        for m, r in res.rows.items()
    ]


def _test_name(test: str, mcnemar_variant: str) -> str:
    """The test as recorded in the signature: McNemar's χ² variants are named, the exact default is not."""
    return f"mcnemar-{mcnemar_variant}" if test == "mcnemar" and mcnemar_variant != "exact" else test


def _one_test(
    test: str,
    gold: Sequence[str],
    pa: Sequence[str],
    pb: Sequence[str],
    a: str,
    b: str,
    neg: str | None,
    schemes: tuple[Weighting, ...],
    resamples: int,
    seed: int | None,
    alternative: str,
    confidence: float,
    mcnemar_variant: str,
) -> list[dict[str, Any]]:
    if test in ("bootstrap", "randomization"):
        if test == "bootstrap":
            res = paired_bootstrap(
                gold,
                pa,
                pb,
                negative=neg,
                weightings=schemes,
                alternative=alternative,
                resamples=resamples,
                seed=seed,
                confidence=confidence,
            )
        else:
            res = approximate_randomization(
                gold, pa, pb, negative=neg, weightings=schemes, alternative=alternative, resamples=resamples, seed=seed
            )
        return resampling_rows(res, a, b, test)
    disc = (
        mcnemar(gold, pa, pb, alternative=alternative, variant=mcnemar_variant)
        if test == "mcnemar"
        else sign_test(gold, pa, pb, alternative=alternative)
    )
    return [
        {
            "a": a,
            "b": b,
            "test": _test_name(test, mcnemar_variant),
            "metric": "accuracy",
            "score_a": disc.score_a,
            "score_b": disc.score_b,
            "effect": disc.effect,
            "p_value": disc.p_value,
        }
    ]


def run_pair_tests(
    pairs: Sequence[tuple[str, str]],
    tests: Sequence[str],
    progress: bool,
    one_test: Callable[[str, str, str], list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """Rows of `one_test(test, a, b)` for every pair and test, with a progress bar on stderr when asked."""
    raw: list[dict[str, Any]] = []
    with _progress(progress, len(pairs) * len(tests), "comparing") as bar:
        for a, b in pairs:
            for test in tests:
                raw.extend(one_test(test, a, b))
                if bar is not None:
                    bar.advance(bar.task_ids[0])
    return raw


def pair_rows(raw: list[dict[str, Any]], correction: str) -> list[PairRow]:
    """PairRows with p-values adjusted within each (test, average) family across the pairs."""
    families: dict[tuple[str, str], list[int]] = {}
    for i, row in enumerate(raw):
        families.setdefault((row["test"], row["metric"]), []).append(i)
    adjusted = [0.0] * len(raw)
    for idx in families.values():
        for i, p in zip(idx, adjust([raw[i]["p_value"] for i in idx], correction)):
            adjusted[i] = p
    return [PairRow(p_adjusted=adjusted[i], **row) for i, row in enumerate(raw)]


def run_scores(
    gold: Sequence[str], runs: Sequence[Sequence[str]], negative: str | None, weightings: Sequence[Weighting]
) -> dict[str, list[float]]:
    """F of each run (seed) under micro and every weighting."""
    out: dict[str, list[float]] = {}
    for pred in runs:
        for m, prf in score_labels(gold, pred, negative=negative, weightings=weightings).averages.items():
            out.setdefault(m, []).append(float(prf.f))
    return out


def compare_seed_runs(
    gold: Sequence[str],
    systems: Mapping[str, Sequence[Sequence[str]]],
    *,
    baseline: str | None = None,
    negative: str | None = "auto",
    weightings: Sequence[str | Weighting] = DEFAULT_WEIGHTINGS,
    alternative: str = "two-sided",
    correction: str = "holm",
) -> SeedTable:
    """Several runs per system: mean ± sample SD per average, Welch's t and Cohen's d per pair, Holm-adjusted."""
    check_choice(alternative, ALTERNATIVES, "--alternative")
    check_choice(correction, CORRECTIONS, "--correction")
    schemes = get_weightings(weightings)
    _check_systems(gold, systems)
    for name, runs in systems.items():
        if len(runs) < 2:
            raise InputError(
                f"system '{name}' has {len(runs)} run(s); seed comparison needs at least 2", field="system"
            )
        for i, pred in enumerate(runs, 1):
            if len(pred) != len(gold):
                raise InputError(
                    f"system '{name}' run {i} has {len(pred)} predictions for {len(gold)} gold items", field="system"
                )
    neg = detect_negative(gold) if negative == "auto" else negative
    metrics = (MICRO, *(w.name for w in schemes))
    scores = {name: run_scores(gold, preds, neg, schemes) for name, preds in systems.items()}
    return seed_table(scores, metrics, _data_settings(gold, neg, metrics), len(gold), baseline, alternative, correction)


def seed_table(
    runs: dict[str, dict[str, list[float]]],
    metrics: tuple[str, ...],
    data_settings: dict[str, object],
    n: int,
    baseline: str | None,
    alternative: str,
    correction: str,
    unit: str = "items",
) -> SeedTable:
    """Welch/Cohen rows for every pair and average from each system's per-run F values, adjusted per average."""
    raw = [
        (a, b, m, compare_seeds(runs[a][m], runs[b][m], alternative, names=(a, b), metric=m))
        for a, b in system_pairs(list(runs), baseline)
        for m in metrics
    ]
    adjusted = [0.0] * len(raw)
    for m in metrics:
        idx = [i for i, r in enumerate(raw) if r[2] == m]
        for i, p in zip(idx, adjust([raw[i][3].p_value for i in idx], correction)):
            adjusted[i] = p
    rows = [SeedRow(a, b, m, res, adjusted[i]) for i, (a, b, m, res) in enumerate(raw)]
    signature = Signature.build(
        **data_settings,
        test=f"welch:{alternative},cohen-d:harbecke-eq4",
        methods=correction,
    )
    notes = [res.note for *_, res in raw if res.note]  # e.g. both systems constant over seeds: t undefined
    return SeedTable(runs, rows, baseline, metrics, alternative, correction, n, signature, notes=notes, unit=unit)
