"""`jsonl` and `tacrev-jsonl`: one JSON object per line (JSON lines), one item per record.

`jsonl` is what most RE code bases write for predictions (one record per line, `json.dumps` in a loop), with the
id and label fields named by `--id-field` / `--label-field` or found among the usual candidates (`label`,
`relation`, `prediction`, …); `subj_type` and `obj_type` are kept when present:

    {"id": "e7798fb926b9403cfcd2", "label": "per:title"}
    {"id": "e779865fb91dd0a51ce8", "label": "no_relation"}

`tacrev-jsonl` holds gold and prediction in one record, as the model outputs released with TACRev do
(DFKI-NLP/tacrev, Alt et al. 2020: `test_results/<model>_test.jsonl`): `label_true` is read as gold, `label_pred`
as the prediction:

    {"id": "098f665fb966708cfcd2", "label_true": "no_relation", "label_pred": "no_relation"}

A record is exactly one line: two records on one line, or one record over two lines, are refused at their line.
A file is parsed by msgspec a block of lines at a time into compact columns (`BlockReader`: no str per id of the
whole file is held), and a vectorised check of the line breaks proves that its values are its lines; anything
unusual falls back to a whole-file reading, and a line-by-line one, that name every problem.
"""

from __future__ import annotations

from functools import lru_cache
from operator import attrgetter
from typing import Any

import msgspec
import orjson

from releval.core.errors import InputError, raise_all
from releval.data.decoding import exact_json, jsonl_problem, keys_may_repeat
from releval.data.delimited import line_blocks
from releval.data.formats.base import Evidence, Fields, Head, LabelFile, LabelFormat
from releval.data.formats.common import (
    MAX_ERRORS,
    TYPE_FIELDS,
    BlockReader,
    absent_fields,
    make_file,
    pick_label_field,
    records_to_file,
    repeated_key_errors,
)

#: Bytes of JSON lines decoded at a time: the block's records and strings are dropped once its columns are filled.
BLOCK_BYTES = 1 << 21


def _objects(head: Head) -> list[str]:
    """The first lines that hold a JSON object, when the file opens with one or they are most lines; else []."""
    objects = [ln for ln in head.lines if ln.lstrip().startswith("{")]
    return objects if head.stripped.startswith("{") or len(objects) * 2 > len(head.lines) else []


class Jsonl(LabelFormat):
    """JSON lines; the label field is named, or the first candidate present in the first record."""

    name = "jsonl"

    def sniff(self, head: Head) -> Evidence | None:
        """Mostly JSON objects on the first lines; failing content that says more, a `.jsonl`/`.ndjson` name."""
        if _objects(head):
            return Evidence.SYNTAX
        return Evidence.NAME if head.named(".jsonl", ".ndjson") else None

    def label_field(self, fields: Fields) -> str | None:
        """The label field to read: the one named, else (None) the first candidate present."""
        return fields.label_field

    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        id_field, label_field = fields.id_field, self.label_field(fields)
        newline = data.find(b"\n")
        try:
            first = orjson.loads(data[: newline if newline >= 0 else len(data)])
        except orjson.JSONDecodeError:
            first = None
        if isinstance(first, dict) and id_field in first:
            lf = label_field or pick_label_field(first, fields.role, name, 1)
            extra = tuple(f for f in TYPE_FIELDS if f in first and f not in (id_field, lf))
            loaded = _block_jsonl(data, (id_field, lf, *extra), name, self.name, fields.check_unique)
            if loaded is not None:
                return loaded
            fast = _fast_jsonl(data, (id_field, lf, *extra))  # whole-file lists: make_file names the problems
            if fast is not None:
                ids, (labels, *extra_values), plain = fast
                return make_file(
                    name,
                    self.name,
                    ids,
                    labels,
                    range(1, len(labels) + 1),  # a range, not a list: no million int objects
                    id_field=id_field,
                    label_field=lf,
                    check_unique=fields.check_unique,
                    extras=dict(zip(extra, extra_values)),
                    plain_ids=plain,
                )
        records, numbers, raws, errors = _parse_jsonl(data, name, id_field)
        if records and isinstance(records[0], dict) and len(errors) < MAX_ERRORS:
            absent_fields(records, numbers, name, "line", fields.role, id_field, label_field)
            lf = label_field or pick_label_field(records[0], fields.role, name, numbers[0])
            errors += repeated_key_errors(data, records, numbers, raws, (id_field, lf, *TYPE_FIELDS), name, "line")
        raise_all(sorted(errors, key=lambda e: e.line or 0)[:MAX_ERRORS])
        return records_to_file(
            records, numbers, name, id_field, label_field, self.name, fields.role, "line", fields.check_unique
        )


class TacrevJsonl(Jsonl):
    """JSON lines with `label_true` (gold) and `label_pred` (the prediction) in every record."""

    name = "tacrev-jsonl"

    def sniff(self, head: Head) -> Evidence | None:
        """JSON lines whose first record has both `label_true` and `label_pred`."""
        objects = _objects(head)
        return Evidence.SYNTAX if objects and '"label_true"' in objects[0] and '"label_pred"' in objects[0] else None

    def label_field(self, fields: Fields) -> str | None:
        return fields.label_field or ("label_true" if fields.role == "gold" else "label_pred")


@lru_cache(maxsize=16)
def _struct_decoder(id_type: Any, names: tuple[str, ...]) -> msgspec.json.Decoder:
    """A msgspec line decoder for records holding exactly the fields `names` (id first, label second)."""
    fields = [("f0", id_type), *((f"f{i}", str) for i in range(1, len(names)))]
    record = msgspec.defstruct("Record", fields, rename={f"f{i}": n for i, n in enumerate(names)}, gc=False)
    return msgspec.json.Decoder(record)


def _decode_records(data: bytes | memoryview, names: tuple[str, ...]) -> tuple[list[str], list[list[str]]] | None:
    """(ids, [labels, *extras]) of JSON values holding the fields `names` (msgspec's typed decoding of every value
    at once), or None when one is malformed or of another type. String ids are tried first (the common case);
    integer ids become their digits."""
    for id_type in (str, str | int):
        try:
            records = _struct_decoder(id_type, names).decode_lines(data)
            break
        except msgspec.ValidationError:
            continue
        except (msgspec.MsgspecError, ValueError, RecursionError):
            return None  # malformed JSON, invalid UTF-8, deep nesting: the careful path says where
    else:
        return None
    ids = [r.f0 for r in records]  # a comprehension beats map(attrgetter) on struct fields
    if id_type is not str:
        ids = [x if type(x) is str else str(x) for x in ids]
    labels = [r.f1 for r in records]
    extras = [list(map(attrgetter(f"f{i}"), records)) for i in range(2, len(names))]
    return ids, [labels, *extras]


def _plain(data: bytes, is_ascii: bool) -> bool:
    """ASCII without escapes or DEL: no id holds a control character (msgspec refuses raw ones in strings)."""
    return is_ascii and b"\\" not in data and b"\x7f" not in data


def _block_jsonl(data: bytes, names: tuple[str, ...], name: str, fmt: str, check_unique: bool) -> LabelFile | None:
    """The file read BLOCK_BYTES at a time into compact columns (`BlockReader`), or None when anything is unusual
    or wrong — then `_fast_jsonl` and `make_file`, or the careful path, read it again and name every problem.

    The same proofs as `_fast_jsonl`: every line decodes, the values are the lines, no read key repeats, the bytes
    are UTF-8 (checked a block at a time: a line feed never splits a UTF-8 character).
    """
    if len(set(names)) != len(names) or not data.startswith(b"{"):
        return None
    is_ascii = data.isascii()
    reader = BlockReader(_plain(data, is_ascii), names[2:])
    view = memoryview(data)
    for start, end in line_blocks(data, BLOCK_BYTES):
        block = view[start:end]
        decoded = _decode_records(block, names)
        if decoded is None:
            return None
        if not is_ascii:
            try:
                str(block, "utf-8")  # msgspec skips the fields it does not read without validating them
            except UnicodeDecodeError:
                return None
        ids, (labels, *extras) = decoded
        if not reader.add(ids, labels, extras):
            return None
    n = reader.n
    if not _one_record_per_line(data, n) or keys_may_repeat(data, names, dict.fromkeys(names, n)):
        return None
    return reader.finish(name, fmt, check_unique)


def _fast_jsonl(data: bytes, names: tuple[str, ...]) -> tuple[list[str], list[list[str]], bool] | None:
    """(ids, [labels, *extras], plain) of a JSON lines file with typed decoding of every line at once (msgspec), or
    None when anything is unusual, so the careful line-by-line path can locate the problem. `plain`: see `_plain`.

    msgspec's `decode_lines` reads a stream of JSON values, not lines; `_one_record_per_line` then proves that the
    values are exactly the lines, and `keys_may_repeat` that no record holds a read key twice.
    """
    if len(set(names)) != len(names) or not data.startswith(b"{"):
        return None
    decoded = _decode_records(data, names)
    if decoded is None:
        return None
    is_ascii = data.isascii()
    if not is_ascii:
        try:
            data.decode("utf-8")  # msgspec skips the fields it does not read without validating them
        except UnicodeDecodeError:
            return None
    ids, columns = decoded
    n = len(ids)
    if not _one_record_per_line(data, n) or keys_may_repeat(data, names, dict.fromkeys(names, n)):
        return None
    return ids, columns, _plain(data, is_ascii)


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
                errors.append(InputError(jsonl_problem(exc), file=name, line=i))
            else:
                if isinstance(record, dict) and type(record.get(id_field)) is float:
                    record = exact_json(raw) or record  # an integer beyond 64 bits: orjson made it a float
                records.append(record)
                numbers.append(i)
                raws.append(raw)
        if len(errors) >= MAX_ERRORS:
            break
    return records, numbers, raws, errors


#: `_one_record_per_line` for the other JSON lines readers (ranked facts): the same proof that values are lines.
one_record_per_line = _one_record_per_line
