"""The audit's renderings: an audit report as text, and the verdicts of `audit compare` in every output format.

They live here, above releval.audit, because rendering is the report layer's job: the audit builds findings,
comparisons and their tables (releval.core.table), this module turns them into text.
"""

from __future__ import annotations

from collections.abc import Sequence

from releval.audit.comparability import Comparison, comparison_tables
from releval.audit.findings import AuditReport
from releval.report.render import render_as


def render_report(report: AuditReport) -> str:
    """Plain text: one block per finding, severity first; a summary line last."""
    lines = [f"audit of {report.inputs.get('pred')} against {report.inputs.get('gold')}"]
    if report.inputs.get("train"):
        lines[0] += f" (training data {report.inputs['train']})"
    for f in report:
        count = f" [{f.count}]" if f.count is not None else ""
        lines.append(f"{f.severity.upper():<7} {f.code}{count}: {f.message}")
        lines += [f"          e.g. {x}" for x in f.examples]
    s = report.summary()
    lines.append(f"{s['error']} error(s), {s['warning']} warning(s), {s['info']} note(s)")
    return "\n".join(lines) + "\n"


def render_comparisons(comparisons: Sequence[Comparison], format: str = "text") -> str:
    """One verdict per pair with its reasons (text, Markdown, LaTeX), one row per reason (CSV), or JSON (a list of
    each comparison's `to_dict`)."""
    return render_as(format, lambda: comparison_tables(comparisons), lambda: [c.to_dict() for c in comparisons])
