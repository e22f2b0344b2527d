"""One table model for every result releval prints: typed columns, raw cells, notes, warnings and a signature.

A `Table` holds what a result says, not how it looks: cells are the raw values (fractions in [0, 1], p-values,
counts, `(low, high)` pairs, None or NaN when a value is undefined), and each `Column` names the kind of its
values. `releval.report.render` (a layer above) turns a list of tables into text, Markdown, LaTeX or CSV, so
percentages get their decimals in text and stay real fractions in CSV. A result type describes itself with
`to_tables() -> list[Table]`; the model lives in `core` so that every layer can build tables without importing
`report`.

>>> t = Table("F (%)", (Column("system"), Column("micro", "percent")), (("cnn", 0.8005),), signature="task:rc")
>>> from releval.report.render import render
>>> print(render([t], "text"), end="")
== F (%) ==
system  micro
------  -----
cnn     80.05
<BLANKLINE>
signature: task:rc
>>> print(render([t], "csv"), end="")
system,micro,signature
cnn,0.8005,task:rc
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

#: What a column holds. The display formats use it to format a raw cell; CSV writes the raw value (a pair kind as
#: two columns, `KEY_low`/`KEY_high` or `KEY_mean`/`KEY_sd`).
#:
#: * text: a string (True/False show as yes/no); count: an int, shown with thousands separators;
#: * number, fraction: a float, shown with `Column.spec` (default ".4g", ".4f");
#: * percent, signed-percent: a fraction, shown ×100 with `width` decimals (signed: always with + or -);
#: * p: a p-value, shown with 2 significant digits, scientific below 0.001 (or with `Column.spec`);
#: * interval (numbers), percent-interval, signed-interval (signed percents), p-interval: a (low, high) pair;
#: * percent-sd: a (mean, sd) pair of fractions, shown as mean±sd in percent.
Kind = Literal[
    "text",
    "count",
    "number",
    "fraction",
    "percent",
    "signed-percent",
    "p",
    "interval",
    "percent-interval",
    "signed-interval",
    "p-interval",
    "percent-sd",
]
KINDS: tuple[str, ...] = get_args(Kind)
#: The kinds whose cells are pairs, and the suffixes of their two CSV columns.
PAIR_KINDS: dict[str, tuple[str, str]] = {
    "interval": ("low", "high"),
    "percent-interval": ("low", "high"),
    "signed-interval": ("low", "high"),
    "p-interval": ("low", "high"),
    "percent-sd": ("mean", "sd"),
}
Align = Literal["left", "right"]
#: Where a column or a table appears: everywhere, in the display formats only (text, Markdown, LaTeX), or in the
#: data format only (CSV).
Show = Literal["all", "display", "data"]
SHOWS: tuple[str, ...] = get_args(Show)
#: A raw cell: text, a number, a (low, high) or (mean, sd) pair, or None (undefined; NaN counts as undefined too).
Cell = Any
#: A plain signature, or (label, signature) pairs for a table that shows several systems side by side.
SignatureField = str | tuple[tuple[str, str], ...] | None


def slug(name: str) -> str:
    """A CSV column name from a header: lower case ASCII letters, digits and underscores ("p (Holm)" -> "p_holm")."""
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


def is_missing(value: Any) -> bool:
    """None or NaN: a value that is undefined (shown as `Column.missing`, written as an empty CSV field)."""
    if value is None:
        return True
    try:
        return isinstance(value, (float, int)) and not isinstance(value, bool) and math.isnan(value)
    except TypeError:
        return False


@dataclass(frozen=True)
class Column:
    """One column: its header, the kind of its raw values and how it is shown.

    `key` names the column in CSV (default: `slug(name)`); `spec` is the format spec of number, fraction, p and
    interval cells (".3f", "+.4g"); `align` overrides the default alignment (text: left; numbers: right; LaTeX:
    the first column l, the others r); `missing` is the display text of None/NaN; `display`, when given, turns a
    raw cell into its display text (CSV still gets the raw value).
    """

    name: str
    kind: Kind = "text"
    key: str = ""
    spec: str = ""
    align: Align | None = None
    show: Show = "all"
    missing: str = "–"
    display: Callable[[Any], str] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"column {self.name!r}: kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.show not in SHOWS:
            raise ValueError(f"column {self.name!r}: show must be one of {', '.join(SHOWS)}, not {self.show!r}")
        if self.align not in (None, "left", "right"):
            raise ValueError(f"column {self.name!r}: align must be left or right, not {self.align!r}")

    @property
    def csv_key(self) -> str:
        return self.key or slug(self.name)

    @property
    def csv_keys(self) -> tuple[str, ...]:
        """The CSV column names: one, or two for a pair kind."""
        suffixes = PAIR_KINDS.get(self.kind)
        return (self.csv_key,) if suffixes is None else tuple(f"{self.csv_key}_{s}" for s in suffixes)


def _tuple(value: Sequence[Any] | None) -> tuple[Any, ...]:
    return () if value is None else tuple(value)


@dataclass(frozen=True)
class Table:
    """A titled table of raw cells, with the lines that go with it.

    `rule_before` holds row indices with a rule above them (e.g. above the averages); `lead` holds lines of prose
    shown under the title (a headline, a verdict, a list of reasons), `notes` the explanations shown after the
    table, `warnings` what a reader must not miss (text leaves them to the caller: `render.warnings_of`), and
    `signature` the settings of the run. A table without columns is a block of prose (title, lead, notes).
    Every sequence field takes any sequence (a list, a generator's tuple) and is stored as a tuple.
    """

    title: str = ""
    columns: Sequence[Column] = ()
    rows: Sequence[Sequence[Cell]] = ()
    rule_before: Sequence[int] = ()
    notes: Sequence[str] = ()
    warnings: Sequence[str] = ()
    signature: SignatureField = None
    lead: Sequence[str] = ()
    show: Show = "all"

    def __post_init__(self) -> None:
        for name in ("columns", "rule_before", "notes", "warnings", "lead"):
            object.__setattr__(self, name, _tuple(getattr(self, name)))
        object.__setattr__(self, "rows", tuple(tuple(row) for row in self.rows))
        if isinstance(self.signature, (list, tuple)):
            object.__setattr__(self, "signature", tuple((str(k), str(v)) for k, v in self.signature))
        elif self.signature is not None:
            object.__setattr__(self, "signature", str(self.signature))
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"table {self.title!r}: row {i} has {len(row)} cells for {len(self.columns)} columns")
        for i in self.rule_before:
            if not 0 <= i <= len(self.rows):
                raise ValueError(f"table {self.title!r}: rule_before {i} is outside 0..{len(self.rows)}")
        if self.show not in SHOWS:
            raise ValueError(f"table {self.title!r}: show must be one of {', '.join(SHOWS)}, not {self.show!r}")

    def shown_in(self, data: bool) -> bool:
        """Whether the table appears in the data format (CSV) or, with data=False, in the display formats."""
        return self.show != ("display" if data else "data")

    def columns_in(self, data: bool) -> list[int]:
        """Indices of the columns shown in the data format or in the display formats."""
        hidden = "display" if data else "data"
        return [i for i, c in enumerate(self.columns) if c.show != hidden]


def attach(
    tables: Sequence[Table],
    *,
    signature: SignatureField = None,
    warnings: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> list[Table]:
    """The tables of one result with its signature on every table (the renderers print a run of equal signatures
    once, after the last table of the run), its warnings on the first table shown in every format (else on the first
    shown in text and the first shown in CSV: a warning must reach every format once) and `notes` added to the last
    table shown in every format (else the last one shown in text), so that CSV carries them too."""
    out = [replace(t, signature=signature) if signature is not None else t for t in tables]
    if out and warnings:
        both = [i for i, t in enumerate(out) if t.show == "all"]
        display = [i for i, t in enumerate(out) if t.shown_in(data=False)]
        data = [i for i, t in enumerate(out) if t.shown_in(data=True)]
        for i in sorted(set(both[:1] or display[:1] + data[:1]) or {0}):
            out[i] = replace(out[i], warnings=(*out[i].warnings, *warnings))
    if out and notes:
        candidates = [i for i, t in enumerate(out) if t.show == "all"] or [
            i for i, t in enumerate(out) if t.shown_in(data=False)
        ]
        last = candidates[-1] if candidates else len(out) - 1
        out[last] = replace(out[last], notes=(*out[last].notes, *notes))
    return out
