"""Comparisons (paired tests, per-class differences, seed comparisons, check-stats audits) as tables: text, JSON,
Markdown, LaTeX, CSV.

The text form follows sacreBLEU's paired table: one block of system scores, then one line per compared pair
with the difference, its confidence interval, the raw and the adjusted p-value; the signature comes last. The
builders (`paired_tables`, `per_class_tables`, `seed_tables`, `check_tables`) return `releval.core.table.Table`s,
which `releval.report.render` writes in every format; CSV gets the pair rows with real fractions and the signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from releval.core.signature import Signature
from releval.core.table import Column, Table, attach
from releval.report.render import render_as
from releval.significance.compare import PairedTable, SeedTable

if TYPE_CHECKING:  # check-stats' records; importing their module loads SciPy, which a paired table never needs
    from releval.audit.published import StatsCheck
    from releval.significance.per_class import PerClassComparison

_ADJUSTED = {"holm": "p (Holm)", "bonferroni": "p (Bonf.)", "none": "p (unadj.)"}


def _pair_columns() -> tuple[Column, Column, Column]:
    """The leading columns of a pair row: the pair as printed, then (CSV only) A and B by themselves."""
    return (
        Column("pair (A vs B)", key="pair"),
        Column("A", key="a", show="data"),
        Column("B", key="b", show="data"),
    )


def paired_tables(table: PairedTable) -> list[Table]:
    """Scores of every system per average (shown only), then one row per (pair, test, average) with A, B, Δ,
    the CI of Δ, p and adjusted p."""
    scores = Table(
        "F (%) per average",
        (Column("system"), *(Column(m, "percent") for m in table.metrics)),
        [(name, *(s.get(m) for m in table.metrics)) for name, s in table.scores.items()],
        show="display",
    )
    conf = int(round(100 * table.confidence)) if table.confidence is not None else None
    pair, a, b = _pair_columns()
    columns = (
        pair,
        Column("test", align="right"),
        Column("average", align="right"),
        a,
        b,
        Column("A", "percent", key="score_a"),
        Column("B", "percent", key="score_b"),
        Column("Δ = A−B", "signed-percent", key="delta"),
        Column(f"{conf}% CI of Δ" if conf is not None else "CI of Δ", "signed-interval", key="delta_ci"),
        Column("p", "p", key="p"),
        Column(_ADJUSTED[table.correction], "p", key="p_adjusted"),
    )
    rows = [
        (
            f"{r.a} vs {r.b}",
            r.test,
            r.metric,
            r.a,
            r.b,
            r.score_a,
            r.score_b,
            r.effect,
            r.ci_effect,
            r.p_value,
            r.p_adjusted,
        )
        for r in table.rows
    ]
    unit = "" if table.unit == "items" else f" {table.unit}"
    title = f"Paired tests, {table.alternative}, n = {table.n}{unit}" + (
        f", baseline {table.baseline}" if table.baseline else ", all pairs"
    )
    pairs = Table(title, columns, rows)
    return attach(
        [scores, pairs], signature=str(table.signature), warnings=getattr(table, "warnings", ()), notes=table.notes
    )


def per_class_tables(result: PerClassComparison) -> list[Table]:
    """The averages of the pair (one row per test and average), then one row per (test, class) sorted by |Δ|
    within each test: gold support, F of A and B, Δ = A − B, its CI, p, p adjusted across the classes, and
    whether the class survives the correction at the result's alpha."""
    conf = int(round(100 * result.confidence)) if result.confidence is not None else None
    ci_name = f"{conf}% CI of Δ" if conf is not None else "CI of Δ"
    head = (
        Column("test", align="right"),
        Column("A", "percent", key="score_a"),
        Column("B", "percent", key="score_b"),
        Column("Δ = A−B", "signed-percent", key="delta"),
        Column(ci_name, "signed-interval", key="delta_ci"),
        Column("p", "p", key="p"),
    )
    averages = Table(
        f"Averages, {result.a} (A) vs {result.b} (B)",
        (Column("average"), *head),
        [
            (m, t, c.score_a, c.score_b, c.effect, c.ci_effect, c.p_value)
            for t in result.tests
            for m, c in result.averages[t].items()
        ],
    )
    rows = result.rows
    per_class = Table(
        _per_class_title(result),
        (
            Column("class", key="label"),
            Column("support", "count"),
            *head,
            Column(_ADJUSTED[result.correction], "p", key="p_adjusted"),
            Column("survives", key="survives", align="right", display=lambda v: "yes" if v else "no"),
        ),
        [
            (
                r.label,
                r.support,
                r.test,
                r.score_a,
                r.score_b,
                r.effect,
                r.ci_effect,
                r.p_value,
                r.p_adjusted,
                result.survives(r),
            )
            for r in rows
        ],
        rule_before=[i for i in range(1, len(rows)) if rows[i].test != rows[i - 1].test],
        notes=[
            f"survives: {_ADJUSTED[result.correction]} ≤ α = {result.alpha:g}; classes sorted by |Δ| within each test",
        ],
    )
    return attach(
        [averages, per_class],
        signature=str(result.signature),
        warnings=result.warnings,
        notes=result.notes,
    )


def _per_class_title(result: PerClassComparison) -> str:
    unit = "" if result.unit == "items" else f" {result.unit}"
    criterion = f", {result.criterion}" if result.criterion else ""
    return f"Per-class F, {result.a} (A) vs {result.b} (B){criterion}, {result.alternative}, n = {result.n}{unit}"


def render_per_class(result: PerClassComparison, format: str = "text", width: int = 2) -> str:
    """`per_class_tables` in text, Markdown, LaTeX or CSV, or JSON: the envelope every command writes, holding
    `result.to_dict()` (which loads back with `PerClassComparison.from_dict`)."""
    from releval.core.schema import envelope

    return render_as(format, lambda: per_class_tables(result), lambda: envelope([result], "per-class-paired"), width)


def seed_tables(table: SeedTable) -> list[Table]:
    """Mean ± sample SD per system and average (shown only), then Welch's t, p, Cohen's d (Eq. 4), Hedges' g and
    Sawilowsky's label per pair."""
    summary_rows = []
    for name in table.runs:
        cells = [table.summary(name, m)[:2] for m in table.metrics]
        summary_rows.append((f"{name} ({len(next(iter(table.runs[name].values())))} runs)", *cells))
    summary = Table(
        "F (%) mean ± sample SD over runs",
        (Column("system"), *(Column(m, "percent-sd") for m in table.metrics)),
        summary_rows,
        show="display",
    )
    pair, a, b = _pair_columns()
    columns = (
        pair,
        Column("average", align="right"),
        a,
        b,
        Column("Δ mean", "signed-percent", key="delta_mean"),
        Column("Welch t", "number", key="t", spec=".3f"),
        Column("df", "number", spec=".2f"),
        Column("p", "p"),
        Column(_ADJUSTED[table.correction], "p", key="p_adjusted"),
        Column("Cohen's d", "number", key="cohen_d", spec=".2f"),
        Column("Hedges' g", "number", key="hedges_g", spec=".2f"),
        Column("size", align="right"),
    )
    rows = [
        (
            f"{r.a} vs {r.b}",
            r.metric,
            r.a,
            r.b,
            r.result.effect,
            r.result.t,
            r.result.df,
            r.result.p_value,
            r.p_adjusted,
            r.result.cohen_d,
            r.result.hedges_g,
            r.result.label.split(" (")[0],
        )
        for r in table.rows
    ]
    title = f"Welch's t-test ({table.alternative}) and Cohen's d (Harbecke et al. 2022, Eq. 4)"
    return attach(
        [summary, Table(title, columns, rows)],
        signature=str(table.signature),
        warnings=getattr(table, "warnings", ()),
        notes=table.notes,
    )


def _verdict(value: bool) -> str:
    return "consistent" if value else "INCONSISTENT"


_CHECK_NOTES = (
    "intervals cover every mean and sd that rounds to the printed values; d = √2(μA−μB)/√(σA²+σB²) with sample SDs",
    "population reading: the printed sd is numpy's default (ddof=0), so the sample sd is sd·√(n/(n−1))",
)


def check_tables(checks: Sequence[StatsCheck]) -> list[Table]:
    """One row per (comparison, reading of ±) with the intervals of t, p and d and whether the claims fit; then
    (shown only) the verdict on each claim over all readings."""
    alternative = checks[0].alternative if checks else "two-sided"
    columns = (
        Column("comparison (A vs B)", key="comparison"),
        Column("± read as", key="reading", align="right", display=lambda r: f"{r} sd"),
        Column("t", "interval", spec=".2f"),
        Column("p", "p-interval"),
        Column("d", "interval", spec=".2f"),
        Column("claimed p", key="claimed_p", align="right"),
        Column("p check", key="p_consistent", align="right", display=_verdict),
        Column("claimed d", key="claimed_d", align="right"),
        Column("d check", key="d_consistent", align="right", display=_verdict),
        Column("A", key="a", show="data"),
        Column("B", key="b", show="data"),
        Column("n A", "count", key="n_a", show="data"),
        Column("n B", "count", key="n_b", show="data"),
    )
    rows = []
    for c in checks:
        for reading, r in c.readings.items():
            rows.append(
                (
                    c.name or f"{c.a} vs {c.b}",
                    reading,
                    (r.t.low, r.t.high),
                    (r.p.low, r.p.high),
                    (r.d.low, r.d.high),
                    c.claimed_p.text if c.claimed_p else None,
                    r.p_consistent,
                    c.claimed_d.text if c.claimed_d else None,
                    r.d_consistent,
                    c.a,
                    c.b,
                    c.n_a,
                    c.n_b,
                )
            )
    notes = [*_CHECK_NOTES, *(f"{c.name or c.a + ' vs ' + c.b}: {n}" for c in checks for n in c.notes)]
    tables = [Table(f"Welch's t-test ({alternative}) audit", columns, rows, notes=notes)]
    claims = []
    for c in checks:
        name = c.name or f"{c.a} vs {c.b}"
        if c.claimed_p is not None:
            claims.append((name, "p", c.claimed_p.text, _overall(c, "p")))
        if c.claimed_d is not None:
            claims.append((name, "d", c.claimed_d.text, _overall(c, "d")))
    if claims:
        verdicts = (Column("comparison (A vs B)"), Column("claim"), Column("claimed"), Column("verdict"))
        tables.append(Table("Claims over every reading of ±", verdicts, claims, show="display"))
    signature = Signature.build(
        test=f"welch:{alternative},cohen-d:harbecke-eq4,rounding-box",
        n=",".join(sorted({str(c.n_a) for c in checks})),
    )
    return attach(tables, signature=str(signature))


def render_checks(checks: Sequence[StatsCheck], format: str = "text") -> str:
    """`check_tables` in text, Markdown, LaTeX or CSV, or the checks' JSON: a list of `StatsCheck.to_dict()`, each
    of which loads back with `StatsCheck.from_dict`."""
    return render_as(format, lambda: check_tables(checks), lambda: [c.to_dict() for c in checks])


def _overall(check: StatsCheck, kind: str) -> str:
    ok = [r for r, v in check.readings.items() if (v.p_consistent if kind == "p" else v.d_consistent)]
    if not ok:
        return "INCONSISTENT under every reading of ±"
    if len(ok) == len(check.readings):
        return "consistent"
    return f"consistent only if ± is the {' or '.join(ok)} sd"
