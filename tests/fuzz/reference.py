"""Independent strict reference readers, one per input format, written from the format definitions.

They never call releval: the JSON layer is the standard library's `json` (duplicate keys, NaN/Infinity and lone
surrogates refused, integers exact, decimals kept as Decimal so nothing overflows), CSV/TSV is a small RFC 4180
parser of its own, and gzip is the standard library's. Each reader returns either exactly what it reads
(`LabelsRead`, `E2ERead`) or `Invalid` with a stable rule name, so the oracle can compare releval's result item by
item and classify its refusals.

The definitions (README "Input formats and checks", docs/e2e.md "Input formats", the loaders' docstrings):

- every file: gzip is read transparently (magic 1f 8b); UTF-8, or UTF-16/32 when a byte-order mark says so, one
  mark dropped; a NUL character anywhere is damage; in the text formats lines end in LF or CRLF (a CR alone is
  damage), the final line end is optional;
- ids are non-empty strings (JSON: or integers, read as their decimal digits) without surrounding white space and
  without control characters or a stray BOM; labels are non-empty strings without control characters; ids are
  unique within a file;
- `semeval`: blocks of `<digits>\\t"<sentence>`, a label line (one of the 19 directed labels, read stripped), comment
  lines, blank line(s); `semeval-tsv`: `<digits>\\t<label>` with one of the 19 directed or 10 undirected labels;
  `id-tsv`: `<id>\\t<label>`; `labels-lines`: one label per line, no ids;
- `tacred-json`: one JSON list of objects; `tacrev-jsonl` / `jsonl`: one JSON object per line; `csv` / `tsv`: a
  header row naming the columns, RFC 4180 quoting;
- e2e: SpERT JSON (a list of sentences, or a split dict of such lists) or PURE/DyGIE++ JSON lines.

Some inputs are valid but releval refuses them on purpose (labels with surrounding white space, blank JSONL lines,
…): the readers accept them and name the feature in `flags`; the oracle's DELIBERATE_REFUSALS table decides.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import PurePath
from typing import Any

# SemEval-2010 Task 8 (Hendrickx et al. 2010): nine relations, two directions each, and Other.
SEMEVAL_RELATIONS = (
    "Cause-Effect",
    "Component-Whole",
    "Content-Container",
    "Entity-Destination",
    "Entity-Origin",
    "Instrument-Agency",
    "Member-Collection",
    "Message-Topic",
    "Product-Producer",
)
SEMEVAL_DIRECTED = frozenset([f"{r}({d})" for r in SEMEVAL_RELATIONS for d in ("e1,e2", "e2,e1")] + ["Other"])
SEMEVAL_UNDIRECTED = frozenset([*SEMEVAL_RELATIONS, "Other"])

# The label fields tried, in order, when none is named (the loaders' documented candidates, by role).
LABEL_FIELD_CANDIDATES = {
    "gold": ("label", "relation", "gold", "label_true", "y_true"),
    "pred": ("prediction", "pred", "label_pred", "predicted", "label", "relation", "y_pred"),
}

CSV_FIELD_LIMIT = 131072  # Python csv's default field_size_limit: longer fields may be refused (a flag)
DEEP_NESTING = 256  # no record nests this deep; releval may refuse deeper JSON (a flag)
_MAX_DEPTH = 20000  # beyond this the reference itself gives up (far past any JSON parser's limit)
_INT64_MIN, _UINT64_END = -(2**63), 2**64
_DOUBLE_MAX = Decimal("1.7976931348623157e308")


@dataclass(frozen=True)
class Invalid:
    """The input breaks the format: `rule` is a stable name, `located` says a line or record can be named."""

    rule: str
    detail: str
    located: bool = True


@dataclass(frozen=True)
class LabelsRead:
    """What a labels file holds: ids (None for labels-lines) and labels in file order; `flags` name the valid
    features releval may refuse on purpose."""

    ids: tuple[str, ...] | None
    labels: tuple[str, ...]
    flags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Doc:
    """One sentence: id (None when absent), tokens, entities (start, end exclusive, type), relations (head, tail,
    type) indexing into the entities."""

    id: str | None
    tokens: tuple[str, ...]
    entities: tuple[tuple[int, int, str], ...]
    relations: tuple[tuple[int, int, str], ...]


@dataclass(frozen=True)
class E2ERead:
    """An end-to-end file: its format ('spert' or 'dygie') and its documents by split, in file order."""

    format: str
    splits: tuple[tuple[str, tuple[Doc, ...]], ...]
    flags: frozenset[str] = frozenset()


class Refused(Exception):
    """Raised inside the readers; turned into `Invalid` at the top."""

    def __init__(self, rule: str, detail: str, located: bool = True) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule, self.detail, self.located = rule, detail, located


# ----------------------------------------------------------------------------------------------- bytes and text


def unwrap(data: bytes) -> bytes:
    """Gunzip when the gzip magic number starts the file (any gzip failure is a file-level refusal)."""
    if data[:2] != b"\x1f\x8b":
        return data
    try:
        return gzip.decompress(data)
    except Exception as exc:  # noqa: BLE001 - every way a gzip stream can be broken is the same verdict
        raise Refused("gzip", f"corrupt gzip data ({type(exc).__name__})", located=False) from None


# Byte-order marks and their encodings, UTF-32 before UTF-16 (FF FE 00 00 begins with FF FE).
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def decode(data: bytes) -> str:
    """The text: UTF-8, or the UTF-16/32 its byte-order mark names (one mark dropped), decoded strictly; a decoding
    error is located by its line; a NUL character anywhere is damage (no format holds one; UTF-16 without a mark
    is the usual cause)."""
    codec = "utf-8"
    for bom, name in _BOMS:
        if data.startswith(bom):
            data, codec = data[len(bom) :], name
            break
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].decode(codec, errors="replace").count("\n") + 1
        raise Refused("utf8", f"not {codec} at byte {exc.start} (line {line})") from None
    if "\x00" in text:
        raise Refused("nul", f"line {text[: text.index(chr(0))].count(chr(10)) + 1}: NUL character")
    if not text.replace("\ufeff", "").strip():  # nothing but white space or BOMs: "empty" says it all
        raise Refused("no-items", "the file is blank", located=False)
    return text


def lines_of(text: str) -> list[str]:
    """Lines split at LF, one CR before each LF dropped, the empty string after a final LF not a line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def _bad_char(text: str) -> str | None:
    """The first control character, lone surrogate or stray BOM in a value that is read (an id, label or type)."""
    for ch in text:
        if ch == "\ufeff" or "\ud800" <= ch <= "\udfff" or unicodedata.category(ch) == "Cc":
            return ch
    return None


def check_id(value: str, where: str) -> str:
    """An id: non-empty, no surrounding white space, no control characters."""
    if not value:
        raise Refused("id-empty", f"{where}: empty id")
    if value != value.strip():
        raise Refused("id-space", f"{where}: id {value[:40]!r} has surrounding white space")
    if _bad_char(value) is not None:
        raise Refused("id-control", f"{where}: id has a control character {_bad_char(value)!r}")
    return value


def check_label(value: str, where: str, flags: set[str]) -> str:
    """A label: non-empty, no control characters; surrounding white space is valid but flagged."""
    if not value.strip():
        raise Refused("label-empty", f"{where}: empty label")
    if _bad_char(value) is not None:
        raise Refused("label-control", f"{where}: label has a control character {_bad_char(value)!r}")
    if value != value.strip():
        flags.add("label-space")
    return value


def _unique(ids: list[str], wheres: list[str]) -> None:
    seen: dict[str, str] = {}
    for item_id, where in zip(ids, wheres):
        if item_id in seen:
            raise Refused("id-duplicate", f"{where}: id {item_id[:40]!r} repeated (first at {seen[item_id]})")
        seen[item_id] = where


# ----------------------------------------------------------------------------------------------- JSON


class _Constant(Exception):
    pass


@dataclass(frozen=True)
class HugeInt:
    """An integer literal too long for Python's int() under its default digit limit: kept as its digits."""

    digits: str


def _parse_int(text: str) -> int | HugeInt:
    return HugeInt(text) if len(text) > 4000 else int(text)


class JsonObject(dict):  # type: ignore[type-arg]
    """A JSON object and the keys written more than once in it (`repeated`), the last value kept as every parser
    keeps it. Whether that is acceptable depends on the key (`check_keys`): one that is read is ambiguous."""

    repeated: frozenset[str] = frozenset()


def _pairs(pairs: list[tuple[str, Any]]) -> JsonObject:
    out = JsonObject(pairs)
    if len(out) != len(pairs):
        out.repeated = frozenset(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
    return out


def check_keys(obj: Any, where: str, read: Iterable[str], flags: set[str], defined: Iterable[str] = ()) -> None:
    """A key that is read may appear once per object (refused otherwise); a key the format defines but this reading
    does not use, repeated, is flagged (releval may refuse it); any other repeated key does not matter."""
    repeated: frozenset[str] = getattr(obj, "repeated", frozenset())
    if repeated & set(read):
        key = sorted(repeated & set(read))[0]
        raise Refused("json-duplicate-key", f"{where}: key {key[:40]!r} twice in one object", located=where != "file")
    if repeated & set(defined):
        flags.add("repeated-key")


def _constant(name: str) -> Any:
    raise _Constant(name)


def _depth(text: str) -> int:
    """Maximum nesting of [ and { outside strings, without recursion (the text may nest thousands deep)."""
    depth = best = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


def load_json(text: str, where: str, flags: set[str]) -> Any:
    """One JSON value, strictly: duplicate keys, NaN/Infinity and lone surrogates refused; integers exact (beyond 64
    bits flagged), other numbers as Decimal (beyond a double's range flagged); nesting deeper than DEEP_NESTING
    flagged."""
    depth = _depth(text)
    if depth > _MAX_DEPTH:
        raise Refused("json-depth", f"{where}: nested {depth} deep")
    if depth > DEEP_NESTING:
        flags.add("deep-nesting")
    old = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(old, 3 * depth + 500))
        value = json.loads(
            text, object_pairs_hook=_pairs, parse_constant=_constant, parse_float=Decimal, parse_int=_parse_int
        )
    except json.JSONDecodeError as exc:
        raise Refused("json-syntax", f"{where}: {exc.msg} (line {exc.lineno} column {exc.colno})") from None
    except _Constant as exc:
        raise Refused("json-constant", f"{where}: {exc} is not JSON") from None
    finally:
        sys.setrecursionlimit(old)
    stack = [value]  # walk without recursion: strings must be valid Unicode, big integers are flagged
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if re.search("[\ud800-\udfff]", node):
                raise Refused("json-lone-surrogate", f"{where}: a lone surrogate", located=where != "file")
        elif isinstance(node, bool):
            continue
        elif isinstance(node, HugeInt):
            flags.add("big-int")
        elif isinstance(node, Decimal):
            if node.is_finite() and abs(node) > _DOUBLE_MAX:
                flags.add("number-range")
        elif isinstance(node, int):
            if not _INT64_MIN <= node < _UINT64_END:
                flags.add("big-int")
        elif isinstance(node, dict):
            if getattr(node, "repeated", None):
                flags.add("repeated-key")  # a repeated key releval reads is refused by the reader that reads it
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return value


def _json_lines(text: str, flags: set[str]) -> list[tuple[int, Any]]:
    """(line number, value) of each non-blank line; a blank line (JSON white space only) is skipped and flagged."""
    records = []
    for number, line in enumerate(lines_of(text), 1):
        if not line.strip(" \t\r"):
            flags.add("blank-line")
            continue
        records.append((number, load_json(line, f"line {number}", flags)))
    return records


def _json_id(value: Any, where: str) -> str:
    """A JSON id: a string (checked) or an integer (its decimal digits); anything else is refused."""
    if isinstance(value, str):
        return check_id(value, where)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, HugeInt):
        return value.digits
    raise Refused("id-type", f"{where}: id must be a string or an integer, not {type(value).__name__}")


def _json_label(value: Any, where: str, flags: set[str]) -> str:
    if not isinstance(value, str):
        raise Refused("label-type", f"{where}: label must be a string, not {type(value).__name__}")
    return check_label(value, where, flags)


def _records(
    records: list[tuple[str, Any]], id_field: str, label_field: str | None, role: str, flags: set[str]
) -> LabelsRead:
    """Ids and labels of JSON records (where, value); the label field is named or picked from the first record."""
    if not records:
        raise Refused("no-items", "no records", located=False)
    for where, rec in records:
        if not isinstance(rec, dict):
            raise Refused("record-type", f"{where}: expected an object, got {type(rec).__name__}")
    if label_field is None:
        first_where, first = records[0]
        label_field = next((c for c in LABEL_FIELD_CANDIDATES[role] if c in first), None)
        if label_field is None:
            raise Refused("missing-field", f"{first_where}: no label field")
    defined = {id_field, label_field, *LABEL_FIELD_CANDIDATES["gold"], *LABEL_FIELD_CANDIDATES["pred"]}
    ids, labels, wheres = [], [], []
    for where, rec in records:
        check_keys(rec, where, (id_field, label_field), flags, defined)
        for name in (id_field, label_field):
            if name not in rec:
                raise Refused("missing-field", f"{where}: missing {name!r}")
        ids.append(_json_id(rec[id_field], where))
        labels.append(_json_label(rec[label_field], where, flags))
        wheres.append(where)
    _unique(ids, wheres)
    return LabelsRead(tuple(ids), tuple(labels), frozenset(flags))


# ----------------------------------------------------------------------------------------------- CSV / TSV


def parse_delimited(text: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """RFC 4180 records as (first line number, fields): quoted fields may hold anything ("" is a quote); a quote
    inside an unquoted field is a literal character (as everywhere in practice); after a closing quote only the
    delimiter or a line end may follow; a lone CR outside quotes is refused; records end at LF or CRLF."""
    records: list[tuple[int, list[str]]] = []
    i, n, line = 0, len(text), 1
    while i < n:
        start_line = line
        fields: list[str] = []
        while True:  # one field per turn
            if i < n and text[i] == '"':
                i += 1
                buf = []
                while True:
                    if i >= n:
                        raise Refused("csv-quote", f"line {start_line}: quoted field not closed")
                    ch = text[i]
                    if ch == '"':
                        if i + 1 < n and text[i + 1] == '"':
                            buf.append('"')
                            i += 2
                            continue
                        i += 1
                        break
                    if ch == "\n":
                        line += 1
                    buf.append(ch)
                    i += 1
                fields.append("".join(buf))
                if i < n and text[i] not in (delimiter, "\n") and text[i : i + 2] != "\r\n":
                    raise Refused("csv-quote", f"line {line}: {text[i]!r} after a closing quote")
            else:
                j = i
                while j < n and text[j] != delimiter and text[j] != "\n":
                    if text[j] == "\r" and text[j + 1 : j + 2] != "\n":
                        raise Refused("csv-cr", f"line {line}: a lone CR outside quotes")
                    if text[j] == "\r":
                        break
                    j += 1
                fields.append(text[i:j])
                i = j
            if i < n and text[i] == delimiter:
                i += 1
                continue
            break
        if text[i : i + 2] == "\r\n":
            i += 2
        elif i < n and text[i] == "\n":
            i += 1
        line += 1
        records.append((start_line, fields))
    return records


def _read_table(text: str, delimiter: str, id_field: str, label_field: str | None, role: str) -> LabelsRead:
    flags: set[str] = set()
    rows = parse_delimited(text, delimiter)
    if not rows:
        raise Refused("no-items", "no header", located=False)
    if any(len(f) > CSV_FIELD_LIMIT for _, fields in rows for f in fields):
        flags.add("csv-field-limit")
    header_line, header = rows[0]
    names = [h.strip() for h in header]
    if label_field is None:
        label_field = next((c for c in LABEL_FIELD_CANDIDATES[role] if c in names), None)
        if label_field is None:
            raise Refused("csv-header", f"line {header_line}: no label column")
    for name in (id_field, label_field):
        if name not in names:
            raise Refused("csv-header", f"line {header_line}: no column {name!r}")
        if names.count(name) > 1:
            raise Refused("csv-header", f"line {header_line}: column {name!r} named twice")
    id_col, label_col = names.index(id_field), names.index(label_field)
    ids, labels, wheres = [], [], []
    for line, fields in rows[1:]:
        where = f"line {line}"
        if all(not f.strip() for f in fields):
            raise Refused("blank-row", f"{where}: empty row")
        if len(fields) != len(names):
            raise Refused("csv-columns", f"{where}: {len(fields)} fields, header has {len(names)}")
        ids.append(check_id(fields[id_col], where))
        labels.append(check_label(fields[label_col], where, flags))
        wheres.append(where)
    if not ids:
        raise Refused("no-items", "header only", located=False)
    _unique(ids, wheres)
    return LabelsRead(tuple(ids), tuple(labels), frozenset(flags))


# ----------------------------------------------------------------------------------------------- line formats


_DIGITS = re.compile(r"[0-9]+")


def _read_semeval_blocks(text: str) -> LabelsRead:
    """Blocks: `<digits>\\t"<sentence>`, the label line (read stripped; one of the 19 directed labels), then comment
    lines up to a blank line or the next block; blank lines between blocks."""
    lines = lines_of(text)
    ids, labels, wheres = [], [], []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        where = f"line {i + 1}"
        m = re.match(r"^([0-9]+)\t\"", lines[i])
        if m is None:
            raise Refused("semeval-block", f"{where}: expected '<id>\\t\"<sentence>\"'")
        if i + 1 >= len(lines):
            raise Refused("semeval-block", f"{where}: block without a label line")
        label = lines[i + 1].strip()
        if label not in SEMEVAL_DIRECTED:
            raise Refused("semeval-label", f"line {i + 2}: {label[:40]!r} is not a directed SemEval label")
        ids.append(m.group(1))
        labels.append(label)
        wheres.append(where)
        i += 2
        while i < len(lines) and lines[i].strip() and not re.match(r"^[0-9]+\t\"", lines[i]):
            i += 1
    if not ids:
        raise Refused("no-items", "no blocks", located=False)
    _unique(ids, wheres)
    return LabelsRead(tuple(ids), tuple(labels))


def _read_id_tsv(text: str, semeval: bool) -> LabelsRead:
    flags: set[str] = set()
    ids, labels, wheres = [], [], []
    for number, line in enumerate(lines_of(text), 1):
        where = f"line {number}"
        parts = line.split("\t")
        if len(parts) != 2:
            raise Refused("line-shape", f"{where}: expected '<id>\\t<label>'")
        item_id, label = parts
        if semeval:
            if not _DIGITS.fullmatch(item_id):
                raise Refused("semeval-id", f"{where}: id {item_id[:40]!r} is not a number")
            if label not in SEMEVAL_DIRECTED and label not in SEMEVAL_UNDIRECTED:
                raise Refused("semeval-label", f"{where}: {label[:40]!r} is not a SemEval label")
        else:
            check_id(item_id, where)
            check_label(label, where, flags)
        ids.append(item_id)
        labels.append(label)
        wheres.append(where)
    if not ids:
        raise Refused("no-items", "no lines", located=False)
    _unique(ids, wheres)
    return LabelsRead(tuple(ids), tuple(labels), frozenset(flags))


def _read_label_lines(text: str) -> LabelsRead:
    flags: set[str] = set()
    labels = [check_label(line, f"line {n}", flags) for n, line in enumerate(lines_of(text), 1)]
    if not labels:
        raise Refused("no-items", "no lines", located=False)
    return LabelsRead(None, tuple(labels), frozenset(flags))


# ----------------------------------------------------------------------------------------------- labels entry


TEXT_FORMATS = ("semeval", "semeval-tsv", "id-tsv", "labels-lines", "csv", "tsv")
JSON_FORMATS = ("tacred-json", "tacrev-jsonl", "jsonl")


def read_labels(
    data: bytes, fmt: str, *, role: str = "gold", id_field: str = "id", label_field: str | None = None
) -> LabelsRead | Invalid:
    """The ids and labels of a labels file in format `fmt`, or Invalid."""
    try:
        text = decode(unwrap(data))
        if fmt in TEXT_FORMATS and "\r" in text.replace("\r\n", ""):
            line = text.replace("\r\n", "\n")[: text.replace("\r\n", "\n").index("\r")].count("\n") + 1
            raise Refused("lone-cr", f"line {line}: a CR not followed by LF (lines end in LF or CRLF)")
        if fmt == "semeval":
            return _read_semeval_blocks(text)
        if fmt in ("semeval-tsv", "id-tsv"):
            return _read_id_tsv(text, semeval=fmt == "semeval-tsv")
        if fmt == "labels-lines":
            return _read_label_lines(text)
        if fmt in ("csv", "tsv"):
            return _read_table(text, "," if fmt == "csv" else "\t", id_field, label_field, role)
        flags: set[str] = set()
        if fmt == "tacred-json":
            value = load_json(text, "file", flags)
            if not isinstance(value, list):
                raise Refused("json-top-type", f"expected a list, got {type(value).__name__}", located=False)
            recs = [(f"record {k}", r) for k, r in enumerate(value, 1)]
            return _records(recs, id_field, label_field or "relation", role, flags)
        if fmt in ("tacrev-jsonl", "jsonl"):
            lines = _json_lines(text, flags)
            if fmt == "tacrev-jsonl" and label_field is None:
                label_field = "label_true" if role == "gold" else "label_pred"
            return _records([(f"line {n}", v) for n, v in lines], id_field, label_field, role, flags)
        raise ValueError(f"unknown format {fmt}")
    except Refused as exc:
        return Invalid(exc.rule, exc.detail, exc.located)


# ----------------------------------------------------------------------------------------------- end-to-end


def _int(value: Any, where: str, what: str) -> int:
    if isinstance(value, HugeInt):
        raise Refused("e2e-span", f"{where}: {what} {value.digits[:20]}… is no token offset")
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused("e2e-int", f"{where}: {what} must be an integer, not {type(value).__name__}")
    return value


def _type(value: Any, where: str, what: str) -> str:
    if not isinstance(value, str):
        raise Refused("e2e-type", f"{where}: {what} must be a string, not {type(value).__name__}")
    if not value.strip() or _bad_char(value) is not None:
        raise Refused("e2e-type-value", f"{where}: {what} {value[:40]!r} is empty or holds a control character")
    return value


def _list(value: Any, where: str, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise Refused("e2e-shape", f"{where}: {what} must be a list, not {type(value).__name__}")
    return value


def _tokens(value: Any, where: str) -> tuple[str, ...]:
    tokens = _list(value, where, "tokens")
    if not all(isinstance(t, str) for t in tokens):
        raise Refused("e2e-tokens", f"{where}: tokens must be strings")
    return tuple(tokens)


def _doc_id(value: Any, where: str, what: str) -> str:
    if isinstance(value, str):
        return check_id(value, where)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, HugeInt):
        return value.digits
    raise Refused("e2e-id", f"{where}: {what} must be a string or an integer, not {type(value).__name__}")


_SENTENCE_KEYS = ("tokens", "entities", "relations", "orig_id")


def _spert_doc(rec: Any, where: str, flags: set[str]) -> Doc:
    """A SpERT/sincere sentence: tokens, entities {type, start, end (exclusive)}, relations {type, head, tail}
    indexing into the entities (optional: absent or null = none), orig_id (optional; null = absent)."""
    if not isinstance(rec, dict):
        raise Refused("e2e-shape", f"{where}: expected an object")
    check_keys(rec, where, _SENTENCE_KEYS, flags)
    for key in ("tokens", "entities"):
        if key not in rec:
            raise Refused("e2e-missing", f"{where}: missing {key!r}")
    tokens = _tokens(rec["tokens"], where)
    doc_id = None if rec.get("orig_id") is None else _doc_id(rec["orig_id"], where, "orig_id")
    entities = []
    for k, ent in enumerate(_list(rec["entities"], where, "entities")):
        w = f"{where} entity {k}"
        if not isinstance(ent, dict):
            raise Refused("e2e-shape", f"{w}: expected an object")
        check_keys(ent, w, ("start", "end", "type"), flags)
        for key in ("start", "end", "type"):
            if key not in ent:
                raise Refused("e2e-missing", f"{w}: missing {key!r}")
        start, end = _int(ent["start"], w, "start"), _int(ent["end"], w, "end")
        etype = _type(ent["type"], w, "type")
        if not 0 <= start < end <= len(tokens):
            raise Refused("e2e-span", f"{w}: span [{start}, {end}) empty or outside {len(tokens)} tokens")
        entities.append((start, end, etype))
    relations = []
    raw_relations = rec.get("relations")
    for k, rel in enumerate([] if raw_relations is None else _list(raw_relations, where, "relations")):
        w = f"{where} relation {k}"
        if not isinstance(rel, dict):
            raise Refused("e2e-shape", f"{w}: expected an object")
        check_keys(rel, w, ("head", "tail", "type"), flags)
        for key in ("head", "tail", "type"):
            if key not in rel:
                raise Refused("e2e-missing", f"{w}: missing {key!r}")
        head, tail = _int(rel["head"], w, "head"), _int(rel["tail"], w, "tail")
        rtype = _type(rel["type"], w, "type")
        for idx in (head, tail):
            if not 0 <= idx < len(entities):
                raise Refused("e2e-index", f"{w}: {idx} is not an index into {len(entities)} entities")
        relations.append((head, tail, rtype))
    return Doc(doc_id, tokens, tuple(entities), tuple(relations))


def _spert(value: Any, name: str, flags: set[str]) -> E2ERead:
    if isinstance(value, list):
        raw_splits = {PurePath(name).name.split(".")[0]: value}
    elif isinstance(value, dict):
        if not value or not all(isinstance(v, list) for v in value.values()):
            raise Refused("e2e-split-dict", "expected a non-empty {split: [sentences]} object", located=False)
        check_keys(value, "file", value.keys(), flags)  # a split written twice: which one is meant?
        raw_splits = value
    else:
        raise Refused("json-top-type", f"expected a list or a split object, got {type(value).__name__}", False)
    splits = []
    for split, records in raw_splits.items():
        docs = []
        for k, rec in enumerate(records):
            where = f"record {k + 1}" if isinstance(value, list) else f"{split}[{k}]"
            docs.append(_spert_doc(rec, where, flags))
        splits.append((split, tuple(docs)))
    if not any(docs for _, docs in splits):
        raise Refused("no-items", "no sentences", located=False)
    return E2ERead("spert", tuple(splits), frozenset(flags))


_DYGIE_KEYS = ("doc_key", "sentences", "ner", "relations", "predicted_ner", "predicted_relations")


def _dygie_docs(rec: dict[str, Any], where: str, ner_key: str, rel_key: str, flags: set[str]) -> list[Doc]:
    """A PURE/DyGIE++ document: doc_key, sentences (token lists), ner [[s, e, label, …]] and relations
    [[s1, e1, s2, e2, label, …]] per sentence with inclusive document offsets (absent = none); extra entries after
    the label are ignored. A relation argument is the first mention with that span."""
    check_keys(rec, where, ("doc_key", "sentences", ner_key, rel_key), flags, _DYGIE_KEYS)
    if rec.get("doc_key") is None:
        raise Refused("e2e-missing", f"{where}: missing doc_key")
    doc_key = _doc_id(rec["doc_key"], where, "doc_key")
    sentences = [_tokens(s, where) for s in _list(rec["sentences"], where, "sentences")]
    n = len(sentences)
    per_sentence = {}
    for key in (ner_key, rel_key):
        value = rec.get(key, [[] for _ in sentences])
        if not isinstance(value, list) or len(value) != n:
            raise Refused("e2e-shape", f"{where}: {key} must hold one list per sentence ({n})")
        per_sentence[key] = [_list(v, where, key) for v in value]
    docs = []
    offset = 0
    for i, tokens in enumerate(sentences):
        lo, hi = offset, offset + len(tokens) - 1
        entities: list[tuple[int, int, str]] = []
        index: dict[tuple[int, int], int] = {}
        for k, item in enumerate(per_sentence[ner_key][i]):
            w = f"{where} sentence {i} {ner_key} {k}"
            if not isinstance(item, list) or len(item) < 3:
                raise Refused("e2e-shape", f"{w}: expected [start, end, label]")
            s, e = _int(item[0], w, "start"), _int(item[1], w, "end")
            label = _type(item[2], w, "label")
            if not lo <= s <= e <= hi:
                raise Refused("e2e-span", f"{w}: [{s}, {e}] outside the sentence's tokens [{lo}, {hi}]")
            index.setdefault((s, e), len(entities))
            entities.append((s - offset, e - offset + 1, label))
        relations = []
        for k, item in enumerate(per_sentence[rel_key][i]):
            w = f"{where} sentence {i} {rel_key} {k}"
            if not isinstance(item, list) or len(item) < 5:
                raise Refused("e2e-shape", f"{w}: expected [s1, e1, s2, e2, label]")
            ends = [_int(x, w, "offset") for x in item[:4]]
            label = _type(item[4], w, "label")
            args = []
            for span in ((ends[0], ends[1]), (ends[2], ends[3])):
                if span not in index:
                    raise Refused("e2e-index", f"{w}: argument {list(span)} is not a mention")
                args.append(index[span])
            relations.append((args[0], args[1], label))
        docs.append(Doc(doc_key if n == 1 else f"{doc_key}#{i}", tokens, tuple(entities), tuple(relations)))
        offset += len(tokens)
    return docs


def _dygie(records: list[tuple[int, Any]], name: str, role: str, flags: set[str]) -> E2ERead:
    documents = [isinstance(rec, dict) and "sentences" in rec for _, rec in records]
    for (line, _), ok in zip(records, documents):
        if not ok:  # no document at all: the whole file is something else, no line to name
            raise Refused("e2e-shape", f"line {line}: not a PURE/DyGIE++ document (no 'sentences')", any(documents))
    predicted = role == "pred" and any("predicted_ner" in r or "predicted_relations" in r for _, r in records)
    ner_key, rel_key = ("predicted_ner", "predicted_relations") if predicted else ("ner", "relations")
    docs: list[Doc] = []
    for line, rec in records:
        docs.extend(_dygie_docs(rec, f"line {line}", ner_key, rel_key, flags))
    if not docs:
        raise Refused("no-items", "no sentences", located=False)
    return E2ERead("dygie", ((PurePath(name).name.split(".")[0], tuple(docs)),), frozenset(flags))


def read_e2e(data: bytes, *, name: str, role: str = "gold") -> E2ERead | Invalid:
    """An end-to-end file, its format found as documented: a whole-file JSON value is SpERT (a list or split dict)
    or one PURE/DyGIE++ document (an object with 'sentences'); otherwise JSON lines of PURE/DyGIE++ documents."""
    try:
        text = decode(unwrap(data))
        flags: set[str] = set()
        try:
            value = load_json(text, "file", flags)
        except Refused as exc:
            if exc.rule != "json-syntax":
                raise
            flags = set()
            records = []
            for number, line in enumerate(lines_of(text), 1):
                if line.strip(" \t\r"):
                    records.append((number, load_json(line, f"line {number}", flags)))
            if not records:
                raise Refused("no-items", "empty file", located=False) from None
            return _dygie(records, name, role, flags)
        if isinstance(value, dict) and "sentences" in value:
            return _dygie([(1, value)], name, role, flags)
        return _spert(value, name, flags)
    except Refused as exc:
        return Invalid(exc.rule, exc.detail, exc.located)


# ----------------------------------------------------------------------------------------------- p-value tables

# Column (and JSON key) spellings, case-insensitive, the first present in this order wins (the loader's docstring).
P_DATASET = ("dataset", "name", "data", "language", "domain")
P_VALUE = ("p", "p_value", "pvalue", "p-value", "pval")
P_EFFECT = ("effect", "delta", "diff", "difference")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class PValuesRead:
    """A p-value table: dataset names, one-sided p-values in [0, 1], and effects when the table has them."""

    datasets: tuple[str, ...]
    p: tuple[float, ...]
    effect: tuple[float, ...] | None
    flags: frozenset[str] = frozenset()


def _p_number(value: Any, where: str, what: str) -> float:
    """A finite number: a JSON number, or a decimal numeral (text, white space around it allowed)."""
    if isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        number = float(value.strip())
    elif isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        number = float(value)
    else:
        shown = repr(value[:40]) if isinstance(value, str) else type(value).__name__  # no str() of deep nesting
        raise Refused("pvalue-number", f"{where}: {what} {shown} is not a number")
    if number != number or number in (float("inf"), float("-inf")):
        raise Refused("pvalue-number", f"{where}: {what} is not finite")
    return number


def _p_dataset(value: Any, where: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise Refused("pvalue-dataset", f"{where}: the dataset name must be text, not {type(value).__name__}")
    name = value.strip()
    if not name or _bad_char(name) is not None:
        raise Refused("pvalue-dataset", f"{where}: dataset name {name[:40]!r} is empty or holds a control character")
    return name


def _p_rows(rows: list[tuple[str, Any, Any, Any]], has_effect: bool, flags: set[str]) -> PValuesRead:
    """(where, dataset, p, effect) rows checked: names unique, p in [0, 1], effects finite."""
    if not rows:
        raise Refused("no-items", "no datasets", located=False)
    names, ps, effects = [], [], []
    seen: dict[str, str] = {}
    for where, dataset, p_raw, effect_raw in rows:
        name = _p_dataset(dataset, where)
        if name in seen:
            raise Refused("pvalue-duplicate", f"{where}: dataset {name[:40]!r} repeated (first at {seen[name]})")
        seen[name] = where
        p = _p_number(p_raw, where, "p-value")
        if not 0.0 <= p <= 1.0:
            raise Refused("pvalue-range", f"{where}: p-value {p} outside [0, 1]")
        names.append(name)
        ps.append(p)
        if has_effect:
            effects.append(_p_number(effect_raw, where, "effect"))
    return PValuesRead(tuple(names), tuple(ps), tuple(effects) if has_effect else None, frozenset(flags))


def _first_alias(names: list[str], aliases: tuple[str, ...]) -> int | None:
    return next((names.index(a) for a in aliases if a in names), None)


def _p_table(text: str, delimiter: str) -> PValuesRead:
    """CSV/TSV: blank lines and `#` comment lines skipped; the first other line is the header; one record per line."""
    numbered = [(n, ln) for n, ln in enumerate(lines_of(text), 1) if ln.strip() and not ln.lstrip().startswith("#")]
    if not numbered:
        raise Refused("no-items", "no header", located=False)
    parsed = []
    for n, line in numbered:
        records = parse_delimited(line, delimiter)
        if len(records) != 1:
            raise Refused("csv-quote", f"line {n}: a quoted field runs past the line end")
        parsed.append((n, records[0][1]))
    (header_line, header), rows = parsed[0], parsed[1:]
    names = [h.strip().lower() for h in header]
    di, pi, ei = (_first_alias(names, a) for a in (P_DATASET, P_VALUE, P_EFFECT))
    if di is None or pi is None:
        raise Refused("csv-header", f"line {header_line}: no dataset or p column")
    out = []
    for n, fields in rows:
        if len(fields) != len(header):
            raise Refused("csv-columns", f"line {n}: {len(fields)} fields, header has {len(header)}")
        out.append((f"line {n}", fields[di], fields[pi], None if ei is None else fields[ei]))
    return _p_rows(out, ei is not None, set())


def _p_json(text: str) -> PValuesRead:
    """JSON: a list of records {dataset, p, effect?} (keys case-insensitive, spellings as in CSV), the same list
    under "datasets", or a mapping {name: p}."""
    flags: set[str] = set()
    value = load_json(text, "file", flags)
    if isinstance(value, dict) and "datasets" in value:
        check_keys(value, "file", ("datasets",), flags)
        value = value["datasets"]
    if isinstance(value, dict):
        check_keys(value, "file", value.keys(), flags)
        return _p_rows([(f"record {k}", n, p, None) for k, (n, p) in enumerate(value.items(), 1)], False, flags)
    if not isinstance(value, list):
        raise Refused("json-top-type", f"expected a list or an object, got {type(value).__name__}", located=False)
    rows, with_effect = [], []
    for k, rec in enumerate(value, 1):
        where = f"record {k}"
        if not isinstance(rec, dict):
            raise Refused("record-type", f"{where}: expected an object, got {type(rec).__name__}")
        keys = [str(key).strip().lower() for key in rec]
        if len(set(keys)) != len(keys):
            raise Refused("json-duplicate-key", f"{where}: two keys differ only in case or white space")
        lowered = dict(zip(keys, rec.values()))
        picked = [next((a for a in aliases if a in lowered), None) for aliases in (P_DATASET, P_VALUE, P_EFFECT)]
        check_keys(rec, where, [orig for orig in rec if str(orig).strip().lower() in picked], flags)
        if picked[0] is None or picked[1] is None:
            raise Refused("missing-field", f"{where}: no dataset or p key")
        with_effect.append(picked[2] is not None)
        rows.append((where, lowered[picked[0]], lowered[picked[1]], lowered.get(picked[2] or "")))
    if any(with_effect) and not all(with_effect):
        raise Refused("missing-field", f"record {with_effect.index(False) + 1}: no effect (other records have one)")
    return _p_rows(rows, any(with_effect), flags)


def read_pvalues(data: bytes, fmt: str) -> PValuesRead | Invalid:
    """A p-value table in format `fmt` ('csv', 'tsv' or 'json'), or Invalid."""
    try:
        text = decode(unwrap(data))
        if fmt == "json":
            return _p_json(text)
        if "\r" in text.replace("\r\n", ""):
            raise Refused("lone-cr", "a CR not followed by LF")
        return _p_table(text, "," if fmt == "csv" else "\t")
    except Refused as exc:
        return Invalid(exc.rule, exc.detail, exc.located)


# ----------------------------------------------------------------------------------------------- SpERT types file


@dataclass(frozen=True)
class TypesRead:
    """SpERT's types file: entity and relation type names in file order, and the symmetric relation types."""

    entities: tuple[str, ...]
    relations: tuple[str, ...]
    symmetric: frozenset[str]
    flags: frozenset[str] = frozenset()


def read_types(data: bytes) -> TypesRead | Invalid:
    """`{"entities": {T: {...}}, "relations": {R: {..., "symmetric": true|false}}}`: "relations" required,
    "entities" optional; a relation's spec is an object whose "symmetric" (default false) is a boolean; type names
    are non-empty and free of control characters."""
    try:
        flags: set[str] = set()
        value = load_json(decode(unwrap(data)), "file", flags)
        if not isinstance(value, dict) or not isinstance(value.get("relations"), dict):
            raise Refused("types-shape", "expected an object with a 'relations' object", located=False)
        entities = value.get("entities", {})
        if not isinstance(entities, dict):
            raise Refused("types-shape", "'entities' must be an object", located=False)
        check_keys(value, "file", ("entities", "relations"), flags)
        symmetric = []
        for kind, table in (("entity", entities), ("relation", value["relations"])):
            check_keys(table, f"{kind} types", table.keys(), flags)
            for name in table:
                if not name.strip() or _bad_char(name) is not None:
                    raise Refused("e2e-type-value", f"{kind} type {name[:40]!r} is empty or has a control character")
        for name, spec in value["relations"].items():
            if not isinstance(spec, dict):
                raise Refused("types-shape", f"relation type {name[:40]!r}: expected an object")
            check_keys(spec, f"relation type {name[:40]!r}", ("symmetric",), flags)
            flag = spec.get("symmetric", False)
            if not isinstance(flag, bool):
                raise Refused("types-shape", f"relation type {name[:40]!r}: 'symmetric' must be true or false")
            if flag:
                symmetric.append(name)
        return TypesRead(tuple(entities), tuple(value["relations"]), frozenset(symmetric), frozenset(flags))
    except Refused as exc:  # one object: a type's name places a problem, there are no records to number
        return Invalid(exc.rule, exc.detail, located=False)
