"""Text output: a `== title ==` line, the lead lines, the header, a rule of dashes and the rows aligned (a blank
line where the table has a rule; a cell longer than TEXT_CELL_WIDTH wrapped in its column, `wrap_cell`), then
`note: …` and `signature: …`. Warnings are not part of the text document: the caller shows them
(`releval.report.cells.warnings_of`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from releval.core.table import SignatureField, Table
from releval.report.cells import (
    display_cells,
    right_aligned,
    shown_signatures,
    signature_pairs,
)


def render_text(tables: Sequence[Table], width: int = 2) -> str:
    """Aligned plain text; warnings are left to the caller (`warnings_of`)."""
    shown = [t for t in tables if t.shown_in(data=False)]
    blocks = [_text_block(t, sig, width) for t, sig in zip(shown, shown_signatures(shown))]
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
        columns, header, body = display_cells(table, width)
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
                    if right_aligned(col) and len(c) == 1
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
    tail += [f"signature{f' ({label})' if label else ''}: {sig}" for label, sig in signature_pairs(signature)]
    if tail and lines:
        lines.append("")
    return "\n".join(lines + tail) + "\n"
