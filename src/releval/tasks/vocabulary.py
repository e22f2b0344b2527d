"""The label checks every task gets, whatever its files look like: one predicted field's vocabulary beside gold's.

A task says, for each labelled field of its predictions (a relation type, an entity type, a DocRED relation id, a
ranked relation), which distinct values gold has and which the predictions use — a `Vocabulary` — and
`check_vocabulary` makes the checks the rc path has made for a long time (releval.tasks.label_mistakes), so that
no family shows a plausible number for a file whose labels cannot match:

* refused (InputError naming the file, the field and the fix):
  - labels that differ from gold's only in letter case (`p17` for `P17`, `kill` for `Kill`);
  - labels with surrounding white space or a trailing number glued on (`Other 0`, `P17 0.93`);
  - labels that are an id, a space and a gold label (`8001 Other`: `id label` lines read as one label per line);
  - integer class indices where gold has names (`3` for `per:title`);
  - another spelling that the task knows is a name of a gold label (`aliases`: DocRED's relation names for its
    P-ids), with the fix;
  - no predicted label in common with gold at all (another dataset's labels, or the wrong file);
* warned (a Notice): predicted labels gold never uses, counted as false positives, each with its closest gold
  label when one is close (`Lives_In` beside gold's `Live_In`).

`identical_notice` and `swapped_names` are the two content-free warnings every task can give: a prediction that
equals gold (gold passed twice), and file names that say gold and predictions were given the other way round.

Example
-------
>>> v = Vocabulary("relation type", frozenset({"Kill", "Work_For"}), ("kill", "Work_For"), "pred.json")
>>> try:
...     check_vocabulary(v)
... except InputError as error:
...     print(error.message.split(";")[0])
1 predicted relation type(s) differ from gold's only in letter case: 'kill' (gold 'Kill')
>>> [n.code for n in check_vocabulary(Vocabulary("relation type", frozenset({"Kill"}), ("Kill", "Kil"), "p"))]
['pred-only-labels']
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from releval.core.errors import InputError
from releval.core.notices import Notice
from releval.data.decoding import white_space_side
from releval.data.formats import tab_command
from releval.tasks.label_mistakes import name_swap_reason, trailing_junk

_INTEGER = re.compile(r"[-+]?\d+")


@dataclass(frozen=True)
class Vocabulary:
    """One labelled field of a prediction file beside gold's: `field` names it in messages ("relation type"),
    `gold` is gold's distinct values, `pred` the distinct predicted values, `pred_path` the prediction file.

    `aliases` maps other spellings the task knows to the gold label they name (DocRED: "country" → "P17"); a
    prediction written in them is refused with the fix. `where(label)` gives the location of a predicted label's
    first occurrence ("line 12", "document 'Skai TV'") for the message, when the task can tell. `allowed` are
    values that are never gold's but legitimate in predictions (a negative class some files spell out)."""

    field: str
    gold: frozenset[str]
    pred: Collection[str]
    pred_path: str
    aliases: Mapping[str, str] = dataclasses.field(default_factory=dict)
    where: Callable[[str], str | None] | None = None
    allowed: frozenset[str] = frozenset()

    def unseen(self) -> list[str]:
        """The predicted values gold never uses (and that are not `allowed`), sorted."""
        return sorted(set(self.pred) - self.gold - self.allowed)


def _side(values: Iterable[str]) -> str:
    """`white_space_side` of every value, when they agree; else "surrounding"."""
    sides = {white_space_side(v) for v in values}
    return sides.pop() if len(sides) == 1 else "surrounding"


def _shown(pairs: list[tuple[str, str]], limit: int = 5) -> str:
    text = ", ".join(f"{p!r} (gold {g!r})" for p, g in pairs[:limit])
    return text + (f", … ({len(pairs) - limit} more)" if len(pairs) > limit else "")


def _located(v: Vocabulary, label: str) -> str:
    place = v.where(label) if v.where is not None else None
    return f" (first at {place})" if place else ""


def check_vocabulary(v: Vocabulary) -> list[Notice]:
    """Refuse the predicted labels of `v` that cannot match gold for a reason a user can fix; warn for the others.

    The order is the order of likelihood: letter case, white space or a glued number, integer indices, a known
    other name, nothing in common. Each refusal names the file, the field and what to do."""
    unseen = v.unseen()
    if not unseen:
        return []
    kind = v.field
    folded: dict[str, str] = {}
    for label in sorted(v.gold):
        folded.setdefault(label.casefold(), label)
    case = [(p, folded[p.casefold()]) for p in unseen if p.casefold() in folded]
    if case:
        raise InputError(
            f"{len(case)} predicted {kind}(s) differ from gold's only in letter case: {_shown(case)}"
            f"{_located(v, case[0][0])}; they match nothing and would score 0 — write them as gold does",
            file=v.pred_path,
            field=kind,
        )
    spaced = [(p, p.strip()) for p in unseen if p != p.strip() and p.strip() in v.gold]
    if spaced:
        raise InputError(
            f"{len(spaced)} predicted {kind}(s) carry {_side(p for p, _ in spaced)} white space: {_shown(spaced)}"
            f"{_located(v, spaced[0][0])}; they match nothing — strip the white space around the {kind}",
            file=v.pred_path,
            field=kind,
        )
    junk = [(p, cut[0]) for p in unseen if (cut := trailing_junk(p)) is not None and cut[0] in v.gold]
    if junk:
        raise InputError(
            f"{len(junk)} predicted {kind}(s) end in a number glued to a gold {kind}: {_shown(junk)}"
            f"{_located(v, junk[0][0])} — a score or rank column written into the {kind}; write the {kind} alone",
            file=v.pred_path,
            field=kind,
        )
    lead = [(p, rest[1]) for p in unseen if len(rest := p.split(None, 1)) == 2 and rest[1] in v.gold]
    if lead and len(lead) * 2 >= len(unseen):
        example = "" if v.pred_path.startswith("<") else f": `{tab_command(v.pred_path)}`"
        raise InputError(
            f"{len(lead)} predicted {kind}(s) are a word, a space and a gold {kind}: "
            f"{_shown(lead, 2)}{_located(v, lead[0][0])} — an id and a {kind} separated "
            f"by a space where a tab belongs, read as one {kind}; put a tab after each id{example}, and read that "
            "file with its ids (not as one label per line)",
            file=v.pred_path,
            field=kind,
        )
    named = [(p, v.aliases[p]) for p in unseen if p in v.aliases and v.aliases[p] in v.gold]
    if named and len(named) * 2 >= len(unseen):
        raise InputError(
            f"{len(named)} predicted {kind}(s) are names where gold has ids: {_shown(named)}"
            f"{_located(v, named[0][0])}; write the ids gold uses",
            file=v.pred_path,
            field=kind,
        )
    gold_integers = any(_INTEGER.fullmatch(g) for g in v.gold)
    integers = [p for p in unseen if _INTEGER.fullmatch(p)]
    if integers and not gold_integers and len(integers) == len(unseen):
        raise InputError(
            f"the predicted {kind}s are integers ({', '.join(map(repr, integers[:5]))}"
            f"{', …' * (len(integers) > 5)}){_located(v, integers[0])} where gold's are names (e.g. "
            f"{sorted(v.gold)[0]!r}): class indices, not labels — map them to the label names (your model's "
            "id2label) before scoring",
            file=v.pred_path,
            field=kind,
        )
    common = (set(v.pred) - v.allowed) & v.gold
    if not common and len(set(v.pred) - v.allowed) > 0:
        shown_pred = ", ".join(map(repr, unseen[:3])) + (", …" * (len(unseen) > 3))
        shown_gold = ", ".join(map(repr, sorted(v.gold)[:3])) + (", …" * (len(v.gold) > 3))
        raise InputError(
            f"no predicted {kind} occurs in gold: the predictions use {shown_pred}, gold uses {shown_gold} — "
            "another dataset's labels, or the wrong file; nothing could match",
            file=v.pred_path,
            field=kind,
        )
    hints = []
    for label in unseen[:10]:
        close = difflib.get_close_matches(label, sorted(v.gold), n=1, cutoff=0.8)
        hints.append(f"{label!r} (gold has {close[0]!r})" if close else repr(label))
    more = f", … ({len(unseen) - 10} more)" if len(unseen) > 10 else ""
    return [
        Notice(
            f"{v.pred_path}: {len(unseen)} predicted {kind}(s) never occur in gold, counted as false positives: "
            f"{', '.join(hints)}{more}",
            "pred-only-labels",
        )
    ]


def identical_notice(pred_path: str, n: int, unit: str = "items") -> list[Notice]:
    """The warning for a prediction that equals gold (every one of its `n` units right): gold passed twice is far
    likelier than a perfect system.

    >>> [w.code for w in identical_notice("p.json", 3, "documents")]
    ['pred-equals-gold']
    """
    return [
        Notice(
            f"predictions equal gold: did you pass gold twice? {pred_path} reproduces gold exactly on all {n} {unit}",
            "pred-equals-gold",
        )
    ]


def swapped_names(gold_path: str, pred_path: str, reasons: Collection[str] = ()) -> list[Notice]:
    """The warning for gold and predictions given the other way round, from their file names (the prediction
    named like a key, or gold like an output) and the task's own `reasons` from their content; none for in-memory
    data ("<…>" paths) without reasons.

    >>> [w.code for w in swapped_names("preds/system.json", "data/test_gold.json")]
    ['swapped-files']
    >>> swapped_names("gold.json", "system.json")
    []
    """
    found = list(reasons)
    named = name_swap_reason(gold_path, pred_path)
    if named is not None:
        found.insert(0, named)
    if not found:
        return []
    return [
        Notice(
            f"gold and predictions may be swapped: {'; '.join(found)}; gold comes first (releval score GOLD PRED "
            "...), and a swap exchanges precision and recall",
            "swapped-files",
        )
    ]


def prediction_checks(gold: object, pred: object, vocabularies: Collection[Vocabulary]) -> list[Notice]:
    """The checks the pipeline makes of one prediction file of any task that declares its labelled fields
    (releval.tasks.base.Task.vocabularies), before the task reads it: an empty (or blank) file is refused; each
    field's `check_vocabulary`; a file byte for byte gold's is warned (gold passed twice); file names that say gold
    and predictions were given the other way round are warned (`swapped_names`). Paths are files; anything else
    (in-memory data) is checked by its vocabularies only.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "gold.txt").write_text("a b"), (folder / "run.txt").write_text("a b")
    (3, 3)
    >>> [n.code for n in prediction_checks(folder / "gold.txt", folder / "run.txt", [])]
    ['pred-equals-gold']
    """
    import os
    from pathlib import Path

    notices: list[Notice] = []
    on_disk = isinstance(pred, (str, os.PathLike)) and Path(pred).is_file()
    if on_disk and not Path(pred).read_bytes().strip():  # type: ignore[arg-type]
        raise InputError(
            "the prediction file is empty (or blank): no prediction to score; give the system's output file",
            file=str(pred),
        )
    for vocabulary in vocabularies:
        notices += check_vocabulary(vocabulary)
    if on_disk and isinstance(gold, (str, os.PathLike)) and Path(gold).is_file():
        if Path(gold).read_bytes() == Path(pred).read_bytes():  # type: ignore[arg-type]
            notices.append(
                Notice(
                    f"predictions equal gold: did you pass gold twice? {pred} is byte for byte {gold}",
                    "pred-equals-gold",
                )
            )
        notices += swapped_names(str(gold), str(pred))
    return notices
