"""`tacred-json`: one JSON list of records, the TACRED release's form (Zhang et al. 2017, LDC2018T24).

`train.json`, `dev.json` and `test.json` of TACRED — and of Re-TACRED and TACRev, which keep its layout, and
TACRev's relabelling patches — are one list of objects; releval reads the id, the label (`relation` unless named)
and, where present, the argument types:

    [{"id": "e7798fb926b9403cfcd2", "docid": "APW_ENG_20101103.0539", "relation": "per:title",
      "token": ["At", "the", "same", "time", ...], "subj_type": "PERSON", "obj_type": "TITLE", ...},
     ...]

A line would mean nothing in such a file (it may be one line or pretty-printed), so items are located by their
record number: `train.json: record 2: field 'relation': …`.
"""

from __future__ import annotations

from collections.abc import Sequence

from releval.core.errors import InputError, raise_all
from releval.data.decoding import exact_json, parse_json
from releval.data.formats.base import Evidence, Fields, Head, LabelFile, LabelFormat
from releval.data.formats.common import (
    TYPE_FIELDS,
    json_kind,
    pick_label_field,
    records_to_file,
    repeated_key_errors,
)


class TacredJson(LabelFormat):
    """A JSON list of objects; the label field is `relation` unless named."""

    name = "tacred-json"

    def sniff(self, head: Head) -> Evidence | None:
        """A file that opens a JSON list; failing content that says more, a `.json` name."""
        if head.stripped.startswith("["):
            return Evidence.OPENING
        return Evidence.NAME if head.named(".json") else None

    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        id_field = fields.id_field
        records = parse_json(data, name)
        if not isinstance(records, list):
            raise InputError(f"expected a JSON list of records, got {json_kind(records)}", file=name)
        label_field = self._label_field(records, fields, name)
        if any(isinstance(r, dict) and type(r.get(id_field)) is float for r in records):
            exact = exact_json(data)  # an integer beyond 64 bits: orjson made it a float
            if isinstance(exact, list) and len(exact) == len(records):
                records = exact
        numbers = range(1, len(records) + 1)
        keys = (id_field, label_field, *TYPE_FIELDS)
        raise_all(repeated_key_errors(data, records, numbers, None, keys, name, "record"))
        return records_to_file(
            records, numbers, name, id_field, label_field, self.name, "gold", "record", fields.check_unique
        )

    def _label_field(self, records: list, fields: Fields, name: str) -> str:
        """The field named, else `relation` (TACRED's), else the first label candidate of the first record (a JSON
        list of prediction records, `[{"id": …, "prediction": …}]`). A named field that a TACRED record lacks is
        refused with the reason: the name was meant for the other file."""
        first = records[0] if records and isinstance(records[0], dict) else None
        if fields.label_field is None:
            if first is None or "relation" in first:
                return "relation"
            return pick_label_field(first, fields.role, name, 1, "record")
        if first is not None and fields.label_field not in first and "relation" in first:
            raise InputError(
                f"no field '{fields.label_field}' in this TACRED JSON record, whose label field is 'relation': "
                f"a --label-field applies to gold and predictions alike; name one file's field with "
                f"--{'pred' if fields.role == 'gold' else 'gold'}-label-field instead",
                file=name,
                record=1,
                field=fields.label_field,
            )
        return fields.label_field

    def without_records(self, data: bytes, dropped: Sequence[tuple[int, int]]) -> tuple[bytes, list[int]]:
        """The list without the records numbered in `dropped`, written again (msgspec keeps integers of any size
        exact, where orjson would make floats of some)."""
        import msgspec

        skip = {start for start, _ in dropped}
        records = msgspec.json.decode(data)
        kept = [i for i in range(1, len(records) + 1) if i not in skip]
        return msgspec.json.encode([records[i - 1] for i in kept]), kept
