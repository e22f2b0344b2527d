"""Options and helpers shared by the command modules (one definition of each flag)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from releval.report.output import write_atomic
from releval.validation import check_choice as _check_choice
from releval.validation import check_nonempty, check_output_path, refuse_options

OUTPUT_FORMATS = ("text", "json", "markdown", "latex", "csv")


def _output_callback(value: Path | None) -> Path | None:
    """Refuse a bad --output (a directory, below a file, not writable) while parsing, before any input is read."""
    return check_output_path(value, "--output")


def output_option() -> Any:
    """The `-o/--output` option of every command: checked at once, written atomically by `emit`."""
    return typer.Option(
        None, "--output", "-o", help="Write here (atomically) instead of stdout.", callback=_output_callback
    )


def emit(text: str, output: Path | None) -> None:
    """Write to --output atomically, or print to stdout; a failed write is one OutputError naming --output."""
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_atomic(output, text, what="--output")
        typer.echo(f"wrote {output}", err=True)


def check_choice(value: str, choices: tuple[str, ...], option: str) -> str:
    """An enum check with a message listing the choices (releval.validation.check_choice)."""
    return _check_choice(value, choices, option)


def resolve_negative_option(negative: str, no_negative: bool) -> str | None:
    """None for --no-negative, else the label given or 'auto'; both at once, or an empty label, are refused."""
    check_nonempty(negative, "--negative")
    refuse_options({"--negative": no_negative and negative != "auto"}, "give a label or --no-negative, not both")
    return None if no_negative else negative
