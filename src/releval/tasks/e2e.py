"""End-to-end RE: predicted entities and relations against gold, under NER strict and RE Strict / Boundaries.

Each criterion gives a ScoreResult (per-type rows, micro and every class weighting) whose signature is made by
`signature()` from the E2EConfig — the same for `score --task e2e`, `compare --task e2e` and the Python API
(Taillé et al. 2020 for the criteria; Harbecke et al. 2022 for the weightings).

>>> config = E2EConfig(criteria=("strict",), ner=False, weightings=("macro",))
>>> config.signature_fields()["task"], config.average_names
('e2e', ['micro', 'macro'])
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import InputError, OptionError
from releval.core.frames import data_frame
from releval.core.notices import Notice
from releval.core.options import MACRO_CLASSES, RE_CRITERIA
from releval.core.schema import check_schema, header
from releval.core.signature import Signature, short_hash
from releval.core.table import Column, Table
from releval.core.validation import check_choice
from releval.data.e2e import (
    AlignedArrays,
    Document,
    E2EDataset,
    TypeInventory,
    align_arrays,
    load_any_arrays,
    load_types,
)
from releval.data.e2e_arrays import E2EArrays, E2EArraysDataset
from releval.metrics.averages import AveragingSpec, all_averages
from releval.metrics.cells import PairedCells, cells_from_counts
from releval.metrics.e2e import NER, RELAXED, RELAXED_CAVEAT, DocumentCounts, _encode_pair, array_counts
from releval.result import Average, ClassRow, ScoreResult, report_text, score_tables
from releval.tasks.base import BoardExample, ScoringConfig, Task, build_signature
from releval.tasks.vocabulary import Vocabulary, check_vocabulary, identical_notice, swapped_names

E2EInput = str | os.PathLike[str] | E2EDataset | Sequence[Document]


@dataclass(frozen=True)
class E2EConfig(ScoringConfig):
    """Every setting of end-to-end RE scoring, checked when made (OptionError).

    `criteria`: relation criteria among strict, boundaries; `ner`: also NER strict; `relaxed`: also the
    experimental Relaxed criterion; `types`: a SpERT types file or TypeInventory (symmetric relation types match
    in either order); `by_position`: align documents by position instead of by id.

    `macro_classes`: the types macro-F averages over — "gold" (types with gold support; releval's default),
    "gold+pred" (types in gold or predictions: SpERT's evaluator, scikit-learn over the union) or "declared"
    (every relation type of the types file: sincere, Taillé et al. 2020). On a test set where a type has no gold
    instance they differ; the signature records which (`wc:`), so a paper's number can be matched to its
    convention.
    """

    task: ClassVar[str] = "e2e"

    criteria: tuple[str, ...] = RE_CRITERIA
    ner: bool = True
    relaxed: bool = False
    types: Any = None  # path, TypeInventory or None
    by_position: bool = False
    macro_classes: str = "gold"

    def __post_init__(self) -> None:
        super().__post_init__()
        chosen = tuple(dict.fromkeys(c.strip().lower() for c in self.criteria if c.strip()))
        bad = [c for c in chosen if c not in RE_CRITERIA]
        if RELAXED in bad:
            raise OptionError(
                "criteria: the Relaxed criterion is experimental: ask for it by itself "
                "(relaxed=True; --relaxed on the command line)",
                option="criteria",
            )
        if bad or not chosen:
            raise OptionError(
                f"criteria: unknown criterion {bad[0] if bad else '(none)'!r} (known: {', '.join(RE_CRITERIA)})",
                option="criteria",
            )
        object.__setattr__(self, "criteria", chosen)
        object.__setattr__(self, "by_position", bool(self.by_position))  # None (not asked) aligns by id
        if self.types is not None and not isinstance(self.types, TypeInventory):
            object.__setattr__(self, "types", os.fspath(self.types))
        check_choice(self.macro_classes, MACRO_CLASSES, "macro_classes")
        if self.macro_classes == "declared" and self.types is None:
            raise OptionError(
                "macro_classes='declared' averages over the relation types a types file declares: give one "
                "(types=...; --types on the command line)",
                option="macro_classes",
            )

    @property
    def all_criteria(self) -> list[str]:
        """NER (if asked), the relation criteria, then Relaxed (if asked): the order of every table."""
        return ([NER] if self.ner else []) + list(self.criteria) + ([RELAXED] if self.relaxed else [])

    def inventory(self) -> TypeInventory | None:
        """The types file, loaded (or the TypeInventory given)."""
        if self.types is None or isinstance(self.types, TypeInventory):
            return self.types
        return load_types(self.types)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if isinstance(self.types, TypeInventory):
            out["types"] = "<TypeInventory>"
        return out


def signature(
    config: E2EConfig,
    counts: DocumentCounts,
    n_documents: int,
    inventory: TypeInventory | None,
    extra: dict[str, object] | None = None,
) -> Signature:
    """THE end-to-end signature of one criterion: the Config's settings plus the gold's facts.

    The label set is the types with gold support (what the weightings weight); a types file adds the digest of
    its inventory (`+types:`; its declared types get rows and set the order of the paired cells, so the same seed
    draws other resamples) and its symmetric types by name (`+sym:`).
    """
    gold_types = sorted(label for label, tp, fn in zip(counts.labels, counts.tp.sum(0), counts.fn.sum(0)) if tp + fn)
    labels = short_hash(gold_types)
    if inventory is not None:
        labels += f"+types:{inventory_digest(inventory)}"
        if inventory.symmetric:
            labels += f"+sym:{','.join(sorted(inventory.symmetric))}"
    return build_signature(
        {
            **config.signature_fields(),
            "criterion": counts.criterion + ("(experimental)" if counts.criterion == RELAXED else ""),
            "negative": "none",
            "weighted_classes": WEIGHTED_CLASSES[config.macro_classes],
            "alignment": "position" if config.by_position else "id",
            "labels": labels,
            "gold": counts.gold_digest,
            "n": n_documents,
            **(extra or {}),
        }
    )


def inventory_digest(inventory: TypeInventory) -> str:
    """A digest of a types file's inventory: entity types, relation types (in declared order) and symmetric types.

    >>> inventory_digest(TypeInventory(("Peop",), ("Kill",), frozenset())) == inventory_digest(
    ...     TypeInventory(("Peop",), ("Kill",), frozenset({"Kill"})))
    False
    """
    parts = ["entities", *inventory.entities, "relations", *inventory.relations, "symmetric"]
    return short_hash([*parts, *sorted(inventory.symmetric)])


#: How the tables name each criterion: a column prefix and a title.
CRITERION_NAMES = {NER: "NER", "strict": "Strict", "boundaries": "Boundaries", RELAXED: "Relaxed(exp.)"}
CRITERION_TITLES = {
    NER: "NER strict (span + type)",
    "strict": "Strict (argument spans and types + relation type)",
    "boundaries": "Boundaries (argument spans + relation type; argument types ignored)",
    RELAXED: "Relaxed — EXPERIMENTAL, not an end-to-end RE score",
}
#: What each criterion counts as correct, after its name in the tables' headers ("Strict = argument spans …").
CRITERION_DEFINITIONS = {
    NER: "entity span + type",
    "strict": "argument spans and types + relation type",
    "boundaries": "argument spans + relation type; argument types ignored",
    RELAXED: "EXPERIMENTAL, not an end-to-end RE score",
}


def criterion_header(criterion: str) -> str:
    """A criterion's column name and what it counts as correct, for a table's title or notes.

    >>> criterion_header("strict")
    'Strict = argument spans and types + relation type'
    """
    return f"{CRITERION_NAMES[criterion]} = {CRITERION_DEFINITIONS[criterion]}"


@dataclass(frozen=True)
class E2EResult:
    """Scores of one system: `results[criterion]` for 'ner', 'strict', 'boundaries' (and 'relaxed' if asked)."""

    system: str
    results: dict[str, ScoreResult]
    counts: dict[str, DocumentCounts] = field(compare=False, repr=False)
    n_documents: int
    notes: list[str] = field(default_factory=list)
    warnings: list[Notice] = field(default_factory=list)

    def __getitem__(self, criterion: str) -> ScoreResult:
        return self.results[criterion]

    def to_frame(self) -> Any:
        """Every criterion's per-class rows and averages, indexed by (criterion, label) (pandas only here)."""
        records = [
            {"criterion": name, **row}
            for name, result in self.results.items()
            for row in result.to_frame().reset_index().to_dict("records")
        ]
        return data_frame(records, index=["criterion", "label"])

    def __str__(self) -> str:
        """Each criterion's report (`print(result)`), NER first, in `classification_report`'s layout."""
        return "\n\n".join(
            f"== {CRITERION_TITLES[name]} ==\n{report_text(result, unit='documents', accuracy=False)}"
            for name, result in self.results.items()
        )

    task: ClassVar[str] = "e2e"

    @property
    def signature(self) -> Signature:
        """The signature of the first relation criterion (each criterion's result carries its own)."""
        first = next((c for c in self.results if c != NER), next(iter(self.results)))
        return self.results[first].signature

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every criterion's result (accuracy is undefined without a negative class: null)."""
        return {
            **header("e2e-score"),
            "task": "e2e",
            "system": self.system,
            "documents": self.n_documents,
            "criteria": {name: r.to_dict() for name, r in self.results.items()},
            "notes": list(self.notes),
            "warnings": [w.to_dict() for w in self.warnings],
        }

    def to_tables(self) -> list[Table]:
        """This result's tables for `releval.report.render`: NER, then the relation criteria side by side."""
        return E2EResult.tables_of([self])

    @classmethod
    def tables_of(cls, results: Sequence[E2EResult], per_class: bool | None = None) -> list[Table]:
        """Per system: NER strict, then the relation criteria side by side (percent, no accuracy: end-to-end RE
        has no negative class); in CSV one block per criterion, each with its own signature. Several systems get
        one line per system and criterion unless `per_class` asks for the per-type rows."""
        if per_class is None:
            per_class = len(results) == 1
        if not per_class:
            return _compact_tables(results)
        out: list[Table] = []
        for result in results:
            relation = [c for c in result.results if c != NER]
            blocks = ([[NER]] if NER in result.results else []) + [relation]
            for block in blocks:
                if block == [NER]:
                    title = f"{result.system}: {CRITERION_TITLES[NER]}"
                else:
                    titles = "; ".join(map(criterion_header, block))
                    title = f"{result.system}: relations — {titles}"
                names = [CRITERION_NAMES[c] for c in block]
                results_ = [result[c] for c in block]
                out += score_tables(results_, title=title, names=names, support_header="gold", accuracy=False)[:1]
            for criterion, r in result.results.items():
                out += score_tables([r], accuracy=False, criterion=criterion)[1:]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> E2EResult:
        """The result `to_dict()` wrote (per-document counts are not saved: `counts` is empty)."""
        check_schema(data, "end-to-end result", "e2e-score")
        return cls(
            str(data["system"]),
            {name: ScoreResult.from_dict(r) for name, r in data["criteria"].items()},
            {},
            int(data["documents"]),
            list(data.get("notes", [])),
            [Notice.from_dict(w) for w in data.get("warnings", [])],
        )


def _compact_tables(results: Sequence[E2EResult]) -> list[Table]:
    """One line per system and criterion with F (percent) under every average; one signature per criterion when
    every system shares it."""
    rows: list[tuple[Any, ...]] = []
    signatures: dict[str, dict[str, str]] = {}
    averages = list(next(iter(results[0].results.values())).averages) if results else []
    for result in results:
        for criterion, r in result.results.items():
            rows.append((result.system, CRITERION_NAMES[criterion], *(r.averages[a].f for a in averages)))
            signatures.setdefault(criterion, {})[result.system] = r.signature.format(short=True)
    signature: list[tuple[str, str]] = []
    for criterion, by_system in signatures.items():
        if len(set(by_system.values())) == 1:
            signature.append((CRITERION_NAMES[criterion], next(iter(by_system.values()))))
        else:
            signature += [(f"{system} {CRITERION_NAMES[criterion]}", sig) for system, sig in by_system.items()]
    columns = [Column("system"), Column("criterion", align="left"), *(Column(a, "percent") for a in averages)]
    titles = [criterion_header(c) for c in signatures]
    notes = [*titles, "F (%) per average; per-type precision, recall and F: --per-class"]
    notes += list(dict.fromkeys(n for result in results for n in result.notes))
    warnings = [f"{result.system}: {w}" for result in results for w in result.warnings]
    display = Table("F1 (%) per average", columns, rows, notes=notes, warnings=warnings, signature=tuple(signature))
    out = [replace(display, show="display")]
    for result in results:
        for criterion, r in result.results.items():
            out += score_tables([r], accuracy=False, criterion=criterion)[1:]
    return out


def score(gold: E2EInput, pred: E2EInput, config: E2EConfig, system: str | None = None) -> E2EResult:
    """Score predicted entities and relations against gold under NER strict and the Config's RE criteria.

    Predictions are aligned by id unless `config.by_position`; types declared symmetric match in either order.
    """
    inventory = config.inventory()
    g, p = load_any_arrays(gold, "gold"), load_any_arrays(pred, "pred")
    aligned = align_arrays(g, p, by_position=config.by_position)
    counts = array_counts(
        aligned.gold,
        aligned.pred,
        config.all_criteria,
        symmetric=inventory.symmetric if inventory else (),
        entity_types=inventory.entities if inventory else (),
        relation_types=inventory.relations if inventory else (),
    )
    types_path = config.types if isinstance(config.types, str) else None
    input_warnings = check_predictions(g, p, aligned, inventory, types_path)
    notes = [*g.notes, *p.notes, *aligned.notes]
    if inventory and inventory.symmetric:
        notes.append(f"symmetric relation type(s), matched in either order: {', '.join(sorted(inventory.symmetric))}")
    elif inventory is None:
        notes.append("no types file: every relation type is directed")
    warnings = _duplicate_warnings(counts)
    name = system or _system_name(p)
    results = {}
    for criterion, dc in counts.items():
        crit_warnings = [*input_warnings, *(w for w in warnings if w.startswith(f"{criterion}:"))]
        if criterion == RELAXED:
            crit_warnings.insert(0, Notice(RELAXED_CAVEAT, "experimental-criterion"))
        sig = signature(config, dc, len(aligned.gold), inventory)
        results[criterion] = criterion_result(name, dc, config, sig, list(notes), crit_warnings)
    if RELAXED in counts:
        warnings.insert(0, Notice(RELAXED_CAVEAT, "experimental-criterion"))
    return E2EResult(name, results, counts, len(aligned.gold), notes, [*input_warnings, *warnings])


def _duplicate_warnings(counts: dict[str, DocumentCounts]) -> list[Notice]:
    out = []
    for criterion, dc in counts.items():
        what = "entity mention(s)" if criterion == NER else "relation(s)"
        for side, n in (("gold", dc.duplicates_gold), ("predicted", dc.duplicates_pred)):
            if n:
                out.append(
                    Notice(
                        f"{criterion}: {n} duplicated {side} {what} counted once (set semantics)", "duplicates-dropped"
                    )
                )
    return out


def check_predictions(
    gold: E2EArraysDataset,
    pred: E2EArraysDataset,
    aligned: AlignedArrays,
    inventory: TypeInventory | None = None,
    types_path: str | None = None,
) -> list[Notice]:
    """The input checks of one prediction file, whatever command scores it: its relation types and then its
    entity types beside gold's (`releval.tasks.vocabulary.check_vocabulary`: letter case, white space, a glued
    number, integer indices or nothing in common are refused; types gold never uses are warned), and beside the
    types file's inventory when one is given (a type it does not declare — in gold or in the predictions — can
    match nothing: refused with the closest declared type); then the warnings for predictions equal to gold and
    for gold and predictions given the other way round (file names, and a gold file holding a model's output
    keys or a prediction file with ids where gold has none).

    Refusals are InputErrors naming the file, the field and the first sentence with the label.

    >>> from releval.data.e2e import align_arrays, load_any_arrays
    >>> gold = load_any_arrays([Document("1", ("A", "killed", "B"), ((0, 1, "Peop"), (2, 3, "Peop")),
    ...                                  ((0, 1, "Kill"),))], "gold")
    >>> pred = load_any_arrays([Document("1", ("A", "killed", "B"), ((0, 1, "Peop"), (2, 3, "Peop")),
    ...                                  ((0, 1, "kill"),))], "pred")
    >>> try:
    ...     check_predictions(gold, pred, align_arrays(gold, pred))
    ... except InputError as error:
    ...     print(error.message.split(" (first")[0])
    1 predicted relation type(s) differ from gold's only in letter case: 'kill' (gold 'Kill')
    >>> [w.code for w in check_predictions(gold, gold, align_arrays(gold, gold))]
    ['pred-equals-gold']
    """
    notices: list[Notice] = []
    for kind in ("relation type", "entity type"):
        gold_used = frozenset(_used_types(aligned.gold, kind))
        declared = frozenset(_declared(inventory, kind))
        if inventory is not None:
            _refuse_undeclared(sorted(gold_used - declared), declared, kind, gold, types_path, "gold's")
        vocabulary = Vocabulary(
            kind,
            gold_used,
            _used_types(aligned.pred, kind),
            pred.path,
            where=_first_at(pred, kind),
            allowed=declared - gold_used,  # declared types gold has no instance of: legitimate predictions
        )
        found = check_vocabulary(vocabulary) if gold_used else []  # no gold type to hold them against
        if inventory is not None:
            _refuse_undeclared(vocabulary.unseen(), declared, kind, pred, types_path, "predicted")
        notices += found
    if _same_content(aligned.gold, aligned.pred):
        notices += identical_notice(pred.path, len(aligned.gold), "sentences")
    notices += swapped_names(gold.path, pred.path, _swap_reasons(gold, pred))
    return notices


def _declared(inventory: TypeInventory | None, kind: str) -> tuple[str, ...]:
    if inventory is None:
        return ()
    return inventory.relations if kind == "relation type" else inventory.entities


def _used_types(arrays: E2EArrays, kind: str) -> list[str]:
    """The relation (or entity) type names the sentences use."""
    if kind == "relation type":
        codes, names = arrays.rel_type, arrays.relation_types
    else:
        codes, names = arrays.ent_type, arrays.entity_types
    return [names[i] for i in np.unique(codes).tolist()]


def _refuse_undeclared(
    undeclared: list[str],
    declared: frozenset[str],
    kind: str,
    data: E2EArraysDataset,
    types_path: str | None,
    whose: str,
) -> None:
    """An InputError for the types of `data` that the types file does not declare, each with its closest
    declared type, located at the first sentence of the first one."""
    if not undeclared:
        return
    shown = []
    for label in undeclared[:5]:
        close = difflib.get_close_matches(label, sorted(declared), n=1, cutoff=0.6)
        shown.append(f"{label!r} (closest declared {close[0]!r})" if close else repr(label))
    more = f", … ({len(undeclared) - 5} more)" if len(undeclared) > 5 else ""
    place = _first_at(data, kind)(undeclared[0])
    types = types_path or "given"
    raise InputError(
        f"{len(undeclared)} {whose} {kind}(s) not declared in the types file {types}: {', '.join(shown)}{more}"
        f"{f' (first at {place})' if place else ''}; a type the types file does not declare matches nothing — "
        "fix its spelling, or give the types file of this dataset",
        file=data.path,
        field=kind,
    )


def _first_at(data: E2EArraysDataset, kind: str) -> Callable[[str], str | None]:
    """Where a type first occurs in `data`: `record 12 (orig_id 5012)` (SpERT list), `test[11] (orig_id 5012)`
    (SpERT split file), `sentence id DOC#3` (PURE/DyGIE++), else `sentence 12 (id …)`."""

    def where(label: str) -> str | None:
        for split, arrays in data.splits.items():
            if kind == "relation type":
                names, codes, docs = arrays.relation_types, arrays.rel_type, arrays.rel_doc
            else:
                names, codes, docs = arrays.entity_types, arrays.ent_type, arrays.ent_doc
            if label not in names:
                continue
            rows = docs[codes == names.index(label)]
            if rows.size:
                return _sentence_name(data, split, int(rows.min()), arrays.ids)
        return None

    return where


def _sentence_name(data: E2EArraysDataset, split: str, k: int, ids: list[str | None]) -> str:
    sentence_id = ids[k]
    if data.format == "dygie" and sentence_id is not None:
        return f"sentence id {sentence_id}"  # the doc_key, or doc_key#i in a document of several sentences
    if data.format == "spert":
        place = f"{split}[{k}]" if len(data.splits) > 1 else f"record {k + 1}"
        return place + (f" (orig_id {sentence_id})" if sentence_id is not None else "")
    return f"sentence {k + 1}" + (f" (id {sentence_id})" if sentence_id is not None else "")


def _type_columns(arrays: E2EArrays, index: dict[str, int]) -> tuple[list[NDArray], list[NDArray]]:
    """(entity columns, relation columns) of aligned sentences with type names coded by `index` (shared by both
    sides): an entity is its sentence, span and type; a relation its sentence, both arguments' span and type, and
    its type."""

    def coded(codes: NDArray, names: list[str]) -> NDArray:
        table = np.array([index.setdefault(n, len(index)) for n in names], dtype=np.int64)
        return table[codes] if codes.size else codes

    ent_type = coded(arrays.ent_type, arrays.entity_types)
    head, tail = arrays.rel_head, arrays.rel_tail
    entities = [arrays.ent_doc, arrays.ent_start, arrays.ent_end, ent_type]
    relations = [
        arrays.rel_doc,
        *(arrays.ent_start[head], arrays.ent_end[head], ent_type[head]),
        *(arrays.ent_start[tail], arrays.ent_end[tail], ent_type[tail]),
        coded(arrays.rel_type, arrays.relation_types),
    ]
    return entities, relations


def _same_content(gold: E2EArrays, pred: E2EArrays) -> bool:
    """Whether aligned predictions list every sentence's entity mentions and relations exactly as gold does
    (types by name; at least one mention). A system's output differs in how many mentions or relations some
    sentence has, which is told without sorting; only a near copy is compared row by row."""
    if gold.ent_doc.size == 0 or (gold.ent_doc.size, gold.rel_doc.size) != (pred.ent_doc.size, pred.rel_doc.size):
        return False
    n = len(gold)
    for g_doc, p_doc in ((gold.ent_doc, pred.ent_doc), (gold.rel_doc, pred.rel_doc)):
        if not np.array_equal(np.bincount(g_doc, minlength=n), np.bincount(p_doc, minlength=n)):
            return False
    index: dict[str, int] = {}  # type names, entity and relation alike, coded the same on both sides
    for g_columns, p_columns in zip(_type_columns(gold, index), _type_columns(pred, index)):
        if not g_columns[0].size:
            continue
        g_keys, p_keys = _encode_pair(g_columns, p_columns)  # one order-preserving int64 per row
        if not np.array_equal(np.sort(g_keys), np.sort(p_keys)):
            return False
    return True


def _swap_reasons(gold: E2EArraysDataset, pred: E2EArraysDataset) -> list[str]:
    """What in the files' content says they were given the other way round: a gold file holding a model's
    output keys (PURE/DyGIE++ `predicted_ner`/`predicted_relations`) beside a prediction file without them, or
    a SpERT prediction file with sentence ids where gold has none (SpERT writes its predictions without
    `orig_id`)."""
    reasons = []
    if gold.model_output and not pred.model_output:
        reasons.append(
            f"the gold file {gold.path} holds a model's output (predicted_ner/predicted_relations) and the "
            "prediction file does not"
        )
    if gold.format == pred.format == "spert":
        gold_ids = any(i is not None for a in gold.splits.values() for i in a.ids)
        pred_ids = any(i is not None for a in pred.splits.values() for i in a.ids)
        if pred_ids and not gold_ids:
            reasons.append(
                "the prediction file has sentence ids (orig_id) and the gold file has none, while SpERT writes "
                "its predictions without them"
            )
    return reasons


#: The signature's `weighted_classes` for each `macro_classes`.
WEIGHTED_CLASSES = {"gold": "support>0", "gold+pred": "support>0|pred>0", "declared": "declared"}


def averaging_spec(config: E2EConfig, k: int) -> AveragingSpec:
    """Every type is positive (there is no negative class in end-to-end RE); weights over the types of
    `config.macro_classes`."""
    positive = np.ones(k, dtype=bool)
    return AveragingSpec(positive, config.weightings, config.beta, config.zero_division, "all", config.macro_classes)


def criterion_result(
    system: str,
    dc: DocumentCounts,
    config: E2EConfig,
    sig: Signature,
    notes: list[str],
    warnings: list[Notice],
) -> ScoreResult:
    """One criterion's per-type rows and averages."""
    totals = dc.total()
    per_class, averages = all_averages(totals, averaging_spec(config, len(dc.labels)))
    rows = [
        ClassRow(
            label,
            int(totals.tp[i]),
            int(totals.fp[i]),
            int(totals.fn[i]),
            int(totals.tp[i] + totals.fn[i]),
            float(per_class.precision[i]),  # type: ignore[index]
            float(per_class.recall[i]),  # type: ignore[index]
            float(per_class.f[i]),  # type: ignore[index]
            True,
        )
        for i, label in enumerate(dc.labels)
    ]
    avgs = {
        name: Average(name, float(a.precision), float(a.recall), float(a.f))  # type: ignore[arg-type]
        for name, a in averages.items()
    }
    return ScoreResult(system, rows, avgs, float("nan"), int(dc.tp.shape[0]), None, sig, notes, list(warnings))


def union_counts(a: DocumentCounts, b: DocumentCounts) -> tuple[list[NDArray], list[NDArray]]:
    """(tp, fp, fn) of A and of B over the union of their type lists (types one system never uses get zeros)."""
    labels = list(dict.fromkeys([*a.labels, *b.labels]))
    index = {label: i for i, label in enumerate(labels)}

    def widen(dc: DocumentCounts) -> list[NDArray]:
        cols = np.array([index[label] for label in dc.labels], dtype=np.intp)
        out = []
        for m in (dc.tp, dc.fp, dc.fn):
            wide = np.zeros((m.shape[0], len(labels)), dtype=np.int64)
            wide[:, cols] = m
            out.append(wide)
        return out

    return widen(a), widen(b)


def paired_cells(a: E2EResult, b: E2EResult, criterion: str, config: E2EConfig) -> tuple[PairedCells, AveragingSpec]:
    """Per-document statistics of two systems scored on the same gold documents, as distinct cells, and the
    averaging spec: documents are the resampled (or swapped) unit, so relations of one sentence stay together."""
    if config.macro_classes == "gold+pred":
        raise OptionError(
            "macro_classes='gold+pred' is for reproducing SpERT's numbers with score: under it each system's macro "
            "runs over its own types, so two systems' macro-F are not over the same classes and a paired test of "
            "their difference compares unlike averages; compare with 'gold' or 'declared'",
            option="macro_classes",
        )
    counts_a, counts_b = union_counts(a.counts[criterion], b.counts[criterion])
    cells = cells_from_counts(*counts_a, *counts_b)
    return cells, averaging_spec(config, cells.stats_a.shape[1] // 3)


def _system_name(pred: E2EDataset | E2EArraysDataset) -> str:
    if pred.path.startswith("<"):
        return "system"
    name = Path(pred.path).name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name


def score_files(gold: E2EInput, systems: Sequence[tuple[str | None, E2EInput]], config: E2EConfig) -> list[E2EResult]:
    """Score several systems' entities and relations against one gold under `config`: one E2EResult each."""
    return [score(gold, pred, config, name) for name, pred in systems]


TASK = Task(
    name="e2e",
    help="end-to-end RE: entities and relations per sentence, NER / Strict / Boundaries",
    config=E2EConfig,
    unit="document",
    score_files=score_files,
    inputs=frozenset({"e2e-files"}),
    example=BoardExample(
        slug="conll04",
        folder="conll04",
        gold="conll04_sincere_all_splits.json",
        part="test",  # the published split file: its 288 test sentences
        title="CoNLL04 end-to-end RE (288 test sentences)",
        description="Roth and Yih (2004), the split of Taillé et al. (2020): entities and relations; Strict "
        "(spans, entity and relation types), Boundaries (spans and relation type) and NER.",
        position=0,
    ),
)
