"""Reading input files: gzip transparently, CRLF tolerated, decoding errors located by file.

Every input is read whole, so its size is bounded (`max_input_bytes`): a plain file over the limit is refused
before it is read, and a gzip file is decompressed in chunks and refused as soon as its output crosses the limit,
or, past 64 MiB, expands more than `max_gzip_ratio` times what it was compressed from, so a gzip bomb (a few MB
that inflate to many GB) costs about 64 MiB in memory, not its full size nor the size limit.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
import select
import stat
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from releval.core.errors import InputError, OptionError

PathLike = str | os.PathLike[str]

#: The default bound on one input's bytes once read and gunzipped: 4 GiB. A 10^7-line JSONL or TSV file of ids and
#: labels is 0.2–1 GB and TACRED's JSON (10^5 sentences with their tokens) about 0.1 GB, so genuine inputs fit with
#: room to spare, while a gzip bomb stops at 4 GiB instead of exhausting memory. Override: MAX_INPUT_BYTES_VARIABLE.
DEFAULT_MAX_INPUT_BYTES = 4 * 1024**3
#: The environment variable that sets the limit: bytes, or a number with K, M, G or T (binary units), e.g. 16G.
MAX_INPUT_BYTES_VARIABLE = "RELEVAL_MAX_INPUT_BYTES"
#: The default bound on a gzip input's expansion: 100 times its compressed size. Genuine inputs compress 4–20
#: times (JSONL of random ids and labels about 4, TSV about 7, pretty-printed JSON up to 20), while deflate reaches
#: about 1,000 on data that is one byte or one line repeated — what a gzip bomb is made of. The ratio is checked
#: only once the output passes GZIP_RATIO_FLOOR, so a small file of one repeated line is read whatever its ratio.
#: Override: MAX_GZIP_RATIO_VARIABLE.
DEFAULT_MAX_GZIP_RATIO = 100
#: The environment variable that sets the expansion limit: a positive whole number (e.g. 2000).
MAX_GZIP_RATIO_VARIABLE = "RELEVAL_MAX_GZIP_RATIO"
#: Decompressed bytes below which no expansion ratio is refused (64 MiB): a bomb is stopped after about this much.
GZIP_RATIO_FLOOR = 64 << 20
GZIP_MAGIC = b"\x1f\x8b"
#: The path that stands for standard input (`releval score gold.json - < preds.txt`), and its name in errors.
STDIN = "-"
STDIN_NAME = "<stdin>"
_CHUNK = 1 << 22  # bytes decompressed (or read from a pipe) per step: large enough to cost nothing per call
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}

# (device, inode) → path of every file read while `recording_inputs` is active (None: not recording).
_recorded: dict[tuple[int, int], str] | None = None


def max_input_bytes() -> int:
    """The most bytes one input may have once read and gunzipped: $RELEVAL_MAX_INPUT_BYTES or 4 GiB.

    The variable takes a whole number of bytes, optionally with a binary unit (K, M, G, T, also KiB/KB forms,
    case-insensitive): `16G` is 16·2^30. Anything else, or zero, is an OptionError naming the variable (exit 2).
    """
    raw = os.environ.get(MAX_INPUT_BYTES_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_MAX_INPUT_BYTES
    match = re.fullmatch(r"(\d+)\s*([kmgt]?)(?:i?b)?", raw, flags=re.IGNORECASE)
    if match is None or int(match[1]) == 0:
        raise OptionError(
            f"{MAX_INPUT_BYTES_VARIABLE} must be a positive number of bytes such as 8589934592 or 8G, got {raw!r}",
            option=MAX_INPUT_BYTES_VARIABLE,
        )
    return int(match[1]) * _UNITS[match[2].lower()]


def max_gzip_ratio() -> int:
    """The most times a gzip input may expand once past GZIP_RATIO_FLOOR: $RELEVAL_MAX_GZIP_RATIO or 100.

    A positive whole number; anything else is an OptionError naming the variable (exit 2).
    """
    raw = os.environ.get(MAX_GZIP_RATIO_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_MAX_GZIP_RATIO
    if not raw.isdigit() or int(raw) == 0:
        raise OptionError(
            f"{MAX_GZIP_RATIO_VARIABLE} must be a positive whole number such as 1000, got {raw!r}",
            option=MAX_GZIP_RATIO_VARIABLE,
        )
    return int(raw)


def describe_size(n: int) -> str:
    """Bytes in the largest binary unit that keeps a whole or one-decimal number: 4 GiB, 1.5 MiB, 512 bytes."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


@contextlib.contextmanager
def recording_inputs() -> Iterator[None]:
    """Within the block, remember every file `read_bytes` opens, so an output can be checked against them.

    The command line records each run's inputs, and `-o` refuses to replace one of them (inputs_read); outside
    such a block nothing is recorded.
    """
    global _recorded
    previous, _recorded = _recorded, {}
    try:
        yield
    finally:
        _recorded = previous


def inputs_read() -> list[str]:
    """The paths `read_bytes` has opened in the current `recording_inputs` block (empty outside one)."""
    return [] if _recorded is None else list(_recorded.values())


def _over_limit(path: str, limit: int, what: str, line: int | None = None) -> InputError:
    return InputError(
        f"{what} more than {describe_size(limit)}, releval's limit for one input; if the file is genuine, raise "
        f"the limit with {MAX_INPUT_BYTES_VARIABLE} (e.g. {MAX_INPUT_BYTES_VARIABLE}=16G)",
        file=path,
        line=line,
    )


def _wait_readable(handle: BinaryIO) -> None:
    """Return once the stream has data or is at its end, going back to Python every 0.2 s meanwhile.

    A signal that arrives after Python's last check but before a blocking read() starts is otherwise held back
    until the read returns, which on a FIFO whose writer stays silent is never (Ctrl-C would be lost; reproduced
    under CPU load). Polling lets the pending handler run. Where select() cannot watch the stream, read at once.
    """
    try:
        fd = handle.fileno()
        while not select.select([fd], [], [], 0.2)[0]:
            pass
    except (OSError, ValueError, io.UnsupportedOperation):
        return


def _read_bounded(handle: BinaryIO, path: str, limit: int) -> bytes:
    """All bytes of a stream of unknown size (a FIFO, a device, a /proc file), refused once over `limit`."""
    out = io.BytesIO()
    while True:
        _wait_readable(handle)
        chunk = handle.read(_CHUNK)
        if not chunk:
            break
        if out.tell() + len(chunk) > limit:
            raise _over_limit(path, limit, "has")
        out.write(chunk)
    return out.getvalue()


def _gunzip(handle: BinaryIO, path: str, limit: int) -> bytes:
    """The decompressed bytes of a gzip stream (all members), in chunks, refused as soon as they pass `limit`, or
    once past GZIP_RATIO_FLOOR as soon as they pass `max_gzip_ratio()` times the compressed bytes read so far.

    A BytesIO collects the chunks: it grows in place (realloc), and getvalue() hands its buffer over without a copy,
    so the peak is about the output's size, not twice it as with a list of chunks joined at the end. The ratio is
    measured while streaming (the compressed position is the handle's), so a bomb costs about the floor in memory
    whatever the size limit.
    """
    ratio = max_gzip_ratio()
    start = _position(handle)
    out = io.BytesIO()
    try:
        with gzip.GzipFile(fileobj=handle, mode="rb") as stream:
            while chunk := stream.read(_CHUNK):
                size = out.tell() + len(chunk)
                if size > limit:
                    keep = limit - out.tell()
                    view = out.getbuffer()
                    lines = sum(bytes(view[i : i + _CHUNK]).count(b"\n") for i in range(0, len(view), _CHUNK))
                    del view
                    raise _over_limit(path, limit, "decompresses to", line=lines + chunk.count(b"\n", 0, keep) + 1)
                if size > GZIP_RATIO_FLOOR and start is not None:
                    read = (_position(handle) or start) - start
                    if size > ratio * max(read, 1):
                        raise InputError(
                            f"gzip data expands more than {ratio} times ({describe_size(read)} compressed gave "
                            f"{describe_size(size)} so far), far beyond genuine inputs (4–20 times): refused as a "
                            f"possible gzip bomb; if the file is genuine, raise the limit with "
                            f"{MAX_GZIP_RATIO_VARIABLE} (e.g. {MAX_GZIP_RATIO_VARIABLE}=2000) or decompress it first",
                            file=path,
                        )
                out.write(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"corrupt gzip data: {exc}", file=path) from None
    return out.getvalue()


def _position(handle: BinaryIO) -> int | None:
    """The handle's read position (None when it has none)."""
    try:
        return handle.tell()
    except (OSError, ValueError):
        return None


def read_bytes(path: PathLike) -> bytes:
    """The file's bytes, gunzipped when it starts with the gzip magic number, at most `max_input_bytes()` of them.

    The path `-` is standard input. A regular file over the limit is refused before it is read; a gzip file is
    decompressed in chunks and refused (InputError at the line where the limit was crossed) as soon as its output
    passes the limit, and so is a stream of unknown size (a FIFO, a device, standard input). The file is remembered
    when `recording_inputs` is active.
    """
    name = str(path)
    limit = max_input_bytes()
    if (
        name == STDIN
    ):  # standard input: a stream of unknown size, read bounded (a file called "-": by its absolute path)
        import sys

        raw = _read_bounded(sys.stdin.buffer, STDIN_NAME, limit)
        return _gunzip(io.BytesIO(raw), STDIN_NAME, limit) if raw[:2] == GZIP_MAGIC else raw
    try:
        with open(Path(path), "rb", buffering=0) as handle:
            info = os.fstat(handle.fileno())
            if _recorded is not None:
                _recorded[(info.st_dev, info.st_ino)] = name
            if not (stat.S_ISREG(info.st_mode) and info.st_size > 0):  # size unknown: read it, bounded
                raw = _read_bounded(handle, name, limit)
                return _gunzip(io.BytesIO(raw), name, limit) if raw[:2] == GZIP_MAGIC else raw
            if info.st_size > limit:
                raise _over_limit(name, limit, f"is {describe_size(info.st_size)},")
            if handle.read(2) == GZIP_MAGIC:
                handle.seek(0)
                return _gunzip(handle, name, limit)
            handle.seek(0)
            raw = handle.readall()
    except FileNotFoundError:
        raise InputError("file not found", file=name) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", file=name) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=name) from None
    if len(raw) > limit:  # it grew while being read
        raise _over_limit(name, limit, "has")
    return raw


def read_head(path: PathLike, size: int) -> bytes | None:
    """The first lines of a regular file, at most about `size` bytes of them (gunzipped when the file is gzip), cut
    after the last line feed; None for standard input, a file that is not regular, one of at most `2 * size` bytes
    on disk (read it whole), or one whose head holds no line feed or cannot be read (the whole read reports why).

    Readers that can judge lines on their own look at the head first, so a huge file whose second line is already
    fatal is refused after a few MiB instead of after gigabytes (issue 34: 22 GiB spent on 1 GiB of repeated ids).
    """
    name = str(path)
    if name == STDIN:
        return None
    try:
        with open(Path(path), "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size <= 2 * size:
                return None
            if _recorded is not None:
                _recorded[(info.st_dev, info.st_ino)] = name
            gzipped = handle.read(2) == GZIP_MAGIC
            handle.seek(0)
            if gzipped:
                with gzip.GzipFile(fileobj=handle, mode="rb") as stream:
                    head = stream.read(size)
            else:
                head = handle.read(size)
    except (OSError, EOFError, zlib.error):
        return None
    end = head.rfind(b"\n")
    return head[: end + 1] if end >= 0 else None


def read_text(path: PathLike) -> str:
    """The file decoded as UTF-8 (a BOM is dropped)."""
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise utf8_error(raw, exc, str(path)) from None


def utf8_error(data: bytes, exc: UnicodeDecodeError, file: str) -> InputError:
    """The InputError of the first invalid UTF-8 byte of `data`: its line, its column (characters, from 1), its
    value and its offset in the file, and the decoder's reason. Every reader reports a bad byte through this, so
    one file gets one message whichever command reads it:

    >>> str(utf8_error(b'[\\n"ab\\xfe"]', UnicodeDecodeError("utf-8", b"", 5, 6, "invalid start byte"), "f.json"))
    'f.json:2: not valid UTF-8: byte 0xFE at column 4 (offset 5): invalid start byte'
    """
    start = exc.start
    line_start = data.rfind(b"\n", 0, start) + 1
    column = len(data[line_start:start].decode("utf-8", errors="replace")) + 1
    line = data.count(b"\n", 0, start) + 1
    return InputError(
        f"not valid UTF-8: byte 0x{data[start]:02X} at column {column} (offset {start}): {exc.reason}",
        file=file,
        line=line,
    )
