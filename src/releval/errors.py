"""Exceptions for bad input: each names the file, line/record and field, so the CLI can print one clear line."""

from __future__ import annotations

from collections.abc import Sequence


class RelevalError(Exception):
    """Base class: anything the CLI reports as a clean error with exit code 2."""


class InputError(RelevalError):
    """A problem with one input record, located by file, line (1-based) or record, and field."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        super().__init__(self.location() + message)

    def location(self) -> str:
        """The `file:line: field: ` prefix (parts omitted when unknown)."""
        parts = []
        if self.file is not None:
            parts.append(str(self.file) + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            parts.append(f"line {self.line}")
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
