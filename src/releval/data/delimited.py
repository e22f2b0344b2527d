"""Lines, and CSV/TSV records with the line each starts on: located InputErrors instead of csv.Error tracebacks.

Rules (docs/formats.md, issue 11):

* Lines end in LF or CRLF; the final line end is optional. A CR that is not followed by LF is refused at its line,
  also inside a quoted CSV field: old Mac line ends would otherwise glue lines together or leave a CR inside an id
  or a label, and csv itself reads `\r\r\n` as one line end.
* CSV/TSV tables (`csv`, `tsv`, the p-value and check-stats tables) use RFC 4180 quoting as Python's csv module
  reads it in strict mode: a quoted field may hold delimiters, quotes written twice and line breaks; after its
  closing quote only the delimiter or the line end may follow. A quote opened and never closed is reported at the
  line where the record starts, with a short excerpt of that line — not at the last line with the rest of the file
  dumped into the message.
* Fields of any length are read: csv's default limit of 128 KiB per field is raised once, deliberately (it is a
  process-wide setting, and only ever raised).
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from itertools import repeat

from releval.core.errors import InputError
from releval.data.decoding import excerpt

FIELD_LIMIT = min(sys.maxsize, 2**31 - 1)  # the largest value csv accepts on every platform (a C long)


def _no_lone_cr(text: str, file: str) -> str:
    """`text` with CRLF line ends made LF; a CR not followed by LF anywhere (also inside a quoted field) is an
    InputError at its line."""
    if "\r" not in text:
        return text
    text = text.replace("\r\n", "\n")
    at = text.find("\r")
    if at >= 0:
        raise InputError(
            "a carriage return (CR) not followed by a line feed: lines must end in LF or CRLF (old Mac line ends?)",
            file=file,
            line=text.count("\n", 0, at) + 1,
        )
    return text


def text_lines(text: str, file: str) -> list[str]:
    """Lines without their LF/CRLF ends (a missing final line end is fine); a lone CR is an InputError at its line."""
    lines = _no_lone_cr(text, file).split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def iter_text_lines(text: str, file: str) -> Iterator[str]:
    """`text_lines` one line at a time (the lone CR checked first), without a list of every line.

    >>> all(list(iter_text_lines(t, "f")) == text_lines(t, "f") for t in ("", "\\n", "a\\r\\n\\nb", "a\\n"))
    True
    """
    for line in lines_of(_no_lone_cr(text, file)):
        yield line[:-1] if line.endswith("\n") else line


def line_blocks(data: bytes, size: int, start: int = 0) -> Iterator[tuple[int, int]]:
    """(start, end) of consecutive slices of `data` from byte `start`, of about `size` bytes each, every one ending
    after a line feed (the last one at the end of the data)."""
    while start < len(data):
        end = data.find(b"\n", start + size - 1)
        end = len(data) if end < 0 else end + 1
        yield start, end
        start = end


def text_blocks(data: bytes, size: int) -> Iterator[list[str] | None]:
    """The lines of UTF-8 `data`, about `size` bytes at a time (`line_blocks`), split as `text_lines` splits the
    whole text; None for a block that is not valid UTF-8 or holds a lone CR (the caller then reads the whole text,
    which names the line). A line feed never splits a UTF-8 character nor a CRLF."""
    for start, end in line_blocks(data, size):
        try:
            text = data[start:end].decode("utf-8")
        except UnicodeDecodeError:
            yield None
            return
        if "\r" in text:
            text = text.replace("\r\n", "\n")
            if "\r" in text:
                yield None
                return
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        yield lines


def split_columns(lines: list[str], delimiter: str, k: int) -> list[list[str]] | None:
    """The k columns of `lines` when every line holds exactly k - 1 delimiters (no per-line Python code), else None.

    The fast path of the `<id>\\t<label>` and unquoted table readers: the lines are joined and split once, and
    column j is every k-th field from j.
    """
    if not lines:
        return [[] for _ in range(k)]
    if k < 2 or list(map(str.count, lines, repeat(delimiter))).count(k - 1) != len(lines):
        return None
    fields = delimiter.join(lines).split(delimiter)
    return [fields[j::k] for j in range(k)]


def _allow_long_fields() -> None:
    if csv.field_size_limit() < FIELD_LIMIT:
        csv.field_size_limit(FIELD_LIMIT)


def lines_of(text: str) -> Iterator[str]:
    """The lines of `text`, each with its LF, as `io.StringIO(text)` gives them, one slice at a time: a StringIO
    holds the whole text again as 4-byte characters (4 times an ASCII file), which issue 34's memory bound forbids.

    >>> import io
    >>> list(lines_of("a\\tb\\r\\nc\\n\\nd")) == list(io.StringIO("a\\tb\\r\\nc\\n\\nd"))
    True
    """
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start)
        stop = size if end < 0 else end + 1
        yield text[start:stop]
        start = stop


def iter_records(text: str, delimiter: str, file: str) -> Iterator[tuple[int, int, list[str]]]:
    """(first line, last line, fields) of each record in turn, RFC 4180 quoting (csv, strict); a blank line gives [].

    Every csv.Error becomes an InputError located at the line where the record starts (an unclosed quote) or where
    the reader stopped (a lone CR, a character after a closing quote).
    """
    _allow_long_fields()
    text = _no_lone_cr(text, file)  # csv itself takes "\r\r\n" for one line end
    reader = csv.reader(lines_of(text), delimiter=delimiter, strict=True)
    end = 0
    try:
        for row in reader:
            yield (end + 1, reader.line_num, row)
            end = reader.line_num
    except csv.Error as exc:
        first = text.split("\n", end + 1)[end].rstrip("\r") if text.count("\n") >= end else ""
        raise _located(str(exc), first, end + 1, reader.line_num, file) from None


def read_records(text: str, delimiter: str, file: str) -> list[tuple[int, int, list[str]]]:
    """Every record of `iter_records`, in a list."""
    return list(iter_records(text, delimiter, file))


def _located(message: str, first: str, start: int, stop: int, file: str) -> InputError:
    """The InputError for a csv.Error: `first` is the record's first line, `start`..`stop` the lines it covers."""
    if "unexpected end of data" in message:
        rest = f"the rest of the file (to line {stop}) would be one value" if stop > start else "the line ends first"
        return InputError(
            f'a quote (") opened in this record is never closed, so {rest}: {excerpt(first)}', file=file, line=start
        )
    if "new-line character" in message:
        return InputError(
            "a carriage return (CR) not followed by a line feed: lines must end in LF or CRLF (old Mac line ends?)",
            file=file,
            line=stop,
        )
    if "expected after" in message:
        return InputError(
            f"{message}: a closing quote must be followed by the delimiter or the line end (write a quote inside a "
            'quoted field as "")',
            file=file,
            line=stop,
        )
    return InputError(f"malformed CSV/TSV: {message}", file=file, line=stop)


def split_record(line: str, delimiter: str, file: str, number: int) -> list[str]:
    """The fields of one line read on its own (p-value tables): RFC 4180 quoting, csv.Error located at `number`."""
    _allow_long_fields()
    try:
        return next(csv.reader([line], delimiter=delimiter, strict=True), [])
    except csv.Error as exc:
        raise _located(str(exc), line, number, number, file) from None
