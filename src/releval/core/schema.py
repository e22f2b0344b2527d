"""What every saved result shares: the schema version and kind it is read back by, and equality that survives JSON.

A result's `to_dict()` starts with `header(kind)`, and its `from_dict()` calls `check_schema(data, what, kind)`
first, so a file of another kind or of a newer layout is refused with a message instead of misread. JSON has no
NaN (releval's strict JSON writes an undefined statistic as null) and no arrays, so `float_or_nan` reads a null
back as the NaN it was, and `same` compares two results field by field with NaN equal to NaN and arrays compared
by dtype, shape and values — the `==` of results that hold NaN or NumPy arrays.

This module sits in `core` so that a loaded value of any layer (a p-value table of `data`, a paired test of
`significance`) checks its header the same way; it imports no NumPy (arrays are recognised by their attributes).

>>> data = header("paired-test") | {"p": None}
>>> check_schema(data, "paired test", "paired-test"); float_or_nan(data["p"])
nan
>>> check_schema(data, "seed comparison", "seed-comparison")
Traceback (most recent call last):
ValueError: seed comparison: kind 'paired-test' is not 'seed-comparison'
>>> same([1.0, float("nan")], [1.0, float("nan")]), same({"a": 1}, {"a": 2})
(True, False)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from releval.core.notices import Notice

#: The version of every result's JSON layout; a reader refuses another one instead of misreading it.
SCHEMA_VERSION = 1


def header(kind: str) -> dict[str, Any]:
    """The first keys of a result's `to_dict()`: `{"schema_version": …, "kind": kind}`."""
    return {"schema_version": SCHEMA_VERSION, "kind": kind}


def check_schema(data: Any, what: str, kind: str | None = None) -> None:
    """Refuse `data` that is not a JSON object of this schema version (and, given `kind`, of that kind).

    The ValueError names `what` was being read and the value found, e.g. "replicability analysis: schema_version
    2 is not 1". A boolean is no version (`true == 1` in Python, not in the schema).
    """
    if not isinstance(data, dict):
        raise ValueError(f"{what}: expected a JSON object, got {type(data).__name__}")
    version = data.get("schema_version")
    if type(version) is not int or version != SCHEMA_VERSION:
        raise ValueError(f"{what}: schema_version {version!r} is not {SCHEMA_VERSION}")
    if kind is not None and data.get("kind") != kind:
        raise ValueError(f"{what}: kind {data.get('kind')!r} is not {kind!r}")


def float_or_nan(value: Any) -> float:
    """`value` as a float; None (how strict JSON writes NaN and infinities) as NaN."""
    return math.nan if value is None else float(value)


def _is_array(value: Any) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "tolist")


def same(a: Any, b: Any) -> bool:
    """Deep equality with NaN equal to NaN: dataclasses field by field, mappings, sequences, NumPy arrays (same
    dtype and shape, then values), notices by message and code, everything else by `==`."""
    if isinstance(a, Notice) or isinstance(b, Notice):
        return isinstance(a, Notice) and isinstance(b, Notice) and str(a) == str(b) and a.code == b.code
    if _is_array(a) or _is_array(b):
        if not (_is_array(a) and _is_array(b)):
            return False
        return str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape) and same(a.tolist(), b.tolist())
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        if type(a) is not type(b):
            return False
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


@contextmanager
def reading(what: str) -> Iterator[None]:
    """Inside a `from_dict`: a missing key or a value of the wrong shape becomes a ValueError naming what was read
    (a KeyError 'p' alone does not say which file of a leaderboard's store is broken)."""
    try:
        yield
    except KeyError as exc:
        raise ValueError(f"{what}: missing key {exc}") from None
    except (TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"{what}: malformed data ({exc})") from None


def known(value: Any, choices: Collection[str], what: str, key: str) -> str:
    """`value` when it is one of `choices`, else a ValueError naming what was read and the key (a loaded result
    with an unknown test or method would fail later, far from the file)."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{what}: {key} {value!r} is not one of {', '.join(choices)}")
    return value


def envelope(results: Sequence[Any], kind: str) -> dict[str, Any]:
    """The JSON document of any command: one schema whether it holds one result or several."""
    tasks = sorted({getattr(r, "task", None) or "" for r in results})
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": kind,
        "task": tasks[0] if len(tasks) == 1 else tasks,
        "results": [r.to_dict() for r in results],
    }
