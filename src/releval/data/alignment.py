"""Matching predictions to gold items by id, with an explicit policy for missing predictions.

The policies follow Olek's analysis of RECENT (olek-recent-f1.txt): `negative` fills a missing item with the
negative class (the leaky TACRED/RECENT behaviour), `wrong` counts it as a wrong positive prediction.

`wrong` fills with a placeholder label that occurs in neither file (`<missing>`, or `<missing-2>`, … when a real
label is spelled so): a fixed placeholder equal to a real gold label would count every missing prediction of
that class as correct (issue 11). `Alignment.missing_label` says which one was used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError, raise_all
from releval.core.options import MISSING_POLICIES
from releval.core.validation import check_choice
from releval.data.columns import IdColumn, as_list, distinct, id_column, labels_at, locate
from releval.data.labels import LabelFile

MISSING_LABEL = "<missing>"


@dataclass(frozen=True)
class Alignment:
    """Gold and predicted labels item by item in gold order, and what the missing-prediction policy did."""

    gold: list[str]
    pred: list[str]
    policy: str = "error"
    missing_ids: list[str] = field(default_factory=list)
    missing_gold_negative: int = 0
    notes: list[str] = field(default_factory=list)
    missing_label: str = MISSING_LABEL

    @property
    def n_missing(self) -> int:
        return len(self.missing_ids)

    @property
    def missing_negative_share(self) -> float | None:
        """Share of the filled items whose gold label is negative (≈ 100 % is RECENT's leak signature)."""
        return self.missing_gold_negative / self.n_missing if self.missing_ids else None


def missing_placeholder(*label_lists: Sequence[str]) -> str:
    """`<missing>`, or the first of `<missing-2>`, `<missing-3>`, … that is no label of the given lists."""
    used = set().union(*map(distinct, label_lists))
    if MISSING_LABEL not in used:
        return MISSING_LABEL
    k = 2
    while f"<missing-{k}>" in used:
        k += 1
    return f"<missing-{k}>"


def _examples(items: list[str], total: int | None = None, k: int = 5) -> str:
    """The first `k` items quoted, and how many more of `total` (default: all of `items`) there are."""
    total = len(items) if total is None else total
    shown = ", ".join(repr(x) for x in items[:k])
    return shown + (f", … ({total - k} more)" if total > k else "")


def align(
    gold: LabelFile,
    pred: LabelFile,
    *,
    on_missing: str = "error",
    negative: str | None = None,
    by_position: bool = False,
    position_option: bool = True,
) -> Alignment:
    """Pair each gold item with its prediction; unknown ids are always an error, missing ones per policy.
    `position_option`: whether the caller's task can align by position (its errors then offer it as a fix).

    Ids are matched as compact columns (`releval.data.columns.locate`: by hash, every match confirmed by comparing
    the bytes), without a str or a dictionary entry per id.
    """
    check_choice(on_missing, MISSING_POLICIES, "on_missing")
    if by_position or gold.ids is None or pred.ids is None:
        if not by_position:
            side = gold if gold.ids is None else pred
            raise InputError(
                "has no ids, so it can only be aligned by position; ask for that explicitly "
                "(by_position=True; --by-position on the command line)",
                file=side.path,
            )
        if len(gold) != len(pred):
            raise InputError(
                f"has {len(pred)} items but gold {gold.path} has {len(gold)}; position alignment needs equal lengths",
                file=pred.path,
            )
        return Alignment(as_list(gold.labels), as_list(pred.labels), notes=["aligned by position"])
    gold_ids, pred_ids = id_column(gold.ids), id_column(pred.ids)
    if gold_ids == pred_ids:
        return Alignment(as_list(gold.labels), as_list(pred.labels))
    at = locate(gold_ids, pred_ids)  # each prediction's gold item
    unknown = np.flatnonzero(at < 0)
    if len(unknown):
        examples = _examples(pred_ids.take(unknown[:5]), len(unknown))
        hint = offset_hint(gold_ids, pred_ids, position_option=position_option)
        raise pred.error(
            f"{len(unknown)} prediction id(s) not in gold {gold.path}: {examples}{hint}", int(unknown[0]), "id"
        )
    hits = np.bincount(at, minlength=len(gold))
    if len(hits) and hits.max() > 1:
        raise_all(_repeated(pred, pred_ids, at, hits))
    source = np.full(len(gold), -1, dtype=np.int64)  # each gold item's prediction
    source[at] = np.arange(len(at))
    missing = np.flatnonzero(source < 0)
    if not len(missing):
        return Alignment(as_list(gold.labels), labels_at(pred.labels, source))
    if on_missing == "error":
        raise InputError(
            f"{len(missing)} gold item(s) have no prediction: {_examples(gold_ids.take(missing[:5]), len(missing))}; "
            "if this is intended, choose a policy (on_missing='negative' or 'wrong'; --on-missing on the command "
            "line)",
            file=pred.path,
            field="id",
        )
    if on_missing == "negative":
        if negative is None:
            raise InputError("on_missing='negative' needs a negative label (the data has none)", file=pred.path)
        fill = negative
    else:
        fill = missing_placeholder(gold.labels, pred.labels)
    gold_negative = labels_at(gold.labels, missing).count(negative) if negative is not None else 0
    note = f"{len(missing)} missing prediction(s) filled as {'the negative class' if fill == negative else 'wrong'}"
    if negative is not None:
        note += f"; {100 * gold_negative / len(missing):.1f} % of them are gold-negative"
    return Alignment(
        as_list(gold.labels),
        labels_at(pred.labels, source, fill),
        on_missing,
        gold_ids.take(missing),
        gold_negative,
        [note],
        fill if on_missing == "wrong" else MISSING_LABEL,
    )


def _numbered(ids: Sequence[str]) -> tuple[str, NDArray[np.int64]] | None:
    """(the prefix every id shares, each id's number) when every id is a prefix then digits (`8001`, `s8001`), the
    same prefix for all; None otherwise (TACRED's hex ids, mixed prefixes)."""
    items = list(ids)
    if not items or max(map(len, items)) > 40:
        return None
    if all(x.isdigit() and x.isascii() and len(x) <= 18 for x in items):
        return "", np.array([int(x) for x in items], dtype=np.int64)
    stems = {x.rstrip("0123456789") for x in items}
    if len(stems) != 1:
        return None
    prefix = stems.pop()
    digits = [x[len(prefix) :] for x in items]
    if not all(d.isascii() and d.isdigit() and len(d) <= 18 for d in digits):  # beyond 18 digits: not int64
        return None
    return prefix, np.array([int(d) for d in digits], dtype=np.int64)


def id_offset(gold_ids: Sequence[str], pred_ids: Sequence[str]) -> tuple[int, bool] | None:
    """(d, same_order) when every prediction id is a gold id shifted by one constant d != 0 (gold 1..2717,
    predictions 8001..10717: d = 8000), both numbered with the same prefix; `same_order`: the shifted prediction
    ids list gold's ids in gold's order (so aligning by position is right). None when no such constant exists.
    Read only when alignment by id has already failed, so it costs nothing on good input.

    >>> id_offset(["1", "2", "3"], ["8001", "8002", "8003"])
    (8000, True)
    >>> id_offset(["s1", "s2", "s3"], ["s12", "s11"]), id_offset(["1", "2"], ["5", "9"])
    ((10, False), None)
    """
    gold, pred = _numbered(gold_ids), _numbered(pred_ids)
    if gold is None or pred is None or gold[0] != pred[0] or not len(gold[1]) or not len(pred[1]):
        return None
    d = int(pred[1].min() - gold[1].min())
    if d == 0 or not np.isin(pred[1] - d, gold[1]).all():
        return None
    same_order = len(gold[1]) == len(pred[1]) and bool(np.array_equal(pred[1] - d, gold[1]))
    return d, same_order


def _span(numbers: Sequence[str]) -> str:
    return f"{numbers[0]}..{numbers[-1]}" if len(numbers) > 1 else numbers[0]


def offset_hint(gold_ids: Sequence[str], pred_ids: Sequence[str], *, position_option: bool = True) -> str:
    """The end of the unknown-ids error when the prediction ids are gold's shifted by a constant: the offset, that
    ids must match, and the fix (renumber; or align by position when the order is the same and the task can,
    `position_option`). '' otherwise.

    >>> offset_hint(["1", "2"], ["11", "12"], position_option=False).split(" — ")[1]
    'subtract 10 from the prediction ids (this task matches items by id only, as its official scorer does)'
    """
    found = id_offset(gold_ids, pred_ids)
    if found is None:
        return ""
    d, same_order = found
    gold_range = _span(sorted(gold_ids, key=lambda x: (len(x), x))[:: max(len(gold_ids) - 1, 1)])
    pred_range = _span(sorted(pred_ids, key=lambda x: (len(x), x))[:: max(len(pred_ids) - 1, 1)])
    if not position_option:
        fix = " (this task matches items by id only, as its official scorer does)"
    elif same_order:
        fix = (
            "; the files list the items in the same order, so aligning by position is right (by_position=True; "
            "--by-position on the command line)"
        )
    else:
        fix = "; the files list the items in different orders, so renumber the predictions"
    return (
        f"; every prediction id is a gold id {'+' if d > 0 else '-'} {abs(d)} (gold {gold_range}, predictions "
        f"{pred_range}): the ids are offset by {d:+d}, and ids must match — "
        f"{'subtract' if d > 0 else 'add'} {abs(d)} {'from' if d > 0 else 'to'} the prediction ids" + fix
    )


def _repeated(pred: LabelFile, pred_ids: IdColumn, at: NDArray[np.int64], hits: NDArray[np.int64]) -> list[InputError]:
    """An error at every prediction whose gold item an earlier one already took (at most 50)."""
    errors: list[InputError] = []
    first: dict[int, int] = {}
    for k in np.flatnonzero(hits[at] > 1).tolist():
        i = int(at[k])
        if i in first:
            errors.append(
                pred.error(f"id {pred_ids[k]} repeated (first on {pred.unit} {pred.lines[first[i]]})", k, "id")
            )
            if len(errors) == 50:
                break
        else:
            first[i] = k
    return errors
