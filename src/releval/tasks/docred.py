"""Document-level RE (DocRED, Re-DocRED, Revisit-DocRED): the official numbers and what the official scorer never
shows.

The official numbers are those of the CodaLab scorer (thunlp/DocRED `code/evaluation.py`, Yao et al. 2019): a
submission's facts are deduplicated on (title, h, t, r), the first of equal keys keeping its evidence; then

* P = correct / predictions, R = correct / gold facts, F1 = 2PR / (P + R);
* Ign P = (correct − correct seen in train) / (predictions − correct seen in train), Ign F1 = 2·IgnP·R/(IgnP+R)
  with the **full** recall; "seen in train": some (head mention name, tail mention name, r) is a train fact;
* Evi P = correct evidence sentences / predicted evidence sentences (of predictions for gold titles),
  Evi R = correct evidence sentences / Σ len(gold evidence lists).

`scorer` reproduces a reference's quirks: `atlop` (wzhouad/ATLOP evaluation.py) adds 1e-5 to Ign P's denominator;
`redocred` (tonytan48/Re-DocRED evaluation.py) does that too and starts the gold evidence count at 1. Every value
is computed with the same floating-point operations as the reference, so they agree bit for bit. Where a reference
crashes (empty submission, 0/0), releval gives 0 and says so in a note.

Before counting, the submission's relation ids are checked against gold's (`check_relations`): ids in other letter
case (`p17`), DocRED's relation names for the ids (`country`) and the like are refused, naming the file and the first
prediction with one; a submission equal to gold, or files named the other way round, are warned.

Beyond them: per-relation P/R/F feeding every class weighting (Harbecke et al. 2022), the frequent-10 / long-tail
and intra- / inter-sentence F1 of Re-DocRED (Tan et al. 2022), and a precision-recall curve when predictions carry
a `score`.

>>> DocredConfig(scorer="atlop", weightings=("macro",)).signature_fields()["scorer"]
'atlop'
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, product, repeat
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError
from releval.core.notices import Notice
from releval.core.options import DOCRED_SCORERS
from releval.core.schema import check_schema, header, reading
from releval.core.signature import Signature, parse, short_hash
from releval.core.table import Column, Table
from releval.core.validation import check_choice, check_nonempty
from releval.data.docred import (
    DocredGold,
    Submission,
    TrainFacts,
    load_gold,
    load_relation_names,
    load_submission,
    load_train_fact_sets,
)
from releval.metrics.averages import AveragingSpec, all_averages, f_averages
from releval.metrics.cells import counts_of
from releval.result import Average, ClassRow, ScoreResult, score_tables
from releval.tasks.base import BoardExample, ScoringConfig, Task, build_signature
from releval.tasks.vocabulary import Vocabulary, check_vocabulary, identical_notice, swapped_names

#: The scorers whose quirks `scorer` reproduces.
SCORERS = DOCRED_SCORERS
#: Re-DocRED's ten frequent relation types (`official_evaluate_benchmark`); every other type is long-tail.
FREQUENT_10 = ("P17", "P131", "P27", "P150", "P175", "P577", "P463", "P527", "P495", "P361")
#: Columns after the 3K per-relation TP|FP|FN of a unit's statistics row.
EXTRA = (
    "predictions",
    "correct",
    "gold",
    "correct_in_train",
    "correct_in_distant",
    "evidence_correct",
    "evidence_predicted",
    "evidence_gold",
    "pred_intra",
    "correct_intra",
    "gold_intra",
    "pred_inter",
    "correct_inter",
    "gold_inter",
)
_X = {name: i for i, name in enumerate(EXTRA)}
THRESHOLD_WARNING = (
    "best F1 picks its threshold on the evaluated split itself (as DocRED's training code does with "
    "input_theta=-1): it is an optimistic bound, not a test result; fix the threshold on dev, then score test"
)


@dataclass(frozen=True)
class DocredConfig(ScoringConfig):
    """Every setting of DocRED scoring, checked when made (OptionError).

    `scorer`: whose quirks the official numbers reproduce (codalab, atlop, redocred); `train_facts`: files of
    the train facts Ign F1 leaves out (DocRED training files or `.fact` lists, their union); `distant_facts`: the
    same for Ign-distant F1 (not reported without them); `evidence`: score evidence (gold labels need `evidence`);
    `relation_names`: a file in DocRED's `rel_info.json` format, or "docred" (the bundled copy), whose names the
    per-relation tables and figures show beside the ids (display only: not in the signature).
    Class weightings run over the relation types with gold support.
    """

    task: ClassVar[str] = "docred"

    scorer: str = "codalab"
    train_facts: tuple[str, ...] = ()
    distant_facts: tuple[str, ...] = ()
    evidence: bool = True
    relation_names: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice(self.scorer, SCORERS, "scorer")
        for name in ("train_facts", "distant_facts"):
            value = getattr(self, name)
            paths = (value,) if isinstance(value, (str, os.PathLike)) else tuple(value or ())
            object.__setattr__(self, name, tuple(os.fspath(p) for p in paths))
        object.__setattr__(self, "evidence", bool(self.evidence))
        if self.relation_names is not None:
            object.__setattr__(self, "relation_names", check_nonempty(os.fspath(self.relation_names), "relation_names"))

    def signature_fields(self) -> dict[str, object]:
        return {**super().signature_fields(), "scorer": self.scorer, "evidence": "yes" if self.evidence else "no"}


@dataclass(frozen=True)
class Facts:
    """Train facts (annotated, distant) loaded once for a Config."""

    train: TrainFacts | None
    distant: TrainFacts | None

    @classmethod
    def of(cls, config: DocredConfig) -> Facts:
        """The train and distant facts of `config`, each file content parsed once: the same files, or files of the
        same content, given as both (as the CodaLab scorer's own setup does when no distant file exists, with a
        copy named `train_distant.fact`) are one set, its digest computed and its facts looked up once."""
        train, distant = load_train_fact_sets(config.train_facts, config.distant_facts)
        return cls(train, distant)


@dataclass(frozen=True)
class DocredCounts:
    """Per-unit statistics of one submission: rows are the gold documents in order, then the titles only the
    submission has; columns are TP|FP|FN per relation type (`labels`), then EXTRA. `scores` / `correct` are the
    deduplicated predictions' scores (NaN without) and correctness, for the precision-recall curve."""

    labels: tuple[str, ...]
    units: tuple[str, ...]
    stats: NDArray[np.float64]
    n_gold_documents: int
    duplicates: int
    scores: NDArray[np.float64]
    correct: NDArray[np.bool_]
    #: The deduplicated predictions' (document or unit, h, t, r), in the order of `scores`.
    keys: list[tuple[int, int, int, str]] = field(default_factory=list, compare=False, repr=False)
    #: The submission's file, and the warnings its relation ids gave (`check_relations`).
    path: str = field(default="", compare=False)
    notices: tuple[Notice, ...] = field(default=(), compare=False, repr=False)

    def widen(self, labels: Sequence[str], units: Sequence[str]) -> NDArray[np.float64]:
        """The statistics over other type and unit lists (a superset: absent ones get zeros)."""
        k, k2 = len(self.labels), len(labels)
        li = {x: i for i, x in enumerate(labels)}
        ui = {x: i for i, x in enumerate(units)}
        cols = np.array([li[x] for x in self.labels], dtype=np.intp)
        out = np.zeros((len(units), 3 * k2 + len(EXTRA)))
        rows = np.array([ui[u] for u in self.units], dtype=np.intp)
        for j in range(3):
            out[np.ix_(rows, j * k2 + cols)] = self.stats[:, j * k : (j + 1) * k]
        out[rows, 3 * k2 :] = self.stats[:, 3 * k :]
        return out


@dataclass(frozen=True)
class GoldIndex:
    """A gold file's distinct facts, for matching predictions by columns: `keys[i]` = (document, h, t, r) of fact i
    in file order (the first of equal keys), `position` its inverse; per fact its document (`unit`), relation,
    evidence (of the **last** of equal keys, as in the CodaLab scorer) and whether it is intra-sentence (some mention
    of h and some of t share a sentence: Re-DocRED's definition); per document the sum of its labels' evidence
    counts (repeated labels included, as the scorer counts them) and per entity a bit mask of its sentences."""

    keys: list[tuple[int, int, int, str]]
    position: dict[tuple[int, int, int, str], int]
    unit: NDArray[np.intp]
    relation: list[str]
    evidence: list[tuple[int, ...]]
    intra: NDArray[np.bool_]
    evidence_gold: NDArray[np.float64]
    entity_offset: NDArray[np.intp]
    sentence_mask: NDArray[Any]
    #: Per fact its evidence sentences as a bit mask (None when a sentence index is past 62: sets are used).
    evidence_mask: NDArray[np.int64] | None = None

    @classmethod
    def of(cls, gold: DocredGold) -> GoldIndex:
        docs = gold.documents
        all_keys = [(u, h, t, r) for u, d in enumerate(docs) for h, t, r, _ in d.labels]
        all_evidence = [ev or () for d in docs for *_, ev in d.labels]
        evidence = dict(zip(all_keys, all_evidence))  # the last of equal keys gives the evidence, the first its place
        keys = list(evidence)
        n_labels = np.fromiter(map(len, (d.labels for d in docs)), dtype=np.intp, count=len(docs))
        evi_gold = np.bincount(
            np.repeat(np.arange(len(docs)), n_labels), weights=list(map(len, all_evidence)), minlength=len(docs)
        ).astype(np.float64)
        entities = [s for d in docs for s in d.sentences]  # every entity's mention sentence ids
        n_entities = np.fromiter(map(len, (d.sentences for d in docs)), dtype=np.intp, count=len(docs))
        off = np.concatenate([[0], np.cumsum(n_entities)[:-1]]).astype(np.intp) if len(docs) else n_entities
        flat = np.fromiter(chain.from_iterable(entities), dtype=np.int64)
        lo = min(int(flat.min()), 0) if flat.size else 0  # a negative sentence id (unchecked) still gets its own bit
        mask: NDArray[Any]
        if flat.size and int(flat.max()) - lo < 62:
            mentions = np.fromiter(map(len, entities), dtype=np.intp, count=len(entities))
            starts = np.concatenate([[0], np.cumsum(mentions)[:-1]]).astype(np.intp)
            mask = np.bitwise_or.reduceat(np.left_shift(1, flat - lo), starts) if len(entities) else flat
        else:  # more than 62 sentences: Python integers as bit masks
            mask = np.array([sum(1 << (s - lo) for s in set(e)) for e in entities] or [0], dtype=object)
        unit = np.fromiter((key[0] for key in keys), dtype=np.intp, count=len(keys))
        intra = np.zeros(len(keys), dtype=bool)
        if keys:
            h = off[unit] + np.fromiter((key[1] for key in keys), dtype=np.intp, count=len(keys))
            t = off[unit] + np.fromiter((key[2] for key in keys), dtype=np.intp, count=len(keys))
            intra = np.asarray((mask[h] & mask[t]) != 0, dtype=bool)
        fact_evidence = list(evidence.values())
        ev_len = np.fromiter(map(len, fact_evidence), dtype=np.intp, count=len(keys))
        ev_flat = np.fromiter(chain.from_iterable(fact_evidence), dtype=np.int64, count=int(ev_len.sum()))
        ev_mask = None
        if not ev_flat.size or int(ev_flat.max()) <= 62:
            ev_mask = np.zeros(len(keys), dtype=np.int64)
            np.bitwise_or.at(ev_mask, np.repeat(np.arange(len(keys)), ev_len), np.left_shift(1, ev_flat))
        return cls(
            keys, {k: i for i, k in enumerate(keys)}, unit, [k[3] for k in keys], fact_evidence, intra,
            evi_gold, off, mask, ev_mask,
        )  # fmt: skip


def gold_index(gold: DocredGold) -> GoldIndex:
    """The GoldIndex of `gold`, built once per gold object (several submissions are scored against one)."""
    cached = gold.__dict__.get("_index")
    if cached is None:
        cached = GoldIndex.of(gold)
        object.__setattr__(gold, "_index", cached)
    return cached


def seen_in(
    gold: DocredGold, keys: Sequence[tuple[int, int, int, str]], facts: frozenset[tuple[str, str, str]]
) -> NDArray[np.bool_]:
    """Per (document, h, t, r) key (a gold fact or a prediction for a gold document): whether some (head mention
    name, tail mention name, r) of it is among `facts` — the CodaLab scorer's "in train" of a correct prediction,
    the leak check's "gold fact seen in train" and "prediction that copies a train fact".

    >>> from releval.data.docred import DocredDocument
    >>> g = DocredGold("g", (DocredDocument("D", 1, (("A", "Ay"), ("B",)), ((0, 0), (0,)), ()),), "d")
    >>> seen_in(g, [(0, 0, 1, "P1"), (0, 1, 0, "P1")], frozenset({("Ay", "B", "P1")})).tolist()
    [True, False]
    """
    out = np.zeros(len(keys), dtype=bool)
    if not facts:
        return out
    docs = gold.documents
    hit = facts.isdisjoint
    for j, (u, h, t, r) in enumerate(keys):
        names = docs[u].names
        out[j] = not hit(product(names[h], names[t], (r,)))
    return out


def _evidence_counts(
    index: GoldIndex, evidence: list[tuple[int, ...]], gi: NDArray[np.intp], known: NDArray[np.bool_]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per deduplicated prediction: its distinct evidence sentences (0 for a title absent from gold, which the
    scorer skips) and how many of them its gold fact's evidence holds (`gi` ≥ 0: a correct prediction) — the
    scorer's len(evi) and len(stdevi & evi). By columns: (prediction, sentence) pairs made unique, tested against
    the gold fact's sentences as a bit mask; with a sentence index past 62, by Python sets."""
    m = len(evidence)
    lengths = np.fromiter(map(len, evidence), dtype=np.intp, count=m)
    flat = np.fromiter(chain.from_iterable(evidence), dtype=np.int64, count=int(lengths.sum()))
    gold_mask = index.evidence_mask
    if (flat.size and int(flat.max()) > 62) or gold_mask is None:
        sets = [frozenset(e) for e in evidence]
        n_pred = np.fromiter(map(len, sets), dtype=np.float64, count=m) * known
        n_ok = np.zeros(m)
        okj = np.flatnonzero(gi >= 0)
        n_ok[okj] = [len(sets[j].intersection(index.evidence[g])) for j, g in zip(okj.tolist(), gi[okj].tolist())]
        return n_pred, n_ok
    owner = np.repeat(np.arange(m, dtype=np.int64), lengths)
    pairs = np.unique(owner * 64 + flat)  # a sentence repeated in one evidence list counts once (a set)
    owner, sentence = pairs // 64, pairs % 64
    n_pred = np.bincount(owner, minlength=m).astype(np.float64) * known
    g = gi[owner]
    held = (g >= 0) & (((gold_mask[np.where(g >= 0, g, 0)] >> sentence) & 1) == 1)
    return n_pred, np.bincount(owner, weights=held, minlength=m).astype(np.float64)


@functools.cache
def _bundled_names() -> dict[str, str]:
    """DocRED's relation names by id (the bundled rel_info.json), read once."""
    return load_relation_names("docred")


def relation_aliases() -> dict[str, str]:
    """DocRED's relation ids by their names (rel_info.json) in lower case: a submission written in the names (in
    any letter case) is refused with the ids to write.

    >>> relation_aliases()["country"], relation_aliases()["located in the administrative territorial entity"]
    ('P17', 'P131')
    """
    out: dict[str, str] = {}
    for rid, name in _bundled_names().items():
        out.setdefault(name.casefold(), rid)
    return out


def check_relations(gold: DocredGold, sub: Submission, index: GoldIndex | None = None) -> list[Notice]:
    """The relation ids of a submission beside gold's (releval.tasks.vocabulary): refused when they differ from
    gold's only in letter case (`p17`), carry white space or a glued number, are DocRED's relation names instead
    of ids (`country` for P17), class indices, or share nothing with gold — naming the file and the first
    prediction (its number and title) with the bad id; warned when some id is neither gold's nor DocRED's (a false
    positive each). DocRED's own ids that this gold lacks (a small split) are legitimate: no warning.

    >>> from releval.data.docred import DocredDocument, DocredPrediction
    >>> g = DocredGold("g", (DocredDocument("D", 1, (("A",), ("B",)), ((0,), (0,)), ((0, 1, "P17", ()),)),), "d")
    >>> try:
    ...     check_relations(g, Submission("p.json", (DocredPrediction("D", 0, 1, "country"),)))
    ... except InputError as error:
    ...     print(error.message.split(";")[0])
    1 predicted relation id(s) are names where gold has ids: 'country' (gold 'P17') (first at prediction 1, title 'D')
    """
    index = index or gold_index(gold)
    preds = sub.predictions
    gold_ids = frozenset(index.relation)
    pred_ids = {p.r for p in preds}
    if pred_ids <= gold_ids:
        return []

    def where(label: str) -> str | None:
        i = next((i for i, p in enumerate(preds) if p.r == label), None)
        return None if i is None else f"prediction {i + 1}, title {preds[i].title!r}"

    known = relation_aliases()
    aliases = {p: known[p.casefold()] for p in pred_ids - gold_ids if p.casefold() in known}
    vocabulary = Vocabulary(
        "relation id",
        gold_ids,
        sorted(pred_ids),
        sub.path,
        aliases=aliases,
        where=where,
        allowed=frozenset(_bundled_names()) - gold_ids,
    )
    try:
        return check_vocabulary(vocabulary)
    except InputError as error:
        if "are names where gold has ids" not in error.message:
            raise
        raise InputError(
            f"{error.message} (P17 for 'country': the ids of DocRED's rel_info.json; --relation-names only shows "
            "names beside the ids in tables, it does not read names in predictions)",
            file=error.file,
            field=error.field,
        ) from None


def count(gold: DocredGold, sub: Submission, facts: Facts, config: DocredConfig) -> DocredCounts:
    """The per-unit statistics of a submission, with the CodaLab scorer's deduplication (the first of equal
    (title, h, t, r) keeps its evidence), computed over columns: predictions are matched to the gold facts by key,
    and "in train" is looked up once per matched gold fact. Relation ids that cannot match gold are refused first
    (`check_relations`); its warnings are kept in the counts."""
    index = gold_index(gold)
    notices = check_relations(gold, sub, index)
    n_docs = len(gold.documents)
    unit_of = {d.title: i for i, d in enumerate(gold.documents)}
    units = [d.title for d in gold.documents]
    preds = sub.predictions
    titles = [p.title for p in preds]
    for title in dict.fromkeys(titles):  # titles absent from gold: units of their own, in order of appearance
        if title not in unit_of:
            unit_of[title] = len(units)
            units.append(title)
    pu_all = list(map(unit_of.__getitem__, titles))
    h_all, t_all, r_all = [p.h for p in preds], [p.t for p in preds], [p.r for p in preds]
    keys = list(zip(pu_all, h_all, t_all, r_all))
    n = len(keys)
    first = dict(zip(reversed(keys), range(n - 1, -1, -1)))  # each key's first occurrence: it keeps its evidence
    kept = np.sort(np.fromiter(first.values(), dtype=np.intp, count=len(first)))
    duplicates = n - len(kept)
    labels = sorted(set(index.relation) | set(r_all))
    li = {x: i for i, x in enumerate(labels)}
    k = len(labels)
    m = len(kept)
    kept_list = kept.tolist()
    pu = np.array(pu_all, dtype=np.intp)[kept] if n else np.zeros(0, dtype=np.intp)
    pc = np.fromiter(map(li.__getitem__, r_all), dtype=np.intp, count=n)[kept]
    gi = np.fromiter(map(index.position.get, [keys[i] for i in kept_list], repeat(-1)), dtype=np.intp, count=m)
    ok = gi >= 0
    known = pu < n_docs
    intra = np.zeros(m, dtype=bool)
    if known.any():
        off = index.entity_offset[pu[known]]
        rows = kept[known].tolist()  # entity indices of gold documents only (any integer >= 0 for other titles)
        h = off + np.array([h_all[i] for i in rows], dtype=np.intp)
        t = off + np.array([t_all[i] for i in rows], dtype=np.intp)
        intra[known] = (index.sentence_mask[h] & index.sentence_mask[t]) != 0
    evi_pred = np.zeros(m)
    evi_ok = np.zeros(m)
    if config.evidence:
        # a prediction for a title absent from gold counts no evidence (the scorer skips it): its list is not read
        evs = [preds[i].evidence or () if u < n_docs else () for i, u in zip(kept_list, pu.tolist())]
        evi_pred, evi_ok = _evidence_counts(index, evs, gi, known)
    hit = np.zeros(len(index.keys), dtype=bool)
    hit[gi[ok]] = True
    matched = np.flatnonzero(hit)
    in_train = np.zeros(m)
    in_distant = np.zeros(m)
    for flags, fs in ((in_train, facts.train), (in_distant, facts.distant)):
        if fs is not None and fs.facts and matched.size:
            if fs is facts.train and flags is in_distant:  # the same set as both: looked up once
                flags[:] = in_train
                continue
            seen = np.zeros(len(index.keys), dtype=bool)
            seen[matched] = seen_in(gold, [index.keys[i] for i in matched.tolist()], fs.facts)
            flags[ok] = seen[gi[ok]]
    n_units = len(units)
    width = 3 * k + len(EXTRA)
    x0 = 3 * k
    okf = ok.astype(np.float64)
    intra_f = (intra & known).astype(np.float64)
    inter_f = (~intra & known).astype(np.float64)
    cells = pu * width + pc + np.where(ok, 0, k)  # TP or FP
    stats = np.bincount(cells, minlength=n_units * width).astype(np.float64).reshape(n_units, width)

    def add(name: str, values: NDArray[np.float64] | None = None) -> None:
        stats[:, x0 + _X[name]] += np.bincount(pu, weights=values, minlength=n_units)

    if m:
        add("predictions")
        add("correct", okf)
        add("correct_in_train", in_train)
        add("correct_in_distant", in_distant)
        add("evidence_correct", evi_ok)
        add("evidence_predicted", evi_pred)
        add("pred_intra", intra_f)
        add("correct_intra", intra_f * okf)
        add("pred_inter", inter_f)
        add("correct_inter", inter_f * okf)
    n_gold = len(index.keys)
    if n_gold:
        gu = index.unit
        gc = np.fromiter(map(li.__getitem__, index.relation), dtype=np.intp, count=n_gold)
        unmatched = np.ones(n_gold, dtype=bool)
        unmatched[matched] = False
        fn = gu[unmatched] * width + 2 * k + gc[unmatched]
        stats += np.bincount(fn, minlength=n_units * width).reshape(n_units, width)
        stats[:, x0 + _X["gold"]] += np.bincount(gu, minlength=n_units)
        stats[:, x0 + _X["gold_intra"]] += np.bincount(gu, weights=index.intra.astype(np.float64), minlength=n_units)
        stats[:, x0 + _X["gold_inter"]] += np.bincount(gu, weights=(~index.intra).astype(np.float64), minlength=n_units)
    stats[:n_docs, x0 + _X["evidence_gold"]] = index.evidence_gold
    scores = np.array([np.nan if preds[i].score is None else preds[i].score for i in kept_list], dtype=np.float64)
    return DocredCounts(
        tuple(labels), tuple(units), stats, n_docs, duplicates, scores, ok, [keys[i] for i in kept_list], sub.path,
        tuple(notices),
    )  # fmt: skip


def _div(num: NDArray, den: NDArray) -> NDArray[np.float64]:
    """num / den where den > 0, else 0 (the defined value where the references crash)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, 1.0 * num / np.where(den > 0, den, 1.0), 0.0)


def _f(p: NDArray, r: NDArray) -> NDArray[np.float64]:
    """2.0 * p * r / (p + r), 0 when p + r == 0: the scorers' expression, so the values agree bit for bit."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p + r == 0, 0.0, 2.0 * p * r / np.where(p + r == 0, 1.0, p + r))


def official(tot: NDArray[np.float64], k: int, scorer: str) -> dict[str, NDArray[np.float64]]:
    """P, R, F1, Ign P/F1, Ign-distant P/F1, Evi P/R/F1 of summed statistics (..., 3K + len(EXTRA)), the
    reference scorer's way (see the module's docstring), vectorised over leading axes."""
    x = {name: tot[..., 3 * k + i] for i, name in enumerate(EXTRA)}
    n, c = x["predictions"], x["correct"]
    p = _div(c, n)
    r = _div(c, x["gold"])
    out = {"precision": p, "recall": r, "f1": _f(p, r)}
    eps = 0.0 if scorer == "codalab" else 1e-5
    for name, seen in (("ign", x["correct_in_train"]), ("ign_distant", x["correct_in_distant"])):
        den = n - seen
        if eps:
            with np.errstate(divide="ignore", invalid="ignore"):
                ip = np.where(n > 0, 1.0 * (c - seen) / (den + eps), 0.0)
        else:
            ip = _div(c - seen, den)
        out[f"{name}_precision"], out[f"{name}_f1"] = ip, _f(ip, r)
    ep = _div(x["evidence_correct"], x["evidence_predicted"])
    er = _div(x["evidence_correct"], x["evidence_gold"] + (1.0 if scorer == "redocred" else 0.0))
    out.update({"evi_precision": ep, "evi_recall": er, "evi_f1": _f(ep, er)})
    return out


def subsets(tot: NDArray[np.float64], labels: Sequence[str]) -> dict[str, NDArray[np.float64]]:
    """Re-DocRED's frequent-10 / long-tail and intra- / inter-sentence P, R and F1 (0 where undefined)."""
    k = len(labels)
    freq = np.array([x in FREQUENT_10 for x in labels], dtype=np.float64)
    tp, fp, fn = tot[..., :k], tot[..., k : 2 * k], tot[..., 2 * k : 3 * k]
    x = {name: tot[..., 3 * k + i] for i, name in enumerate(EXTRA)}
    parts = {
        "frequent": (tp @ freq, (tp + fp) @ freq, (tp + fn) @ freq),
        "long_tail": (tp @ (1 - freq), (tp + fp) @ (1 - freq), (tp + fn) @ (1 - freq)),
        "intra": (x["correct_intra"], x["pred_intra"], x["gold_intra"]),
        "inter": (x["correct_inter"], x["pred_inter"], x["gold_inter"]),
    }
    out = {}
    for name, (c, n, g) in parts.items():
        p, r = _div(c, n), _div(c, g)
        out[f"{name}_precision"], out[f"{name}_recall"], out[f"{name}_f1"] = p, r, _f(p, r)
    return out


def averaging_spec(config: DocredConfig, k: int) -> AveragingSpec:
    """Every relation type is positive (DocRED's NA is no prediction); weights over the types with gold support."""
    return AveragingSpec(np.ones(k, dtype=bool), config.weightings, config.beta, config.zero_division, "all", "gold")


def measures_of(
    tot: NDArray[np.float64],
    labels: Sequence[str],
    config: DocredConfig,
    distant: bool,
    spec: AveragingSpec | None = None,
) -> dict[str, NDArray[np.float64]]:
    """Every measure a comparison resamples, vectorised: f1, ign_f1, [ign_distant_f1], evi_f1 (if evidence),
    the class weightings over the relation types, and the frequent / long-tail / intra / inter F1."""
    k = len(labels)
    off = official(tot, k, config.scorer)
    out = {"f1": off["f1"], "ign_f1": off["ign_f1"]}
    if distant:
        out["ign_distant_f1"] = off["ign_distant_f1"]
    if config.evidence:
        out["evi_f1"] = off["evi_f1"]
    if k:
        weighted = f_averages(counts_of(tot[..., : 3 * k], k), spec or averaging_spec(config, k))
    else:
        weighted = {w.name: np.zeros(tot.shape[:-1]) for w in config.weightings}
    out.update({w.name: weighted[w.name] for w in config.weightings})
    sub = subsets(tot, labels)
    out.update({f"{n}_f1": sub[f"{n}_f1"] for n in ("frequent", "long_tail", "intra", "inter")})
    return out


def measure_names(config: DocredConfig, distant: bool) -> tuple[str, ...]:
    """The names `measures_of` returns, in order."""
    head = ["f1", "ign_f1", *(["ign_distant_f1"] if distant else []), *(["evi_f1"] if config.evidence else [])]
    tail = ["frequent_f1", "long_tail_f1", "intra_f1", "inter_f1"]
    return (*head, *(w.name for w in config.weightings), *tail)


@dataclass(frozen=True)
class PRCurve:
    """Precision and recall at every distinct score threshold (predictions sorted by score, ties together), the
    area under it (trapezoids over recall, as DocRED's training code computes it with sklearn.metrics.auc), and
    the best F1 with its threshold."""

    precision: list[float]
    recall: list[float]
    thresholds: list[float]
    auc: float
    best_f1: float
    best_threshold: float


def pr_curve(counts: DocredCounts, n_gold: float) -> PRCurve | None:
    """The curve of the deduplicated predictions' scores; None when a prediction has no score."""
    s = counts.scores
    if s.shape[0] == 0 or np.isnan(s).any() or n_gold == 0:
        return None
    order = np.argsort(-s, kind="stable")
    cum = np.cumsum(counts.correct[order])
    ss = s[order]
    last = np.flatnonzero(np.append(ss[1:] != ss[:-1], True))  # the last prediction of each distinct score
    tp = cum[last].astype(np.float64)
    p = tp / (last + 1)
    r = tp / n_gold
    f = _f(p, r)
    rr, pp = np.concatenate([[0.0], r]), np.concatenate([[p[0]], p])
    auc = float(np.sum(np.diff(rr) * (pp[1:] + pp[:-1]) / 2))
    best = int(np.argmax(f))
    return PRCurve(p.tolist(), r.tolist(), ss[last].tolist(), auc, float(f[best]), float(ss[last][best]))


#: Notes for the values releval defines where a reference scorer crashes or differs.
CRASH_NOTES = {
    "empty": "empty submission: every score is 0 (the CodaLab script and ATLOP raise IndexError; Re-DocRED gives 0)",
    "ign_zero": "every prediction is a correct fact seen in train: Ign P is 0/0, given as 0 (the CodaLab script "
    "raises ZeroDivisionError; ATLOP and Re-DocRED give 0 through their 1e-5)",
    "no_gold_evidence": "gold has no evidence sentence: Evi R is 0/0, given as 0 (the CodaLab script and ATLOP "
    "raise ZeroDivisionError)",
    "no_gold": "gold has no fact: R is 0/0, given as 0 (every reference raises ZeroDivisionError)",
    "unknown_titles": "{n} prediction(s) for {t} title(s) absent from gold: false positives, as in every reference "
    "(Re-DocRED's benchmark function raises KeyError on them); each such title is a unit of its own when resampling",
}


@dataclass(frozen=True)
class DocredResult:
    """Scores of one system: the official numbers, per-relation rows with every weighting (`per_relation`),
    Re-DocRED's subsets, and a precision-recall curve when every prediction has a score.

    `from_dict` reads back what `to_dict` wrote. The per-document statistics are not written, so a result read back
    has `counts` None: it renders and round-trips, and `measures` (which recomputes from them) refuses it.
    """

    system: str
    official: dict[str, float]
    subsets: dict[str, float]
    per_relation: ScoreResult
    counts: DocredCounts | None = field(compare=False, repr=False)
    curve: PRCurve | None
    signature: Signature
    notes: list[str] = field(default_factory=list)
    warnings: list[Notice] = field(default_factory=list)
    #: Relation names by id (`DocredConfig.relation_names`), shown beside the ids; empty: ids only.
    relation_names: dict[str, str] = field(default_factory=dict)
    #: The number of gold documents of a result read back (`counts` None); else counts.n_gold_documents.
    documents_read: int = field(default=0, compare=False, repr=False)

    task: ClassVar[str] = "docred"

    @property
    def n_documents(self) -> int:
        return self.documents_read if self.counts is None else self.counts.n_gold_documents

    def scored_counts(self) -> DocredCounts:
        """The per-document statistics (ValueError for a result read back from JSON, which has none)."""
        if self.counts is None:
            raise ValueError(
                f"{self.system}: a DocRED result read back from JSON keeps no per-document counts; score the files "
                "again to recompute or compare it"
            )
        return self.counts

    def measures(self, config: DocredConfig, distant: bool) -> dict[str, float]:
        counts = self.scored_counts()
        tot = counts.stats.sum(axis=0)
        return {name: float(v) for name, v in measures_of(tot, counts.labels, config, distant).items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            **header("docred-score"),
            "task": "docred",
            "system": self.system,
            "documents": self.n_documents,
            "official": self.official,
            "subsets": self.subsets,
            "per_relation": self.per_relation.to_dict(),
            "pr_curve": None if self.curve is None else dict(self.curve.__dict__),
            "signature": self.signature.format(),
            "notes": list(self.notes),
            "warnings": [w.to_dict() for w in self.warnings],
            **({"relation_names": self.names_of(self._labels())} if self.relation_names else {}),
        }

    def _labels(self) -> Sequence[str]:
        return tuple(self.relation_names) if self.counts is None else self.counts.labels

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocredResult:
        """The result `to_dict()` wrote (ValueError naming the key when it is not one), without its counts."""
        check_schema(data, "DocRED result", "docred-score")
        with reading("DocRED result"):
            curve = data["pr_curve"]
            return cls(
                str(data["system"]),
                {str(k): float(v) for k, v in data["official"].items()},
                {str(k): float(v) for k, v in data["subsets"].items()},
                ScoreResult.from_dict(data["per_relation"]),
                None,
                None if curve is None else PRCurve(**curve),
                parse(data["signature"]),
                [str(n) for n in data.get("notes", [])],
                [Notice.from_dict(w) for w in data.get("warnings", [])],
                {str(k): str(v) for k, v in data.get("relation_names", {}).items()},
                int(data["documents"]),
            )

    def names_of(self, labels: Sequence[str]) -> dict[str, str]:
        """{id: name} of the `labels` that have a name."""
        return {x: self.relation_names[x] for x in labels if x in self.relation_names}

    def display_label(self, label: str) -> str:
        """'P131 located in the administrative territorial entity', or the id alone when it has no name."""
        name = self.relation_names.get(label)
        return f"{label} {name}" if name else label

    def to_tables(self) -> list[Table]:
        return DocredResult.tables_of([self])

    @classmethod
    def tables_of(cls, results: Sequence[DocredResult], per_class: bool | None = None) -> list[Table]:
        """The official numbers of every system (one row each), Re-DocRED's subsets, the curve's summary, then
        (one system, or `per_class`) the per-relation rows with every weighting."""
        if not results:
            return []
        first = results[0]
        keys = [k for k in OFFICIAL_COLUMNS if k in first.official]
        rows = [(r.system, *(r.official[k] for k in keys)) for r in results]
        sigs = {r.system: r.signature.format(short=True) for r in results}
        signature = (
            [("", next(iter(sigs.values())))] if len(set(sigs.values())) == 1 else [(s, v) for s, v in sigs.items()]
        )
        notes = list(dict.fromkeys(n for r in results for n in r.notes))
        warnings = [f"{r.system}: {w}" for r in results for w in r.warnings]
        out = [
            Table(
                f"DocRED official scores (scorer: {first.signature.get('scorer')})",
                [Column("system", align="left"), *(Column(OFFICIAL_COLUMNS[k], "percent", key=k) for k in keys)],
                rows,
                notes=notes,
                warnings=warnings,
                signature=tuple(signature),
            )
        ]
        sub_keys = list(first.subsets)
        out.append(
            Table(
                "Re-DocRED subsets: frequent-10 vs long-tail types, intra- vs inter-sentence pairs",
                [Column("system", align="left"), *(Column(_short(k), "percent", key=k) for k in sub_keys)],
                [(r.system, *(r.subsets[k] for k in sub_keys)) for r in results],
                notes=[
                    f"frequent-10: {', '.join(FREQUENT_10)} (Re-DocRED's official_evaluate_benchmark); long-tail: "
                    "every other type",
                    "intra: some mention of the head and some mention of the tail share a sentence; inter: none do",
                ],
            )
        )
        curves = [r for r in results if r.curve is not None]
        if curves:
            out.append(
                Table(
                    "Precision-recall curve of the scores (threshold-free)",
                    [
                        Column("system", align="left"),
                        Column("AUC", "percent", key="auc"),
                        Column("best F1", "percent", key="best_f1"),
                        Column("at score ≥", "number", key="best_threshold", spec=".4g"),
                    ],
                    [(r.system, r.curve.auc, r.curve.best_f1, r.curve.best_threshold) for r in curves if r.curve],
                    warnings=[THRESHOLD_WARNING],
                )
            )
        if per_class is None:
            per_class = len(results) == 1
        for r in results if per_class else []:
            tables = score_tables(
                [r.per_relation],
                title=f"{r.system}: per relation type (micro = the official F1)",
                support_header="gold",
                accuracy=False,
            )
            out += [_named(t, r) for t in tables] if r.relation_names else tables
        return out


def _named(table: Table, result: DocredResult) -> Table:
    """A per-relation table with the relation names: the display table shows 'P131 located in …' in its label
    column; a data table (CSV) gets a `name` column after `label` (empty for averages and unnamed ids)."""
    at = next(i for i, c in enumerate(table.columns) if c.name == "label")
    if table.show == "display":
        columns = list(table.columns)
        columns[at] = replace(columns[at], display=result.display_label)
        return replace(table, columns=columns)
    kind = next(i for i, c in enumerate(table.columns) if c.name == "kind")
    columns = [*table.columns[: at + 1], Column("name"), *table.columns[at + 1 :]]
    rows = [
        (*row[: at + 1], result.relation_names.get(row[at], "") if row[kind] == "class" else "", *row[at + 1 :])
        for row in table.rows
    ]
    return replace(table, columns=columns, rows=rows)


def _short(key: str) -> str:
    """A subset column's header: frequent_precision → freq P, long_tail_f1 → tail F1."""
    name, _, what = key.rpartition("_")
    head = {"frequent": "freq", "long_tail": "tail", "intra": "intra", "inter": "inter"}[name]
    return f"{head} {dict(precision='P', recall='R', f1='F1')[what]}"


#: The official numbers' columns, in order, with their headers.
OFFICIAL_COLUMNS = {
    "precision": "P",
    "recall": "R",
    "f1": "F1",
    "ign_precision": "Ign P",
    "ign_f1": "Ign F1",
    "ign_distant_precision": "Ign-distant P",
    "ign_distant_f1": "Ign-distant F1",
    "evi_precision": "Evi P",
    "evi_recall": "Evi R",
    "evi_f1": "Evi F1",
}


def signature(
    config: DocredConfig,
    gold: DocredGold,
    counts: DocredCounts,
    facts: Facts,
    extra: dict[str, object] | None = None,
) -> Signature:
    """The Config's settings, the train facts' digests and the gold's facts (digest, types with gold support, n)."""
    k = len(counts.labels)
    support = counts.stats[:, :k].sum(0) + counts.stats[:, 2 * k : 3 * k].sum(0)
    gold_types = [x for x, s in zip(counts.labels, support) if s]
    return build_signature(
        {
            **config.signature_fields(),
            "train": facts.train.digest if facts.train else "none",
            "distant": facts.distant.digest if facts.distant else "none",
            "weighted_classes": "support>0",
            "labels": short_hash(gold_types),
            "gold": gold.digest,
            "n": len(gold.documents),
            **(extra or {}),
        }
    )


def result_of(
    system: str, gold: DocredGold, counts: DocredCounts, facts: Facts, config: DocredConfig, notes: list[str]
) -> DocredResult:
    """The DocredResult of a submission's counts."""
    k = len(counts.labels)
    tot = counts.stats.sum(axis=0)
    off = {name: float(v) for name, v in official(tot, k, config.scorer).items()}
    if facts.distant is None:
        del off["ign_distant_precision"], off["ign_distant_f1"]
    if not config.evidence:
        for name in ("evi_precision", "evi_recall", "evi_f1"):
            del off[name]
    sub = {name: float(v) for name, v in subsets(tot, counts.labels).items()}
    x = {name: tot[3 * k + i] for i, name in enumerate(EXTRA)}
    notes = list(notes)
    warnings: list[Notice] = []
    if x["predictions"] == 0:
        notes.append(CRASH_NOTES["empty"])
    elif x["predictions"] == x["correct_in_train"] and config.scorer == "codalab":
        notes.append(CRASH_NOTES["ign_zero"])
    if x["gold"] == 0:
        notes.append(CRASH_NOTES["no_gold"])
    if config.evidence and x["evidence_gold"] == 0 and config.scorer != "redocred":
        notes.append(CRASH_NOTES["no_gold_evidence"])
    unknown = counts.units[counts.n_gold_documents :]
    if unknown:
        n_unknown = int(counts.stats[counts.n_gold_documents :, 3 * k + _X["predictions"]].sum())
        warnings.append(Notice(CRASH_NOTES["unknown_titles"].format(n=n_unknown, t=len(unknown))))
    if counts.duplicates:
        warnings.append(
            Notice(
                f"{counts.duplicates} repeated (title, h_idx, t_idx, r) prediction(s) dropped: the first keeps its "
                "evidence (as the CodaLab scorer)",
                "duplicates-dropped",
            )
        )
    warnings.extend(counts.notices)
    warnings.extend(_identical(gold, counts, x, config))
    warnings.extend(swapped_names(gold.path, counts.path))
    if facts.train is None:
        notes.append("no train facts given (--train-facts): Ign F1 equals F1; give the training set's facts")
    if config.scorer == "redocred":
        notes.append("scorer redocred: the gold evidence count starts at 1 (Evi R slightly low), Ign P adds 1e-5")
    elif config.scorer == "atlop":
        notes.append("scorer atlop: Ign P's denominator has 1e-5 added")
    sig = signature(config, gold, counts, facts)
    spec = averaging_spec(config, k)
    counts_ = counts_of(tot[: 3 * k], k)
    per_class, averages = all_averages(counts_, spec)
    rows = [
        ClassRow(
            label,
            int(counts_.tp[i]),
            int(counts_.fp[i]),
            int(counts_.fn[i]),
            int(counts_.tp[i] + counts_.fn[i]),
            float(per_class.precision[i]),  # type: ignore[index]
            float(per_class.recall[i]),  # type: ignore[index]
            float(per_class.f[i]),  # type: ignore[index]
            True,
        )
        for i, label in enumerate(counts.labels)
    ]
    avgs = {"micro": Average("micro", off["precision"], off["recall"], off["f1"])}  # the official, bit for bit
    avgs.update({name: Average(name, float(a.precision), float(a.recall), float(a.f)) for name, a in averages.items()
                 if name != "micro"})  # fmt: skip
    per_relation = ScoreResult(system, rows, avgs, float("nan"), int(x["gold"]), None, sig, notes, warnings)
    curve = pr_curve(counts, float(x["gold"]))
    if curve is not None:
        warnings.append(Notice(THRESHOLD_WARNING))
    names = load_relation_names(config.relation_names) if config.relation_names else {}
    return DocredResult(system, off, sub, per_relation, counts, curve, sig, notes, warnings, names)


def _identical(gold: DocredGold, counts: DocredCounts, x: dict[str, Any], config: DocredConfig) -> list[Notice]:
    """The warning for a submission that reproduces gold: every gold fact predicted, nothing else (no title gold
    lacks), and — evidence scored — exactly each fact's evidence sentences."""
    if not x["gold"] or counts.units[counts.n_gold_documents :]:
        return []
    if not x["predictions"] == x["correct"] == x["gold"]:
        return []
    if config.evidence:
        evidence = sum(len(set(e)) for e in gold_index(gold).evidence)
        if not x["evidence_predicted"] == x["evidence_correct"] == evidence:
            return []
    return identical_notice(counts.path or "the predictions", counts.n_gold_documents, "documents")


def _system_name(path: str) -> str:
    if path.startswith("<") or path == "-":
        return "system"
    name = Path(path).name
    for suffix in (".gz", ".json"):
        name = name.removesuffix(suffix)
    return name


def score_files(gold: Any, systems: Sequence[tuple[str | None, Any]], config: DocredConfig) -> list[DocredResult]:
    """Score several CodaLab submissions against one DocRED gold file under `config`: one DocredResult each."""
    g = gold if isinstance(gold, DocredGold) else load_gold(gold, evidence=config.evidence)
    facts = Facts.of(config)
    out = []
    for name, path in systems:
        sub = path if isinstance(path, Submission) else load_submission(path, g)
        counts = count(g, sub, facts, config)
        out.append(result_of(name or _system_name(sub.path), g, counts, facts, config, []))
    return out


def per_relation_rows(results: Sequence[DocredResult]) -> tuple[list[ScoreResult], dict[str, str] | None]:
    """`plot per-class` of DocRED: each result's per-relation rows (its official F1 is their micro average), with
    the relation names of --relation-names (those of the first result).

    >>> per_relation_rows([])
    ([], None)
    """
    names = results[0].relation_names if results else None
    return [r.per_relation for r in results], names


TASK = Task(
    name="docred",
    help="document-level RE (DocRED, Re-DocRED): official F1, Ign F1, Evi F1, per-relation weightings",
    config=DocredConfig,
    unit="document",
    score_files=score_files,
    inputs=frozenset({"docred-files"}),
    per_class=per_relation_rows,
    measures=("f1", "ign_f1", "evi_f1", "macro", "frequent_f1", "long_tail_f1"),
    example=BoardExample(
        slug="redocred-dev",
        folder="docred",
        gold="redocred_dev_revised.json.gz",
        title="Re-DocRED dev split, 500 documents (document-level RE)",
        description="Tan et al. (2022): F1, Ign F1 (no train facts given here: equal to F1), Evi F1 as the CodaLab "
        "scorer, with per-relation weightings, frequent/long-tail and intra/inter-sentence F1.",
        position=2,
    ),
)
