"""`releval score --task semeval-official --perl-report`: the perl scorer v1.2's report, byte for byte.

The line of each system (official, 19-way and undirected macro-F1) goes through the one renderer, so every output
format works; `--perl-report` prints instead what `semeval2010_task8_scorer-v1.2.pl PRED KEY` prints, byte for
byte (several systems: each report under a `==> NAME <==` heading), with releval's signature on stderr.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from releval.commands.common import emit, result_warnings
from releval.core.errors import OptionError

if TYPE_CHECKING:
    from releval.tasks.semeval_official import SemevalOfficialConfig


def perl_report(
    gold: Path,
    systems: Sequence[tuple[str | None, Path]],
    config: SemevalOfficialConfig,
    format: str,
    output: Path | None,
) -> None:
    """The perl scorer's report of every (name or None, prediction file), byte for byte (text only; several systems
    each under a `==> NAME <==` heading); warnings and the signature go to stderr, one line each.

    All files are loaded and checked before anything is written, so a bad input leaves no output file. The one line
    per system of `releval score --task semeval-official` is the task's ordinary result (the registry's path).
    """
    from releval.report.semeval_report import render_perl
    from releval.tasks.semeval_official import score

    if format != "text":
        raise OptionError(
            f"--perl-report prints the perl scorer's text report; --format {format} is for the one-line-per-system "
            "table (drop one of them)",
            option="--perl-report",
        )
    results = [score(gold, path, config, name) for name, path in systems]
    for line in result_warnings(results):
        click.echo(line, err=True)
    signatures = dict.fromkeys(r.signature.format(short=True) for r in results)
    emit(render_perl(results), output)
    for signature in signatures:
        click.echo(f"signature: {signature}", err=True)
