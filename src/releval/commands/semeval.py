"""`releval score --perl-report`: a task's whole report of its own (Task.full_report), e.g. the SemEval perl
scorer v1.2's report, byte for byte (`--task semeval-official`).

The line of each system (official, 19-way and undirected macro-F1) goes through the one renderer, so every output
format works; `--perl-report` prints instead what `semeval2010_task8_scorer-v1.2.pl PRED KEY` prints, byte for
byte (several systems: each report under a `==> NAME <==` heading), with releval's signature on stderr.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from releval.commands.common import emit, result_warnings
from releval.core.errors import OptionError

if TYPE_CHECKING:
    from releval.tasks.base import FullReport


def perl_report(
    gold: Path,
    systems: Sequence[tuple[str | None, Path]],
    config: Any,
    format: str,
    output: Path | None,
    full_report: FullReport[Any],
) -> None:
    """The perl scorer's report of every (name or None, prediction file), byte for byte (text only; several systems
    each under a `==> NAME <==` heading); warnings and the signature go to stderr, one line each.

    All files are loaded and checked before anything is written, so a bad input leaves no output file. The one line
    per system of `releval score --task semeval-official` is the task's ordinary result (the registry's path).
    """
    if format != "text":
        raise OptionError(
            f"--perl-report prints the perl scorer's text report; --format {format} is for the one-line-per-system "
            "table (drop one of them)",
            option="--perl-report",
        )
    results, text = full_report(gold, systems, config)
    for line in result_warnings(results):
        click.echo(line, err=True)
    signatures = dict.fromkeys(r.signature.format(short=True) for r in results)
    emit(text, output)
    for signature in signatures:
        click.echo(f"signature: {signature}", err=True)
