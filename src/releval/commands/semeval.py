"""`releval score --task semeval-official`: the perl scorer v1.2's report for one or several systems."""

from __future__ import annotations

from pathlib import Path

from releval.api import score_semeval_official
from releval.commands.common import emit
from releval.errors import OptionError
from releval.report.semeval_report import render_text
from releval.report.strict_json import dumps_strict
from releval.validation import check_choice


def run_semeval_official(
    gold: Path, preds: list[Path], *, allow_skipped: bool, format: str, output: Path | None
) -> int:
    """Score every prediction file against the key and print text (the scorer's layout) or JSON; returns 0.

    All files are loaded and checked before anything is written, so a bad input leaves no output file.
    """
    check_choice(format, ("text", "json"), "--format")
    if not preds:
        raise OptionError("at least one prediction file is needed", option="PREDS")
    results = [score_semeval_official(gold, p, allow_skipped) for p in preds]
    if format == "json":
        payload: object = results[0].to_dict() if len(results) == 1 else [r.to_dict() for r in results]
        text = dumps_strict(payload, indent=2) + "\n"
    else:
        several = len(results) > 1
        text = "\n".join(render_text(r, heading=several) for r in results)
    emit(text, output)
    return 0
