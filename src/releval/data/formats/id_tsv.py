"""`id-tsv` and `semeval-tsv`: one `<id>\\t<label>` line per item, no header.

`id-tsv` is the plain form many RE code bases write for predictions (an id, a tab, the label):

    id0	per:title
    id1	no_relation

`semeval-tsv` is the answer-key and prediction format of the SemEval-2010 Task 8 scorer
(`semeval2010_task8_scorer-v1.2.pl`, `TEST_FILE_KEY.TXT`): a numeric id and one of the 19 directed (or the 10
undirected) labels, written exactly, as the official format checker demands:

    8001	Message-Topic(e1,e2)
    8002	Product-Producer(e2,e1)
"""

from __future__ import annotations

import re

from releval.core.errors import InputError, raise_all
from releval.data import semeval_labels as sem
from releval.data.decoding import decode_text, excerpt
from releval.data.delimited import split_columns, text_blocks, text_lines
from releval.data.formats import space_separated, space_separated_error
from releval.data.formats.base import Evidence, Fields, Head, LabelFile, LabelFormat
from releval.data.formats.common import MAX_ERRORS, BlockReader, id_problem, label_problem, make_file

#: Bytes of `<id>\t<label>` lines read at a time: the block's strings are dropped once its columns are filled.
BLOCK_BYTES = 1 << 21

_TABBED = re.compile(r"^\S+\t")
_NUMERIC = re.compile(r"^[0-9]+\t")
_SEMEVAL_LINE = re.compile(r"^([0-9]+)\t(.+)$")
_DIGITS = re.compile(r"[0-9]+")
_KNOWN = sem.DIRECTED_SET | sem.UNDIRECTED_SET


def _tabbed(head: Head) -> list[str]:
    """The first lines that start with `<id>\\t`, when they are most of them; else []."""
    tabbed = [ln for ln in head.lines if _TABBED.match(ln)]
    return tabbed if len(tabbed) * 2 > len(head.lines) else []


def white_space_problem(label: str) -> str:
    """The error for a SemEval-2010 Task 8 label with white space around it, named as such (not as an unknown
    label): which side, and the label it would be.

    >>> white_space_problem("Other ")
    "label 'Other ' has trailing white space after the SemEval-2010 Task 8 label 'Other': write the label without it"
    """
    side = "trailing" if label.lstrip() == label else "leading" if label.rstrip() == label else "surrounding"
    where = {"trailing": "after", "leading": "before", "surrounding": "around"}[side]
    return (
        f"label {excerpt(label)} has {side} white space {where} the SemEval-2010 Task 8 label {label.strip()!r}: "
        "write the label without it"
    )


class IdTsv(LabelFormat):
    """`<id>\\t<label>` lines: any id and label (checked as every format checks them), one tab per line."""

    name = "id-tsv"
    semeval = False

    def sniff(self, head: Head) -> Evidence | None:
        """Most first lines `<id>\\t…`; failing all else, a `.tsv` name."""
        if _tabbed(head):
            return Evidence.MAJORITY
        return Evidence.WEAK_NAME if head.named(".tsv") else None

    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        """Fast path: a block of lines at a time (`BlockReader`), each block's columns from one join and split when
        every line holds one tab, checked on whole columns. Anything else (or a failed check) reads the whole file
        again: its columns when every line has one tab, where the checks name the problems, or line by line."""
        loaded = self._by_block(data, name, fields.check_unique)
        if loaded is not None:
            return loaded
        lines = text_lines(decode_text(data, name), name)
        columns = split_columns(lines, "\t", 2)
        if columns is not None:
            ids, labels = columns
            numbers = range(1, len(lines) + 1)
            if self._plausible(ids, labels):
                return make_file(name, self.name, ids, labels, numbers, check_unique=fields.check_unique)
        return self._by_line(lines, name)

    def _by_block(self, data: bytes, name: str, check_unique: bool) -> LabelFile | None:
        """The file read BLOCK_BYTES at a time into compact columns, or None when a block is not plain `<id>\\t<label>`
        lines that pass every check."""
        reader = BlockReader()
        for lines in text_blocks(data, BLOCK_BYTES):
            columns = None if lines is None else split_columns(lines, "\t", 2)
            if columns is None:
                return None
            ids, labels = columns
            if not (self._plausible(ids, labels) and reader.add(ids, labels)):
                return None
        return reader.finish(name, self.name, check_unique)

    def _plausible(self, ids: list[str], labels: list[str]) -> bool:
        """What the format asks of a block's columns beyond what every format does (nothing, for `id-tsv`)."""
        return not self.semeval or bool(set(labels) <= _KNOWN and _DIGITS.fullmatch("".join(ids)) and all(ids))

    def _read_line(self, raw: str) -> tuple[str, str, str | None, str | None]:
        """(id, label, problem, field of the problem) of one non-blank line; the problem is None for a good line."""
        parts = raw.split("\t")
        if len(parts) != 2:
            return "", "", f"expected '<id>\\t<label>', got {excerpt(raw)}", None
        item_id, label = parts
        problem = id_problem(item_id)
        if problem is not None:
            return item_id, label, problem, "id"
        problem = label_problem(label)
        return item_id, label, problem, "label"

    def _by_line(self, lines: list[str], name: str) -> LabelFile:
        """Line by line: every problem named (repeated ids too, so one run lists them all), at most 50."""
        ids: list[str] = []
        labels: list[str] = []
        numbers: list[int] = []
        errors: list[InputError] = []
        first_seen: dict[str, int] = {}
        head = [(i, ln) for i, ln in enumerate(lines[:200], 1) if ln.strip()]
        if head and not any("\t" in ln for _, ln in head) and space_separated([ln for _, ln in head]):
            raise space_separated_error(name, head[0][1], head[0][0])  # one error, not one per line
        for i, raw in enumerate(lines, 1):
            if len(errors) >= MAX_ERRORS:
                break
            if not raw.strip():
                errors.append(InputError("empty line", file=name, line=i))
                continue
            item_id, label, problem, fld = self._read_line(raw)
            if problem is not None:
                errors.append(InputError(problem, file=name, line=i, field=fld))
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
        return make_file(name, self.name, ids, labels, numbers, check_unique=False)


class SemevalTsv(IdTsv):
    """`<digits>\\t<label>` lines with a SemEval-2010 Task 8 label, the official format checker's rules."""

    name = "semeval-tsv"
    semeval = True

    def sniff(self, head: Head) -> Evidence | None:
        """Most first lines `<id>\\t…`, most of those with a numeric id, at least half with a SemEval label."""
        tabbed = _tabbed(head)
        if not tabbed:
            return None
        known = sum(ln.split("\t", 1)[1].strip() in _KNOWN for ln in tabbed)
        numeric = sum(bool(_NUMERIC.match(ln)) for ln in tabbed)
        return Evidence.MAJORITY if numeric * 2 > len(tabbed) and known * 2 >= len(tabbed) else None

    def _read_line(self, raw: str) -> tuple[str, str, str | None, str | None]:
        m = _SEMEVAL_LINE.match(raw)
        if m is None:
            return "", "", f"expected '<numeric id>\\t<label>', got {excerpt(raw)}", None
        item_id, label = m.group(1), m.group(2)
        if label not in _KNOWN:
            if label.strip() in _KNOWN:
                return item_id, label, white_space_problem(label), "label"
            return item_id, label, f"{excerpt(label)} is not a SemEval-2010 Task 8 label", "label"
        return item_id, label, None, None
