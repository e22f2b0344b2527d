"""Audit findings: one structured record per problem, and a report that collects all of them (never the first only)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from releval.core.table import Column, Table

SEVERITIES = ("error", "warning", "info")


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

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "count": self.count,
            "examples": list(self.examples),
            "data": dict(self.data),
        }


@dataclass
class AuditReport:
    """Every finding of one audit, in the order the checks ran; exit status 1 when any finding is an error."""

    findings: list[Finding] = field(default_factory=list)
    inputs: dict[str, str | None] = field(default_factory=dict)

    def add(self, finding: Finding) -> Finding:
        self.findings.append(finding)
        return finding

    def extend(self, findings: list[Finding]) -> None:
        self.findings.extend(findings)

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    def by_code(self, code: str) -> list[Finding]:
        """All findings with this code (several when, e.g., both files have duplicated ids)."""
        return [f for f in self.findings if f.code == code]

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
        """Plain JSON-ready data: inputs, counts per severity, exit status and every finding."""
        return {
            "inputs": dict(self.inputs),
            "summary": self.summary(),
            "exit_status": self.exit_status,
            "findings": [f.to_dict() for f in self.findings],
        }


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
