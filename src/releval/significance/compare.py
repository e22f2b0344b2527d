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
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeGuard

import numpy as np

from releval.core.errors import InputError, OptionError, raise_all
from releval.core.frames import data_frame
from releval.core.notices import Notice, as_notices, warn_all
from releval.core.options import CORRECTIONS, RESAMPLING_TESTS
from releval.core.schema import check_schema, header
from releval.core.signature import Signature, parse
from releval.core.validation import check_choice
from releval.data.columns import distinct
from releval.metrics.averages import AveragingSpec
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
from releval.significance.config import SignificanceConfig, correction_field, split_settings
from releval.significance.corrections import adjust_pvalues
from releval.significance.paired import (
    CORRECTNESS_TESTS,
    CORRECTNESS_TITLES,
    MetricComparison,
    comparison_rows,
    correctness_test,
    percentile_intervals,
    resampling_rows,
)
from releval.significance.ranking import RankInterval
from releval.significance.seeds import SeedComparison, compare_seeds
from releval.tasks import classification as rc

if TYPE_CHECKING:  # end-to-end RE loads its modules (~15 ms) when a comparison has its Config (`_is_e2e`)
    from releval.tasks import e2e


def _interval(value: Any) -> tuple[float, float] | None:
    return None if value is None else (float(value[0]), float(value[1]))


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

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PairRow:
        values = dict(data)
        for key in ("ci_effect", "ci_a", "ci_b"):
            values[key] = _interval(values.get(key))
        return cls(**values)


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
    #: The level of the bootstrap's intervals; None when no test gives intervals (then no setting of it changes a
    #: number, and the signature has no confidence field either).
    confidence: float | None = 0.95
    notes: list[str] = field(default_factory=list)
    unit: str = "items"  # what n counts: items (classification) or documents (end-to-end RE)
    warnings: list[Notice] = field(default_factory=list)
    #: Bootstrap rank intervals {system: {average: RankInterval}} (releval.significance.ranks), when asked for.
    ranks: dict[str, dict[str, RankInterval]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "warnings", as_notices(self.warnings))

    @property
    def task(self) -> str:
        return self.signature.get("task") or "rc"

    def to_frame(self) -> Any:
        """One row per (pair, test, average): scores, Δ, its interval, p and the adjusted p (pandas only here)."""
        return data_frame([row.to_dict() for row in self.rows], index=["a", "b", "test", "metric"])

    def to_dict(self) -> dict[str, Any]:
        return {
            **_table_head(self, "paired"),
            "tests": list(self.tests),
            "metrics": list(self.metrics),
            "alternative": self.alternative,
            "correction": self.correction,
            "confidence": self.confidence,
            "scores": self.scores,
            **({"rank_intervals": _ranks_dict(self.ranks)} if self.ranks else {}),
            **_table_tail(self),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PairedTable:
        check_schema(data, "paired comparison", "paired")
        return cls(
            {k: dict(v) for k, v in data["scores"].items()},
            [PairRow.from_dict(r) for r in data["pairs"]],
            data.get("baseline"),
            tuple(data["tests"]),
            tuple(data["metrics"]),
            data["alternative"],
            data["correction"],
            int(data["n"]),
            parse(data["signature"]),
            None if data.get("confidence") is None else float(data["confidence"]),
            list(data.get("notes", [])),
            data.get("unit", "items"),
            [Notice.from_dict(w) for w in data.get("warnings", [])],
            {
                s: {m: RankInterval(int(r["rank"]), int(r["low"]), int(r["high"])) for m, r in per.items()}
                for s, per in data.get("rank_intervals", {}).items()
            },
        )


def _ranks_dict(ranks: dict[str, dict[str, RankInterval]]) -> dict[str, dict[str, dict[str, int]]]:
    return {s: {m: r.to_dict() for m, r in per.items()} for s, per in ranks.items()}


@dataclass(frozen=True)
class SeedRow:
    """Welch's test and Cohen's d of `a` against `b` under one average."""

    a: str
    b: str
    metric: str
    result: SeedComparison
    p_adjusted: float

    def to_dict(self) -> dict[str, Any]:
        row = {k: v for k, v in self.result.to_dict().items() if k not in ("schema_version", "kind")}
        return {"a": self.a, "b": self.b, "metric": self.metric, "p_adjusted": self.p_adjusted, **row}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeedRow:
        """The row `to_dict` wrote: its pair and adjusted p, and the seed comparison read by its own from_dict."""
        fields = {k: v for k, v in data.items() if k not in ("a", "b", "metric", "p_adjusted")}
        comparison = SeedComparison.from_dict({**fields, **header("seed-comparison")})
        return cls(data["a"], data["b"], data["metric"], comparison, data["p_adjusted"])


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
    warnings: list[Notice] = field(default_factory=list)

    def __post_init__(self) -> None:
        object.__setattr__(self, "warnings", as_notices(self.warnings))

    @property
    def task(self) -> str:
        return self.signature.get("task") or "rc"

    def summary(self, system: str, metric: str) -> tuple[float, float, int]:
        """(mean, sample SD, number of runs)."""
        values = np.asarray(self.runs[system][metric])
        return float(values.mean()), float(values.std(ddof=1)) if values.size > 1 else float("nan"), int(values.size)

    def to_frame(self) -> Any:
        """One row per (pair, average): the seeds' means and SDs, Welch's t, Cohen's d, p and the adjusted p
        (pandas only here)."""
        return data_frame([row.to_dict() for row in self.rows], index=["a", "b", "metric"])

    def to_dict(self) -> dict[str, Any]:
        return {
            **_table_head(self, "seeds"),
            "metrics": list(self.metrics),
            "alternative": self.alternative,
            "correction": self.correction,
            "runs": self.runs,
            "summary": {
                s: {m: dict(zip(("mean", "sd", "runs"), self.summary(s, m))) for m in self.metrics} for s in self.runs
            },
            **_table_tail(self),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeedTable:
        check_schema(data, "seed comparison", "seeds")
        return cls(
            {k: {m: list(v) for m, v in runs.items()} for k, runs in data["runs"].items()},
            [SeedRow.from_dict(r) for r in data["pairs"]],
            data.get("baseline"),
            tuple(data["metrics"]),
            data["alternative"],
            data["correction"],
            int(data["n"]),
            parse(data["signature"]),
            list(data.get("notes", [])),
            data.get("unit", "items"),
            [Notice.from_dict(w) for w in data.get("warnings", [])],
        )


def _table_head(table: PairedTable | SeedTable, kind: str) -> dict[str, Any]:
    """The keys a paired and a seed table's JSON open with: header, task, size and baseline."""
    return {**header(kind), "task": table.task, "n": table.n, "unit": table.unit, "baseline": table.baseline}


def _table_tail(table: PairedTable | SeedTable) -> dict[str, Any]:
    """The keys both tables' JSON close with: the pair rows, signature (long and short), notes and warnings."""
    return {
        "pairs": [r.to_dict() for r in table.rows],
        **table.signature.to_json(),
        "notes": list(table.notes),
        "warnings": [w.to_dict() for w in table.warnings],
    }


def system_pairs(names: Sequence[str], baseline: str | None = None) -> list[tuple[str, str]]:
    """(system, baseline) for every other system, or every (earlier, later) pair when no baseline is given."""
    if baseline is not None:
        if baseline not in names:
            raise OptionError(f"baseline {baseline!r} is not among the systems: {', '.join(names)}", option="baseline")
        return [(name, baseline) for name in names if name != baseline]
    return [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]


def adjust(p_values: Sequence[float], correction: str = "holm") -> list[float]:
    """Adjusted p-values across one family of pairs (releval.significance.corrections; 'none' returns them as is)."""
    check_choice(correction, CORRECTIONS, "correction")
    if correction == "none" or len(p_values) == 0:
        return [float(p) for p in p_values]
    return [float(p) for p in adjust_pvalues(p_values, correction)]


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


def _check_systems(systems: Mapping[str, Any]) -> list[str]:
    names = list(systems)
    if len(names) < 2:
        raise InputError(f"comparison needs at least 2 systems, got {len(names)}", field="system")
    return names


def _is_e2e(config: Any) -> TypeGuard[e2e.E2EConfig]:
    """Whether `config` is end-to-end RE's; releval.tasks.e2e is imported only when it is not classification's."""
    if config is None or isinstance(config, rc.ClassificationConfig):
        return False
    from releval.tasks import e2e

    return isinstance(config, e2e.E2EConfig)


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
    if baseline is not None and baseline not in systems:
        raise OptionError(f"baseline {baseline!r} is not among the systems: {', '.join(systems)}", option="baseline")
    if not isinstance(config, rc.ClassificationConfig):  # end-to-end RE's (`_configs` gives one or the other)
        return _paired_e2e(gold, systems, config, test, baseline, advance)
    if not _label_lists(gold):
        labels, runs, facts = align_systems(gold, {name: [pred] for name, pred in systems.items()}, config)
        return _paired_rc(
            labels, {name: preds[0] for name, preds in runs.items()}, config, test, baseline, advance, facts
        )
    return _paired_rc(list(gold), systems, config, test, baseline, advance, facts)


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
    """The task's Config and the test's, with keyword settings routed to them by name (split_settings)."""
    if _is_e2e(config):
        from releval.tasks import e2e

        return split_settings(e2e.E2EConfig, config, test, settings)
    return split_settings(rc.ClassificationConfig, config, test, settings)


def _paired_rc(
    gold: list[str],
    systems: Mapping[str, Sequence[str]],
    config: rc.ClassificationConfig,
    test: SignificanceConfig,
    baseline: str | None,
    progress: Callable[[int], None] | None,
    facts: rc.DataFacts | None,
) -> PairedTable:
    names = _check_systems(systems)
    for name, pred in systems.items():
        if len(pred) != len(gold):
            raise InputError(f"system '{name}' has {len(pred)} predictions for {len(gold)} gold items", field="system")
    facts = facts or rc.DataFacts()
    config, facts = micro_only_when_wrong(config, facts)
    rc.check_negative_label(config, gold, systems.values())
    negative, _ = rc.resolve_negative(config.negative, gold)
    schemes = config.weightings
    metrics = tuple(config.average_names)
    scores = {name: _f_scores(gold, pred, negative, schemes, config) for name, pred in systems.items()}

    def cells(a: str, b: str) -> list[tuple[str, Any, Any]]:
        c, spec, _ = rc.paired_cells(gold, systems[a], systems[b], config)
        return [("", c, spec)]

    def discordant(t: str, a: str, b: str) -> dict[str, Any]:
        res = correctness_test(t, gold, systems[a], systems[b], test)
        return {"score_a": res.score_a, "score_b": res.score_b, "effect": res.effect, "p_value": res.p_value}

    pairs = system_pairs(names, baseline)
    joint = None  # two systems: the pair engine, whose numbers for a seed are unchanged
    if "bootstrap" in test.tests and len(pairs) > 1:
        joint = _joint_bootstrap(gold, systems, pairs, config, negative, test, progress)
    raw = _run_tests(pairs, test, progress, cells, discordant, joint)
    sig = rc.signature(
        config,
        gold,
        negative=negative,
        missing=facts.missing,
        by_position=facts.by_position,
        patch_digest=facts.patch_digest,
        extra=test.signature_fields(baseline=baseline),
    )
    notes = []
    if any(t in CORRECTNESS_TESTS for t in test.tests):
        notes.append(f"{CORRECTNESS_TITLES} compare per-item correctness (accuracy), the same for every average")
    return PairedTable(
        scores,
        pair_rows(raw, test.correction),
        baseline,
        test.tests,
        metrics,
        test.alternative,
        test.correction,
        len(gold),
        sig,
        test.interval_confidence,
        notes,
        warnings=[
            *facts.warnings,
            *rc_rare_notices(gold, negative, config, test.interval_class_set),
        ],
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


def score_runs(systems: Mapping[str, Sequence[Any]], score_one: Callable[[str, Any], Any]) -> dict[str, list[Any]]:
    """Every run of every system scored (`score_one(name, run)`); the input problems of every file reported
    together (InputErrors), not only the first file's."""
    scored: dict[str, list[Any]] = {}
    errors: list[InputError] = []
    for name, runs in systems.items():
        for run in runs:
            try:
                scored.setdefault(name, []).append(score_one(name, run))
            except InputError as exc:
                errors.append(exc)
    raise_all(errors)
    return scored


def raw_row(a: str, b: str, test: str, metric: str, r: Any) -> dict[str, Any]:
    """One test of `a` against `b` under one measure, from its MetricComparison `r`, before the correction
    (`pair_rows` adjusts the p-values of each (test, measure) family and makes the PairRows)."""
    return {
        "a": a,
        "b": b,
        "test": test,
        "metric": metric,
        "score_a": r.score_a,
        "score_b": r.score_b,
        "effect": r.effect,
        "p_value": r.p_value,
        "ci_effect": r.ci_effect,
        "ci_a": r.ci_a,
        "ci_b": r.ci_b,
    }


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


def _score_e2e_systems(
    gold: Any, systems: Mapping[str, Sequence[Any]], config: e2e.E2EConfig
) -> dict[str, list[e2e.E2EResult]]:
    """Every run of every system scored against one loaded gold; all must use the same gold documents."""
    from releval.data.e2e import load_any
    from releval.tasks import e2e

    _check_systems(systems)
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


def _paired_e2e(
    gold: Any,
    systems: Mapping[str, Any],
    config: e2e.E2EConfig,
    test: SignificanceConfig,
    baseline: str | None,
    progress: Callable[[int], None] | None,
) -> PairedTable:
    from releval.tasks import e2e

    bad = [t for t in test.tests if t not in RESAMPLING_TESTS]
    if bad:
        raise OptionError(
            f"tests: {', '.join(bad)} not available for end-to-end RE: {CORRECTNESS_TITLES} need "
            "per-item correctness, which relation sets do not have (use bootstrap or randomization)",
            option="tests",
        )
    scored = _score_e2e_systems(gold, {k: [v] for k, v in systems.items()}, config)
    results = {name: runs[0] for name, runs in scored.items()}
    scores = {
        name: {f"{c}:{m}": r[c].averages[m].f for c in config.all_criteria for m in r[c].averages}
        for name, r in results.items()
    }

    def cells(a: str, b: str) -> list[tuple[str, Any, Any]]:
        out = []
        for criterion in config.all_criteria:
            c, spec = e2e.paired_cells(results[a], results[b], criterion, config)
            out.append((f"{criterion}:", c, spec))
        return out

    raw = _run_tests(system_pairs(list(systems), baseline), test, progress, cells, None)
    first = next(iter(results.values()))
    return PairedTable(
        scores,
        pair_rows(raw, test.correction),
        baseline,
        test.tests,
        _e2e_metrics(config),
        test.alternative,
        test.correction,
        first.n_documents,
        _e2e_signature(config, first, test.signature_fields(unit="documents", baseline=baseline)),
        test.interval_confidence,
        ["end-to-end RE: documents are resampled (per-document TP/FP/FN per relation type)"],
        unit="documents",
        warnings=[
            *_e2e_warnings(scored),
            *e2e_rare_notices(first, config, test.interval_class_set),
        ],
    )


def _e2e_warnings(scored: dict[str, list[e2e.E2EResult]]) -> list[Notice]:
    return [Notice(f"{name}: {w}", w.code) for name, runs in scored.items() for r in runs for w in r.warnings]


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
    if baseline is not None and baseline not in systems:
        raise OptionError(f"baseline {baseline!r} is not among the systems: {', '.join(systems)}", option="baseline")
    for name, runs in systems.items():
        if len(runs) < 2:
            raise InputError(
                f"system '{name}' has {len(runs)} run(s); seed comparison needs at least 2", field="system"
            )
    seed_fields: dict[str, object] = {
        "test": f"welch:{test.alternative},cohen-d:harbecke-eq4",
        "methods": correction_field(test.correction, baseline),
    }
    if not isinstance(config, rc.ClassificationConfig):  # end-to-end RE's (`_configs` gives one or the other)
        scored = _score_e2e_systems(gold, systems, config)
        metrics = _e2e_metrics(config)
        e2e_runs = {
            name: {m: [r[m.split(":", 1)[0]].averages[m.split(":", 1)[1]].f for r in results] for m in metrics}
            for name, results in scored.items()
        }
        first = next(iter(scored.values()))[0]
        sig = _e2e_signature(config, first, seed_fields)
        warnings = [*_e2e_warnings(scored), *e2e_rare_notices(first, config, None)]
        return seed_table(
            e2e_runs, metrics, sig, first.n_documents, baseline, test, unit="documents", warnings=warnings
        )
    if not _label_lists(gold):
        gold, systems, facts = align_systems(gold, systems, config)
    gold = list(gold)
    _check_systems(systems)
    for name, preds in systems.items():
        for i, pred in enumerate(preds, 1):
            if len(pred) != len(gold):
                raise InputError(
                    f"system '{name}' run {i} has {len(pred)} predictions for {len(gold)} gold items", field="system"
                )
    facts = facts or rc.DataFacts()
    config, facts = micro_only_when_wrong(config, facts)
    rc.check_negative_label(config, gold, (pred for preds in systems.values() for pred in preds))
    negative, _ = rc.resolve_negative(config.negative, gold)
    schemes = config.weightings
    metrics = tuple(config.average_names)
    runs_f: dict[str, dict[str, list[float]]] = {}
    for name, preds in systems.items():
        for pred in preds:
            for m, f in _f_scores(gold, pred, negative, schemes, config).items():
                runs_f.setdefault(name, {}).setdefault(m, []).append(f)
    sig = rc.signature(
        config,
        gold,
        negative=negative,
        missing=facts.missing,
        by_position=facts.by_position,
        patch_digest=facts.patch_digest,
        extra=seed_fields,
    )
    warnings = [*facts.warnings, *rc_rare_notices(gold, negative, config, None)]
    return seed_table(runs_f, metrics, sig, len(gold), baseline, test, warnings=warnings)


def seed_table(
    runs: dict[str, dict[str, list[float]]],
    metrics: tuple[str, ...],
    signature: Signature,
    n: int,
    baseline: str | None,
    test: SignificanceConfig,
    unit: str = "items",
    warnings: Sequence[Notice] = (),
) -> SeedTable:
    """Welch/Cohen rows for every pair and average from each system's per-run F values, adjusted per average."""
    raw = [
        (a, b, m, compare_seeds(runs[a][m], runs[b][m], test.alternative, names=(a, b), metric=m))
        for a, b in system_pairs(list(runs), baseline)
        for m in metrics
    ]
    adjusted = [0.0] * len(raw)
    for m in metrics:
        idx = [i for i, r in enumerate(raw) if r[2] == m]
        for i, p in zip(idx, adjust([raw[i][3].p_value for i in idx], test.correction)):
            adjusted[i] = p
    rows = [SeedRow(a, b, m, res, adjusted[i]) for i, (a, b, m, res) in enumerate(raw)]
    notes = [res.note for *_, res in raw if res.note]  # e.g. both systems constant over seeds: t undefined
    return SeedTable(
        runs, rows, baseline, metrics, test.alternative, test.correction, n, signature, notes, unit, list(warnings)
    )


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
    run_counts = {name: len(paths) for name, paths in systems.items()}
    if len(set(run_counts.values())) > 1 and 1 in run_counts.values():
        single = [k for k, v in run_counts.items() if v == 1]
        raise InputError(
            f"mixing single-file systems ({', '.join(single)}) with multi-run systems: give every system one file "
            "(paired tests) or several runs (seed comparison)",
            field="system",
        )
    paired = set(run_counts.values()) == {1}
    if _is_e2e(config):
        if paired:
            one = {name: paths[0] for name, paths in systems.items()}
            return paired_table(gold, one, config, test, baseline=baseline, progress=progress)
        return seed_runs_table(gold, systems, config, test, baseline=baseline)
    assert isinstance(config, rc.ClassificationConfig)  # the only other Config (narrowed for mypy)
    gold_labels, runs, facts = align_systems(gold, systems, config)
    if paired:
        one = {name: preds[0] for name, preds in runs.items()}
        return paired_table(gold_labels, one, config, test, baseline=baseline, progress=progress, facts=facts)
    return seed_runs_table(gold_labels, runs, config, test, baseline=baseline, facts=facts)
