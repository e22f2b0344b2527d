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

from releval.data import semeval_labels as sem
from releval.data.decoding import decode_text, excerpt
from releval.data.delimited import split_columns, text_lines
from releval.data.formats.base import Evidence, Fields, Head, LabelFile, LabelFormat
from releval.data.formats.common import MAX_ERRORS, id_problem, label_problem, make_file
from releval.errors import InputError, raise_all

_TABBED = re.compile(r"^\S+\t")
_NUMERIC = re.compile(r"^[0-9]+\t")
_SEMEVAL_LINE = re.compile(r"^([0-9]+)\t(.+)$")
_DIGITS = re.compile(r"[0-9]+")
_KNOWN = sem.DIRECTED_SET | sem.UNDIRECTED_SET


def _tabbed(head: Head) -> list[str]:
    """The first lines that start with `<id>\\t`, when they are most of them; else []."""
    tabbed = [ln for ln in head.lines if _TABBED.match(ln)]
    return tabbed if len(tabbed) * 2 > len(head.lines) else []


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
        """Fast path: when every line holds one tab, the columns come from one join and split, and the checks run
        on whole columns; otherwise (or when a check fails) a line-by-line pass names every problem."""
        lines = text_lines(decode_text(data, name), name)
        columns = split_columns(lines, "\t", 2)
        if columns is not None:
            ids, labels = columns
            numbers = range(1, len(lines) + 1)
            if not self.semeval or (set(labels) <= _KNOWN and _DIGITS.fullmatch("".join(ids)) and all(ids)):
                return make_file(name, self.name, ids, labels, numbers, check_unique=fields.check_unique)
        return self._by_line(lines, name)

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
            return item_id, label, f"{excerpt(label)} is not a SemEval-2010 Task 8 label", "label"
        return item_id, label, None, None
