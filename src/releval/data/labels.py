"""Loaders for one-label-per-item files: ids and labels only, never scores (metrics notes §3).

The formats themselves — `semeval` (official 4-line blocks), `semeval-tsv` / `id-tsv` (`<id>\\t<label>` lines),
`tacred-json` (gold records), `tacrev-jsonl` (`id`, `label_true`, `label_pred`), generic `jsonl` / `csv` / `tsv`
with configurable fields, and `labels-lines` (one label per line, aligned by position — only when asked for) —
each live in a module of `releval.data.formats`, which also holds the rules every format shares. This module is
the entry point: read a file, find its format, parse it, fingerprint it.

An empty file is refused, also with a forced format; every problem is an InputError naming the file, the line (in a
JSON list: the record) and the field, at most 50 per file (docs/formats.md lists each format's leniencies and
refusals; issue 11).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

from releval.core.errors import InputError, InputErrors
from releval.core.signature import short_hash
from releval.data.decoding import read_utf8, to_utf8
from releval.data.formats import END_TO_END_MESSAGE, LABEL_FORMATS, E2EFormat, LabelFormat, detect, label_format
from releval.data.formats.base import Fields, LabelFile, located
from releval.data.formats.common import LABEL_FIELD_CANDIDATES, TYPE_FIELDS
from releval.data.io import STDIN, STDIN_NAME, PathLike, read_head

FORMATS = tuple(LABEL_FORMATS)

__all__ = [
    "FORMATS",
    "LABEL_FIELD_CANDIDATES",
    "TYPE_FIELDS",
    "EndToEndFile",
    "LabelFile",
    "apply_patch",
    "detect_format",
    "find_format",
    "load_labels",
    "located",
    "parse_labels",
    "resolve_format",
]


class EndToEndFile(InputError):
    """Raised by format detection for entity/relation files, which the e2e loaders handle."""


def detect_format(path: PathLike, data: bytes, header_fields: tuple[str, ...] = ()) -> str:
    """Guess a file's format from its content (`releval.data.formats.detect`); ambiguous or positional-only content
    is an error, and so is an end-to-end file (EndToEndFile).

    JSON lines and `<id>\\t<label>` files are recognised by a majority of their first 200 non-blank lines, so one
    damaged line does not flip the guess: the loader then names that line instead of blaming line 1 with the wrong
    advice.
    """
    return _label_format_name(detect(data, path, header_fields), path)


def find_format(
    path: PathLike, data: bytes, format: str | None, id_field: str, label_field: str | None
) -> LabelFormat | E2EFormat:
    """The label format asked for, or the detected one with the header hints `load_labels` uses — for an end-to-end
    file (only when no format is asked for) its E2EFormat, so that a caller can read it as one instead."""
    if not format:
        return detect(data, path, (id_field, label_field or ""))
    _check_known(format, str(path))
    return label_format(format)


def resolve_format(path: PathLike, data: bytes, format: str | None, id_field: str, label_field: str | None) -> str:
    """The name of the format asked for, or of the detected one (`find_format`); an end-to-end file is an
    EndToEndFile error."""
    return _label_format_name(find_format(path, data, format, id_field, label_field), path)


def _label_format_name(fmt: LabelFormat | E2EFormat, path: PathLike) -> str:
    if isinstance(fmt, E2EFormat):
        raise EndToEndFile(END_TO_END_MESSAGE, file=str(path))
    return fmt.name


def _check_known(fmt: str, file: str) -> None:
    if fmt not in LABEL_FORMATS:
        raise InputError(f"unknown format '{fmt}' (known: {', '.join(LABEL_FORMATS)})", file=file)


def load_labels(
    path: PathLike,
    *,
    format: str | None = None,
    role: str = "gold",
    id_field: str = "id",
    label_field: str | None = None,
    check_unique: bool = True,
) -> LabelFile:
    """Load one file's ids and labels; `role` ('gold'/'pred') picks the label column of two-label files. The
    path `-` reads standard input (named `<stdin>` in errors).

    `check_unique=False` lets a large prediction file skip the repeated-id check, which `align` then does
    (it costs a hash set of every id; identical id order with gold needs none).
    """
    if role not in ("gold", "pred"):
        raise ValueError(f"role must be 'gold' or 'pred', not {role!r}")
    name = STDIN_NAME if str(path) == STDIN else str(path)
    refuse_early(path, format, role=role, id_field=id_field, label_field=label_field, check_unique=check_unique)
    data = read_utf8(path)
    fmt = resolve_format(path, data, format, id_field, label_field)
    return parse_labels(
        data, name, fmt, role=role, id_field=id_field, label_field=label_field, check_unique=check_unique
    )


#: Bytes of a large file's first lines read and judged before the whole file (`refuse_early`).
EARLY_BYTES = 1 << 20
#: The formats whose every problem is a problem of a line on its own (or of two lines, for a repeated id): a
#: problem found in the first lines is a problem of the whole file, with the same line number and message.
LINE_FORMATS = ("id-tsv", "semeval-tsv", "jsonl", "tacrev-jsonl")


def refuse_early(
    path: PathLike,
    format: str | None = None,
    *,
    role: str = "gold",
    id_field: str = "id",
    label_field: str | None = None,
    check_unique: bool = True,
) -> None:
    """Fail fast: in a file of more than twice EARLY_BYTES in a line format, the first EARLY_BYTES of lines are
    parsed on their own, and the problems they hold (each with its line: a repeated id, a bad line) are raised
    before the rest is read. A 1 GiB file whose second line repeats the first id is refused in a second with a few
    MiB of memory, not after reading it all (issue 34: 22 GiB, six minutes). Anything else — a clean head, a
    problem without a line (an empty head), a format judged on the whole file — leaves the file to the whole read,
    which words it as before. The error lists the problems of the head (at most 50), not of the whole file.
    `load_labels` calls it; a command that reads the bytes itself (`stats`) calls it first with the same fields."""
    head = read_head(path, EARLY_BYTES)
    if head is None:
        return
    name = str(path)
    try:
        data = to_utf8(head, name)
        fmt = resolve_format(path, data, format, id_field, label_field)
    except InputError:
        return  # the whole read decides (and words) what the head alone cannot
    if fmt not in LINE_FORMATS:
        return
    try:
        parse_labels(data, name, fmt, role=role, id_field=id_field, label_field=label_field, check_unique=check_unique)
    except InputErrors as exc:
        if all(e.line is not None for e in exc.errors):
            raise
    except InputError as exc:
        if exc.line is not None:
            raise


def parse_labels(
    data: bytes,
    name: str,
    fmt: str,
    *,
    role: str = "gold",
    id_field: str = "id",
    label_field: str | None = None,
    check_unique: bool = True,
) -> LabelFile:
    """The items of UTF-8 bytes (no byte-order mark: `read_utf8`) in format `fmt`; `name` is used in errors."""
    _check_known(fmt, name)
    digest = _digest_in_background(data)
    if not data or data.isspace():  # isspace stops at the first other byte; strip() would copy the file
        raise InputError("file is empty", file=name)
    out = label_format(fmt).parse(data, name, Fields(role, id_field, label_field, check_unique))
    return replace(out, digest=digest())


def _digest_in_background(data: bytes) -> Callable[[], str]:
    """`short_hash(data, 16)`, computed in a thread while the file is parsed: hashlib releases the GIL on large
    inputs, so on a second core the digest of a 40 MB file (30 ms) costs no wall time."""
    if len(data) < 1 << 20:
        return lambda: short_hash(data, 16)
    box: list[str] = []
    thread = threading.Thread(target=lambda: box.append(short_hash(data, 16)), daemon=True)
    thread.start()

    def result() -> str:
        thread.join()
        return box[0]

    return result


def apply_patch(gold: LabelFile, patch_path: PathLike) -> LabelFile:
    """Apply a TACRev-style relabelling `[{"id", "relation"}]`; every patch id must exist in gold."""
    import numpy as np

    from releval.data.columns import LabelColumn, as_list, id_column, locate

    patch = load_labels(patch_path, format="tacred-json")
    if gold.ids is None:
        raise InputError("a patch needs gold with ids", file=str(patch_path))
    patch_ids = id_column(patch.ids or [])
    at = locate(id_column(gold.ids), patch_ids)
    unknown = np.flatnonzero(at < 0)
    if len(unknown):
        k = int(unknown[0])
        raise patch.error(f"{len(unknown)} patch id(s) not in gold {gold.path}, e.g. '{patch_ids[k]}'", k, field="id")
    labels = as_list(gold.labels)
    for i, label in zip(at.tolist(), patch.labels):
        labels[i] = label
    return gold.with_labels(LabelColumn.from_strings(labels))
