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
from typing import Any

from releval.data.decoding import first_repeated_key, parse_json, read_utf8, with_all_keys
from releval.data.formats import E2E_FORMATS, read_e2e
from releval.data.formats.base import Document, E2EDataset, Entity, Relation
from releval.data.formats.common import doc_id, type_name_problem
from releval.data.io import PathLike
from releval.errors import InputError, raise_all

FORMATS = tuple(E2E_FORMATS)

__all__ = [
    "FORMATS",
    "AlignedDocuments",
    "Document",
    "E2EDataset",
    "Entity",
    "Relation",
    "TypeInventory",
    "align_documents",
    "detect_format",
    "doc_id",
    "load_any",
    "load_e2e",
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
    fmt, content = read_e2e(raw, name)
    return fmt.load(content, raw, name, role)


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
    split, gold_docs, notes = _pick_split(gold, pred, by_position)
    if by_position:
        if len(gold_docs) != len(pred_docs):
            raise InputError(
                f"{len(pred_docs)} predicted sentences for {len(gold_docs)} gold sentences (aligned by position)",
                file=pred.path,
            )
        pairs_pred = pred_docs
    else:
        gold_index = _id_index(gold_docs, gold.path)
        pred_index = _id_index(pred_docs, pred.path)
        missing = [i for i in gold_index if i not in pred_index]
        unknown = [i for i in pred_index if i not in gold_index]
        problems = []
        if missing:
            problems.append(f"{len(missing)} gold sentence id(s) without prediction, e.g. {', '.join(missing[:5])}")
        if unknown:
            problems.append(f"{len(unknown)} predicted id(s) not in gold, e.g. {', '.join(unknown[:5])}")
        if problems:
            raise InputError("; ".join(problems), file=pred.path, field="orig_id/doc_key")
        pairs_pred = [pred_docs[pred_index[d.id]] for d in gold_docs]  # type: ignore[index]
    errors = []
    for k, (g, p) in enumerate(zip(gold_docs, pairs_pred)):
        if g.tokens != p.tokens:
            where = f"id {g.id}" if not by_position and g.id is not None else f"sentence {k + 1}"
            diff = next(
                (i for i, (a, b) in enumerate(zip(g.tokens, p.tokens)) if a != b), min(len(g.tokens), len(p.tokens))
            )
            errors.append(
                InputError(
                    f"{where}: tokens differ from gold at token {diff} "
                    f"({len(g.tokens)} gold vs {len(p.tokens)} predicted tokens)",
                    file=pred.path,
                    field="tokens",
                )
            )
    raise_all(errors)
    return AlignedDocuments(gold_docs, list(pairs_pred), split, by_position, notes)


def _id_index(docs: list[Document], path: str) -> dict[str, int]:
    index: dict[str, int] = {}
    for k, doc in enumerate(docs):
        if doc.id is None:
            raise InputError(
                f"sentence {k + 1} has no id (orig_id / doc_key): align by position (by_position=True; "
                "--by-position on the command line) if the order is the gold order",
                file=path,
            )
        if doc.id in index:
            raise InputError(f"duplicated sentence id {doc.id}", file=path, field="orig_id/doc_key")
        index[doc.id] = k
    return index


def _pick_split(gold: E2EDataset, pred: E2EDataset, by_position: bool) -> tuple[str | None, list[Document], list]:
    if len(gold.splits) == 1:
        ((name, docs),) = gold.splits.items()
        return name, docs, []
    if len(pred.splits) > 1 and list(pred.splits) == list(gold.splits):
        return None, gold.documents, []
    pred_docs = pred.documents
    for name, docs in gold.splits.items():
        if by_position:
            fits = len(docs) == len(pred_docs) and all(g.tokens == p.tokens for g, p in zip(docs, pred_docs))
        else:
            fits = {d.id for d in docs} == {d.id for d in pred_docs}
        if fits:
            return name, docs, [f"gold split '{name}' used: its sentences match the predictions"]
    raise InputError(
        f"the predictions match none of the gold splits ({', '.join(gold.splits)}) as a whole; give a gold file "
        "with the evaluated split only",
        file=pred.path,
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
