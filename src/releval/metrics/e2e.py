"""End-to-end RE and NER counts: NER strict, RE Strict / Boundaries, and the experimental Relaxed proposal.

Definitions (metrics notes §1.4; Bekoulis et al. 2018; Taillé et al. 2020): per sentence, SETS of keys —
NER (start, end, type); Strict (head span, head type, tail span, tail type, relation type); Boundaries
(head span, tail span, relation type). Relations are directed; a type declared symmetric has its two
arguments put in a canonical order (SpERT's convention) so either order matches. Duplicated keys count once.
Recall's denominator is every gold relation, whether or not the entity model found its arguments.

Counting is vectorised: every key becomes one int64, `np.unique` removes duplicates, `np.isin` finds the
matches and `np.bincount` builds per-document × per-type TP / FP / FN matrices (n_docs × K), which resampling
tests sum over drawn documents.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from releval.core.errors import OptionError
from releval.data.e2e import Document
from releval.data.e2e_arrays import E2EArrays
from releval.metrics.counts import ClassCounts

NER = "ner"
STRICT = "strict"
BOUNDARIES = "boundaries"
RELAXED = "relaxed"
CRITERIA = (NER, STRICT, BOUNDARIES, RELAXED)
RELAXED_CAVEAT = (
    "Relaxed is EXPERIMENTAL and does not evaluate end-to-end RE: a predicted argument counts when it overlaps "
    "the gold argument by at least one token with the same entity type (one-to-one matching per relation type); "
    "a releval proposal after Bekoulis et al.'s gold-boundary setting, not comparable to published 'Relaxed' numbers"
)


@dataclass(frozen=True)
class FlatDocuments:
    """Documents as flat arrays: entities (doc, start, end, type code), relations (doc, head, tail, type code).

    `head` and `tail` index into the flat entity arrays.
    """

    n_docs: int
    ent_doc: NDArray[np.int64]
    ent_start: NDArray[np.int64]
    ent_end: NDArray[np.int64]
    ent_type: NDArray[np.int64]
    rel_doc: NDArray[np.int64]
    rel_head: NDArray[np.int64]
    rel_tail: NDArray[np.int64]
    rel_type: NDArray[np.int64]


@dataclass(frozen=True)
class DocumentCounts:
    """Per-document, per-type TP / FP / FN (arrays n_docs × K) of one criterion, and the duplicates removed."""

    criterion: str
    labels: list[str]
    tp: NDArray[np.int64]
    fp: NDArray[np.int64]
    fn: NDArray[np.int64]
    duplicates_gold: int = 0
    duplicates_pred: int = 0
    gold_digest: str = ""  # sha256 prefix of the gold facts (spans, types, relations) for the signature

    def total(self) -> ClassCounts:
        """Counts summed over documents (shape K)."""
        return ClassCounts(self.tp.sum(axis=0), self.fp.sum(axis=0), self.fn.sum(axis=0))

    def resample(self, indices: NDArray[np.integer]) -> ClassCounts:
        """Counts of resampled document sets: indices of shape (B, n) give ClassCounts of shape (B, K)."""
        idx = np.asarray(indices)
        return ClassCounts(self.tp[idx].sum(axis=-2), self.fp[idx].sum(axis=-2), self.fn[idx].sum(axis=-2))


class TypeVocabulary:
    """Entity and relation type codes: declared types first, then gold types, then predicted-only types (sorted)."""

    def __init__(self, declared_entities: Sequence[str] = (), declared_relations: Sequence[str] = ()) -> None:
        self.entities: dict[str, int] = {}
        self.relations: dict[str, int] = {}
        for name in declared_entities:
            self.entities.setdefault(name, len(self.entities))
        for name in declared_relations:
            self.relations.setdefault(name, len(self.relations))

    def extend(self, entity_types: Iterable[str], relation_types: Iterable[str]) -> None:
        """Add the types not yet known, in sorted order."""
        for codes, names in ((self.entities, entity_types), (self.relations, relation_types)):
            for name in sorted(set(names) - set(codes)):
                codes[name] = len(codes)


def _flat(arrays: E2EArrays, n_docs: int, vocab: TypeVocabulary) -> FlatDocuments:
    """The arrays with their type codes in `vocab`'s numbering (every type they use must be in it)."""

    def recode(codes: NDArray[np.int64], names: list[str], table: dict[str, int]) -> NDArray[np.int64]:
        mapping = np.array([table.get(name, -1) for name in names], dtype=np.int64)
        return mapping[codes] if codes.size else codes

    return FlatDocuments(
        n_docs,
        arrays.ent_doc,
        arrays.ent_start,
        arrays.ent_end,
        recode(arrays.ent_type, arrays.entity_types, vocab.entities),
        arrays.rel_doc,
        arrays.rel_head,
        arrays.rel_tail,
        recode(arrays.rel_type, arrays.relation_types, vocab.relations),
    )


def _used(codes: NDArray[np.int64], names: list[str]) -> list[str]:
    """The names of the codes that occur."""
    return [names[i] for i in np.unique(codes).tolist()]


def _encode(columns: Sequence[NDArray[np.int64]]) -> NDArray[np.int64]:
    """One int64 per row, order-preserving (mixed radix); falls back to row ranks when the product overflows."""
    radices = [int(c.max()) + 1 if c.size else 1 for c in columns]
    total = 1
    for r in radices:
        total *= r
    if total < 2**62:
        key = np.zeros(columns[0].shape, dtype=np.int64)
        for col, radix in zip(columns, radices):
            key = key * radix + col
        return key
    stacked = np.stack(columns, axis=1)
    return np.unique(stacked, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _encode_pair(
    gold: Sequence[NDArray[np.int64]], pred: Sequence[NDArray[np.int64]]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """`_encode` of gold's rows followed by pred's, without concatenating the columns when the keys fit."""
    radices = [max(int(g.max()) if g.size else 0, int(p.max()) if p.size else 0) + 1 for g, p in zip(gold, pred)]
    total = 1
    for r in radices:
        total *= r
    if total >= 2**62:
        keys = _encode([np.concatenate([g, p]) for g, p in zip(gold, pred)])
        return keys[: gold[0].size], keys[gold[0].size :]

    def encode(columns: Sequence[NDArray[np.int64]]) -> NDArray[np.int64]:
        key = np.zeros(columns[0].shape, dtype=np.int64)
        for col, radix in zip(columns, radices):
            key *= radix
            key += col
        return key

    return encode(gold), encode(pred)


def _canonical(f: FlatDocuments, symmetric: NDArray[np.bool_], with_types: bool) -> tuple[NDArray, ...]:
    """(head start, head end, head type, tail start, tail end, tail type), symmetric types' arguments ordered."""
    hs, he, ht = f.ent_start[f.rel_head], f.ent_end[f.rel_head], f.ent_type[f.rel_head]
    ts, te, tt = f.ent_start[f.rel_tail], f.ent_end[f.rel_tail], f.ent_type[f.rel_tail]
    if not symmetric.any():
        return hs, he, ht, ts, te, tt  # nothing to put in order
    later = (hs > ts) | ((hs == ts) & (he > te))
    if with_types:
        later |= (hs == ts) & (he == te) & (ht > tt)
    swap = symmetric[f.rel_type] & later if symmetric.size else np.zeros(hs.shape, dtype=bool)
    return (
        np.where(swap, ts, hs),
        np.where(swap, te, he),
        np.where(swap, tt, ht),
        np.where(swap, hs, ts),
        np.where(swap, he, te),
        np.where(swap, ht, tt),
    )


def _keys(f: FlatDocuments, criterion: str, symmetric: NDArray[np.bool_]) -> tuple[list[NDArray], NDArray, NDArray]:
    """Key columns, document and type of every fact of one criterion."""
    if criterion == NER:
        return [f.ent_doc, f.ent_type, f.ent_start, f.ent_end], f.ent_doc, f.ent_type
    hs, he, ht, ts, te, tt = _canonical(f, symmetric, with_types=criterion == STRICT)
    if criterion == STRICT:
        cols = [f.rel_doc, f.rel_type, hs, he, ht, ts, te, tt]
    elif criterion == BOUNDARIES:
        cols = [f.rel_doc, f.rel_type, hs, he, ts, te]
    else:
        raise ValueError(f"unknown criterion {criterion!r}")
    return cols, f.rel_doc, f.rel_type


def _set_counts(
    gold: FlatDocuments, pred: FlatDocuments, criterion: str, symmetric: NDArray[np.bool_], k: int
) -> tuple[NDArray, NDArray, NDArray, int, int]:
    g_cols, g_doc, g_type = _keys(gold, criterion, symmetric)
    p_cols, p_doc, p_type = _keys(pred, criterion, symmetric)
    g_key, p_key = _encode_pair(g_cols, p_cols)
    n_g = g_key.size
    g_u, g_first = np.unique(g_key, return_index=True)
    p_u, p_first = np.unique(p_key, return_index=True)
    hit = np.isin(p_u, g_u, assume_unique=True)
    size = gold.n_docs * k
    g_cell = g_doc[g_first] * k + g_type[g_first]
    p_cell = p_doc[p_first] * k + p_type[p_first]
    gold_n = np.bincount(g_cell, minlength=size)
    pred_n = np.bincount(p_cell, minlength=size)
    tp = np.bincount(p_cell[hit], minlength=size)
    shape = (gold.n_docs, k)
    return (
        tp.reshape(shape),
        (pred_n - tp).reshape(shape),
        (gold_n - tp).reshape(shape),
        int(n_g - g_u.size),
        int(p_key.size - p_u.size),
    )


def _relaxed_counts(
    gold: FlatDocuments, pred: FlatDocuments, symmetric: NDArray[np.bool_], k: int
) -> tuple[NDArray, NDArray, NDArray, int, int]:
    """Experimental Relaxed: per document and relation type, a maximum one-to-one matching of relations whose
    arguments overlap the gold arguments by ≥ 1 token with equal entity types (either order if symmetric)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    def unique_facts(f: FlatDocuments) -> tuple[NDArray, int]:
        hs, he, ht, ts, te, tt = _canonical(f, symmetric, with_types=True)
        rows = np.stack([f.rel_doc, f.rel_type, hs, he, ht, ts, te, tt], axis=1).reshape(-1, 8)
        uniq = np.unique(rows, axis=0)
        return uniq, len(rows) - len(uniq)

    g, dup_g = unique_facts(gold)
    p, dup_p = unique_facts(pred)
    size = gold.n_docs * k
    gold_n = np.bincount(g[:, 0] * k + g[:, 1], minlength=size)
    pred_n = np.bincount(p[:, 0] * k + p[:, 1], minlength=size)
    tp = np.zeros(size, dtype=np.int64)
    g_cell, p_cell = g[:, 0] * k + g[:, 1], p[:, 0] * k + p[:, 1]
    common = np.intersect1d(g_cell, p_cell)
    g_bounds = np.searchsorted(g_cell, common, side="left"), np.searchsorted(g_cell, common, side="right")
    p_bounds = np.searchsorted(p_cell, common, side="left"), np.searchsorted(p_cell, common, side="right")
    for j, cell in enumerate(common):
        gg = g[g_bounds[0][j] : g_bounds[1][j]]
        pp = p[p_bounds[0][j] : p_bounds[1][j]]
        ok = _arguments_match(gg[:, None, 2:5], gg[:, None, 5:8], pp[None, :, 2:5], pp[None, :, 5:8])
        if symmetric.size and symmetric[cell % k]:
            ok |= _arguments_match(gg[:, None, 2:5], gg[:, None, 5:8], pp[None, :, 5:8], pp[None, :, 2:5])
        if ok.any():
            match = maximum_bipartite_matching(csr_matrix(ok.astype(np.int8)), perm_type="column")
            tp[cell] = int((match >= 0).sum())
    shape = (gold.n_docs, k)
    return tp.reshape(shape), (pred_n - tp).reshape(shape), (gold_n - tp).reshape(shape), dup_g, dup_p


def _arguments_match(g_head: NDArray, g_tail: NDArray, p_head: NDArray, p_tail: NDArray) -> NDArray[np.bool_]:
    """Arguments (start, end, type) overlap by ≥ 1 token with equal types, for head and tail."""

    def overlap(a: NDArray, b: NDArray) -> NDArray[np.bool_]:
        return (a[..., 0] < b[..., 1]) & (b[..., 0] < a[..., 1]) & (a[..., 2] == b[..., 2])

    return overlap(g_head, p_head) & overlap(g_tail, p_tail)


def document_counts(
    gold: Sequence[Document],
    pred: Sequence[Document],
    criteria: Sequence[str] = (NER, STRICT, BOUNDARIES),
    symmetric: Iterable[str] = (),
    entity_types: Sequence[str] = (),
    relation_types: Sequence[str] = (),
) -> dict[str, DocumentCounts]:
    """Per-document × per-type TP/FP/FN of aligned gold and predicted documents, for each criterion.

    Types listed in `entity_types` / `relation_types` (e.g. from a SpERT types file) come first and always
    get a row; then gold types; then types that occur only in predictions (support 0).
    """
    if len(gold) != len(pred):
        raise ValueError(f"gold and pred differ in length: {len(gold)} vs {len(pred)}")
    unknown = [c for c in criteria if c not in CRITERIA]
    if unknown:
        raise OptionError(
            f"criteria: unknown criterion {unknown[0]!r} (known: {', '.join(CRITERIA)})", option="criteria"
        )
    return array_counts(
        E2EArrays.from_documents(gold),
        E2EArrays.from_documents(pred),
        criteria,
        symmetric,
        entity_types,
        relation_types,
    )


def array_counts(
    gold: E2EArrays,
    pred: E2EArrays,
    criteria: Sequence[str] = (NER, STRICT, BOUNDARIES),
    symmetric: Iterable[str] = (),
    entity_types: Sequence[str] = (),
    relation_types: Sequence[str] = (),
) -> dict[str, DocumentCounts]:
    """`document_counts` of aligned sentences as arrays: `pred`'s sentence numbers are gold positions
    (`releval.data.e2e.align_arrays`)."""
    if len(gold) != len(pred):
        raise ValueError(f"gold and pred differ in length: {len(gold)} vs {len(pred)}")
    unknown = [c for c in criteria if c not in CRITERIA]
    if unknown:
        raise OptionError(
            f"criteria: unknown criterion {unknown[0]!r} (known: {', '.join(CRITERIA)})", option="criteria"
        )
    vocab = TypeVocabulary(entity_types, relation_types)
    for side in (gold, pred):
        vocab.extend(_used(side.ent_type, side.entity_types), _used(side.rel_type, side.relation_types))
    g, p = _flat(gold, len(gold), vocab), _flat(pred, len(gold), vocab)
    sym_names = set(symmetric)
    sym = np.array([name in sym_names for name in vocab.relations], dtype=bool)
    digest = _digest(g, vocab)
    out: dict[str, DocumentCounts] = {}
    for criterion in criteria:
        if criterion == NER:
            labels, k = list(vocab.entities), len(vocab.entities)
        else:
            labels, k = list(vocab.relations), len(vocab.relations)
        if criterion == RELAXED:
            counts = _relaxed_counts(g, p, sym, k)
        else:
            counts = _set_counts(g, p, criterion, sym, k)
        out[criterion] = DocumentCounts(criterion, labels, *counts, gold_digest=digest)
    return out


def _digest(f: FlatDocuments, vocab: TypeVocabulary) -> str:
    """A short sha256 of the gold entities and relations, cheap on millions of facts.

    Types are hashed by name, renumbered over the names the gold uses, so the digest identifies the gold alone:
    neither a types file nor types that only a system predicts change it.
    """
    h = hashlib.sha256()
    columns: list[NDArray] = [f.ent_doc, f.ent_start, f.ent_end, f.rel_doc, f.rel_head, f.rel_tail]
    for codes, names in ((f.ent_type, list(vocab.entities)), (f.rel_type, list(vocab.relations))):
        used = np.unique(codes)
        order = sorted(range(used.shape[0]), key=lambda i: names[used[i]])
        rank = np.empty(used.shape[0], dtype=np.int64)
        rank[order] = np.arange(used.shape[0])
        h.update("\0".join(names[used[i]] for i in order).encode("utf-8") + b"|")
        columns.append(rank[np.searchsorted(used, codes)])
    for column in columns:
        h.update(np.ascontiguousarray(column, dtype=np.int64).tobytes())
    return h.hexdigest()[:8]


def reference_counts(
    gold: Sequence[Document], pred: Sequence[Document], criterion: str, symmetric: Iterable[str] = ()
) -> dict[str, tuple[int, int, int]]:
    """Straightforward per-sentence Python sets: {type: (tp, fp, fn)} — the oracle for the vectorised path."""
    sym = set(symmetric)

    def facts(doc: Document) -> set[tuple]:
        if criterion == NER:
            return {(t, s, e) for s, e, t in doc.entities}
        out = set()
        for h, tl, r in doc.relations:
            head: tuple = doc.entities[h]
            tail: tuple = doc.entities[tl]
            if criterion == BOUNDARIES:
                head, tail = head[:2], tail[:2]
            if r in sym and (tail[0], tail[1], *tail[2:]) < (head[0], head[1], *head[2:]):
                head, tail = tail, head
            out.add((r, head, tail))
        return out

    totals: dict[str, list[int]] = {}
    for g_doc, p_doc in zip(gold, pred):
        g, p = facts(g_doc), facts(p_doc)
        for fact in g | p:
            row = totals.setdefault(fact[0], [0, 0, 0])
            if fact in g and fact in p:
                row[0] += 1
            elif fact in p:
                row[1] += 1
            else:
                row[2] += 1
    return {t: (v[0], v[1], v[2]) for t, v in totals.items()}
