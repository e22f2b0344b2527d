"""The label mistakes people make that yield a plausible but wrong score, caught before a number is shown.

Each check reads only the label vocabularies (the distinct gold labels and the labels only predictions use), so it
costs nothing next to scoring, and each raises one error that names the mistake and the fix:

* a typo in an explicit negative label (`no_relaton`): it occurs nowhere, so the real negative class silently
  becomes a positive class and every average changes;
* directed predictions (`Cause-Effect(e1,e2)`) against an undirected SemEval-2010 Task 8 key (`Cause-Effect`,
  the official `TEST_FILE_KEY.TXT`): no predicted label can match, micro-F1 is 0;
* predicted labels that differ from gold labels only in letter case (`PER:TITLE` for `per:title`): each is a new
  label that matches nothing;
* labels with trailing junk (`Other 0`, `per:title 0.93`): a score column glued to the label, so no such label
  matches a gold label (or, the other way round, gold's labels carry it and the predictions do not).
And warnings, for what the user may have meant: alignment by position of files whose ids say the items are in
another order; gold and predictions given the other way round (judged from the file names and from the content:
`swapped_files`); and predictions identical to gold (`identical_to_gold`: gold passed twice).

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

from releval.core.errors import InputError, OptionError
from releval.core.notices import Notice
from releval.data.formats.base import LabelFile
from releval.data.semeval_labels import DIRECTED_SET, UNDIRECTED_SET


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


#: A trailing number glued to a label by white space, a comma, a semicolon or a bar: `Other 0`, `per:title\t0.93`,
#: `Other,1e-3` (one or more numbers: a score column, or a rank and a score).
_JUNK = re.compile(r"^(?P<label>.*?\S)(?P<junk>(?:[\s,;|]+[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)+)$")


def trailing_junk(label: str) -> tuple[str, str] | None:
    """(the label, the junk) when `label` ends in a number glued to it (`Other 0` → ('Other', ' 0')), else None.

    >>> trailing_junk("per:title 0.93"), trailing_junk("Other"), trailing_junk("Cause-Effect(e1,e2)")
    (('per:title', ' 0.93'), None, None)
    """
    found = _JUNK.match(label)
    return (found["label"], found["junk"]) if found else None


def check_label_junk(gold_labels: Sequence[str], pred_only: Sequence[str], pred_path: str) -> None:
    """Labels that are another side's label plus a trailing number (`Other 0` for `Other`: a score column glued to
    the label by a space) are refused naming the suffix — never reported as new labels or as swapped files.
    Reads the vocabularies only: the predicted labels gold lacks, and gold's labels."""
    gold = set(gold_labels)
    pairs = [(p, cut) for p in pred_only if (cut := trailing_junk(p)) is not None and cut[0] in gold]
    side, other, where = "predicted", "gold", pred_path
    if not pairs:  # gold's labels carry the junk and the predictions do not
        plain = set(pred_only)
        pairs = [(g, cut) for g in gold_labels if (cut := trailing_junk(g)) is not None and cut[0] in plain]
        side, other, where = "gold", "predicted", "<gold>"
    if not pairs:
        return
    shown = ", ".join(f"{p!r} ({cut[0]!r} + {cut[1]!r})" for p, cut in pairs[:3])
    shown += f", … ({len(pairs) - 3} more)" * (len(pairs) > 3)
    message = (
        f"{len(pairs)} {side} label(s) end in trailing junk after a {other} label: {shown} — a score or rank "
        "column glued to the label, so they match nothing; read only the label: write it alone (`cut -d' ' -f1` "
        f"for one label per line), or give the score a column of its own and name the label column with "
        f"--{'pred' if side == 'predicted' else 'gold'}-label-field (JSONL/CSV/TSV)"
    )
    if side == "gold":
        raise InputError(message, field="label")
    raise InputError(message, file=where, field="label")


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


#: Words in a file name that say which side it is (whole words: `keyword` is not `key`; `gs`: DrugProt's gold).
_GOLD_WORDS = re.compile(r"(?<![a-z])(gold|gs|key|answers?|truth|reference|ref)(?![a-z])")
_PRED_WORDS = re.compile(
    r"(?<![a-z])(preds?|predictions?|predicted|proposed|outputs?|hyp|hypothes[ie]s|guess(es)?|system)(?![a-z])"
)


def name_swap_reason(gold_path: str, pred_path: str) -> str | None:
    """What the file names say of a swap: the prediction file named like a key, or the gold file like an output
    (in-memory data, "<…>", has no name); None when they say nothing.

    >>> name_swap_reason("runs/system.txt", "test_key.txt")
    'the prediction file test_key.txt is named like a gold file'
    """
    if gold_path.startswith("<") or pred_path.startswith("<"):
        return None
    gold_name, pred_name = PurePath(gold_path).name.lower(), PurePath(pred_path).name.lower()
    if _GOLD_WORDS.search(pred_name) and not _PRED_WORDS.search(pred_name):
        return f"the prediction file {pred_path} is named like a gold file"
    if _PRED_WORDS.search(gold_name) and not _GOLD_WORDS.search(gold_name):
        return f"the gold file {gold_path} is named like a prediction file"
    return None


#: Formats whose records carry the input (the sentence), not only a label: a dataset's own files (gold).
_DATASET_FORMATS = ("semeval",)


def looks_like_dataset(labels_file: LabelFile) -> bool:
    """A file in a dataset's own shape: SemEval blocks (sentence, label, comment), or JSON records with the
    argument types of TACRED (`subj_type`, `obj_type`) — what a gold file is and a prediction file rarely is."""
    return labels_file.format in _DATASET_FORMATS or {"subj_type", "obj_type"} <= set(labels_file.fields)


def vocabulary(labels: Sequence[str]) -> set[str]:
    """The distinct labels: a loaded file's label column knows them (no pass over the items), a list is read."""
    known = getattr(labels, "vocabulary", None)  # releval.data.columns.LabelColumn: exactly the labels it holds
    return set(known) if known is not None else set(labels)


def content_swap_reasons(gold: LabelFile, pred: LabelFile) -> list[str]:
    """What in the two files' content says they were given the other way round (vocabularies and formats only):

    * the predictions use every gold label and more (gold's label set a strict subset of the predicted one, gold
      having two labels or more): a system predicts a subset of the classes the key has — it misses rare
      classes — so a "gold" that is a strict subset of the "predictions" is most often a system output and the
      "predictions" the key;
    * the prediction file is in a dataset's own shape (`looks_like_dataset`: TACRED JSON records with argument
      types, SemEval blocks with sentences) while the gold file is not.

    Neither fires on a system that predicts every gold class (the vocabularies are then equal): the check is a
    warning, it cannot prove a swap.
    """
    reasons = []
    gold_set, pred_set = vocabulary(gold.labels), vocabulary(pred.labels)
    if len(gold_set) >= 2 and gold_set < pred_set:
        extra = sorted(pred_set - gold_set)
        shown = ", ".join(map(repr, extra[:3])) + (f", … ({len(extra) - 3} more)" * (len(extra) > 3))
        reasons.append(
            f"the predictions use every one of gold's {len(gold_set)} labels and {len(extra)} more ({shown}), "
            "where a system's labels are usually a subset of the key's"
        )
    if looks_like_dataset(pred) and not looks_like_dataset(gold):
        reasons.append(
            f"the prediction file {pred.path} is a {pred.format} file in a dataset's own shape (with the "
            "input), the gold file is not"
        )
    return reasons


def swapped_files(gold: LabelFile, pred: LabelFile) -> list[Notice]:
    """A warning when gold and predictions seem given the other way round: the file names (the prediction file is
    named like a key, the gold file like an output; in-memory data has no names, a wide TSV's name speaks of its
    system columns) or the content
    (`content_swap_reasons`: vocabularies and formats, no pass over the items) say so. The scores of a swap are P
    and R exchanged, plausible and wrong."""
    reasons = content_swap_reasons(gold, pred)
    # a wide TSV holds gold and the systems' outputs in one file, whatever its name says (`system_outputs.tsv`)
    named = None if gold.format == "wide-tsv" else name_swap_reason(gold.path, pred.path)
    if named is not None:
        reasons.insert(0, named)
    if not reasons:
        return []
    message = (
        f"gold and predictions may be swapped: {'; '.join(reasons)}; gold comes first (releval score GOLD PRED ...), "
        "and a swap exchanges precision and recall"
    )
    return [Notice(message, "swapped-files")]


def identical_to_gold(gold: Sequence[str], pred: Sequence[str], pred_path: str) -> list[Notice]:
    """A warning when the aligned predictions equal gold item for item: a perfect score is far more often gold
    given twice than a perfect system. A real system's first difference is near the start, so the comparison
    stops early; only identical lists are read whole.

    >>> [w.code for w in identical_to_gold(["A", "B"], ["A", "B"], "p.txt")]
    ['pred-equals-gold']
    """
    if len(gold) != len(pred) or not len(gold) or gold != pred:
        return []
    return [
        Notice(
            f"predictions equal gold: did you pass gold twice? {pred_path} gives every one of the {len(gold)} items "
            "its gold label",
            "pred-equals-gold",
        )
    ]
