"""Tables of published comparisons for `releval check-stats --table`: what to check, as printed in a paper.

A CSV file with the header `name,a,b[,n][,n_b][,claimed_p][,claimed_d]` (RFC 4180 quoting), or a JSON list of such
objects (also under `{"rows": [...]}`). `a` and `b` are `MEAN±SD` as printed; the other columns are optional.

Moved out of commands/compare.py (logic belongs in the library, architecture notes §4) and hardened (issue 11):
a CSV quoting error, a lone CR or a long field is a located InputError, not a csv.Error traceback; a row with more
or fewer cells than the header, or a column named twice, is refused instead of silently dropping values (blank
lines are skipped, as before); a JSON
syntax error or nesting beyond 1,024 levels is one error at its line; a claimed p or d whose power of ten is
beyond ±300 (`1e400`) is refused at its row, since no double holds it and no paper prints it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from releval.core.errors import InputError, raise_all
from releval.data.decoding import excerpt, parse_json, read_text
from releval.data.delimited import read_records
from releval.data.io import PathLike

TABLE_KEYS = ("name", "a", "b", "n", "n_b", "claimed_p", "claimed_d")
NUMBER_KEYS = ("claimed_p", "claimed_d")
MAX_EXPONENT = 300
_EXPONENT = re.compile(r"(?:[eE]|10\s*\^\s*\{?)\s*([-+−]?\d+)")


def load_check_table(path: PathLike) -> list[dict[str, str]]:
    """Rows of a comparison table as {column: text}, each with its location: `_line` (CSV) or `_record` (JSON).

    Every problem is reported (at most 50), each at its line or record and column.
    """
    file = str(path)
    text = read_text(path)
    rows: list[tuple[str, int, dict[str, str]]] = []
    errors: list[InputError] = []
    if text.lstrip().startswith(("[", "{")):
        data = parse_json(text, file)
        data = data.get("rows", data) if isinstance(data, dict) else data
        if not isinstance(data, list):
            raise InputError("expected a JSON list of comparisons (or {'rows': [...]})", file=file)
        for i, rec in enumerate(data, 1):
            if not isinstance(rec, dict):
                errors.append(InputError("expected an object", file=file, record=i))
                continue
            rows.append(("record", i, {str(k): "" if v is None else str(v) for k, v in rec.items()}))
    else:
        records = read_records(text, ",", file)
        if not records:
            raise InputError("no comparisons in the table", file=file)
        header = [h.strip() for h in records[0][2]]
        twice = sorted(h for h, n in Counter(header).items() if n > 1)  # counted once: 40,000 columns took a minute
        if twice:
            shown = ", ".join(excerpt(h, 20) if len(h) > 20 else h for h in twice[:10])
            if len(twice) > 10:
                shown = f"{shown}, … ({len(twice):,} in all)"
            raise InputError(f"header names column(s) {shown} more than once", file=file, line=1)
        for start, _, cells in records[1:]:
            if not cells or all(not c.strip() for c in cells):
                continue  # a blank line in a hand-written table is no comparison (as csv.DictReader reads it)
            if len(cells) != len(header):
                errors.append(InputError(f"{len(cells)} cells, the header has {len(header)}", file=file, line=start))
            else:
                rows.append(("line", start, {k: v.strip() for k, v in zip(header, cells) if k}))
    out = []
    for unit, number, rec in rows:
        where: dict[str, Any] = {"file": file, unit: number}
        unknown = sorted(set(rec) - set(TABLE_KEYS))
        if unknown:
            errors.append(InputError(f"unknown column(s) {', '.join(unknown)}", **where))
        for key in ("a", "b"):
            if not rec.get(key):
                errors.append(InputError("missing value", field=key, **where))
        for key in NUMBER_KEYS:
            problem = exponent_problem(rec.get(key, ""))
            if problem:
                errors.append(InputError(problem, field=key, **where))
        out.append({f"_{unit}": str(number), **rec})
    raise_all(errors[:50])
    if not out:
        raise InputError("no comparisons in the table", file=file)
    return out


def exponent_problem(text: str) -> str | None:
    """Why a printed number's power of ten cannot be used (beyond ±300: no double holds 1e400), or None."""
    for match in _EXPONENT.finditer(text):
        digits = match.group(1).lstrip("+-−")
        if len(digits) > 4 or int(digits) > MAX_EXPONENT:
            return f"{excerpt(text)}: a power of ten beyond ±{MAX_EXPONENT} is no published p-value or effect size"
    return None
