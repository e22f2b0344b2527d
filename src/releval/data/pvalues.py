"""Reading per-dataset p-value tables (CSV, TSV or JSON) for the replicability analysis.

Columns: ``dataset`` (a unique name), ``p`` (a one-sided p-value in [0, 1]) and optionally ``effect``
(the observed difference A - B, used only for its sign).  Header names are case-insensitive and a few
spellings are accepted (``p_value``, ``pvalue``, ``p-value``; ``name``; ``delta``, ``diff``).

JSON may be a list of records ``[{"dataset": ..., "p": ..., "effect": ...}, ...]``, an object with such
a list under ``"datasets"``, or a plain mapping ``{"name": p, ...}``.

Every problem is collected and reported together, each located by file, line (JSON: record) and field. A JSON
syntax error or nesting beyond 1,024 levels is one error at its line; a key written twice in one JSON object (a
dataset name in the `{name: p}` form, or a column of a record) is refused, since a parser would keep only the last
value; CSV/TSV quoting errors and lone CRs are located, and fields of any length are read.

The loaded `PValueTable` writes itself as JSON with `to_dict()` and loads back equal with `from_dict()`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError, raise_all
from releval.core.schema import check_schema, float_or_nan, header, reading, same
from releval.core.validation import check_choice
from releval.data.decoding import CONTROL, excerpt, parse_json, read_text, with_all_keys
from releval.data.delimited import split_record, text_lines
from releval.data.io import PathLike

#: The formats of a p-value table (`--table-format`); by default the file's extension decides.
TABLE_FORMATS = ("csv", "tsv", "json")

_DATASET = ("dataset", "name", "data", "language", "domain")
_P = ("p", "p_value", "pvalue", "p-value", "pval")
_EFFECT = ("effect", "delta", "diff", "difference")
# A plain decimal number, or nan/inf (read, then refused as not finite with that message).
_DECIMAL = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf|infinity)", re.IGNORECASE)


@dataclass(frozen=True)
class PValueTable:
    """Per-dataset one-sided p-values, in file order."""

    datasets: list[str]
    p: NDArray[np.float64]
    effect: NDArray[np.float64] | None = None
    source: str | None = None

    def __len__(self) -> int:
        return len(self.datasets)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the file it was read from and one record per dataset (the `{"datasets": [...]}` form that
        `load_pvalues` reads too)."""
        records: list[dict[str, Any]] = []
        for i, name in enumerate(self.datasets):
            record: dict[str, Any] = {"dataset": name, "p": float(self.p[i])}
            if self.effect is not None:
                record["effect"] = float(self.effect[i])
            records.append(record)
        return {**header("pvalue-table"), "source": self.source, "datasets": records}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PValueTable:
        """The table `to_dict()` wrote, arrays restored (ValueError when it is not one)."""
        what = "p-value table"
        check_schema(data, what, "pvalue-table")
        with reading(what):
            records = data["datasets"]
            effect = None
            if records and "effect" in records[0]:
                effect = np.asarray([float_or_nan(r["effect"]) for r in records], dtype=np.float64)
            source = data.get("source")
            return cls(
                [str(r["dataset"]) for r in records],
                np.asarray([float_or_nan(r["p"]) for r in records], dtype=np.float64),
                effect,
                None if source is None else str(source),
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, the arrays by dtype, shape and values."""
        if not isinstance(other, PValueTable):
            return NotImplemented
        return same(self, other)

    __hash__ = None  # type: ignore[assignment]  # arrays inside: not hashable


def _number(raw: object, *, what: str) -> tuple[float | None, str | None]:
    """(value, None) for a finite number, else (None, message). Text must be a plain decimal number: Python's
    float() would also take `1_000` and digits of other scripts (`٠.03`)."""
    if isinstance(raw, bool) or raw is None:
        return None, f"{what} must be a number, got {json.dumps(raw)}"
    if isinstance(raw, (list, dict)):  # no str(): a value nested 1,000 deep would overflow repr's recursion
        return None, f"{what} must be a number, got {'a list' if isinstance(raw, list) else 'an object'}"
    if isinstance(raw, (int, float)):
        try:
            value = float(raw)
        except OverflowError:
            return None, f"{what} must be finite, got an integer of {len(str(raw))} digits"
    else:
        text = str(raw).strip()
        if not text:
            return None, f"{what} is empty"
        if not _DECIMAL.fullmatch(text):
            return None, f"{what} must be a number, got {excerpt(text)}"
        value = float(text)
    if math.isnan(value) or math.isinf(value):
        return None, f"{what} must be finite, got {excerpt(str(raw))}"
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
    dataset = name.strip() if isinstance(name, str) else str(name) if type(name) is int else ""
    if name is not None and not isinstance(name, str) and type(name) is not int:
        kind = "a list" if isinstance(name, list) else "an object" if isinstance(name, dict) else json.dumps(name)
        errors.append(
            InputError(
                f"{where}dataset name must be a string or an integer, got {kind}", file=file, line=line, field="dataset"
            )
        )
        ok = False
    elif not dataset:
        errors.append(InputError(f"{where}dataset name is empty", file=file, line=line, field="dataset"))
        ok = False
    elif CONTROL.search(dataset):
        errors.append(
            InputError(
                f"{where}dataset name {excerpt(dataset)} holds a control character",
                file=file,
                line=line,
                field="dataset",
            )
        )
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
    lines = text_lines(text, file)
    numbered = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]
    if not numbered:
        raise InputError("file is empty: expected a header with 'dataset' and 'p' columns", file=file)
    header_line, header_text = numbered[0]
    header = split_record(header_text, delimiter, file, header_line)
    di, pi, ei = _find(header, _DATASET), _find(header, _P), _find(header, _EFFECT)
    lowered = [h.strip().lower() for h in header]
    for key, names in (("dataset", _DATASET), ("p", _P), ("effect", _EFFECT)):
        present = [h for h in lowered if h in names]
        if len(present) > 1:  # the first would be read and the others silently ignored
            raise InputError(
                f"header has {len(present)} columns for '{key}' ({', '.join(present)})",
                file=file,
                line=header_line,
                field=key,
            )
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
        try:
            cells = split_record(text_line, delimiter, file, line_no)
        except InputError as exc:
            errors.append(exc)
            continue
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
    data = parse_json(text, file)
    _refuse_repeated_keys(text, file)
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
        if len(lowered) != len(rec):
            errors.append(InputError(f"record {i}: two keys differ only in case or spaces", file=file))
            continue
        for key, names in (("dataset", _DATASET), ("p", _P), ("effect", _EFFECT)):
            present = [n for n in names if n in lowered]
            if len(present) > 1:
                errors.append(
                    InputError(f"record {i}: keys {', '.join(present)} all name '{key}'", file=file, field=key)
                )
            if present:
                norm[key] = lowered[present[0]]
        absent = [key for key in ("dataset", "p") if key not in norm]
        for key in absent:
            errors.append(InputError(f"record {i} has no '{key}' key", file=file, field=key))
        if not absent:
            out.append((i, norm))
    return out


def _refuse_repeated_keys(text: str, file: str) -> None:
    """A key written twice in one JSON object is refused: a parser keeps only the last value, so `{name: p}` would
    silently drop a dataset. P-value tables are small, so every object is checked (standard library parser)."""
    value = with_all_keys(text.encode("utf-8"))
    if value is None:
        return
    twice = getattr(value, "repeated", [])
    if twice:
        raise InputError(f"dataset or key {twice[0]!r} written twice in the top-level JSON object", file=file)
    records = value.get("datasets", []) if isinstance(value, dict) else value
    for i, rec in enumerate(records if isinstance(records, list) else [], start=1):
        twice = getattr(rec, "repeated", [])
        if twice:
            raise InputError(
                f"record {i}: key {twice[0]!r} written twice (a parser would keep only the last value)",
                file=file,
                field=twice[0],
            )


def _format_of(path: Path, format: str | None) -> str:
    if format:
        return check_choice(format.lower(), TABLE_FORMATS, "table_format")
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    ext = suffixes[-1] if suffixes else ""
    return {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".json": "json"}.get(ext, "csv")


def load_pvalues(path: PathLike, *, format: str | None = None) -> PValueTable:
    """Read a p-value table; the format follows the extension (.csv/.tsv/.json, optionally .gz) or `format`."""
    file = str(path)
    kind = _format_of(Path(path), format)
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
