"""Options and helpers shared by the command modules (one definition of each flag)."""

from __future__ import annotations

from pathlib import Path

import typer

from releval.report.output import write_atomic

OUTPUT_FORMATS = ("text", "json", "markdown", "latex", "csv")


def emit(text: str, output: Path | None) -> None:
    """Write to --output atomically, or print to stdout."""
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_atomic(output, text)
        typer.echo(f"wrote {output}", err=True)


def check_choice(value: str, choices: tuple[str, ...], option: str) -> str:
    """A typer-friendly enum check with a message listing the choices."""
    if value not in choices:
        raise typer.BadParameter(f"'{value}' is not one of {', '.join(choices)}", param_hint=option)
    return value


def resolve_negative_option(negative: str, no_negative: bool) -> str | None:
    """--no-negative wins; otherwise the label given, or 'auto'."""
    return None if no_negative else negative
