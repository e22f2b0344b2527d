"""Comparisons (paired tests, per-class differences, seed comparisons, check-stats audits) as tables: text, JSON,
Markdown, LaTeX, CSV.

The text form follows sacreBLEU's paired table: one block of system scores, then one line per compared pair
with the difference, its confidence interval, the raw and the adjusted p-value; the signature comes last. The
builders (`paired_tables`, `per_class_tables`, `seed_tables`, `check_tables`) return `releval.core.table.Table`s,
which `releval.report.render` writes in every format; CSV gets the pair rows with real fractions and the signature.
More than COMPACT_SYSTEMS systems compared all against all get a compact view in the display formats instead of
the pair rows (`compact_tables`: matrices of Δ and adjusted p, tie groups); CSV and JSON keep every row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from releval.core.signature import Signature
from releval.core.table import Column, Table, attach
from releval.report.render import render_as
from releval.significance.compare import PairedTable, PairRow, SeedTable
from releval.significance.ties import TIE_ALPHA, TieGroup, ranked_systems, tie_groups

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


#: More systems than this, compared all against all, get the compact view in the display formats by default.
COMPACT_SYSTEMS = 4


def compact_wanted(table: PairedTable, all_pairs: bool | None = None) -> bool:
    """Whether the display formats show the compact view: never with `all_pairs` True, always with False, and by
    default when more than COMPACT_SYSTEMS systems are compared all against all (no baseline)."""
    if all_pairs is not None:
        return not all_pairs and table.baseline is None
    return table.baseline is None and len(table.scores) > COMPACT_SYSTEMS


#: The criteria of end-to-end RE that prefix an average in a metric's name (strict:macro).
_CRITERIA = ("ner:", "strict:", "boundaries:", "relaxed:")


def value_name(metrics: Sequence[str]) -> str:
    """What the scores of a comparison are: "F" when every metric is an F average (micro or a weighting, after
    an end-to-end criterion), else "score" (AUC, P@N, accuracy, Ign F1 … of the other tasks).

    >>> value_name(["micro", "macro", "power:0.5"]), value_name(["strict:macro"]), value_name(["auc", "p@100"])
    ('F', 'F', 'score')
    """
    from releval.metrics.weightings import get_weighting

    def average(metric: str) -> bool:
        for criterion in _CRITERIA:
            metric = metric.removeprefix(criterion)
        if metric == "micro":
            return True
        try:
            get_weighting(metric)
        except (KeyError, ValueError):
            return False
        return True

    return "F" if all(average(m) for m in metrics) else "score"


def paired_tables(table: PairedTable, all_pairs: bool | None = None) -> list[Table]:
    """Scores of every system per average (shown only), then one row per (pair, test, average) with A, B, Δ,
    the CI of Δ, p and adjusted p. With many systems (`compact_wanted`) the display formats show the compact
    view instead of the pair rows (`compact_tables`), and only CSV (and JSON) carry every row."""
    f = value_name(table.metrics)
    scores = Table(
        "F (%) per average" if f == "F" else "Score (%) per measure",
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
    leading = [scores, *rank_tables(table)]
    trailing = []
    if table.measures is not None:
        from releval.report.meta_report import measure_tables

        trailing = measure_tables(table.measures)
    if not compact_wanted(table, all_pairs):
        pairs = Table(title, columns, rows)
        return attach(
            [*leading, pairs, *trailing],
            signature=str(table.signature),
            warnings=getattr(table, "warnings", ()),
            notes=table.notes,
        )
    pairs = Table(title, columns, rows, show="data", notes=table.notes)  # CSV: every row and note
    n_pairs = len({(r.a, r.b) for r in table.rows})
    *compact, last = compact_tables(table)
    shown_notes = [
        *table.notes,
        f"compact view of {n_pairs} pairs: --all-pairs prints every pair's row (CSV and JSON always hold them)",
    ]
    return attach(
        [*leading, *compact, replace(last, notes=(*last.notes, *shown_notes)), pairs, *trailing],
        signature=str(table.signature),
        warnings=getattr(table, "warnings", ()),
    )


def rank_tables(table: PairedTable | SeedTable) -> list[Table]:
    """The bootstrap rank intervals, when the table has them (`compare --rank-intervals`): per system and average
    its rank and, in parentheses, the range of its ranks in the central share of the resamples (over seeds, each
    system ranked by the mean of its runs)."""
    if not table.ranks:
        return []
    metrics = list(next(iter(table.ranks.values())))
    conf = int(round(100 * (table.confidence or 0.95)))
    rows = [
        (name, *(_rank_text(per[m].rank, per[m].low, per[m].high) for m in metrics))
        for name, per in table.ranks.items()
    ]
    return [
        Table(
            f"Rank (bootstrap {conf}% rank interval) per average",
            (Column("system"), *(Column(m, align="right") for m in metrics)),
            rows,
        )
    ]


def _rank_text(rank: int, low: int, high: int) -> str:
    return f"{rank} ({low})" if low == high else f"{rank} ({low}–{high})"


def _ranked(table: PairedTable, test: str, metric: str) -> list[str]:
    """The systems by their score in the (test, average) family of pair rows, best first (ties in the table's
    order): F for the resampling tests, accuracy for the tests on correctness (releval.significance.ties)."""
    return ranked_systems(table, test, metric)[0]


def _pair_index(table: PairedTable) -> dict[tuple[str, str, str, str], tuple[float, float]]:
    """(test, average, a, b) → (Δ = a − b, adjusted p) of every pair row, both ways round."""
    index = {}
    for r in table.rows:
        index[(r.test, r.metric, r.a, r.b)] = (r.effect, r.p_adjusted)
        index[(r.test, r.metric, r.b, r.a)] = (-r.effect, r.p_adjusted)
    return index


def compact_tables(table: PairedTable) -> list[Table]:
    """The compact view of many systems compared all against all (shown only): a matrix of Δ = row − column
    under the first average, the systems best first (so the upper triangle, shown, is ≥ 0); a matrix of the
    adjusted p-values of each test under that average (accuracy for a test on correctness); and per test and
    average the tie group: the best system and those whose p against it, corrected over the k − 1 comparisons
    with the best (releval.significance.ties), is at least TIE_ALPHA — or "undecided" when the resamples cannot
    give such a p below it (two-sided tests only: a one-sided p says nothing about the other direction)."""
    adjusted = _ADJUSTED[table.correction]
    pair = _pair_index(table)
    families = list(dict.fromkeys((r.test, r.metric) for r in table.rows))
    first = [(t, m) for t, m in families if m == table.metrics[0] or m not in table.metrics]

    def matrix(title: str, kind: str, value: int, test: str, metric: str) -> Table:
        order = _ranked(table, test, metric)
        heads, cols = order[:-1], order[1:]
        body = []
        for i, row in enumerate(heads):
            cells = []
            for j, col in enumerate(cols, start=1):
                found = pair.get((test, metric, row, col)) if j > i else None
                cells.append(None if found is None else found[value])
            body.append((row, *cells))
        columns = (Column("system"), *(Column(c, kind, missing="") for c in cols))  # type: ignore[arg-type]
        return Table(title, columns, body, show="display")

    groups = tie_groups(table, TIE_ALPHA) if table.alternative == "two-sided" else []
    tables = []
    names = _ranked(table, *first[0]) if first else []
    if first and _matrix_width(names) > COMPACT_WIDTH:
        tables.append(_against_the_best(table, *first[0], groups))
    else:
        if first:
            test, metric = first[0]
            name = f"{metric} F" if metric in table.metrics else metric
            tables.append(matrix(f"Δ {name} (%) = row − column, systems best first", "signed-percent", 0, test, metric))
        tables += [matrix(f"{adjusted}, {test}, {metric}", "p", 1, test, metric) for test, metric in first]
    if table.alternative != "two-sided":
        return tables
    rows = [(g.test, g.metric, g.best, _tied_text(g)) for g in groups]
    columns = (Column("test"), Column("average"), Column("best"), Column("tied with the best"))
    title = (
        f"Tie groups: the best system and those not different from it ({adjusted} ≥ {TIE_ALPHA:g} over its "
        "comparisons with the best)"
    )
    tables.append(Table(title, columns, rows, show="display"))
    return tables


#: The widest line the compact view prints: a Δ matrix wider than this becomes one line per system
#: (`_against_the_best`), so that 49 systems fit a 120-column terminal.
COMPACT_WIDTH = 120
#: The widest list of tied systems a tie group's row shows before it counts them instead.
_TIED_WIDTH = 60


def _matrix_width(order: Sequence[str]) -> int:
    """The width of the Δ and p matrices of systems `order` (best first): the row names, then one column per
    system but the best, each as wide as its name or a p-value (`1.00e-03`), two spaces apart."""
    if len(order) < 2:
        return 0
    return max(map(len, order[:-1])) + sum(2 + max(len(name), 8) for name in order[1:])


def _tied_text(group: TieGroup) -> str:
    """A tie group's systems as a row shows them: the names, or their number and the first names when long."""
    if not group.decided:
        return "undecided: too few resamples (see the warning)"
    text = ", ".join(group.tied) or "–"
    if len(text) <= _TIED_WIDTH:
        return text
    shown: list[str] = []
    for name in group.tied:
        if len(", ".join([*shown, name])) > _TIED_WIDTH - 16:
            break
        shown.append(name)
    return f"{len(group.tied)} systems: {', '.join(shown)}, …"


def _against_the_best(table: PairedTable, test: str, metric: str, groups: Sequence[TieGroup]) -> Table:
    """The compact view of many systems (too many for a matrix): one line per system, best first — its score,
    Δ = system − best with its interval, the p against the best corrected over the k − 1 comparisons with the
    best (releval.significance.ties) and `≈` for the systems tied with the best. Every Δ and interval is a pair
    row's (`paired_tables`)."""
    order = _ranked(table, test, metric)
    best = order[0]
    group = next((g for g in groups if (g.test, g.metric) == (test, metric)), None)
    p_best = dict(group.p_adjusted) if group is not None else {}
    rows_of: dict[str, PairRow] = {}
    for row in table.rows:
        if (row.test, row.metric) == (test, metric) and best in (row.a, row.b):
            rows_of[row.b if row.a == best else row.a] = row
    body: list[tuple[object, ...]] = []
    for rank, name in enumerate(order, start=1):
        r = rows_of.get(name)
        if name == best or r is None:
            score = table.scores.get(name, {}).get(metric) if metric in table.metrics else None
            body.append((rank, name, score, None, None, None, "best" if name == best else ""))
            continue
        sign = 1.0 if r.a == name else -1.0  # Δ = system − best
        score = r.score_a if r.a == name else r.score_b
        ci = r.ci_effect
        if ci is not None and sign < 0:
            ci = (-ci[1], -ci[0])
        mark = ""
        if group is not None:
            mark = "≈" if name in group.tied else ("?" if not group.decided else "")
        body.append((rank, name, score, sign * r.effect, ci, p_best.get(name), mark))
    value = f"{metric} F" if metric in table.metrics else metric
    conf = int(round(100 * table.confidence)) if table.confidence is not None else None
    columns = (
        Column("#", "count"),
        Column("system"),
        Column(value, "percent"),
        Column("Δ vs best", "signed-percent", missing=""),
        Column(f"{conf}% CI of Δ" if conf is not None else "CI of Δ", "signed-interval", missing=""),
        Column(f"{_ADJUSTED[table.correction]} vs best", "p", missing=""),
        Column("≈ best", align="right"),
    )
    return Table(
        f"Against the best ({test}, {value}), systems best first; ≈: tied with the best",
        columns,  # type: ignore[arg-type]
        body,
        show="display",
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
        f"{'F' if value_name(table.metrics) == 'F' else 'Score'} (%) mean ± sample SD over runs",
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
        [summary, *rank_tables(table), Table(title, columns, rows)],
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
