"""End-to-end RE data: sentences with entity mentions and relations, from SpERT/sincere JSON or PURE/DyGIE++ JSONL.

Canonical form (metrics notes §1.4, §3): one `Document` per sentence, entity spans `(start, end, type)` with an
exclusive end in sentence-level token offsets, relations `(head, tail, type)` indexing into the entities.
PURE/DyGIE++ documents (inclusive, document-level offsets) become one Document per sentence.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from releval.data.io import PathLike, read_bytes
from releval.errors import InputError, raise_all

FORMATS = ("spert", "dygie")
Entity = tuple[int, int, str]
Relation = tuple[int, int, str]
_MAX_ERRORS = 50


@dataclass(frozen=True)
class Document:
    """One sentence: tokens, entity mentions (start, end-exclusive, type) and relations (head, tail, type)."""

    id: str | None
    tokens: tuple[str, ...]
    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()


@dataclass(frozen=True)
class E2EDataset:
    """Documents of one file, by split (`train`/`dev`/`test` for a sincere split file, else the file's stem)."""

    path: str
    format: str
    splits: dict[str, list[Document]]
    notes: list[str] = field(default_factory=list)

    @property
    def documents(self) -> list[Document]:
        """All documents, splits concatenated in file order."""
        return [doc for docs in self.splits.values() for doc in docs]


@dataclass(frozen=True)
class TypeInventory:
    """SpERT's types file: entity and relation types in declaration order, and the symmetric relation types."""

    entities: tuple[str, ...]
    relations: tuple[str, ...]
    symmetric: frozenset[str]


# ----------------------------------------------------------------------------------------------- reading


def _parse(path: PathLike) -> tuple[str, Any]:
    """(format, parsed content): one JSON value (SpERT) or a list of JSON lines (DyGIE++)."""
    raw = read_bytes(path).removeprefix(b"\xef\xbb\xbf")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as whole:
        whole_error = str(whole)
        lines = raw.split(b"\n")
        records = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                records.append((number, orjson.loads(line)))
            except orjson.JSONDecodeError as exc:
                if number == 1 and len([x for x in lines if x.strip()]) == 1:
                    raise InputError(f"not valid JSON: {whole_error}", file=str(path)) from None
                raise InputError(f"not valid JSON: {exc}", file=str(path), line=number) from None
        data = records
        if not records or not all(isinstance(r, dict) and "sentences" in r for _, r in records):
            raise InputError("JSON lines without 'sentences': not a PURE/DyGIE++ file", file=str(path)) from None
        return "dygie", data
    if isinstance(data, dict) and "sentences" in data:
        return "dygie", [(1, data)]
    return "spert", data


def detect_format(path: PathLike) -> str:
    """'spert' (JSON list or split dict) or 'dygie' (JSON lines with doc_key and sentences)."""
    return _parse(path)[0]


def load_e2e(path: PathLike, role: str = "gold") -> E2EDataset:
    """Load a SpERT/sincere or PURE/DyGIE++ file; for DyGIE++ predictions `predicted_ner/relations` are read."""
    if role not in ("gold", "pred"):
        raise ValueError(f"role must be 'gold' or 'pred', not {role!r}")
    fmt, data = _parse(path)
    if fmt == "dygie":
        return _load_dygie(str(path), data, role)
    return _load_spert(str(path), data)


def _load_spert(path: str, data: Any) -> E2EDataset:
    if isinstance(data, dict):
        unknown = [k for k in data if not isinstance(data[k], list)]
        if unknown or not data:
            raise InputError(
                "expected a list of sentences or a {'train'|'dev'|'test': [...]} split dict", file=path, field=None
            )
        splits_raw = dict(data)
    elif isinstance(data, list):
        splits_raw = {Path(path).name.split(".")[0]: data}
    else:
        raise InputError("expected a JSON list of sentences or a split dict", file=path)
    errors: list[InputError] = []
    splits: dict[str, list[Document]] = {}
    for split, records in splits_raw.items():
        docs = []
        for index, record in enumerate(records):
            where = f"{split}[{index}]" if isinstance(data, dict) else f"record {index + 1}"
            try:
                docs.append(_spert_document(record, path, where))
            except InputError as exc:
                errors.append(exc)
                if len(errors) >= _MAX_ERRORS:
                    raise_all(errors)
        splits[split] = docs
    raise_all(errors)
    return E2EDataset(path, "spert", splits)


def _require(record: dict, key: str, kind: type | tuple[type, ...], path: str, where: str) -> Any:
    if key not in record:
        raise InputError(f"{where}: missing", file=path, field=key)
    value = record[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise InputError(f"{where}: expected {getattr(kind, '__name__', kind)}, got {value!r}", file=path, field=key)
    return value


def _spert_document(record: Any, path: str, where: str) -> Document:
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected an object", file=path)
    tokens = _require(record, "tokens", list, path, where)
    if not all(isinstance(t, str) for t in tokens):
        raise InputError(f"{where}: tokens must be strings", file=path, field="tokens")
    doc_id = record.get("orig_id")
    if doc_id is not None:
        where = f"{where} (orig_id {doc_id})"
    entities: list[Entity] = []
    for k, ent in enumerate(_require(record, "entities", list, path, where)):
        if not isinstance(ent, dict):
            raise InputError(f"{where}: entity {k} is not an object", file=path, field="entities")
        start = _require(ent, "start", int, path, f"{where} entity {k}")
        end = _require(ent, "end", int, path, f"{where} entity {k}")
        etype = _require(ent, "type", str, path, f"{where} entity {k}")
        if not 0 <= start < end <= len(tokens):
            raise InputError(
                f"{where}: entity {k} span [{start}, {end}) is empty or outside the {len(tokens)} tokens "
                "(end is exclusive)",
                file=path,
                field="entities",
            )
        entities.append((start, end, etype))
    relations: list[Relation] = []
    for k, rel in enumerate(record.get("relations", []) or []):
        if not isinstance(rel, dict):
            raise InputError(f"{where}: relation {k} is not an object", file=path, field="relations")
        head = _require(rel, "head", int, path, f"{where} relation {k}")
        tail = _require(rel, "tail", int, path, f"{where} relation {k}")
        rtype = _require(rel, "type", str, path, f"{where} relation {k}")
        for name, idx in (("head", head), ("tail", tail)):
            if not 0 <= idx < len(entities):
                raise InputError(
                    f"{where}: relation {k} {name} {idx} is not an index into its {len(entities)} entities",
                    file=path,
                    field="relations",
                )
        relations.append((head, tail, rtype))
    return Document(None if doc_id is None else str(doc_id), tuple(tokens), tuple(entities), tuple(relations))


def _load_dygie(path: str, records: list[tuple[int, dict]], role: str) -> E2EDataset:
    errors: list[InputError] = []
    docs: list[Document] = []
    notes: list[str] = []
    use_predicted = role == "pred" and any("predicted_ner" in r or "predicted_relations" in r for _, r in records)
    ner_key, rel_key = ("predicted_ner", "predicted_relations") if use_predicted else ("ner", "relations")
    if role == "pred" and not use_predicted:
        notes.append(f"{path}: no predicted_ner/predicted_relations; read 'ner' and 'relations' as the predictions")
    for line, record in records:
        try:
            docs.extend(_dygie_documents(record, path, line, ner_key, rel_key))
        except InputError as exc:
            errors.append(exc)
            if len(errors) >= _MAX_ERRORS:
                raise_all(errors)
    raise_all(errors)
    return E2EDataset(path, "dygie", {Path(path).name.split(".")[0]: docs}, notes)


def _dygie_documents(record: dict, path: str, line: int, ner_key: str, rel_key: str) -> list[Document]:
    doc_key = record.get("doc_key")
    if doc_key is None:
        raise InputError("missing", file=path, line=line, field="doc_key")
    sentences = record["sentences"]
    if not isinstance(sentences, list) or not all(
        isinstance(s, list) and all(isinstance(t, str) for t in s) for s in sentences
    ):
        raise InputError("expected a list of token lists", file=path, line=line, field="sentences")
    n = len(sentences)
    ner = record.get(ner_key, [[] for _ in sentences])
    rels = record.get(rel_key, [[] for _ in sentences])
    for key, value in ((ner_key, ner), (rel_key, rels)):
        if not isinstance(value, list) or len(value) != n:
            raise InputError(f"expected one list per sentence ({n})", file=path, line=line, field=key)
    docs = []
    offset = 0
    for i, tokens in enumerate(sentences):
        lo, hi = offset, offset + len(tokens) - 1
        doc_id = str(doc_key) if n == 1 else f"{doc_key}#{i}"
        entities: list[Entity] = []
        index: dict[tuple[int, int], int] = {}
        for k, item in enumerate(ner[i]):
            if not (isinstance(item, list) and len(item) >= 3 and _ints(item[:2]) and isinstance(item[2], str)):
                raise InputError(
                    f"sentence {i} item {k}: expected [start, end, label]", file=path, line=line, field=ner_key
                )
            s, e, label = item[0], item[1], item[2]
            if not lo <= s <= e <= hi:
                raise InputError(
                    f"sentence {i} item {k}: span [{s}, {e}] (inclusive, document offsets) outside the sentence's "
                    f"tokens [{lo}, {hi}]",
                    file=path,
                    line=line,
                    field=ner_key,
                )
            index.setdefault((s, e), len(entities))
            entities.append((s - offset, e - offset + 1, label))
        relations: list[Relation] = []
        for k, item in enumerate(rels[i]):
            if not (isinstance(item, list) and len(item) >= 5 and _ints(item[:4]) and isinstance(item[4], str)):
                raise InputError(
                    f"sentence {i} item {k}: expected [s1, e1, s2, e2, label]", file=path, line=line, field=rel_key
                )
            args = []
            for span in ((item[0], item[1]), (item[2], item[3])):
                if span not in index:
                    raise InputError(
                        f"sentence {i} item {k}: argument span {list(span)} is not an entity mention of {ner_key}",
                        file=path,
                        line=line,
                        field=rel_key,
                    )
                args.append(index[span])
            relations.append((args[0], args[1], item[4]))
        docs.append(Document(doc_id, tuple(tokens), tuple(entities), tuple(relations)))
        offset += len(tokens)
    return docs


def _ints(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def load_types(path: PathLike) -> TypeInventory:
    """SpERT's types file `{"entities": {T: {...}}, "relations": {R: {..., "symmetric": bool}}}`."""
    try:
        data = orjson.loads(read_bytes(path))
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc}", file=str(path)) from None
    if not isinstance(data, dict) or not isinstance(data.get("relations"), dict):
        raise InputError(
            "expected an object with 'entities' and 'relations' objects", file=str(path), field="relations"
        )
    entities = data.get("entities", {})
    if not isinstance(entities, dict):
        raise InputError("expected an object of entity types", file=str(path), field="entities")
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
                f"sentence {k + 1} has no id (orig_id / doc_key): align by position (--by-position) if the order is "
                "the gold order",
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
