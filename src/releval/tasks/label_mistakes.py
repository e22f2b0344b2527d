"""The label mistakes people make that yield a plausible but wrong score, caught before a number is shown.

Each check reads only the label vocabularies (the distinct gold labels and the labels only predictions use), so it
costs nothing next to scoring, and each raises one error that names the mistake and the fix:

* a typo in an explicit negative label (`no_relaton`): it occurs nowhere, so the real negative class silently
  becomes a positive class and every average changes;
* directed predictions (`Cause-Effect(e1,e2)`) against an undirected SemEval-2010 Task 8 key (`Cause-Effect`,
  the official `TEST_FILE_KEY.TXT`): no predicted label can match, micro-F1 is 0;
* predicted labels that differ from gold labels only in letter case (`PER:TITLE` for `per:title`): each is a new
  label that matches nothing.
And two warnings, for what the user may have meant: alignment by position of files whose ids say the items are
in another order, and gold and predictions given the other way round.

Example
-------
>>> try:
...     check_label_spelling(["per:title", "no_relation"], ["PER:TITLE"], "preds.txt")
... except InputError as error:
...     print(error.message.split(';')[0])
1 predicted label(s) differ from gold labels only in letter case: 'PER:TITLE' (gold 'per:title')
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import PurePath

from releval.core.notices import Notice
from releval.data.formats.base import LabelFile
from releval.data.semeval_labels import DIRECTED_SET, UNDIRECTED_SET
from releval.errors import InputError, OptionError


def check_negative_exists(negative: str | None, gold_labels: Sequence[str], pred_only: Sequence[str]) -> None:
    """An explicit negative label must occur in gold: one that does not is most often a typo, and the real
    negative class is then scored as a positive relation. A slice of data without negatives says so with
    `allow_absent_negative=True` (`--allow-absent-negative`)."""
    if negative is None or negative in gold_labels:
        return
    close = difflib.get_close_matches(negative, list(gold_labels), n=1, cutoff=0.75)
    where = (
        "does not occur in gold (only the predictions use it)"
        if negative in pred_only
        else "occurs neither in gold nor in the predictions"
    )
    hint = f"did you mean '{close[0]}'? " if close else ""
    raise OptionError(
        f"negative label '{negative}' {where}; {hint}if that is intended (a slice without "
        "negatives), say so with allow_absent_negative=True (--allow-absent-negative on the command line)",
        option="negative",
    )


def check_semeval_direction(gold_labels: Sequence[str], pred_only: Sequence[str], pred_path: str) -> None:
    """Directed SemEval predictions against an undirected key (or the reverse) cannot match one label."""
    gold, pred = set(gold_labels), set(pred_only)
    if not gold or not pred:
        return
    if gold <= UNDIRECTED_SET and gold - {"Other"} and pred & (DIRECTED_SET - {"Other"}):
        raise InputError(
            "the predictions are directed SemEval-2010 Task 8 labels (e.g. "
            f"'{sorted(pred & DIRECTED_SET)[0]}') but gold is the undirected key (e.g. "
            f"'{sorted(gold - {'Other'})[0]}'), so no label can match; score with view='undirected' (--view "
            "undirected) to drop the direction, or use the directed key (TEST_FILE_FULL.TXT's labels)",
            file=pred_path,
            field="label",
        )
    if gold <= DIRECTED_SET and gold - {"Other"} and pred & (UNDIRECTED_SET - {"Other"}):
        raise InputError(
            "the predictions are undirected SemEval-2010 Task 8 labels (e.g. "
            f"'{sorted(pred & UNDIRECTED_SET)[0]}') but gold is directed, so they match no gold label; score with "
            "view='undirected' (--view undirected) to compare without direction",
            file=pred_path,
            field="label",
        )


def check_label_spelling(gold_labels: Sequence[str], pred_only: Sequence[str], pred_path: str) -> None:
    """Predicted labels equal to a gold label but for letter case are a spelling mismatch, never a new class."""
    folded = {label.casefold(): label for label in gold_labels}
    pairs = [(p, folded[p.casefold()]) for p in pred_only if p.casefold() in folded]
    if not pairs:
        return
    shown = ", ".join(f"'{p}' (gold '{g}')" for p, g in pairs[:5]) + (f", … ({len(pairs) - 5} more)" * (len(pairs) > 5))
    raise InputError(
        f"{len(pairs)} predicted label(s) differ from gold labels only in letter case: {shown}; they match nothing "
        "and score 0 — make the spelling of the labels agree",
        file=pred_path,
        field="label",
    )


def position_id_warnings(gold: LabelFile, pred: LabelFile) -> list[Notice]:
    """Aligning by position when predictions' ids name gold items at other positions: the files list the items
    in different orders, so most items meet another item's label. The user asked for positions, so this warns —
    naming the first such line and the fix — rather than refusing; ids of two unrelated schemes (no prediction
    id is a gold id) are what `by_position` is for, and pass silently."""
    if gold.ids is None or pred.ids is None:
        return []
    gold_ids, pred_ids = gold.ids, pred.ids
    if len(gold_ids) == len(pred_ids) and all(a == b for a, b in zip(gold_ids, pred_ids)):
        return []
    known = set(gold_ids)
    moved = [k for k, (g, p) in enumerate(zip(gold_ids, pred_ids)) if p != g and p in known]
    if not moved:
        return []
    k = moved[0]
    where = f"{pred.path}, {pred.unit} {pred.lines[k]}"
    return [
        Notice(
            f"aligned by position, but {len(moved)} prediction id(s) name a gold item at another position (first: "
            f"{where}: id {pred_ids[k]!r} where gold has {gold_ids[k]!r}): the files list the items in different "
            "orders — align by id instead (by_position=False; drop --by-position on the command line)",
            "position-ids-disagree",
        )
    ]


#: Words in a file name that say which side it is (whole words: `keyword` is not `key`).
_GOLD_WORDS = re.compile(r"(?<![a-z])(gold|key|answers?|truth|reference|ref)(?![a-z])")
_PRED_WORDS = re.compile(
    r"(?<![a-z])(preds?|predictions?|predicted|outputs?|hyp|hypothes[ie]s|guess(es)?|system)(?![a-z])"
)


def swapped_files(gold: LabelFile, pred: LabelFile) -> list[Notice]:
    """A warning when the file names suggest gold and predictions were given the other way round (the prediction
    file is named like a key, the gold file like an output): the scores of a swap are P and R exchanged, plausible
    and wrong. Only file names are read; in-memory data never warns."""
    if gold.path.startswith("<") or pred.path.startswith("<"):
        return []
    gold_name, pred_name = PurePath(gold.path).name.lower(), PurePath(pred.path).name.lower()
    pred_looks_gold = bool(_GOLD_WORDS.search(pred_name)) and not _PRED_WORDS.search(pred_name)
    gold_looks_pred = bool(_PRED_WORDS.search(gold_name)) and not _GOLD_WORDS.search(gold_name)
    if not (pred_looks_gold or gold_looks_pred):
        return []
    reason = (
        f"the prediction file {pred.path} is named like a gold file"
        if pred_looks_gold
        else f"the gold file {gold.path} is named like a prediction file"
    )
    message = (
        f"gold and predictions may be swapped: {reason}; gold comes first (releval score GOLD PRED ...), and a "
        "swap exchanges precision and recall"
    )
    return [Notice(message, "swapped-files")]
