"""`csv` and `tsv`: a table with a header row naming its columns, one item per row.

What spreadsheets, pandas (`DataFrame.to_csv`) and many RE code bases write for predictions; the id and label
columns are named by `--id-field` / `--label-field` (default `id`, and the first label candidate present):

    id,label,prediction
    e7a1,org:founded_by,org:founded_by
    e7a2,no_relation,per:title

Quoting is RFC 4180 as Python's csv module reads it in strict mode (releval.data.delimited): a quoted field may
hold delimiters, doubled quotes and line breaks, but a line break inside the id or label is refused. A row's
record runs from its first to its last line.
"""

from __future__ import annotations

from itertools import chain

from releval.core.errors import InputError, raise_all
from releval.data.decoding import decode_text, excerpt
from releval.data.delimited import read_records, split_columns, text_blocks, text_lines
from releval.data.formats.base import Evidence, Fields, Head, LabelFile, LabelFormat, Span
from releval.data.formats.common import LABEL_FIELD_CANDIDATES, MAX_ERRORS, BlockReader, make_file, pick_label_field

#: Bytes of an unquoted table read at a time: the block's strings are dropped once its columns are filled.
BLOCK_BYTES = 1 << 21

_HEADER_NAMES = {"id", "label", "relation", "prediction", "pred", "gold"} | set(LABEL_FIELD_CANDIDATES["pred"])


class Table(LabelFormat):
    """A header row, then one record per row; `delimiter` separates the cells."""

    delimiter = ","

    def parse(self, data: bytes, name: str, fields: Fields) -> LabelFile:
        """Without any quote in the file the rows are plain lines: they are read a block at a time into compact
        columns (`BlockReader`), each block's columns from one join and split. Anything unusual reads the whole text
        again, which names every problem."""
        loaded = self._by_block(data, name, fields)
        if loaded is not None:
            return loaded
        text = decode_text(data, name)
        delimiter, id_field = self.delimiter, fields.id_field
        quoted = '"' in text
        if quoted:
            records = read_records(text, delimiter, name)
        else:
            lines = text_lines(text, name)
            records = [(1, 1, lines[0].split(delimiter))] if lines else []
        if not records:
            raise InputError("file is empty", file=name)
        header_line, _, cells = records[0]
        header, (lf, id_col, label_col) = self._header(cells, name, header_line, fields)
        if not quoted:
            columns = split_columns(lines[1:], delimiter, len(header))
            if columns is not None:
                numbers = range(2, len(lines) + 1)
                return make_file(
                    name,
                    self.name,
                    columns[id_col],
                    columns[label_col],
                    numbers,
                    id_field=id_field,
                    label_field=lf,
                    check_unique=fields.check_unique,
                )
            records = [(i, i, ln.split(delimiter) if ln else []) for i, ln in enumerate(lines, 1)]
        ids: list[str] = []
        labels: list[str] = []
        numbers_list: list[int] = []
        errors: list[InputError] = []
        for start, end, row in records[1:]:
            if not row or all(not c.strip() for c in row):
                errors.append(InputError("empty line", file=name, line=start))
            elif len(row) != len(header):
                errors.append(InputError(f"{len(row)} columns, header has {len(header)}", file=name, line=start))
            else:
                spans = [(fld, row[col]) for fld, col in ((id_field, id_col), (lf, label_col)) if "\n" in row[col]]
                if spans:
                    fld, value = spans[0]
                    errors.append(
                        InputError(
                            f"a quoted value runs from line {start} to line {end}: {excerpt(value)}; is a closing "
                            "quote missing?",
                            file=name,
                            line=start,
                            field=fld,
                        )
                    )
                else:
                    ids.append(row[id_col])
                    labels.append(row[label_col])
                    numbers_list.append(start)
            if len(errors) >= MAX_ERRORS:
                break
        raise_all(errors)
        return make_file(
            name,
            self.name,
            ids,
            labels,
            numbers_list,
            id_field=id_field,
            label_field=lf,
            check_unique=fields.check_unique,
        )

    def _header(self, cells: list[str], name: str, line: int, fields: Fields) -> tuple[list[str], tuple[str, int, int]]:
        """The header's column names, and (the label field, the id column, the label column) it gives; a header
        without the id or the label column, or naming one twice, is an InputError at its line."""
        header = [h.strip() for h in cells]
        lf = fields.label_field or pick_label_field(dict.fromkeys(header, ""), fields.role, name, line)
        for fld in (fields.id_field, lf):
            if fld not in header:
                raise InputError(f"header has no column '{fld}' (columns: {', '.join(header)})", file=name, line=line)
            if header.count(fld) > 1:
                raise InputError(f"header names column '{fld}' twice", file=name, line=line, field=fld)
        return header, (lf, header.index(fields.id_field), header.index(lf))

    def _by_block(self, data: bytes, name: str, fields: Fields) -> LabelFile | None:
        """An unquoted table read BLOCK_BYTES at a time into compact columns, or None when anything is unusual (a
        quote, a header without the columns asked for, a row of another width) or a check fails."""
        if b'"' in data:
            return None
        blocks = text_blocks(data, BLOCK_BYTES)
        first = next(blocks, None)
        if not first:
            return None
        try:
            header, (_, id_col, label_col) = self._header(first[0].split(self.delimiter), name, 1, fields)
        except InputError:
            return None
        reader = BlockReader(first=2)
        for lines in chain([first[1:]], blocks):
            columns = None if lines is None else split_columns(lines, self.delimiter, len(header))
            if columns is None or not reader.add(columns[id_col], columns[label_col]):
                return None
        return reader.finish(name, self.name, fields.check_unique)

    def record_spans(self, data: bytes, name: str, fields: Fields) -> list[Span]:
        """A row runs from its first line to its last (a quoted line break makes it longer)."""
        records = read_records(decode_text(data, name), self.delimiter, name)
        column = [h.strip() for h in records[0][2]].index(fields.id_field)
        return [(row[column], start, end) for start, end, row in records[1:] if len(row) > column]


class Csv(Table):
    """Comma-separated, recognised by its `.csv` name."""

    name = "csv"

    def sniff(self, head: Head) -> Evidence | None:
        return Evidence.NAME if head.named(".csv") else None


class Tsv(Table):
    """Tab-separated, recognised by a first line whose cells name an id or label field."""

    name = "tsv"
    delimiter = "\t"

    def sniff(self, head: Head) -> Evidence | None:
        """A tab-separated first line naming the id or a label field is a header; any tab in it is a hint."""
        if "\t" not in head.first_line:
            return None
        names = _HEADER_NAMES | {f.lower() for f in head.header_fields if f}
        if any(c.strip().lower() in names for c in head.first_line.split("\t")):
            return Evidence.SIGNATURE
        return Evidence.HINT
