"""The display text of a table's cells, the same in every output format (releval.report.formats): numbers,
percentages, p-values, intervals and means ± sd by their column's kind, the display columns of a table, its
signatures and warnings.

>>> from releval.core.table import Column
>>> cell_text(Column("F1", "percent"), 0.83762, 2), format_p(0.00012)
('83.76', '1.20e-04')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from releval.core.table import Column, SignatureField, Table, is_missing


def format_p(p: float | None) -> str:
    """A p-value with 4 decimals, scientific (2 significant digits) below 0.001; exact zero as 0; "–" if undefined."""
    if is_missing(p):
        return "–"
    assert p is not None
    if p == 0:
        return "0"
    return f"{p:.4f}" if p >= 0.001 else f"{p:.2e}"


def as_number(value: Any) -> float:
    item = getattr(value, "item", None)  # a numpy scalar
    return float(item() if callable(item) else value)


def _p(column: Column, value: Any, width: int) -> str:
    if column.spec:
        x = as_number(value)
        return "0" if x == 0 else format(x, column.spec)
    return format_p(as_number(value))


def _text(column: Column, value: Any, width: int) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _count(column: Column, value: Any, width: int) -> str:
    return format(value.item() if hasattr(value, "item") else value, column.spec or ",")


def _formatted(default: str) -> Callable[[Column, Any, int], str]:
    return lambda column, value, width: format(as_number(value), column.spec or default)


def _percent(column: Column, value: Any, width: int) -> str:
    return f"{100 * as_number(value):.{width}f}"


def _signed_percent(column: Column, value: Any, width: int) -> str:
    return f"{100 * as_number(value):+.{width}f}"


_SCALAR: dict[str, Callable[[Column, Any, int], str]] = {
    "text": _text,
    "count": _count,
    "number": _formatted(".4g"),
    "fraction": _formatted(".4f"),
    "percent": _percent,
    "signed-percent": _signed_percent,
    "p": _p,
}
#: The scalar kind of each end of a pair kind.
_PAIR_PART = {
    "interval": "number",
    "percent-interval": "percent",
    "signed-interval": "signed-percent",
    "p-interval": "p",
    "percent-sd": "percent",
}


def _part(column: Column, kind: str, value: Any, width: int) -> str:
    if is_missing(value):
        return column.missing
    if kind == "number" and not column.spec:
        return format(as_number(value), ".2f")
    return _SCALAR[kind](column, value, width)


def cell_text(column: Column, value: Any, width: int = 2) -> str:
    """The display text of one raw cell: `column.missing` for None/NaN, else formatted by the column's kind."""
    if is_missing(value):
        return column.missing
    if column.display is not None:
        return column.display(value)
    part = _PAIR_PART.get(column.kind)
    if part is None:
        return _SCALAR[column.kind](column, value, width)
    low, high = value
    if column.kind == "percent-sd":
        return f"{_part(column, part, low, width)}±{_part(column, part, high, width)}"
    return f"[{_part(column, part, low, width)}, {_part(column, part, high, width)}]"


def right_aligned(column: Column) -> bool:
    """Text and Markdown alignment: `align` when given, else left for text and right for numbers."""
    return column.align == "right" if column.align else column.kind != "text"


def display_cells(table: Table, width: int) -> tuple[list[Column], list[str], list[list[str]]]:
    """The display columns, their headers and the display text of every row."""
    keep = table.columns_in(data=False)
    columns = [table.columns[i] for i in keep]
    body = [[cell_text(table.columns[i], row[i], width) for i in keep] for row in table.rows]
    return columns, [c.name for c in columns], body


def signature_pairs(signature: SignatureField) -> list[tuple[str, str]]:
    """(label, signature) pairs; the label of a plain signature is empty."""
    if signature is None:
        return []
    if isinstance(signature, str):
        return [("", signature)]
    return list(signature)


def shown_signatures(tables: Sequence[Table]) -> list[SignatureField]:
    """Each table's signature, or None where the next table repeats it (a run of equal signatures prints once)."""
    return [
        None if i + 1 < len(tables) and tables[i + 1].signature == t.signature else t.signature
        for i, t in enumerate(tables)
    ]


def warnings_of(tables: Iterable[Table]) -> list[str]:
    """Every warning of the tables, each once, in order: what a caller shows next to a text document."""
    return list(dict.fromkeys(w for t in tables for w in t.warnings))


def one_line(text: str) -> str:
    return " ".join(str(text).split("\n"))
