"""Tolerant loading for the audit: repeated ids become data (every one, with its line), not a stop at the first.

The strict loaders in releval.data.labels refuse repeated ids (and cap their error lists). Here the records of a
file are listed once by its format (`record_spans`) to find every repetition; the bytes are then parsed again by
the strict loader without the repeated records (first occurrence kept; `without_records`, no temporary file) and
the line numbers mapped back to the original file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from releval.core.errors import InputError, InputErrors
from releval.core.signature import short_hash
from releval.data.decoding import to_utf8
from releval.data.formats import END_TO_END_MESSAGE, E2EFormat, LabelFormat
from releval.data.formats.base import Fields
from releval.data.io import PathLike, read_bytes
from releval.data.labels import EndToEndFile, LabelFile, find_format, parse_labels

_REPEATED = re.compile(r"^id (.*) repeated \(first on (?:line|record) \d+\)$")


@dataclass(frozen=True)
class Repeat:
    """One repeated record: its id, where it is, and where the id first occurred (lines, or records for JSON lists)."""

    id: str
    line: int
    first_line: int


@dataclass(frozen=True)
class Loaded:
    """A file as far as it could be read: the items (None if unreadable), every repeated id, and blocking problems;
    `end_to_end`: the file is an end-to-end RE file (entities and relations), for `audit_e2e`."""

    role: str
    path: str
    file: LabelFile | None
    repeats: list[Repeat] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    end_to_end: bool = False


def load_tolerant(
    path: PathLike, role: str, *, format: str | None = None, id_field: str = "id", label_field: str | None = None
) -> Loaded:
    """Load like `load_labels`, but collect repeated ids instead of failing; other problems are returned, not raised.

    A file that cannot be read at all (not found, a directory) still raises InputError: that is a usage error.
    The format is resolved as `load_labels` resolves it (with the id and label field names as header hints), so a
    TSV file with a header is never read as header-less `<id>\t<label>` lines here. An end-to-end file (detected,
    when no format is named) is `end_to_end`, with the error `load_labels` would raise.
    """
    raw = read_bytes(path)
    name = str(path)
    fields = Fields("pred" if role == "pred" else "gold", id_field, label_field or None)
    try:
        data = to_utf8(raw, name)
        found = find_format(path, data, format, id_field, label_field)
    except InputError as exc:
        return Loaded(role, name, None, errors=[exc])
    if isinstance(found, E2EFormat):
        return Loaded(role, name, None, errors=[EndToEndFile(END_TO_END_MESSAGE, file=name)], end_to_end=True)
    try:
        return Loaded(role, name, _parse(data, name, found, fields))
    except (InputError, InputErrors) as exc:
        errors = _listed(exc)
    if any(_REPEATED.match(e.message) is None for e in errors):
        return Loaded(role, name, None, errors=errors)
    first: dict[str, int] = {}
    repeats: list[Repeat] = []
    dropped: list[tuple[int, int]] = []
    for item_id, start, end in found.record_spans(data, name, fields):
        if item_id in first:
            repeats.append(Repeat(item_id, start, first[item_id]))
            dropped.append((start, end))
        else:
            first[item_id] = start
    try:
        loaded = _reload_without(name, data, found, dropped, fields)
    except (InputError, InputErrors) as exc:
        return Loaded(role, name, None, repeats, _listed(exc))
    return Loaded(role, name, replace(loaded, digest=short_hash(data, 16)), repeats)


def _listed(exc: InputError | InputErrors) -> list[InputError]:
    return list(exc.errors) if isinstance(exc, InputErrors) else [exc]


def _parse(data: bytes, name: str, format: LabelFormat, fields: Fields) -> LabelFile:
    """The strict loader (`parse_labels`: the format's parser, the empty-file check, the digest)."""
    return parse_labels(
        data, name, format.name, role=fields.role, id_field=fields.id_field, label_field=fields.label_field
    )


def _reload_without(
    name: str, data: bytes, format: LabelFormat, dropped: list[tuple[int, int]], fields: Fields
) -> LabelFile:
    """The strict loader on the file minus the dropped records (`without_records`, in memory); line or record
    numbers mapped back to the original file."""
    body, kept = format.without_records(data, dropped)
    try:
        out = _parse(body, name, format, fields)
    except InputError as exc:
        raise _relocated(exc, kept) from None
    except InputErrors as exc:
        raise InputErrors([_relocated(e, kept) for e in exc.errors]) from None
    return replace(out, lines=[kept[n - 1] for n in out.lines])


def _relocated(error: InputError, kept: list[int]) -> InputError:
    """An error of the reloaded copy, pointing at the original file's line or record."""

    def original(n: int | None) -> int | None:
        return kept[n - 1] if n is not None and 0 < n <= len(kept) else None

    return InputError(
        error.message, file=error.file, line=original(error.line), field=error.field, record=original(error.record)
    )
