"""Matching predictions to gold items by id, with an explicit policy for missing predictions.

The policies follow Olek's analysis of RECENT (olek-recent-f1.txt): `negative` fills a missing item with the
negative class (the leaky TACRED/RECENT behaviour), `wrong` counts it as a wrong positive prediction.

`wrong` fills with a placeholder label that occurs in neither file (`<missing>`, or `<missing-2>`, … when a real
label is spelled so): a fixed placeholder equal to a real gold label would count every missing prediction of
that class as correct (issue 11). `Alignment.missing_label` says which one was used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from releval.core.options import MISSING_POLICIES
from releval.data.labels import LabelFile
from releval.errors import InputError, raise_all
from releval.validation import check_choice

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


def missing_placeholder(*label_lists: list[str]) -> str:
    """`<missing>`, or the first of `<missing-2>`, `<missing-3>`, … that is no label of the given lists."""
    used = set().union(*map(set, label_lists))
    if MISSING_LABEL not in used:
        return MISSING_LABEL
    k = 2
    while f"<missing-{k}>" in used:
        k += 1
    return f"<missing-{k}>"


def _examples(items: list[str], k: int = 5) -> str:
    shown = ", ".join(repr(x) for x in items[:k])
    return shown + (f", … ({len(items) - k} more)" if len(items) > k else "")


def align(
    gold: LabelFile,
    pred: LabelFile,
    *,
    on_missing: str = "error",
    negative: str | None = None,
    by_position: bool = False,
) -> Alignment:
    """Pair each gold item with its prediction; unknown ids are always an error, missing ones per policy."""
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
        return Alignment(list(gold.labels), list(pred.labels), notes=["aligned by position"])
    if gold.ids == pred.ids:
        return Alignment(list(gold.labels), list(pred.labels))
    index = {item_id: i for i, item_id in enumerate(gold.ids)}
    unknown = [k for k, pid in enumerate(pred.ids) if pid not in index]
    if unknown:
        examples = _examples([pred.ids[k] for k in unknown])
        raise pred.error(f"{len(unknown)} prediction id(s) not in gold {gold.path}: {examples}", unknown[0], "id")
    slots: list[str | None] = [None] * len(gold)
    source = [0] * len(gold)
    repeated: list[InputError] = []
    for k, (pid, label) in enumerate(zip(pred.ids, pred.labels)):
        i = index[pid]
        if slots[i] is not None:
            repeated.append(pred.error(f"id {pid} repeated (first on {pred.unit} {pred.lines[source[i]]})", k, "id"))
            continue
        slots[i] = label
        source[i] = k
    raise_all(repeated[:50])
    missing = [i for i, s in enumerate(slots) if s is None]
    if not missing:
        return Alignment(list(gold.labels), slots)  # type: ignore[arg-type]
    missing_ids = [gold.ids[i] for i in missing]
    if on_missing == "error":
        raise InputError(
            f"{len(missing)} gold item(s) have no prediction: {_examples(missing_ids)}; if this is intended, "
            "choose a policy (on_missing='negative' or 'wrong'; --on-missing on the command line)",
            file=pred.path,
            field="id",
        )
    if on_missing == "negative":
        if negative is None:
            raise InputError("on_missing='negative' needs a negative label (the data has none)", file=pred.path)
        fill = negative
    else:
        fill = missing_placeholder(gold.labels, pred.labels)
    gold_negative = sum(gold.labels[i] == negative for i in missing) if negative is not None else 0
    for i in missing:
        slots[i] = fill
    note = f"{len(missing)} missing prediction(s) filled as {'the negative class' if fill == negative else 'wrong'}"
    if negative is not None:
        note += f"; {100 * gold_negative / len(missing):.1f} % of them are gold-negative"
    return Alignment(
        list(gold.labels),
        slots,  # type: ignore[arg-type]
        on_missing,
        missing_ids,
        gold_negative,
        [note],
        fill if on_missing == "wrong" else MISSING_LABEL,
    )
