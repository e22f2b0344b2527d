"""`labels-lines`: one label per line and no ids, aligned with gold by position — only when asked for.

The convention of the TACRED scorer (`eval.py` of Zhang et al. 2017 and its many copies), whose predictions are
written one label per line in the order of the test set:

    no_relation
    per:title
    org:top_members/employees

Without ids nothing shows that two files are in the same order, so this format is never guessed: detection sends
such a file here with `--format labels-lines`. A blank line is an empty label and refused.
"""

from __future__ import annotations

from releval.data.decoding import decode_text
from releval.data.delimited import text_lines
from releval.data.formats.base import Fields, LabelFile, LabelFormat
from releval.data.formats.common import make_file


class LabelLines(LabelFormat):
    """One label per line; items are numbered by their line."""

    name = "labels-lines"

    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        labels = text_lines(decode_text(data, name), name)
        return make_file(name, self.name, None, labels, range(1, len(labels) + 1))
