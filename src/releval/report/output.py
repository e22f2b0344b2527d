"""Writing results: all or nothing, so a failed run never leaves a partial output file.

`write_atomic` writes a temporary file next to the target and renames it over the target. A rename replaces
whatever the name points at, so the target is checked first: a symbolic link, a FIFO, a device node (`-o /dev/null`
run as root would replace the system's /dev/null with a regular file) or a socket is refused, and so is a file
that is an input of the same run (the same path or the same inode), which the rename would destroy.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from releval.core.errors import OutputError

#: What each non-regular file type is called in an error message.
_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)

#: Signals deferred while the temporary file is being created, so that the handler that removes it (installed by
#: the command line for the whole run) always knows its name.
_DEFERRED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def check_target(path: str | os.PathLike[str], what: str = "output") -> Path:
    """`path` when `write_atomic` may replace it: missing, or an existing regular file (not a link to one).

    Anything else is refused with an OutputError naming `what`: a directory, a symbolic link (the rename would
    replace the link, not write where it points: give the link's target instead), a FIFO, a device node or a socket
    (the rename would put a regular file in its place; print to stdout and redirect it instead).
    """
    target = Path(path)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return target
    except OSError as exc:  # e.g. a parent that is a file (ENOTDIR) or not searchable: the write would fail too
        raise OutputError(
            f"cannot write {what} '{target}': {exc.strerror or exc}", errno=exc.errno, filename=str(target)
        ) from None
    if stat.S_ISLNK(info.st_mode):
        raise OutputError(
            f"cannot write {what} '{target}': it is a symbolic link (to '{os.readlink(target)}'); give the file "
            "it points to, or another name",
            filename=str(target),
        )
    if stat.S_ISDIR(info.st_mode):
        raise OutputError(f"cannot write {what} '{target}': it is a directory", filename=str(target))
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
        raise OutputError(
            f"cannot write {what} '{target}': it is {kind}, not a regular file; leave out {what} and redirect "
            "stdout instead",
            filename=str(target),
        )
    return target


def check_not_input(
    path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]], what: str = "output"
) -> None:
    """Refuse (OutputError) to write `path` when it is one of `inputs`: the same path, or the same file by inode.

    Replacing an input would destroy data the run was given (`releval score gold pred -o pred`); a hard link or a
    symbolic link to an input counts as the input (os.path.samefile).
    """
    target = Path(path)
    if not target.exists():
        return
    for item in inputs:
        try:
            same = os.path.samefile(target, item)
        except OSError:  # the input is gone or unreadable: it cannot be the target
            continue
        if same:
            shown = f" ('{item}')" if os.fspath(item) != os.fspath(target) else ""
            raise OutputError(
                f"cannot write {what} '{target}': it is an input of this run{shown}; choose another file name",
                filename=str(target),
            )


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT/SIGTERM/SIGHUP back (delivered when the block ends) where POSIX allows it, else do nothing."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None or not _DEFERRED:
        yield
        return
    old = mask(signal.SIG_BLOCK, _DEFERRED)
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, old)


def write_atomic(
    path: str | os.PathLike[str],
    text: str | bytes,
    *,
    what: str = "output",
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> None:
    """Write text (UTF-8) or bytes to `path` through a temporary file in the same folder and an atomic rename.

    Missing parent folders are created. Refused before anything is written (OutputError naming `what`, e.g.
    "--output", and the path; the target is left as it was): a target that is not a regular file or a missing
    name (`check_target`), and one of `inputs`, the files the run read (`check_not_input`). Any failure while
    writing (no permission, a full disk) raises OutputError too; the temporary file and the folders made for it
    are removed, so nothing is left behind. That holds for an exception raised by a signal handler as well
    (the command line turns SIGTERM and SIGHUP into one): the temporary file is created with those signals held
    back, so its name is always known to the clean-up.
    """
    target = check_target(path, what)
    check_not_input(target, inputs, what)
    made = [p for p in reversed(target.parents) if not p.exists()]
    tmp: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _signals_deferred():
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would make results unreadable to the group
        check_target(target, what)  # again: a link or FIFO made meanwhile would be replaced by the rename
        os.replace(tmp, target)
    except BaseException as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                break
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            reason = exc.strerror or str(exc)
            raise OutputError(
                f"cannot write {what} '{target}': {reason}", errno=exc.errno, filename=str(target)
            ) from exc
        raise
