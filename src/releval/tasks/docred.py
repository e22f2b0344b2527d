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

Beyond them: per-relation P/R/F feeding every class weighting (Harbecke et al. 2022), the frequent-10 / long-tail
and intra- / inter-sentence F1 of Re-DocRED (Tan et al. 2022), and a precision-recall curve when predictions carry
a `score`.

>>> DocredConfig(scorer="atlop", weightings=("macro",)).signature_fields()["scorer"]
'atlop'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from releval.core.notices import Notice
from releval.core.options import DOCRED_SCORERS
from releval.core.schema import header
from releval.core.signature import Signature, short_hash
from releval.core.table import Column, Table
from releval.core.validation import check_choice
from releval.data.docred import (
    DocredGold,
    Submission,
    TrainFacts,
    load_gold,
    load_submission,
    load_train_facts,
)
from releval.metrics.averages import AveragingSpec, all_averages, f_averages
from releval.metrics.cells import counts_of
from releval.result import Average, ClassRow, ScoreResult, score_tables
from releval.tasks.base import ScoringConfig, Task, build_signature

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
    same for Ign-distant F1 (not reported without them); `evidence`: score evidence (gold labels need `evidence`).
    Class weightings run over the relation types with gold support.
    """

    task: ClassVar[str] = "docred"

    scorer: str = "codalab"
    train_facts: tuple[str, ...] = ()
    distant_facts: tuple[str, ...] = ()
    evidence: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice(self.scorer, SCORERS, "scorer")
        for name in ("train_facts", "distant_facts"):
            value = getattr(self, name)
            paths = (value,) if isinstance(value, (str, os.PathLike)) else tuple(value or ())
            object.__setattr__(self, name, tuple(os.fspath(p) for p in paths))
        object.__setattr__(self, "evidence", bool(self.evidence))

    def signature_fields(self) -> dict[str, object]:
        return {**super().signature_fields(), "scorer": self.scorer, "evidence": "yes" if self.evidence else "no"}


@dataclass(frozen=True)
class Facts:
    """Train facts (annotated, distant) loaded once for a Config."""

    train: TrainFacts | None
    distant: TrainFacts | None

    @classmethod
    def of(cls, config: DocredConfig) -> Facts:
        return cls(
            load_train_facts(config.train_facts) if config.train_facts else None,
            load_train_facts(config.distant_facts) if config.distant_facts else None,
        )


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


def _intra(doc_sents: tuple[tuple[int, ...], ...], h: int, t: int) -> bool:
    """Re-DocRED's intra-sentence pair: some mention of h and some mention of t share a sentence."""
    return not set(doc_sents[h]).isdisjoint(doc_sents[t])


def count(gold: DocredGold, sub: Submission, facts: Facts, config: DocredConfig) -> DocredCounts:
    """The per-unit statistics of a submission, with the CodaLab scorer's deduplication."""
    docs = gold.by_title()
    unit_of = {d.title: i for i, d in enumerate(gold.documents)}
    units = [d.title for d in gold.documents]
    kept: dict[tuple[str, int, int, str], Any] = {}
    for p in sub.predictions:  # a stable sort keeps the first of equal keys: so does the first seen
        kept.setdefault((p.title, p.h, p.t, p.r), p)
    duplicates = len(sub.predictions) - len(kept)
    std: dict[tuple[str, str, int, int], frozenset[int]] = {}
    gold_rows: list[tuple[int, str, int, int]] = []  # unit, r, h, t of each distinct gold fact
    evi_gold_per_unit = np.zeros(len(units))
    for gu, gdoc in enumerate(gold.documents):
        for h, t, r, ev in gdoc.labels:
            key = (gdoc.title, r, h, t)
            evi_gold_per_unit[gu] += len(ev or ())
            if key not in std:
                gold_rows.append((gu, r, h, t))
            std[key] = frozenset(ev or ())  # the last of equal gold keys gives the evidence, as in the scorer
    labels = sorted({r for (_, r, _, _) in std} | {k[3] for k in kept})
    li = {x: i for i, x in enumerate(labels)}
    k = len(labels)
    train = facts.train.facts if facts.train else frozenset()
    distant = facts.distant.facts if facts.distant else frozenset()
    pred_rows = []  # unit, type, correct, in_train, in_distant, evi_correct, evi_pred, intra, inter
    scores, correct_flags = [], []
    matched: set[tuple[str, str, int, int]] = set()
    for (title, h, t, r), p in kept.items():
        doc = docs.get(title)
        if doc is None:
            if title not in unit_of:
                unit_of[title] = len(units)
                units.append(title)
            pred_rows.append((unit_of[title], li[r], 0, 0, 0, 0, 0, 0, 0))
            scores.append(np.nan if p.score is None else p.score)
            correct_flags.append(False)
            continue
        evi = set(p.evidence or ()) if config.evidence else set()
        key = (title, r, h, t)
        intra = _intra(doc.sentences, h, t)
        ok = key in std
        in_train = in_distant = ec = 0
        if ok:
            matched.add(key)
            ec = len(std[key] & evi)
            pairs = [(n1, n2, r) for n1 in doc.names[h] for n2 in doc.names[t]]
            in_train = int(not train.isdisjoint(pairs))
            in_distant = int(bool(distant) and not distant.isdisjoint(pairs))
        pred_rows.append(
            (unit_of[title], li[r], int(ok), in_train, in_distant, ec, len(evi), int(intra), int(not intra))
        )
        scores.append(np.nan if p.score is None else p.score)
        correct_flags.append(ok)
    stats = np.zeros((len(units), 3 * k + len(EXTRA)))
    x0 = 3 * k
    if pred_rows:
        pr = np.array(pred_rows, dtype=np.int64)
        pu, c, ok_ = pr[:, 0], pr[:, 1], pr[:, 2]
        n_units, width = stats.shape
        flat = stats.reshape(-1)
        np.add.at(flat, pu * width + c, ok_)  # TP
        np.add.at(flat, pu * width + k + c, 1 - ok_)  # FP

        def add(name: str, values: NDArray[np.int64] | None = None) -> None:
            stats[:, x0 + _X[name]] += np.bincount(pu, weights=values, minlength=n_units)

        add("predictions")
        for j, name in enumerate(("correct", "correct_in_train", "correct_in_distant", "evidence_correct")):
            add(name, pr[:, 2 + j])
        add("evidence_predicted", pr[:, 6])
        add("pred_intra", pr[:, 7])
        add("correct_intra", pr[:, 7] * ok_)
        add("pred_inter", pr[:, 8])
        add("correct_inter", pr[:, 8] * ok_)
    for u_, r, h, t in gold_rows:
        title = gold.documents[u_].title
        intra = _intra(gold.documents[u_].sentences, h, t)
        stats[u_, x0 + _X["gold"]] += 1
        stats[u_, x0 + (_X["gold_intra"] if intra else _X["gold_inter"])] += 1
        if (title, r, h, t) not in matched:
            stats[u_, 2 * k + li[r]] += 1  # FN
    stats[: len(gold.documents), x0 + _X["evidence_gold"]] = evi_gold_per_unit
    return DocredCounts(
        tuple(labels),
        tuple(units),
        stats,
        len(gold.documents),
        duplicates,
        np.array(scores, dtype=np.float64),
        np.array(correct_flags, dtype=bool),
    )


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
    Re-DocRED's subsets, and a precision-recall curve when every prediction has a score."""

    system: str
    official: dict[str, float]
    subsets: dict[str, float]
    per_relation: ScoreResult
    counts: DocredCounts = field(compare=False, repr=False)
    curve: PRCurve | None
    signature: Signature
    notes: list[str] = field(default_factory=list)
    warnings: list[Notice] = field(default_factory=list)

    task: ClassVar[str] = "docred"

    @property
    def n_documents(self) -> int:
        return self.counts.n_gold_documents

    def measures(self, config: DocredConfig, distant: bool) -> dict[str, float]:
        tot = self.counts.stats.sum(axis=0)
        return {name: float(v) for name, v in measures_of(tot, self.counts.labels, config, distant).items()}

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
        }

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
            out += score_tables(
                [r.per_relation],
                title=f"{r.system}: per relation type (micro = the official F1)",
                support_header="gold",
                accuracy=False,
            )
        return out


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
    return DocredResult(system, off, sub, per_relation, counts, curve, sig, notes, warnings)


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


TASK = Task(
    name="docred",
    help="document-level RE (DocRED, Re-DocRED): official F1, Ign F1, Evi F1, per-relation weightings",
    config=DocredConfig,
    unit="document",
    score_files=score_files,
    compare="releval.significance.docred:compare_files",
    statistics="releval.dataset_stats.docred:statistics",
    measures=("f1", "ign_f1", "evi_f1", "macro", "frequent_f1", "long_tail_f1"),
)
