"""The tables of a comparison of many systems, whatever the task: pairs (`PairedTable`, one `PairRow` per pair ×
test × measure, with p-values adjusted per (test, measure) family) and runs over seeds (`SeedTable`, Welch's t and
Cohen's d per pair and measure); the pairs compared (`system_pairs`) and the correction across them (`adjust`).

They are what every task's `compare` returns (releval.significance.comparison assembles them) and what the report
renders; `to_dict`/`from_dict` round-trip them through JSON.

>>> system_pairs(["a", "b", "c"]), system_pairs(["a", "b", "c"], baseline="c")
([('a', 'b'), ('a', 'c'), ('b', 'c')], [('a', 'c'), ('b', 'c')])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from releval.core.errors import InputError, OptionError, raise_all
from releval.core.frames import data_frame
from releval.core.notices import Notice, as_notices
from releval.core.options import CORRECTIONS
from releval.core.schema import check_schema, header
from releval.core.signature import Signature, parse
from releval.core.validation import check_choice
from releval.significance.config import SignificanceConfig
from releval.significance.corrections import adjust_pvalues
from releval.significance.ranking import RankInterval
from releval.significance.seeds import SeedComparison, compare_seeds


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
    #: The meta-evaluation of the measures (releval.significance.meta.MeasureEvaluation), when asked for
    #: (`compare --evaluate-measures`); shown after the pairs, in JSON under "measures".
    measures: Any = None

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
            **({"measures": self.measures.to_dict()} if self.measures is not None else {}),
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
            _ranks_of(data),
        )


def _ranks_of(data: Mapping[str, Any]) -> dict[str, dict[str, RankInterval]]:
    """The rank intervals `_ranks_dict` wrote, {} when the JSON has none."""
    return {
        s: {m: RankInterval(int(r["rank"]), int(r["low"]), int(r["high"])) for m, r in per.items()}
        for s, per in data.get("rank_intervals", {}).items()
    }


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
    #: Bootstrap rank intervals {system: {average: RankInterval}}, each system ranked by the mean of its runs in
    #: every resample (releval.significance.ranks), when asked for (`compare --rank-intervals`).
    ranks: dict[str, dict[str, RankInterval]] = field(default_factory=dict)
    #: The level of the rank intervals; None when there are none (the seed tests give no interval).
    confidence: float | None = None

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
            **({"rank_intervals": _ranks_dict(self.ranks), "confidence": self.confidence} if self.ranks else {}),
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
            _ranks_of(data),
            None if data.get("confidence") is None else float(data["confidence"]),
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
