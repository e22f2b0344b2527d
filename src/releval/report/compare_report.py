"""Rendering comparisons (paired tests, seed comparisons, check-stats audits) as text, JSON, Markdown, LaTeX, CSV.

The text form follows sacreBLEU's paired table: one block of system scores, then one line per compared pair
with the difference, its confidence interval, the raw and the adjusted p-value; the signature comes last.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence

from releval.core.signature import Signature
from releval.report.strict_json import dumps_strict
from releval.report.tables import latex_escape
from releval.stats.compare import PairedTable, SeedTable
from releval.stats.rounding import StatsCheck
from releval.validation import check_width


def fmt_p(p: float | None) -> str:
    """p with 2 significant digits (scientific below 0.001)."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "–"
    if p == 0:
        return "0"
    return f"{p:.4f}" if p >= 0.001 else f"{p:.2e}"


def _pct(x: float | None, width: int) -> str:
    return "–" if x is None or math.isnan(x) else f"{100 * x:.{width}f}"


def _number(x: float, spec: str) -> str:
    """A statistic, or "–" when it is undefined (NaN: e.g. Welch's t of two constant, equal sets of runs)."""
    return f"{x:{spec}}" if math.isfinite(x) else "–"


def _signed(x: float, width: int) -> str:
    return f"{100 * x:+.{width}f}"


def _grid(headers: Sequence[str], rows: Sequence[Sequence[str]], fmt: str, title: str = "") -> str:
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(headers)
        writer.writerows(rows)
        return buf.getvalue()
    if fmt == "markdown":
        lines = ([f"**{title}**", ""] if title else []) + [
            "| " + " | ".join(headers) + " |",
            "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|",
        ]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + "\n"
    if fmt == "latex":
        spec = "l" + "r" * (len(headers) - 1)
        lines = [f"% {title}"] if title else []
        lines += [
            f"\\begin{{tabular}}{{{spec}}}",
            "\\toprule",
            " & ".join(latex_escape(h) for h in headers) + r" \\",
            "\\midrule",
        ]
        lines += [" & ".join(latex_escape(c) for c in r) + r" \\" for r in rows]
        lines += ["\\bottomrule", "\\end{tabular}"]
        return "\n".join(lines) + "\n"
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    out = ([title] if title else []) + [line(headers), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]
    return "\n".join(out) + "\n"


def _compose(parts: Sequence[str], fmt: str, signature: str, notes: Sequence[str]) -> str:
    sep = "\n"
    tail = []
    if fmt == "latex":
        tail = [f"% signature: {signature}"] + [f"% note: {n}" for n in notes]
    elif fmt == "markdown":
        tail = [f"Signature: `{signature}`"] + [f"- {n}" for n in notes]
    elif fmt == "text":
        tail = [f"signature: {signature}"] + [f"note: {n}" for n in notes]
    return sep.join(parts) + (sep + "\n".join(tail) + "\n" if tail else "")


def render_paired(table: PairedTable, fmt: str = "text", width: int = 2) -> str:
    """Scores of every system per average, then one row per (pair, test, average) with Δ, CI, p and adjusted p."""
    check_width(width)
    if fmt == "json":
        return dumps_strict(table.to_dict(), indent=2, ensure_ascii=False) + "\n"
    conf = int(round(100 * table.confidence))
    score_rows = [[name, *(_pct(s.get(m), width) for m in table.metrics)] for name, s in table.scores.items()]
    scores = _grid(["system", *table.metrics], score_rows, fmt, "F (%) per average")
    pair_rows = [
        [
            f"{r.a} vs {r.b}",
            r.test,
            r.metric,
            _pct(r.score_a, width),
            _pct(r.score_b, width),
            _signed(r.effect, width),
            f"[{_signed(r.ci_effect[0], width)}, {_signed(r.ci_effect[1], width)}]" if r.ci_effect else "–",
            fmt_p(r.p_value),
            fmt_p(r.p_adjusted),
        ]
        for r in table.rows
    ]
    adj = {"holm": "p (Holm)", "bonferroni": "p (Bonf.)", "none": "p (unadj.)"}[table.correction]
    headers = ["pair (A vs B)", "test", "average", "A", "B", "Δ = A−B", f"{conf}% CI of Δ", "p", adj]
    unit = "" if table.unit == "items" else f" {table.unit}"
    title = f"Paired tests, {table.alternative}, n = {table.n}{unit}" + (
        f", baseline {table.baseline}" if table.baseline else ", all pairs"
    )
    if fmt == "csv":
        return _grid(headers, pair_rows, fmt)
    return _compose([scores, _grid(headers, pair_rows, fmt, title)], fmt, str(table.signature), table.notes)


def render_seeds(table: SeedTable, fmt: str = "text", width: int = 2) -> str:
    """Mean ± sample SD per system and average, then Welch's t, p, Cohen's d (Eq. 4), Hedges' g per pair."""
    check_width(width)
    if fmt == "json":
        return dumps_strict(table.to_dict(), indent=2, ensure_ascii=False) + "\n"
    pm = "$\\pm$" if fmt == "latex" else "±"
    summary_rows = []
    for name in table.runs:
        cells = []
        for m in table.metrics:
            mean, sd, _ = table.summary(name, m)
            cells.append(f"{_pct(mean, width)}{pm}{_pct(sd, width)}")
        summary_rows.append([f"{name} ({len(next(iter(table.runs[name].values())))} runs)", *cells])
    summary = _grid(["system", *table.metrics], summary_rows, fmt, "F (%) mean ± sample SD over runs")
    rows = [
        [
            f"{r.a} vs {r.b}",
            r.metric,
            _signed(r.result.effect, width),
            _number(r.result.t, ".3f"),
            _number(r.result.df, ".2f"),
            fmt_p(r.result.p_value),
            fmt_p(r.p_adjusted),
            f"{r.result.cohen_d:.2f}",
            f"{r.result.hedges_g:.2f}",
            r.result.label.split(" (")[0],
        ]
        for r in table.rows
    ]
    adj = {"holm": "p (Holm)", "bonferroni": "p (Bonf.)", "none": "p (unadj.)"}[table.correction]
    headers = ["pair (A vs B)", "average", "Δ mean", "Welch t", "df", "p", adj, "Cohen's d", "Hedges' g", "size"]
    if fmt == "csv":
        return _grid(headers, rows, fmt)
    title = f"Welch's t-test ({table.alternative}) and Cohen's d (Harbecke et al. 2022, Eq. 4)"
    return _compose([summary, _grid(headers, rows, fmt, title)], fmt, str(table.signature), table.notes)


def _iv(low: float, high: float, kind: str) -> str:
    if kind == "p":
        return f"[{fmt_p(low)}, {fmt_p(high)}]"
    return f"[{low:.2f}, {high:.2f}]"


def _verdict(value: bool | None) -> str:
    return "–" if value is None else ("consistent" if value else "INCONSISTENT")


def render_checks(checks: Sequence[StatsCheck], fmt: str = "text") -> str:
    """One row per (comparison, reading of ±): intervals of t, p, d and whether the claims fit."""
    if fmt == "json":
        return dumps_strict([c.to_dict() for c in checks], indent=2, ensure_ascii=False) + "\n"
    rows = []
    for c in checks:
        for reading, r in c.readings.items():
            rows.append(
                [
                    c.name or f"{c.a} vs {c.b}",
                    f"{reading} sd",
                    _iv(r.t.low, r.t.high, "t"),
                    _iv(r.p.low, r.p.high, "p"),
                    _iv(r.d.low, r.d.high, "d"),
                    c.claimed_p.text if c.claimed_p else "–",
                    _verdict(r.p_consistent),
                    c.claimed_d.text if c.claimed_d else "–",
                    _verdict(r.d_consistent),
                ]
            )
    headers = ["comparison (A vs B)", "± read as", "t", "p", "d", "claimed p", "p check", "claimed d", "d check"]
    if fmt == "csv":
        return _grid(headers, rows, fmt)
    notes = [
        "intervals cover every mean and sd that rounds to the printed values; d = √2(μA−μB)/√(σA²+σB²) with sample SDs",
        "population reading: the printed sd is numpy's default (ddof=0), so the sample sd is sd·√(n/(n−1))",
    ]
    for c in checks:
        notes += [f"{c.name or c.a + ' vs ' + c.b}: {n}" for n in c.notes]
    summary = []
    for c in checks:
        name = c.name or f"{c.a} vs {c.b}"
        if c.claimed_p is not None:
            summary.append(f"{name}: claimed p {c.claimed_p.text} is {_overall(c, 'p')}")
        if c.claimed_d is not None:
            summary.append(f"{name}: claimed d {c.claimed_d.text} is {_overall(c, 'd')}")
    table = _grid(headers, rows, fmt, f"Welch's t-test ({checks[0].alternative if checks else 'two-sided'}) audit")
    body = [table] + (["\n".join(summary) + "\n"] if summary and fmt == "text" else [])
    alt = checks[0].alternative if checks else "two-sided"
    sig = Signature.build(
        test=f"welch:{alt},cohen-d:harbecke-eq4,rounding-box", n=",".join(sorted({str(c.n_a) for c in checks}))
    )
    return _compose(body, fmt, str(sig), notes)


def _overall(check: StatsCheck, kind: str) -> str:
    ok = [r for r, v in check.readings.items() if (v.p_consistent if kind == "p" else v.d_consistent)]
    if not ok:
        return "INCONSISTENT under every reading of ±"
    if len(ok) == len(check.readings):
        return "consistent"
    return f"consistent only if ± is the {' or '.join(ok)} sd"
