"""Writing results: all or nothing, so a failed run never leaves a partial output file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from releval.errors import OutputError


def write_atomic(path: str | os.PathLike[str], text: str | bytes, *, what: str = "output") -> None:
    """Write text (UTF-8) or bytes to `path` through a temporary file in the same folder and an atomic rename.

    Missing parent folders are created. Any failure (the path is a directory, a parent cannot be made, no
    permission, a full disk) raises OutputError, an OSError that names `what` (e.g. "--output") and the path;
    the temporary file and the folders made for it are removed, so nothing is left behind.
    """
    target = Path(path)
    if target.is_dir():
        raise OutputError(f"cannot write {what} '{target}': it is a directory", filename=str(target))
    made = [p for p in reversed(target.parents) if not p.exists()]
    tmp: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would make results unreadable to the group
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
