"""`id-label-json`: one JSON object mapping each item's id to its label — Re-TACRED's label files.

Re-TACRED (Stoica et al. 2021, "Re-TACRED: Addressing Shortcomings of the TACRED Dataset") gives its relabelled
gold as one object per split, id → relation (`train_id2label.json`, `dev_id2label.json`,
`test_id2label.json`), to be joined with TACRED's own records by id; many systems write their predictions the same
way (`json.dump(dict(zip(ids, predictions)), f)`):

    {"e7798fb926b9403cfcd2": "per:title", "e779865fb96bbbcc4ca4": "no_relation", ...}

The object's keys are the ids and its values the labels (strings), so `--id-field` and `--label-field` do not apply.
Items are numbered by their place in the object (`test_id2label.json: record 3: field 'label': …`): the file may be
one line or pretty-printed. A JSON parser keeps the last of two values of one key without a word, so a repeated id
is found in the bytes (each pair writes `":` once; any other count reads the pairs one by one) and refused.

Detected when the file opens an object whose first two members are a string → a string with keys that name no
record field (`id`, `relation`, `label`, …): a JSON-lines record opens with its field names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from releval.core.errors import InputError
from releval.data.decoding import decode_text, parse_json
from releval.data.formats.base import Evidence, Fields, Head, LabelFile, LabelFormat, Span
from releval.data.formats.common import LABEL_FIELD_CANDIDATES, TYPE_FIELDS, json_kind, make_file

_STRING = r'"(?:[^"\\\n]|\\.)*"'
#: An object's opening and first two members, each a string → a string (or one member and the closing brace).
_OPENING = re.compile(rf"\A\{{\s*({_STRING})\s*:\s*{_STRING}\s*(?:,\s*({_STRING})\s*:\s*{_STRING}|\}})")
#: Keys that say a JSON object is a record (a JSON-lines line), not an id → label map.
_RECORD_KEYS = {
    "id",
    "token",
    "tokens",
    "docid",
    *TYPE_FIELDS,
    *(k for v in LABEL_FIELD_CANDIDATES.values() for k in v),
}


class IdLabelJson(LabelFormat):
    """One JSON object, id → label; items numbered by their place in it (`record`)."""

    name = "id-label-json"

    def sniff(self, head: Head) -> Evidence | None:
        """An object opening with string → string members whose keys name no record field, and no second object
        on the next line (JSON lines whose records' fields have other names are the `jsonl` format's to read and
        to name the missing fields of)."""
        found = _OPENING.match(head.stripped)
        if found is None:
            return None
        lines = head.lines
        if len(lines) >= 2 and lines[0].rstrip().endswith("}") and lines[1].lstrip().startswith("{"):
            return None
        try:
            keys = {json.loads(k) for k in found.groups() if k is not None}
        except ValueError:  # a control character or a bad escape in a key: not this format's opening
            return None
        fields = _RECORD_KEYS | {f for f in head.header_fields if f}
        return None if keys & fields else Evidence.OPENING

    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        document = parse_json(data, name)
        if not isinstance(document, dict):
            raise InputError(f"expected one JSON object mapping ids to labels, got {json_kind(document)}", file=name)
        pairs = _pairs(data, document, name)
        if not pairs:
            raise InputError("file has no items", file=name)
        ids = [k for k, _ in pairs]
        labels: list = [v for _, v in pairs]  # checked as labels (strings) by make_file
        numbers = range(1, len(pairs) + 1)
        return make_file(
            name,
            self.name,
            ids,
            labels,
            numbers,
            unit="record",
            label_field="label",
            check_unique=fields.check_unique,
        )

    def record_spans(self, data: bytes, name: str, fields: Fields) -> list[Span]:
        """Every member, repeated ids included, numbered by its place in the object."""
        return [(k, n, n) for n, (k, _) in enumerate(_all_pairs(data, name), 1)]

    def without_records(self, data: bytes, dropped: Sequence[tuple[int, int]]) -> tuple[bytes, list[int]]:
        """The object without the members numbered in `dropped`, written again."""
        skip = {start for start, _ in dropped}
        pairs = _all_pairs(data, "<data>")
        kept = [n for n in range(1, len(pairs) + 1) if n not in skip]
        body = json.dumps({pairs[n - 1][0]: pairs[n - 1][1] for n in kept}, ensure_ascii=False)
        return body.encode("utf-8"), kept


def _pairs(data: bytes, document: dict, name: str) -> list[tuple[str, object]]:
    """The members in order, every repetition of a key kept: from the parsed object when the bytes show one `":`
    per member (no key can then repeat), else read again pair by pair."""
    if data.count(b'":') == len(document):
        return list(document.items())
    return _all_pairs(data, name)


def _all_pairs(data: bytes, name: str) -> list[tuple[str, object]]:
    """Every member of the object in order, repeated keys included (the standard library's pair hook)."""
    text = decode_text(data, name)
    try:
        pairs = json.loads(text, object_pairs_hook=lambda members: members)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"not a JSON object of id → label: {exc}", file=name) from None
    if not isinstance(pairs, list):
        raise InputError(f"expected one JSON object mapping ids to labels, got {json_kind(pairs)}", file=name)
    return pairs
