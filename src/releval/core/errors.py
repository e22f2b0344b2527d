"""Exceptions for bad input: each names the file, line/record and field, so the CLI can print one clear line."""

from __future__ import annotations

from collections.abc import Sequence


class RelevalError(Exception):
    """Base class: anything the CLI reports as a clean error with exit code 2."""


MAX_MESSAGE = 1000


def shorten(message: str, limit: int = MAX_MESSAGE) -> str:
    """The message cut to `limit` characters by eliding its middle, saying how much was left out.

    Messages quote what they refuse (an id, a header cell, a dataset name); a hostile file may hold a 128 KiB
    field, and echoing it whole would bury the location in a wall of text. The head (what is wrong) and the tail
    (what to do) are kept.

    >>> shorten("id " + "x" * 2000 + " repeated", 60)
    'id xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx … [1964 characters] … xxx repeated'
    """
    if len(message) <= limit:
        return message
    head, tail = (limit * 3) // 5, limit // 5
    return f"{message[:head]} … [{len(message) - head - tail} characters] … {message[-tail:]}"


class InputError(RelevalError):
    """A problem with one input record, located by file, line (1-based) or record, and field.

    `record` (1-based) locates an item of a file that is one JSON document (a TACRED list), where a line number
    would be meaningless: it prints as `file: record 3: field 'relation': message`.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
        record: int | None = None,
    ) -> None:
        self.message = shorten(message)
        self.file = file
        self.line = line
        self.field = field
        self.record = record
        super().__init__(self.location() + self.message)

    def location(self) -> str:
        """The `file:line: record N: field 'x': ` prefix (parts omitted when unknown)."""
        parts = []
        if self.file is not None:
            parts.append(str(self.file) + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.record is not None:
            parts.append(f"record {self.record}")
        if self.field is not None:
            parts.append(f"field '{self.field}'")
        return (": ".join(parts) + ": ") if parts else ""


class InputErrors(RelevalError):
    """Several input problems found in one pass: all are reported, not just the first."""

    def __init__(self, errors: Sequence[InputError], limit: int = 20) -> None:
        self.errors = list(errors)
        shown = [str(e) for e in self.errors[:limit]]
        more = len(self.errors) - len(shown)
        if more > 0:
            shown.append(f"... and {more} more problem(s)")
        super().__init__(f"{len(self.errors)} input problem(s):\n  " + "\n  ".join(shown))


def raise_all(errors: Sequence[InputError]) -> None:
    """Raise the single error as is, several as one InputErrors, nothing if empty."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise InputErrors(errors)


class OptionError(InputError, ValueError):
    """A parameter value, path or combination of parameters that cannot be used, named by its CLI spelling.

    It is a ValueError, so Python callers' `except ValueError` keeps working; a RelevalError, so the CLI prints it
    as one line and exits 2 (exit 1 means findings); and an InputError, because a parameter value is input too: the
    option checks that used to raise InputError (alpha, identification method, …) still match `except InputError`,
    and a wrapper that locates a table row (`check-stats --table`) can add its file and line.
    """

    def __init__(self, message: str, *, option: str | None = None, file: str | None = None, line: int | None = None):
        self.option = option
        super().__init__(message, file=file, line=line)


class OutputError(RelevalError, OSError):
    """An output file that cannot be written (a directory, a parent that cannot be made, no permission).

    An OSError for Python callers of `write_atomic`, a RelevalError so the CLI prints one line and exits 2.
    """

    def __init__(self, message: str, *, errno: int | None = None, filename: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.errno = errno  # type: ignore[assignment]  # OSError's errno is None when unknown
        self.filename = filename

    def __str__(self) -> str:
        return self.message  # OSError's own form would be "[Errno 28] None: 'path'" once errno is set
