"""Markdown output: the title in bold with a footnote marker per warning, a pipe table (`|` escaped; the rows below a
rule get a bold first cell), notes as a list, the signature in backticks, the warnings as footnotes."""

from __future__ import annotations

import re
from collections.abc import Sequence

from releval.core.table import SignatureField, Table
from releval.report.cells import (
    display_cells,
    one_line,
    right_aligned,
    shown_signatures,
    signature_pairs,
)

_MD_SPECIAL = re.compile(r"([\\`*|])|<(?=[A-Za-z/!?])")


def markdown_escape(text: str) -> str:
    """Escape what would break a pipe table or turn text into markup: \\ ` * | and a < that opens a tag."""
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), one_line(text))


def render_markdown(tables: Sequence[Table], width: int = 2) -> str:
    """Pipe tables with bold titles, notes as a list, signatures in backticks and warnings as footnotes."""
    shown = [t for t in tables if t.shown_in(data=False)]
    counter = [0]
    blocks = [_markdown_block(t, sig, width, counter) for t, sig in zip(shown, shown_signatures(shown))]
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
        columns, header, body = display_cells(table, width)
        bold_from = min((i for i in table.rule_before if 0 < i < len(body)), default=len(body))
        lines = [
            "| " + " | ".join(markdown_escape(h) for h in header) + " |",
            "|" + "|".join("---:" if right_aligned(c) else "---" for c in columns) + "|",
        ]
        for i, row in enumerate(body):
            cells = [markdown_escape(c) for c in row]
            if i >= bold_from and cells and cells[0]:
                cells[0] = f"**{cells[0]}**"
            lines.append("| " + " | ".join(cells) + " |")
        parts.append(lines)
    if table.notes:
        parts.append([f"- {markdown_escape(n)}" for n in table.notes])
    for label, sig in signature_pairs(signature):
        parts.append([f"Signature{f' ({markdown_escape(label)})' if label else ''}: `{sig}`"])
    if table.warnings:
        parts.append([f"[^{first + i}]: Warning: {markdown_escape(w)}" for i, w in enumerate(table.warnings)])
    return "\n\n".join("\n".join(p) for p in parts) + "\n"
