"""The result of scoring one system: per-class rows, every average, accuracy, notes and its signature.

Every result type of releval follows one protocol: `to_dict()` (JSON-ready, with `schema_version` and `task`),
`from_dict()` (a saved result loads back equal), `to_tables()` (for the one renderer), `signature` and
`warnings` (structured notices, releval.core.notices).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from releval.core.frames import data_frame
from releval.core.notices import Notice, as_notices
from releval.core.schema import SCHEMA_VERSION as SCHEMA_VERSION  # re-exported for older importers
from releval.core.schema import check_schema, header
from releval.core.signature import Signature, parse
from releval.core.table import Column, Table
from releval.metrics.averages import PRF
from releval.metrics.classification import ClassificationScores


@dataclass(frozen=True)
class ClassRow:
    """One class of the per-class table (support 0 marks a label that only occurs in predictions)."""

    label: str
    tp: int
    fp: int
    fn: int
    support: int
    precision: float
    recall: float
    f: float
    positive: bool


@dataclass(frozen=True)
class Average:
    """One averaged score: precision, recall and F under one weighting (or micro)."""

    name: str
    precision: float
    recall: float
    f: float


@dataclass(frozen=True)
class ScoreResult:
    """Scores of one system against gold, with every setting recorded in `signature`."""

    system: str
    per_class: list[ClassRow]
    averages: dict[str, Average]
    accuracy: float
    n: int
    negative: str | None
    signature: Signature
    notes: list[str] = field(default_factory=list)
    warnings: list[Notice] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    #: Under Olek's correction: each class-weighted average's interval over every attribution of the filled
    #: items' false positives, {average: (low, high)} (releval.metrics.missing_bounds).
    bounds: dict[str, tuple[Average, Average]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "warnings", as_notices(self.warnings))

    @property
    def task(self) -> str:
        """The kind of evaluation, from the signature (rc, e2e, …)."""
        return self.signature.get("task") or "rc"

    @classmethod
    def from_scores(
        cls,
        system: str,
        scores: ClassificationScores,
        signature: Signature,
        notes: list[str] | None = None,
        warnings: list[Notice] | list[str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> ScoreResult:
        c, pc = scores.counts, scores.per_class
        rows = [
            ClassRow(
                label,
                int(c.tp[i]),
                int(c.fp[i]),
                int(c.fn[i]),
                int(c.tp[i] + c.fn[i]),
                float(pc.precision[i]),  # type: ignore[index]
                float(pc.recall[i]),  # type: ignore[index]
                float(pc.f[i]),  # type: ignore[index]
                bool(scores.positive[i]),
            )
            for i, label in enumerate(scores.labels)
        ]
        averages = {name: _average(name, prf) for name, prf in scores.averages.items()}
        return cls(
            system,
            rows,
            averages,
            scores.accuracy,
            scores.n,
            scores.negative,
            signature,
            list(notes or []),
            [*(warnings or [])],
            dict(extra or {}),
        )

    def __getitem__(self, name: str) -> Average:
        return self.averages[name]

    def __str__(self) -> str:
        """The result as scikit-learn's `classification_report` prints one (`print(result)`), plus what that
        report never says: which class is the negative one (in no average), every weighting, and the signature.

        >>> r = ScoreResult.from_dict(json.loads(EXAMPLE))
        >>> print(r)  # doctest: +NORMALIZE_WHITESPACE, +ELLIPSIS
        system (3 items; negative class: no_relation, in no average)
        <BLANKLINE>
                        precision    recall  f1-score   support
        <BLANKLINE>
                  A        1.0000    1.0000    1.0000         1
                  B        0.0000    0.0000    0.0000         1
        no_relation *      0.5000    1.0000    0.6667         1
        <BLANKLINE>
              micro        1.0000    0.5000    0.6667         2
              macro        0.5000    0.5000    0.5000         2
           accuracy                            0.6667         3
        <BLANKLINE>
        signature: t:rc|neg:no_relation|avg:micro,macro|n:3|ver:...
        """
        return report_text(self)

    @property
    def pred_only_labels(self) -> list[str]:
        """Labels that occur only in predictions (support 0): counted as false positives, never weighted."""
        return [r.label for r in self.per_class if r.support == 0]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (real numbers as fractions in [0, 1]); `from_dict` reads it back."""
        out = {
            **header("score"),
            "task": self.task,
            "system": self.system,
            **self.signature.to_json(),
            "n": self.n,
            "negative": self.negative,
            "accuracy": None if math.isnan(self.accuracy) else self.accuracy,
            "averages": {k: _average_dict(a) for k, a in self.averages.items()},
            "per_class": [r.__dict__.copy() for r in self.per_class],
            "notes": list(self.notes),
            "warnings": [w.to_dict() for w in self.warnings],
        }
        if self.bounds:
            out["bounds"] = {
                k: {"low": _average_dict(lo), "high": _average_dict(hi)} for k, (lo, hi) in self.bounds.items()
            }
        if self.extra:
            out["extra"] = self.extra
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoreResult:
        """The result `to_dict()` wrote (ValueError when it is not one)."""
        check_schema(data, "score result", "score")
        accuracy = data.get("accuracy")
        return cls(
            str(data["system"]),
            [ClassRow(**row) for row in data["per_class"]],
            {k: Average(k, v["precision"], v["recall"], v["f"]) for k, v in data["averages"].items()},
            math.nan if accuracy is None else float(accuracy),
            int(data["n"]),
            data.get("negative"),
            parse(data["signature"]),
            list(data.get("notes", [])),
            [Notice.from_dict(w) for w in data.get("warnings", [])],
            dict(data.get("extra", {})),
            {k: (Average(k, **v["low"]), Average(k, **v["high"])) for k, v in data.get("bounds", {}).items()},
        )

    def __eq__(self, other: object) -> bool:
        """Field by field; NaN accuracy (end-to-end RE has none) equals NaN."""
        if not isinstance(other, ScoreResult):
            return NotImplemented
        same_accuracy = self.accuracy == other.accuracy or (math.isnan(self.accuracy) and math.isnan(other.accuracy))
        mine = {k: v for k, v in self.__dict__.items() if k != "accuracy"}
        theirs = {k: v for k, v in other.__dict__.items() if k != "accuracy"}
        return same_accuracy and mine == theirs

    __hash__ = None  # type: ignore[assignment]  # mutable lists inside: not hashable

    def to_tables(self) -> list[Table]:
        """This result's tables for `releval.report.render` (see `score_tables`)."""
        return score_tables([self])

    @classmethod
    def tables_of(cls, results: Sequence[ScoreResult], per_class: bool | None = None) -> list[Table]:
        """Several systems' tables: for display one line per system with F under every average (compact; the
        per-class rows side by side with `per_class=True`, the default for one system); one CSV block per system.
        """
        if per_class is None:
            per_class = len(results) == 1
        return score_tables(results) if per_class else compact_tables(results)

    def to_frame(self) -> Any:
        """Per-class rows and averages as a pandas DataFrame indexed by label (pandas imported only here)."""
        rows = [
            {
                "label": r.label,
                "kind": "class",
                "precision": r.precision,
                "recall": r.recall,
                "f": r.f,
                "support": r.support,
                "tp": r.tp,
                "fp": r.fp,
                "fn": r.fn,
            }
            for r in self.per_class
        ]
        rows += [
            {"label": a.name, "kind": "average", "precision": a.precision, "recall": a.recall, "f": a.f}
            for a in self.averages.values()
        ]
        return data_frame(rows, index="label")


def _average_dict(a: Average) -> dict[str, float]:
    return {"precision": a.precision, "recall": a.recall, "f": a.f}


def _average(name: str, prf: PRF) -> Average:
    return Average(name, float(prf.precision), float(prf.recall), float(prf.f))


_METRICS = ("precision", "recall", "f")
_HEAD = {"precision": "P", "recall": "R", "f": "F1"}


def _labels(results: Sequence[ScoreResult]) -> tuple[list[str], dict[str, int]]:
    """Class labels (union over systems, gold classes first, then labels only predicted) and their gold support."""
    support: dict[str, int] = {}
    for result in results:
        for row in result.per_class:
            support.setdefault(row.label, row.support)
    labels = list(support)
    return [x for x in labels if support[x] > 0] + [x for x in labels if support[x] == 0], support


def _prf(a: Average | ClassRow | None) -> tuple[float | None, ...]:
    return (None, None, None) if a is None else (a.precision, a.recall, a.f)


def _ranges(result: ScoreResult, name: str) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """The (low, high) of P and of F under Olek's correction, or None where the average is exact."""
    if name not in result.bounds:
        return None, None
    low, high = result.bounds[name]
    return (low.precision, high.precision), (low.f, high.f)


def score_tables(
    results: Sequence[ScoreResult],
    *,
    title: str = "",
    names: Sequence[str] | None = None,
    support_header: str = "support",
    accuracy: bool = True,
    criterion: str | None = None,
) -> list[Table]:
    """The tables of one or several systems scored on the same gold.

    Display (text, Markdown, LaTeX): per-class rows (gold classes first, labels only predicted after), then the
    averages and accuracy, P / R / F1 of every system side by side in percent (like scikit-learn's
    classification_report). Under Olek's correction a class-weighted average is shown at its worst case and
    "P range" / "F1 range" give [worst, best] over every attribution of the filled items' false positives.
    CSV: one long-format row per system × class / average with the raw fractions, counts and each system's own
    signature (`criterion` adds a criterion column, as end-to-end RE has). `names` overrides the column prefixes
    (default: the system names when there are several); `support_header` names the support column.

    >>> r = ScoreResult("cnn", [ClassRow("A", 1, 0, 1, 2, 1.0, 0.5, 2 / 3, True)], {"micro": Average("micro", 1.0,
    ...     0.5, 2 / 3)}, 0.5, 2, None, parse("task:rc"))
    >>> [t.show for t in score_tables([r])], score_tables([r])[1].rows[0][:6]
    (['display', 'data'], ('cnn', 'class', 'A', 1.0, 0.5, 0.6666666666666666))
    """
    labels, support = _labels(results)
    averages = list(results[0].averages) if results else []
    prefixes = list(names) if names is not None else [r.system for r in results] if len(results) > 1 else [""]
    bounded = any(r.bounds for r in results)
    columns = [Column("label")]
    for prefix in prefixes:
        head = f"{prefix} " if prefix else ""
        columns += [Column(f"{head}{_HEAD[m]}", "percent") for m in _METRICS]
        if bounded:
            columns += [Column(f"{head}P range", "percent-interval"), Column(f"{head}F1 range", "percent-interval")]
    columns.append(Column(support_header, align="right"))
    rows: list[tuple[Any, ...]] = []
    by_system = [{row.label: row for row in r.per_class} for r in results]
    for label in labels:
        cells: list[Any] = [label]
        for table in by_system:
            cells += _prf(table.get(label)) + ((None, None) if bounded else ())
        negative = any(r.negative == label for r in results)
        cells.append(f"{support[label]}" + (" (neg)" if negative else ""))
        rows.append(tuple(cells))
    first_average = len(rows)
    n_positive = sum(row.support for row in results[0].per_class if row.positive) if results else 0
    for name in averages:
        cells = [name]
        for r in results:
            cells += _prf(r.averages.get(name)) + (_ranges(r, name) if bounded else ())
        rows.append((*cells, str(n_positive)))
    if accuracy and results:
        cells = ["accuracy"]
        for r in results:
            cells += [None, None, r.accuracy] + ([None, None] if bounded else [])
        rows.append((*cells, str(results[0].n)))
    labelled = [(prefix or r.system, r) for prefix, r in zip(prefixes, results)]
    notes = list(dict.fromkeys(n for r in results for n in r.notes))
    if bounded:
        notes.append(
            "a class-weighted average with a range is Olek's correction: missing predictions counted as wrong; the "
            "class its false positive belongs to is unknown, so P and F1 show the worst case and the range every "
            "attribution (docs/audit.md)"
        )
    warnings = [f"{label}: {w}" for label, r in labelled for w in r.warnings]
    display = Table(
        title,
        columns,
        rows,
        rule_before=(first_average,),
        notes=notes,
        warnings=warnings,
        signature=tuple((label, r.signature.format(short=True)) for label, r in labelled),
        show="display",
    )
    return [display, *_data_tables(results, bounded, criterion, warnings)]


def compact_tables(results: Sequence[ScoreResult]) -> list[Table]:
    """One line per system: F (percent) under micro and every weighting, and accuracy — sacreBLEU's one line per
    system, where the side-by-side per-class table of ten systems runs to hundreds of characters a line. The
    signature is printed once when every system shares it. Data formats get the full per-class blocks.

    >>> from dataclasses import replace
    >>> a = ScoreResult("a", [], {"micro": Average("micro", 1.0, 0.5, 2 / 3)}, 0.5, 2, "NA", parse("task:rc"))
    >>> t = compact_tables([a, replace(a, system="b")])[0]
    >>> [c.name for c in t.columns], t.rows[1][:2], t.signature
    (['system', 'micro', 'accuracy'], ('b', 0.6666666666666666), 't:rc')
    """
    averages = list(results[0].averages) if results else []
    with_accuracy = any(r.negative is not None and not math.isnan(r.accuracy) for r in results)
    columns = [Column("system"), *(Column(name, "percent") for name in averages)]
    columns += [Column("accuracy", "percent")] if with_accuracy else []
    rows = []
    for r in results:
        cells: list[Any] = [r.system, *(r.averages[name].f if name in r.averages else None for name in averages)]
        rows.append(tuple(cells + ([r.accuracy] if with_accuracy else [])))
    signatures = [r.signature.format(short=True) for r in results]
    shared = len(set(signatures)) == 1
    signature: Any = signatures[0] if shared else tuple((r.system, sig) for r, sig in zip(results, signatures))
    notes = list(dict.fromkeys(n for r in results for n in r.notes))
    if any(r.bounds for r in results):
        notes.append(
            "a class-weighted average under Olek's correction is shown at its worst case (--per-class: ranges)"
        )
    notes.append("F (%) per average; per-class precision, recall and F: --per-class")
    warnings = [f"{r.system}: {w}" for r in results for w in r.warnings]
    beta = results[0].signature.get("beta") if results else None
    title = "F1 (%) per average" if beta in (None, "1") else f"F{beta} (%) per average"
    display = Table(title, columns, rows, notes=notes, warnings=warnings, signature=signature, show="display")
    return [display, *_data_tables(results, any(r.bounds for r in results), None, warnings)]


def _data_tables(
    results: Sequence[ScoreResult], bounded: bool, criterion: str | None, warnings: list[str]
) -> list[Table]:
    """One CSV block per system (each with its own long signature), all with the same columns. Warnings lead the
    CSV as `#` lines; notes stay out, so that a file without warnings reads with any CSV reader."""
    columns = [Column("system"), *([Column("criterion")] if criterion is not None else []), Column("kind")]
    columns += [Column("label"), *(Column(m, "fraction") for m in _METRICS)]
    columns += [Column(x, "count") for x in ("support", "tp", "fp", "fn")]
    if bounded:
        columns += [Column("precision range", "interval", key="precision"), Column("f range", "interval", key="f")]
    lead = (criterion,) if criterion is not None else ()
    out = []
    for i, r in enumerate(results):
        rows: list[tuple[Any, ...]] = []
        for row in r.per_class:
            cells = (r.system, *lead, "class", row.label, row.precision, row.recall, row.f)
            rows.append((*cells, row.support, row.tp, row.fp, row.fn, *((None, None) if bounded else ())))
        for a in r.averages.values():
            cells = (r.system, *lead, "average", a.name, a.precision, a.recall, a.f, None, None, None, None)
            rows.append((*cells, *(_ranges(r, a.name) if bounded else ())))
        if criterion is None:
            cells = (r.system, "accuracy", "accuracy", None, None, r.accuracy, r.n, None, None, None)
            rows.append((*cells, *((None, None) if bounded else ())))
        first = i == 0
        out.append(
            Table(
                "",
                columns,
                rows,
                warnings=warnings if first else (),
                signature=str(r.signature),
                show="data",
            )
        )
    return out


#: A small result for the examples: gold A B no_relation, predictions A no_relation no_relation.
EXAMPLE = json.dumps(
    {
        "schema_version": 1,
        "kind": "score",
        "task": "rc",
        "system": "system",
        "signature": "t:rc|neg:no_relation|avg:micro,macro|n:3|ver:0",
        "n": 3,
        "negative": "no_relation",
        "accuracy": 2 / 3,
        "per_class": [
            {
                "label": "A",
                "tp": 1,
                "fp": 0,
                "fn": 0,
                "support": 1,
                "precision": 1.0,
                "recall": 1.0,
                "f": 1.0,
                "positive": True,
            },
            {
                "label": "B",
                "tp": 0,
                "fp": 0,
                "fn": 1,
                "support": 1,
                "precision": 0.0,
                "recall": 0.0,
                "f": 0.0,
                "positive": True,
            },
            {
                "label": "no_relation",
                "tp": 1,
                "fp": 1,
                "fn": 0,
                "support": 1,
                "precision": 0.5,
                "recall": 1.0,
                "f": 2 / 3,
                "positive": False,
            },
        ],
        "averages": {
            "micro": {"precision": 1.0, "recall": 0.5, "f": 2 / 3},
            "macro": {"precision": 0.5, "recall": 0.5, "f": 0.5},
        },
    }
)


def report_text(result: ScoreResult, digits: int = 4, *, unit: str = "items", accuracy: bool = True) -> str:
    """`classification_report`'s layout for one result: per-class rows (the negative class marked `*`), then
    every average with the positive items' support, accuracy with all items (unless `accuracy` is False: an
    end-to-end criterion's), then the signature and warnings; `unit` names what `n` counts (documents)."""
    beta = result.signature.get("beta") or "1"
    f_name = "f1-score" if beta == "1" else f"f{beta}-score"
    names = [row.label + (" *" if not row.positive else "") for row in result.per_class] + list(result.averages)
    width = max([len(name) for name in names] + [len("accuracy"), digits])
    head = f"{'':>{width}} {'precision':>9} {'recall':>9} {f_name:>9} {'support':>9}"
    positive_support = sum(row.support for row in result.per_class if row.positive)

    def line(name: str, p: float | None, r: float | None, f: float, support: int) -> str:
        cells = [f"{x:>9.{digits}f}" if x is not None else " " * 9 for x in (p, r, f)]
        return f"{name:>{width}} {' '.join(cells)} {support:>9}"

    negative = f"negative class: {result.negative}, in no average" if result.negative else "no negative class"
    lines = [f"{result.system} ({result.n:,} {unit}; {negative})", "", head, ""]
    for row, name in zip(result.per_class, names):
        lines.append(line(name, row.precision, row.recall, row.f, row.support))
    lines.append("")
    for name, a in result.averages.items():
        lines.append(line(name, a.precision, a.recall, a.f, positive_support))
    if accuracy and not math.isnan(result.accuracy):
        lines.append(line("accuracy", None, None, result.accuracy, result.n))
    if result.bounds:
        lines += ["", "class-weighted averages are the worst case of filling missing predictions as wrong:"]
        lines += [
            f"  {name}: F in [{low.f:.{digits}f}, {high.f:.{digits}f}]" for name, (low, high) in result.bounds.items()
        ]
    lines += ["", f"signature: {result.signature.format(short=True)}"]
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)
