"""Render any releval result (or several of one kind) in any output format — the one entry point commands use.

Each result type brings its own tables; this module only picks the renderer of its kind and wraps JSON in one
envelope, the same for one result and for several: {"schema_version", "kind", "task", "results": [...]}.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from releval.core.options import OUTPUT_FORMATS
from releval.core.schema import envelope
from releval.core.validation import check_choice, check_width
from releval.report.render import render
from releval.report.strict_json import dumps_strict


def render_results(
    results: Sequence[Any],
    format: str = "text",
    width: int = 2,
    per_class: bool | None = None,
    all_pairs: bool | None = None,
) -> str:
    """Text, Markdown, LaTeX, CSV or JSON of one kind of result (score, e2e score, SemEval official score, paired or
    seed comparison).
    `per_class` asks several scored systems for their per-class rows side by side instead of one line each
    (None: per-class rows for one system only). `all_pairs` asks a paired comparison of many systems for every
    pair's rows in the display formats instead of the compact view (None: compact above
    `releval.report.compare_report.COMPACT_SYSTEMS` systems; CSV and JSON always hold every row)."""
    check_choice(format, OUTPUT_FORMATS, "format")
    check_width(width)
    kind = type(results[0]).__name__  # by name: importing the comparison types would load SciPy for a score
    if format == "json":
        kinds = {
            "ScoreResult": "score",
            "E2EResult": "score",
            "FewRelResult": "score",
            "SemevalOfficialResult": "score",
            "PairedTable": "paired",
            "SeedTable": "seeds",
        }
        return dumps_strict(envelope(results, kinds[kind]), indent=2, ensure_ascii=False) + "\n"
    tables_of = getattr(type(results[0]), "tables_of", None)
    if tables_of is not None:
        return render(tables_of(results, per_class=per_class), format, width)
    from releval.report.compare_report import paired_tables, seed_tables

    if kind == "PairedTable":
        return render(paired_tables(results[0], all_pairs=all_pairs), format, width)
    return render(seed_tables(results[0]), format, width)
