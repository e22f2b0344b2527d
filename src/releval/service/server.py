"""`releval serve` and `releval worker`: the WSGI server (waitress) with in-process workers, or workers alone."""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from typing import Any

from releval.service import setup

#: The signals that stop `releval serve` and `releval worker` normally (a service manager's stop, Ctrl-C).
STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


class _Stop(BaseException):
    """Raised in the main thread by a stop signal (a BaseException: no `except Exception` swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_stop(signum: int, frame: object) -> None:
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)  # the process is stopping: a second signal must not cut it short
    raise _Stop(signum)


@contextlib.contextmanager
def stopped_by_signal() -> Iterator[list[str]]:
    """The block runs until SIGTERM, SIGINT or SIGHUP, which end it normally: the list yielded then holds the
    signal's name, and the caller says it stopped (one line, exit 0) — a service stopped by its manager is not an
    error (`error: terminated by SIGTERM` on every stop was). A signal ignored at start stays ignored (nohup)."""
    stopped: list[str] = []
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in STOP_SIGNALS:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                previous[sig] = signal.signal(sig, _raise_stop)
    try:
        yield stopped
    except _Stop as exc:
        stopped.append(signal.Signals(exc.signum).name)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _warning_line(
    message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None, line: Any = None
) -> None:
    """`warnings.showwarning` for the board's processes: one line `warning: …` in the log, without the Python
    source path and line that Python's default shows."""
    logging.getLogger("releval.service").warning("warning: %s", " ".join(str(message).split()))


def _say(line: str) -> None:
    """One line on stderr in one write: a log line of another thread cannot land inside it."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _one_line_logs() -> None:
    """The processes' log: `%(message)s` lines, warnings included (see `_warning_line`)."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    warnings.showwarning = _warning_line


def start(database_url: str | None = None, data_dir: str | None = None) -> None:
    """Configure Django and bring the schema up to date."""
    setup.configure(database_url, data_dir)
    setup.migrate()


def serve(host: str = "127.0.0.1", port: int = 8000, workers: int = 1, examples: bool = True, threads: int = 4) -> None:
    """Serve the board until interrupted; `workers` in-process worker threads do the jobs (0: leave them to
    `releval worker` processes)."""
    from waitress import create_server

    from releval.core.errors import OptionError
    from releval.service import queue
    from releval.service.bundled import load_examples
    from releval.service.wsgi import application

    _one_line_logs()
    try:  # bound first: a port already taken is one clear line (exit 2), before any example is loaded or job taken
        http = create_server(application, host=host, port=port, threads=threads, ident="releval")
    except OSError as exc:
        import errno

        reason = "address already in use" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc)).lower()
        raise OptionError(
            f"--port {port}: cannot listen on {host}:{port}: {reason} (another server there? choose another --port)",
            option="--port",
        ) from None
    if examples and not load_examples():
        print("releval serve: the example files are not installed; starting with no benchmark", file=sys.stderr)
    stop = threading.Event()
    pool = [threading.Thread(target=queue.work, args=(stop,), daemon=True, name=f"worker-{i}") for i in range(workers)]
    for t in pool:
        t.start()
    print(f"releval board on http://{host}:{port}/ ({workers} in-process worker(s))", file=sys.stderr, flush=True)
    # waitress runs in its own thread and the main thread only waits: a signal's exception (SIGTERM, SIGINT: the
    # command line's clean exit) is raised here, never inside waitress's event loop, which catches every exception
    # of a connection's handler, logs it, and goes on serving (a SIGTERM then did not stop the board).
    failed: list[BaseException] = []

    def _serve_http() -> None:
        try:
            http.run()
        except BaseException as exc:  # handed to the main thread, which raises it
            failed.append(exc)

    loop = threading.Thread(target=_serve_http, daemon=True, name="http")
    with stopped_by_signal() as stopped:
        loop.start()
        try:
            while loop.is_alive():
                loop.join(0.5)
            if failed:
                raise failed[0]
        finally:
            stop.set()
            queue.wake_workers()  # an idle worker sees `stop` now, not at its next poll
            for t in pool:
                t.join(timeout=5)  # daemon threads: a job cut short is leased, and retried by the next worker
    if stopped:
        _say(f"releval board stopped ({stopped[0]})")


def work(burst: bool = False, poll: float = 0.2) -> int:
    """Do jobs until interrupted (or, with `burst`, until the queue is empty)."""
    from releval.service import queue

    _one_line_logs()
    done = 0
    with stopped_by_signal() as stopped:  # a job cut short is leased, and retried by the next worker
        done = queue.work(poll=poll, burst=burst)
    if stopped:
        _say(f"releval worker stopped ({stopped[0]})")
    return done
