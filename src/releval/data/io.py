"""Reading input files: gzip transparently, CRLF tolerated, decoding errors located by file."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

from releval.errors import InputError

PathLike = str | os.PathLike[str]


def read_bytes(path: PathLike) -> bytes:
    """The file's bytes, gunzipped when it starts with the gzip magic number."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", file=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", file=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise InputError(f"corrupt gzip data: {exc}", file=str(path)) from None
    return raw


def read_text(path: PathLike) -> str:
    """The file decoded as UTF-8 (a BOM is dropped)."""
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 (byte {exc.start})", file=str(path), line=line) from None


def split_lines(text: str) -> list[str]:
    """Lines without their LF/CRLF ends; a missing final newline is tolerated."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
