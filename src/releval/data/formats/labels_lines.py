"""`labels-lines`: one label per line and no ids, aligned with gold by position — only when asked for.

The convention of the TACRED scorer (`eval.py` of Zhang et al. 2017 and its many copies), whose predictions are
written one label per line in the order of the test set:

    no_relation
    per:title
    org:top_members/employees

Without ids nothing shows that two files are in the same order, so this format is never guessed: detection sends
such a file here with `--pred-format labels-lines` (`--input-format` for both files). A blank line is an empty
label and refused, and so is a line that is a JSON object or list: that is a gold or JSON lines file given as a
list of labels, which would score every record as a label of its own.
"""

from __future__ import annotations

from releval.core.errors import InputError, raise_all
from releval.data.decoding import decode_text, excerpt
from releval.data.delimited import text_lines
from releval.data.formats.base import Fields, LabelFile, LabelFormat
from releval.data.formats.common import MAX_ERRORS, make_file


class LabelLines(LabelFormat):
    """One label per line; items are numbered by their line."""

    name = "labels-lines"

    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        labels = text_lines(decode_text(data, name), name)
        if b"{" in data or b"[" in data:  # a cheap test first: labels are rarely bracketed
            _refuse_json_document(data, name)
            raise_all(_json_lines(labels, name))
        return make_file(name, self.name, None, labels, range(1, len(labels) + 1))


def _refuse_json_document(data: bytes, name: str) -> None:
    """A whole file that is one JSON list or object (a pretty-printed TACRED JSON file) is refused at line 1."""
    if data.lstrip()[:1] not in (b"{", b"["):
        return
    import orjson

    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return
    raise InputError(
        f"this file is a JSON document, not a label per line: is this a gold or JSON file? {_READ_JSON}",
        file=name,
        line=1,
    )


_READ_JSON = (
    "labels-lines holds one label per line; read JSON with its own format (leave the format to detection, or "
    "--pred-format jsonl / --gold-format tacred-json)"
)


def _json_lines(lines: list[str], name: str) -> list[InputError]:
    """An error at every line (at most MAX_ERRORS) that opens with `{` or `[` and parses as JSON."""
    import orjson

    errors: list[InputError] = []
    for number, line in enumerate(lines, 1):
        if line.lstrip()[:1] in ("{", "["):
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            errors.append(
                InputError(
                    f"this line is JSON, not a label ({excerpt(line)}): is this a gold or JSON lines file? "
                    + _READ_JSON,
                    file=name,
                    line=number,
                )
            )
            if len(errors) >= MAX_ERRORS:
                break
    return errors
