"""Audit findings: one structured record per problem, and a report that collects all of them (never the first only).

A report saves to JSON (`to_dict`) and loads back equal (`from_dict`). A finding's `data` is kept in its JSON form
from the start (string keys, lists for tuples, None for a non-finite number), so what is saved is what was found.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from releval.core.schema import check_schema, header, reading
from releval.core.signature import Signature, parse
from releval.core.table import Column, Table

SEVERITIES = ("error", "warning", "info")
#: The `kind` of a saved audit report.
KIND = "audit"


def _json_ready(value: Any) -> Any:
    """`value` as JSON reads it back: mappings with string keys, tuples and numpy arrays as lists, numpy scalars as
    Python numbers, NaN and infinities as None (the strict JSON writer's null), at any depth.

    >>> _json_ready({"pair": ("a", 1), 2: float("nan")})
    {'pair': ['a', 1], '2': None}
    """
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    tolist = getattr(value, "tolist", None)  # a numpy scalar or array
    if callable(tolist):
        return _json_ready(tolist())
    return value


@dataclass(frozen=True)
class Finding:
    """One audit result: a stable `code`, a severity, a human message, a count, examples and the numbers behind it."""

    code: str
    severity: str
    message: str
    count: int | None = None
    examples: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {', '.join(SEVERITIES)}, not {self.severity!r}")
        object.__setattr__(self, "examples", [str(x) for x in self.examples])
        object.__setattr__(self, "data", _json_ready(dict(self.data)))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (a part of the report's, so no schema version of its own)."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "count": self.count,
            "examples": list(self.examples),
            "data": dict(self.data),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        """The finding `to_dict()` wrote (ValueError for an unknown severity or a missing field)."""
        with reading("audit finding"):
            count = data.get("count")
            return cls(
                str(data["code"]),
                str(data["severity"]),
                str(data["message"]),
                None if count is None else int(count),
                list(data.get("examples", [])),
                dict(data.get("data", {})),
            )


@dataclass
class AuditReport:
    """Every finding of one audit, in the order the checks ran; exit status 1 when any finding is an error."""

    findings: list[Finding] = field(default_factory=list)
    inputs: dict[str, str | None] = field(default_factory=dict)
    #: What the findings' numbers were computed from: the negative class, the gold (and training) labels and n.
    #: None when the files could not be read far enough to know.
    signature: Signature | None = None

    def add(self, finding: Finding) -> Finding:
        self.findings.append(finding)
        return finding

    def extend(self, findings: list[Finding]) -> None:
        self.findings.extend(findings)

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    def get(self, code: str) -> Finding | None:
        """The first finding with this code, or None."""
        return next((f for f in self.findings if f.code == code), None)

    def with_severity(self, severity: str) -> list[Finding]:
        return [f for f in self.findings if f.severity == severity]

    @property
    def errors(self) -> list[Finding]:
        return self.with_severity("error")

    @property
    def warnings(self) -> list[Finding]:
        return self.with_severity("warning")

    @property
    def exit_status(self) -> int:
        """1 when any finding is an error, else 0 (the CLI's exit code)."""
        return 1 if self.errors else 0

    def summary(self) -> dict[str, int]:
        return {s: len(self.with_severity(s)) for s in SEVERITIES}

    def to_tables(self) -> list[Table]:
        """The findings as one table (releval.report.render writes it as text, Markdown, LaTeX or CSV)."""
        return findings_tables(self)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: inputs, counts per severity, exit status and every finding (the CLI's JSON)."""
        return {
            **header(KIND),
            "inputs": dict(self.inputs),
            "summary": self.summary(),
            "exit_status": self.exit_status,
            "findings": [f.to_dict() for f in self.findings],
            **(self.signature.to_json() if self.signature is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AuditReport:
        """The report `to_dict()` wrote; `summary` and `exit_status` follow from the findings and are not read.

        ValueError when `data` is not a saved audit report of this schema version.
        """
        what = "audit report"
        check_schema(data, what, KIND)
        with reading(what):
            inputs = {str(k): None if v is None else str(v) for k, v in data.get("inputs", {}).items()}
            signature = parse(data["signature"]) if "signature" in data else None
            return cls([Finding.from_dict(f) for f in data["findings"]], inputs, signature)


def findings_tables(report: AuditReport) -> list[Table]:
    """One row per finding (severity, code, count, message, examples), under the audited files and the counts."""
    title = f"audit of {report.inputs.get('pred')} against {report.inputs.get('gold')}"
    if report.inputs.get("train"):
        title += f" (training data {report.inputs['train']})"
    s = report.summary()
    columns = (
        Column("severity", display=str.upper),
        Column("code"),
        Column("count", "count"),
        Column("message"),
        Column("examples", missing=""),
    )
    rows = [(f.severity, f.code, f.count, f.message, "; ".join(f.examples) or None) for f in report]
    lead = [f"{s['error']} error(s), {s['warning']} warning(s), {s['info']} note(s)"]
    return [Table(title, columns, rows, lead=lead)]
