"""The `releval` command line: a thin typer layer over the public API; bad input exits 2 with one clear message."""

from __future__ import annotations

import importlib
import os
import sys

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

# Each module in releval.commands exposes `register(app)`; it is listed with the command names it adds, so a
# run imports only the module of the command it invokes (start-up time is part of every scoring run).
_COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "releval.commands.score": ("score",),
    "releval.commands.stats": ("stats",),
    "releval.commands.replicability": ("replicability",),
    "releval.commands.audit": ("audit", "claims"),
    "releval.commands.compare": ("compare", "check-stats"),
}
_registered: set[str] = set()


def register_commands(argv: list[str] | None = None) -> None:
    """Register the module of the command named in `argv`, or every module (for help or an unknown name)."""
    words = sys.argv[1:] if argv is None else argv
    first = next((w for w in words if not w.startswith("-")), None)
    wanted = [m for m, names in _COMMAND_MODULES.items() if first in names] or list(_COMMAND_MODULES)
    for module in wanted:
        if module not in _registered:
            importlib.import_module(module).register(app)
            _registered.add(module)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"releval {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """Honest, comparable evaluation of relation extraction and classification."""


# click's base exception (of every usage error and typer.BadParameter), taken from typer: recent typer versions vendor
# click instead of depending on it, so `import click` is not available and would not be the class typer raises.
_CLICK_EXCEPTION: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def _print_error(message: str) -> None:
    """One line on stderr, `error: ` first; soft wrap keeps a long message on one line."""
    Console(stderr=True, highlight=False, soft_wrap=True, emoji=False).print(f"[bold red]error:[/] {escape(message)}")


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app and return its exit code (0 ok, 1 findings, 2 bad input or usage).

    releval's own errors and click's usage errors (unknown option, a value that is not a number, a missing argument)
    are printed as one line `error: …` with exit 2, instead of a traceback or typer's boxed usage panel.
    """
    register_commands(argv)
    try:
        result = app(args=argv, prog_name="releval", standalone_mode=False)
    except RelevalError as exc:
        _print_error(str(exc))
        return 2
    except _CLICK_EXCEPTION as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # a group called without a command (click >= 8.2): its help
            typer.echo(exc.format_message())  # type: ignore[attr-defined]  # as older click prints it, exit 0
            return 0
        message = exc.format_message()  # type: ignore[attr-defined]
        ctx = getattr(exc, "ctx", None)
        if ctx is not None:
            message += f" (see '{ctx.command_path} --help')"
        _print_error(message)
        return 2
    except typer.Abort:
        _print_error("aborted")
        return 1
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return result if isinstance(result, int) and not isinstance(result, bool) else 0


def run() -> None:
    """Console-script entry: flush and leave without interpreter teardown.

    Freeing millions of loaded ids and labels one by one at exit costs a noticeable share of a large scoring run;
    every output is already written atomically and flushed, so nothing is lost by skipping it.
    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        code = code or 1
    os._exit(code)
