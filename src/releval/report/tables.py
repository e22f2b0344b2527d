"""Score tables for one or several systems: text (like scikit-learn's classification_report), Markdown, LaTeX,
CSV and JSON. Text, Markdown and LaTeX show percentages; CSV and JSON carry the real fractions."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from releval.core.options import OUTPUT_FORMATS
from releval.report.strict_json import dumps_strict
from releval.result import ScoreResult
from releval.validation import check_choice, check_width

_METRICS = ("precision", "recall", "f")
_HEAD = {"precision": "P", "recall": "R", "f": "F1"}


def _rows(results: Sequence[ScoreResult]) -> tuple[list[str], list[str], dict[str, int]]:
    """Class labels (union over systems, gold classes first), average names, gold support per class."""
    labels: list[str] = []
    support: dict[str, int] = {}
    for result in results:
        for row in result.per_class:
            if row.label not in support:
                labels.append(row.label)
                support[row.label] = row.support
    gold_first = [x for x in labels if support[x] > 0] + [x for x in labels if support[x] == 0]
    averages = list(results[0].averages) if results else []
    return gold_first, averages, support


def _fmt(value: float, width: int) -> str:
    return f"{100 * value:.{width}f}"


def table_cells(results: Sequence[ScoreResult], width: int = 2) -> tuple[list[str], list[list[str]], int]:
    """Header and body cells (percentages) shared by the text, Markdown and LaTeX renderers.

    Returns the header, the rows, and the index of the first average row (to draw a rule above it).
    """
    labels, averages, support = _rows(results)
    multi = len(results) > 1
    header = ["label"]
    for r in results:
        header += [f"{r.system} {_HEAD[m]}" if multi else _HEAD[m] for m in _METRICS]
    header.append("support")
    by_system = [{row.label: row for row in r.per_class} for r in results]
    body: list[list[str]] = []
    for label in labels:
        cells = [label]
        for table in by_system:
            row = table.get(label)
            cells += [_fmt(getattr(row, m), width) if row else "-" for m in _METRICS]
        negative = any(r.negative == label for r in results)
        cells.append(str(support[label]) + (" (neg)" if negative else ""))
        body.append(cells)
    first_average = len(body)
    n_pos = {r.system: sum(row.support for row in r.per_class if row.positive) for r in results}
    for name in averages:
        cells = [name]
        for r in results:
            a = r.averages[name]
            cells += [_fmt(a.precision, width), _fmt(a.recall, width), _fmt(a.f, width)]
        cells.append(str(n_pos[results[0].system]))
        body.append(cells)
    acc = ["accuracy"]
    for r in results:
        acc += ["", "", _fmt(r.accuracy, width)]
    acc.append(str(results[0].n))
    body.append(acc)
    return header, body, first_average


def render_text(results: Sequence[ScoreResult], width: int = 2) -> str:
    """Aligned plain-text table, then notes, warnings and each system's signature."""
    header, body, first_average = table_cells(results, width)
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].rjust(widths[0])
        return "  ".join([first, *(c.rjust(w) for c, w in zip(cells[1:], widths[1:]))]).rstrip()

    out = [line(header), ""]
    out += [line(row) for row in body[:first_average]]
    out.append("")
    out += [line(row) for row in body[first_average:]]
    out.append("")
    out += _footer(results)
    return "\n".join(out) + "\n"


def _footer(results: Sequence[ScoreResult]) -> list[str]:
    lines: list[str] = []
    seen: set[str] = set()
    for r in results:
        for note in r.notes:
            if note not in seen:
                seen.add(note)
                lines.append(f"note: {note}")
    for r in results:
        for warning in r.warnings:
            lines.append(f"warning ({r.system}): {warning}")
    for r in results:
        lines.append(f"signature ({r.system}): {r.signature.format(short=True)}")
    return lines


def render_markdown(results: Sequence[ScoreResult], width: int = 2) -> str:
    header, body, first_average = table_cells(results, width)
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    for i, row in enumerate(body):
        cells = [f"**{row[0]}**" if i >= first_average else row[0], *row[1:]]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    out.append("")
    out += [f"`{line}`  " if line.startswith("signature") else f"{line}  " for line in _footer(results)]
    return "\n".join(out) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def render_latex(results: Sequence[ScoreResult], width: int = 2) -> str:
    """A booktabs tabular; the signatures go into a comment so the table stays paste-ready."""
    header, body, first_average = table_cells(results, width)
    out = [f"% {line}" for line in _footer(results)]
    out += [r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\toprule"]
    out.append(" & ".join(latex_escape(h) for h in header) + r" \\")
    out.append(r"\midrule")
    for i, row in enumerate(body):
        if i == first_average:
            out.append(r"\midrule")
        out.append(" & ".join(latex_escape(c) for c in row) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"


CSV_HEADER = ["system", "kind", "label", "precision", "recall", "f", "support", "tp", "fp", "fn", "signature"]


def csv_rows(result: ScoreResult, accuracy: bool = True) -> list[list[object]]:
    """One result's long-format rows (CSV_HEADER order): classes, averages and, optionally, accuracy."""
    sig = str(result.signature)
    rows: list[list[object]] = [
        [
            result.system,
            "class",
            row.label,
            repr(row.precision),
            repr(row.recall),
            repr(row.f),
            row.support,
            row.tp,
            row.fp,
            row.fn,
            sig,
        ]
        for row in result.per_class
    ]
    rows += [
        [result.system, "average", a.name, repr(a.precision), repr(a.recall), repr(a.f), "", "", "", "", sig]
        for a in result.averages.values()
    ]
    if accuracy:
        rows.append([result.system, "accuracy", "accuracy", "", "", repr(result.accuracy), result.n, "", "", "", sig])
    return rows


def render_csv(results: Sequence[ScoreResult]) -> str:
    """Long format: one line per system × row with real fractions, for spreadsheets and pandas.

    Warnings come first as `# warning (system): …` comment lines (as in every CSV releval writes; pandas reads
    past them with `comment="#"`), so a fill of missing predictions travels with the numbers."""
    buf = io.StringIO()
    for r in results:
        for warning in r.warnings:
            buf.write(f"# warning ({r.system}): {' '.join(str(warning).split())}\n")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for r in results:
        writer.writerows(csv_rows(r))
    return buf.getvalue()


def render_json(results: Sequence[ScoreResult]) -> str:
    """One result object for a single system, else {"results": [...]}."""
    data = results[0].to_dict() if len(results) == 1 else {"results": [r.to_dict() for r in results]}
    return dumps_strict(data, indent=2, ensure_ascii=False) + "\n"


def render(results: Sequence[ScoreResult], fmt: str = "text", width: int = 2) -> str:
    """Render in one of OUTPUT_FORMATS; `width` decimals of percentages (0 to 15: releval.validation.check_width)."""
    check_choice(fmt, OUTPUT_FORMATS, "--format")
    check_width(width)
    if fmt == "text":
        return render_text(results, width)
    if fmt == "markdown":
        return render_markdown(results, width)
    if fmt == "latex":
        return render_latex(results, width)
    if fmt == "csv":
        return render_csv(results)
    if fmt == "json":
        return render_json(results)
    raise AssertionError(fmt)  # unreachable: check_choice refused it
