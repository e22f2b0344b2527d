"""Ranked relation facts (distant supervision; NYT10 bag-level held-out evaluation, OpenNRE `BagREDataset.eval`).

Gold is OpenNRE JSON lines (a bag = the sentences of one entity pair; a fact = a distinct (h.id, t.id, relation),
NA excluded); a system is a file of scored (entity pair, relation) predictions (releval.data.ranked). The
predictions are ranked by score and scored on the precision-recall curve (releval.metrics.ranked): AUC exactly as
OpenNRE computes it (`sklearn.metrics.auc(recall, precision)`), P@N for every N asked (default 100, 200, 300),
max F1 (OpenNRE's `max_micro_f1`) and F1 at a score threshold (default 0.5), per relation AUC and P@N, and each
class weighting's average of the per-relation AUC (weights from the relations' gold facts).

Settings (every one in the signature's `criterion` or `average`):

* `ties`: ``input-order`` (the reference: a stable sort, equal scores keep the file's order) or ``average``
  (order-free: the expectation over random orders of tied predictions; releval.metrics.ranked);
* `duplicates` — a (h, t, relation) predicted more than once: ``refuse`` (default; an InputError at the second
  line), ``count`` (every copy is ranked and a copy of a fact counts as a hit each time: the reference's
  behaviour, where precision and recall can exceed 1) or ``max`` (the highest-scoring copy kept, the first in
  ranking order among equal scores);
* predictions of the negative class (NA) are dropped before ranking, as OpenNRE's `BagRE.eval_model` drops them
  (a note says how many); predictions for entity pairs that gold does not have are ranked and are never facts;
* the predicted relations are checked against gold's (`check_relations`): another letter case (`/REL/R9`, `na`)
  is refused at its first line, a relation gold never uses is warned; gold's facts given as predictions, or files
  named the other way round, are warned;
* fewer than N predictions: P@N = hits among them / N (the missing ones count as wrong; the reference raises
  IndexError), with a note.

>>> config = RankedConfig(at=(300, 100))
>>> config.at, config.metric_names[:3]
((100, 300), ['auc', 'p@100', 'p@300'])
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError, OptionError
from releval.core.notices import Notice
from releval.core.schema import check_schema, header, reading
from releval.core.signature import Signature, parse, short_hash
from releval.core.table import Column, Table
from releval.core.validation import check_choice
from releval.data.ranked import RankedGold, RankedPredictions, load_gold, load_predictions
from releval.metrics.ranked import TIE_POLICIES, RankedCurve, ranked_curve, ranking_order
from releval.tasks.base import BoardExample, ScoringConfig, Task, build_signature
from releval.tasks.vocabulary import Vocabulary, check_vocabulary, identical_notice, swapped_names

#: What a (h, t, relation) predicted more than once does.
DUPLICATE_POLICIES = ("refuse", "count", "max")
#: The negative class OpenNRE hard-codes ('auto' means it).
NA = "NA"
#: The board's default measures (for the default P@N).
MEASURES = ("auc", "p@100", "p@200", "p@300", "max_f1")


def parse_at(value: Any) -> tuple[int, ...]:
    """The N of P@N: "100,200,300", an int or a sequence; sorted, distinct, each >= 1 (OptionError).

    >>> parse_at("300, 100"), parse_at(50)
    ((100, 300), (50,))
    """
    items: list[Any] = (
        list(value.split(",")) if isinstance(value, str) else [value] if isinstance(value, int) else list(value)
    )
    out = set()
    for item in items:
        text = str(item).strip()
        if not text:
            continue
        try:
            n = int(text)
        except ValueError:
            raise OptionError(f"at: {text!r} is not a whole number (P@N's N)", option="at") from None
        if n < 1 or isinstance(item, bool):
            raise OptionError(f"at: P@N needs N >= 1, got {text}", option="at")
        out.add(n)
    if not out:
        raise OptionError("at: give at least one N for P@N (e.g. 100,200,300)", option="at")
    return tuple(sorted(out))


def parse_at_recall(value: Any) -> tuple[int, ...]:
    """The recall levels of P@R, in percent: "10,30", "10%,30%", an int or a sequence; sorted, distinct, each in
    1 … 100 (OptionError); empty: none.

    >>> parse_at_recall("30%, 10"), parse_at_recall(()), parse_at_recall(20)
    ((10, 30), (), (20,))
    """
    items: list[Any] = (
        list(value.split(",")) if isinstance(value, str) else [value] if isinstance(value, int) else list(value)
    )
    out = set()
    for item in items:
        text = str(item).strip().removesuffix("%").strip()
        if not text:
            continue
        try:
            n = int(text)
        except ValueError:
            raise OptionError(
                f"at_recall: {str(item).strip()!r} is not a whole percentage (P@10% is at 10)", option="at_recall"
            ) from None
        if not 1 <= n <= 100 or isinstance(item, bool):
            raise OptionError(f"at_recall: a recall level is 1 … 100 (%), got {text}", option="at_recall")
        out.add(n)
    return tuple(sorted(out))


@dataclass(frozen=True)
class RankedConfig(ScoringConfig):
    """Every setting of ranked-facts scoring, checked when made (OptionError). `negative`: the NA relation
    ('auto': "NA", as OpenNRE; None: no negative class, every relation is a fact); `at`: the N of P@N;
    `threshold`: the score from which a prediction counts as positive for F1 at a threshold (OpenNRE: 0.5);
    `ties`, `duplicates`: see the module. The weightings average the per-relation AUC; β is F1-at-threshold's.
    `at_recall`: recall levels in percent for precision at a recall level (`p@10%`, the NYT tables' P@10%/P@30%;
    none by default), `interpolated`: the highest precision at that recall or beyond (True, IR's convention) or
    the precision where the recall is first reached (False); both signed when `at_recall` is given."""

    task: ClassVar[str] = "ranked"

    negative: str | None = "auto"
    ties: str = "input-order"
    duplicates: str = "refuse"
    at: Any = (100, 200, 300)
    threshold: float = 0.5
    pred_format: str | None = None
    at_recall: Any = ()
    interpolated: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice(self.ties, TIE_POLICIES, "ties")
        check_choice(self.duplicates, DUPLICATE_POLICIES, "duplicates")
        object.__setattr__(self, "at", parse_at(self.at))
        object.__setattr__(self, "at_recall", parse_at_recall(self.at_recall))
        if not isinstance(self.interpolated, bool):
            raise OptionError(f"interpolated: expected true or false, got {self.interpolated!r}", option="interpolated")
        if not self.interpolated and not self.at_recall:
            raise OptionError(
                "interpolated: precision at a recall level is asked with at_recall (--at-recall 10,30); without it "
                "the interpolation changes nothing",
                option="interpolated",
            )
        try:
            threshold = float(self.threshold)
        except (TypeError, ValueError):
            raise OptionError(f"threshold: {self.threshold!r} is not a number", option="threshold") from None
        if threshold != threshold:
            raise OptionError("threshold: NaN is not a score threshold", option="threshold")
        object.__setattr__(self, "threshold", threshold)
        if self.negative is not None and not str(self.negative).strip():
            raise OptionError("negative: an empty label", option="negative")
        if self.pred_format is not None:
            check_choice(self.pred_format, ("jsonl", "tsv"), "pred_format")

    @property
    def na(self) -> str | None:
        """The negative relation: "NA" for 'auto', None for none."""
        return NA if self.negative == "auto" else self.negative

    @property
    def threshold_name(self) -> str:
        return f"f1@{self.threshold!r}"

    @property
    def metric_names(self) -> list[str]:
        """The measures of every result and comparison: auc, p@N…, max_f1, f1@threshold, then each weighting's
        average of the per-relation AUC (`macro-auc`, …)."""
        return [
            "auc",
            *(f"p@{n}" for n in self.at),
            *(f"p@{r}%" for r in self.at_recall),
            "max_f1",
            self.threshold_name,
            *(f"{w.name}-auc" for w in self.weightings),
        ]

    def criterion(self) -> str:
        recall = f",p@r={'interpolated' if self.interpolated else 'first'}" if self.at_recall else ""
        return f"ranked:ties={self.ties},duplicates={self.duplicates},na=dropped{recall}"

    def signature_fields(self) -> dict[str, object]:
        return {
            "task": self.task,
            "criterion": self.criterion(),
            "average": self.metric_names,
            "beta": float(self.beta),
            "zero_division": float(self.zero_division),
            "negative": self.na if self.na is not None else "none",
        }


# ------------------------------------------------------------------------------------------------- encoding


@dataclass(frozen=True)
class GoldFacts:
    """Gold encoded: each entity pair's bag id, each relation's id, the distinct facts as codes bag * R + rel."""

    path: str
    n_bags: int
    relation_ids: dict[str, int]
    fact_codes: NDArray[np.int64]
    facts_per_bag: NDArray[np.int64]
    facts_per_relation: NDArray[np.int64]
    na: str | None
    n_sentences: int
    digest: str
    head_ids: dict[str, int] = field(default_factory=dict, repr=False)
    tail_ids: dict[str, int] = field(default_factory=dict, repr=False)
    pair_codes: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)
    pair_bags: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)

    @property
    def pairs(self) -> dict[tuple[str, str], int]:
        """{(head, tail): bag id} (built when asked: scoring reads the codes, issue 34's memory bound)."""
        heads, tails = list(self.head_ids), list(self.tail_ids)
        return {(heads[c >> 32], tails[c & 0xFFFFFFFF]): b for b, c in enumerate(self.bag_pair_codes().tolist())}

    def bag_pair_codes(self) -> NDArray[np.int64]:
        """Each bag's pair code, head id << 32 | tail id, in bag order."""
        out = np.empty(self.n_bags, dtype=np.int64)
        out[self.pair_bags] = self.pair_codes
        return out

    @property
    def n_facts(self) -> int:
        return int(self.fact_codes.shape[0])

    @property
    def fact_relations(self) -> list[str]:
        """The relations with at least one gold fact, in id order."""
        names = list(self.relation_ids)
        return [names[i] for i in np.flatnonzero(self.facts_per_relation)]


#: Relation ids are coded in this many bits of a fact code (bag << SHIFT | relation).
SHIFT = 20


def encode_gold(gold: RankedGold, na: str | None) -> GoldFacts:
    """Bags, relations and facts of a gold file (facts: distinct (h, t, relation), relation not `na`; a sentence
    with an `anno_relation_list` gives each listed relation, as OpenNRE's BagREDataset); a gold file without a
    fact is refused (recall would be undefined)."""
    n = gold.n_rows
    head_ids = {h: i for i, h in enumerate(dict.fromkeys(gold.heads))}
    tail_ids = {t: i for i, t in enumerate(dict.fromkeys(gold.tails))}
    pair_of_row = np.fromiter(map(head_ids.__getitem__, gold.heads), np.int64, n) << 32
    pair_of_row |= np.fromiter(map(tail_ids.__getitem__, gold.tails), np.int64, n)
    # bags numbered in order of first appearance, from the sorted distinct pair codes (no tuple per pair)
    pair_codes, first, inverse = np.unique(pair_of_row, return_index=True, return_inverse=True)
    del pair_of_row
    pair_bags = np.empty(pair_codes.size, dtype=np.int64)
    pair_bags[np.argsort(first, kind="stable")] = np.arange(pair_codes.size, dtype=np.int64)
    n_bags = int(pair_codes.size)
    relation_ids = {r: i for i, r in enumerate(gold.relations)}
    bags = pair_bags[inverse.reshape(-1)]
    del inverse
    rels = np.fromiter((relation_ids[r] for r in gold.sentence_relations), np.int64, gold.n_rows)
    if gold.annotations is not None:  # a listed sentence's facts are its anno_relation_list, not its relation
        listed = [(b, relation_ids[r]) for b, a in zip(bags.tolist(), gold.annotations) if a for r in a]
        plain = np.fromiter((a is None for a in gold.annotations), bool, gold.n_rows)
        bags = np.concatenate([bags[plain], np.array([b for b, _ in listed], dtype=np.int64)])
        rels = np.concatenate([rels[plain], np.array([r for _, r in listed], dtype=np.int64)])
    positive = rels != relation_ids[na] if na in relation_ids else np.ones(rels.shape[0], dtype=bool)
    codes = np.unique((bags[positive] << SHIFT) | rels[positive])
    if codes.size == 0:
        raise InputError(
            f"gold has no fact: every sentence is {na!r} (recall is undefined); is --negative right?", file=gold.path
        )
    facts_per_bag = np.bincount(codes >> SHIFT, minlength=n_bags).astype(np.int64)
    facts_per_relation = np.bincount(codes & ((1 << SHIFT) - 1), minlength=len(relation_ids)).astype(np.int64)
    names = list(relation_ids)
    bag_pair = np.empty(n_bags, dtype=np.int64)
    bag_pair[pair_bags] = pair_codes
    fact_pairs = bag_pair[codes >> SHIFT].tolist()
    head_names, tail_names = list(head_ids), list(tail_ids)
    mask = (1 << SHIFT) - 1
    digest = short_hash(
        sorted(
            f"{head_names[p >> 32]}\t{tail_names[p & 0xFFFFFFFF]}\t{names[c & mask]}"
            for p, c in zip(fact_pairs, codes.tolist())
        )
    )
    return GoldFacts(
        gold.path,
        n_bags,
        relation_ids,
        codes,
        facts_per_bag,
        facts_per_relation,
        na,
        gold.n_rows,
        digest,
        head_ids,
        tail_ids,
        pair_codes,
        pair_bags,
    )


class Numbering:
    """Ids of the heads, tails and entity pairs of predictions: gold's bags keep their ids (0..B-1, in order of
    first appearance), pairs only predicted get the next ones. A comparison shares one Numbering between its
    systems, so an entity pair is one resampled unit whichever system predicts it."""

    def __init__(self, gold: GoldFacts) -> None:
        # gold's tables are read, never copied (a million names cost ~100 MB a copy); new names go to `extra_*`
        self.heads = gold.head_ids
        self.tails = gold.tail_ids
        self.extra_heads: dict[str, int] = {}
        self.extra_tails: dict[str, int] = {}
        self.gold = gold
        self.extra: dict[int, int] = {}

    @property
    def n_units(self) -> int:
        return self.gold.n_bags + len(self.extra)

    @staticmethod
    def ids(names: list[str], table: dict[str, int]) -> NDArray[np.int64]:
        """Each name's id in `table`, new names added (sorted, so the numbering does not depend on the order)."""
        for name in sorted(set(names).difference(table)):
            table[name] = len(table)
        return np.fromiter(map(table.__getitem__, names), np.int64, len(names))

    @staticmethod
    def ids_beside(names: list[str], table: dict[str, int], extra: dict[str, int]) -> NDArray[np.int64]:
        """`ids(names, table)` without changing `table`: names it lacks get ids from len(table) on in `extra` (as
        `ids` would give them, sorted).

        >>> extra = {}
        >>> Numbering.ids_beside(["b", "z", "a"], {"a": 0, "b": 1}, extra).tolist(), extra
        ([1, 2, 0], {'z': 2})
        """
        out = np.fromiter(map(table.get, names, repeat(-1)), np.int64, len(names))
        missing = np.flatnonzero(out < 0)
        if missing.size:
            new = [names[k] for k in missing.tolist()]
            for name in sorted(set(new).difference(extra)):
                extra[name] = len(table) + len(extra)
            out[missing] = np.fromiter(map(extra.__getitem__, new), np.int64, len(new))
        return out

    def bags(self, heads: list[str], tails: list[str]) -> NDArray[np.int64]:
        """The bag (unit) id of each (head, tail)."""
        codes = self.ids_beside(heads, self.heads, self.extra_heads) << 32
        codes |= self.ids_beside(tails, self.tails, self.extra_tails)
        known = self.gold.pair_codes
        out = np.empty(codes.shape[0], dtype=np.int64)
        pos = np.minimum(np.searchsorted(known, codes), known.size - 1)
        found = known[pos] == codes
        out[found] = self.gold.pair_bags[pos[found]]
        if not found.all():
            missing = codes[~found]
            for code in np.unique(missing).tolist():
                self.extra.setdefault(code, self.gold.n_bags + len(self.extra))
            out[~found] = np.fromiter(map(self.extra.__getitem__, missing.tolist()), np.int64, missing.shape[0])
        return out


@dataclass(frozen=True)
class Ranked:
    """One system's predictions encoded against gold, after the NA and duplicate rules: bag id (pairs unknown to
    gold get ids from n_bags on), relation id (relations unknown to gold from R on), score, hit, input line."""

    bags: NDArray[np.int64]
    relations: NDArray[np.int64]
    scores: NDArray[np.float64]
    hits: NDArray[np.bool_]
    relation_names: list[str]
    dropped_na: int
    duplicates: int
    unknown_pairs: int
    #: The prediction file, and the warnings its relations gave (`check_relations`).
    path: str = ""
    notices: tuple[Notice, ...] = ()


def check_relations(pred: RankedPredictions, gold: GoldFacts) -> list[Notice]:
    """The relations of a prediction file beside gold's (releval.tasks.vocabulary; the negative class is one of
    them): refused when they differ from gold's only in letter case (`/REL/R9`, `na`), carry white space or a glued
    number, are class indices, or share nothing with gold — naming the file and the first line with the bad
    relation; warned when some relation never occurs in gold (its predictions are never facts). The negative class
    is legitimate in predictions even where gold has no NA sentence (it is dropped before ranking).

    >>> g = encode_gold(RankedGold("g", ["a"], ["b"], ["/rel/r9"], np.array([1])), "NA")
    >>> p = RankedPredictions("p.tsv", ["a"], ["b"], ["/REL/R9"], np.array([0.9]), np.array([2]), "tsv")
    >>> try:
    ...     check_relations(p, g)
    ... except InputError as error:
    ...     print(error.message.split(";")[0])
    1 predicted relation(s) differ from gold's only in letter case: '/REL/R9' (gold '/rel/r9') (first at line 2)
    """
    gold_relations = frozenset(gold.relation_ids)
    predicted = set(pred.relations)
    if predicted <= gold_relations:
        return []

    def where(label: str) -> str | None:
        i = pred.relations.index(label) if label in predicted else -1
        return f"line {int(pred.lines[i])}" if i >= 0 else None

    allowed = frozenset({gold.na}) - gold_relations if gold.na is not None else frozenset()
    return check_vocabulary(Vocabulary("relation", gold_relations, sorted(predicted), pred.path, where=where,
                                       allowed=allowed))  # fmt: skip


def encode_predictions(
    pred: RankedPredictions, gold: GoldFacts, config: RankedConfig, numbering: Numbering | None = None
) -> Ranked:
    """Predictions as codes against gold's bags and relations; NA predictions dropped; duplicates refused,
    counted or reduced to the best copy (`config.duplicates`). `numbering`: the entity pairs' ids, shared by the
    systems of a comparison (see Numbering)."""
    notices = check_relations(pred, gold)
    numbering = numbering or Numbering(gold)
    relation_ids = dict(gold.relation_ids)
    n = len(pred)
    bags = numbering.bags(pred.heads, pred.tails)
    rels = Numbering.ids(pred.relations, relation_ids)
    if len(relation_ids) >= 1 << SHIFT:
        raise InputError(f"more than {1 << SHIFT:,} distinct relations", file=pred.path, field="relation")
    keep = np.ones(n, dtype=bool)
    if gold.na is not None and gold.na in relation_ids:
        keep = rels != relation_ids[gold.na]
    dropped_na = int(n - keep.sum())
    rows = np.flatnonzero(keep)
    bags, rels, scores, lines = bags[keep], rels[keep], pred.scores[keep], pred.lines[keep]
    if bags.size == 0:
        raise InputError(f"every prediction is of the negative class {gold.na!r}: nothing to rank", file=pred.path)
    codes = (bags << SHIFT) | rels
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    repeated = np.flatnonzero(sorted_codes[1:] == sorted_codes[:-1])
    n_dup = int(repeated.size)
    if n_dup and config.duplicates == "refuse":
        firsts = order[repeated]
        seconds = order[repeated + 1]
        k = int(np.argmin(lines[seconds]))
        first, second = int(firsts[k]), int(seconds[k])
        row = int(rows[second])
        raise InputError(
            f"({pred.heads[row]}, {pred.tails[row]}, {pred.relations[row]}) predicted again "
            f"(first at line {int(lines[first])}); "
            f"{n_dup:,} duplicate(s) in all: --duplicates count (OpenNRE: every copy ranked and counted) or max "
            "(the best-scoring copy kept)",
            file=pred.path,
            line=int(lines[second]),
        )
    if n_dup and config.duplicates == "max":
        rank = ranking_order(scores)
        _, first_in_ranking = np.unique(codes[rank], return_index=True)
        best = np.zeros(bags.size, dtype=bool)
        best[rank[first_in_ranking]] = True
        bags, rels, scores, codes = bags[best], rels[best], scores[best], codes[best]
    hits = np.isin(codes, gold.fact_codes)
    unknown = int(np.count_nonzero(bags >= gold.n_bags))
    return Ranked(bags, rels, scores, hits, list(relation_ids), dropped_na, n_dup, unknown, pred.path, tuple(notices))


# ------------------------------------------------------------------------------------------------- measures


def threshold_scores(
    curve: RankedCurve, threshold: float, beta: float, zero_division: float
) -> tuple[float, float, float, int]:
    """(P, R, F-beta, m) of the predictions with score >= threshold (m of them): P = c_m / m, R = c_m / F."""
    m = int(np.count_nonzero(curve.scores >= threshold))
    if m == 0:
        p, r = zero_division, 0.0
    else:
        p, r = float(curve.precision[m - 1]), float(curve.recall[m - 1])
    b2 = beta * beta
    f = (1 + b2) * p * r / (b2 * p + r) if (b2 * p + r) > 0 else zero_division
    return p, r, float(f), m


def curve_measures(curve: RankedCurve, config: RankedConfig) -> dict[str, float]:
    """auc, p@N…, max_f1, f1@threshold of one curve."""
    out = {"auc": curve.auc()}
    for n in config.at:
        out[f"p@{n}"] = curve.precision_at(n)
    for r in config.at_recall:
        out[f"p@{r}%"] = curve.precision_at_recall(r, config.interpolated)
    out["max_f1"] = curve.max_f1()[0]
    out[config.threshold_name] = threshold_scores(curve, config.threshold, config.beta, config.zero_division)[2]
    return out


@dataclass(frozen=True)
class RelationRow:
    """One relation's facts, predictions, AUC and P@N (its own ranking: its predictions against its facts)."""

    relation: str
    facts: int
    predictions: int
    hits: int
    auc: float
    precision_at: dict[int, float]


def relation_rows(
    ranked: Ranked, gold: GoldFacts, config: RankedConfig, order: NDArray[np.intp] | None = None
) -> list[RelationRow]:
    """Per relation with gold facts: its predictions ranked against its facts. The whole ranking is sorted once
    (`order`) and cut by relation (a stable sort keeps each relation's predictions in ranking order)."""
    order = ranking_order(ranked.scores) if order is None else order
    rel_sorted = ranked.relations[order]
    by_relation = np.argsort(rel_sorted, kind="stable")
    grouped = rel_sorted[by_relation]
    scores, hits = ranked.scores[order][by_relation], ranked.hits[order][by_relation]
    rows = []
    for rel in np.flatnonzero(gold.facts_per_relation):
        lo, hi = np.searchsorted(grouped, rel, "left"), np.searchsorted(grouped, rel, "right")
        identity = np.arange(hi - lo)
        curve = ranked_curve(scores[lo:hi], hits[lo:hi], int(gold.facts_per_relation[rel]), config.ties, order=identity)
        rows.append(
            RelationRow(
                ranked.relation_names[rel],
                int(gold.facts_per_relation[rel]),
                curve.predictions,
                int(hits[lo:hi].sum()),
                curve.auc(),
                {n: curve.precision_at(n) for n in config.at},
            )
        )
    return rows


def weighted_aucs(rows: Sequence[RelationRow], config: RankedConfig) -> dict[str, float]:
    """Each weighting's average of the per-relation AUC, weights from the relations' gold facts (releval's class
    weightings: macro 1/K, weighted n_i/N, …)."""
    support = np.asarray([r.facts for r in rows], dtype=np.float64)
    aucs = np.asarray([r.auc for r in rows], dtype=np.float64)
    mask = support > 0
    out = {}
    for w in config.weightings:
        weights = w.weights(support, mask, support.sum())
        out[f"{w.name}-auc"] = float((weights * aucs).sum())
    return out


@dataclass(frozen=True)
class RankedResult:
    """One system's ranked-facts scores: `measures` (auc, p@N…, max_f1, f1@t, weighting-auc…), the threshold
    reaching max F1, P and R at the threshold, per-relation rows, the curve, notes, warnings, signature.

    `from_dict` reads back what `to_dict` wrote; the whole precision-recall curve is not written, so a result read
    back has `curve` None (its figure needs the files scored again).
    """

    system: str
    measures: dict[str, float]
    best_threshold: float
    at_threshold: tuple[float, float, int]
    relations: list[RelationRow]
    curve: RankedCurve | None = field(repr=False, compare=False)
    n_predictions: int
    n_facts: int
    n_bags: int
    signature: Signature
    notes: list[str] = field(default_factory=list)
    warnings: list[Notice] = field(default_factory=list)

    task: ClassVar[str] = "ranked"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the measures, the threshold facts, the per-relation rows, notes, warnings, signature."""
        return {
            **header("ranked-score"),
            "task": "ranked",
            "system": self.system,
            "measures": dict(self.measures),
            "best_threshold": None if self.best_threshold != self.best_threshold else self.best_threshold,
            "at_threshold": {
                "precision": self.at_threshold[0],
                "recall": self.at_threshold[1],
                "predictions": self.at_threshold[2],
            },
            "predictions": self.n_predictions,
            "facts": self.n_facts,
            "bags": self.n_bags,
            "relations": [
                {
                    "relation": r.relation,
                    "facts": r.facts,
                    "predictions": r.predictions,
                    "hits": r.hits,
                    "auc": r.auc,
                    **{f"p@{n}": v for n, v in r.precision_at.items()},
                }
                for r in self.relations
            ],
            **self.signature.to_json(),
            "notes": list(self.notes),
            "warnings": [w.to_dict() for w in self.warnings],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RankedResult:
        """The result `to_dict()` wrote (ValueError naming the key when it is not one), without its curve."""
        check_schema(data, "ranked result", "ranked-score")
        with reading("ranked result"):
            at = data["at_threshold"]
            threshold = data["best_threshold"]
            return cls(
                str(data["system"]),
                {str(k): float(v) for k, v in data["measures"].items()},
                math.nan if threshold is None else float(threshold),
                (float(at["precision"]), float(at["recall"]), int(at["predictions"])),
                [
                    RelationRow(
                        str(r["relation"]),
                        int(r["facts"]),
                        int(r["predictions"]),
                        int(r["hits"]),
                        float(r["auc"]),
                        {int(k[2:]): float(v) for k, v in r.items() if k.startswith("p@")},
                    )
                    for r in data["relations"]
                ],
                None,
                int(data["predictions"]),
                int(data["facts"]),
                int(data["bags"]),
                parse(data["signature"]),
                [str(n) for n in data.get("notes", [])],
                [Notice.from_dict(w) for w in data.get("warnings", [])],
            )

    def to_tables(self) -> list[Table]:
        return RankedResult.tables_of([self])

    @classmethod
    def tables_of(cls, results: Sequence[RankedResult], per_class: bool | None = None) -> list[Table]:
        """One line per system (AUC, P@N, max F1, F1 at the threshold, weighted per-relation AUC), then, for one
        system or with `per_class`, each system's per-relation rows."""
        if not results:
            return []
        names = list(results[0].measures)
        columns = [Column("system"), *(Column(n, "percent") for n in names), Column("#pred", "count")]
        rows = [(r.system, *(r.measures[n] for n in names), r.n_predictions) for r in results]
        signatures = {r.signature.format(short=True) for r in results}
        signature: Any = (
            next(iter(signatures))
            if len(signatures) == 1
            else [(r.system, r.signature.format(short=True)) for r in results]
        )
        notes = [
            f"{results[0].n_facts:,} gold facts (NA excluded) in {results[0].n_bags:,} bags; AUC = area under "
            "(recall, precision) over the whole ranking (OpenNRE, sklearn.metrics.auc); max_f1 = max over the "
            "ranking of 2PR/(P+R); *-auc = a class weighting's average of the per-relation AUC",
            *dict.fromkeys(n if len(results) == 1 else f"{r.system}: {n}" for r in results for n in r.notes),
        ]
        warnings = [f"{r.system}: {w}" for r in results for w in r.warnings]
        out = [Table("Ranked relation facts (%)", columns, rows, notes=notes, warnings=warnings, signature=signature)]
        if per_class is None:
            per_class = len(results) == 1
        if per_class:
            for r in results:
                at = list(results[0].relations[0].precision_at) if r.relations else []
                cols = [
                    Column("relation"),
                    Column("facts", "count"),
                    Column("#pred", "count"),
                    Column("hits", "count"),
                    Column("auc", "percent"),
                    *(Column(f"p@{n}", "percent") for n in at),
                ]
                body = [
                    (x.relation, x.facts, x.predictions, x.hits, x.auc, *(x.precision_at[n] for n in at))
                    for x in sorted(r.relations, key=lambda x: (-x.facts, x.relation))
                ]
                out.append(Table(f"{r.system}: per relation (its predictions against its facts)", cols, body))
        return out


def signature(config: RankedConfig, gold: GoldFacts) -> Signature:
    """THE ranked-facts signature: the Config's settings plus the gold's facts (relations with facts, digest of
    the facts, number of bags)."""
    return build_signature(
        {
            **config.signature_fields(),
            "labels": short_hash(sorted(gold.fact_relations)),
            "gold": gold.digest,
            "n": gold.n_bags,
        }
    )


def score_ranked(
    ranked: Ranked, gold: GoldFacts, config: RankedConfig, system: str, notes: Sequence[str] = ()
) -> RankedResult:
    """The result of encoded predictions."""
    order = ranking_order(ranked.scores)
    curve = ranked_curve(ranked.scores, ranked.hits, gold.n_facts, config.ties, order=order)
    measures = curve_measures(curve, config)
    rows = relation_rows(ranked, gold, config, order)
    measures.update(weighted_aucs(rows, config))
    p, r, _, m = threshold_scores(curve, config.threshold, config.beta, config.zero_division)
    out_notes = list(notes)
    warnings: list[Notice] = []
    if ranked.dropped_na:
        out_notes.append(
            f"{ranked.dropped_na:,} prediction(s) of the negative class {gold.na!r} dropped before ranking "
            "(as OpenNRE's BagRE.eval_model does)"
        )
    if ranked.duplicates and config.duplicates == "count":
        warnings.append(
            Notice(
                f"{ranked.duplicates:,} duplicated prediction(s) ranked and counted again (--duplicates count, "
                "OpenNRE's behaviour): precision and recall can exceed 1",
                "warning",
            )
        )
    elif ranked.duplicates:
        warnings.append(
            Notice(f"{ranked.duplicates:,} duplicated prediction(s): the best-scoring copy kept", "duplicates-dropped")
        )
    warnings.extend(ranked.notices)
    hit_facts = np.unique(((ranked.bags << SHIFT) | ranked.relations)[ranked.hits]).size
    if curve.predictions == gold.n_facts == hit_facts:  # every prediction a fact, every fact predicted
        warnings.extend(identical_notice(ranked.path or "the predictions", gold.n_facts, "facts"))
    warnings.extend(swapped_names(gold.path, ranked.path or "<predictions>"))
    short = [n for n in config.at if n > curve.predictions]
    if short:
        out_notes.append(
            f"only {curve.predictions:,} prediction(s): P@{', P@'.join(map(str, short))} count the missing ranks "
            "as wrong (hits / N; OpenNRE's eval raises IndexError)"
        )
    if curve.predictions < 2:
        out_notes.append("AUC of a single prediction is 0 (sklearn.metrics.auc needs two points)")
    if ranked.unknown_pairs:
        out_notes.append(f"{ranked.unknown_pairs:,} prediction(s) for entity pairs not in gold (never facts)")
    if m == 0:
        out_notes.append(f"no prediction scores >= {config.threshold:g}: P at the threshold is the zero_division value")
    return RankedResult(
        system,
        measures,
        curve.max_f1()[1],
        (p, r, m),
        rows,
        curve,
        curve.predictions,
        gold.n_facts,
        gold.n_bags,
        signature(config, gold),
        out_notes,
        warnings,
    )


RankedInput = str | os.PathLike[str]


def load_facts(gold: RankedInput | RankedGold | GoldFacts, config: RankedConfig) -> GoldFacts:
    """Gold as encoded facts (a path read, a RankedGold encoded, GoldFacts as given)."""
    if isinstance(gold, GoldFacts):
        return gold
    if not isinstance(gold, RankedGold):
        gold = load_gold(gold)
    if config.negative not in ("auto", None) and config.negative not in set(gold.relations):
        raise OptionError(
            f"negative: {config.negative!r} is not a relation of gold {gold.path} (a typo would make NA a fact "
            "relation); its relations include " + ", ".join(repr(r) for r in gold.relations[:5]),
            option="negative",
        )
    return encode_gold(gold, config.na)


def system_name(path: str) -> str:
    if path.startswith("<") or path == "-":
        return "system" if path != "-" else "stdin"
    name = Path(path).name
    for suffix in (".gz", ".jsonl", ".json", ".tsv", ".txt"):
        name = name.removesuffix(suffix)
    return name


def load_ranked(
    pred: RankedInput | RankedPredictions,
    gold: GoldFacts,
    config: RankedConfig,
    numbering: Numbering | None = None,
) -> tuple[RankedPredictions, Ranked]:
    """A prediction file read and encoded against gold (`numbering`: see `encode_predictions`)."""
    if not isinstance(pred, RankedPredictions):
        pred = load_predictions(pred, config.pred_format)
    return pred, encode_predictions(pred, gold, config, numbering)


def score(
    gold: RankedInput | RankedGold | GoldFacts,
    pred: RankedInput | RankedPredictions,
    config: RankedConfig | None = None,
    system: str | None = None,
) -> RankedResult:
    """Score one prediction file against a gold file under `config`.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "g.jsonl").write_text('{"h": {"id": "a"}, "t": {"id": "b"}, "relation": "r"}\\n')
    >>> _ = (d / "p.tsv").write_text("a\\tb\\tr\\t0.9\\na\\tb\\ts\\t0.8\\n")
    >>> result = score(d / "g.jsonl", d / "p.tsv")
    >>> result.measures["auc"], result.measures["p@100"]
    (0.0, 0.01)
    """
    config = config or RankedConfig()
    facts = load_facts(gold, config)
    loaded, ranked = load_ranked(pred, facts, config)
    return score_ranked(ranked, facts, config, system or system_name(loaded.path))


def score_files(
    gold: RankedInput, systems: Sequence[tuple[str | None, RankedInput]], config: RankedConfig
) -> list[RankedResult]:
    """Score several systems against one gold file (read once): one RankedResult each."""
    facts = load_facts(gold, config)
    return [score(facts, pred, config, name) for name, pred in systems]


def metric_names(config: RankedConfig) -> list[str]:
    """The measures every result and comparison under `config` compute (`RankedConfig.metric_names`): what a
    ranked benchmark of the board may show.

    >>> metric_names(RankedConfig(at=100, at_recall="10,30", weightings=("macro",)))
    ['auc', 'p@100', 'p@10%', 'p@30%', 'max_f1', 'f1@0.5', 'macro-auc']
    """
    return config.metric_names


TASK = Task(
    name="ranked",
    help="ranked relation facts (NYT10 / OpenNRE bag-level held-out): AUC, P@N, max F1 over scored entity pairs",
    config=RankedConfig,
    unit="bag",
    score_files=score_files,
    inputs=frozenset({"ranked-facts"}),
    compare_per_class=False,  # score shows each relation's AUC and P@N
    measures=MEASURES,
    measure_names=metric_names,
    example=BoardExample(
        slug="nyt-style-ranked",
        folder="ranked",
        gold="gold.jsonl",
        title="Ranked relation facts (NYT10-style synthetic example)",
        description="Bag-level held-out evaluation as OpenNRE computes it: AUC of the precision-recall curve, P@N, "
        "max F1; duplicated predictions counted as OpenNRE counts them.",
        settings={"duplicates": "count"},
        position=4,
    ),
)
