"""`releval score --task semeval-official`: one line per system, or the perl scorer v1.2's report.

The line of each system (official, 19-way and undirected macro-F1) goes through the one renderer, so every output
format works; `--perl-report` prints instead what `semeval2010_task8_scorer-v1.2.pl PRED KEY` prints, byte for
byte (several systems: each report under a `==> NAME <==` heading), with releval's signature on stderr.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from releval.commands.common import emit, emit_result, result_warnings
from releval.core.options import MISSING_POLICIES, OUTPUT_FORMATS
from releval.errors import OptionError
from releval.validation import check_choice

#: What `run_semeval_official` prints: the table of one line per system, or the perl scorer's report.
REPORTS = ("table", "perl")


def run_semeval_official(
    gold: Path,
    systems: Sequence[tuple[str | None, Path]],
    *,
    on_missing: str = "error",
    format: str = "text",
    output: Path | None = None,
    report: str = "table",
) -> int:
    """Score every (name or None, prediction file) against the key and print one line per system in `format`, or
    the perl scorer's report (`report="perl"`, text only); warnings go to stderr, one line each. Returns 0.

    All files are loaded and checked before anything is written, so a bad input leaves no output file.
    """
    from releval.tasks.semeval_official import SemevalOfficialConfig, score

    check_choice(format, OUTPUT_FORMATS, "--format")
    check_choice(report, REPORTS, "report")
    check_choice(on_missing, MISSING_POLICIES, "--on-missing")
    if report == "perl" and format != "text":
        raise OptionError(
            f"--perl-report prints the perl scorer's text report; --format {format} is for the one-line-per-system "
            "table (drop one of them)",
            option="--perl-report",
        )
    if not systems:
        raise OptionError("at least one prediction file is needed", option="PREDS")
    config = SemevalOfficialConfig(on_missing)
    results = [score(gold, path, config, name) for name, path in systems]
    if report == "table":
        emit_result(results, format, 2, output)
        return 0
    from releval.report.semeval_report import render_perl

    for line in result_warnings(results):
        click.echo(line, err=True)
    signatures = dict.fromkeys(r.signature.format(short=True) for r in results)
    emit(render_perl(results), output)
    for signature in signatures:
        click.echo(f"signature: {signature}", err=True)
    return 0
