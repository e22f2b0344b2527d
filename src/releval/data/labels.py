"""Loaders for one-label-per-item files: ids and labels only, never scores (metrics notes §3).

Formats: `semeval` (official 4-line blocks), `semeval-tsv` / `id-tsv` (`<id>\\t<label>` lines), `tacred-json`
(gold records), `tacrev-jsonl` (`id`, `label_true`, `label_pred`), generic `jsonl` / `csv` / `tsv` with
configurable fields, and `labels-lines` (one label per line, aligned by position — only when asked for).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import msgspec
import orjson

from releval.data import semeval_labels as sem
from releval.data.io import PathLike, read_bytes, split_lines
from releval.errors import InputError, raise_all
from releval.report.signature import short_hash

FORMATS = ("semeval", "semeval-tsv", "id-tsv", "tacred-json", "tacrev-jsonl", "jsonl", "csv", "tsv", "labels-lines")
LABEL_FIELD_CANDIDATES = {
    "gold": ("label", "relation", "gold", "label_true", "y_true"),
    "pred": ("prediction", "pred", "label_pred", "predicted", "label", "relation", "y_pred"),
}
_SEMEVAL_LINE = re.compile(r"^(\d+)\t(.+)$")
_MAX_ERRORS = 50


class EndToEndFile(InputError):
    """Raised by format detection for entity/relation files, which the e2e loaders handle."""


@dataclass(frozen=True)
class LabelFile:
    """Items of one file: ids (None when aligned by position), labels, source line numbers, extra fields."""

    path: str
    format: str
    ids: list[str] | None
    labels: list[str]
    lines: Sequence[int]
    fields: dict[str, list[str]] = field(default_factory=dict)
    digest: str = ""

    def __len__(self) -> int:
        return len(self.labels)

    def with_labels(self, labels: list[str]) -> LabelFile:
        """The same items with other labels (e.g. a relabelling patch applied)."""
        return replace(self, labels=labels)


def detect_format(path: PathLike, data: bytes, header_fields: tuple[str, ...] = ()) -> str:
    """Guess a file's format from its content; ambiguous or positional-only content is an error."""
    head = data[:65536].decode("utf-8", errors="replace").lstrip("\ufeff")
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
    if stripped.startswith("{"):
        first = stripped.split("\n", 1)[0]
        if '"label_true"' in first and '"label_pred"' in first:
            return "tacrev-jsonl"
        return "jsonl"
    first_line = split_lines(head)[0] if head else ""
    if name.endswith(".csv"):
        return "csv"
    if re.match(r'^\d+\t"', first_line):
        return "semeval"
    if "\t" in first_line:
        lines = [ln for ln in split_lines(head)[:200] if ln.strip()]
        if all(re.match(r"^\S+\t", ln) for ln in lines[1:]) and not _looks_like_header(first_line, header_fields):
            labels = [ln.split("\t", 1)[1] for ln in lines]
            known = sum(lbl.strip() in sem.DIRECTED_SET or lbl.strip() in sem.UNDIRECTED_SET for lbl in labels)
            if re.match(r"^\d+\t", first_line) and known * 2 >= len(labels):
                return "semeval-tsv"
            return "id-tsv"
        return "tsv"
    if not head.strip():
        raise InputError("file is empty", file=str(path))
    raise InputError(
        "looks like one label per line without ids; pass --format labels-lines to align it with gold by "
        "position (the TACRED scorer's convention)",
        file=str(path),
    )


def _looks_like_header(line: str, header_fields: tuple[str, ...] = ()) -> bool:
    cells = [c.strip().lower() for c in line.split("\t")]
    names = {"id", "label", "relation", "prediction", "pred", "gold"} | set(LABEL_FIELD_CANDIDATES["pred"])
    names |= {f.lower() for f in header_fields}
    return any(c in names for c in cells)


_JSON_FORMATS = ("tacred-json", "tacrev-jsonl", "jsonl")


def _decode(data: bytes, path: PathLike) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 (byte {exc.start})", file=str(path), line=line) from None


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

    `check_unique=False` lets a large JSONL prediction file skip the repeated-id check, which `align` then does
    (it costs a hash set of every id; identical id order with gold needs none).
    """
    if role not in ("gold", "pred"):
        raise ValueError(f"role must be 'gold' or 'pred', not {role!r}")
    data = read_bytes(path)
    fmt = format or detect_format(path, data, (id_field, label_field or ""))
    if fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}' (known: {', '.join(FORMATS)})", file=str(path))
    text = "" if fmt in _JSON_FORMATS else _decode(data, path)  # the JSON parsers validate UTF-8 themselves
    name = str(path)
    if fmt == "semeval":
        out = _load_semeval_blocks(text, name)
    elif fmt in ("semeval-tsv", "id-tsv"):
        out = _load_id_tsv(text, name, semeval=fmt == "semeval-tsv")
    elif fmt == "labels-lines":
        out = _load_label_lines(text, name)
    elif fmt == "tacred-json":
        out = _load_json_records(data, name, id_field, label_field or "relation", fmt)
    elif fmt == "tacrev-jsonl":
        field_name = label_field or ("label_true" if role == "gold" else "label_pred")
        out = _load_jsonl(data, name, id_field, field_name, fmt, role, check_unique)
    elif fmt == "jsonl":
        out = _load_jsonl(data, name, id_field, label_field, fmt, role, check_unique)
    else:
        out = _load_table(text, name, "," if fmt == "csv" else "\t", id_field, label_field, fmt, role)
    return replace(out, digest=short_hash(data, 16))


def _check_label(label: str, name: str, line: int, errors: list[InputError], fld: str = "label") -> None:
    if not label.strip():
        errors.append(InputError("empty label", file=name, line=line, field=fld))
    elif label != label.strip():
        errors.append(InputError(f"label {label!r} has surrounding white space", file=name, line=line, field=fld))


def _load_label_lines(text: str, name: str) -> LabelFile:
    labels = split_lines(text)
    errors: list[InputError] = []
    for i, label in enumerate(labels, 1):
        _check_label(label, name, i, errors)
        if len(errors) >= _MAX_ERRORS:
            break
    raise_all(errors)
    return LabelFile(name, "labels-lines", None, labels, list(range(1, len(labels) + 1)))


def _load_id_tsv(text: str, name: str, semeval: bool) -> LabelFile:
    """`<id>\\t<label>` lines; with `semeval`, the official format checker's rules (numeric id, exact labels)."""
    ids: list[str] = []
    labels: list[str] = []
    lines: list[int] = []
    errors: list[InputError] = []
    first_seen: dict[str, int] = {}
    for i, raw in enumerate(split_lines(text), 1):
        if len(errors) >= _MAX_ERRORS:
            break
        if not raw.strip():
            errors.append(InputError("empty line", file=name, line=i))
            continue
        if semeval:
            m = _SEMEVAL_LINE.match(raw)
            if m is None:
                errors.append(InputError(f"expected '<numeric id>\\t<label>', got {raw!r}", file=name, line=i))
                continue
            item_id, label = m.group(1), m.group(2)
            if label not in sem.DIRECTED_SET and label not in sem.UNDIRECTED_SET:
                errors.append(
                    InputError(f"'{label}' is not a SemEval-2010 Task 8 label", file=name, line=i, field="label")
                )
                continue
        else:
            parts = raw.split("\t")
            if len(parts) != 2 or not parts[0].strip():
                errors.append(InputError(f"expected '<id>\\t<label>', got {raw!r}", file=name, line=i))
                continue
            item_id, label = parts
            _check_label(label, name, i, errors)
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
        lines.append(i)
    if not ids and not errors:
        errors.append(InputError("file has no items", file=name))
    raise_all(errors)
    return LabelFile(name, "semeval-tsv" if semeval else "id-tsv", ids, labels, lines)


def _load_semeval_blocks(text: str, name: str) -> LabelFile:
    """Official 4-line blocks: `<id>\\t"<sentence>"`, label, `Comment: …`, blank line."""
    all_lines = split_lines(text)
    ids: list[str] = []
    labels: list[str] = []
    lines: list[int] = []
    errors: list[InputError] = []
    i = 0
    while i < len(all_lines) and len(errors) < _MAX_ERRORS:
        if not all_lines[i].strip():
            i += 1
            continue
        m = re.match(r'^(\d+)\t"', all_lines[i])
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
                InputError(f"'{label}' is not a SemEval-2010 Task 8 label", file=name, line=i + 2, field="label")
            )
        else:
            ids.append(m.group(1))
            labels.append(label)
            lines.append(i + 1)
        i += 2
        while i < len(all_lines) and all_lines[i].strip() and not re.match(r'^\d+\t"', all_lines[i]):
            i += 1
    raise_all(errors)
    _check_unique(ids, lines, name)
    return LabelFile(name, "semeval", ids, labels, lines)


def _check_unique(ids: list[str], lines: Sequence[int], name: str) -> None:
    if len(set(ids)) == len(ids):
        return
    seen: dict[str, int] = {}
    errors = []
    for item_id, line in zip(ids, lines):
        if item_id in seen:
            errors.append(
                InputError(f"id {item_id} repeated (first on line {seen[item_id]})", file=name, line=line, field="id")
            )
        else:
            seen[item_id] = line
    raise_all(errors[:_MAX_ERRORS])


def _parse_jsonl(data: bytes, name: str) -> tuple[list[object], list[int]]:
    """All JSON lines at once (one orjson call on a synthesised array); per-line parsing only to locate errors."""
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    raw_lines = body.split(b"\n")
    line_numbers = [i for i, ln in enumerate(raw_lines, 1) if ln.strip()]
    if len(line_numbers) == len(raw_lines) or (len(line_numbers) == len(raw_lines) - 1 and not raw_lines[-1].strip()):
        try:
            return orjson.loads(b"[" + b",".join(raw_lines[: len(line_numbers)]) + b"]"), line_numbers
        except orjson.JSONDecodeError:
            pass
    errors: list[InputError] = []
    records: list[object] = []
    for i, ln in enumerate(raw_lines, 1):
        if not ln.strip():
            if i < len(raw_lines):
                errors.append(InputError("empty line", file=name, line=i))
            continue
        try:
            records.append(orjson.loads(ln))
        except orjson.JSONDecodeError as exc:
            errors.append(InputError(f"invalid JSON: {exc}", file=name, line=i))
        if len(errors) >= _MAX_ERRORS:
            break
    raise_all(errors)
    return records, line_numbers


def _pick_label_field(record: dict, role: str, name: str, line: int) -> str:
    for candidate in LABEL_FIELD_CANDIDATES[role]:
        if candidate in record:
            return candidate
    raise InputError(
        f"no label field found (tried {', '.join(LABEL_FIELD_CANDIDATES[role])}); name it with --label-field",
        file=name,
        line=line,
    )


def _records_to_file(
    records: list[object],
    line_numbers: list[int],
    name: str,
    id_field: str | None,
    label_field: str | None,
    fmt: str,
    role: str,
    extra_fields: tuple[str, ...] = (),
) -> LabelFile:
    if not records:
        raise InputError("file has no items", file=name)
    first = records[0]
    if not isinstance(first, dict):
        raise InputError("expected a JSON object", file=name, line=line_numbers[0])
    lf = label_field or _pick_label_field(first, role, name, line_numbers[0])
    try:
        labels = [r[lf] for r in records]  # type: ignore[index]
        ids = [r[id_field] for r in records] if id_field else None  # type: ignore[index]
    except (KeyError, TypeError):
        labels, ids = _checked_fields(records, line_numbers, name, id_field, lf)
    _check_labels(labels, line_numbers, name, lf)
    if ids is not None:
        ids = [x if isinstance(x, str) else str(x) for x in ids]
        _check_unique(ids, line_numbers, name)
    extras = {f: [str(r.get(f, "")) for r in records] for f in extra_fields if f in first}  # type: ignore[union-attr]
    return LabelFile(name, fmt, ids, labels, line_numbers, extras)


def _check_labels(labels: list, line_numbers: Sequence[int], name: str, fld: str) -> None:
    """Every label a non-empty string without surrounding space; checked on the distinct values first."""
    try:
        distinct = set(labels)
    except TypeError:
        distinct = {None}
    if all(isinstance(x, str) and x and x == x.strip() for x in distinct):
        return
    errors: list[InputError] = []
    for i, label in enumerate(labels):
        if not isinstance(label, str):
            errors.append(
                InputError(f"label must be a string, got {label!r}", file=name, line=line_numbers[i], field=fld)
            )
        elif not label.strip() or label != label.strip():
            _check_label(label, name, line_numbers[i], errors, fld)
        if len(errors) >= _MAX_ERRORS:
            break
    raise_all(errors)


def _checked_fields(
    records: list[object], line_numbers: list[int], name: str, id_field: str | None, label_field: str
) -> tuple[list, list | None]:
    errors: list[InputError] = []
    for rec, line in zip(records, line_numbers):
        if not isinstance(rec, dict):
            errors.append(InputError("expected a JSON object", file=name, line=line))
            continue
        for fld in (id_field, label_field):
            if fld and fld not in rec:
                errors.append(InputError("missing field", file=name, line=line, field=fld))
        if len(errors) >= _MAX_ERRORS:
            break
    raise_all(errors)
    raise AssertionError("unreachable: a record lacked a field but no error was found")


def _fast_jsonl(
    data: bytes, id_field: str, label_field: str, extra_fields: tuple[str, ...]
) -> tuple[list[str], list[str], dict[str, list[str]]] | None:
    """Typed decoding of every line at once (msgspec validates the JSON too); None when anything is unusual,
    so the careful per-line path can locate the problem."""
    names = [id_field, label_field, *extra_fields]
    if len(set(names)) != len(names):
        return None
    rename = {f"f{i}": n for i, n in enumerate(names)}
    extra_spec = [(f"f{i + 2}", str, "") for i in range(len(extra_fields))]
    records = None
    for id_type in (str, int):  # string ids (the common case) first; integer ids are turned into strings
        record = msgspec.defstruct("Record", [("f0", id_type), ("f1", str), *extra_spec], rename=rename, gc=False)
        try:
            records = msgspec.json.Decoder(record).decode_lines(data)
            break
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
    if records is None:
        return None
    expected = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if len(records) != expected:
        return None  # blank lines: let the careful path report them
    ids = [r.f0 for r in records] if id_type is str else [str(r.f0) for r in records]
    extras = {f: [getattr(r, f"f{i + 2}") for r in records] for i, f in enumerate(extra_fields)}
    return ids, [r.f1 for r in records], extras


def _load_jsonl(
    data: bytes, name: str, id_field: str, label_field: str | None, fmt: str, role: str, check_unique: bool = True
) -> LabelFile:
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    try:
        newline = body.find(b"\n")
        first = orjson.loads(body[: newline if newline >= 0 else len(body)])
    except orjson.JSONDecodeError:
        first = None
    if isinstance(first, dict) and id_field in first:
        lf = label_field or _pick_label_field(first, role, name, 1)
        extra = tuple(f for f in ("subj_type", "obj_type") if f in first)
        fast = _fast_jsonl(body, id_field, lf, extra)
        if fast is not None:
            ids, labels, extras = fast
            lines = range(1, len(labels) + 1)  # a range, not a list: no million int objects
            _check_labels(labels, lines, name, lf)
            if check_unique:
                _check_unique(ids, lines, name)
            return LabelFile(name, fmt, ids, labels, lines, extras)
    records, line_numbers = _parse_jsonl(data, name)
    return _records_to_file(records, line_numbers, name, id_field, label_field, fmt, role, ("subj_type", "obj_type"))


def _load_json_records(data: bytes, name: str, id_field: str, label_field: str, fmt: str) -> LabelFile:
    try:
        records = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc}", file=name) from None
    if not isinstance(records, list):
        raise InputError("expected a JSON list of records", file=name)
    numbers = list(range(1, len(records) + 1))
    try:
        out = _records_to_file(records, numbers, name, id_field, label_field, fmt, "gold", ("subj_type", "obj_type"))
    except InputError as exc:
        raise InputError(exc.message.replace("line", "record"), file=name, field=exc.field) from None
    return out


def _load_table(
    text: str, name: str, delimiter: str, id_field: str, label_field: str | None, fmt: str, role: str
) -> LabelFile:
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise InputError("file is empty", file=name) from None
    header = [h.strip() for h in header]
    head_record = dict.fromkeys(header, "")
    lf = label_field or _pick_label_field(head_record, role, name, 1)
    for fld in (id_field, lf):
        if fld not in header:
            raise InputError(f"header has no column '{fld}' (columns: {', '.join(header)})", file=name, line=1)
    id_col, label_col = header.index(id_field), header.index(lf)
    records: list[object] = []
    numbers: list[int] = []
    errors: list[InputError] = []
    for row in reader:
        line = reader.line_num
        if not row or all(not c.strip() for c in row):
            errors.append(InputError("empty line", file=name, line=line))
            continue
        if len(row) != len(header):
            errors.append(InputError(f"{len(row)} columns, header has {len(header)}", file=name, line=line))
            continue
        records.append({id_field: row[id_col], lf: row[label_col]})
        numbers.append(line)
        if len(errors) >= _MAX_ERRORS:
            break
    raise_all(errors)
    return _records_to_file(records, numbers, name, id_field, lf, fmt, role)


def apply_patch(gold: LabelFile, patch_path: PathLike) -> LabelFile:
    """Apply a TACRev-style relabelling `[{"id", "relation"}]`; every patch id must exist in gold."""
    patch = load_labels(patch_path, format="tacred-json")
    if gold.ids is None:
        raise InputError("a patch needs gold with ids", file=str(patch_path))
    index = {item_id: i for i, item_id in enumerate(gold.ids)}
    unknown = [(pid, ln) for pid, ln in zip(patch.ids or [], patch.lines) if pid not in index]
    if unknown:
        pid, rec = unknown[0]
        raise InputError(
            f"{len(unknown)} patch id(s) not in gold {gold.path}, e.g. '{pid}'",
            file=str(patch_path),
            line=rec,
            field="id",
        )
    labels = list(gold.labels)
    for pid, label in zip(patch.ids or [], patch.labels):
        labels[index[pid]] = label
    return gold.with_labels(labels)
