"""Which classes drive a difference between two systems: per-class Δ with intervals and corrected p-values.

A paired resampling test of two systems computes, in every resample, each system's TP/FP/FN per class before it
averages them (releval.metrics.cells). So the per-class F of both systems in every resample comes from the same
draws as the averages: `per_class_differences` keeps them, and reports for every positive class with gold support

* F(A), F(B) and δ = F(A) − F(B) (the sign of every paired result in releval: positive when A is better);
* for the bootstrap, the percentile interval of δ at the test's confidence; the p-value by the rule of the averages
  (shifted and centred on δ, ties extreme; releval.significance.paired), under every alternative;
* for approximate randomization, the p-value of δ under the same swaps as the averages' (no interval);
* the p-values adjusted across the classes, within each test, by the test's correction (Holm by default).

The averages are computed from the same resamples in the same order, so a seed gives exactly the numbers
`paired_bootstrap`, `approximate_randomization` and `compare_paired` give for the pair
(tests/test_per_class_significance.py checks it). Relation classification resamples items; end-to-end RE (an
`E2EConfig`) resamples documents, with one criterion's relation types (or entity types, for NER) as the classes.

In a resample where a class has no gold item, its F is that of its false positives alone (0), or `zero_division`
when neither system predicts it either; both systems share the resample, so δ* stays a paired difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError, OptionError
from releval.core.notices import Notice, as_notices, warn_all
from releval.core.options import ALTERNATIVES, DEFAULT_ALPHA, DEFAULT_CLASS_SET, RESAMPLING_TESTS
from releval.core.schema import check_schema, float_or_nan, header, known, reading, same
from releval.core.signature import Signature, parse
from releval.core.validation import check_alpha, check_choice
from releval.metrics.averages import AveragingSpec, prf_from_counts
from releval.metrics.cells import PairedCells, counts_of, f_scores, resampled_f
from releval.significance.compare import _by_documents, _configs, _label_lists, adjust, align_systems, scored_systems
from releval.significance.comparison import Scored, check_systems
from releval.significance.config import SignificanceConfig, correction_field
from releval.significance.paired import MetricComparison, comparison_rows
from releval.tasks import classification as rc

if TYPE_CHECKING:
    from releval.tasks import e2e


def _interval(value: Any) -> tuple[float, float] | None:
    return None if value is None else (float_or_nan(value[0]), float_or_nan(value[1]))


def _interval_list(value: tuple[float, float] | None) -> list[float] | None:
    return None if value is None else [value[0], value[1]]


@dataclass(frozen=True)
class ClassDifference:
    """One class under one test: gold support, F of A and of B, δ = A − B, its interval (bootstrap), the p-value
    under every alternative, and the p-value adjusted across the classes."""

    test: str
    label: str
    support: int
    score_a: float
    score_b: float
    p_values: dict[str, float]
    alternative: str
    p_adjusted: float
    ci_a: tuple[float, float] | None = None
    ci_b: tuple[float, float] | None = None
    ci_effect: tuple[float, float] | None = None

    @property
    def effect(self) -> float:
        return self.score_a - self.score_b

    @property
    def p_value(self) -> float:
        return self.p_values[self.alternative]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field, δ and the p-value of the chosen alternative (derived, not read back)."""
        return {
            "test": self.test,
            "label": self.label,
            "support": self.support,
            "score_a": self.score_a,
            "score_b": self.score_b,
            "effect": self.effect,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "alternative": self.alternative,
            "p_values": dict(self.p_values),
            "ci_a": _interval_list(self.ci_a),
            "ci_b": _interval_list(self.ci_b),
            "ci_effect": _interval_list(self.ci_effect),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClassDifference:
        """The row `to_dict()` wrote (ValueError when it is not one)."""
        what = "per-class difference"
        with reading(what):
            return cls(
                known(data["test"], RESAMPLING_TESTS, what, "test"),
                str(data["label"]),
                int(data["support"]),
                float_or_nan(data["score_a"]),
                float_or_nan(data["score_b"]),
                {known(k, ALTERNATIVES, what, "alternative"): float_or_nan(v) for k, v in data["p_values"].items()},
                known(data["alternative"], ALTERNATIVES, what, "alternative"),
                float_or_nan(data["p_adjusted"]),
                _interval(data.get("ci_a")),
                _interval(data.get("ci_b")),
                _interval(data.get("ci_effect")),
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, NaN equal to NaN."""
        if not isinstance(other, ClassDifference):
            return NotImplemented
        return same(self, other)


@dataclass(frozen=True)
class PerClassComparison:
    """Per-class differences of system `a` against system `b`, and the averages, from the same resamples.

    `averages[test][average]` is the averages' `MetricComparison` (what `paired_bootstrap` or
    `approximate_randomization` give for the same seed); `rows` hold one `ClassDifference` per (test, class),
    each test's classes sorted by |δ|, largest first. A class *survives* the correction when its adjusted p-value is
    at most `alpha`.
    """

    a: str
    b: str
    tests: tuple[str, ...]
    alternative: str
    correction: str
    alpha: float
    n: int
    resamples: int
    seed: int | None
    averages: dict[str, dict[str, MetricComparison]]
    rows: list[ClassDifference]
    signature: Signature
    confidence: float | None = None
    unit: str = "items"
    criterion: str | None = None
    notes: list[str] = field(default_factory=list)
    warnings: list[Notice] = field(default_factory=list)

    def __post_init__(self) -> None:
        object.__setattr__(self, "warnings", as_notices(self.warnings))

    @property
    def task(self) -> str:
        """The kind of evaluation, from the signature (rc, e2e)."""
        return self.signature.get("task") or "rc"

    def _test(self, test: str | None) -> str:
        if test is None:
            return self.tests[0]
        check_choice(test, self.tests, "test")
        return test

    def rows_of(self, test: str | None = None) -> list[ClassDifference]:
        """The rows of one test (default: the first), sorted by |δ|, largest first."""
        chosen = self._test(test)
        return [r for r in self.rows if r.test == chosen]

    def row(self, label: str, test: str | None = None) -> ClassDifference:
        """The row of class `label` under `test` (default: the first test); KeyError for a class not compared."""
        for r in self.rows_of(test):
            if r.label == label:
                return r
        raise KeyError(f"class {label!r} is not among the compared classes")

    def __getitem__(self, label: str) -> ClassDifference:
        return self.row(label)

    def survives(self, row: ClassDifference) -> bool:
        """Whether the row's adjusted p-value is at most `alpha`."""
        return bool(row.p_adjusted <= self.alpha)

    def significant(self, test: str | None = None) -> list[str]:
        """The classes whose difference survives the correction under `test` (default: the first), by |δ|."""
        return [r.label for r in self.rows_of(test) if self.survives(r)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the pair, the test settings, the averages' comparisons, every class's row, the signature,
        notes and warnings; `from_dict` reads it back."""
        return {
            **header("per-class-paired"),
            "task": self.task,
            "a": self.a,
            "b": self.b,
            "tests": list(self.tests),
            "alternative": self.alternative,
            "correction": self.correction,
            "alpha": self.alpha,
            "n": self.n,
            "unit": self.unit,
            "criterion": self.criterion,
            "resamples": self.resamples,
            "seed": self.seed,
            "confidence": self.confidence,
            "averages": {t: {m: c.to_dict() for m, c in rows.items()} for t, rows in self.averages.items()},
            "classes": [r.to_dict() for r in self.rows],
            "significant": {t: self.significant(t) for t in self.tests},
            **self.signature.to_json(),
            "notes": list(self.notes),
            "warnings": [w.to_dict() for w in self.warnings],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PerClassComparison:
        """The comparison `to_dict()` wrote (ValueError when it is not one)."""
        what = "per-class comparison"
        check_schema(data, what, "per-class-paired")
        with reading(what):
            seed, confidence, criterion = data.get("seed"), data.get("confidence"), data.get("criterion")
            return cls(
                str(data["a"]),
                str(data["b"]),
                tuple(known(t, RESAMPLING_TESTS, what, "test") for t in data["tests"]),
                known(data["alternative"], ALTERNATIVES, what, "alternative"),
                str(data["correction"]),
                float(data["alpha"]),
                int(data["n"]),
                int(data["resamples"]),
                None if seed is None else int(seed),
                {
                    known(t, RESAMPLING_TESTS, what, "test"): {
                        str(m): MetricComparison.from_dict(c) for m, c in rows.items()
                    }
                    for t, rows in data["averages"].items()
                },
                [ClassDifference.from_dict(r) for r in data["classes"]],
                parse(data["signature"]),
                None if confidence is None else float(confidence),
                str(data.get("unit", "items")),
                None if criterion is None else str(criterion),
                [str(n) for n in data.get("notes", [])],
                [Notice.from_dict(w) for w in data.get("warnings", [])],
            )

    def to_frame(self) -> Any:
        """A pandas DataFrame, one row per (test, class), indexed by both (pandas is the `frame` extra)."""
        from releval.core.frames import data_frame

        records = []
        for r in self.rows:
            ci = r.ci_effect or (float("nan"), float("nan"))
            records.append(
                {
                    "test": r.test,
                    "label": r.label,
                    "support": r.support,
                    "score_a": r.score_a,
                    "score_b": r.score_b,
                    "effect": r.effect,
                    "ci_low": ci[0],
                    "ci_high": ci[1],
                    "p_value": r.p_value,
                    "p_adjusted": r.p_adjusted,
                    "significant": self.survives(r),
                }
            )
        return data_frame(records, index=["test", "label"])

    def __eq__(self, other: object) -> bool:
        """Field by field, NaN equal to NaN."""
        if not isinstance(other, PerClassComparison):
            return NotImplemented
        return same(self, other)


@dataclass(frozen=True)
class ClassDraws:
    """One resampling run: the averages' F of A and B per resample, and the compared classes' F per resample."""

    averages: dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]]
    per_class_a: NDArray[np.float64]  # (classes, R)
    per_class_b: NDArray[np.float64]


def class_f(totals: NDArray[np.float64], classes: NDArray[np.intp], spec: AveragingSpec) -> NDArray[np.float64]:
    """F of the `classes` from TP|FP|FN totals (..., 3K): (..., len(classes)), by prf_from_counts.

    >>> spec = AveragingSpec(np.array([True, True]), ())
    >>> class_f(np.array([2.0, 1.0, 0.0, 2.0, 1.0, 0.0]), np.array([0, 1]), spec).tolist()  # TP 2,1 FP 0,2 FN 1,0
    [0.8, 0.5]
    """
    counts = counts_of(totals, spec.positive.shape[0])
    return np.asarray(
        prf_from_counts(
            counts.tp[..., classes], counts.fp[..., classes], counts.fn[..., classes], spec.beta, spec.zero_division
        ).f,
        dtype=np.float64,
    )


def resampled_class_f(
    cells: PairedCells,
    spec: AveragingSpec,
    classes: NDArray[np.intp],
    resamples: int,
    seed: int | None,
    method: str = "bootstrap",
    class_set: str = DEFAULT_CLASS_SET,
) -> ClassDraws:
    """`releval.metrics.cells.resampled_f` — the same draws, so the averages' F are the same numbers — keeping
    each resample's F of the `classes` of both systems as well. `class_set` is the averages' (a class's own F does
    not depend on it)."""
    class_a: list[NDArray] = []
    class_b: list[NDArray] = []

    def keep(tot_a: NDArray, tot_b: NDArray) -> None:
        class_a.append(class_f(tot_a, classes, spec))
        class_b.append(class_f(tot_b, classes, spec))

    averages = resampled_f(cells, spec, resamples, seed, method, on_block=keep, class_set=class_set)
    return ClassDraws(averages, np.concatenate(class_a).T, np.concatenate(class_b).T)


def _resampling_tests(test: SignificanceConfig) -> tuple[str, ...]:
    """The resampling tests of the Config; a test on per-item correctness has no per-class statistic."""
    other = [t for t in test.tests if t not in RESAMPLING_TESTS]
    if other:
        raise OptionError(
            f"tests: {', '.join(other)} cannot be run per class: McNemar and the sign test compare per-item "
            "correctness, which has no per-class F (use bootstrap or randomization)",
            option="tests",
        )
    return tuple(test.tests)


def class_differences(
    cells: PairedCells,
    spec: AveragingSpec,
    labels: Sequence[str],
    test: SignificanceConfig,
) -> tuple[dict[str, dict[str, MetricComparison]], list[ClassDifference]]:
    """Every resampling test of the Config on a pair's cells: the averages' comparisons and one row per positive
    class with gold support, p-values adjusted across those classes within each test. Any task's cells serve (TP,
    FP and FN per class of every item or document)."""
    tot_a, tot_b = cells.observed()
    support = counts_of(tot_a, spec.positive.shape[0]).support
    classes = np.flatnonzero(spec.positive & (support > 0)).astype(np.intp)
    if classes.shape[0] == 0:
        raise InputError("no positive class has gold support: there is no class to compare", field="gold")
    names = [labels[i] for i in classes.tolist()]
    obs_avg_a, obs_avg_b = f_scores(tot_a, spec), f_scores(tot_b, spec)
    obs_a = dict(zip(names, class_f(tot_a, classes, spec)))
    obs_b = dict(zip(names, class_f(tot_b, classes, spec)))
    averages: dict[str, dict[str, MetricComparison]] = {}
    rows: list[ClassDifference] = []
    for t in _resampling_tests(test):
        draws = resampled_class_f(cells, spec, classes, test.resamples, test.seed, t, test.class_set)
        averages[t] = comparison_rows(obs_avg_a, obs_avg_b, draws.averages, t, test)
        per_class = {name: (draws.per_class_a[i], draws.per_class_b[i]) for i, name in enumerate(names)}
        compared = comparison_rows(obs_a, obs_b, per_class, t, test)
        adjusted = adjust([c.p_value for c in compared.values()], test.correction)
        found = [
            ClassDifference(
                t,
                name,
                int(support[i]),
                c.score_a,
                c.score_b,
                c.p_values,
                c.alternative,
                p,
                c.ci_a,
                c.ci_b,
                c.ci_effect,
            )
            for (name, c), i, p in zip(compared.items(), classes, adjusted)
        ]
        rows.extend(sorted(found, key=lambda r: (-abs(r.effect), r.label)))
    return averages, rows


def _extra(test: SignificanceConfig, alpha: float, unit: str | None = None) -> dict[str, object]:
    """The test's signature fields, its correction named as one across the classes, and the level of the marks."""
    return {
        **test.signature_fields(unit),
        "methods": f"{correction_field(test.correction)},family=classes",
        "alpha": alpha,
    }


def per_class_table(
    gold: Any,
    pred_a: Any,
    pred_b: Any,
    config: rc.ClassificationConfig | e2e.E2EConfig | None = None,
    test: SignificanceConfig | None = None,
    *,
    names: tuple[str, str] = ("A", "B"),
    criterion: str | None = None,
    alpha: float = DEFAULT_ALPHA,
    facts: rc.DataFacts | None = None,
) -> PerClassComparison:
    """`per_class_differences` without repeating the warnings through `warnings.warn` (the command line shows
    them on stderr and in the document); the settings come as Configs only."""
    config, test = _configs(config, test, {})
    alpha = check_alpha(alpha)
    a, b = (str(x) for x in names)
    if a == b:
        raise OptionError(f"names: the two systems need different names, got {a!r} twice", option="names")
    _resampling_tests(test)  # refused before any file is read
    systems: dict[str, list[Any]] = {a: [pred_a], b: [pred_b]}
    check_systems(systems, None)
    if not _by_documents(config):
        labels_config = cast(rc.ClassificationConfig, config)  # the other unit: items aligned by id
        if criterion is not None:
            raise OptionError("criterion: applies to end-to-end RE (an E2EConfig) only", option="criterion")
        if not _label_lists(gold):
            gold, systems, facts = align_systems(gold, systems, labels_config)
        if facts is not None and facts.missing == "wrong":
            raise OptionError(
                "on_missing: with missing predictions counted as wrong, the filled items' false positives belong to "
                "no known class, so a class's precision and F are known only as intervals: compare classes with "
                "on_missing='error' or 'negative'",
                option="on_missing",
            )
    scored = scored_systems(gold, systems, config, test, True, facts)
    return _per_class(scored, a, b, test, alpha, criterion)


def _per_class(
    scored: Scored, a: str, b: str, test: SignificanceConfig, alpha: float, criterion: str | None
) -> PerClassComparison:
    """The per-class rows of systems `a` and `b` from their `pair_statistics` on the one comparison path
    (releval.significance.comparison): the draws `compare` makes of the pair, each class's F kept. A task of several
    criteria (end-to-end RE) compares the classes of one: `criterion`, or its first that is not NER."""
    assert scored.pair_statistics is not None, "a task with per-class comparisons gives its pair statistics"
    statistics = {s.prefix.removesuffix(":"): s for s in scored.pair_statistics(a, b)}
    chosen: str | None = None
    if list(statistics) != [""]:  # several criteria, each its own classes
        from releval.metrics.e2e import NER

        relations = [c for c in statistics if c != NER] or list(statistics)
        chosen = criterion if criterion is not None else relations[0]
        check_choice(chosen, tuple(statistics), "criterion")
    pair = statistics[chosen or ""]
    averages, rows = class_differences(pair.cells, pair.spec, pair.labels, test)
    sig = scored.signature(_extra(test, alpha, unit=scored.unit if scored.unit_signed else None))
    notes = [_family_note(rows, test)]
    warnings = list(scored.warnings)
    if chosen is not None:
        sig = Signature({**sig.fields, "criterion": chosen})
        notes.append(f"end-to-end RE: {scored.unit} are resampled; the classes are the {chosen} criterion's types")
        others = tuple(f"{c}:" for c in statistics if c != chosen)  # the other criteria's rare classes are not shown
        warnings = [w for w in warnings if not (w.code == "rare-classes" and str(w).startswith(others))]
    return PerClassComparison(
        a,
        b,
        test.tests,
        test.alternative,
        test.correction,
        alpha,
        scored.n,
        test.resamples,
        test.seed,
        averages,
        rows,
        sig,
        test.interval_confidence,
        unit=scored.unit,
        criterion=chosen,
        notes=notes,
        warnings=warnings,
    )


def per_class_differences(
    gold: Any,
    pred_a: Any,
    pred_b: Any,
    config: rc.ClassificationConfig | e2e.E2EConfig | None = None,
    test: SignificanceConfig | None = None,
    *,
    names: tuple[str, str] = ("A", "B"),
    criterion: str | None = None,
    alpha: float = DEFAULT_ALPHA,
    facts: rc.DataFacts | None = None,
    **settings: Any,
) -> PerClassComparison:
    """Which classes drive the difference between two systems: per-class δ = F(A) − F(B) with intervals and
    p-values adjusted across the classes, from the resamples of the averages' paired test.

    Parameters
    ----------
    gold, pred_a, pred_b
        Classification: aligned label lists; or files, {id: label} mappings or LabelFiles, aligned by id as
        `compare_paired` aligns them. End-to-end RE (an `E2EConfig`): the gold file or documents and the two
        systems' prediction files or documents.
    config
        The task's Config (default: classification with its defaults); every setting goes into the signature.
    test
        `SignificanceConfig`: the resampling tests (bootstrap, randomization or both; McNemar and the sign test
        have no per-class statistic and are refused), alternative, resamples, seed, confidence and the correction
        across the classes (Holm by default).
    names
        The names of A and B in tables.
    criterion
        End-to-end RE: the criterion whose types are the classes (default: the first relation criterion).
    alpha
        A class survives the correction when its adjusted p-value is at most `alpha` (marked in the table).
    facts
        How aligned classification label lists were aligned (missing-prediction policy, fills): signed and warned.
    settings
        Any field of either Config as a keyword (`negative="Other"`, `resamples=1000`), validated by it.

    Returns
    -------
    PerClassComparison
        The averages' comparisons (the numbers `paired_bootstrap` gives for the same seed) and one row per
        (test, positive class with gold support), sorted by |δ|; `.significant()` names the classes that survive.
        Its warnings are repeated through `warnings.warn` as `RelevalWarning`.

    Examples
    --------
    >>> gold = ["r"] * 40 + ["s"] * 40 + ["no_relation"] * 20
    >>> a = ["r"] * 40 + ["s"] * 40 + ["no_relation"] * 20
    >>> b = ["no_relation"] * 20 + ["r"] * 20 + ["s"] * 40 + ["no_relation"] * 20
    >>> res = per_class_differences(gold, a, b, resamples=999, seed=1, names=("good", "weak"))
    >>> [(r.label, round(r.effect, 3)) for r in res.rows]
    [('r', 0.333), ('s', 0.0)]
    >>> res.significant(), res["s"].p_value
    (['r'], 1.0)
    """
    config, test = _configs(config, test, settings)
    result = per_class_table(
        gold, pred_a, pred_b, config, test, names=names, criterion=criterion, alpha=alpha, facts=facts
    )
    warn_all(result.warnings)
    return result


def _family_note(rows: Sequence[ClassDifference], test: SignificanceConfig) -> str:
    n_classes = len({r.label for r in rows})
    if test.correction == "none":
        return f"p-values of the {n_classes} classes are not adjusted (correction: none)"
    return (
        f"p-values adjusted across the {n_classes} classes with gold support ({test.correction}), within each test; "
        "the averages' p-values are not adjusted"
    )
