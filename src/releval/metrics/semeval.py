"""The SemEval-2010 Task 8 official score, computed as the perl scorer v1.2 does (metrics notes §1.3, §2.3).

Three views of one aligned key/proposal pair: (i) 19-way directed, (ii) 10-way ignoring direction, (iii) 10-way
taking direction into account — the official one, where a right relation with the wrong direction goes to an
xDIRx column: a miss for the gold relation, added to its precision denominator. Quirks kept on purpose: rows and
averages cover only the labels present in the key (macro divides by their number minus Other); a proposed label
absent from the key is a column of its own and enters no precision denominator; skipped items lower recall only.
All percentages are computed in the scorer's order of operations, so they print to the same digits.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError
from releval.data.alignment import MISSING_LABEL
from releval.data.semeval_labels import OTHER, undirected

VIEWS = ("directed", "undirected", "official")
VIEW_TITLES = {
    "directed": "(2*9+1)-WAY EVALUATION (USING DIRECTIONALITY)",
    "undirected": "(9+1)-WAY EVALUATION IGNORING DIRECTIONALITY",
    "official": "(9+1)-WAY EVALUATION TAKING DIRECTIONALITY INTO ACCOUNT -- OFFICIAL",
}


def scorer_name(label: str) -> str:
    """The scorer's internal name: `Other` is renamed `_Other` (so that it sorts last)."""
    return "_" + OTHER if label == OTHER else label


def scorer_order(labels: Sequence[str] | set[str]) -> list[str]:
    """Labels in the scorer's `sort keys` order (byte order of the internal names)."""
    return sorted(labels, key=lambda s: scorer_name(s).encode("utf-8"))


@dataclass(frozen=True)
class Prf:
    """Counts and percentages of one precision/recall/F1 line (percent, as the scorer prints them)."""

    correct: int
    proposed: int
    actual: int
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class SemevalView:
    """One of the scorer's three evaluations: confusion matrix, coverage, accuracies, per-relation and averages.

    Rows are the key's labels (`labels`); columns are those labels followed by proposed-only labels
    (`columns`). `wrong_direction` is all zeros except in the official view. Percentages are in [0, 100].
    """

    name: str
    labels: tuple[str, ...]
    columns: tuple[str, ...]
    confusion: NDArray[np.int64]
    wrong_direction: NDArray[np.int64]
    skipped: NDArray[np.int64]
    actual: NDArray[np.int64]
    correct: NDArray[np.int64]
    proposed: NDArray[np.int64]
    precision: NDArray[np.float64]
    recall: NDArray[np.float64]
    f1: NDArray[np.float64]
    micro: Prf
    macro_precision: float
    macro_recall: float
    macro_f1: float
    n_macro_labels: int
    n_proposed: int
    n_total: int
    n_correct: int
    other_skipped: int

    @property
    def uses_wrong_direction(self) -> bool:
        return self.name == "official"

    @property
    def p_denominator(self) -> NDArray[np.int64]:
        """Precision denominators: proposed + wrong direction (the v1.2 fix)."""
        return self.proposed + self.wrong_direction

    @property
    def column_totals(self) -> NDArray[np.int64]:
        """How often each column label was proposed (wrong-direction items excluded in the official view)."""
        return self.confusion.sum(axis=0)

    @property
    def coverage(self) -> float:
        return 100.0 * self.n_proposed / self.n_total

    @property
    def accuracy(self) -> float:
        """Accuracy on the proposed items (the confusion matrix)."""
        return 100.0 * self.n_correct / self.n_proposed

    @property
    def accuracy_skipped_wrong(self) -> float:
        return 100.0 * self.n_correct / self.n_total

    @property
    def accuracy_skipped_other(self) -> float:
        return 100.0 * (self.n_correct + self.other_skipped) / self.n_total

    def per_relation(self, label: str) -> Prf:
        """The per-relation line of one key label (`proposed` here is the precision denominator)."""
        i = self.labels.index(label)
        return Prf(
            int(self.correct[i]),
            int(self.p_denominator[i]),
            int(self.actual[i]),
            float(self.precision[i]),
            float(self.recall[i]),
            float(self.f1[i]),
        )


@dataclass(frozen=True)
class SemevalScores:
    """The three views, the proposed labels absent from the key (label → count) and the official score."""

    directed: SemevalView
    undirected: SemevalView
    official: SemevalView
    absent_from_key: dict[str, int]
    n_skipped: int

    @property
    def official_score(self) -> float:
        """Macro-F1 of the official view (iii), in percent."""
        return self.official.macro_f1

    @property
    def views(self) -> tuple[SemevalView, SemevalView, SemevalView]:
        return (self.directed, self.undirected, self.official)


def _percent(num: NDArray[np.int64], den: NDArray[np.int64], guard: NDArray[np.int64]) -> NDArray[np.float64]:
    """100·num/den where guard ≠ 0, else 0 (the scorer tests the proposed/actual count, not the denominator)."""
    out = np.zeros(num.shape, dtype=np.float64)
    ok = guard != 0
    out[ok] = 100.0 * num[ok] / den[ok]
    return out


def _f1(p: NDArray[np.float64], r: NDArray[np.float64]) -> NDArray[np.float64]:
    """2PR/(P+R) on percentages, 0 when P+R = 0 (same operation order as the scorer)."""
    out = np.zeros(p.shape, dtype=np.float64)
    ok = (p + r) != 0
    out[ok] = 2 * p[ok] * r[ok] / (p[ok] + r[ok])
    return out


def _sequential_sum(values: NDArray[np.float64]) -> float:
    """Left-to-right sum (the scorer's `+=` loop); np.sum's pairwise order could change the last bit."""
    return float(np.cumsum(values)[-1]) if values.size else 0.0


def evaluate_view(
    name: str, gold: Sequence[str], pred: Sequence[str | None], wrong_direction: NDArray[np.bool_] | None = None
) -> SemevalView:
    """One evaluation of the scorer: gold labels of all key items, predictions (None = skipped), in item order.

    `wrong_direction` marks proposed items of the official view that have the gold relation in the wrong
    direction; they go to the xDIRx column instead of the matrix.
    """
    n_total = len(gold)
    labels = scorer_order(set(gold))
    k = len(labels)
    gold_index = {lbl: i for i, lbl in enumerate(labels)}
    skipped = np.fromiter((p is None for p in pred), dtype=bool, count=n_total)
    wrong = np.zeros(n_total, dtype=bool) if wrong_direction is None else np.asarray(wrong_direction, dtype=bool)
    in_matrix = ~skipped & ~wrong
    extra = scorer_order({p for p, m in zip(pred, in_matrix) if m and p not in gold_index})  # type: ignore[misc]
    columns = labels + extra
    col_index = {lbl: i for i, lbl in enumerate(columns)}
    g = np.fromiter((gold_index[x] for x in gold), dtype=np.int64, count=n_total)
    p = np.fromiter(
        (col_index[cast(str, x)] if m else -1 for x, m in zip(pred, in_matrix)), dtype=np.int64, count=n_total
    )
    width = len(columns)
    confusion = np.bincount(g[in_matrix] * width + p[in_matrix], minlength=k * width).reshape(k, width)
    actual = np.bincount(g, minlength=k)
    xdir = np.bincount(g[wrong], minlength=k)
    skip = actual - confusion.sum(axis=1) - xdir
    correct = confusion[np.arange(k), np.arange(k)].copy()
    proposed = confusion.sum(axis=0)[:k]
    precision = _percent(correct, proposed + xdir, proposed)
    recall = _percent(correct, actual, actual)
    f1 = _f1(precision, recall)
    positive = np.array([lbl != OTHER for lbl in labels], dtype=bool)
    n_macro = int(positive.sum())
    if n_macro == 0:
        raise InputError("the answer key has no relation besides Other, so the macro average is undefined")
    mc, mp, ma = int(correct[positive].sum()), int((proposed + xdir)[positive].sum()), int(actual[positive].sum())
    micro_p = 100.0 * mc / mp if mp else 0.0
    micro_r = 100.0 * mc / ma if ma else 0.0
    micro_f = 2.0 * micro_p * micro_r / (micro_p + micro_r) if micro_p + micro_r else 0.0
    n_proposed = int((~skipped).sum())
    if n_proposed == 0:
        raise InputError("no item of the answer key has a prediction")
    return SemevalView(
        name=name,
        labels=tuple(labels),
        columns=tuple(columns),
        confusion=confusion,
        wrong_direction=xdir,
        skipped=skip,
        actual=actual,
        correct=correct,
        proposed=proposed,
        precision=precision,
        recall=recall,
        f1=f1,
        micro=Prf(mc, mp, ma, micro_p, micro_r, micro_f),
        macro_precision=_sequential_sum(precision[positive]) / n_macro,
        macro_recall=_sequential_sum(recall[positive]) / n_macro,
        macro_f1=_sequential_sum(f1[positive]) / n_macro,
        n_macro_labels=n_macro,
        n_proposed=n_proposed,
        n_total=n_total,
        n_correct=int(correct.sum()),
        other_skipped=int(skip[gold_index[OTHER]]) if OTHER in gold_index else 0,
    )


def semeval_scores(gold: Sequence[str], pred: Sequence[str | None]) -> SemevalScores:
    """All three views from aligned directed labels; a prediction of None or MISSING_LABEL is a skipped item."""
    if len(gold) != len(pred):
        raise ValueError(f"gold and pred differ in length: {len(gold)} vs {len(pred)}")
    proposal = [None if x is None or x == MISSING_LABEL else x for x in pred]
    key = set(gold)
    # one undirected string per distinct label, shared by its items (a new string per item cost 50-60 bytes each)
    cut = {x: undirected(x) for x in key.union(x for x in proposal if x is not None)}
    gold_u = [cut[x] for x in gold]
    pred_u = [None if x is None else cut[x] for x in proposal]
    wrong = np.fromiter(
        (x is not None and x != y and xu == yu for x, y, xu, yu in zip(proposal, gold, pred_u, gold_u)),
        dtype=bool,
        count=len(gold),
    )
    absent = Counter(x for x in proposal if x is not None and x not in key)
    return SemevalScores(
        directed=evaluate_view("directed", gold, proposal),
        undirected=evaluate_view("undirected", gold_u, pred_u),
        official=evaluate_view("official", gold_u, pred_u, wrong),
        absent_from_key={lbl: absent[lbl] for lbl in scorer_order(set(absent))},
        n_skipped=sum(x is None for x in proposal),
    )
