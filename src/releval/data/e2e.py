"""End-to-end RE data: sentences with entity mentions and relations, from SpERT/sincere JSON or PURE/DyGIE++ JSONL.

Canonical form (metrics notes §1.4, §3): one `Document` per sentence, entity spans `(start, end, type)` with an
exclusive end in sentence-level token offsets, relations `(head, tail, type)` indexing into the entities.
PURE/DyGIE++ documents (inclusive, document-level offsets) become one Document per sentence.

The formats themselves live in `releval.data.formats` (`spert.py`, `dygie.py`); this module reads a file, lets
its content choose the format (`read_e2e`), and aligns and writes documents.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import ne
from typing import TYPE_CHECKING, Any

from releval.core.errors import InputError, raise_all
from releval.data.decoding import first_repeated_key, parse_json, read_utf8, with_all_keys
from releval.data.formats import E2E_FORMATS, e2e_formats, read_e2e
from releval.data.formats.base import Document, E2EDataset, Entity, Relation
from releval.data.formats.common import doc_id, type_name_problem
from releval.data.gc_pause import gc_paused
from releval.data.io import PathLike

if TYPE_CHECKING:
    from releval.data.e2e_arrays import E2EArrays, E2EArraysDataset

FORMATS = tuple(E2E_FORMATS)

__all__ = [
    "FORMATS",
    "AlignedArrays",
    "AlignedDocuments",
    "Document",
    "E2EDataset",
    "Entity",
    "Relation",
    "TypeInventory",
    "align_arrays",
    "align_documents",
    "detect_format",
    "doc_id",
    "load_any",
    "load_any_arrays",
    "load_e2e",
    "load_e2e_arrays",
    "load_types",
    "to_dygie",
    "to_spert",
    "type_name_problem",
]


@dataclass(frozen=True)
class TypeInventory:
    """SpERT's types file: entity and relation types in declaration order, and the symmetric relation types."""

    entities: tuple[str, ...]
    relations: tuple[str, ...]
    symmetric: frozenset[str]


# ----------------------------------------------------------------------------------------------- reading


def detect_format(path: PathLike) -> str:
    """'spert' (JSON list or split dict) or 'dygie' (JSON lines with doc_key and sentences)."""
    raw = read_utf8(path)
    return read_e2e(raw, str(path))[0].name


def load_e2e(path: PathLike, role: str = "gold") -> E2EDataset:
    """Load a SpERT/sincere or PURE/DyGIE++ file; for DyGIE++ predictions `predicted_ner/relations` are read."""
    if role not in ("gold", "pred"):
        raise ValueError(f"role must be 'gold' or 'pred', not {role!r}")
    name = str(path)
    raw = read_utf8(path)
    with gc_paused():
        fmt, content = read_e2e(raw, name)
        return fmt.load(content, raw, name, role)


def load_e2e_arrays(path: PathLike, role: str = "gold") -> E2EArraysDataset:
    """What `load_e2e` reads, with the same checks and errors, as flat arrays (`E2EArrays`). A format may read a
    well-formed file of its own straight into arrays (`read_arrays`, SpERT: typed decoding, no object per mention)
    and the content of a file `read_e2e` parsed (`load_arrays`); any other is read as Documents first.

    The cyclic garbage collector is paused while the file is parsed and read (`gc_paused`).
    """
    from releval.data.e2e_arrays import E2EArrays, E2EArraysDataset

    if role not in ("gold", "pred"):
        raise ValueError(f"role must be 'gold' or 'pred', not {role!r}")
    name = str(path)
    raw = read_utf8(path)
    with gc_paused():
        for candidate in e2e_formats():
            read_arrays = getattr(candidate, "read_arrays", None)
            fast: E2EArraysDataset | None = read_arrays(raw, name) if read_arrays is not None else None
            if fast is not None:
                return fast
        fmt, content = read_e2e(raw, name)
        load_arrays = getattr(fmt, "load_arrays", None)
        if load_arrays is not None:
            arrays: E2EArraysDataset = load_arrays(content, raw, name, role)
            return arrays
        dataset = fmt.load(content, raw, name, role)
        del content
        splits = {split: E2EArrays.from_documents(docs) for split, docs in dataset.splits.items()}
        return E2EArraysDataset(dataset.path, dataset.format, splits, dataset.notes, dataset.model_output)


def load_types(path: PathLike) -> TypeInventory:
    """SpERT's types file `{"entities": {T: {...}}, "relations": {R: {..., "symmetric": bool}}}`.

    Type names are non-empty without control characters; a name (or a key) written twice in one object is refused
    (the parser would keep the last silently; the file is small, so every object is checked).
    """
    raw = read_utf8(path)
    data = parse_json(raw, str(path))
    twice = first_repeated_key(with_all_keys(raw))
    if twice is not None:
        raise InputError(f"key {twice!r} written twice in one object", file=str(path))
    if not isinstance(data, dict) or not isinstance(data.get("relations"), dict):
        raise InputError(
            "expected an object with 'entities' and 'relations' objects", file=str(path), field="relations"
        )
    entities = data.get("entities", {})
    if not isinstance(entities, dict):
        raise InputError("expected an object of entity types", file=str(path), field="entities")
    for kind in ("entities", "relations"):
        for name in data.get(kind, {}):
            if (problem := type_name_problem(name)) is not None:
                raise InputError(f"type name {problem}", file=str(path), field=kind)
    symmetric = []
    for name, spec in data["relations"].items():
        flag = spec.get("symmetric", False) if isinstance(spec, dict) else None
        if not isinstance(flag, bool):
            raise InputError(
                f"relation type '{name}': 'symmetric' must be true or false", file=str(path), field="relations"
            )
        if flag:
            symmetric.append(name)
    return TypeInventory(tuple(entities), tuple(data["relations"]), frozenset(symmetric))


def load_any_arrays(data: PathLike | E2EDataset | Sequence[Document], role: str) -> E2EArraysDataset:
    """`load_any` as arrays: a path is read by `load_e2e_arrays`; Documents are turned into arrays."""
    from releval.data.e2e_arrays import E2EArrays, E2EArraysDataset

    if isinstance(data, (str, os.PathLike)):
        return load_e2e_arrays(data, role)
    dataset = load_any(data, role)
    splits = {split: E2EArrays.from_documents(docs) for split, docs in dataset.splits.items()}
    return E2EArraysDataset(dataset.path, dataset.format, splits, dataset.notes, dataset.model_output)


def load_any(data: PathLike | E2EDataset | Sequence[Document], role: str) -> E2EDataset:
    """A path is loaded; a dataset is kept; a list of Documents becomes a one-split dataset."""
    if isinstance(data, E2EDataset):
        return data
    if isinstance(data, (str, os.PathLike)):
        return load_e2e(data, role)
    return E2EDataset(f"<{role} documents>", "documents", {role: list(data)})


# ----------------------------------------------------------------------------------------------- alignment


@dataclass(frozen=True)
class AlignedDocuments:
    """Gold and predicted documents in the same order (same tokens), with the gold split used."""

    gold: list[Document]
    pred: list[Document]
    split: str | None
    by_position: bool
    notes: list[str] = field(default_factory=list)


def align_documents(gold: E2EDataset, pred: E2EDataset, by_position: bool = False) -> AlignedDocuments:
    """Pair predictions with gold by id (orig_id / doc_key), or by position when asked; tokens must be identical.

    When the gold file has several splits and the predictions one, the gold split whose ids (or, by position,
    whose length and tokens) match the predictions is used, and a note says which.
    """
    pred_docs = pred.documents
    splits = {name: _Sentences.of_documents(docs) for name, docs in gold.splits.items()}
    split, chosen, order, notes = _align(
        splits, _Sentences.of_documents(pred_docs), list(pred.splits), gold.path, pred.path, by_position
    )
    gold_docs = gold.splits[chosen] if chosen is not None else gold.documents
    return AlignedDocuments(gold_docs, [pred_docs[k] for k in order], split, by_position, notes)


@dataclass(frozen=True)
class AlignedArrays:
    """`AlignedDocuments` as arrays: the gold sentences used, and the predictions renumbered to the gold order."""

    gold: E2EArrays
    pred: E2EArrays
    split: str | None
    by_position: bool
    notes: list[str] = field(default_factory=list)


def align_arrays(gold: E2EArraysDataset, pred: E2EArraysDataset, by_position: bool = False) -> AlignedArrays:
    """`align_documents` on arrays: the same rules and errors; the predictions' sentences are renumbered (their
    rows stay where they are)."""
    from releval.data.e2e_arrays import E2EArrays

    pred_arrays = pred.documents
    joined = pred_arrays.joined and all(a.joined for a in gold.splits.values())  # else compare tuples

    def sentences(a: E2EArrays) -> _Sentences:
        return _Sentences(a.ids, a.tokens if joined else a.token_tuples())

    splits = {name: sentences(a) for name, a in gold.splits.items()}
    split, chosen, order, notes = _align(
        splits, sentences(pred_arrays), list(pred.splits), gold.path, pred.path, by_position
    )
    gold_arrays = gold.splits[chosen] if chosen is not None else gold.documents
    position = [0] * len(order)
    for g, k in enumerate(order):
        position[k] = g
    return AlignedArrays(gold_arrays, E2EArrays.aligned(pred_arrays, position), split, by_position, notes)


@dataclass(frozen=True)
class _Sentences:
    """What alignment looks at: the ids and tokens of sentences."""

    ids: list[str | None]
    tokens: list[Any]  # tuples of strings, or NUL-joined keys (E2EArrays.joined)

    @classmethod
    def of_documents(cls, docs: Sequence[Document]) -> _Sentences:
        return cls([d.id for d in docs], [d.tokens for d in docs])

    @classmethod
    def joined(cls, parts: Sequence[_Sentences]) -> _Sentences:
        return cls([i for p in parts for i in p.ids], [t for p in parts for t in p.tokens])


def _align(
    gold: dict[str, _Sentences],
    pred: _Sentences,
    pred_splits: list[str],
    gold_path: str,
    pred_path: str,
    by_position: bool,
) -> tuple[str | None, str | None, list[int], list[str]]:
    """(split reported, gold split used — None for all —, the predicted sentence of each gold sentence, notes)."""
    split, chosen, notes = _pick_split(gold, pred, pred_splits, by_position, pred_path)
    used = gold[chosen] if chosen is not None else _Sentences.joined(list(gold.values()))
    if by_position:
        if len(used.ids) != len(pred.ids):
            raise InputError(
                f"{len(pred.ids)} predicted sentences for {len(used.ids)} gold sentences (aligned by position)",
                file=pred_path,
            )
        order = list(range(len(pred.ids)))
    else:
        gold_index = _id_index(used.ids, gold_path)
        pred_index = _id_index(pred.ids, pred_path)
        same = gold_index.keys() == pred_index.keys()
        missing = [] if same else [i for i in gold_index if i not in pred_index]
        unknown = [] if same else [i for i in pred_index if i not in gold_index]
        problems = []
        if missing:
            problems.append(f"{len(missing)} gold sentence id(s) without prediction, e.g. {', '.join(missing[:5])}")
        if unknown:
            problems.append(f"{len(unknown)} predicted id(s) not in gold, e.g. {', '.join(unknown[:5])}")
        if problems:
            raise InputError("; ".join(problems), file=pred_path, field="orig_id/doc_key")
        order = [pred_index[i] for i in used.ids]  # type: ignore[index]
    pred_tokens = [pred.tokens[k] for k in order]
    errors = []
    differing = [] if used.tokens == pred_tokens else [k for k, d in enumerate(map(ne, used.tokens, pred_tokens)) if d]
    for k in differing:
        g_tokens, p_tokens, g_id = _token_list(used.tokens[k]), _token_list(pred_tokens[k]), used.ids[k]
        where = f"id {g_id}" if not by_position and g_id is not None else f"sentence {k + 1}"
        diff = next(
            (i for i, (a, b) in enumerate(zip(g_tokens, p_tokens)) if a != b), min(len(g_tokens), len(p_tokens))
        )
        errors.append(
            InputError(
                f"{where}: tokens differ from gold at token {diff} "
                f"({len(g_tokens)} gold vs {len(p_tokens)} predicted tokens)",
                file=pred_path,
                field="tokens",
            )
        )
    raise_all(errors)
    return split, chosen, order, notes


def _token_list(tokens: Sequence[str] | str) -> Sequence[str]:
    """A sentence's tokens, from a tuple or from the NUL-joined key of `E2EArrays` (`token_keys`)."""
    return tokens.split("\x00") if isinstance(tokens, str) else tokens


def _id_index(ids: list[str | None], path: str) -> dict[str, int]:
    fast = dict(zip(ids, range(len(ids))))
    if len(fast) == len(ids) and None not in fast:
        return fast  # type: ignore[return-value]
    index: dict[str, int] = {}
    for k, doc_id_ in enumerate(ids):
        if doc_id_ is None:
            raise InputError(
                f"sentence {k + 1} has no id (orig_id / doc_key): align by position (by_position=True; "
                "--by-position on the command line) if the order is the gold order",
                file=path,
            )
        if doc_id_ in index:
            raise InputError(f"duplicated sentence id {doc_id_}", file=path, field="orig_id/doc_key")
        index[doc_id_] = k
    return index


def _pick_split(
    gold: dict[str, _Sentences], pred: _Sentences, pred_splits: list[str], by_position: bool, pred_path: str
) -> tuple[str | None, str | None, list[str]]:
    """(split reported, gold split used — None for all splits —, notes)."""
    if len(gold) == 1:
        (name,) = gold
        return name, name, []
    if len(pred_splits) > 1 and pred_splits == list(gold):
        return None, None, []
    for name, sentences in gold.items():
        if by_position:
            fits = len(sentences.ids) == len(pred.ids) and sentences.tokens == pred.tokens
        else:
            fits = set(sentences.ids) == set(pred.ids)
        if fits:
            return name, name, [f"gold split '{name}' used: its sentences match the predictions"]
    raise InputError(
        f"the predictions match none of the gold splits ({', '.join(gold)}) as a whole; give a gold file "
        "with the evaluated split only",
        file=pred_path,
    )


# ----------------------------------------------------------------------------------------------- writing


def to_spert(docs: Sequence[Document]) -> list[dict]:
    """SpERT/sincere records (the id becomes `orig_id`)."""
    out = []
    for doc in docs:
        record: dict[str, Any] = {
            "tokens": list(doc.tokens),
            "entities": [{"type": t, "start": s, "end": e} for s, e, t in doc.entities],
            "relations": [{"type": t, "head": h, "tail": tl} for h, tl, t in doc.relations],
        }
        if doc.id is not None:
            record["orig_id"] = doc.id
        out.append(record)
    return out


def to_dygie(docs: Sequence[Document], predicted: bool = False, doc_key_prefix: str = "") -> list[dict]:
    """One PURE/DyGIE++ document per sentence (inclusive offsets); `predicted` writes predicted_ner/relations."""
    ner_key, rel_key = ("predicted_ner", "predicted_relations") if predicted else ("ner", "relations")
    out = []
    for k, doc in enumerate(docs):
        ner = [[s, e - 1, t] for s, e, t in doc.entities]
        rels = [
            [doc.entities[h][0], doc.entities[h][1] - 1, doc.entities[tl][0], doc.entities[tl][1] - 1, t]
            for h, tl, t in doc.relations
        ]
        key = doc_key_prefix + (doc.id if doc.id is not None else str(k))
        out.append({"doc_key": key, "sentences": [list(doc.tokens)], ner_key: [ner], rel_key: [rels]})
    return out
