"""The `releval` command line: a thin typer layer over the public API; bad input exits 2 with one clear message.

Start-up is part of every run, so this module imports neither typer nor rich: the typer app is built on first use
(`app`, resolved by the module's `__getattr__`), and `releval --version` prints without it.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from releval._version import __version__
from releval.errors import OptionError, RelevalError

if TYPE_CHECKING:
    import typer

#: Exit codes (docs/exit-codes-and-limits.md); a signal ends the run with 128 + its number (SIGINT 130, SIGTERM 143).
EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT, EXIT_FAILED = 0, 1, 2, 3
#: The environment variable that makes an internal error print its traceback.
DEBUG_VARIABLE = "RELEVAL_DEBUG"
#: The signals a run turns into a clean exit (temporary output files removed, one line on stderr).
HANDLED_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))

#: What `releval --version` prints, with or without the typer app.
VERSION_LINE = f"releval {__version__}"

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
_built: list[typer.Typer] = []  # the app, once built


def _app() -> typer.Typer:
    """The typer app with its root callback (`--version`), built on first use; commands join it by
    `register_commands`."""
    if not _built:
        import typer

        app = typer.Typer(
            name="releval",
            help="Honest, comparable evaluation of relation extraction and classification.",
            no_args_is_help=True,
            add_completion=False,
            pretty_exceptions_enable=False,
            context_settings={"help_option_names": ["-h", "--help"]},
        )

        def _version(value: bool) -> None:
            if value:
                typer.echo(VERSION_LINE)
                raise typer.Exit()

        @app.callback()
        def _root(
            version: bool = typer.Option(
                False, "--version", callback=_version, is_eager=True, help="Print the version."
            ),
        ) -> None:
            """Honest, comparable evaluation of relation extraction and classification."""

        _built.append(app)
    return _built[0]


def __getattr__(name: str) -> Any:
    """`releval.cli.app`: the typer app, built on first access (PEP 562)."""
    if name == "app":
        return _app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register_commands(argv: list[str] | None = None) -> None:
    """Register the module of the command named in `argv`, or every module (for help or an unknown name)."""
    words = sys.argv[1:] if argv is None else argv
    first = next((w for w in words if not w.startswith("-")), None)
    wanted = [m for m, names in _COMMAND_MODULES.items() if first in names] or list(_COMMAND_MODULES)
    for module in wanted:
        if module not in _registered:
            importlib.import_module(module).register(_app())
            _registered.add(module)


def _click_exception() -> type[Exception]:
    """click's base exception (of every usage error and typer.BadParameter), taken from typer: recent typer versions
    vendor click instead of depending on it, so `import click` is not available and would not be the class typer
    raises."""
    import typer

    return next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def _print_error(message: str) -> None:
    """One line on stderr, `error: ` first; soft wrap keeps a long message on one line.

    A stderr that cannot be written (its terminal hung up, a closed pipe) loses the message, not the exit code.
    """
    with contextlib.suppress(OSError, ValueError):
        from rich.console import Console
        from rich.markup import escape

        console = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
        console.print(f"[bold red]error:[/] {escape(message)}")


class Signalled(BaseException):
    """Raised by the run's handler of SIGINT, SIGTERM or SIGHUP, so that clean-up code runs on the way out.

    A BaseException like KeyboardInterrupt, so `except Exception` does not swallow it; unlike KeyboardInterrupt,
    click does not turn it into an exit code of its own. `write_atomic` removes its temporary file on it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_signalled(signum: int, frame: object) -> None:
    """Signal handler: ignore further handled signals (the run is ending; clean-up must not be cut short), raise."""
    for sig in HANDLED_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    raise Signalled(signum)


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """Turn SIGINT, SIGTERM and SIGHUP into `Signalled` for the block, then restore the previous handlers.

    Only from the main thread (Python allows no other), and only for signals left at their default: a SIGHUP
    ignored by `nohup`, or a SIGINT ignored for a background job, stays ignored.
    """
    previous: dict[int, object] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in HANDLED_SIGNALS:
            current = signal.getsignal(sig)
            if current in (signal.SIG_DFL, signal.default_int_handler):
                previous[sig] = current
                signal.signal(sig, _raise_signalled)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]


def _signal_exit(signum: int) -> int:
    """One line for a run ended by a signal; exit code 128 + the signal's number, as a shell reports it."""
    if signum == getattr(signal, "SIGINT", None):
        _print_error("interrupted")
    else:
        _print_error(f"terminated by {signal.Signals(signum).name}")
    return 128 + signum


def _stdout_closed() -> int:
    """The reader of stdout went away (`releval … | head -1`): no message; exit 141 = 128 + SIGPIPE, as a tool
    killed by SIGPIPE reports it. stdout is pointed at /dev/null so the final flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return 128 + getattr(signal, "SIGPIPE", 13)


def _leaf_command(argv: list[str] | None) -> Any:
    """The click command that `argv` ran (the deepest group member its leading words name), or None."""
    import typer

    command: Any = typer.main.get_command(_app())
    for word in sys.argv[1:] if argv is None else argv:
        children = getattr(command, "commands", None)
        if not children or word not in children:
            break
        command = children[word]
    return None if getattr(command, "commands", None) else command


def _command_words(argv: list[str] | None) -> str:
    words = sys.argv[1:] if argv is None else argv
    first = next((w for w in words if not w.startswith("-")), None)
    return f"releval {first}" if first else "releval"


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _internal_error(exc: BaseException, argv: list[str] | None) -> int:
    """An exception releval did not expect: one line asking for a report, or the traceback with RELEVAL_DEBUG=1."""
    if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
        traceback.print_exception(type(exc), exc, exc.__traceback__)
    detail = _one_line(str(exc))
    _print_error(
        f"internal error ({type(exc).__name__}{': ' + detail if detail else ''}) in '{_command_words(argv)}'; "
        f"please report it to the releval developers with the output of the same command run with "
        f"{DEBUG_VARIABLE}=1"
    )
    return EXIT_FAILED


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app and return its exit code (docs/exit-codes-and-limits.md).

    0 ok, 1 findings, 2 bad input, usage or an unwritable output: releval's own errors and click's usage errors
    (unknown option, a value that is not a number, a missing argument) are one line `error: …`, not a traceback
    or typer's boxed usage panel. 3: the run failed for a reason that is not the input's fault — out of memory,
    or an internal error (a bug: one line asking for a report; RELEVAL_DEBUG=1 adds the traceback). SIGINT
    (Ctrl-C), SIGTERM and SIGHUP end the run cleanly (temporary output files removed) with one line and exit
    128 + the signal's number (130, 143, 129); a closed stdout (`| head -1`) ends it quietly with 141.
    """
    try:
        if (sys.argv[1:] if argv is None else list(argv)) == ["--version"]:
            return _print_version()
        from releval.data.io import recording_inputs

        with _signals_raise(), recording_inputs():
            register_commands(argv)
            return _run_app(argv)
    except Signalled as exc:
        return _signal_exit(exc.signum)
    except KeyboardInterrupt:  # before the handler was installed, or outside the main thread
        _print_error("interrupted")
        return 128 + signal.SIGINT
    except MemoryError:
        _print_error(
            f"out of memory while running '{_command_words(argv)}': the inputs need more memory than this machine "
            "has (see docs/exit-codes-and-limits.md)"
        )
        return EXIT_FAILED
    except BrokenPipeError:
        return _stdout_closed()
    except Exception as exc:
        return _internal_error(exc, argv)


def _print_version() -> int:
    """`releval --version` alone: the line the app's `--version` prints (and flushes, as click's echo does), without
    importing typer or building the app; any other use of `--version` goes through the app."""
    sys.stdout.write(VERSION_LINE + "\n")
    sys.stdout.flush()
    return EXIT_OK


def _run_app(argv: list[str] | None) -> int:
    """The app run in-process: releval's and click's errors as one line and exit 2; others propagate to `main`."""
    import typer

    click_exception = _click_exception()
    try:
        result = _app()(args=argv, prog_name="releval", standalone_mode=False)
    except OptionError as exc:  # the library names a parameter; the user typed its flag
        from releval.commands.flags import flag_message

        _print_error(flag_message(exc, _leaf_command(argv)))
        return EXIT_BAD_INPUT
    except RelevalError as exc:
        _print_error(str(exc))
        return EXIT_BAD_INPUT
    except click_exception as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # a group called without a command (click >= 8.2): its help
            typer.echo(exc.format_message())  # type: ignore[attr-defined]  # as older click prints it, exit 0
            return EXIT_OK
        message = exc.format_message()  # type: ignore[attr-defined]
        ctx = getattr(exc, "ctx", None)
        if ctx is not None:
            message += f" (see '{ctx.command_path} --help')"
        _print_error(message)
        return EXIT_BAD_INPUT
    except typer.Abort as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # older click: Ctrl-C outside our handler
            _print_error("interrupted")
            return 128 + signal.SIGINT
        _print_error("aborted")
        return EXIT_FINDINGS
    except SystemExit as exc:
        cause = exc.__context__
        if isinstance(cause, OSError) and cause.errno == errno.EPIPE:  # click's handling of a closed stdout
            return _stdout_closed()
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return result if isinstance(result, int) and not isinstance(result, bool) else EXIT_OK


def run() -> None:
    """Console-script entry: flush and leave without interpreter teardown.

    Freeing millions of loaded ids and labels one by one at exit costs a noticeable share of a large scoring run;
    every output is already written atomically and flushed, so nothing is lost by skipping it. A Ctrl-C that
    arrives before `main` has installed its handler (while the command's modules are imported) is one line too.
    """
    try:
        code = main()
    except KeyboardInterrupt:
        _print_error("interrupted")
        code = 128 + signal.SIGINT
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = _stdout_closed()
    except ValueError:
        code = code or 1
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)
