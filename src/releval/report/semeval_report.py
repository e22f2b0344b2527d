"""The SemEval-2010 Task 8 scorer's text layout (perl v1.2, line for line) and a JSON-ready dict of the same numbers."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from releval.metrics.semeval import VIEW_TITLES, SemevalScores, SemevalView, scorer_name

if TYPE_CHECKING:
    from releval.tasks.semeval_official import SemevalOfficialResult

_HEADERS = {
    "directed": "<<< (2*9+1)-WAY EVALUATION (USING DIRECTIONALITY)>>>:",
    "undirected": "<<< (9+1)-WAY EVALUATION IGNORING DIRECTIONALITY >>>:",
    "official": "<<< (9+1)-WAY EVALUATION TAKING DIRECTIONALITY INTO ACCOUNT -- OFFICIAL >>>:",
}
_SHORT = re.compile(r"^(.)[^\-]+\-(.)")
_DIRECTION = re.compile(r"\(e([12])")


def short_name(label: str, key_labels: tuple[str, ...]) -> str:
    """The matrix heading: `C-E1` for Cause-Effect(e1,e2), `_O_` for Other, `*CE1` when absent from the key."""
    if label == "Other":
        return "_O_"
    m = _SHORT.match(label)
    if m is None:
        return label[:4]
    name = f"{m.group(1)}-{m.group(2)}" if label in key_labels else f"*{m.group(1)}{m.group(2)}"
    d = _DIRECTION.search(label)
    return name + (d.group(1) if d else "")


def render_view(view: SemevalView) -> str:
    """One evaluation block exactly as the perl scorer prints it."""
    official = view.uses_wrong_direction
    out = [_HEADERS[view.name], "", "Confusion matrix:"]
    out.append("       " + "".join(f" {short_name(c, view.labels):>4}" for c in view.columns) + " <-- classified as")
    rule = "      +" + "-----" * len(view.columns) + "+"
    out.append(rule + (" -SUM- xDIRx skip  ACTUAL" if official else " -SUM- skip ACTUAL"))
    row_sums = view.confusion.sum(axis=1)
    for i, label in enumerate(view.labels):
        cells = "".join(f"{int(v):4d} " for v in view.confusion[i])
        head = f" {short_name(label, view.labels):>4} |{cells}"
        if official:
            tail = f"| {row_sums[i]:4d}  {view.wrong_direction[i]:4d}  {view.skipped[i]:4d}  {view.actual[i]:5d}"
        else:
            tail = f"| {row_sums[i]:4d} {view.skipped[i]:4d} {view.actual[i]:4d}"
        out.append(head + tail)
    out.append(rule)
    sums = " -SUM- " + "".join(f"{int(v):4d} " for v in view.column_totals)
    n_wrong = int(view.wrong_direction.sum())
    n_skip = view.n_total - view.n_proposed
    if official:
        sums += f"  {view.n_proposed - n_wrong:4d}  {n_wrong:4d}  {n_skip:4d}  {view.n_total:5d}"
    else:
        sums += f"  {view.n_proposed:4d} {n_skip:4d} {view.n_total:4d}"
    out += [sums, ""]
    out.append(f"Coverage = {view.n_proposed}/{view.n_total} = {view.coverage:5.2f}%")
    out.append(
        "Accuracy (calculated for the above confusion matrix) = "
        f"{view.n_correct}/{view.n_proposed} = {view.accuracy:5.2f}%"
    )
    out.append(
        "Accuracy (considering all skipped examples as Wrong) = "
        f"{view.n_correct}/{view.n_total} = {view.accuracy_skipped_wrong:5.2f}%"
    )
    out.append(
        "Accuracy (considering all skipped examples as Other) = "
        f"{view.n_correct + view.other_skipped}/{view.n_total} = {view.accuracy_skipped_other:5.2f}%"
    )
    out += ["", "Results for the individual relations:"]
    for i, label in enumerate(view.labels):
        c, a = int(view.correct[i]), int(view.actual[i])
        if official:
            p_part = f"{c:4d}/({int(view.proposed[i]):4d} +{int(view.wrong_direction[i]):4d}) = "
        else:
            p_part = f"{c:4d}/{int(view.p_denominator[i]):4d} = "
        out.append(
            f"{scorer_name(label):>25} :    P = {p_part}{view.precision[i]:6.2f}%     R = {c:4d}/{a:4d} = "
            f"{view.recall[i]:6.2f}%     F1 = {view.f1[i]:6.2f}%"
        )
    mi = view.micro
    out += ["", "Micro-averaged result (excluding Other):"]
    out.append(
        f"P = {mi.correct:4d}/{mi.proposed:4d} = {mi.precision:6.2f}%     R = {mi.correct:4d}/{mi.actual:4d} = "
        f"{mi.recall:6.2f}%     F1 = {mi.f1:6.2f}%"
    )
    out += ["", "MACRO-averaged result (excluding Other):"]
    out.append(f"P = {view.macro_precision:6.2f}%\tR = {view.macro_recall:6.2f}%\tF1 = {view.macro_f1:6.2f}%")
    out += ["", "", "", ""]
    return "\n".join(out)


def render_scores(scores: SemevalScores) -> str:
    """The scorer's whole standard output: warnings, the three views and the official-score line."""
    parts = [
        f"!!!WARNING!!! The proposed file contains {n} label(s) of type '{scorer_name(label)}', which is NOT "
        "present in the key file.\n\n"
        for label, n in scores.absent_from_key.items()
    ]
    parts += [render_view(v) for v in scores.views]
    parts.append(
        "<<< The official score is (9+1)-way evaluation with directionality taken into account: "
        f"macro-averaged F1 = {scores.official_score:0.2f}% >>>\n"
    )
    return "".join(parts)


def render_text(result: SemevalOfficialResult, heading: bool = False) -> str:
    """The scorer's layout followed by releval's signature (and a `==> system <==` heading when asked)."""
    head = f"==> {result.system} <==\n" if heading else ""
    notes = "".join(f"note: {n}\n" for n in result.notes)
    return f"{head}{render_scores(result.scores)}{notes}signature: {result.signature.format(short=True)}\n"


def _view_dict(view: SemevalView) -> dict[str, Any]:
    per = []
    for i, label in enumerate(view.labels):
        row: dict[str, Any] = {
            "label": label,
            "correct": int(view.correct[i]),
            "proposed": int(view.proposed[i]),
            "p_denominator": int(view.p_denominator[i]),
            "actual": int(view.actual[i]),
            "skipped": int(view.skipped[i]),
            "precision": float(view.precision[i]),
            "recall": float(view.recall[i]),
            "f1": float(view.f1[i]),
        }
        if view.uses_wrong_direction:
            row["wrong_direction"] = int(view.wrong_direction[i])
        per.append(row)
    mi = view.micro
    return {
        "title": VIEW_TITLES[view.name],
        "labels": list(view.labels),
        "columns": list(view.columns),
        "confusion": view.confusion.tolist(),
        "wrong_direction": view.wrong_direction.tolist() if view.uses_wrong_direction else None,
        "skipped": view.skipped.tolist(),
        "actual": view.actual.tolist(),
        "coverage": {"proposed": view.n_proposed, "total": view.n_total, "percent": view.coverage},
        "accuracy": {
            "correct": view.n_correct,
            "on_proposed": view.accuracy,
            "skipped_as_wrong": view.accuracy_skipped_wrong,
            "skipped_as_other": view.accuracy_skipped_other,
            "other_skipped": view.other_skipped,
        },
        "per_relation": per,
        "micro_excluding_other": {
            "correct": mi.correct,
            "proposed": mi.proposed,
            "actual": mi.actual,
            "precision": mi.precision,
            "recall": mi.recall,
            "f1": mi.f1,
        },
        "macro_excluding_other": {
            "precision": view.macro_precision,
            "recall": view.macro_recall,
            "f1": view.macro_f1,
            "n_labels": view.n_macro_labels,
        },
    }


def semeval_to_dict(result: SemevalOfficialResult) -> dict[str, Any]:
    """JSON-ready numbers of all three views (percentages unrounded, in [0, 100]) with the signature."""
    s = result.scores
    return {
        "system": result.system,
        "task": "semeval-official",
        "official_score": s.official_score,
        "percentages": True,
        "views": {v.name: _view_dict(v) for v in s.views},
        "absent_from_key": dict(s.absent_from_key),
        "skipped": s.n_skipped,
        "warnings": list(result.warnings),
        "notes": list(result.notes),
        "signature": result.signature.format(),
        "signature_short": result.signature.format(short=True),
    }
