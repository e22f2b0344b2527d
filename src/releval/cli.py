"""The `releval` command line: a thin click layer over the public API; bad input exits 2 with one clear message.

Start-up is part of every run, so this module does not import click: the click group is built on first use
(`app`, resolved by the module's `__getattr__`), a command's module is imported only when that command is looked
up (a run imports the module of the command it invokes; `releval --help` lists the commands from `_SUMMARIES`
and imports none), and `releval --version` prints without any of it.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from releval._version import __version__
from releval.core.errors import OptionError, RelevalError

if TYPE_CHECKING:
    import click

#: Exit codes (docs/exit-codes-and-limits.md); a signal ends the run with 128 + its number (SIGINT 130, SIGTERM 143).
EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT, EXIT_FAILED = 0, 1, 2, 3
#: The environment variable that makes an internal error print its traceback.
DEBUG_VARIABLE = "RELEVAL_DEBUG"
#: The signals a run turns into a clean exit (temporary output files removed, one line on stderr).
HANDLED_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))

#: What `releval --version` prints, with or without the click group.
VERSION_LINE = f"releval {__version__}"
#: The help's description of the whole program.
DESCRIPTION = "Honest, comparable evaluation of relation extraction and classification."

# Each module in releval.commands exposes `register(app)`, which adds the commands listed here to the group. Looked
# up by name, a command imports its module only then (start-up time is part of every scoring run); `releval --help`
# lists them in this order.
_COMMANDS: dict[str, str] = {
    "score": "releval.commands.score",
    "stats": "releval.commands.stats",
    "compare": "releval.commands.compare",
    "check-stats": "releval.commands.compare",
    "replicability": "releval.commands.replicability",
    "audit": "releval.commands.audit",
    "claims": "releval.commands.audit",
    "plot": "releval.commands.plot",
    "serve": "releval.commands.service",
    "worker": "releval.commands.service",
    "token": "releval.commands.service",
    "benchmark": "releval.commands.service",
    "submit": "releval.commands.service",
}
#: Each command's line in `releval --help`: the first paragraph of its help, written out so that listing the
#: commands imports none of their modules (some import NumPy for their constants). tests/test_startup_imports.py
#: checks that each is its command's own.
_SUMMARIES: dict[str, str] = {
    "score": "Score predictions against gold under micro, weighted, dodrans, entropy and macro averaging.",
    "stats": "Dataset statistics: #relations, #samples, % negative, perplexity with/without negative, ratio.",
    "compare": "Compare systems on one test set: paired tests (one file per system) or Welch/Cohen over seeds "
    "(several).",
    "check-stats": "Check published mean ± sd comparisons: the Welch t, p and Cohen's d compatible with the rounding.",
    "replicability": "Replicability analysis across datasets: on how many datasets is A better than B, and which ones.",
    "audit": "Audit an evaluation (GOLD PRED, or `run GOLD PRED`) or a comparison of saved results (`compare`).",
    "claims": "Published results with their evaluation settings.",
    "plot": "Draw a figure from label files: class weights, per-class F, the bootstrap Δ, a confusion matrix.",
    "serve": "Start the leaderboard: submit predictions, every measure computed, a new measure re-scores every entry.",
    "worker": "Take the board's scoring jobs from the queue in its database and do them (as many processes as wanted).",
    "token": "Create a submitter and print their token (shown once: the board keeps only its hash).",
    "benchmark": "Add a benchmark to the board from its gold file (kept by the server, never served).",
    "submit": "Submit a run's predictions to a board; prints the stored run (JSON), with its scores once computed.",
}
_built: list[click.Group] = []  # the group, once built


def _app() -> click.Group:
    """The root click group with its `--version` option, built on first use; it imports a command's module when
    the command is first looked up."""
    if not _built:
        import click

        from releval.commands.base import Group

        class Root(Group):
            def list_commands(self, ctx: click.Context) -> list[str]:
                return list(dict.fromkeys([*_COMMANDS, *self.commands]))

            def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
                if cmd_name not in self.commands and cmd_name in _COMMANDS:
                    _register(_COMMANDS[cmd_name])
                return self.commands.get(cmd_name)

            def summary(self, ctx: click.Context, name: str) -> str | None:
                if name in _SUMMARIES and name not in self.commands:
                    return _SUMMARIES[name]
                return super().summary(ctx, name)

        def _version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
            if value and not ctx.resilient_parsing:
                click.echo(VERSION_LINE)
                ctx.exit()

        version = click.Option(
            ["--version"],
            is_flag=True,
            expose_value=False,
            is_eager=True,
            callback=_version,
            help="Print the version.",
        )
        _built.append(
            Root(
                "releval",
                help=DESCRIPTION,
                params=[version],
                no_args_is_help=True,
                context_settings={
                    "help_option_names": ["-h", "--help"],
                    "show_default": True,
                    "max_content_width": 120,
                },
            )
        )
    return _built[0]


def __getattr__(name: str) -> Any:
    """`releval.cli.app`: the root click group, built on first access (PEP 562)."""
    if name == "app":
        return _app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_registered: set[str] = set()  # the command modules whose commands the group holds


def _register(module: str) -> None:
    if module not in _registered:
        importlib.import_module(module).register(_app())
        _registered.add(module)


def register_commands(argv: list[str] | None = None) -> None:
    """Add to the group the module of the command named in `argv`, or every module (for an empty `argv`, help or an
    unknown name), so that `app.commands` holds them; a run needs none of this (the group imports on look-up)."""
    words = sys.argv[1:] if argv is None else argv
    first = next((w for w in words if not w.startswith("-")), None)
    for module in dict.fromkeys([_COMMANDS[first]] if first in _COMMANDS else _COMMANDS.values()):
        _register(module)


def _print_error(message: str) -> None:
    """One line on stderr, `error: ` first (bold red on a terminal); never wrapped.

    A stderr that cannot be written (its terminal hung up, a closed pipe) loses the message, not the exit code.
    """
    with contextlib.suppress(OSError, ValueError, AttributeError):
        prefix = "error:"
        if _styled(sys.stderr):
            prefix = ("\x1b[1m" if os.environ.get("NO_COLOR") else "\x1b[1;31m") + prefix + "\x1b[0m"
        sys.stderr.write(f"{prefix} {message}\n")
        sys.stderr.flush()


def _styled(stream: Any) -> bool:
    """Whether `stream` takes terminal styles: a terminal other than TERM=dumb, or FORCE_COLOR set (NO_COLOR drops
    the colour, not the bold)."""
    if os.environ.get("TERM", "").lower() in ("dumb", "unknown"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or bool(stream.isatty())


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
    import click

    command: click.Command = _app()
    for word in sys.argv[1:] if argv is None else argv:
        if not isinstance(command, click.Group):
            break
        child = command.get_command(click.Context(command), word)
        if child is None:
            break
        command = child
    return None if isinstance(command, click.Group) else command


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
    or click's usage block. 3: the run failed for a reason that is not the input's fault — out of memory,
    or an internal error (a bug: one line asking for a report; RELEVAL_DEBUG=1 adds the traceback). SIGINT
    (Ctrl-C), SIGTERM and SIGHUP end the run cleanly (temporary output files removed) with one line and exit
    128 + the signal's number (130, 143, 129); a closed stdout (`| head -1`) ends it quietly with 141.
    """
    try:
        if (sys.argv[1:] if argv is None else list(argv)) == ["--version"]:
            return _print_version()
        from releval.data.io import recording_inputs

        with _signals_raise(), recording_inputs():
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
    """`releval --version` alone: the line the group's `--version` prints (and flushes, as click's echo does),
    without importing click or building the group; any other use of `--version` goes through the group."""
    sys.stdout.write(VERSION_LINE + "\n")
    sys.stdout.flush()
    return EXIT_OK


def _run_app(argv: list[str] | None) -> int:
    """The group run in-process: releval's and click's errors as one line and exit 2; others propagate to `main`.

    The group is run by hand rather than by click's `main`, which would turn a closed stdout and a Ctrl-C into exit
    codes and messages of its own (differently from one click version to the next) and offer shell completion.
    """
    import click

    app = _app()
    try:
        with app.make_context("releval", list(sys.argv[1:] if argv is None else argv)) as ctx:
            result = app.invoke(ctx)
    except click.exceptions.Exit as exc:  # `--version`, a help, or a command's own exit status
        return exc.exit_code
    except OptionError as exc:  # the library names a parameter; the user typed its flag
        from releval.commands.flags import flag_message

        _print_error(flag_message(exc, _leaf_command(argv)))
        return EXIT_BAD_INPUT
    except RelevalError as exc:
        _print_error(str(exc))
        return EXIT_BAD_INPUT
    except click.ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # a group called without a command (click >= 8.2): its help
            click.echo(exc.format_message())  # as older click prints it, exit 0
            return EXIT_OK
        message = exc.format_message()
        where = getattr(exc, "ctx", None)
        if where is not None:
            message += f" (see '{where.command_path} --help')"
        _print_error(message)
        return EXIT_BAD_INPUT
    except click.Abort:
        _print_error("aborted")
        return EXIT_FINDINGS
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
