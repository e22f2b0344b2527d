"""The `releval` command line: a thin typer layer over the public API; bad input exits 2 with one clear message."""

from __future__ import annotations

import importlib

import typer
from rich.console import Console
from rich.markup import escape

from releval._version import __version__
from releval.errors import RelevalError

app = typer.Typer(
    name="releval",
    help="Honest, comparable evaluation of relation extraction and classification.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# Each module in releval.commands exposes `register(app)`; one line per command family.
_COMMAND_MODULES = (
    "releval.commands.score",
    "releval.commands.stats",
    "releval.commands.replicability",
    "releval.commands.audit",
    "releval.commands.compare",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"releval {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """Honest, comparable evaluation of relation extraction and classification."""


for _name in _COMMAND_MODULES:
    importlib.import_module(_name).register(app)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app; releval's own errors become one message and exit code 2, usage errors exit 2."""
    try:
        app(args=argv, prog_name="releval", standalone_mode=True)
    except RelevalError as exc:
        Console(stderr=True, highlight=False, soft_wrap=True).print(f"[bold red]error:[/] {escape(str(exc))}")
        return 2
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0
