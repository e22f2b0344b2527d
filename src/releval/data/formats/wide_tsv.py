"""`wide-tsv`: a results spreadsheet — one row per item, an id column, a gold column and one column per system.

    id      gold         cnn          rbert
    8001    Other        Other        Message-Topic(e1,e2)
    8002    Cause-Effect(e2,e1)  Cause-Effect(e2,e1)  Cause-Effect(e2,e1)

Tab-separated with a header row. The gold column is `gold` (or the gold label field named with
`--gold-label-field` / `--label-field`), the id column `id` (or `--gold-id-field` / `--id-field`); every other
column is a system, named by its header cell. Read as gold, the file gives gold's labels and keeps each system's
column as a field (`LabelFile.fields`); `releval score wide.tsv` and `releval compare wide.tsv`, with no
prediction file, score or compare every system column (releval.commands.wide). Read as a prediction file it gives
the one system column it has, or the one named with `--pred-label-field`.

Detected by its header: a tab-separated first line holding the id column, the gold column and at least one other
column, none of them a prediction field name (`prediction`, `pred`, …: `id gold prediction` stays a `tsv` file
with two label columns, read the same way). Every cell of every system column is checked like a label (empty,
surrounding white space, control characters), and a row with another number of cells than the header is refused
at its line.
"""

from __future__ import annotations

from releval.core.errors import InputError, raise_all
from releval.data.decoding import decode_text
from releval.data.delimited import text_lines
from releval.data.formats.base import Evidence, Fields, Head, LabelFile, LabelFormat
from releval.data.formats.common import LABEL_FIELD_CANDIDATES, MAX_ERRORS, check_labels, make_file

GOLD_COLUMN = "gold"
_PRED_NAMES = set(LABEL_FIELD_CANDIDATES["pred"]) - {"label", "relation"}


def _layout(header: list[str], id_field: str, gold_field: str) -> list[str] | None:
    """The system columns of a wide header (id, gold, systems…), or None when it is not one."""
    if id_field not in header or gold_field not in header:
        return None
    systems = [c for c in header if c not in (id_field, gold_field)]
    if not systems or any(c.lower() in _PRED_NAMES for c in systems):
        return None
    return systems


class WideTsv(LabelFormat):
    """Id, gold and one column per system, tab-separated, with a header row."""

    name = "wide-tsv"

    def sniff(self, head: Head) -> Evidence | None:
        """A header naming the id column, the gold column and at least one system column."""
        if "\t" not in head.first_line:
            return None
        header = [c.strip() for c in head.first_line.split("\t")]
        id_field = head.header_fields[0] if head.header_fields and head.header_fields[0] else "id"
        named = head.header_fields[1] if len(head.header_fields) > 1 and head.header_fields[1] else None
        gold_field = named if named in header else GOLD_COLUMN
        return Evidence.SIGNATURE if _layout(header, id_field, gold_field) is not None else None

    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        lines = text_lines(decode_text(data, name), name)
        header = [c.strip() for c in lines[0].split("\t")]
        id_field = fields.id_field
        gold_field = fields.label_field if fields.role == "gold" and fields.label_field else GOLD_COLUMN
        systems = _layout(header, id_field, gold_field)
        if systems is None:
            raise InputError(
                f"a wide TSV's header names the id column '{id_field}', the gold column '{gold_field}' and one "
                f"column per system; this one has {', '.join(header)}",
                file=name,
                line=1,
            )
        for column in set(header):
            if header.count(column) > 1:
                raise InputError(f"header names column '{column}' twice", file=name, line=1, field=column)
        rows, numbers, errors = [], [], []
        for number, line in enumerate(lines[1:], 2):
            cells = line.split("\t")
            if len(cells) != len(header):
                errors.append(InputError(f"{len(cells)} columns, header has {len(header)}", file=name, line=number))
                if len(errors) >= MAX_ERRORS:
                    break
                continue
            rows.append(cells)
            numbers.append(number)
        raise_all(errors)
        columns = {column: [row[k] for row in rows] for k, column in enumerate(header)}
        for system in systems:
            check_labels(columns[system], numbers, name, "line", system)
        if fields.role == "gold":
            label_field, extras = gold_field, {s: columns[s] for s in systems}
        else:
            label_field, extras = self._pred_column(systems, fields, name), {}
        return make_file(
            name,
            self.name,
            columns[id_field],
            columns[label_field],
            numbers,
            id_field=id_field,
            label_field=label_field,
            check_unique=fields.check_unique,
            extras=extras,
        )

    @staticmethod
    def _pred_column(systems: list[str], fields: Fields, name: str) -> str:
        """The system column a prediction-side read takes: the one named, else the only one."""
        if fields.label_field is not None:
            if fields.label_field not in systems:
                raise InputError(
                    f"no system column '{fields.label_field}' (systems: {', '.join(systems)})", file=name, line=1
                )
            return fields.label_field
        if len(systems) == 1:
            return systems[0]
        raise InputError(
            f"a wide TSV holds {len(systems)} systems ({', '.join(systems)}): give it as gold alone to score every "
            "system (releval score WIDE.tsv), or name one column with --pred-label-field",
            file=name,
            line=1,
        )
