"""Readers of ranked relation facts: OpenNRE bag-level gold (JSON lines) and scored (entity pair, relation)
predictions (JSON lines or TSV). Reading only: the ranking is scored in releval.metrics.ranked.

Gold — one sentence per line, as OpenNRE's NYT10 files (`nyt10_test.txt`)::

    {"text": "...", "h": {"id": "m.0ccvx", "name": "queens", "pos": [0, 6]}, "t": {...}, "relation": "/location/..."}

Only `h.id`, `t.id`, `relation` and `anno_relation_list` are read (`text`/`token`, `name`, `pos` may be there or
not). A bag is the sentences of one entity pair (h.id, t.id); a fact is a distinct (h.id, t.id, relation) whose
relation is not the negative class (NA), as OpenNRE's `BagREDataset` collects `self.facts`. A record of a manually
annotated test set (OpenNRE's NYT10m and Wiki20m) has an `anno_relation_list`, every relation annotated for the
pair: then each listed relation is a gold fact of the pair and its `relation` is not one (OpenNRE's
`BagREDataset` does the same).

Predictions — one scored (entity pair, relation) per line, either JSON lines
``{"h": "m.0ccvx", "t": "m.05gf08", "relation": "/location/location/contains", "score": 0.93}`` or TSV with four
columns ``h<TAB>t<TAB>relation<TAB>score`` (an optional first line ``h	t	relation	score`` names them). Blank lines
are skipped; gzip is read transparently.

>>> gold = parse_gold(b'{"h": {"id": "a"}, "t": {"id": "b"}, "relation": "born_in"}\\n', "<gold>")
>>> gold.relations, gold.n_rows
(['born_in'], 1)
>>> pred = parse_predictions(b"h\\tt\\trelation\\tscore\\na\\tb\\tborn_in\\t0.9\\n", "<pred>")
>>> pred.heads, pred.scores.tolist(), pred.lines.tolist()
(['a'], [0.9], [2])
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np
import orjson
from numpy.typing import NDArray

from releval.core.errors import InputError
from releval.data.decoding import (
    CONTROL,
    DECODE_FAILURES,
    check_utf8,
    decode_text,
    excerpt,
    jsonl_problem,
    keys_may_repeat,
    lone_cr_line,
    read_utf8,
    refuse_lone_cr,
    shown_int,
    white_space_side,
    with_all_keys,
)
from releval.data.delimited import line_blocks
from releval.data.formats.common import ids_ok
from releval.data.formats.jsonl import one_record_per_line
from releval.data.io import PathLike

#: The TSV header line predictions may open with.
TSV_HEADER = ("h", "t", "relation", "score")
#: The prediction formats, by name.
PREDICTION_FORMATS = ("jsonl", "tsv")


@dataclass(frozen=True)
class RankedGold:
    """A gold file: per sentence (line) its head id, tail id and relation, and each record's line number."""

    path: str
    heads: list[str]
    tails: list[str]
    sentence_relations: list[str]
    lines: NDArray[np.int64]
    #: Per sentence its `anno_relation_list` (the relations annotated for the pair), None where it has none; None
    #: when no sentence has one.
    annotations: list[tuple[str, ...] | None] | None = None

    @property
    def n_rows(self) -> int:
        return len(self.heads)

    @property
    def relations(self) -> list[str]:
        """The distinct relations (the negative class included, annotated ones after the sentences'), in order of
        first appearance."""
        listed = (r for a in self.annotations or () for r in a or ())
        return list(dict.fromkeys([*self.sentence_relations, *listed]))


@dataclass(frozen=True)
class RankedPredictions:
    """A prediction file: per line the head id, tail id, relation and score (float64), and the line numbers."""

    path: str
    heads: list[str]
    tails: list[str]
    relations: list[str]
    scores: NDArray[np.float64]
    lines: NDArray[np.int64]
    format: str

    def __len__(self) -> int:
        return len(self.heads)


def _shared(values: list[str]) -> list[str]:
    """`values` with one str object per distinct value: a relation name repeats on most lines, and a str per line
    costs about 50 bytes (issue 34's memory bound).

    >>> a, b = _shared(["NA", "".join(["N", "A"])])
    >>> a is b
    True
    """
    names: dict[str, str] = {}
    return [names.setdefault(v, v) for v in values]


def _split_lines(data: bytes) -> tuple[list[bytes], list[int]]:
    """The non-blank lines (a trailing CR dropped) and their 1-based numbers."""
    raw = data.split(b"\n")
    keep = [i for i, line in enumerate(raw) if line.strip()]
    return [raw[i].rstrip(b"\r") for i in keep], [i + 1 for i in keep]


def _checked_lines(data: bytes, path: str) -> tuple[list[bytes], list[int]]:
    """`_split_lines` of bytes checked first as every text reader checks them: invalid UTF-8 is an InputError at
    its true line and offset, and so is a carriage return not followed by a line feed (it would glue two records
    into one line, or leave a CR inside a value)."""
    if not data.isascii():
        check_utf8(data, path)
    refuse_lone_cr(data, path)
    return _split_lines(data)


def _records(lines: list[bytes], numbers: list[int], path: str) -> list[Any]:
    """The JSON value of each line, each line parsed on its own (orjson: nesting bounded, errors located at the
    line): a record written over two lines, or two records on one line, is refused at its line."""
    out = []
    for line, number in zip(lines, numbers):
        try:
            out.append(orjson.loads(line))
        except orjson.JSONDecodeError as exc:
            raise InputError(jsonl_problem(exc), file=path, line=number) from None
    return out


_TWICE = "key written twice in one record (a JSON parser keeps only the last value)"


def _refuse_repeated_keys(
    data: bytes, lines: list[bytes], numbers: list[int], present: dict[str, int], path: str, nested: bool
) -> None:
    """A key that is read, written twice in one record, is an InputError at its line and field (JSON parsers keep
    the last value silently; the label readers refuse it too). `present[k]`: how many times key k was read; byte
    counts clear most files at once (`keys_may_repeat`), else each line is read again with every key kept.
    `nested`: the gold's `h` and `t` objects, whose `id` is read, are looked into."""
    if not keys_may_repeat(data, present, present):
        return
    for line, number in zip(lines, numbers):
        record = with_all_keys(line)
        if not isinstance(record, dict):
            continue
        for key in getattr(record, "repeated", []):
            if key in present:
                raise InputError(_TWICE, file=path, line=number, field=key)
        if nested:
            for side in ("h", "t"):
                if "id" in getattr(record.get(side), "repeated", []):
                    raise InputError(_TWICE, file=path, line=number, field=f"{side}.id")


def _string(value: Any, path: str, line: int, field: str) -> str:
    """A non-empty string without surrounding white space or control characters (as every id and label of every
    family), else an InputError at its line and field."""
    if not isinstance(value, str) or not value.strip():
        shown = excerpt(value) if isinstance(value, str) else type(value).__name__
        raise InputError(f"expected a non-empty string, got {shown}", file=path, line=line, field=field)
    if value != value.strip():
        raise InputError(
            f"{excerpt(value)} has {white_space_side(value)} white space", file=path, line=line, field=field
        )
    if CONTROL.search(value):
        raise InputError(f"{excerpt(value)} holds a control character", file=path, line=line, field=field)
    return value


def parse_gold(data: bytes, path: str) -> RankedGold:
    """Gold sentences from OpenNRE JSON lines (see the module's docstring); an empty file is refused."""
    fast = _fast_gold(data)
    if fast is not None:
        return RankedGold(path, *fast, np.arange(1, len(fast[0]) + 1, dtype=np.int64))
    lines, numbers = _checked_lines(data, path)
    records = _records(lines, numbers, path)
    heads: list[str] = []
    tails: list[str] = []
    relations: list[str] = []
    annotations: list[tuple[str, ...] | None] = []
    for record, number in zip(records, numbers):
        if not isinstance(record, dict):
            raise InputError(
                f"expected a JSON object per line (OpenNRE format), got {type(record).__name__}",
                file=path,
                line=number,
            )
        for side, out in (("h", heads), ("t", tails)):
            entity = record.get(side)
            if not isinstance(entity, dict) or "id" not in entity:
                raise InputError(
                    'expected an entity object with an \'id\' (OpenNRE: {"id": ..., "name": ..., "pos": ...})',
                    file=path,
                    line=number,
                    field=f"{side}.id" if isinstance(entity, dict) else side,
                )
            out.append(_string(entity["id"], path, number, f"{side}.id"))
        relations.append(_string(record.get("relation"), path, number, "relation"))
        if "anno_relation_list" in record:
            annotations.append(_annotated(record["anno_relation_list"], path, number))
        else:
            annotations.append(None)
    if not heads:
        raise InputError("no gold sentences (the file is empty)", file=path)
    n = len(heads)
    present = {"h": n, "t": n, "relation": n, "id": 2 * n}
    annotated = sum(a is not None for a in annotations)
    if annotated:
        present["anno_relation_list"] = annotated
    _refuse_repeated_keys(data, lines, numbers, present, path, nested=True)
    listed = annotations if annotated else None
    return RankedGold(path, heads, tails, relations, np.asarray(numbers, dtype=np.int64), listed)


def _annotated(value: Any, path: str, line: int) -> tuple[str, ...]:
    """An `anno_relation_list`: a list of relation names (empty: no relation annotated)."""
    if not isinstance(value, list):
        raise InputError(
            f"expected a list of relations (OpenNRE's manual annotation), got {type(value).__name__}",
            file=path,
            line=line,
            field="anno_relation_list",
        )
    return tuple(_string(r, path, line, "anno_relation_list") for r in value)


class _Entity(msgspec.Struct, gc=False):
    id: str


class _GoldRecord(msgspec.Struct, gc=False):
    """One gold sentence as the fast decoder checks it (`text`, `name`, `pos` and other keys are skipped)."""

    h: _Entity
    t: _Entity
    relation: str


_GOLD_DECODER = msgspec.json.Decoder(_GoldRecord)
_HEAD_ID = operator.attrgetter("h.id")
_TAIL_ID = operator.attrgetter("t.id")
#: Bytes of JSON lines decoded at a time (issue 34's memory bound: the typed records of a whole file, a struct per
#: record and entity, cost more than the text; a chunk's are dropped once its strings are taken).
CHUNK = 1 << 23


def _line_chunks(data: bytes, size: int | None = None) -> list[memoryview]:
    """`data` cut after a newline about every `size` bytes (`CHUNK`), as views: each piece holds whole lines.

    >>> [bytes(c) for c in _line_chunks(b"a\\nbb\\nc\\n", 3)]
    [b'a\\nbb\\n', b'c\\n']
    """
    view = memoryview(data)
    return [view[start:end] for start, end in line_blocks(data, size or CHUNK)]


_GOLD_KEYS = ("h", "t", "relation", "id")


def _fast_gold(data: bytes) -> tuple[list[str], list[str], list[str]] | None:
    """(heads, tails, relations) of a gold file proven clean as `_fast_jsonl` proves predictions, else None (the
    careful reader then reads it line by line and names the problem)."""
    if b"anno_relation_list" in data:  # OpenNRE's manual annotations: read by the careful reader (`_annotated`)
        return None
    heads: list[str] = []
    tails: list[str] = []
    relations: list[str] = []
    try:
        for chunk in _line_chunks(data):
            records = _GOLD_DECODER.decode_lines(chunk)
            heads += map(_HEAD_ID, records)
            tails += map(_TAIL_ID, records)
            relations += map(_RELATION, records)
            del records
    except DECODE_FAILURES:
        return None
    n = len(heads)
    if not one_record_per_line(data, n) or lone_cr_line(data) is not None:
        return None
    if not data.isascii():
        try:
            str(data, "utf-8")
        except UnicodeDecodeError:
            return None
    if not (ids_ok(heads) and ids_ok(tails) and ids_ok(relations)):
        return None
    if keys_may_repeat(data, _GOLD_KEYS, {"h": n, "t": n, "relation": n, "id": 2 * n}):
        return None
    return heads, tails, _shared(relations)


def load_gold(path: PathLike) -> RankedGold:
    """`parse_gold` of a file (gzip read transparently; its size bounded as every input's)."""
    return parse_gold(read_utf8(path), str(path))


class _Prediction(msgspec.Struct, gc=False):
    """One JSON lines prediction, as the fast decoder checks it (other keys are ignored). Not tracked by the cyclic
    garbage collector (it holds strings and a float, never a cycle): a million of them decode ~40 % faster."""

    h: str
    t: str
    relation: str
    score: float


_DECODER = msgspec.json.Decoder(_Prediction)
_H, _T, _RELATION, _SCORE = (operator.attrgetter(name) for name in ("h", "t", "relation", "score"))


def _jsonl_predictions(data: bytes, path: str) -> RankedPredictions:
    """JSON lines predictions: one typed decode of the whole file (msgspec) when it is proven to be one clean
    record per line; otherwise line by line, so that every problem names its line and field."""
    fast = _fast_jsonl(data)
    if fast is not None:
        heads, tails, relations, scores = fast
        numbers = np.arange(1, len(heads) + 1, dtype=np.int64)
        return _checked(RankedPredictions(path, heads, tails, relations, scores, numbers, "jsonl"))
    lines, numbers_list = _checked_lines(data, path)
    records = _records(lines, numbers_list, path)
    for record, number in zip(records, numbers_list):
        _check_record(record, number, path)
    n = len(records)
    _refuse_repeated_keys(data, lines, numbers_list, dict.fromkeys(TSV_HEADER, n), path, nested=False)
    heads = [r["h"] for r in records]
    tails = [r["t"] for r in records]
    relations = [r["relation"] for r in records]
    scores = np.asarray([float(r["score"]) for r in records], dtype=np.float64)
    return _checked(RankedPredictions(path, heads, tails, relations, scores, np.asarray(numbers_list), "jsonl"))


def _fast_jsonl(data: bytes) -> tuple[list[str], list[str], list[str], NDArray[np.float64]] | None:
    """(heads, tails, relations, scores) of a file proven clean, else None: msgspec decoded every value, the
    values are exactly the lines (`one_record_per_line`: no blank line, no record over two lines, no two on one),
    the bytes are UTF-8 without a lone CR, no read key repeats, and every string is a clean id."""
    heads: list[str] = []
    tails: list[str] = []
    relations: list[str] = []
    parts: list[NDArray[np.float64]] = []
    try:
        for chunk in _line_chunks(data):  # a chunk's records at a time (see CHUNK)
            records = _DECODER.decode_lines(chunk)
            heads += map(_H, records)
            tails += map(_T, records)
            relations += map(_RELATION, records)
            parts.append(np.fromiter(map(_SCORE, records), np.float64, len(records)))
            del records
    except DECODE_FAILURES:
        return None
    n = len(heads)
    if not one_record_per_line(data, n) or lone_cr_line(data) is not None:
        return None
    if not data.isascii():
        try:
            str(data, "utf-8")  # msgspec does not validate the keys it skips
        except UnicodeDecodeError:
            return None
    if not (ids_ok(heads) and ids_ok(tails) and ids_ok(relations)):
        return None
    if keys_may_repeat(data, TSV_HEADER, dict.fromkeys(TSV_HEADER, n)):
        return None
    relations = _shared(relations)
    scores = np.concatenate(parts) if parts else np.zeros(0)
    if not np.isfinite(scores).all():
        return None
    return heads, tails, relations, scores


def _check_record(record: Any, number: int, path: str) -> None:
    """One JSON lines prediction checked, else an InputError at its line and field."""
    if not isinstance(record, dict):
        raise InputError(
            'expected a JSON object {"h": ..., "t": ..., "relation": ..., "score": ...}, got '
            f"{type(record).__name__}",
            file=path,
            line=number,
        )
    for key in ("h", "t", "relation"):
        if key not in record:
            raise InputError("missing", file=path, line=number, field=key)
        _string(record[key], path, number, key)
    if "score" not in record:
        raise InputError("missing", file=path, line=number, field="score")
    score = record["score"]
    if type(score) is not float and type(score) is not int:
        shown = excerpt(score) if isinstance(score, str) else type(score).__name__
        raise InputError(f"expected a number, got {shown}", file=path, line=number, field="score")
    if type(score) is int and abs(score) > MAX_SCORE:
        raise InputError(f"score {shown_int(score)} is beyond a double's range", file=path, line=number, field="score")


#: The largest integer score read: beyond it a float64 is infinite (or the conversion fails).
MAX_SCORE = 2**1023


def _line_shape(data: bytes) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """Per line of `data` (split at newlines): its number of tabs and whether it is empty (a CR alone is empty),
    from the byte positions of tabs and newlines — vectorised, no loop over lines."""
    buf = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(buf == 10)
    n_lines = newlines.shape[0] + 1
    tabs = np.bincount(np.searchsorted(newlines, np.flatnonzero(buf == 9)), minlength=n_lines)
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [buf.shape[0]]))
    length = ends - starts
    cr = np.zeros(n_lines, dtype=bool)
    cr[length > 0] = buf[ends[length > 0] - 1] == 13
    return tabs.astype(np.int64), (length - cr) == 0


def _tsv_predictions(data: bytes, path: str) -> RankedPredictions:
    """TSV predictions: the whole text split at once (every line must have four columns: checked on the byte
    positions of tabs and newlines, vectorised), then each column sliced out; a bad line is located. Empty lines
    are skipped. Without empty lines (but a final newline) the text is split at tabs and newlines in one pass."""
    text = decode_text(data, path)
    refuse_lone_cr(data, path)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    tabs, empty = _line_shape(data)
    trailing = bool(empty[-1]) and text.endswith("\n")
    numbers: NDArray[np.int64]
    if not empty[: len(empty) - trailing].any():  # every line has content: one split of the whole text
        body = text[:-1] if trailing else text
        tabs = tabs[: len(tabs) - trailing]
        numbers = np.arange(1, tabs.shape[0] + 1, dtype=np.int64)
        end = body.find("\n")
        first = body if end < 0 else body[:end]
        if tuple(c.strip().lower() for c in first.split("\t")) == TSV_HEADER:
            body, numbers, tabs = body[len(first) + 1 :], numbers[1:], tabs[1:]
        lines: list[str] | None = None
    else:
        raw = text.split("\n")
        keep = np.flatnonzero(~empty)
        numbers = (keep + 1).astype(np.int64)
        lines = [raw[i] for i in keep.tolist()]
        tabs = tabs[keep]
        if lines and tuple(c.strip().lower() for c in lines[0].split("\t")) == TSV_HEADER:
            lines, numbers, tabs = lines[1:], numbers[1:], tabs[1:]
    if not numbers.shape[0]:
        return _checked(RankedPredictions(path, [], [], [], np.zeros(0), np.zeros(0, dtype=np.int64), "tsv"))
    bad = np.flatnonzero(tabs != 3)
    if bad.size:
        k = int(bad[0])
        raise InputError(
            f"expected 4 tab-separated columns (h, t, relation, score), got {int(tabs[k]) + 1}",
            file=path,
            line=int(numbers[k]),
        )
    if lines is not None:
        body = "\n".join(lines)
    heads: list[str] = []
    tails: list[str] = []
    relations: list[str] = []
    names: dict[str, str] = {}  # one str per relation name (see `_shared`)
    parts: list[NDArray[np.float64]] = []
    not_numbers: tuple[list[str], list[int]] | None = None  # the first chunk with a score that is no number
    start = 0
    while start < len(body):  # about CHUNK characters of whole lines at a time: a str per cell only for a chunk
        cut = body.find("\n", start + CHUNK)
        end = len(body) if cut < 0 else cut
        cells = body[start:end].replace("\n", "\t").split("\t")
        row = len(heads)
        heads += cells[0::4]
        tails += cells[1::4]
        relations += [names.setdefault(r, r) for r in cells[2::4]]
        try:
            parts.append(np.asarray(cells[3::4], dtype=np.float64))
        except ValueError:
            if not_numbers is None:
                not_numbers = cells[3::4], numbers[row : len(heads)].tolist()
        start = end + 1
    for column, field in ((heads, "h"), (tails, "t"), (relations, "relation")):
        if not ids_ok(column):
            for value, number in zip(column, numbers.tolist()):
                _string(value, path, number, field)
    if not_numbers is not None:
        _scores(*not_numbers, path)
    return _checked(RankedPredictions(path, heads, tails, relations, np.concatenate(parts), numbers, "tsv"))


def _scores(texts: list[str], numbers: list[int], path: str) -> NDArray[np.float64]:
    """The scores of `texts` (on the lines `numbers`), or an InputError at the first that is no number."""
    try:
        return np.asarray(texts, dtype=np.float64)
    except ValueError:
        for value, number in zip(texts, numbers):
            try:
                float(value)
            except ValueError:
                raise InputError(
                    f"expected a number, got {excerpt(value)}", file=path, line=number, field="score"
                ) from None
        raise  # pragma: no cover


def _checked(pred: RankedPredictions) -> RankedPredictions:
    """Scores must be numbers a ranking can order: NaN is refused at its line."""
    bad = np.flatnonzero(np.isnan(pred.scores))
    if bad.size:
        raise InputError(
            "score is NaN: a ranking cannot place it", file=pred.path, line=int(pred.lines[bad[0]]), field="score"
        )
    if not len(pred):
        raise InputError("no predictions (the file is empty)", file=pred.path)
    return pred


def detect_format(data: bytes, path: str) -> str:
    """jsonl when the first non-blank character is '{', else tsv.

    >>> detect_format(b'  {"h": "a"}', "x"), detect_format(b"a\\tb\\tr\\t1", "x")
    ('jsonl', 'tsv')
    """
    head = data.lstrip()[:1]
    return "jsonl" if head == b"{" else "tsv"


def parse_predictions(data: bytes, path: str, format: str | None = None) -> RankedPredictions:
    """Scored predictions from JSON lines or TSV (`format`; None detects it from the first character)."""
    chosen = format or detect_format(data, path)
    if chosen == "jsonl":
        return _jsonl_predictions(data, path)
    return _tsv_predictions(data, path)


def load_predictions(path: PathLike, format: str | None = None) -> RankedPredictions:
    """`parse_predictions` of a file (gzip read transparently)."""
    return parse_predictions(read_utf8(path), str(path), format)


def finite_or_none(value: float) -> float | None:
    """JSON-ready: None for NaN."""
    return None if math.isnan(value) else value
