"""Reading per-dataset p-value tables (CSV, TSV or JSON) for the replicability analysis.

Columns: ``dataset`` (a unique name), ``p`` (a one-sided p-value in [0, 1]) and optionally ``effect``
(the observed difference A - B, used only for its sign).  Header names are case-insensitive and a few
spellings are accepted (``p_value``, ``pvalue``, ``p-value``; ``name``; ``delta``, ``diff``).

JSON may be a list of records ``[{"dataset": ..., "p": ..., "effect": ...}, ...]``, an object with such
a list under ``"datasets"``, or a plain mapping ``{"name": p, ...}``.

Every problem is collected and reported together, each located by file, line (JSON: record) and field.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from releval.data.io import PathLike, read_text, split_lines
from releval.errors import InputError, raise_all
from releval.validation import check_choice

_DATASET = ("dataset", "name", "data", "language", "domain")
_P = ("p", "p_value", "pvalue", "p-value", "pval")
_EFFECT = ("effect", "delta", "diff", "difference")


@dataclass(frozen=True)
class PValueTable:
    """Per-dataset one-sided p-values, in file order."""

    datasets: list[str]
    p: NDArray[np.float64]
    effect: NDArray[np.float64] | None = None
    source: str | None = None

    def __len__(self) -> int:
        return len(self.datasets)


def _number(raw: object, *, what: str) -> tuple[float | None, str | None]:
    """(value, None) for a finite number, else (None, message)."""
    if isinstance(raw, bool) or raw is None:
        return None, f"{what} must be a number, got {json.dumps(raw)}"
    if isinstance(raw, (int, float)):
        value = float(raw)
    else:
        text = str(raw).strip()
        if not text:
            return None, f"{what} is empty"
        try:
            value = float(text)
        except ValueError:
            return None, f"{what} must be a number, got {text!r}"
    if math.isnan(value) or math.isinf(value):
        return None, f"{what} must be finite, got {raw!r}"
    return value, None


def _check_row(
    name: object,
    p_raw: object,
    eff_raw: object,
    has_effect: bool,
    *,
    file: str,
    line: int | None,
    where: str,
    seen: dict[str, str],
    errors: list[InputError],
) -> tuple[str, float, float] | None:
    ok = True
    dataset = "" if name is None else str(name).strip()
    if not dataset:
        errors.append(InputError(f"{where}dataset name is empty", file=file, line=line, field="dataset"))
        ok = False
    elif dataset in seen:
        errors.append(
            InputError(
                f"{where}duplicate dataset {dataset!r} (first at {seen[dataset]})",
                file=file,
                line=line,
                field="dataset",
            )
        )
        ok = False
    else:
        seen[dataset] = where.rstrip(": ") or f"line {line}"
    p, msg = _number(p_raw, what="p-value")
    if msg is None and p is not None and not 0.0 <= p <= 1.0:
        msg = f"p-value {p_raw!r} is outside [0, 1]"
    if msg is not None:
        errors.append(InputError(where + msg, file=file, line=line, field="p"))
        ok = False
    effect = math.nan
    if has_effect:
        e, emsg = _number(eff_raw, what="effect")
        if emsg is not None:
            errors.append(InputError(where + emsg, file=file, line=line, field="effect"))
            ok = False
        else:
            effect = float(e) if e is not None else math.nan
    if not ok or p is None:
        return None
    return dataset, p, effect


def _find(header: list[str], names: tuple[str, ...]) -> int | None:
    lowered = [h.strip().lower() for h in header]
    for n in names:
        if n in lowered:
            return lowered.index(n)
    return None


def _parse_delimited(
    text: str, file: str, delimiter: str, errors: list[InputError]
) -> list[tuple[int, dict[str, str]]]:
    """Rows as (line number, {"dataset", "p", "effect"?}) after checking the header; row problems go to `errors`."""
    lines = split_lines(text)
    numbered = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]
    if not numbered:
        raise InputError("file is empty: expected a header with 'dataset' and 'p' columns", file=file)
    header_line, header_text = numbered[0]
    header = next(csv.reader([header_text], delimiter=delimiter))
    di, pi, ei = _find(header, _DATASET), _find(header, _P), _find(header, _EFFECT)
    missing = [f for f, i in (("dataset", di), ("p", pi)) if i is None]
    if missing:
        sep = "tab" if delimiter == "\t" else repr(delimiter)
        raise InputError(
            f"header lacks column(s) {', '.join(missing)} (found {header!r}, {sep}-separated)",
            file=file,
            line=header_line,
            field=missing[0],
        )
    rows: list[tuple[int, dict[str, str]]] = []
    for line_no, text_line in numbered[1:]:
        cells = next(csv.reader([text_line], delimiter=delimiter))
        if len(cells) != len(header):
            errors.append(InputError(f"expected {len(header)} fields, found {len(cells)}", file=file, line=line_no))
            continue
        row = {"dataset": cells[di], "p": cells[pi]}  # type: ignore[index]  # both checked above
        if ei is not None:
            row["effect"] = cells[ei]
        rows.append((line_no, row))
    return rows


def _json_records(text: str, file: str, errors: list[InputError]) -> list[tuple[int, dict[str, Any]]]:
    """(record number, normalised record) pairs."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", file=file, line=exc.lineno) from None
    if isinstance(data, dict) and "datasets" in data:
        data = data["datasets"]
    if isinstance(data, dict):
        return [(i + 1, {"dataset": k, "p": v}) for i, (k, v) in enumerate(data.items())]
    if not isinstance(data, list):
        raise InputError("expected a list of records, {'datasets': [...]} or {name: p}", file=file)
    out: list[tuple[int, dict[str, Any]]] = []
    for i, rec in enumerate(data, start=1):
        if not isinstance(rec, dict):
            errors.append(InputError(f"record {i}: expected an object, got {type(rec).__name__}", file=file))
            continue
        norm: dict[str, Any] = {}
        lowered = {str(k).strip().lower(): v for k, v in rec.items()}
        for key, names in (("dataset", _DATASET), ("p", _P), ("effect", _EFFECT)):
            for n in names:
                if n in lowered:
                    norm[key] = lowered[n]
                    break
        absent = [key for key in ("dataset", "p") if key not in norm]
        for key in absent:
            errors.append(InputError(f"record {i} has no '{key}' key", file=file, field=key))
        if not absent:
            out.append((i, norm))
    return out


def _format_of(path: Path, fmt: str | None) -> str:
    if fmt:
        f = fmt.lower()
        return check_choice(f, ("csv", "tsv", "json"), "--table-format")
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    ext = suffixes[-1] if suffixes else ""
    return {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".json": "json"}.get(ext, "csv")


def load_pvalues(path: PathLike, *, fmt: str | None = None) -> PValueTable:
    """Read a p-value table; the format follows the extension (.csv/.tsv/.json, optionally .gz) or `fmt`."""
    file = str(path)
    kind = _format_of(Path(path), fmt)
    text = read_text(path)
    errors: list[InputError] = []
    seen: dict[str, str] = {}
    names: list[str] = []
    ps: list[float] = []
    effects: list[float] = []
    if kind == "json":
        records = _json_records(text, file, errors)
        has_effect = any("effect" in rec for _, rec in records)
        for num, rec in records:
            if has_effect and "effect" not in rec:
                errors.append(
                    InputError(f"record {num} has no 'effect' key (other records have one)", file=file, field="effect")
                )
                continue
            row = _check_row(
                rec.get("dataset"),
                rec.get("p"),
                rec.get("effect"),
                has_effect,
                file=file,
                line=None,
                where=f"record {num}: ",
                seen=seen,
                errors=errors,
            )
            if row:
                names.append(row[0])
                ps.append(row[1])
                effects.append(row[2])
    else:
        rows = _parse_delimited(text, file, "\t" if kind == "tsv" else ",", errors)
        has_effect = any("effect" in r for _, r in rows)
        for line_no, r in rows:
            row = _check_row(
                r["dataset"],
                r["p"],
                r.get("effect"),
                has_effect,
                file=file,
                line=line_no,
                where="",
                seen=seen,
                errors=errors,
            )
            if row:
                names.append(row[0])
                ps.append(row[1])
                effects.append(row[2])
    errors.sort(key=lambda e: e.line or 0)  # stable: JSON record order is kept
    raise_all(errors)
    if not names:
        raise InputError("no datasets: the table has a header but no rows", file=file)
    eff = np.asarray(effects, dtype=float) if has_effect else None
    return PValueTable(datasets=names, p=np.asarray(ps, dtype=float), effect=eff, source=file)
