"""`semeval`: the SemEval-2010 Task 8 data files (Hendrickx et al. 2010), four-line blocks.

The task's distributed files (`TRAIN_FILE.TXT`, `TEST_FILE_FULL.TXT`) hold one block per sentence: the numeric id
and the quoted sentence with its `<e1>`/`<e2>` markup, the directed label, a comment line, a blank line:

    1	"The system as described above has its greatest application in an arrayed <e1>configuration</e1> ..."
    Component-Whole(e2,e1)
    Comment: Not a collection: there is structure here, organisation.

The label is one of the 19 directed labels (read stripped); comment lines may be several, or none. A block's
lines are its record, from the id line to the line before the next block.
"""

from __future__ import annotations

import re

from releval.core.errors import InputError, raise_all
from releval.data import semeval_labels as sem
from releval.data.decoding import decode_text, excerpt
from releval.data.delimited import text_lines
from releval.data.formats.base import Evidence, Fields, Head, LabelFile, LabelFormat, Span
from releval.data.formats.common import MAX_ERRORS, make_file

BLOCK_START = re.compile(r'^([0-9]+)\t"')


class SemevalBlocks(LabelFormat):
    """Official 4-line blocks: `<id>\\t"<sentence>"`, label, `Comment: …`, blank line."""

    name = "semeval"

    def sniff(self, head: Head) -> Evidence | None:
        """A block start on the first line, or on at least a quarter of the first lines."""
        starts = sum(bool(BLOCK_START.match(ln)) for ln in head.lines)
        if head.lines and (BLOCK_START.match(head.first_line) or starts * 4 >= len(head.lines)):
            return Evidence.SIGNATURE
        return None

    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        all_lines = text_lines(decode_text(data, name), name)
        ids: list[str] = []
        labels: list[str] = []
        lines: list[int] = []
        errors: list[InputError] = []
        i = 0
        while i < len(all_lines) and len(errors) < MAX_ERRORS:
            if not all_lines[i].strip():
                i += 1
                continue
            m = BLOCK_START.match(all_lines[i])
            if m is None:
                errors.append(InputError("expected '<id>\\t\"<sentence>\"' starting a block", file=name, line=i + 1))
                i += 1
                continue
            if i + 1 >= len(all_lines):
                errors.append(InputError("block has no label line", file=name, line=i + 1))
                break
            label = all_lines[i + 1].strip()
            if BLOCK_START.match(all_lines[i + 1]) and not any(ln.strip() in sem.DIRECTED_SET for ln in all_lines):
                raise InputError(
                    "the file holds sentences only, no label line after any of them (as SemEval-2010 Task 8's "
                    "TEST_FILE.txt, the input given to systems): as gold, give the answer key (TEST_FILE_KEY.TXT, or "
                    "the labelled TEST_FILE_FULL.TXT); as predictions, a system's '<id>\\t<label>' lines",
                    file=name,
                    line=i + 2,
                )
            if label not in sem.DIRECTED_SET:
                errors.append(
                    InputError(
                        f"{excerpt(label)} is not a SemEval-2010 Task 8 label", file=name, line=i + 2, field="label"
                    )
                )
            else:
                ids.append(m.group(1))
                labels.append(label)
                lines.append(i + 1)
            i += 2
            while i < len(all_lines) and all_lines[i].strip() and not BLOCK_START.match(all_lines[i]):
                i += 1
        raise_all(errors)
        return make_file(name, self.name, ids, labels, lines, check_unique=fields.check_unique)

    def record_spans(self, data: bytes, name: str, fields: Fields) -> list[Span]:
        """A block runs from its id line to the line before the next block (or the end of the file)."""
        lines = text_lines(decode_text(data, name), name)
        starts = [(m.group(1), i) for i, ln in enumerate(lines, 1) if (m := BLOCK_START.match(ln))]
        ends = [s for _, s in starts[1:]] + [len(lines) + 1]
        return [(item_id, start, end - 1) for (item_id, start), end in zip(starts, ends)]
