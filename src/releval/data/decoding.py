"""From an input file's bytes to text and JSON the loaders can trust: one encoding, no NUL bytes, located errors.

Decisions (listed for users in docs/formats.md, issue 11):

* UTF-8 is the input encoding; one leading UTF-8 byte-order mark is dropped.
* A file that starts with a UTF-16 or UTF-32 byte-order mark is decoded from that encoding and read as the same
  text in UTF-8: Windows tools (PowerShell's `>`, Notepad's "Unicode") write such files, and the mark makes the
  encoding certain, so refusing them would only cost the user a conversion.
* A NUL byte anywhere else is refused with its line. No text format holds one; a UTF-16 file without a byte-order
  mark is the usual cause (every other byte is NUL), and the message says so when the bytes look like it — decoding
  it silently kept NULs inside ids and labels before.
* JSON is parsed by orjson (nesting is bounded at 1,024 levels, so deep input is a located error rather than a
  RecursionError); its errors keep the line and column the parser stopped at. orjson reads an integer beyond 64
  bits as a float, so `exact_json` re-reads a document with msgspec, which keeps such integers exact, when a caller
  finds a float where an integer id may have been written.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Container, Iterable, Mapping
from typing import Any

import msgspec
import orjson

from releval.core.errors import InputError
from releval.data.io import PathLike, read_bytes, utf8_error

UTF8_BOM = b"\xef\xbb\xbf"
# UTF-32 first: its little-endian mark begins with UTF-16's.
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32 LE"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32 BE"),
    (b"\xff\xfe", "utf-16-le", "UTF-16 LE"),
    (b"\xfe\xff", "utf-16-be", "UTF-16 BE"),
)
# Control characters, a stray byte-order mark and lone surrogates: never part of an id, a label or a type name.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ufeff\ud800-\udfff]")
# An escaped printable ASCII character (`\u0061` for `a`) or an escaped slash: a key could be spelled so.
_ESCAPED_ASCII = re.compile(rb"\\u00[2-7][0-9a-fA-F]|\\/")
EXCERPT = 40  # characters of an input value quoted in a message


def white_space_side(text: str) -> str:
    """Where `text` has white space that `str.strip` would remove: "leading", "trailing" or "surrounding" (both), so
    a message names the mistake as it is (`'Other '` has trailing white space).

    >>> white_space_side("Other "), white_space_side("\u00a0P17"), white_space_side(" a ")
    ('trailing', 'leading', 'surrounding')
    """
    if text.lstrip() == text:
        return "trailing"
    return "leading" if text.rstrip() == text else "surrounding"


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """`text` quoted for a message, cut to `limit` characters: a 128 KiB field is not echoed back."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"… ({len(text):,} characters)"


def to_utf8(raw: bytes, file: str) -> bytes:
    """The input as UTF-8 bytes without a byte-order mark (UTF-16/32 with a mark transcoded); NUL bytes refused.

    UTF-8 itself is not validated here: the JSON parsers and `decode_text` do that, with the line of the bad byte.
    """
    if raw.startswith(UTF8_BOM):
        raw = raw[len(UTF8_BOM) :]
    else:
        for bom, codec, name in _WIDE_BOMS:
            if raw.startswith(bom):
                raw = _transcode(raw[len(bom) :], codec, name, file, len(bom))
                break
    if b"\x00" in raw:
        raise _nul_error(raw, file)
    return raw


def read_utf8(path: PathLike) -> bytes:
    """The file's bytes (gunzipped as `read_bytes` does) as UTF-8 without a byte-order mark; see `to_utf8`."""
    return to_utf8(read_bytes(path), str(path))


def decode_text(data: bytes, file: str) -> str:
    """UTF-8 bytes as text; an invalid byte is an InputError at its line (`utf8_error`)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise utf8_error(data, exc, file) from None


def check_utf8(data: bytes, file: str) -> None:
    """Nothing when `data` is valid UTF-8, else the located InputError of `utf8_error`. For error paths: a parser
    that validates UTF-8 itself (orjson, msgspec) says only that the input is not UTF-8, at its start."""
    decode_text(data, file)


def read_text(path: PathLike) -> str:
    """The file as text: `read_utf8`, then strict UTF-8 decoding."""
    return decode_text(read_utf8(path), str(path))


def _transcode(body: bytes, codec: str, name: str, file: str, skipped: int) -> bytes:
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as exc:
        line = body[: exc.start].decode(codec, errors="replace").count("\n") + 1
        raise InputError(
            f"starts with a {name} byte-order mark but is not valid {name} (byte {exc.start + skipped}: {exc.reason})",
            file=file,
            line=line,
        ) from None
    return text.encode("utf-8")


def wide_encoding(sample: bytes) -> str | None:
    """'UTF-16 LE' / 'UTF-16 BE' / 'UTF-32 LE' / 'UTF-32 BE' when mostly-ASCII text in that encoding would give
    these bytes (NULs in fixed positions), else None."""
    n = len(sample) // 4 * 4
    if n < 4:
        return None
    quarters = [sample[k:n:4].count(0) / (n // 4) for k in range(4)]
    if quarters[0] < 0.5 and min(quarters[1:]) > 0.9:
        return "UTF-32 LE"
    if quarters[3] < 0.5 and min(quarters[:3]) > 0.9:
        return "UTF-32 BE"
    even, odd = (quarters[0] + quarters[2]) / 2, (quarters[1] + quarters[3]) / 2
    if odd > 0.5 and even < 0.2:
        return "UTF-16 LE"
    if even > 0.5 and odd < 0.2:
        return "UTF-16 BE"
    return None


def _nul_error(raw: bytes, file: str) -> InputError:
    at = raw.find(b"\x00")
    line = raw.count(b"\n", 0, at) + 1
    wide = wide_encoding(raw[:4096])
    if wide is not None:
        return InputError(
            f"NUL bytes: this looks like {wide} text without a byte-order mark; save the file as UTF-8",
            file=file,
            line=line,
        )
    return InputError("NUL byte: a text input holds none (a binary or damaged file?)", file=file, line=line)


def json_problem(exc: orjson.JSONDecodeError) -> str:
    """orjson's message without its own position (the caller places it), with the column and a hint where one helps."""
    msg = exc.msg
    hint = ""
    if msg.startswith(("trailing characters", "unexpected content after document")):
        hint = "; a second JSON value follows the first"
    elif "depth limit" in msg or "recursion" in msg:
        hint = "; nested more than 1,024 levels deep"
    return f"invalid JSON: {msg} (column {exc.colno}){hint}"


def jsonl_problem(exc: orjson.JSONDecodeError) -> str:
    """`json_problem` for one line of a JSON lines file, saying why a record that is not one line is refused: every
    JSON lines reader (labels and end-to-end) words a broken record alike."""
    text = json_problem(exc)
    if exc.msg.startswith(("trailing characters", "unexpected content after document")):
        return text + ": a JSON lines file holds one record per line"
    if "end of data" in exc.msg or "EOF" in exc.msg:
        return text + ": the line ends inside the record (a JSON lines record is one line)"
    return text


def parse_json(data: bytes | str, file: str) -> Any:
    """One JSON document; a syntax error (or nesting beyond 1,024 levels) is an InputError at its line, and so is
    an invalid UTF-8 byte (orjson places every one at the start of the input: the bytes are decoded to find it).

    >>> parse_json(b'[1,\\n"a\\xffb"]', "f.json")
    Traceback (most recent call last):
    releval.core.errors.InputError: f.json:2: not valid UTF-8: byte 0xFF at column 3 (offset 6): invalid start byte
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if isinstance(data, bytes) and _utf8_message(exc.msg):
            check_utf8(data, file)
        raise InputError(json_problem(exc), file=file, line=exc.lineno) from None


_LONG_NUMBER = re.compile(rb"[0-9]{20}")


def parse_json_exact(data: bytes, file: str) -> Any:
    """`parse_json`, then, when the data holds a number of 20 digits or more, the document read again with exact
    integers (orjson reads one beyond 64 bits as a float: 10^20 would be refused as `1e+20`, not as itself).

    >>> parse_json_exact(b"[100000000000000000000, 1.5]", "f.json")
    [100000000000000000000, 1.5]
    """
    value = parse_json(data, file)
    if _LONG_NUMBER.search(data):
        exact = exact_json(data)
        if exact is not None:
            return exact
    return value


def _utf8_message(msg: str) -> bool:
    low = msg.lower()
    return "utf-8" in low or "utf8" in low


#: What msgspec may raise on input it cannot decode: its own errors, ValueError (UnicodeDecodeError on invalid
#: UTF-8 in a string) and RecursionError (nesting it cannot follow). A fast path that decodes with msgspec treats
#: each as "not this way" and leaves the input to the careful reader, which locates the problem.
DECODE_FAILURES: tuple[type[BaseException], ...] = (msgspec.MsgspecError, ValueError, RecursionError, OverflowError)


def lone_cr_line(data: bytes) -> int | None:
    """The line of the first carriage return not followed by a line feed, or None (CRLF line ends are fine).

    >>> lone_cr_line(b"a\\r\\nb\\rc\\n"), lone_cr_line(b"a\\r\\n")
    (2, None)
    """
    at = data.find(b"\r")
    while at >= 0:
        if data[at + 1 : at + 2] != b"\n":
            return data.count(b"\n", 0, at) + 1
        at = data.find(b"\r", at + 2)
    return None


def refuse_lone_cr(data: bytes, file: str) -> None:
    """An InputError at the line of a carriage return not followed by a line feed (as every text reader words it)."""
    line = lone_cr_line(data)
    if line is not None:
        raise InputError(
            "a carriage return (CR) not followed by a line feed: lines must end in LF or CRLF (old Mac line ends?)",
            file=file,
            line=line,
        )


#: The largest integer an index, an offset or an answer may be: a signed 64-bit integer, what numpy holds.
MAX_INDEX = 2**63 - 1


def shown_int(value: int) -> str:
    """An integer for a message: its digits, cut when long (a 5,000-digit number is not echoed back).

    >>> shown_int(10**20), shown_int(10**60)
    ('100000000000000000000', '1000000000000000000000000000000000000000… (61 digits)')
    """
    text = str(value) if abs(value) < 10**4000 else "a number of more than 4,000 digits"
    return text if len(text) <= EXCERPT else text[:EXCERPT] + f"… ({len(text.lstrip('-')):,} digits)"


def digits_int(text: str, limit: int = MAX_INDEX) -> int | None:
    """`text` as a whole number when it is ASCII digits only and at most `limit`, else None; the length is checked
    before the conversion, so 5,000 digits cost nothing (and raise nothing).

    >>> digits_int("42"), digits_int("1" * 5000), digits_int(" 4"), digits_int("٤")
    (42, None, None, None)
    """
    if not text or not text.isascii() or not text.isdigit() or len(text) > len(str(limit)):
        return None
    value = int(text)
    return value if value <= limit else None


def exact_json(data: bytes) -> Any | None:
    """The document again with integers of any size exact (msgspec); None when msgspec refuses it."""
    try:
        return msgspec.json.decode(data)
    except (msgspec.MsgspecError, ValueError, RecursionError):
        return None


# ----------------------------------------------------------------------------------------------- repeated keys
# orjson and msgspec keep the last of two values of one key without a word. A key that releval reads may occur
# once per object; finding out must not cost a second parse of every file, hence the byte counts first.


def keys_may_repeat(data: bytes, keys: Iterable[str], present: Mapping[str, int]) -> bool:
    """False when certainly no object holds one of `keys` twice; `present[k]` objects of the parsed data hold key k.

    A key `k` is written `"k"` followed by `:`; a JSON string cannot contain that sequence unescaped. So when the
    data holds `"k"` exactly `present[k]` times (or `"k"` + `:` that often), every such object has it once.
    Escaped spellings of a key (`"l\\u0061bel"`) are not counted, so data with an escaped printable ASCII
    character, or keys that are not plain text, always answer True (the caller then looks object by object).
    """
    keys = list(keys)
    if any(CONTROL.search(k) or '"' in k or "\\" in k for k in keys):
        return True
    if b"\\" in data and (_ESCAPED_ASCII.search(data) or (b"\\u" in data and not all(k.isascii() for k in keys))):
        return True
    for key in keys:
        token = b'"' + key.encode("utf-8") + b'"'
        if data.count(token) == present[key]:
            continue
        if len(re.findall(re.escape(token) + rb"[ \t\r\n]*:", data)) != present[key]:
            return True
    return False


class KeyedObject(dict):
    """A JSON object read by the standard library, with the keys it held more than once in `repeated`."""

    repeated: list[str]


def _keyed(pairs: list[tuple[str, Any]]) -> KeyedObject:
    out = KeyedObject(pairs)
    out.repeated = [k for k, c in Counter(k for k, _ in pairs).items() if c > 1] if len(out) != len(pairs) else []
    return out


def with_all_keys(document: bytes) -> Any:
    """The JSON document read again by the standard library, every object a KeyedObject; None if unreadable.

    Slow (pure Python objects); only for data that `keys_may_repeat` could not clear. The data passed orjson, so it
    nests at most 1,024 levels; the recursion limit is raised for the standard library's parser while it reads.
    """
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(old + 2000)
    try:
        return json.loads(document, object_pairs_hook=_keyed)
    except (ValueError, RecursionError):
        return None
    finally:
        sys.setrecursionlimit(old)


def first_repeated_key(value: Any, keys: Container[str] | None = None) -> str | None:
    """The first key written twice in any object of a `with_all_keys` value (walked without recursion), or None;
    with `keys`, only those keys count (the keys a reader reads: a repeated key it ignores changes nothing).

    >>> first_repeated_key(with_all_keys(b'[{"a": 1, "b": [{"c": 1, "c": 2}]}]'), ("a", "c"))
    'c'
    """
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, KeyedObject) and node.repeated:
            found = [k for k in node.repeated if keys is None or k in keys]
            if found:
                return found[0]
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def refuse_repeated_record_keys(data: bytes, name: str, present: Mapping[str, int]) -> None:
    """A key that is read, written twice in one object of a JSON list of records, is an InputError naming the
    record (1-based) and the key: JSON parsers keep the last value silently, and the label readers refuse it too.
    `present[k]`: how many objects hold key k as read; byte counts clear most files at once (`keys_may_repeat`),
    and the document is read again with every key kept only when they leave doubt (DocRED, FewRel).

    >>> refuse_repeated_record_keys(b'[{"a": 1, "a": 2}]', "x.json", {"a": 1})
    Traceback (most recent call last):
    ...
    releval.core.errors.InputError: x.json: record 1: field 'a': key written twice in one object ...
    """
    if not keys_may_repeat(data, present, present):
        return
    whole = with_all_keys(data)
    if not isinstance(whole, list):
        return
    for i, record in enumerate(whole, 1):
        key = first_repeated_key(record, present)
        if key is not None:
            raise InputError(
                "key written twice in one object (a JSON parser keeps only the last value)",
                file=name,
                record=i,
                field=key,
            )
