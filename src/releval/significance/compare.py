"""Comparing many systems of any task: all pairs or each against a baseline, with a correction across pairs.

One path serves relation classification and end-to-end RE: each task gives the per-item statistics of two
systems as cells (releval.tasks.*.paired_cells) and its signature; the bootstrap and the randomization test
(releval.significance.paired.resampling_rows) never know which task they test. Seed comparisons (several runs per
system) use Welch's t and Cohen's d (releval.significance.seeds). The family for the multiple-testing correction is one
(test, average) across all compared pairs; adjusted p-values come from releval.significance.corrections.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeGuard, cast

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError, OptionError, raise_all
from releval.core.notices import Notice, warn_all
from releval.core.options import RESAMPLING_TESTS
from releval.core.signature import Signature
from releval.data.columns import distinct
from releval.metrics.averages import AveragingSpec
from releval.metrics.cells import encode_triplet
from releval.metrics.classification import score_labels
from releval.metrics.joint_cells import (
    JointCells,
    LabelView,
    encode_systems,
    joint_cells_from_labels,
    joint_observed_f,
    joint_resampled_f,
)
from releval.metrics.rare_classes import rare_class_notices
from releval.significance.comparison import (
    PairStatistics,
    Scored,
    check_resampling_tests,
    check_systems,
    compare_scored,
    run_warnings,
)
from releval.significance.config import SignificanceConfig, split_settings
from releval.significance.paired import (
    CORRECTNESS_TESTS,
    CORRECTNESS_TITLES,
    MetricComparison,
    comparison_rows,
    correctness_test,
    percentile_intervals,
    resampling_rows,
)
from releval.significance.tables import (  # noqa: F401 — importable from here too, their first home
    PairedTable,
    PairRow,
    SeedRow,
    SeedTable,
    adjust,
    pair_rows,
    raw_row,
    score_runs,
    seed_table,
    system_pairs,
)
from releval.tasks import classification as rc
from releval.tasks.base import task_of

if TYPE_CHECKING:  # end-to-end RE's modules (~15 ms) are loaded by its Config's comparison only
    from releval.tasks import e2e


def paired_steps(n_pairs: int, test: SignificanceConfig, criteria: int = 1) -> int:
    """The steps a paired comparison reports to its `progress` callback, all told: per pair, `resamples` for each
    resampling test (times the criteria of end-to-end RE, each resampled on its own) and 1 for each test on
    per-item correctness (McNemar, sign).

    >>> from releval.significance.config import SignificanceConfig
    >>> paired_steps(3, SignificanceConfig(("bootstrap", "mcnemar"), resamples=1000))
    3003
    """
    per_pair = sum(test.resamples * criteria if t in RESAMPLING_TESTS else 1 for t in test.tests)
    return n_pairs * per_pair


def _advance(progress: object) -> Callable[[int], None] | None:
    """The caller's progress callback (called with the number of steps just done, `paired_steps`), or None.

    The library draws nothing: `releval compare` passes the callback of its bar (releval.commands.progress).
    False, the old spelling of no bar, is None."""
    if progress is None or progress is False:
        return None
    if not callable(progress):
        raise OptionError(
            "progress: expected a callable advance(n) called with the steps done (or None), got "
            f"{progress!r}; the bar is drawn by the command line",
            option="progress",
        )
    return progress


def _by_documents(config: object) -> TypeGuard[e2e.E2EConfig]:
    """Whether `config` is of a task whose unit is the document (end-to-end RE: relation sets per document), not
    the item aligned by id (classification): its Task's declared unit (releval.tasks.base.task_of), not its class.
    No Config: classification's."""
    return config is not None and task_of(config).unit == "document"


# A task's pair of systems as (prefix, cells, spec) per criterion: "" for classification, "strict:" for e2e.
PairCells = Callable[[str, str], list[tuple[str, Any, Any]]]


def compare_paired(
    gold: Any,
    systems: Mapping[str, Any],
    config: rc.ClassificationConfig | e2e.E2EConfig | None = None,
    test: SignificanceConfig | None = None,
    *,
    baseline: str | None = None,
    progress: Callable[[int], None] | None = None,
    facts: rc.DataFacts | None = None,
    **settings: Any,
) -> PairedTable:
    """Paired tests of several systems on the same items, all pairs or against `baseline`, corrected across pairs.

    Parameters
    ----------
    gold, systems
        Classification: gold labels and {name: predicted labels}, aligned item by item; or gold and predictions
        as files, {id: label} mappings or LabelFiles, aligned by id as `releval compare` aligns them (a missing
        prediction is an error unless the Config's `on_missing` fills it, and a fill is signed and warned).
        End-to-end RE (an `E2EConfig`): the gold file or documents and {name: prediction file or documents}.
    config
        The task's Config (default: classification with its defaults); every setting goes into the signature.
    test
        The tests and their settings (`SignificanceConfig`). McNemar and the sign test compare per-item
        correctness, which end-to-end RE does not have: they are refused there.
    facts
        How aligned classification label lists were aligned (missing-prediction policy, fills): signed and warned.
    progress
        Called with the number of steps just done, `paired_steps` in all: the resamples of each block as it is
        drawn (a block of the joint bootstrap of three systems or more counts for every pair), 1 per pair for a
        test on correctness; `releval compare` moves its bar with it. Nothing is drawn here, and no number
        depends on it.

    Returns
    -------
    PairedTable
        Scores of every system, one row per (pair, test, average) with Δ, CI, p and adjusted p; the signature.
        Its warnings (a fill of missing predictions, duplicated relations) are repeated through `warnings.warn`
        as `RelevalWarning`.
    """
    table = paired_table(gold, systems, config, test, baseline=baseline, progress=progress, facts=facts, **settings)
    warn_all(table.warnings)
    return table


def paired_table(
    gold: Any,
    systems: Mapping[str, Any],
    config: rc.ClassificationConfig | e2e.E2EConfig | None = None,
    test: SignificanceConfig | None = None,
    *,
    baseline: str | None = None,
    progress: Callable[[int], None] | None = None,
    facts: rc.DataFacts | None = None,
    **settings: Any,
) -> PairedTable:
    """`compare_paired` without repeating the warnings through `warnings.warn` (the command line shows them on
    stderr and in the document)."""
    config, test = _configs(config, test, settings)
    advance = _advance(progress)
    runs = {name: [pred] for name, pred in systems.items()}
    check_systems(runs, baseline)
    table = compare_scored(scored_systems(gold, runs, config, test, True, facts), True, test, baseline, advance)
    assert isinstance(table, PairedTable)
    return table


def _label_lists(gold: Any) -> bool:
    """Whether classification gold is given as aligned labels (a list) rather than a file, mapping or LabelFile."""
    from releval.data.labels import LabelFile

    return not isinstance(gold, (str, bytes, os.PathLike, Mapping, LabelFile))


def align_systems(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: rc.ClassificationConfig
) -> tuple[list[str], dict[str, list[list[str]]], rc.DataFacts]:
    """Gold and every run of every system (files, {id: label} mappings or LabelFiles) read and aligned under the
    Config, as `releval compare` does: (gold labels, {name: [aligned predictions per run]}, the alignment facts).

    Every system's input problems are reported together (InputErrors); a fill of missing predictions is in the
    facts' warnings and signature field.
    """
    gold_file, digest = rc.load_gold(gold, config)
    runs: dict[str, list[list[str]]] = {}
    prepared: list[tuple[str, rc.Prepared]] = []
    errors: list[InputError] = []
    gold_set = distinct(gold_file.labels)
    for name, preds in systems.items():
        for pred in preds:
            try:  # with the label checks `score` makes
                one = rc.check_prepared(
                    rc.prepare(gold_file, rc.load_pred(pred, config), config, digest), config, gold_set
                )
            except OptionError:
                raise  # a setting's problem (a misspelt negative), the same for every file: said once
            except InputError as exc:
                errors.append(exc)
                continue
            prepared.append((name, one))
            runs.setdefault(name, []).append(list(one.alignment.pred))
    raise_all(errors)
    return list(gold_file.labels), runs, rc.DataFacts.of(prepared)


def _configs(
    config: rc.ClassificationConfig | e2e.E2EConfig | None, test: SignificanceConfig | None, settings: dict[str, Any]
) -> tuple[rc.ClassificationConfig | e2e.E2EConfig, SignificanceConfig]:
    """The task's Config and the test's, with keyword settings routed to them by name (split_settings); no
    Config: classification's."""
    kind: type[rc.ClassificationConfig | e2e.E2EConfig] = rc.ClassificationConfig if config is None else type(config)
    return split_settings(kind, config, test, settings)


def scored_systems(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: rc.ClassificationConfig | e2e.E2EConfig,
    test: SignificanceConfig,
    paired: bool,
    facts: rc.DataFacts | None = None,
) -> Scored:
    """Every run of every system as the one comparison path takes them (releval.significance.comparison.Scored):
    documents of end-to-end RE, or items of classification (files aligned by id here, or label lists aligned
    already, with `facts` saying how). `compare`, `compare --per-class` and the bootstrap figure all start here."""
    class_set = test.interval_class_set if paired else None
    if _by_documents(config):
        if paired:
            check_resampling_tests(
                test,
                f"end-to-end RE: {CORRECTNESS_TITLES} need per-item correctness, which relation sets do not have "
                "(use bootstrap or randomization)",
            )
        return _e2e_scored(gold, systems, config, test, class_set)
    labels_config = cast(rc.ClassificationConfig, config)  # the other unit: items aligned by id
    if not _label_lists(gold):
        gold, systems, facts = align_systems(gold, systems, labels_config)
    return _rc_scored(list(gold), systems, labels_config, test, paired, facts)


def _rc_scored(
    gold: list[str],
    systems: Mapping[str, Sequence[Sequence[str]]],
    config: rc.ClassificationConfig,
    test: SignificanceConfig,
    paired: bool,
    facts: rc.DataFacts | None,
) -> Scored:
    """Classification's systems (aligned label lists, one per run) for the one comparison path: items resampled;
    with two pairs or more, the bootstrap draws every pair from one joint resample (`_joint_bootstrap`)."""
    for name, preds in systems.items():
        for i, pred in enumerate(preds, 1):
            if len(pred) != len(gold):
                run = "" if paired else f" run {i}"
                raise InputError(
                    f"system '{name}'{run} has {len(pred)} predictions for {len(gold)} gold items", field="system"
                )
    facts = facts or rc.DataFacts()
    config, facts = micro_only_when_wrong(config, facts)
    rc.check_negative_label(config, gold, (pred for preds in systems.values() for pred in preds))
    negative, _ = rc.resolve_negative(config.negative, gold)
    scores = {
        name: [_f_scores(gold, pred, negative, config.weightings, config) for pred in preds]
        for name, preds in systems.items()
    }
    one = {name: preds[0] for name, preds in systems.items()}

    def cells(a: str, b: str) -> list[tuple[str, Any, Any]]:
        c, spec, _ = rc.paired_cells(gold, one[a], one[b], config)
        return [("", c, spec)]

    def pair_statistics(a: str, b: str) -> list[PairStatistics]:
        (prefix, c, spec), labels = cells(a, b)[0], encode_triplet(*(_text(s) for s in (gold, one[a], one[b])))[0]
        return [PairStatistics(prefix, c, spec, labels)]

    def discordant(t: str, a: str, b: str) -> dict[str, Any]:
        res = correctness_test(t, gold, one[a], one[b], test)
        return {"score_a": res.score_a, "score_b": res.score_b, "effect": res.effect, "p_value": res.p_value}

    def all_pairs(pairs: list[tuple[str, str]], advance: Callable[[int], None] | None) -> list[dict[str, Any]]:
        joint = None  # two systems: the pair engine, whose numbers for a seed are unchanged
        if "bootstrap" in test.tests and len(pairs) > 1:
            joint = _joint_bootstrap(gold, one, pairs, config, negative, test, advance)
        return _run_tests(pairs, test, advance, cells, discordant, joint)

    notes = []
    if paired and any(t in CORRECTNESS_TESTS for t in test.tests):
        notes.append(f"{CORRECTNESS_TITLES} compare per-item correctness (accuracy), the same for every average")
    class_set = test.interval_class_set if paired else None
    return Scored(
        scores,
        tuple(config.average_names),
        lambda values: values,
        len(gold),
        "items",
        lambda extra: _rc_signature(config, gold, negative, facts, extra),
        all_pairs=all_pairs if paired else None,
        pair_statistics=pair_statistics,
        notes=notes,
        warnings=[*facts.warnings, *rc_rare_notices(gold, negative, config, class_set)],
        unit_signed=False,
    )


def _text(labels: Sequence[Any]) -> list[str]:
    """Labels as text (an integer label is its digits), as classification's cells encode them."""
    return [x if type(x) is str else str(x) for x in labels]


def _rc_signature(
    config: rc.ClassificationConfig,
    gold: Sequence[str],
    negative: str | None,
    facts: rc.DataFacts,
    extra: dict[str, object],
) -> Signature:
    """Classification's signature of a comparison: the data's facts (negative, fills, alignment, patch) and the
    test's fields (`extra`)."""
    return rc.signature(
        config,
        gold,
        negative=negative,
        missing=facts.missing,
        by_position=facts.by_position,
        patch_digest=facts.patch_digest,
        extra=extra,
    )


def micro_only_when_wrong(
    config: rc.ClassificationConfig, facts: rc.DataFacts
) -> tuple[rc.ClassificationConfig, rc.DataFacts]:
    """Under `on_missing="wrong"` with predictions filled, only micro is compared: Olek's correction makes micro
    exact, but a class-weighted F is then known only as an interval (the filled items' false positives belong to
    no known class; `releval score` shows the intervals), and a test on one point of it would be a test of a
    number nobody can compute. The class-weighted averages leave the Config (so the signature says `avg:micro`)
    and a warning says why."""
    if facts.missing != "wrong" or not config.weightings:
        return config, facts
    dropped = ", ".join(w.name for w in config.weightings)
    notice = Notice(
        f"only micro is compared: with missing predictions counted as wrong, the "
        f"class-weighted averages ({dropped}) are known only as intervals over the filled items' classes "
        "(`releval score` shows them)",
        "averages-dropped",
    )
    return replace(config, weightings=()), replace(facts, warnings=(*facts.warnings, notice))


def _f_scores(
    gold: Sequence[str], pred: Sequence[str], negative: str | None, schemes: Any, config: rc.ClassificationConfig
) -> dict[str, float]:
    averages = score_labels(
        gold,
        pred,
        negative=negative,
        weightings=schemes,
        beta=config.beta,
        zero_division=config.zero_division,
        entropy_n=config.entropy_n,
    ).averages
    return {m: float(prf.f) for m, prf in averages.items()}


def joint_views(
    gold: Sequence[str],
    systems: Mapping[str, Sequence[str]],
    pairs: Sequence[tuple[str, str]],
    config: rc.ClassificationConfig,
    negative: str | None,
) -> tuple[JointCells, list[LabelView], dict[tuple[str, str], tuple[int, int, int]]]:
    """The joint cells of the systems the pairs name, the classes each pair is scored on, and per pair (its view,
    the places of A and of B among the view's systems).

    A pair's classes are those `rc.paired_cells` gives it: the gold labels, then the labels only its two systems
    predict. Pairs with the same classes share one view, and each of its systems is scored once per resample.
    """
    used = list(dict.fromkeys(name for pair in pairs for name in pair))
    as_text = [[x if type(x) is str else str(x) for x in s] for s in (gold, *(systems[name] for name in used))]
    labels, g, codes = encode_systems(as_text[0], as_text[1:])
    cells = joint_cells_from_labels(g, codes, len(labels))
    n_gold = len(set(as_text[0]))
    base = AveragingSpec(
        np.array([lbl != negative for lbl in labels], dtype=bool),
        config.weightings,
        config.beta,
        config.zero_division,
        config.entropy_n,
    )
    extra = {name: frozenset(np.unique(codes[i][codes[i] >= n_gold]).tolist()) for i, name in enumerate(used)}
    members: dict[tuple[int, ...], list[int]] = {}  # a pair's predicted-only classes → the systems scored on them
    for a, b in pairs:
        systems_of = members.setdefault(tuple(sorted(extra[a] | extra[b])), [])
        systems_of.extend(used.index(name) for name in (a, b) if used.index(name) not in systems_of)
    views = []
    for classes, of in members.items():
        if len(classes) == len(labels) - n_gold:  # every class: the totals are used as they are, no copy
            views.append(LabelView(None, base, tuple(of)))
        else:
            columns = np.array([*range(n_gold), *classes], dtype=np.intp)
            views.append(LabelView(columns, replace(base, positive=base.positive[columns]), tuple(of)))
    keys = list(members)
    where = {}
    for a, b in pairs:
        v = keys.index(tuple(sorted(extra[a] | extra[b])))
        where[(a, b)] = (v, views[v].systems.index(used.index(a)), views[v].systems.index(used.index(b)))
    return cells, views, where


def _joint_bootstrap(
    gold: Sequence[str],
    systems: Mapping[str, Sequence[str]],
    pairs: Sequence[tuple[str, str]],
    config: rc.ClassificationConfig,
    negative: str | None,
    test: SignificanceConfig,
    progress: Callable[[int], None] | None = None,
) -> dict[tuple[str, str], dict[str, MetricComparison]]:
    """The bootstrap rows of every pair from one joint draw over the distinct (gold, every system) tuples.

    Each pair is scored on its own classes (`joint_views`), so observed scores, p-values and intervals mean what
    the pair engine's do, and each pair's resample is a paired bootstrap resample (releval.metrics.joint_cells).
    The pairs share their draws, so the numbers for a given seed differ from those of the independent per-pair
    draws releval made before (each pair's distribution is the same); used when there are two pairs or more."""
    cells, views, where = joint_views(gold, systems, pairs, config, negative)
    observed = joint_observed_f(cells, views)
    advance = None if progress is None else (lambda r: progress(r * len(pairs)))  # one draw resamples every pair
    draws = joint_resampled_f(cells, views, test.resamples, test.seed, test.class_set, advance)
    intervals = [{m: percentile_intervals(f, test.confidence) for m, f in d.items()} for d in draws]
    rows = {}
    for pair, (v, ia, ib) in where.items():
        obs_a = {m: f[ia] for m, f in observed[v].items()}
        obs_b = {m: f[ib] for m, f in observed[v].items()}
        pair_draws = {m: (f[ia], f[ib]) for m, f in draws[v].items()}
        ci = {m: (c[ia], c[ib]) for m, c in intervals[v].items()}
        rows[pair] = comparison_rows(obs_a, obs_b, pair_draws, "bootstrap", test, ci)
    return rows


def _run_tests(
    pairs: Sequence[tuple[str, str]],
    test: SignificanceConfig,
    progress: Callable[[int], None] | None,
    cells: PairCells,
    discordant: Callable[[str, str, str], dict[str, Any]] | None,
    joint: Mapping[tuple[str, str], dict[str, MetricComparison]] | None = None,
) -> list[dict[str, Any]]:
    """Raw rows of every test for every pair, `progress` called with the resamples of each block drawn and with 1
    after each test on correctness (`paired_steps`). `joint`: the bootstrap's rows of every pair, already drawn
    jointly (`_joint_bootstrap`, counted when drawn); the other tests draw per pair."""
    raw: list[dict[str, Any]] = []
    per_pair = [t for t in test.tests if t in RESAMPLING_TESTS and not (t == "bootstrap" and joint is not None)]
    for a, b in pairs:
        pair_cells = cells(a, b) if per_pair else []
        for t in test.tests:
            if t in RESAMPLING_TESTS:
                if t == "bootstrap" and joint is not None:
                    results = [("", joint[(a, b)])]
                else:
                    results = [(p, resampling_rows(c, spec, t, test, progress)) for p, c, spec in pair_cells]
                for prefix, rows in results:
                    for m, r in rows.items():
                        raw.append(raw_row(a, b, t, f"{prefix}{m}", r))
            elif discordant is not None:
                raw.append({"a": a, "b": b, "test": test.test_name(t), "metric": "accuracy", **discordant(t, a, b)})
            if progress is not None and t not in RESAMPLING_TESTS:
                progress(1)  # a resampling test counts its resamples as it draws them
    return raw


def _score_e2e_systems(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: e2e.E2EConfig
) -> dict[str, list[e2e.E2EResult]]:
    """Every run of every system scored against one loaded gold; all must use the same gold documents."""
    from releval.data.e2e import load_any
    from releval.tasks import e2e

    check_systems(systems, None)
    gold_data = load_any(gold, "gold")
    scored = score_runs(systems, lambda name, run: e2e.score(gold_data, run, config, name))
    first = config.all_criteria[0]
    digests = {(name, r.counts[first].gold_digest) for name, runs in scored.items() for r in runs}
    if len({d for _, d in digests}) > 1:
        raise InputError(
            "the systems were aligned to different gold documents (e.g. different splits of the gold file): "
            + ", ".join(sorted(f"{n}→{d}" for n, d in digests)),
            field="system",
        )
    return scored


def _e2e_metrics(config: e2e.E2EConfig) -> tuple[str, ...]:
    return tuple(f"{c}:{m}" for c in config.all_criteria for m in config.average_names)


def _e2e_signature(config: e2e.E2EConfig, first: e2e.E2EResult, extra: dict[str, object]) -> Signature:
    """The data part of every criterion is the same (gold, types, n): signed from the first relation criterion,
    with every compared criterion named."""
    from releval.metrics.e2e import NER
    from releval.tasks import e2e

    criterion = next(c for c in config.all_criteria if c != NER)
    sig = e2e.signature(config, first.counts[criterion], first.n_documents, config.inventory(), extra)
    fields = dict(sig.fields)
    fields["criterion"] = ",".join(config.all_criteria)
    return Signature(fields)


def _e2e_scored(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: e2e.E2EConfig,
    test: SignificanceConfig,
    class_set: str | None,
) -> Scored:
    """End-to-end RE systems for the one comparison path: documents resampled, every criterion's cells drawn
    with the same documents (each criterion's measures are `criterion:average`)."""
    from releval.tasks import e2e

    results = _score_e2e_systems(gold, systems, config)
    first = next(iter(results.values()))[0]

    def pair_statistics(a: str, b: str) -> list[PairStatistics]:
        ra, rb = results[a][0], results[b][0]
        out = []
        for criterion in config.all_criteria:
            cells, spec = e2e.paired_cells(ra, rb, criterion, config)
            labels = list(dict.fromkeys([*ra.counts[criterion].labels, *rb.counts[criterion].labels]))
            out.append(PairStatistics(f"{criterion}:", cells, spec, labels))  # e2e.union_counts' order
        return out

    return Scored(
        results,
        _e2e_metrics(config),
        lambda r: {f"{c}:{m}": r[c].averages[m].f for c in config.all_criteria for m in config.average_names},
        first.n_documents,
        "documents",
        lambda extra: _e2e_signature(config, first, extra),
        pair_statistics=pair_statistics,
        notes=["end-to-end RE: documents are resampled (per-document TP/FP/FN per relation type)"],
        warnings=[*run_warnings(results), *e2e_rare_notices(first, config, class_set)],
    )


def rc_rare_notices(
    gold: Sequence[str], negative: str | None, config: rc.ClassificationConfig, class_set: str | None
) -> list[Notice]:
    """The "rare-classes" warnings of classification gold labels: a class-weighted average of the Config over
    classes with very few gold items (releval.metrics.rare_classes; `class_set` of the bootstrap's
    intervals, None without them)."""
    from collections import Counter

    support = Counter(x if type(x) is str else str(x) for x in gold)
    labels = sorted(support)
    spec = AveragingSpec(
        np.array([label != (None if negative is None else str(negative)) for label in labels], dtype=bool),
        config.weightings,
        entropy_n=config.entropy_n,
    )
    return rare_class_notices(labels, np.array([support[label] for label in labels]), spec, class_set)


def e2e_rare_notices(
    result: e2e.E2EResult, config: e2e.E2EConfig, class_set: str | None, criteria: Sequence[str] | None = None
) -> list[Notice]:
    """The "rare-classes" warnings of every compared criterion (or of `criteria`) of end-to-end RE, from the gold
    types' supports (the same for every system scored on the gold), each named by its criterion."""
    from releval.tasks import e2e

    notices = []
    for criterion in config.all_criteria if criteria is None else criteria:
        counts = result.counts[criterion]
        support = counts.tp.sum(axis=0) + counts.fn.sum(axis=0)
        spec = e2e.averaging_spec(config, len(counts.labels))
        notices += rare_class_notices(counts.labels, support, spec, class_set, prefix=f"{criterion}:")
    return notices


def compare_seed_runs(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: rc.ClassificationConfig | e2e.E2EConfig | None = None,
    test: SignificanceConfig | None = None,
    *,
    baseline: str | None = None,
    facts: rc.DataFacts | None = None,
    **settings: Any,
) -> SeedTable:
    """Several runs per system: mean ± sample SD per average, Welch's t and Cohen's d per pair, corrected.

    Parameters as for `compare_paired`; `systems` maps each name to its runs (two or more). Only the
    alternative and the correction of `test` apply. The table's warnings are repeated through `warnings.warn`.
    """
    table = seed_runs_table(gold, systems, config, test, baseline=baseline, facts=facts, **settings)
    warn_all(table.warnings)
    return table


def seed_runs_table(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: rc.ClassificationConfig | e2e.E2EConfig | None = None,
    test: SignificanceConfig | None = None,
    *,
    baseline: str | None = None,
    facts: rc.DataFacts | None = None,
    **settings: Any,
) -> SeedTable:
    """`compare_seed_runs` without repeating the warnings through `warnings.warn`."""
    config, test = _configs(config, test, settings)
    check_systems(systems, baseline)
    for name, runs in systems.items():
        if len(runs) < 2:
            raise InputError(
                f"system '{name}' has {len(runs)} run(s); seed comparison needs at least 2", field="system"
            )
    table = compare_scored(scored_systems(gold, systems, config, test, False, facts), False, test, baseline)
    assert isinstance(table, SeedTable)
    return table


def compare_files(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: rc.ClassificationConfig | e2e.E2EConfig,
    test: SignificanceConfig,
    *,
    baseline: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> PairedTable | SeedTable:
    """Systems given as files ({name: [files]}) compared under a task's Config, as `releval compare` does: one
    file per system → paired tests on the same units (items, or documents for e2e); several files per system →
    runs over seeds (Welch, Cohen's d). Mixing the two is an InputError. This is the `compare` of the rc and e2e
    Tasks (releval.tasks), so the command knows no task by name."""
    paired = check_systems(systems, baseline)
    scored = scored_systems(gold, systems, config, test, paired)
    return compare_scored(scored, paired, test, baseline, _advance(progress))


def e2e_rank_intervals(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: e2e.E2EConfig, test: SignificanceConfig
) -> dict[str, dict[str, Any]]:
    """Each end-to-end system's rank and bootstrap rank interval under every criterion and average: documents
    drawn once for every system (releval.significance.comparison.joint_rank_intervals), each criterion's types the
    union of every run's, its class set fixed as the paired bootstrap fixes it; a system with several files (seeds)
    ranked by the mean of its runs' measure."""
    from releval.metrics.averages import fix_class_set
    from releval.metrics.cells import f_scores
    from releval.significance.comparison import JointRows, joint_rank_intervals
    from releval.tasks import e2e

    scored = _score_e2e_systems(gold, systems, config)
    every = [(name, i, r) for name, runs in scored.items() for i, r in enumerate(runs)]
    blocks: list[tuple[str, int, Any]] = []  # (criterion, its width 3K, its spec)
    rows: dict[tuple[str, int], list[NDArray[np.float64]]] = {(name, i): [] for name, i, _ in every}
    for criterion in config.all_criteria:
        labels = list(dict.fromkeys(label for _, _, r in every for label in r.counts[criterion].labels))
        index = {label: i for i, label in enumerate(labels)}
        for name, i, r in every:
            dc = r.counts[criterion]
            cols = np.array([index[label] for label in dc.labels], dtype=np.intp)
            wide = np.zeros((dc.tp.shape[0], 3 * len(labels)))
            for part, m in enumerate((dc.tp, dc.fp, dc.fn)):
                wide[:, part * len(labels) + cols] = m
            rows[(name, i)].append(wide)
        first = rows[(every[0][0], every[0][1])][-1]
        k = len(labels)
        support = first[:, :k].sum(0) + first[:, 2 * k :].sum(0)  # TP + FN: gold's, the same for every system
        blocks.append((criterion, 3 * k, fix_class_set(e2e.averaging_spec(config, k), support, test.class_set)))

    def measures(totals: NDArray[np.float64]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        start = 0
        for criterion, width, spec in blocks:
            for average, values in f_scores(totals[..., start : start + width], spec).items():
                out[f"{criterion}:{average}"] = values
            start += width
        return out

    runs = {name: [np.hstack(rows[(name, i)]) for i in range(len(scored[name]))] for name in scored}
    return joint_rank_intervals(JointRows(runs, measures), _e2e_metrics(config), test)
