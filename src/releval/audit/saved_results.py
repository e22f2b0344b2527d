"""Scored results read back from `releval score` JSON files: their names, signatures and dataset facts.

The input of `audit compare` (releval.audit.comparability) and of `claims check` (releval.audit.claims): a module of
its own so that neither imports the other for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from releval.core.errors import InputError
from releval.core.signature import Signature, parse
from releval.data.decoding import parse_json, read_utf8
from releval.data.io import PathLike

#: The dataset facts a saved result may carry (top level, or in `extra`).
_DATASET_KEYS = ("dataset", "fingerprint", "statistics", "documents")


@dataclass(frozen=True)
class SavedResult:
    """One scored result read back from JSON: where it came from, its signature and dataset facts.

    An input of the comparison (the saved JSON itself is in `data`), not a result: it has no `to_dict` of its own.
    """

    name: str
    path: str
    signature: Signature
    data: dict[str, Any]
    dataset: dict[str, Any] = field(default_factory=dict)

    @property
    def criterion(self) -> str | None:
        return self.signature.get("criterion")


def load_results(path: PathLike) -> list[SavedResult]:
    """Every result in a `releval score` JSON file: one result, {"results": [...]}, or an e2e file's criteria.

    A syntax error (or nesting beyond 1,024 levels) is an InputError at its line; each result's parts that the
    audit and `claims check` read (signature, per_class, averages) are checked before they are used.
    """
    data = parse_json(read_utf8(path), str(path))
    name = Path(str(path)).name
    if isinstance(data, dict) and isinstance(data.get("criteria"), dict):
        facts = {k: data[k] for k in _DATASET_KEYS if k in data}
        return [_one(v, f"{name}[{c}]", path, facts) for c, v in data["criteria"].items()]
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        out: list[SavedResult] = []
        several = len(data["results"]) > 1  # one result is named by its file alone, as it always was
        for i, item in enumerate(data["results"]):
            label = f"{name}#{i + 1}" if several else name
            if isinstance(item, dict) and isinstance(item.get("criteria"), dict):
                facts = {k: item[k] for k in _DATASET_KEYS if k in item}
                out += [_one(v, f"{label}[{c}]", path, facts) for c, v in item["criteria"].items()]
            else:
                out.append(_one(item, label, path, {}))
        return out
    return [_one(data, name, path, {})]


def _one(item: Any, name: str, path: PathLike, facts: dict[str, Any]) -> SavedResult:
    if not isinstance(item, dict) or not isinstance(item.get("signature"), str):
        raise InputError(f"{name}: not a releval result: no 'signature' string", file=str(path), field="signature")
    try:
        signature = parse(item["signature"])
    except ValueError as exc:
        raise InputError(f"{name}: {exc}", file=str(path), field="signature") from None
    per_class = item.get("per_class", [])
    if not isinstance(per_class, list) or not all(
        isinstance(r, dict) and isinstance(r.get("label"), str) for r in per_class
    ):
        raise InputError(f"{name}: expected a list of objects with a 'label' string", file=str(path), field="per_class")
    averages = item.get("averages", {})
    if not isinstance(averages, dict) or not all(
        isinstance(v, dict) and _is_number(v.get("f")) for v in averages.values()
    ):
        raise InputError(
            f"{name}: expected an object of averages, each with a finite number 'f'", file=str(path), field="averages"
        )
    facts = {**facts, **{k: item[k] for k in _DATASET_KEYS if k in item}}
    extra = item.get("extra") or {}
    facts |= {k: extra[k] for k in _DATASET_KEYS if isinstance(extra, dict) and k in extra}
    return SavedResult(name, str(path), signature, item, facts)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
