"""Tolerant loading for the audit: repeated ids become data (every one, with its line), not a stop at the first.

The strict loaders in releval.data.labels refuse repeated ids (and cap their error lists). Here the records of a
file are listed once to find every repetition; the file is then reloaded by the strict loader without the repeated
records (first occurrence kept) and the line numbers mapped back to the original file.
"""

from __future__ import annotations

import csv
import io
import os
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import orjson

from releval.data.io import PathLike, read_bytes, split_lines
from releval.data.labels import LabelFile, detect_format, load_labels
from releval.errors import InputError, InputErrors
from releval.report.signature import short_hash

_REPEATED = re.compile(r"^id (.*) repeated \(first on (?:line|record) \d+\)$")
_SEMEVAL_BLOCK = re.compile(r'^(\d+)\t"')


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
    """
    data = read_bytes(path)
    loader_role = "pred" if role == "pred" else "gold"
    fields = {"id_field": id_field, **({"label_field": label_field} if label_field else {})}
    try:
        return Loaded(role, str(path), load_labels(path, format=format, role=loader_role, **fields))
    except InputErrors as exc:
        errors = list(exc.errors)
    except InputError as exc:
        errors = [exc]
    if any(_REPEATED.match(e.message) is None for e in errors):
        return Loaded(role, str(path), None, errors=errors)
    fmt = format or detect_format(path, data)
    spans = _record_spans(data, fmt, id_field)
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
        loaded = _reload_without(path, data, fmt, dropped, loader_role, fields)
    except InputErrors as exc:
        return Loaded(role, str(path), None, repeats, list(exc.errors))
    except InputError as exc:
        return Loaded(role, str(path), None, repeats, [exc])
    return Loaded(role, str(path), loaded, repeats)


def _record_spans(data: bytes, fmt: str, id_field: str) -> list[tuple[str, int, int]]:
    """(id, first line, last line) of every record, in file order; JSON lists count records instead of lines."""
    if fmt == "tacred-json":
        return [(str(r.get(id_field)), i, i) for i, r in enumerate(orjson.loads(data), 1)]
    text = data.decode("utf-8-sig")
    lines = split_lines(text)
    if fmt in ("jsonl", "tacrev-jsonl"):
        return [(str(orjson.loads(ln).get(id_field)), i, i) for i, ln in enumerate(lines, 1) if ln.strip()]
    if fmt in ("id-tsv", "semeval-tsv"):
        return [(ln.split("\t", 1)[0], i, i) for i, ln in enumerate(lines, 1) if ln.strip()]
    if fmt == "semeval":
        starts = [(m.group(1), i) for i, ln in enumerate(lines, 1) if (m := _SEMEVAL_BLOCK.match(ln))]
        ends = [s for _, s in starts[1:]] + [len(lines) + 1]
        return [(item_id, start, end - 1) for (item_id, start), end in zip(starts, ends)]
    if fmt in ("csv", "tsv"):
        reader = csv.reader(io.StringIO(text), delimiter="," if fmt == "csv" else "\t")
        header = [h.strip() for h in next(reader)]
        column = header.index(id_field)
        spans, previous = [], reader.line_num
        for row in reader:
            if len(row) > column:
                spans.append((row[column], previous + 1, reader.line_num))
            previous = reader.line_num
        return spans
    return []


def _reload_without(
    path: PathLike, data: bytes, fmt: str, dropped: list[tuple[int, int]], role: str, fields: dict[str, str]
) -> LabelFile:
    """The strict loader on the file minus the dropped records; line numbers mapped back to the original file."""
    if fmt == "tacred-json":
        skip = {start for start, _ in dropped}
        records = orjson.loads(data)
        kept = [i for i in range(1, len(records) + 1) if i not in skip]
        body = orjson.dumps([records[i - 1] for i in kept])
    else:
        skip = {n for start, end in dropped for n in range(start, end + 1)}
        raw_lines = data.split(b"\n")
        kept = [i for i in range(1, len(raw_lines) + 1) if i not in skip]
        body = b"\n".join(raw_lines[i - 1] for i in kept)
    suffix = "".join(Path(str(path)).suffixes[-2:]).removesuffix(".gz") or ".txt"
    fd, tmp = tempfile.mkstemp(prefix="releval-audit-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(body)
        out = load_labels(tmp, format=fmt, role=role, **fields)
    except InputError as exc:
        raise _relocated(exc, path, kept, fmt) from None
    except InputErrors as exc:
        raise InputErrors([_relocated(e, path, kept, fmt) for e in exc.errors]) from None
    finally:
        Path(tmp).unlink(missing_ok=True)
    return replace(out, path=str(path), lines=[kept[n - 1] for n in out.lines], digest=short_hash(data, 16))


def _relocated(error: InputError, path: PathLike, kept: list[int], fmt: str) -> InputError:
    """An error of the reloaded copy, pointing at the original file and line."""
    line = kept[error.line - 1] if error.line is not None and 0 < error.line <= len(kept) else None
    return InputError(error.message, file=str(path), line=line if fmt != "tacred-json" else None, field=error.field)
