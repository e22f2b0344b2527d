"""Loaders for one-label-per-item files: ids and labels only, never scores (metrics notes §3).

Formats: `semeval` (official 4-line blocks), `semeval-tsv` / `id-tsv` (`<id>\\t<label>` lines), `tacred-json`
(gold records), `tacrev-jsonl` (`id`, `label_true`, `label_pred`), generic `jsonl` / `csv` / `tsv` with
configurable fields, and `labels-lines` (one label per line, aligned by position — only when asked for).

Rules every format shares (docs/formats.md lists each format's leniencies and refusals; issue 11):

* an id is a non-empty string without surrounding white space or control characters — in JSON also an integer,
  read exactly as its decimal digits however large (`18446744073709551617` stays itself, it does not become the
  float string two different ids share); a float, boolean, null, list or object id is refused; ids are unique;
* a label is a non-empty string without surrounding white space or control characters;
* a JSON lines record is exactly one line: two records on one line, or one record over two lines, are refused at
  their line (the old reader parsed the file as one array, which silently dropped or invented items);
* a key that is read (the id, the label, `subj_type`/`obj_type`) may occur once per JSON record: JSON parsers keep
  the last of two silently. Keys that are not read are not checked (they cannot change a score, and checking
  every key of every record would cost a second parse);
* an empty file is refused, also with a forced format; every problem is an InputError naming the file, the line
  (in a JSON list: the record) and the field, at most 50 per file.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from operator import attrgetter
from typing import Any

import msgspec
import orjson

from releval.core.signature import short_hash
from releval.data import semeval_labels as sem
from releval.data.decoding import CONTROL as _CONTROL
from releval.data.decoding import (
    decode_text,
    exact_json,
    excerpt,
    json_problem,
    keys_may_repeat,
    parse_json,
    read_utf8,
    with_all_keys,
)
from releval.data.delimited import read_records, split_columns, text_lines
from releval.data.io import PathLike
from releval.errors import InputError, raise_all

FORMATS = ("semeval", "semeval-tsv", "id-tsv", "tacred-json", "tacrev-jsonl", "jsonl", "csv", "tsv", "labels-lines")
LABEL_FIELD_CANDIDATES = {
    "gold": ("label", "relation", "gold", "label_true", "y_true"),
    "pred": ("prediction", "pred", "label_pred", "predicted", "label", "relation", "y_pred"),
}
TYPE_FIELDS = ("subj_type", "obj_type")
_SEMEVAL_LINE = re.compile(r"^([0-9]+)\t(.+)$")
_SEMEVAL_BLOCK = re.compile(r'^([0-9]+)\t"')
_DIGITS = re.compile(r"[0-9]+")
_MAX_ERRORS = 50


class EndToEndFile(InputError):
    """Raised by format detection for entity/relation files, which the e2e loaders handle."""


@dataclass(frozen=True)
class LabelFile:
    """Items of one file: ids (None when aligned by position), labels, where each item is, extra fields.

    `lines` holds each item's line number, or its record number when `unit` is "record" (a JSON list, where a
    line would mean nothing); `where(i)` turns it into InputError keywords.
    """

    path: str
    format: str
    ids: list[str] | None
    labels: list[str]
    lines: Sequence[int]
    fields: dict[str, list[str]] = field(default_factory=dict)
    digest: str = ""
    unit: str = "line"

    def __len__(self) -> int:
        return len(self.labels)

    def with_labels(self, labels: list[str]) -> LabelFile:
        """The same items with other labels (e.g. a relabelling patch applied)."""
        return replace(self, labels=labels)

    def error(self, message: str, i: int, field: str | None = None) -> InputError:
        """An InputError about item `i` (0-based), at its line or record."""
        return located(message, self.path, self.unit, self.lines[i], field)


def located(message: str, file: str, unit: str, number: int, fld: str | None = None) -> InputError:
    """An InputError at line `number` or record `number` (`unit`), never a line number that is really a record."""
    if unit == "record":
        return InputError(message, file=file, record=number, field=fld)
    return InputError(message, file=file, line=number, field=fld)


# ----------------------------------------------------------------------------------------------- format detection


def detect_format(path: PathLike, data: bytes, header_fields: tuple[str, ...] = ()) -> str:
    """Guess a file's format from its content; ambiguous or positional-only content is an error.

    JSON lines and `<id>\\t<label>` files are recognised by a majority of their first 200 non-blank lines, so one
    damaged line does not flip the guess: the loader then names that line instead of blaming line 1 with the wrong
    advice.
    """
    head = _head_text(data, str(path)).lstrip("\ufeff")  # a second BOM: guess the format, the loader names it
    stripped = head.lstrip()
    name = str(path).lower().removesuffix(".gz")
    first_record = stripped[:4096]
    if (
        re.match(r'^\{\s*"(train|dev|test)"\s*:', stripped)
        or ('"tokens"' in first_record and '"entities"' in first_record)
        or '"doc_key"' in first_record
    ):
        raise EndToEndFile("looks like an end-to-end RE file (entities and relations); use --task e2e", file=str(path))
    if stripped.startswith("["):
        return "tacred-json"
    if not stripped:
        raise InputError("file is empty", file=str(path))
    if "\n" not in head.rstrip("\n") and len(data) > 65536:
        raise InputError(
            "the first line is longer than 64 KiB, too long to guess the format: name it", file=str(path), line=1
        )
    sample = [ln.removesuffix("\r") for ln in head.split("\n") if ln.strip()][:200]
    objects = [ln for ln in sample if ln.lstrip().startswith("{")]
    if stripped.startswith("{") or len(objects) * 2 > len(sample):
        if '"label_true"' in objects[0] and '"label_pred"' in objects[0]:
            return "tacrev-jsonl"
        return "jsonl"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith((".jsonl", ".ndjson")):  # the content did not say; the loader names line 1's problem
        return "jsonl"
    if name.endswith(".json"):
        return "tacred-json"
    first_line = sample[0]
    if _SEMEVAL_BLOCK.match(first_line) or sum(bool(_SEMEVAL_BLOCK.match(ln)) for ln in sample) * 4 >= len(sample):
        return "semeval"
    if "\t" in first_line and _looks_like_header(first_line, header_fields):
        return "tsv"
    tabbed = [ln for ln in sample if re.match(r"^\S+\t", ln)]
    if len(tabbed) * 2 > len(sample):
        labels = [ln.split("\t", 1)[1] for ln in tabbed]
        known = sum(lbl.strip() in sem.DIRECTED_SET or lbl.strip() in sem.UNDIRECTED_SET for lbl in labels)
        numeric = sum(bool(re.match(r"^[0-9]+\t", ln)) for ln in tabbed)
        if numeric * 2 > len(tabbed) and known * 2 >= len(labels):
            return "semeval-tsv"
        return "id-tsv"
    if "\t" in first_line:
        return "tsv"
    if name.endswith(".tsv"):
        return "id-tsv"
    raise InputError(
        f"no tab-separated id on this line ({excerpt(first_line)}): looks like one label per line without ids; "
        "pass --format labels-lines to align it with gold by position (the TACRED scorer's convention), or name "
        "the file's format with --format",
        file=str(path),
        line=head.split("\n").index(next(ln for ln in head.split("\n") if ln.strip())) + 1,
    )


def _head_text(data: bytes, name: str) -> str:
    """The first 64 KiB as text; invalid UTF-8 there is an InputError at its line (a guess from garbage would only
    send the user after the wrong format), a character cut at the 64 KiB boundary is dropped."""
    chunk = data[:65536]
    try:
        return chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(data) > len(chunk) and exc.start >= len(chunk) - 3:
            return chunk[: exc.start].decode("utf-8")
        return decode_text(chunk, name)  # raises, located


def _looks_like_header(line: str, header_fields: tuple[str, ...] = ()) -> bool:
    cells = [c.strip().lower() for c in line.split("\t")]
    names = {"id", "label", "relation", "prediction", "pred", "gold"} | set(LABEL_FIELD_CANDIDATES["pred"])
    names |= {f.lower() for f in header_fields if f}
    return any(c in names for c in cells)


def resolve_format(path: PathLike, data: bytes, format: str | None, id_field: str, label_field: str | None) -> str:
    """The format asked for, or the detected one (with the same header hints `load_labels` uses)."""
    fmt = format or detect_format(path, data, (id_field, label_field or ""))
    if fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}' (known: {', '.join(FORMATS)})", file=str(path))
    return fmt


_JSON_FORMATS = ("tacred-json", "tacrev-jsonl", "jsonl")


def load_labels(
    path: PathLike,
    *,
    format: str | None = None,
    role: str = "gold",
    id_field: str = "id",
    label_field: str | None = None,
    check_unique: bool = True,
) -> LabelFile:
    """Load one file's ids and labels; `role` ('gold'/'pred') picks the label column of two-label files.

    `check_unique=False` lets a large prediction file skip the repeated-id check, which `align` then does
    (it costs a hash set of every id; identical id order with gold needs none).
    """
    if role not in ("gold", "pred"):
        raise ValueError(f"role must be 'gold' or 'pred', not {role!r}")
    name = str(path)
    data = read_utf8(path)
    fmt = resolve_format(path, data, format, id_field, label_field)
    return parse_labels(
        data, name, fmt, role=role, id_field=id_field, label_field=label_field, check_unique=check_unique
    )


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
    digest = _digest_in_background(data)
    if not data or data.isspace():  # isspace stops at the first other byte; strip() would copy the file
        raise InputError("file is empty", file=name)
    if fmt == "tacred-json":
        out = _load_json_records(data, name, id_field, label_field or "relation", fmt, check_unique)
    elif fmt == "tacrev-jsonl":
        field_name = label_field or ("label_true" if role == "gold" else "label_pred")
        out = _load_jsonl(data, name, id_field, field_name, fmt, role, check_unique)
    elif fmt == "jsonl":
        out = _load_jsonl(data, name, id_field, label_field, fmt, role, check_unique)
    else:
        text = decode_text(data, name)  # the JSON parsers validate UTF-8 themselves
        if fmt == "semeval":
            out = _load_semeval_blocks(text, name, check_unique)
        elif fmt in ("semeval-tsv", "id-tsv"):
            out = _load_id_tsv(text, name, semeval=fmt == "semeval-tsv", check_unique=check_unique)
        elif fmt == "labels-lines":
            out = _load_label_lines(text, name)
        else:
            delimiter = "," if fmt == "csv" else "\t"
            out = _load_table(text, name, delimiter, id_field, label_field, fmt, role, check_unique)
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


# ----------------------------------------------------------------------------------------------- checks


def _text_problem(kind: str, text: str) -> str | None:
    """Why the string `text` cannot be an id or a label (`kind`), or None: empty or only white space, surrounding
    white space, or a control character — each would make two spellings of one item or class look different."""
    if not text.strip():
        return f"empty {kind}"
    if text != text.strip():
        return f"{kind} {excerpt(text)} has surrounding white space"
    if _CONTROL.search(text):
        return f"{kind} {excerpt(text)} holds a control character"
    return None


def _label_problem(label: object) -> str | None:
    """Why `label` cannot be a label, or None."""
    if not isinstance(label, str):
        return f"label must be a string, got {_json_kind(label)}"
    return _text_problem("label", label)


def _id_problem(item_id: str) -> str | None:
    """Why the string `item_id` cannot be an id, or None."""
    return _text_problem("id", item_id)


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return excerpt(str(value))


def _ids_ok(ids: list[str], plain: bool = False, distinct: set[str] | None = None) -> bool:
    """True when every id is fine (`_id_problem` is None for all), checked without a Python loop per id.

    When the joined ids are printable, the only white space they can hold is the ASCII space; with no space at all
    no id can have surrounding white space. `plain`: the caller knows that no id holds a control character (JSON
    that is ASCII without escapes or DEL), so only empty ids and spaces are left to look for. `distinct`: the set
    of the ids when the caller built it anyway (for uniqueness), which finds an empty id in one lookup.
    """
    if ("" in distinct) if distinct is not None else not all(ids):
        return False
    joined = "".join(ids)
    if plain or joined.isprintable():
        return " " not in joined or sum(map(len, map(str.strip, ids))) == len(joined)
    return _CONTROL.search(joined) is None and sum(map(len, map(str.strip, ids))) == len(joined)


def _check_labels(labels: list, numbers: Sequence[int], name: str, unit: str, fld: str) -> None:
    """Every label a non-empty string without surrounding space or control characters; checked on the distinct
    values first, item by item only to locate a problem."""
    try:
        distinct = set(labels)
    except TypeError:
        distinct = {None}
    if all(_label_problem(x) is None for x in distinct):
        return
    _raise_problems(labels, numbers, _label_problem, name, unit, fld)


def _raise_problems(
    values: list, numbers: Sequence[int], problem_of: Callable[[Any], str | None], name: str, unit: str, fld: str
) -> None:
    """Every value's problem (up to the error limit) as located errors, raised together; nothing if none."""
    errors: list[InputError] = []
    for value, number in zip(values, numbers):
        problem = problem_of(value)
        if problem is not None:
            errors.append(located(problem, name, unit, number, fld))
            if len(errors) >= _MAX_ERRORS:
                break
    raise_all(errors)


def _check_ids(
    ids: list[str],
    numbers: Sequence[int],
    name: str,
    unit: str,
    fld: str,
    plain: bool = False,
    distinct: set[str] | None = None,
) -> None:
    if not _ids_ok(ids, plain, distinct):
        _raise_problems(ids, numbers, _id_problem, name, unit, fld)


def _check_unique(
    ids: list[str], numbers: Sequence[int], name: str, unit: str = "line", distinct: set[str] | None = None
) -> None:
    if len(set(ids) if distinct is None else distinct) == len(ids):
        return
    seen: dict[str, int] = {}
    errors = []
    for item_id, number in zip(ids, numbers):
        if item_id in seen:
            errors.append(located(f"id {item_id} repeated (first on {unit} {seen[item_id]})", name, unit, number, "id"))
            if len(errors) >= _MAX_ERRORS:
                break
        else:
            seen[item_id] = number
    raise_all(errors)


def _make_file(
    name: str,
    fmt: str,
    ids: list[str] | None,
    labels: list[str],
    numbers: Sequence[int],
    *,
    unit: str = "line",
    id_field: str = "id",
    label_field: str = "label",
    check_unique: bool = True,
    extras: dict[str, list[str]] | None = None,
    plain_ids: bool = False,
) -> LabelFile:
    """The checked LabelFile: labels, then ids (strings already; `plain_ids`: see `_ids_ok`), then their
    uniqueness."""
    if not labels:
        raise InputError("file has no items", file=name)
    _check_labels(labels, numbers, name, unit, label_field)
    if ids is not None:
        distinct = set(ids) if check_unique else None
        _check_ids(ids, numbers, name, unit, id_field, plain_ids, distinct)
        if check_unique:
            _check_unique(ids, numbers, name, unit, distinct)
    return LabelFile(name, fmt, ids, labels, numbers, extras or {}, unit=unit)


# ----------------------------------------------------------------------------------------------- text formats


def _load_label_lines(text: str, name: str) -> LabelFile:
    labels = text_lines(text, name)
    return _make_file(name, "labels-lines", None, labels, range(1, len(labels) + 1))


def _load_id_tsv(text: str, name: str, semeval: bool, check_unique: bool = True) -> LabelFile:
    """`<id>\\t<label>` lines; with `semeval`, the official format checker's rules (numeric id, exact labels).

    Fast path: when every line holds one tab, the columns come from one join and split, and the checks run on
    whole columns; otherwise (or when a check fails) a line-by-line pass names every problem.
    """
    fmt = "semeval-tsv" if semeval else "id-tsv"
    lines = text_lines(text, name)
    columns = split_columns(lines, "\t", 2)
    if columns is not None:
        ids, labels = columns
        numbers = range(1, len(lines) + 1)
        if not semeval:
            return _make_file(name, fmt, ids, labels, numbers, check_unique=check_unique)
        known = sem.DIRECTED_SET | sem.UNDIRECTED_SET
        if set(labels) <= known and _DIGITS.fullmatch("".join(ids)) and all(ids):
            return _make_file(name, fmt, ids, labels, numbers, check_unique=check_unique)
    return _id_tsv_by_line(lines, name, semeval)


def _id_tsv_by_line(lines: list[str], name: str, semeval: bool) -> LabelFile:
    """Line by line: every problem named (repeated ids too, so one run lists them all), at most 50."""
    ids: list[str] = []
    labels: list[str] = []
    numbers: list[int] = []
    errors: list[InputError] = []
    first_seen: dict[str, int] = {}
    for i, raw in enumerate(lines, 1):
        if len(errors) >= _MAX_ERRORS:
            break
        if not raw.strip():
            errors.append(InputError("empty line", file=name, line=i))
            continue
        if semeval:
            m = _SEMEVAL_LINE.match(raw)
            if m is None:
                errors.append(InputError(f"expected '<numeric id>\\t<label>', got {excerpt(raw)}", file=name, line=i))
                continue
            item_id, label = m.group(1), m.group(2)
            if label not in sem.DIRECTED_SET and label not in sem.UNDIRECTED_SET:
                errors.append(
                    InputError(f"{excerpt(label)} is not a SemEval-2010 Task 8 label", file=name, line=i, field="label")
                )
                continue
        else:
            parts = raw.split("\t")
            if len(parts) != 2:
                errors.append(InputError(f"expected '<id>\\t<label>', got {excerpt(raw)}", file=name, line=i))
                continue
            item_id, label = parts
            problem = _id_problem(item_id)
            if problem is not None:
                errors.append(InputError(problem, file=name, line=i, field="id"))
                continue
            problem = _label_problem(label)
            if problem is not None:
                errors.append(InputError(problem, file=name, line=i, field="label"))
                continue
        if item_id in first_seen:
            errors.append(
                InputError(
                    f"id {item_id} repeated (first on line {first_seen[item_id]})", file=name, line=i, field="id"
                )
            )
            continue
        first_seen[item_id] = i
        ids.append(item_id)
        labels.append(label)
        numbers.append(i)
    raise_all(errors)
    return _make_file(name, "semeval-tsv" if semeval else "id-tsv", ids, labels, numbers, check_unique=False)


def _load_semeval_blocks(text: str, name: str, check_unique: bool = True) -> LabelFile:
    """Official 4-line blocks: `<id>\\t"<sentence>"`, label, `Comment: …`, blank line."""
    all_lines = text_lines(text, name)
    ids: list[str] = []
    labels: list[str] = []
    lines: list[int] = []
    errors: list[InputError] = []
    i = 0
    while i < len(all_lines) and len(errors) < _MAX_ERRORS:
        if not all_lines[i].strip():
            i += 1
            continue
        m = _SEMEVAL_BLOCK.match(all_lines[i])
        if m is None:
            errors.append(InputError("expected '<id>\\t\"<sentence>\"' starting a block", file=name, line=i + 1))
            i += 1
            continue
        if i + 1 >= len(all_lines):
            errors.append(InputError("block has no label line", file=name, line=i + 1))
            break
        label = all_lines[i + 1].strip()
        if label not in sem.DIRECTED_SET:
            errors.append(
                InputError(f"{excerpt(label)} is not a SemEval-2010 Task 8 label", file=name, line=i + 2, field="label")
            )
        else:
            ids.append(m.group(1))
            labels.append(label)
            lines.append(i + 1)
        i += 2
        while i < len(all_lines) and all_lines[i].strip() and not _SEMEVAL_BLOCK.match(all_lines[i]):
            i += 1
    raise_all(errors)
    return _make_file(name, "semeval", ids, labels, lines, check_unique=check_unique)


def _load_table(
    text: str,
    name: str,
    delimiter: str,
    id_field: str,
    label_field: str | None,
    fmt: str,
    role: str,
    check_unique: bool = True,
) -> LabelFile:
    """A header row naming the columns, then one record per row (RFC 4180 quoting, see releval.data.delimited).

    Without any quote in the file the rows are plain lines and the columns come from one join and split.
    """
    quoted = '"' in text
    if quoted:
        records = read_records(text, delimiter, name)
    else:
        lines = text_lines(text, name)
        records = [(1, 1, lines[0].split(delimiter))] if lines else []
    if not records:
        raise InputError("file is empty", file=name)
    header_line, _, cells = records[0]
    header = [h.strip() for h in cells]
    lf = label_field or _pick_label_field(dict.fromkeys(header, ""), role, name, header_line)
    for fld in (id_field, lf):
        if fld not in header:
            raise InputError(
                f"header has no column '{fld}' (columns: {', '.join(header)})", file=name, line=header_line
            )
        if header.count(fld) > 1:
            raise InputError(f"header names column '{fld}' twice", file=name, line=header_line, field=fld)
    id_col, label_col = header.index(id_field), header.index(lf)
    if not quoted:
        columns = split_columns(lines[1:], delimiter, len(header))
        if columns is not None:
            numbers = range(2, len(lines) + 1)
            return _make_file(
                name,
                fmt,
                columns[id_col],
                columns[label_col],
                numbers,
                id_field=id_field,
                label_field=lf,
                check_unique=check_unique,
            )
        records = [(i, i, ln.split(delimiter) if ln else []) for i, ln in enumerate(lines, 1)]
    ids: list[str] = []
    labels: list[str] = []
    numbers_list: list[int] = []
    errors: list[InputError] = []
    for start, end, row in records[1:]:
        if not row or all(not c.strip() for c in row):
            errors.append(InputError("empty line", file=name, line=start))
        elif len(row) != len(header):
            errors.append(InputError(f"{len(row)} columns, header has {len(header)}", file=name, line=start))
        else:
            spans = [(fld, row[col]) for fld, col in ((id_field, id_col), (lf, label_col)) if "\n" in row[col]]
            if spans:
                fld, value = spans[0]
                errors.append(
                    InputError(
                        f"a quoted value runs from line {start} to line {end}: {excerpt(value)}; is a closing quote "
                        "missing?",
                        file=name,
                        line=start,
                        field=fld,
                    )
                )
            else:
                ids.append(row[id_col])
                labels.append(row[label_col])
                numbers_list.append(start)
        if len(errors) >= _MAX_ERRORS:
            break
    raise_all(errors)
    return _make_file(
        name, fmt, ids, labels, numbers_list, id_field=id_field, label_field=lf, check_unique=check_unique
    )


# ----------------------------------------------------------------------------------------------- JSON formats


def _pick_label_field(record: Mapping, role: str, name: str, number: int, unit: str = "line") -> str:
    for candidate in LABEL_FIELD_CANDIDATES[role]:
        if candidate in record:
            return candidate
    raise located(
        f"no label field found (tried {', '.join(LABEL_FIELD_CANDIDATES[role])}); name it with --label-field",
        name,
        unit,
        number,
    )


def _json_ids(values: list, numbers: Sequence[int], name: str, unit: str, fld: str) -> list[str]:
    """Ids of JSON records as strings: a string as is, an integer as its decimal digits; anything else refused."""
    if all(type(x) is str for x in values):
        return values
    out: list[str] = []
    errors: list[InputError] = []
    for value, number in zip(values, numbers):
        if type(value) is str:
            out.append(value)
        elif type(value) is int:
            out.append(str(value))
        else:
            errors.append(
                located(f"id must be a string or an integer, got {_json_kind(value)}", name, unit, number, fld)
            )
            if len(errors) >= _MAX_ERRORS:
                break
    raise_all(errors)
    return out


def _records_to_file(
    records: list[Any],
    numbers: Sequence[int],
    name: str,
    id_field: str,
    label_field: str | None,
    fmt: str,
    role: str,
    unit: str,
    check_unique: bool,
) -> LabelFile:
    if not records:
        raise InputError("file has no items", file=name)
    first = records[0]
    if not isinstance(first, dict):
        raise located(f"expected a JSON object, got {_json_kind(first)}", name, unit, numbers[0])
    lf = label_field or _pick_label_field(first, role, name, numbers[0], unit)
    try:
        labels = [r[lf] for r in records]
        raw_ids = [r[id_field] for r in records]
    except (KeyError, TypeError):
        _checked_fields(records, numbers, name, unit, id_field, lf)
        raise AssertionError("unreachable: a record lacked a field but no error was found") from None
    ids = _json_ids(raw_ids, numbers, name, unit, id_field)
    extras = {
        f: ["" if r.get(f) is None else str(r[f]) for r in records]
        for f in TYPE_FIELDS
        if f in first and f not in (id_field, lf)
    }
    return _make_file(
        name,
        fmt,
        ids,
        labels,
        numbers,
        unit=unit,
        id_field=id_field,
        label_field=lf,
        check_unique=check_unique,
        extras=extras,
    )


def _checked_fields(
    records: list[Any], numbers: Sequence[int], name: str, unit: str, id_field: str, label_field: str
) -> None:
    errors: list[InputError] = []
    for rec, number in zip(records, numbers):
        if not isinstance(rec, dict):
            errors.append(located(f"expected a JSON object, got {_json_kind(rec)}", name, unit, number))
        else:
            errors += [located("missing field", name, unit, number, f) for f in (id_field, label_field) if f not in rec]
        if len(errors) >= _MAX_ERRORS:
            break
    raise_all(errors)


@lru_cache(maxsize=16)
def _struct_decoder(id_type: Any, names: tuple[str, ...]) -> msgspec.json.Decoder:
    """A msgspec line decoder for records holding exactly the fields `names` (id first, label second)."""
    fields = [("f0", id_type), *((f"f{i}", str) for i in range(1, len(names)))]
    record = msgspec.defstruct("Record", fields, rename={f"f{i}": n for i, n in enumerate(names)}, gc=False)
    return msgspec.json.Decoder(record)


def _fast_jsonl(data: bytes, names: tuple[str, ...]) -> tuple[list[str], list[list[str]], bool] | None:
    """(ids, [labels, *extras], plain) of a JSON lines file with typed decoding of every line at once (msgspec), or
    None when anything is unusual, so the careful line-by-line path can locate the problem. `plain`: the bytes are
    ASCII without escapes or DEL, so no id holds a control character (msgspec refuses raw control characters in
    strings).

    msgspec's `decode_lines` reads a stream of JSON values, not lines; `_one_record_per_line` then proves that the
    values are exactly the lines, and `keys_may_repeat` that no record holds a read key twice.
    """
    if len(set(names)) != len(names) or not data.startswith(b"{"):
        return None
    for id_type in (str, str | int):  # string ids (the common case) first; integer ids become their digits
        try:
            records = _struct_decoder(id_type, names).decode_lines(data)
            break
        except msgspec.ValidationError:
            continue
        except (msgspec.MsgspecError, ValueError, RecursionError):
            return None  # malformed JSON, invalid UTF-8, deep nesting: the careful path says where
    else:
        return None
    is_ascii = data.isascii()
    if not is_ascii:
        try:
            data.decode("utf-8")  # msgspec skips the fields it does not read without validating them
        except UnicodeDecodeError:
            return None
    n = len(records)
    if not _one_record_per_line(data, n) or keys_may_repeat(data, names, dict.fromkeys(names, n)):
        return None
    ids = [r.f0 for r in records]  # a comprehension beats map(attrgetter) on struct fields
    if id_type is not str:
        ids = [x if type(x) is str else str(x) for x in ids]
    plain = is_ascii and b"\\" not in data and b"\x7f" not in data
    labels = [r.f1 for r in records]
    extras = [list(map(attrgetter(f"f{i}"), records)) for i in range(2, len(names))]
    return ids, [labels, *extras], plain


def _one_record_per_line(data: bytes, n: int) -> bool:
    """True when `data` (which msgspec read as n JSON values) is n lines of one JSON object each.

    The test: the data starts with `{`, ends with `}` (then an optional final line end), has n - 1 line breaks,
    and each line break sits between a `}` (or `}` CR) and a `{`. A JSON string holds no raw line break, so these
    `}` and `{` are structure, and inside one JSON value a `}` is never followed by `{`: each line break is a
    boundary between two values. n - 1 boundaries at line breaks among n values leave no other boundary, so no line
    holds two values and no value spans two lines. One vectorised pass (numpy, a MiB at a time so the temporary
    arrays are reused; `bytes.count` of one byte is a slow loop).
    """
    import numpy as np

    end = len(data) - 1 if data.endswith(b"\n") else len(data)  # slices would copy the whole file
    last = end - 1 if data.endswith(b"\r", 0, end) else end
    if n == 0 or not (data.startswith(b"{") and data.endswith(b"}", 0, last)):
        return False
    arr = np.frombuffer(data, dtype=np.uint8, count=end)
    breaks = 0
    step = 1 << 20
    for start in range(0, end, step):
        at = np.flatnonzero(arr[start : start + step] == 10) + start
        breaks += len(at)
        if breaks > n - 1:
            return False
        if len(at):
            before = at - 1
            before[arr[before] == 13] -= 1  # CRLF: look before the CR; `at` > 0 since the data starts with `{`
            if not ((arr[at + 1] == 123).all() and (arr[before] == 125).all()):
                return False
    return breaks == n - 1


def _repeated_key_errors(
    data: bytes,
    records: list[Any],
    numbers: Sequence[int],
    raws: list[bytes] | None,
    keys: Sequence[str],
    name: str,
    unit: str,
) -> list[InputError]:
    """A read key twice in one record is an error at that record: JSON parsers silently keep the last value.

    Cheap unless the byte counts of `keys_may_repeat` leave doubt; then the records are read again with the
    standard library's `json` (which shows every key) — line by line for JSON lines (`raws`), whole for a list.
    """
    keys = [k for k in dict.fromkeys(keys) if k]
    present = {k: sum(1 for r in records if isinstance(r, dict) and k in r) for k in keys}
    if not keys_may_repeat(data, keys, present):
        return []
    if raws is not None:
        found = [(number, getattr(with_all_keys(raw), "repeated", [])) for raw, number in zip(raws, numbers)]
    else:
        whole = with_all_keys(data)
        if not isinstance(whole, list):
            return []
        found = [(n, getattr(r, "repeated", [])) for n, r in zip(numbers, whole)]
    return [
        located("key written twice in one record (a JSON parser keeps only the last value)", name, unit, n, k)
        for n, repeated in found
        for k in repeated
        if k in keys
    ][:_MAX_ERRORS]


def _jsonl_problem(exc: orjson.JSONDecodeError) -> str:
    text = json_problem(exc)
    if exc.msg.startswith(("trailing characters", "unexpected content after document")):
        return text + ": a JSON lines file holds one record per line"
    if "end of data" in exc.msg or "EOF" in exc.msg:
        return text + ": the line ends inside the record (a JSON lines record is one line)"
    return text


def _parse_jsonl(data: bytes, name: str, id_field: str) -> tuple[list[Any], list[int], list[bytes], list[InputError]]:
    """Every line parsed on its own (orjson): records, their line numbers, their bytes, and the lines' errors."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    records: list[Any] = []
    numbers: list[int] = []
    raws: list[bytes] = []
    errors: list[InputError] = []
    for i, raw in enumerate(lines, 1):
        if not raw.strip():
            errors.append(InputError("empty line (a JSON lines file has one record on every line)", file=name, line=i))
        else:
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                errors.append(InputError(_jsonl_problem(exc), file=name, line=i))
            else:
                if isinstance(record, dict) and type(record.get(id_field)) is float:
                    record = exact_json(raw) or record  # an integer beyond 64 bits: orjson made it a float
                records.append(record)
                numbers.append(i)
                raws.append(raw)
        if len(errors) >= _MAX_ERRORS:
            break
    return records, numbers, raws, errors


def _load_jsonl(
    data: bytes,
    name: str,
    id_field: str,
    label_field: str | None,
    fmt: str,
    role: str,
    check_unique: bool = True,
) -> LabelFile:
    newline = data.find(b"\n")
    try:
        first = orjson.loads(data[: newline if newline >= 0 else len(data)])
    except orjson.JSONDecodeError:
        first = None
    if isinstance(first, dict) and id_field in first:
        lf = label_field or _pick_label_field(first, role, name, 1)
        extra = tuple(f for f in TYPE_FIELDS if f in first and f not in (id_field, lf))
        fast = _fast_jsonl(data, (id_field, lf, *extra))
        if fast is not None:
            ids, (labels, *extra_values), plain = fast
            return _make_file(
                name,
                fmt,
                ids,
                labels,
                range(1, len(labels) + 1),  # a range, not a list: no million int objects
                id_field=id_field,
                label_field=lf,
                check_unique=check_unique,
                extras=dict(zip(extra, extra_values)),
                plain_ids=plain,
            )
    records, numbers, raws, errors = _parse_jsonl(data, name, id_field)
    if records and isinstance(records[0], dict) and len(errors) < _MAX_ERRORS:
        lf = label_field or _pick_label_field(records[0], role, name, numbers[0])
        errors += _repeated_key_errors(data, records, numbers, raws, (id_field, lf, *TYPE_FIELDS), name, "line")
    raise_all(sorted(errors, key=lambda e: e.line or 0)[:_MAX_ERRORS])
    return _records_to_file(records, numbers, name, id_field, label_field, fmt, role, "line", check_unique)


def _load_json_records(
    data: bytes, name: str, id_field: str, label_field: str, fmt: str, check_unique: bool = True
) -> LabelFile:
    records = parse_json(data, name)
    if not isinstance(records, list):
        raise InputError(f"expected a JSON list of records, got {_json_kind(records)}", file=name)
    if any(isinstance(r, dict) and type(r.get(id_field)) is float for r in records):
        exact = exact_json(data)  # an integer beyond 64 bits: orjson made it a float
        if isinstance(exact, list) and len(exact) == len(records):
            records = exact
    numbers = range(1, len(records) + 1)
    raise_all(_repeated_key_errors(data, records, numbers, None, (id_field, label_field, *TYPE_FIELDS), name, "record"))
    return _records_to_file(records, numbers, name, id_field, label_field, fmt, "gold", "record", check_unique)


def apply_patch(gold: LabelFile, patch_path: PathLike) -> LabelFile:
    """Apply a TACRev-style relabelling `[{"id", "relation"}]`; every patch id must exist in gold."""
    patch = load_labels(patch_path, format="tacred-json")
    if gold.ids is None:
        raise InputError("a patch needs gold with ids", file=str(patch_path))
    index = {item_id: i for i, item_id in enumerate(gold.ids)}
    unknown = [k for k, pid in enumerate(patch.ids or []) if pid not in index]
    if unknown:
        k = unknown[0]
        raise patch.error(
            f"{len(unknown)} patch id(s) not in gold {gold.path}, e.g. '{(patch.ids or [])[k]}'", k, field="id"
        )
    labels = list(gold.labels)
    for pid, label in zip(patch.ids or [], patch.labels):
        labels[index[pid]] = label
    return gold.with_labels(labels)
