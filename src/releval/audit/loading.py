"""Tolerant loading for the audit: repeated ids become data (every one, with its line), not a stop at the first.

The strict loaders in releval.data.labels refuse repeated ids (and cap their error lists). Here the records of a
file are listed once to find every repetition; the file is then reloaded by the strict loader without the repeated
records (first occurrence kept) and the line numbers mapped back to the original file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from releval.core.signature import short_hash
from releval.data.decoding import decode_text, to_utf8
from releval.data.delimited import read_records, text_lines
from releval.data.io import PathLike, read_bytes
from releval.data.labels import LabelFile, load_labels, parse_labels, resolve_format
from releval.errors import InputError, InputErrors

_REPEATED = re.compile(r"^id (.*) repeated \(first on (?:line|record) \d+\)$")
_SEMEVAL_BLOCK = re.compile(r'^([0-9]+)\t"')


@dataclass(frozen=True)
class Repeat:
    """One repeated record: its id, where it is, and where the id first occurred (lines, or records for JSON lists)."""

    id: str
    line: int
    first_line: int


@dataclass(frozen=True)
class Loaded:
    """A file as far as it could be read: the items (None if unreadable), every repeated id, and blocking problems."""

    role: str
    path: str
    file: LabelFile | None
    repeats: list[Repeat] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)


def load_tolerant(
    path: PathLike, role: str, *, format: str | None = None, id_field: str = "id", label_field: str | None = None
) -> Loaded:
    """Load like `load_labels`, but collect repeated ids instead of failing; other problems are returned, not raised.

    A file that cannot be read at all (not found, a directory) still raises InputError: that is a usage error.
    The format is resolved as `load_labels` resolves it (with the id and label field names as header hints), so a
    TSV file with a header is never read as header-less `<id>\t<label>` lines here.
    """
    raw = read_bytes(path)
    name = str(path)
    loader_role = "pred" if role == "pred" else "gold"
    fields: dict[str, Any] = {"id_field": id_field, "label_field": label_field or None}
    try:
        return Loaded(role, name, load_labels(path, format=format, role=loader_role, **fields))
    except InputErrors as exc:
        errors = list(exc.errors)
    except InputError as exc:
        errors = [exc]
    if any(_REPEATED.match(e.message) is None for e in errors):
        return Loaded(role, name, None, errors=errors)
    data = to_utf8(raw, name)  # the strict loader read it, so this cannot fail
    fmt = resolve_format(path, data, format, id_field, label_field)
    spans = _record_spans(data, name, fmt, loader_role, fields)
    first: dict[str, int] = {}
    repeats: list[Repeat] = []
    dropped: list[tuple[int, int]] = []
    for item_id, start, end in spans:
        if item_id in first:
            repeats.append(Repeat(item_id, start, first[item_id]))
            dropped.append((start, end))
        else:
            first[item_id] = start
    try:
        loaded = _reload_without(name, data, fmt, dropped, loader_role, fields)
    except InputErrors as exc:
        return Loaded(role, name, None, repeats, list(exc.errors))
    except InputError as exc:
        return Loaded(role, name, None, repeats, [exc])
    return Loaded(role, name, replace(loaded, digest=short_hash(data, 16)), repeats)


def _record_spans(data: bytes, name: str, fmt: str, role: str, fields: dict[str, Any]) -> list[tuple[str, int, int]]:
    """(id, first line, last line) of every record, in file order; JSON lists count records instead of lines.

    The ids are read by the strict loader itself (repeats allowed), so an id here is spelled exactly as there:
    integers as their digits, however large.
    """
    if fmt == "semeval":
        lines = text_lines(decode_text(data, name), name)
        starts = [(m.group(1), i) for i, ln in enumerate(lines, 1) if (m := _SEMEVAL_BLOCK.match(ln))]
        ends = [s for _, s in starts[1:]] + [len(lines) + 1]
        return [(item_id, start, end - 1) for (item_id, start), end in zip(starts, ends)]
    if fmt in ("csv", "tsv"):
        records = read_records(decode_text(data, name), "," if fmt == "csv" else "\t", name)
        column = [h.strip() for h in records[0][2]].index(fields["id_field"])
        return [(row[column], start, end) for start, end, row in records[1:] if len(row) > column]
    loaded = parse_labels(data, name, fmt, role=role, check_unique=False, **fields)
    return [(item_id, n, n) for item_id, n in zip(loaded.ids or [], loaded.lines)]


def _reload_without(
    name: str, data: bytes, fmt: str, dropped: list[tuple[int, int]], role: str, fields: dict[str, Any]
) -> LabelFile:
    """The strict loader on the file minus the dropped records (no temporary file: `parse_labels` reads bytes);
    line or record numbers mapped back to the original file."""
    if fmt == "tacred-json":
        skip = {start for start, _ in dropped}
        records = msgspec.json.decode(data)  # integers of any size kept exact (orjson would make floats of some)
        kept = [i for i in range(1, len(records) + 1) if i not in skip]
        body = msgspec.json.encode([records[i - 1] for i in kept])
    else:
        skip = {n for start, end in dropped for n in range(start, end + 1)}
        raw_lines = data.split(b"\n")
        kept = [i for i in range(1, len(raw_lines) + 1) if i not in skip]
        body = b"\n".join(raw_lines[i - 1] for i in kept)
    try:
        out = parse_labels(body, name, fmt, role=role, **fields)
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
