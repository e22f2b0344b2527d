"""The output formats of tables, one module each, and their registry.

Each module defines `render_<format>(tables, width) -> str`; `RENDERERS` names it. A new output format is one module
here, one line in `RENDERERS` and its name in `releval.core.options.OUTPUT_FORMATS` (the one list of output-format
names, which every command's `--format` offers); tests/test_render.py renders every result type in every format of
that list, so the new one is tested without being named.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from releval.core.table import Table
from releval.report.formats.csv import render_csv
from releval.report.formats.latex import render_latex
from releval.report.formats.markdown import render_markdown
from releval.report.formats.text import render_text

#: Every output format but JSON (releval.report.render.render_json) → its renderer.
RENDERERS: dict[str, Callable[[Sequence[Table], int], str]] = {
    "text": render_text,
    "markdown": render_markdown,
    "latex": render_latex,
    "csv": render_csv,
}
