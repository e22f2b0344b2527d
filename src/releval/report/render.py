"""Render tables (releval.core.table) as text, Markdown, LaTeX or CSV; JSON through one strict dumper.

One module per format in releval.report.formats (its registry `RENDERERS`), all reading the same `Table`s:

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

from collections.abc import Callable, Sequence
from typing import Any

from releval.core.options import OUTPUT_FORMATS
from releval.core.table import Table
from releval.core.validation import check_choice, check_width
from releval.report.cells import cell_text, format_p, warnings_of
from releval.report.formats import RENDERERS
from releval.report.formats.csv import render_csv
from releval.report.formats.latex import latex_comment, latex_escape, render_latex
from releval.report.formats.markdown import markdown_escape, render_markdown
from releval.report.formats.text import TEXT_CELL_LINES, TEXT_CELL_WIDTH, render_text, wrap_cell
from releval.report.strict_json import dumps_strict

__all__ = [
    "FORMATS",
    "TEXT_CELL_LINES",
    "TEXT_CELL_WIDTH",
    "cell_text",
    "format_p",
    "latex_comment",
    "latex_escape",
    "markdown_escape",
    "render",
    "render_as",
    "render_csv",
    "render_json",
    "render_latex",
    "render_markdown",
    "render_text",
    "warnings_of",
    "wrap_cell",
]

#: The formats `render` writes: every output format (releval.core.options.OUTPUT_FORMATS, the one list of their
#: names) but JSON, which goes through `render_json`.
FORMATS = tuple(f for f in OUTPUT_FORMATS if f != "json")


assert tuple(RENDERERS) == FORMATS, "a renderer for every output format but JSON (core/options.py OUTPUT_FORMATS)"


def render(tables: Sequence[Table], format: str = "text", width: int = 2) -> str:
    """The tables in one of FORMATS, percentages with `width` decimals (0 to 15)."""
    check_choice(format, FORMATS, "format")
    check_width(width)
    return RENDERERS[format](list(tables), width)


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
