"""CSV output: one header and one line per row with the raw values (fractions, not percentages; a pair as two columns),
a `signature` column on every line, `# warning: …` and `# note: …` lines first (pandas: `comment="#"`). Tables with
different columns share the union of their columns, after a `table` column naming each line's table."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from typing import Any

from releval.core.table import PAIR_KINDS, Column, SignatureField, Table, is_missing
from releval.report.cells import (
    one_line,
    signature_pairs,
    warnings_of,
)


def _csv_value(value: Any) -> str:
    """A raw value as a CSV field: floats with repr (they read back exactly), None and NaN empty."""
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():
        value = item()
    if is_missing(value):
        return ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    return str(value)


def _csv_cells(column: Column, value: Any) -> list[str]:
    if column.kind not in PAIR_KINDS:
        return [_csv_value(value)]
    if is_missing(value):
        return ["", ""]
    low, high = value
    return [_csv_value(low), _csv_value(high)]


def _csv_signature(signature: SignatureField) -> str:
    return " ; ".join(f"{label}={sig}" if label else sig for label, sig in signature_pairs(signature))


def render_csv(tables: Sequence[Table], width: int = 2) -> str:
    """Long format with raw values and a signature column; warnings and notes as `#` lines first."""
    shown = [t for t in tables if t.shown_in(data=True)]
    out = [f"# warning: {one_line(w)}" for w in warnings_of(shown)]
    out += [f"# note: {one_line(n)}" for n in dict.fromkeys(n for t in shown for n in t.notes)]
    layouts = [[k for i in t.columns_in(data=True) for k in t.columns[i].csv_keys] for t in shown]
    several = any(layout != layouts[0] for layout in layouts)
    header = ["table"] if several else []
    for layout in layouts:
        header += [k for k in layout if k not in header]
    signed = any(t.signature is not None for t in shown) and "signature" not in header
    header += ["signature"] if signed else []
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if shown:
        writer.writerow(header)
    position = {key: i for i, key in enumerate(header)}
    for table, layout in zip(shown, layouts):
        for row in table.rows:
            line = [""] * len(header)
            if several:
                line[0] = table.title
            values = [v for i in table.columns_in(data=True) for v in _csv_cells(table.columns[i], row[i])]
            for key, value in zip(layout, values):
                line[position[key]] = value
            if signed:
                line[position["signature"]] = _csv_signature(table.signature)
            writer.writerow(line)
    return "".join(f"{line}\n" for line in out) + buf.getvalue()
