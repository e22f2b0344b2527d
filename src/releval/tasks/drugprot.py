"""DrugProt (BioCreative VII Track 1): chemical–gene relations of PubMed abstracts, per type and under every weighting.

Gold is the official gold standard — relations, entities and the PMID list (releval.data.drugprot) — given as its
folder or its relations file; each prediction is a relations file. A relation is (PMID, chemical, gene, type) over
the candidate pairs of an abstract (its chemical × gene mentions), and is a true positive when gold has it:

    TP_t = |G_t ∩ P_t|,  FP_t = |P_t \\ G_t|,  FN_t = |G_t \\ P_t|   for each of the 13 types t,

then P, R and F per type and micro P/R/F over all types (the official library's "micro-average", scikit-learn's
`average="micro"` over the (type × candidate pair) indicator matrix), and every class weighting over the types
with gold support. On the library's own toy data this gives its README's micro P 0.783, R 0.72, F1 0.75
(tests/test_biomedical.py; docs/biomedical.md).

The counts are kept per abstract, so `compare` resamples abstracts (`unit` document), as end-to-end RE does.

Before a number is shown, a prediction file that cannot be what its author meant is refused (`check_predictions`,
an InputError naming the file): one with no relation at all (empty: a failed export), one whose every relation is
on a PMID outside the list, one whose relation types differ from DrugProt's only in letter case (`inhibitor`), are
integers, or share no type with DrugProt's 13. A prediction equal to gold, and file names that say gold and
predictions were given the other way round, are warned (releval.tasks.vocabulary).

>>> from releval.tasks.drugprot import DrugProtConfig
>>> DrugProtConfig(weightings=("macro",)).signature_fields()["task"]
'drugprot'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError
from releval.core.notices import Notice
from releval.core.signature import Signature, short_hash
from releval.core.table import Table
from releval.data.drugprot import RELATION_TYPES, GoldSet, Relations, gold_files, load_gold, read_relations
from releval.metrics.averages import AveragingSpec, all_averages
from releval.metrics.cells import PairedCells, cells_from_counts
from releval.metrics.counts import ClassCounts
from releval.result import Average, ClassRow, ScoreResult, compact_tables, score_tables
from releval.tasks.base import BoardExample, ScoringConfig, Task, build_signature, rows_per_class
from releval.tasks.vocabulary import Vocabulary, check_vocabulary, identical_notice, swapped_names


@dataclass(frozen=True)
class DrugProtConfig(ScoringConfig):
    """DrugProt scoring: the weightings besides micro, β and zero_division (no other setting changes a number)."""

    task: ClassVar[str] = "drugprot"


@dataclass(frozen=True)
class DrugProtResult(ScoreResult):
    """A ScoreResult (per-type rows, averages; accuracy undefined) with the per-abstract counts that `compare`
    resamples: arrays of shape (abstracts, 13) in RELATION_TYPES order."""

    counts: tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int32]] | None = field(
        default=None, compare=False, repr=False
    )

    def to_tables(self) -> list[Table]:
        """Per-type rows and averages without accuracy (there is no negative class to be right about)."""
        return score_tables([self], accuracy=False)

    @classmethod
    def tables_of(cls, results: Sequence[ScoreResult], per_class: bool | None = None) -> list[Table]:
        """Several systems: per-type rows side by side for one, one line per system for several."""
        if per_class is None:
            per_class = len(results) == 1
        return score_tables(results, accuracy=False) if per_class else compact_tables(results)


def document_counts(gold: GoldSet, pred: Relations) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int32]]:
    """TP, FP, FN per (evaluated abstract, relation type): set intersection and differences of the relations."""
    row = {pmid: i for i, pmid in enumerate(gold.pmids)}
    column = {t: k for k, t in enumerate(RELATION_TYPES)}
    shape = (len(gold.pmids), len(RELATION_TYPES))
    # int32 (a count per abstract and type; sums are int64): the three matrices are most of a result's memory
    tp, fp, fn = (np.zeros(shape, dtype=np.int32) for _ in range(3))
    # each file's relations are looked up in its `distinct` (a dict): no set of a million tuples is built for the
    # intersection and the differences (issue 34's memory bound)
    gold_lines, pred_lines = gold.gold.distinct, pred.distinct
    for relation in gold_lines:
        target = tp if relation in pred_lines else fn
        target[row[relation[0]], column[relation[3]]] += 1
    for relation in pred_lines:
        if relation not in gold_lines:
            fp[row[relation[0]], column[relation[3]]] += 1
    return tp, fp, fn


def averaging_spec(config: DrugProtConfig) -> AveragingSpec:
    """Every type is positive (no negative class); the weightings run over the types with gold support."""
    positive = np.ones(len(RELATION_TYPES), dtype=bool)
    return AveragingSpec(positive, config.weightings, config.beta, config.zero_division)


def gold_digest(gold: GoldSet) -> str:
    """The fingerprint of the gold relations and of the evaluated PMIDs (the signature's `gold`)."""
    return short_hash(chain(map("\t".join, sorted(gold.gold.distinct)), ["#pmids"], gold.pmids))


def signature(config: DrugProtConfig, gold: GoldSet, extra: Mapping[str, object] | None = None) -> Signature:
    """THE DrugProt signature: the Config, the type set, the gold digest and the number of abstracts."""
    return build_signature(
        {
            **config.signature_fields(),
            "weighted_classes": "support>0",
            "labels": short_hash(list(RELATION_TYPES)),
            "gold": gold_digest(gold),
            "n": len(gold.pmids),
            **dict(extra or {}),
        }
    )


def check_predictions(gold: GoldSet, pred: Relations) -> list[Notice]:
    """Refuse a prediction file whose score could only mislead, naming the file and the fix; return the warnings
    that need gold beside the predictions (gold passed twice, the files swapped by their names).

    Refused: a file with no relation at all (an empty export scores 0 with no sign of why); a file whose every
    relation is on a PMID outside the list (another split's predictions); relation types that differ from the 13
    DrugProt types only in letter case, are integers (class indices), or share no type with them at all
    (releval.tasks.vocabulary.check_vocabulary against the 13 types, not only the ones gold uses).

    >>> from releval.data.drugprot import parse_relations
    >>> entities = {"1": {"T1": "CHEMICAL", "T2": "GENE"}}
    >>> gold = GoldSet("gs_relations.tsv", "e.tsv", "pmids.txt", ["1"], entities,
    ...                parse_relations(b"1\\tINHIBITOR\\tArg1:T1\\tArg2:T2\\n", "g", entities, {"1"}, "gold"))
    >>> pred = parse_relations(b"1\\tinhibitor\\tArg1:T1\\tArg2:T2\\n", "p.tsv", entities, {"1"}, "pred")
    >>> try:
    ...     check_predictions(gold, pred)
    ... except InputError as error:
    ...     print(error.message.split(" (first")[0])
    1 predicted relation type(s) differ from gold's only in letter case: 'inhibitor' (gold 'INHIBITOR')
    """
    read = len(pred.distinct) + pred.duplicates + pred.outside + len(pred.invalid)
    if read == 0:
        raise InputError(
            "no predicted relation at all: the file is empty (or blank), so every gold relation would be missed and "
            "the score would be 0 — almost always a failed export; write the relations (PMID<TAB>TYPE<TAB>Arg1:T1"
            "<TAB>Arg2:T2 per line) and score again",
            file=pred.path,
        )
    if pred.outside and pred.outside == read:
        raise InputError(
            f"none of the {pred.outside} predicted relation(s) is on a PMID of the list {gold.pmids_path} "
            f"({len(gold.pmids)} abstracts): predictions for another split or another corpus? Nothing could match",
            file=pred.path,
        )
    if pred.invalid:
        first: dict[str, int] = {}
        for n, kind in pred.invalid:
            first.setdefault(kind, n)
        vocabulary = Vocabulary(
            "relation type",
            frozenset(RELATION_TYPES),
            {*(r[3] for r in pred.distinct), *first},
            pred.path,
            where=lambda label: f"line {first[label]}" if label in first else None,
        )
        check_vocabulary(vocabulary)  # its refusals; the warning for unknown types is _notes' (they are dropped)
    warnings = swapped_names(gold.relations_path, pred.path)
    if pred.distinct and pred.distinct.keys() == gold.gold.distinct.keys():  # as sets, without building them
        warnings = [*identical_notice(pred.path, len(pred.distinct), "relations"), *warnings]
    return warnings


def _notes(gold: GoldSet, pred: Relations) -> tuple[list[str], list[Notice]]:
    notes = [
        f"DrugProt: {len(gold.pmids)} abstracts, {gold.candidate_pairs():,} candidate (chemical, gene) pairs, "
        f"{len(gold.gold.distinct)} gold relations; micro over the 13 relation types, weightings over the types "
        "with gold support",
        f"gold: {gold.relations_path} (entities {gold.entities_path}, PMIDs {gold.pmids_path})",
    ]
    if pred.outside:
        notes.append(
            f"{pred.outside} predicted relation(s) on PMIDs outside the PMID list ignored (as the official library "
            "does)"
        )
    warnings = []
    if pred.invalid:
        shown = ", ".join(f"{kind!r} (line {n})" for n, kind in pred.invalid[:5])
        more = f", … ({len(pred.invalid) - 5} more)" if len(pred.invalid) > 5 else ""
        warnings.append(
            Notice(
                f"{len(pred.invalid)} predicted relation(s) of a type that is not a DrugProt type ignored, as the "
                f"official library ignores them: {shown}{more}",
                "warning",
            )
        )
    if pred.duplicates:
        warnings.append(Notice(f"{pred.duplicates} repeated predicted relation(s) counted once", "duplicates-dropped"))
    return notes, warnings


def score(gold: Any, pred: Any, config: DrugProtConfig, system: str | None = None) -> DrugProtResult:
    """Score one relations file (or Relations) against a DrugProt gold standard (folder, relations file or
    GoldSet) under `config`."""
    g = load_gold(gold)
    p = pred if isinstance(pred, Relations) else read_relations(pred, g.entities, set(g.pmids), "pred")
    checked = check_predictions(g, p)
    counts = document_counts(g, p)
    totals = ClassCounts(*(m.sum(axis=0) for m in counts))
    per_class, averages = all_averages(totals, averaging_spec(config))
    rows = [
        ClassRow(
            label,
            int(totals.tp[k]),
            int(totals.fp[k]),
            int(totals.fn[k]),
            int(totals.tp[k] + totals.fn[k]),
            float(per_class.precision[k]),  # type: ignore[index]
            float(per_class.recall[k]),  # type: ignore[index]
            float(per_class.f[k]),  # type: ignore[index]
            True,
        )
        for k, label in enumerate(RELATION_TYPES)
        if totals.tp[k] + totals.fp[k] + totals.fn[k] > 0
    ]
    avgs = {
        name: Average(name, float(a.precision), float(a.recall), float(a.f))  # type: ignore[arg-type]
        for name, a in averages.items()
    }
    notes, warnings = _notes(g, p)
    name = system or _system_name(p.path)
    return DrugProtResult(
        name,
        rows,
        avgs,
        float("nan"),
        len(g.pmids),
        None,
        signature(config, g),
        notes,
        [*checked, *warnings],
        counts=counts,
    )


def _system_name(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".tsv", ".txt"):
        name = name.removesuffix(suffix)
    return name


def paired_cells(a: DrugProtResult, b: DrugProtResult) -> PairedCells:
    """Per-abstract TP/FP/FN of two systems on the same gold as distinct cells: abstracts are resampled."""
    assert a.counts is not None and b.counts is not None
    return cells_from_counts(*a.counts, *b.counts)


def score_files(gold: Any, systems: Sequence[tuple[str | None, Any]], config: DrugProtConfig) -> list[DrugProtResult]:
    """Score several relations files against one gold standard (read once)."""
    g = load_gold(gold)
    return [score(g, pred, config, name) for name, pred in systems]


TASK: Task[DrugProtConfig, DrugProtResult] = Task(
    name="drugprot",
    help="DrugProt (BioCreative VII): chemical-gene relations from entity and relation TSVs, per type, every weighting",
    config=DrugProtConfig,
    unit="document",
    score_files=score_files,
    gold_parts=gold_files,
    per_class=rows_per_class,
    example=BoardExample(
        slug="drugprot-sample",
        folder="drugprot",
        gold="gs-data",  # its folder: the three files stored as one archive (gold_parts)
        title="DrugProt, the official evaluation library's gold sample (5 PubMed abstracts)",
        description="Miranda et al. (2021), BioCreative VII: candidate pairs from entity and relation TSVs, per-type "
        "P/R/F and micro-F1 as the official library computes them (its toy predictions score P 0.783, R 0.72, F1 "
        "0.75).",
        position=5,
    ),
)
