"""The SemEval-2010 Task 8 scorer's text layout (perl v1.2, line for line): `releval score --task semeval-official
--perl-report`. The one-line-per-system table is the result's own `tables_of`; the JSON its `to_dict`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from releval.metrics.semeval import SemevalScores, SemevalView, scorer_name

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


def render_perl(results: Sequence[SemevalOfficialResult]) -> str:
    """What the perl scorer prints for each result, byte for byte; several results each under a `==> system <==`
    heading (as `head` shows several files), separated by an empty line. releval's signature is not part of it."""
    if len(results) == 1:
        return render_scores(results[0].scores)
    return "\n".join(f"==> {r.system} <==\n{render_scores(r.scores)}" for r in results)
