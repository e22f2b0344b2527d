"""Audits of evaluations (coverage, leaks, label space, type constraints) and of comparisons between results."""

from releval.audit.checks import audit
from releval.audit.findings import AuditReport, Finding

__all__ = ["AuditReport", "Finding", "audit"]
