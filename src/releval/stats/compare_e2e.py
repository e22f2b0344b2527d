"""Comparing end-to-end RE systems: paired tests over documents, or Welch/Cohen over seeds, per criterion.

Each system is scored with `score_e2e`; its per-document × per-type TP/FP/FN matrices (Taillé et al. 2020's
Strict / Boundaries, NER strict) feed the count-level paired bootstrap and approximate randomization
(releval.stats.paired, on distinct document cells). Averages are named "criterion:average" (e.g.
"strict:macro"), and each (test, criterion:average) is one family for the correction across pairs.
McNemar and the sign test need per-item correctness, which end-to-end RE does not have, so they are refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from releval.core.options import RESAMPLING_TESTS
from releval.core.signature import Signature, short_hash
from releval.data.e2e import TypeInventory, load_any, load_types
from releval.e2e_api import RE_CRITERIA, E2EInput, E2EResult, score_e2e
from releval.errors import InputError, OptionError, raise_all
from releval.metrics.averages import MICRO
from releval.metrics.e2e import NER, DocumentCounts
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, Weighting, get_weightings
from releval.stats.compare import (
    CORRECTIONS,
    PairedTable,
    SeedTable,
    pair_rows,
    resampling_rows,
    run_pair_tests,
    seed_table,
    system_pairs,
)
from releval.stats.paired import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    approximate_randomization_counts,
    check_resampling,
    paired_bootstrap_counts,
)
from releval.stats.seeds import ALTERNATIVES
from releval.validation import check_choice


def _criteria(criteria: Sequence[str], ner: bool) -> list[str]:
    chosen = list(dict.fromkeys(c.strip().lower() for c in criteria if c.strip()))
    bad = [c for c in chosen if c not in RE_CRITERIA]
    if bad or not chosen:
        raise OptionError(
            f"--criterion: unknown criterion {bad[0] if bad else '(none)'!r} (known: {', '.join(RE_CRITERIA)})",
            option="--criterion",
        )
    return ([NER] if ner else []) + chosen


def _score_all(
    gold: E2EInput,
    systems: Mapping[str, Sequence[E2EInput]],
    criteria: list[str],
    types: str | os.PathLike[str] | TypeInventory | None,
    schemes: tuple[Weighting, ...],
    by_position: bool,
) -> tuple[dict[str, list[E2EResult]], dict[str, object]]:
    """Every run of every system scored against one loaded gold; all must use the same gold documents."""
    if len(systems) < 2:
        raise InputError(f"comparison needs at least 2 systems, got {len(systems)}", field="system")
    inventory = types if isinstance(types, TypeInventory) or types is None else load_types(types)
    gold_data = load_any(gold, "gold")
    re_criteria = [c for c in criteria if c != NER]
    scored: dict[str, list[E2EResult]] = {}
    errors: list[InputError] = []
    for name, runs in systems.items():
        for run in runs:
            try:
                scored.setdefault(name, []).append(
                    score_e2e(
                        gold_data,
                        run,
                        criteria=re_criteria,
                        types=inventory,
                        ner=NER in criteria,
                        weightings=schemes,
                        by_position=by_position,
                        system=name,
                    )
                )
            except InputError as exc:
                errors.append(exc)
    raise_all(errors)
    digests = {(name, r.counts[criteria[0]].gold_digest) for name, runs in scored.items() for r in runs}
    if len({d for _, d in digests}) > 1:
        raise InputError(
            "the systems were aligned to different gold documents (e.g. different splits of the gold file): "
            + ", ".join(sorted(f"{n}→{d}" for n, d in digests)),
            field="system",
        )
    first = next(iter(scored.values()))[0]
    return scored, _settings(criteria, schemes, first, inventory)


def _union_counts(a: DocumentCounts, b: DocumentCounts) -> tuple[list[NDArray], list[NDArray]]:
    """(tp, fp, fn) of A and of B over the union of their type lists (types one system never uses get zeros)."""
    labels = list(dict.fromkeys([*a.labels, *b.labels]))
    index = {label: i for i, label in enumerate(labels)}

    def widen(dc: DocumentCounts) -> list[NDArray]:
        cols = np.array([index[label] for label in dc.labels], dtype=np.intp)
        out = []
        for m in (dc.tp, dc.fp, dc.fn):
            wide = np.zeros((m.shape[0], len(labels)), dtype=np.int64)
            wide[:, cols] = m
            out.append(wide)
        return out

    return widen(a), widen(b)


def _settings(
    criteria: list[str], schemes: tuple[Weighting, ...], first: E2EResult, inventory: TypeInventory | None
) -> dict[str, object]:
    """Signature fields of the data: criteria, averages, the gold types (and symmetric ones), gold digest, n."""
    relation = first[next(c for c in criteria if c != NER)]  # `_criteria` always keeps one relation criterion
    gold_types = sorted(row.label for row in relation.per_class if row.support > 0)
    symmetric = ",".join(sorted(inventory.symmetric)) if inventory else ""
    return {
        "task": "e2e",
        "criterion": criteria,
        "average": [MICRO, *(w.name for w in schemes)],
        "labels": short_hash(gold_types) + (f"+sym:{symmetric}" if symmetric else ""),
        "gold": first.counts[criteria[0]].gold_digest,
        "n": first.n_documents,
    }


def _metrics(criteria: list[str], schemes: tuple[Weighting, ...]) -> tuple[str, ...]:
    return tuple(f"{c}:{m}" for c in criteria for m in (MICRO, *(w.name for w in schemes)))


def compare_paired_e2e(
    gold: E2EInput,
    systems: Mapping[str, E2EInput],
    *,
    criteria: Sequence[str] = RE_CRITERIA,
    ner: bool = False,
    types: str | os.PathLike[str] | TypeInventory | None = None,
    baseline: str | None = None,
    tests: Sequence[str] = ("bootstrap",),
    weightings: Sequence[str | Weighting] = DEFAULT_WEIGHTINGS,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    correction: str = "holm",
    by_position: bool = False,
    progress: bool = False,
) -> PairedTable:
    """Paired tests of end-to-end RE systems over the same gold documents, per criterion and average.

    Documents are the resampled units (per-document TP/FP/FN per type), so the bootstrap and the randomization
    test respect that relations of one sentence share its context.
    """
    bad = [t for t in tests if t not in RESAMPLING_TESTS]
    if bad or not tests:
        raise OptionError(
            f"--test: {', '.join(bad) or '(none)'} not available for end-to-end RE: McNemar and the sign test need "
            "per-item correctness, which relation sets do not have (use bootstrap or randomization)",
            option="--test",
        )
    check_choice(correction, CORRECTIONS, "--correction")
    check_choice(alternative, ALTERNATIVES, "--alternative")
    check_resampling(resamples, seed, confidence)
    crits = _criteria(criteria, ner)
    schemes = get_weightings(weightings)
    scored, settings = _score_all(gold, {k: [v] for k, v in systems.items()}, crits, types, schemes, by_position)
    results = {name: runs[0] for name, runs in scored.items()}
    scores = {
        name: {f"{c}:{m}": r[c].averages[m].f for c in crits for m in r[c].averages} for name, r in results.items()
    }

    def one_test(test: str, a: str, b: str) -> list[dict[str, Any]]:
        rows = []
        for criterion in crits:
            counts_a, counts_b = _union_counts(results[a].counts[criterion], results[b].counts[criterion])
            common = {"weightings": schemes, "alternative": alternative, "resamples": resamples, "seed": seed}
            res = (
                paired_bootstrap_counts(counts_a, counts_b, confidence=confidence, **common)  # type: ignore[arg-type]
                if test == "bootstrap"
                else approximate_randomization_counts(counts_a, counts_b, **common)  # type: ignore[arg-type]
            )
            rows.extend(resampling_rows(res, a, b, test, prefix=f"{criterion}:"))
        return rows

    raw = run_pair_tests(system_pairs(list(systems), baseline), tests, progress, one_test)
    signature = Signature.build(
        **settings,
        test=",".join(f"{t}:{alternative}:documents" for t in tests),
        resamples=resamples,
        seed=seed if seed is not None else "none",
        methods=correction,
    )
    return PairedTable(
        scores,
        pair_rows(raw, correction),
        baseline,
        tuple(tests),
        _metrics(crits, schemes),
        alternative,
        correction,
        int(settings["n"]),  # type: ignore[call-overload]
        signature,
        confidence,
        ["end-to-end RE: documents are resampled (per-document TP/FP/FN per relation type)"],
        unit="documents",
    )


def compare_seed_runs_e2e(
    gold: E2EInput,
    systems: Mapping[str, Sequence[E2EInput]],
    *,
    criteria: Sequence[str] = RE_CRITERIA,
    ner: bool = False,
    types: str | os.PathLike[str] | TypeInventory | None = None,
    baseline: str | None = None,
    weightings: Sequence[str | Weighting] = DEFAULT_WEIGHTINGS,
    alternative: str = "two-sided",
    correction: str = "holm",
    by_position: bool = False,
) -> SeedTable:
    """Several runs (seeds) per end-to-end system: Welch's t and Cohen's d (Harbecke Eq. 4) per criterion:average."""
    check_choice(correction, CORRECTIONS, "--correction")
    check_choice(alternative, ALTERNATIVES, "--alternative")
    crits = _criteria(criteria, ner)
    schemes = get_weightings(weightings)
    for name, runs in systems.items():
        if len(runs) < 2:
            raise InputError(
                f"system '{name}' has {len(runs)} run(s); seed comparison needs at least 2", field="system"
            )
    scored, settings = _score_all(gold, systems, crits, types, schemes, by_position)
    metrics = _metrics(crits, schemes)
    scores = {
        name: {m: [r[m.split(":", 1)[0]].averages[m.split(":", 1)[1]].f for r in results] for m in metrics}
        for name, results in scored.items()
    }
    return seed_table(
        scores,
        metrics,
        settings,
        int(settings["n"]),  # type: ignore[call-overload]
        baseline,
        alternative,
        correction,
        unit="documents",
    )
