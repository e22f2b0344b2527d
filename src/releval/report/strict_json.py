"""Strict JSON for every JSON output: never NaN or Infinity.

Python's `json.dumps` writes float('nan') as `NaN` and infinities as `Infinity`/`-Infinity` by default; those are not
JSON (RFC 8259), and strict parsers (JavaScript's JSON.parse, jq, serde_json, Go) reject the whole file. releval's
statistics avoid non-finite results where a value is defined (stats.seeds), and a value that is undefined is written
as `null` here, next to the note the result carries about why (docs/exit-codes-and-limits.md).
"""

from __future__ import annotations

import json
import math
from typing import Any


def finite_or_null(value: Any) -> Any:
    """`value` with every non-finite float (at any depth of dicts, lists and tuples) replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_or_null(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_null(item) for item in value]
    item = getattr(value, "item", None)  # a numpy scalar (float32 is not a float subclass)
    if item is not None and callable(item) and getattr(value, "shape", None) == ():
        return finite_or_null(item())
    return value


def dumps_strict(value: Any, *, indent: int | None = None, ensure_ascii: bool = True) -> str:
    """`json.dumps` with non-finite floats as null and `allow_nan=False`, so the text is always valid JSON."""
    return json.dumps(finite_or_null(value), indent=indent, ensure_ascii=ensure_ascii, allow_nan=False)
