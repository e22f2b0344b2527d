"""What a format is: the interface every format module implements, and what its parser returns.

A label format (`LabelFormat`) turns a file's bytes into a `LabelFile` (ids, labels, where each item is); an
end-to-end format (`E2EFormat`) turns them into an `E2EDataset` of `Document`s (tokens, entity mentions,
relations). Both recognise their own files from the first 64 KiB (`sniff`, on a `Head`) and say how sure they are
(`Evidence`); `releval.data.formats.detect` asks every registered format and takes the surest.

Nothing here reads a file or imports a parser: the registry imports this module to know the interface, and a
format's own module is imported only when it is used.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from functools import cached_property
from typing import Any, ClassVar

from releval.core.errors import InputError
from releval.data.documents import Document, Entity, Relation  # noqa: F401  (re-exported: the readers import them here)

HEAD_BYTES = 65536  # how much of a file format detection reads
Span = tuple[str, int, int]  # (id, first line, last line) of one record; records instead of lines in a JSON list


# ----------------------------------------------------------------------------------------------- what parsers return


@dataclass(frozen=True)
class LabelFile:
    """Items of one file: ids (None when aligned by position), labels, where each item is, extra fields.

    `lines` holds each item's line number, or its record number when `unit` is "record" (a JSON list, where a
    line would mean nothing); `error(message, i)` makes an InputError located there.

    The loaders hold ids, labels and extra fields as compact columns (`releval.data.columns.IdColumn` and
    `LabelColumn`: sequences of str equal to the lists they stand for); a LabelFile made by hand may hold lists.
    """

    path: str
    format: str
    ids: Sequence[str] | None
    labels: Sequence[str]
    lines: Sequence[int]
    fields: Mapping[str, Sequence[str]] = field(default_factory=dict)
    digest: str = ""
    unit: str = "line"

    def __len__(self) -> int:
        return len(self.labels)

    def with_labels(self, labels: Sequence[str]) -> LabelFile:
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


@dataclass(frozen=True)
class E2EDataset:
    """Documents of one file, by split (`train`/`dev`/`test` for a sincere split file, else the file's stem).

    `model_output`: the file holds a model's output keys (PURE/DyGIE++ `predicted_ner` / `predicted_relations`),
    whichever keys were read — a gold file that has them was probably given in the predictions' place."""

    path: str
    format: str
    splits: dict[str, list[Document]]
    notes: list[str] = field(default_factory=list)
    model_output: bool = False

    @property
    def documents(self) -> list[Document]:
        """All documents, splits concatenated in file order."""
        return [doc for docs in self.splits.values() for doc in docs]


# ----------------------------------------------------------------------------------------------- detection


class Evidence(IntEnum):
    """How a sniff recognised its format, surest first. `detect` takes the surest answer; among equally sure
    answers, the format registered first. The scale is the order the checks have always run in, so a new format
    picks the level that says what it looked at."""

    OPENING = 0  # the first non-blank character settles it: `[` opens a JSON list
    SYNTAX = 1  # most of the first lines are the format's syntax (JSON objects)
    NAME = 2  # the file name's extension belongs to the format alone (.csv, .jsonl, .json)
    SIGNATURE = 3  # a line only this format writes: a SemEval block's first line, a header naming the id field
    MAJORITY = 4  # most of the first 200 non-blank lines have the format's shape (`<id>\t<label>`)
    HINT = 5  # the first line has the format's shape, the others need not (a tab in it)
    WEAK_NAME = 6  # an extension several formats use (.tsv), when nothing else spoke


class Head:
    """The first 64 KiB of a file as text, for the sniffs: invalid UTF-8 there is an InputError at its line (a guess
    from garbage would only send the user after the wrong format); a character cut at the 64 KiB boundary is
    dropped, and so is a second byte-order mark (the loader then names it).

    `header_fields`: column names the caller will look for (the id and label field), which mark a header row.
    """

    def __init__(self, data: bytes, path: str, header_fields: Sequence[str] = ()) -> None:
        self.text = _head_text(data, path).lstrip("\ufeff")
        self.stripped = self.text.lstrip()
        self.name = path.lower().removesuffix(".gz")  # the name that says the format, gzip or not
        self.path = path
        self.size = len(data)
        self.header_fields = tuple(header_fields)

    @cached_property
    def lines(self) -> list[str]:
        """The first 200 non-blank lines, without their line ends."""
        return [ln.removesuffix("\r") for ln in self.text.split("\n") if ln.strip()][:200]

    @property
    def first_line(self) -> str:
        """The first non-blank line ('' for a blank head)."""
        return self.lines[0] if self.lines else ""

    def named(self, *suffixes: str) -> bool:
        """True when the file name (without .gz) ends in one of `suffixes` (lower case)."""
        return self.name.endswith(suffixes)


def _head_text(data: bytes, name: str) -> str:
    from releval.data.decoding import decode_text

    chunk = data[:HEAD_BYTES]
    try:
        return chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(data) > len(chunk) and exc.start >= len(chunk) - 3:
            return chunk[: exc.start].decode("utf-8")
        return decode_text(chunk, name)  # raises, located


# ----------------------------------------------------------------------------------------------- the interfaces


@dataclass(frozen=True)
class Fields:
    """What a label parser is asked for: the role ('gold' picks the gold label of a two-label file, 'pred' the
    prediction), the id field, the label field (None: the format's default or the first candidate present),
    and whether repeated ids are refused (a large prediction file leaves that to alignment)."""

    role: str = "gold"
    id_field: str = "id"
    label_field: str | None = None
    check_unique: bool = True


class LabelFormat(ABC):
    """A one-label-per-item format. A subclass sets `name` and implements `parse`; `sniff` and `record_spans`
    have defaults (never guessed; one line per item, read by `parse` itself).

    `parse` receives UTF-8 bytes without a byte-order mark that are not blank (the caller checked), and raises
    InputError or InputErrors for every problem, located at the line (or record) and field.
    """

    name: ClassVar[str]

    def sniff(self, head: Head) -> Evidence | None:
        """How surely `head` is the beginning of a file of this format; None: it is not (or cannot be told)."""
        return None

    @abstractmethod
    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        """Every item of `data`; `name` (the file) is used in errors."""

    def record_spans(self, data: bytes, name: str, fields: Fields) -> list[Span]:
        """(id, first line, last line) of every record in file order, repeated ids included (the audit lists them
        and drops the repetitions). The ids are spelled exactly as `parse` spells them."""
        loaded = self.parse(data, name, replace(fields, check_unique=False))
        return [(item_id, n, n) for item_id, n in zip(loaded.ids or [], loaded.lines)]

    def without_records(self, data: bytes, dropped: Sequence[tuple[int, int]]) -> tuple[bytes, list[int]]:
        """`data` without the records at the (first, last) line spans `dropped`, and the original number of each
        line kept (which maps the numbers `parse` gives the rest back to the original file)."""
        skip = {n for start, end in dropped for n in range(start, end + 1)}
        lines = data.split(b"\n")
        kept = [i for i in range(1, len(lines) + 1) if i not in skip]
        return b"\n".join(lines[i - 1] for i in kept), kept


class E2EFormat(ABC):
    """An end-to-end format (entity mentions and relations). A subclass sets `name`, `sniff` and `load`, and
    says which files are its own once parsed: `claims(document)` for a file that is one JSON document,
    `claims_lines(first)` for JSON lines whose first non-blank line is `first`. `read_e2e` parses a file once
    and hands the content to the format that claims it; `parse` reads a file as this format, whatever it holds.
    """

    name: ClassVar[str]
    #: The task (releval.registry) that reads end-to-end files: `stats --task auto` asks it for their statistics.
    task: ClassVar[str] = "e2e"

    def sniff(self, head: Head) -> Evidence | None:
        """How surely `head` is the beginning of a file of this format (this tells end-to-end files from label
        files); None: it is not."""
        return None

    def claims(self, document: Any) -> bool:
        """True when a file that is the one JSON value `document` is of this format."""
        return False

    def claims_lines(self, first: Any) -> bool:
        """True when a file that is no one JSON value, whose first non-blank line is the JSON value `first`
        (None: not JSON), is JSON lines of this format."""
        return False

    def content(self, document: Any, data: bytes) -> Any:
        """The content `load` takes, from a whole-file JSON `document` (orjson's reading of `data`)."""
        return document

    def read_lines(self, data: bytes, name: str) -> Any:
        """The content `load` takes, from a file of JSON lines; unreadable lines are InputErrors at their line.

        A format whose files are one JSON document has no JSON-lines reading: such a file is refused."""
        raise InputError(f"a {self.name} file is one JSON document, not JSON lines", file=name)

    @abstractmethod
    def load(self, content: Any, data: bytes, name: str, role: str) -> E2EDataset:
        """Every document of `content` (from `content` or `read_lines`), checked; `data` is the file's bytes."""

    def parse(self, data: bytes, name: str, role: str = "gold") -> E2EDataset:
        """Every document of `data` read as this format; `role` 'pred' reads a format's predicted fields."""
        from releval.data.formats import read_e2e

        fmt, content = read_e2e(data, name, self)
        return self.load(content, data, name, role)

    def dangling(self, data: bytes, role: str) -> list[str]:
        """Every relation whose argument is not one of its sentence's entity mentions, counted over the raw file
        (the loader stops at the first); empty when the file cannot be read this far."""
        return []
