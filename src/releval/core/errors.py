"""Exceptions for bad input: each names the file, line/record and field, so the CLI can print one clear line."""

from __future__ import annotations

import re
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


#: Problems a reader lists per file: it stops reading the file at this many (a file whose every line is wrong
#: would otherwise list every line).
MAX_ERRORS = 50
#: Quoted text and numbers: what differs between two records' messages about the same problem.
_VARYING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\d+")
#: A group of alike problems with more members than this is said in one line even when their quoted values differ.
ALIKE_SHOWN = 3


def problem_kind(error: InputError) -> tuple[str | None, str | None, str | None, str]:
    """What makes two input problems the same problem: their dataset (replicability's DatasetInputError), file,
    field and message with quoted values and numbers left out (`expected '<id>\\t<label>', got '7'` and `… got '8'`
    are one kind).

    >>> a = InputError("expected '<id>\\t<label>', got '7'", file="p.tsv", line=7)
    >>> problem_kind(a) == problem_kind(InputError("expected '<id>\\t<label>', got '8 x'", file="p.tsv", line=8))
    True
    """
    return getattr(error, "dataset", None), error.file, error.field, _VARYING.sub("#", error.message)


def _places(errors: Sequence[InputError], limit: int = 5) -> str:
    """`lines 2, 3, 4, 5, 6, … 50`: where the problems are (lines, else records, else a count of times)."""
    at = [e.line for e in errors] if all(e.line is not None for e in errors) else None
    unit = "line"
    if at is None and all(e.record is not None for e in errors):
        at, unit = [e.record for e in errors], "record"
    if at is None:
        return f"{len(errors)} more time(s)"
    shown = ", ".join(str(n) for n in at[:limit]) + (f", … {at[-1]}" if len(at) > limit else "")
    return f"{len(errors)} more {unit}{'s' if len(errors) > 1 else ''} ({shown})"


def grouped_problems(errors: Sequence[InputError]) -> list[str]:
    """One line per problem, alike problems said once: the first of a kind (`problem_kind`) in full, then where
    else it occurs — when their messages are the same text, or when more than ALIKE_SHOWN share the kind (a file
    whose every record fails says its problem once, not once per record). A few alike problems with different
    quoted values (two different misspelt labels) keep a line each, in the order found.

    >>> rows = [InputError("label 'Other ' has trailing white space", file="p.tsv", line=n, field="label")
    ...         for n in range(1, 51)]
    >>> print(*grouped_problems(rows))
    p.tsv:1: field 'label': label 'Other ' has trailing white space — the same problem at 49 more lines
    (2, 3, 4, 5, 6, … 50)
    """
    kinds: dict[tuple[str | None, str | None, str | None, str], list[InputError]] = {}
    for e in errors:
        kinds.setdefault(problem_kind(e), []).append(e)
    lines: list[str] = []
    said: set[tuple[str | None, str | None, str | None, str]] = set()
    for e in errors:
        kind = problem_kind(e)
        alike = kinds[kind]
        if len(alike) > 1 and (len(alike) > ALIKE_SHOWN or len({a.message for a in alike}) == 1):
            if kind not in said:
                said.add(kind)
                lines.append(f"{alike[0]} — the same problem at {_places(alike[1:])}")
        else:
            lines.append(str(e))
    return lines


class InputErrors(RelevalError):
    """Several input problems found in one pass: all are reported, not just the first. Alike problems are said
    once (`grouped_problems`): when every record of a file has the same problem, the message is one line."""

    def __init__(self, errors: Sequence[InputError], limit: int = 20) -> None:
        self.errors = list(errors)
        grouped = grouped_problems(self.errors)
        stopped = f"(a reader lists at most {MAX_ERRORS} problems per file)" if len(self.errors) >= MAX_ERRORS else ""
        if len(grouped) == 1:
            super().__init__(f"{grouped[0]} {stopped}".rstrip())
            return
        shown = grouped[:limit]
        more = len(grouped) - len(shown)
        if more > 0:
            shown.append(f"... and {more} more problem(s)")
        if stopped:
            shown.append(stopped)
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
