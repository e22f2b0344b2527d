"""Render tables (releval.core.table) as text, Markdown, LaTeX or CSV; JSON through one strict dumper.

One function per format, all reading the same `Table`s:

* text: a `== title ==` line, the lead lines, the header, a rule of dashes and the rows aligned (a blank line
  where the table has a rule; a cell longer than TEXT_CELL_WIDTH wrapped in its column, `wrap_cell`), then
  `note: …` and `signature: …`. Warnings are not part of the text document:
  `warnings_of(tables)` gives them to the caller (the command line prints them on stderr).
* Markdown: the title in bold with a footnote marker per warning, a pipe table (`|` escaped; the rows below a
  rule get a bold first cell), notes as a list, the signature in backticks, the warnings as footnotes.
* LaTeX: a booktabs tabular in pure ASCII (specials escaped, every non-ASCII character as a LaTeX command or an
  accent, anything unknown as its code point, e.g. `[U+2603]`); title, lead, notes and signature as `%`
  comments; each warning as a `% warning:` comment and a visible footnote-size line under the tabular.
* CSV: one header and one line per row with the raw values (fractions, not percentages; a pair as two columns),
  a `signature` column on every line, `# warning: …` and `# note: …` lines first (pandas: `comment="#"`). Tables
  with different columns share the union of their columns, after a `table` column naming each line's table.

A run of tables with the same signature (one result's tables) prints it once, after the last of them.
"""

from __future__ import annotations

import csv
import io
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from releval.core.options import OUTPUT_FORMATS
from releval.core.table import PAIR_KINDS, Column, SignatureField, Table, is_missing
from releval.core.validation import check_choice, check_width
from releval.report.strict_json import dumps_strict

#: The formats `render` writes: every output format (releval.core.options.OUTPUT_FORMATS, the one list of their
#: names) but JSON, which goes through `render_json`.
FORMATS = tuple(f for f in OUTPUT_FORMATS if f != "json")


# ----------------------------------------------------------------------------------------------- cells


def format_p(p: float | None) -> str:
    """A p-value with 4 decimals, scientific (2 significant digits) below 0.001; exact zero as 0; "–" if undefined."""
    if is_missing(p):
        return "–"
    assert p is not None
    if p == 0:
        return "0"
    return f"{p:.4f}" if p >= 0.001 else f"{p:.2e}"


def _number(value: Any) -> float:
    item = getattr(value, "item", None)  # a numpy scalar
    return float(item() if callable(item) else value)


def _p(column: Column, value: Any, width: int) -> str:
    if column.spec:
        x = _number(value)
        return "0" if x == 0 else format(x, column.spec)
    return format_p(_number(value))


def _text(column: Column, value: Any, width: int) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _count(column: Column, value: Any, width: int) -> str:
    return format(value.item() if hasattr(value, "item") else value, column.spec or ",")


def _formatted(default: str) -> Callable[[Column, Any, int], str]:
    return lambda column, value, width: format(_number(value), column.spec or default)


def _percent(column: Column, value: Any, width: int) -> str:
    return f"{100 * _number(value):.{width}f}"


def _signed_percent(column: Column, value: Any, width: int) -> str:
    return f"{100 * _number(value):+.{width}f}"


_SCALAR: dict[str, Callable[[Column, Any, int], str]] = {
    "text": _text,
    "count": _count,
    "number": _formatted(".4g"),
    "fraction": _formatted(".4f"),
    "percent": _percent,
    "signed-percent": _signed_percent,
    "p": _p,
}
#: The scalar kind of each end of a pair kind.
_PAIR_PART = {
    "interval": "number",
    "percent-interval": "percent",
    "signed-interval": "signed-percent",
    "p-interval": "p",
    "percent-sd": "percent",
}


def _part(column: Column, kind: str, value: Any, width: int) -> str:
    if is_missing(value):
        return column.missing
    if kind == "number" and not column.spec:
        return format(_number(value), ".2f")
    return _SCALAR[kind](column, value, width)


def cell_text(column: Column, value: Any, width: int = 2) -> str:
    """The display text of one raw cell: `column.missing` for None/NaN, else formatted by the column's kind."""
    if is_missing(value):
        return column.missing
    if column.display is not None:
        return column.display(value)
    part = _PAIR_PART.get(column.kind)
    if part is None:
        return _SCALAR[column.kind](column, value, width)
    low, high = value
    if column.kind == "percent-sd":
        return f"{_part(column, part, low, width)}±{_part(column, part, high, width)}"
    return f"[{_part(column, part, low, width)}, {_part(column, part, high, width)}]"


def _right(column: Column) -> bool:
    """Text and Markdown alignment: `align` when given, else left for text and right for numbers."""
    return column.align == "right" if column.align else column.kind != "text"


def _display(table: Table, width: int) -> tuple[list[Column], list[str], list[list[str]]]:
    """The display columns, their headers and the display text of every row."""
    keep = table.columns_in(data=False)
    columns = [table.columns[i] for i in keep]
    body = [[cell_text(table.columns[i], row[i], width) for i in keep] for row in table.rows]
    return columns, [c.name for c in columns], body


def _signatures(signature: SignatureField) -> list[tuple[str, str]]:
    """(label, signature) pairs; the label of a plain signature is empty."""
    if signature is None:
        return []
    if isinstance(signature, str):
        return [("", signature)]
    return list(signature)


def _shown_signatures(tables: Sequence[Table]) -> list[SignatureField]:
    """Each table's signature, or None where the next table repeats it (a run of equal signatures prints once)."""
    return [
        None if i + 1 < len(tables) and tables[i + 1].signature == t.signature else t.signature
        for i, t in enumerate(tables)
    ]


def warnings_of(tables: Iterable[Table]) -> list[str]:
    """Every warning of the tables, each once, in order: what a caller shows next to a text document."""
    return list(dict.fromkeys(w for t in tables for w in t.warnings))


def _one_line(text: str) -> str:
    return " ".join(str(text).split("\n"))


# ----------------------------------------------------------------------------------------------- text


def render_text(tables: Sequence[Table], width: int = 2) -> str:
    """Aligned plain text; warnings are left to the caller (`warnings_of`)."""
    shown = [t for t in tables if t.shown_in(data=False)]
    blocks = [_text_block(t, sig, width) for t, sig in zip(shown, _shown_signatures(shown))]
    return "\n".join(blocks)


#: The widest a cell gets in text output: a longer cell (a list of labels, a file name) is wrapped onto
#: continuation lines of its column, so one long cell no longer pads its whole column to its width.
TEXT_CELL_WIDTH = 60
#: The most lines one wrapped cell takes in text output; the rest is summarised as "… +N more" (N items of a
#: comma-separated list, else N characters). Markdown, LaTeX, CSV and JSON keep every cell whole.
TEXT_CELL_LINES = 6
_BREAK_AFTER = re.compile(r"(?<=[\s,;/])(?=\S)")
_BREAK_INSIDE = re.compile(r"(?<=[_\-→])(?=[^_\-→])")


def wrap_cell(text: str, width: int = TEXT_CELL_WIDTH, max_lines: int = TEXT_CELL_LINES) -> list[str]:
    """The lines of one cell's display text in text output: the text itself when it fits `width`, else wrapped
    after a space, comma, semicolon or slash (a longer piece after an underscore, hyphen or arrow, and a piece
    still longer is cut), at most `max_lines` lines, the last of which then says how much is left out.

    >>> wrap_cell("Used-for (1,024), Part-of (12), Compare (3)", width=20)
    ['Used-for (1,024),', 'Part-of (12),', 'Compare (3)']
    >>> wrap_cell(", ".join(f"T{i}" for i in range(40)), width=12, max_lines=2)
    ['T0, T1, T2,', '… +37 more']
    """
    if len(text) <= width:
        return [text]
    pieces: list[str] = []
    for piece in _BREAK_AFTER.split(text):
        for part in _BREAK_INSIDE.split(piece) if len(piece.rstrip()) > width else [piece]:
            while len(part.rstrip()) > width:
                pieces.append(part[:width])
                part = part[width:]
            pieces.append(part)
    lines = [""]
    for piece in pieces:
        if lines[-1] and len(lines[-1] + piece.rstrip()) > width:
            lines.append("")
        lines[-1] += piece
    if len(lines) <= max_lines:
        return [x.rstrip() for x in lines]
    kept = lines[: max_lines - 1]
    if ", " in text:
        left = f"{text.count(', ') + 1 - sum(x.count(',') for x in kept)} more"
    else:
        left = f"{len(text) - sum(map(len, kept))} characters"
    return [*(x.rstrip() for x in kept), f"… +{left}"[:width]]


def _text_block(table: Table, signature: SignatureField, width: int) -> str:
    lines = [f"== {table.title} =="] if table.title else []
    lines += list(table.lead)
    if table.columns:
        columns, header, body = _display(table, width)
        wrapped_header = [wrap_cell(h) for h in header]
        wrapped = [[wrap_cell(c) for c in row] for row in body]
        widths = [
            max([*(len(x) for x in h), *(len(x) for row in wrapped for x in row[i])])
            for i, h in enumerate(wrapped_header)
        ]

        def line(cells: Sequence[list[str]]) -> list[str]:
            """The lines of one row; a wrapped cell is a left-aligned block, whatever its column's alignment."""
            out = []
            for k in range(max((len(c) for c in cells), default=1)):
                parts = [
                    (c[k] if k < len(c) else "").rjust(w)
                    if _right(col) and len(c) == 1
                    else (c[k : k + 1] or [""])[0].ljust(w)
                    for c, w, col in zip(cells, widths, columns)
                ]
                out.append("  ".join(parts).rstrip())
            return out

        lines += [*line(wrapped_header), "  ".join("-" * w for w in widths).rstrip()]
        for i, row in enumerate(wrapped):
            if i in table.rule_before and 0 < i:
                lines.append("")
            lines += line(row)
    tail = [f"note: {n}" for n in table.notes]
    tail += [f"signature{f' ({label})' if label else ''}: {sig}" for label, sig in _signatures(signature)]
    if tail and lines:
        lines.append("")
    return "\n".join(lines + tail) + "\n"


# ----------------------------------------------------------------------------------------------- markdown

_MD_SPECIAL = re.compile(r"([\\`*|])|<(?=[A-Za-z/!?])")


def markdown_escape(text: str) -> str:
    """Escape what would break a pipe table or turn text into markup: \\ ` * | and a < that opens a tag."""
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), _one_line(text))


def render_markdown(tables: Sequence[Table], width: int = 2) -> str:
    """Pipe tables with bold titles, notes as a list, signatures in backticks and warnings as footnotes."""
    shown = [t for t in tables if t.shown_in(data=False)]
    counter = [0]
    blocks = [_markdown_block(t, sig, width, counter) for t, sig in zip(shown, _shown_signatures(shown))]
    return "\n".join(blocks)


def _markdown_block(table: Table, signature: SignatureField, width: int, counter: list[int]) -> str:
    first = counter[0] + 1
    counter[0] += len(table.warnings)
    markers = "".join(f"[^{n}]" for n in range(first, counter[0] + 1))
    parts: list[list[str]] = []
    if table.title or markers:
        parts.append([f"**{markdown_escape(table.title or 'Warnings')}**{markers}"])
    if table.lead:
        parts.append([markdown_escape(x) for x in table.lead])
    if table.columns:
        columns, header, body = _display(table, width)
        bold_from = min((i for i in table.rule_before if 0 < i < len(body)), default=len(body))
        lines = [
            "| " + " | ".join(markdown_escape(h) for h in header) + " |",
            "|" + "|".join("---:" if _right(c) else "---" for c in columns) + "|",
        ]
        for i, row in enumerate(body):
            cells = [markdown_escape(c) for c in row]
            if i >= bold_from and cells and cells[0]:
                cells[0] = f"**{cells[0]}**"
            lines.append("| " + " | ".join(cells) + " |")
        parts.append(lines)
    if table.notes:
        parts.append([f"- {markdown_escape(n)}" for n in table.notes])
    for label, sig in _signatures(signature):
        parts.append([f"Signature{f' ({markdown_escape(label)})' if label else ''}: `{sig}`"])
    if table.warnings:
        parts.append([f"[^{first + i}]: Warning: {markdown_escape(w)}" for i, w in enumerate(table.warnings)])
    return "\n\n".join("\n".join(p) for p in parts) + "\n"


# ----------------------------------------------------------------------------------------------- latex

#: Non-ASCII characters of releval's output (and their neighbours): the LaTeX for a table, the ASCII for a comment.
_NON_ASCII: dict[str, tuple[str, str]] = {
    "−": ("$-$", "-"),
    "–": ("--", "-"),
    "—": ("---", "--"),
    "‐": ("-", "-"),
    "‑": ("-", "-"),
    "±": ("$\\pm$", "+/-"),
    "∓": ("$\\mp$", "-/+"),
    "×": ("$\\times$", "x"),
    "÷": ("$\\div$", "/"),
    "·": ("$\\cdot$", "*"),
    "∗": ("$\\ast$", "*"),
    "•": ("$\\bullet$", "*"),
    "≤": ("$\\leq$", "<="),
    "≥": ("$\\geq$", ">="),
    "≠": ("$\\neq$", "!="),
    "≈": ("$\\approx$", "~"),
    "∝": ("$\\propto$", "~"),
    "∈": ("$\\in$", "in"),
    "∞": ("$\\infty$", "inf"),
    "√": ("$\\surd$", "sqrt"),
    "∑": ("$\\sum$", "sum"),
    "⌈": ("$\\lceil$", "ceil("),
    "⌉": ("$\\rceil$", ")"),
    "⌊": ("$\\lfloor$", "floor("),
    "⌋": ("$\\rfloor$", ")"),
    "→": ("$\\rightarrow$", "->"),
    "←": ("$\\leftarrow$", "<-"),
    "↔": ("$\\leftrightarrow$", "<->"),
    "⇒": ("$\\Rightarrow$", "=>"),
    "½": ("$\\frac{1}{2}$", "1/2"),
    "¼": ("$\\frac{1}{4}$", "1/4"),
    "¾": ("$\\frac{3}{4}$", "3/4"),
    "°": ("$^{\\circ}$", "deg"),
    "§": ("\\S{}", "S"),
    "¶": ("\\P{}", "P"),
    "†": ("\\dag{}", "+"),
    "‡": ("\\ddag{}", "++"),
    "…": ("\\ldots{}", "..."),
    "✗": ("$\\times$", "x"),
    "✓": ("$\\surd$", "v"),
    "‘": ("`", "'"),
    "’": ("'", "'"),
    "“": ("``", '"'),
    "”": ("''", '"'),
    "„": (",,", '"'),
    "«": ("<<", "<<"),
    "»": (">>", ">>"),
    "\u00a0": ("~", " "),
    "\u2009": ("\\,", " "),
    "\u202f": ("\\,", " "),
    "ß": ("\\ss{}", "ss"),
    "æ": ("\\ae{}", "ae"),
    "Æ": ("\\AE{}", "AE"),
    "ø": ("\\o{}", "o"),
    "Ø": ("\\O{}", "O"),
    "œ": ("\\oe{}", "oe"),
    "Œ": ("\\OE{}", "OE"),
    "å": ("\\aa{}", "a"),
    "Å": ("\\AA{}", "A"),
    "ł": ("\\l{}", "l"),
    "Ł": ("\\L{}", "L"),
    "ı": ("\\i{}", "i"),
    "¿": ("?`", "?"),
    "¡": ("!`", "!"),
    "€": ("EUR", "EUR"),
    "£": ("GBP", "GBP"),
}
_GREEK = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "ε": "varepsilon",
    "ζ": "zeta",
    "η": "eta",
    "θ": "theta",
    "κ": "kappa",
    "λ": "lambda",
    "μ": "mu",
    "µ": "mu",
    "ν": "nu",
    "ξ": "xi",
    "π": "pi",
    "ρ": "rho",
    "σ": "sigma",
    "τ": "tau",
    "φ": "phi",
    "χ": "chi",
    "ψ": "psi",
    "ω": "omega",
    "Γ": "Gamma",
    "Δ": "Delta",
    "Θ": "Theta",
    "Λ": "Lambda",
    "Ξ": "Xi",
    "Π": "Pi",
    "Σ": "Sigma",
    "Φ": "Phi",
    "Ψ": "Psi",
    "Ω": "Omega",
}
_NON_ASCII |= {ch: (f"$\\{name}$", name) for ch, name in _GREEK.items()}
_NON_ASCII |= {ch: (f"$^{{{d}}}$", f"^{d}") for ch, d in zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")}
_NON_ASCII |= {ch: (f"$_{{{d}}}$", f"_{d}") for ch, d in zip("₀₁₂₃₄₅₆₇₈₉₊₋", "0123456789+-")}
#: Combining marks as LaTeX accent commands (é is e + U+0301 after decomposition).
_ACCENTS = {
    "\u0300": "\\`",
    "\u0301": "\\'",
    "\u0302": "\\^",
    "\u0303": "\\~",
    "\u0304": "\\=",
    "\u0306": "\\u",
    "\u0307": "\\.",
    "\u0308": '\\"',
    "\u030a": "\\r",
    "\u030b": "\\H",
    "\u030c": "\\v",
    "\u0323": "\\d",
    "\u0327": "\\c",
    "\u0328": "\\k",
}
_LATEX_ASCII = {
    "\\": "\\textbackslash{}",
    "&": "\\&",
    "%": "\\%",
    "$": "\\$",
    "#": "\\#",
    "_": "\\_",
    "{": "\\{",
    "}": "\\}",
    "~": "\\textasciitilde{}",
    "^": "\\textasciicircum{}",
    "<": "$<$",
    ">": "$>$",
    "|": "$|$",
}


def _clusters(text: str) -> Iterable[tuple[str, str]]:
    """(base character, its combining marks): é is e with U+0301, while ≠ (= with U+0338) stays one character."""
    base, marks = "", ""
    for ch in unicodedata.normalize("NFC", text):
        if unicodedata.combining(ch) and base:
            marks += ch
            continue
        if base:
            yield base, marks
        base, marks = ch, ""
        parts = "" if ch.isascii() or ch in _NON_ASCII else unicodedata.normalize("NFD", ch)
        if len(parts) > 1 and not unicodedata.combining(parts[0]):
            base, marks = parts[0], parts[1:]
    if base:
        yield base, marks


def _latex_char(ch: str) -> str:
    if ch in _LATEX_ASCII:
        return _LATEX_ASCII[ch]
    if ch.isascii():
        return ch if ch.isprintable() else " "
    if ch in _NON_ASCII:
        return _NON_ASCII[ch][0]
    compat = unicodedata.normalize("NFKD", ch)
    if compat != ch:
        return latex_escape(compat)
    if unicodedata.combining(ch):
        return ""
    return f"[U+{ord(ch):04X}]"


def latex_escape(text: str) -> str:
    """`text` as pure-ASCII LaTeX: specials escaped, non-ASCII as commands, accents or code points ([U+2603])."""
    clusters = list(_clusters(_one_line(text)))
    out = []
    for i, (base, marks) in enumerate(clusters):
        piece = _latex_char(base)
        if base == "-" and i + 1 < len(clusters) and clusters[i + 1][0] == "-":
            piece = "-{}"  # "--" in a label stays two hyphens, not an en dash
        for mark in marks:
            accent = _ACCENTS.get(mark)
            if accent is not None and base.isascii() and base.isalpha():
                piece = f"{accent}{{{piece}}}"
        out.append(piece)
    return "".join(out)


def latex_comment(text: str) -> str:
    """`text` as the ASCII body of a `%` comment: readable transliterations, no line break, no ^^ escapes."""
    out = []
    for base, _marks in _clusters(_one_line(text)):
        if base.isascii():
            out.append(base if base.isprintable() else " ")
        elif base in _NON_ASCII:
            out.append(_NON_ASCII[base][1])
        else:
            compat = unicodedata.normalize("NFKD", base)
            out.append(latex_comment(compat) if compat != base else f"[U+{ord(base):04X}]")
    return "".join(out).replace("^^", "^ ^")


def render_latex(tables: Sequence[Table], width: int = 2) -> str:
    """Booktabs tabulars in pure ASCII; comments carry the title, notes and signature, a line under the table
    each warning."""
    shown = [t for t in tables if t.shown_in(data=False)]
    blocks = [_latex_block(t, sig, width) for t, sig in zip(shown, _shown_signatures(shown))]
    return "\n".join(blocks)


def _latex_block(table: Table, signature: SignatureField, width: int) -> str:
    lines = [f"% {latex_comment(x)}" for x in ([table.title] if table.title else []) + list(table.lead)]
    lines += [f"% warning: {latex_comment(w)}" for w in table.warnings]
    if table.columns:
        columns, header, body = _display(table, width)
        spec = "".join(
            ("r" if c.align == "right" else "l") if c.align else ("l" if i == 0 else "r") for i, c in enumerate(columns)
        )
        lines += [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(latex_escape(h) for h in header) + r" \\"]
        lines.append("\\midrule")
        for i, row in enumerate(body):
            if i in table.rule_before and 0 < i:
                lines.append("\\midrule")
            lines.append(" & ".join(latex_escape(c) for c in row) + r" \\")
        lines += ["\\bottomrule", "\\end{tabular}"]
        lines += [f"{{\\footnotesize\\textit{{Warning:}} {latex_escape(w)}\\par}}" for w in table.warnings]
    lines += [f"% note: {latex_comment(n)}" for n in table.notes]
    lines += [
        f"% signature{f' ({latex_comment(label)})' if label else ''}: {latex_comment(sig)}"
        for label, sig in _signatures(signature)
    ]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------- csv


def _csv_value(value: Any) -> str:
    """A raw value as a CSV field: floats with repr (they read back exactly), None and NaN empty."""
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():
        value = item()
    if is_missing(value):
        return ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    return str(value)


def _csv_cells(column: Column, value: Any) -> list[str]:
    if column.kind not in PAIR_KINDS:
        return [_csv_value(value)]
    if is_missing(value):
        return ["", ""]
    low, high = value
    return [_csv_value(low), _csv_value(high)]


def _csv_signature(signature: SignatureField) -> str:
    return " ; ".join(f"{label}={sig}" if label else sig for label, sig in _signatures(signature))


def render_csv(tables: Sequence[Table], width: int = 2) -> str:
    """Long format with raw values and a signature column; warnings and notes as `#` lines first."""
    shown = [t for t in tables if t.shown_in(data=True)]
    out = [f"# warning: {_one_line(w)}" for w in warnings_of(shown)]
    out += [f"# note: {_one_line(n)}" for n in dict.fromkeys(n for t in shown for n in t.notes)]
    layouts = [[k for i in t.columns_in(data=True) for k in t.columns[i].csv_keys] for t in shown]
    several = any(layout != layouts[0] for layout in layouts)
    header = ["table"] if several else []
    for layout in layouts:
        header += [k for k in layout if k not in header]
    signed = any(t.signature is not None for t in shown) and "signature" not in header
    header += ["signature"] if signed else []
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if shown:
        writer.writerow(header)
    position = {key: i for i, key in enumerate(header)}
    for table, layout in zip(shown, layouts):
        for row in table.rows:
            line = [""] * len(header)
            if several:
                line[0] = table.title
            values = [v for i in table.columns_in(data=True) for v in _csv_cells(table.columns[i], row[i])]
            for key, value in zip(layout, values):
                line[position[key]] = value
            if signed:
                line[position["signature"]] = _csv_signature(table.signature)
            writer.writerow(line)
    return "".join(f"{line}\n" for line in out) + buf.getvalue()


# ----------------------------------------------------------------------------------------------- entry points

_RENDERERS: dict[str, Callable[[Sequence[Table], int], str]] = {
    "text": render_text,
    "markdown": render_markdown,
    "latex": render_latex,
    "csv": render_csv,
}


assert tuple(_RENDERERS) == FORMATS, "a renderer for every output format but JSON (core/options.py OUTPUT_FORMATS)"


def render(tables: Sequence[Table], format: str = "text", width: int = 2) -> str:
    """The tables in one of FORMATS, percentages with `width` decimals (0 to 15)."""
    check_choice(format, FORMATS, "format")
    check_width(width)
    return _RENDERERS[format](list(tables), width)


def render_json(data: Any) -> str:
    """Strict JSON (non-finite floats as null), indented, non-ASCII kept, with a final newline."""
    return dumps_strict(data, indent=2, ensure_ascii=False) + "\n"


def render_as(format: str, tables: Callable[[], Sequence[Table]], data: Callable[[], Any], width: int = 2) -> str:
    """`render_json(data())` for "json", else `render(tables(), format, width)`: the one switch of a result's
    renderers (only the chosen form is built)."""
    if format == "json":
        check_width(width)
        return render_json(data())
    return render(tables(), format, width)
