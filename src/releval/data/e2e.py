"""End-to-end RE data: sentences with entity mentions and relations, from SpERT/sincere JSON or PURE/DyGIE++ JSONL.

Canonical form (metrics notes §1.4, §3): one `Document` per sentence, entity spans `(start, end, type)` with an
exclusive end in sentence-level token offsets, relations `(head, tail, type)` indexing into the entities.
PURE/DyGIE++ documents (inclusive, document-level offsets) become one Document per sentence.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from releval.data.decoding import CONTROL as _CONTROL
from releval.data.decoding import (
    exact_json,
    excerpt,
    first_repeated_key,
    json_problem,
    keys_may_repeat,
    parse_json,
    read_utf8,
    with_all_keys,
)
from releval.data.io import PathLike
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
    """(format, parsed content) of a file: see `_parse_bytes`."""
    return _parse_bytes(read_utf8(path), str(path))


def _parse_bytes(raw: bytes, name: str) -> tuple[str, Any]:
    """(format, parsed content): one JSON value (SpERT) or (line, value) pairs of JSON lines (DyGIE++).

    When the whole file is no JSON document, it is JSON lines if its first non-blank line is a JSON object on its
    own; otherwise it is one document with a syntax error, reported at the line and column where orjson stopped
    (a pretty-printed SpERT file used to be blamed on line 1). Blank lines between JSON lines are skipped.
    """
    if not raw.strip():
        raise InputError("file is empty", file=name)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as whole:
        lines = raw.split(b"\n")
        first = next(line for line in lines if line.strip())
        try:
            first_value = orjson.loads(first)
        except orjson.JSONDecodeError:
            first_value = None
        if not isinstance(first_value, dict):
            raise InputError(json_problem(whole), file=name, line=whole.lineno) from None
        return "dygie", _json_lines(lines, name)
    if isinstance(data, dict) and "sentences" in data:
        return "dygie", [(1, _exact_ids(data, raw, ("doc_key",)))]
    if isinstance(data, list) and any(isinstance(r, dict) and type(r.get("orig_id")) is float for r in data):
        data = _exact_ids(data, raw, ())
    elif isinstance(data, dict) and any(
        isinstance(r, dict) and type(r.get("orig_id")) is float for v in data.values() if isinstance(v, list) for r in v
    ):
        data = _exact_ids(data, raw, ())
    return "spert", data


def _exact_ids(value: Any, raw: bytes, keys: tuple[str, ...]) -> Any:
    """`value` re-read with exact integers when one of `keys` (or any, for `()`) holds a float: orjson reads an
    integer beyond 64 bits as a float, and two such ids could print alike."""
    if keys and not any(isinstance(value, dict) and type(value.get(k)) is float for k in keys):
        return value
    exact = exact_json(raw)
    return value if exact is None else exact


def _json_lines(lines: list[bytes], name: str) -> list[tuple[int, Any]]:
    """(line, value) of every non-blank line; every unreadable line is an InputError at that line (at most 50)."""
    records: list[tuple[int, Any]] = []
    errors: list[InputError] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            errors.append(InputError(json_problem(exc) + ": a JSON lines record is one line", file=name, line=number))
            if len(errors) >= _MAX_ERRORS:
                break
            continue
        records.append((number, _exact_ids(value, line, ("doc_key",))))
    raise_all(errors)
    if not any(isinstance(r, dict) and ("sentences" in r or "doc_key" in r) for _, r in records):
        raise InputError(
            "JSON lines without 'sentences' or 'doc_key': not a PURE/DyGIE++ file", file=name, line=records[0][0]
        )
    return records


def detect_format(path: PathLike) -> str:
    """'spert' (JSON list or split dict) or 'dygie' (JSON lines with doc_key and sentences)."""
    return _parse(path)[0]


def load_e2e(path: PathLike, role: str = "gold") -> E2EDataset:
    """Load a SpERT/sincere or PURE/DyGIE++ file; for DyGIE++ predictions `predicted_ner/relations` are read."""
    if role not in ("gold", "pred"):
        raise ValueError(f"role must be 'gold' or 'pred', not {role!r}")
    name = str(path)
    raw = read_utf8(path)
    fmt, data = _parse_bytes(raw, name)
    dataset = _load_dygie(name, data, role) if fmt == "dygie" else _load_spert(name, data)
    _check_repeated_keys(raw, fmt, data, name)
    return dataset


_SPERT_KEYS = {
    "sentence": ("tokens", "entities", "relations", "orig_id"),
    "entity": ("type", "start", "end"),
    "relation": ("type", "head", "tail"),
}
_DYGIE_KEYS = ("doc_key", "sentences", "ner", "relations", "predicted_ner", "predicted_relations")
_TWICE = "key written twice in one object (a JSON parser keeps only the last value)"


def _spert_objects(data: Any) -> list[tuple[str, str, Any]]:
    """(where, kind, object) of every sentence, entity and relation object of a loaded (checked) SpERT file."""
    splits = data.items() if isinstance(data, dict) else [(None, data)]
    out = []
    for split, records in splits:
        for index, rec in enumerate(records):
            where = f"{split}[{index}]" if split is not None else f"record {index + 1}"
            out.append((where, "sentence", rec))
            out += [(f"{where} entity {k}", "entity", e) for k, e in enumerate(rec["entities"])]
            out += [(f"{where} relation {k}", "relation", r) for k, r in enumerate(rec.get("relations") or [])]
    return out


def _check_repeated_keys(raw: bytes, fmt: str, data: Any, name: str) -> None:
    """A key that is read, written twice in one object, is an InputError there: parsers keep the last value.

    The byte counts of `keys_may_repeat` clear almost every file; only when they leave doubt is the file read again
    with the standard library's `json`, which shows every key (`with_all_keys`).
    """
    if fmt == "spert":
        records = [r for rs in (data.values() if isinstance(data, dict) else [data]) for r in rs]
        present = Counter(k for rec in records for k in _SPERT_KEYS["sentence"] if k in rec)
        n_entities = sum(len(rec["entities"]) for rec in records)  # checked: each has start, end and type
        n_relations = sum(len(rec.get("relations") or ()) for rec in records)  # each has head, tail and type
        present.update({"start": n_entities, "end": n_entities, "head": n_relations, "tail": n_relations})
        present["type"] = n_entities + n_relations
        keys = {k for ks in _SPERT_KEYS.values() for k in ks}
        if not keys_may_repeat(raw, keys, {k: present[k] for k in keys}):
            return
        again = with_all_keys(raw)
        if again is None:
            return
        for (where, kind, _), (_, _, obj) in zip(_spert_objects(data), _spert_objects(again)):
            twice = [k for k in getattr(obj, "repeated", []) if k in _SPERT_KEYS[kind]]
            if twice:
                raise InputError(f"{where}: {_TWICE}", file=name, field=twice[0])
        return
    present = Counter(k for _, rec in data for k in _DYGIE_KEYS if k in rec)
    if not keys_may_repeat(raw, _DYGIE_KEYS, {k: present[k] for k in _DYGIE_KEYS}):
        return
    lines = raw.split(b"\n")
    errors = []
    for line, _ in data:
        document = raw if len(data) == 1 else lines[line - 1]  # one document may span lines (pretty-printed)
        twice = [k for k in getattr(with_all_keys(document), "repeated", []) if k in _DYGIE_KEYS]
        if twice:
            errors.append(InputError(_TWICE, file=name, line=line, field=twice[0]))
    raise_all(errors[:_MAX_ERRORS])


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
    if not any(splits.values()):
        raise InputError("file has no sentences", file=path)
    return E2EDataset(path, "spert", splits)


def _require(record: dict, key: str, kind: type | tuple[type, ...], path: str, where: str) -> Any:
    if key not in record:
        raise InputError(f"{where}: missing", file=path, field=key)
    value = record[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise InputError(
            f"{where}: expected {getattr(kind, '__name__', kind)}, got {_kind(value)}", file=path, field=key
        )
    return value


def _checked_list(record: dict, key: str, path: str, where: str, *, required: bool = True) -> list:
    """record[key] as a list; absent or null is an empty list unless `required`; anything else is an InputError."""
    if key not in record and required:
        raise InputError(f"{where}: missing", file=path, field=key)
    value = record.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list):
        raise InputError(f"{where}: expected a list, got {_kind(value)}", file=path, field=key)
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return excerpt(str(value)) if isinstance(value, str) else f"the number {value!r}"
    return "a list" if isinstance(value, list) else "an object"


def type_name_problem(value: Any) -> str | None:
    """Why `value` cannot be an entity or relation type: not a string, empty, or holding a control character."""
    if not isinstance(value, str):
        return f"must be a string, got {_kind(value)}"
    if not value.strip():
        return "is empty"
    if _CONTROL.search(value):
        return f"{excerpt(value)} holds a control character"
    return None


def doc_id(value: Any) -> tuple[str | None, str | None]:
    """(id, None) for a sentence/document id — a string without surrounding white space or control characters, or
    an integer as its decimal digits — else (None, why not). Null is no id: (None, None)."""
    if value is None:
        return None, None
    if type(value) is int:
        return str(value), None
    if not isinstance(value, str):
        return None, f"must be a string or an integer, got {_kind(value)}"
    if not value or value != value.strip() or _CONTROL.search(value):
        return None, f"{excerpt(value)} is empty, has surrounding white space or holds a control character"
    return value, None


def _spert_document(record: Any, path: str, where: str) -> Document:
    """One SpERT/sincere sentence, every part checked before it is used (a wrong type is an InputError, never a
    TypeError): tokens, entities {type, start, end (exclusive)}, relations {type, head, tail} (absent or null:
    none), orig_id (optional)."""
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected an object, got {_kind(record)}", file=path)
    tokens = _checked_list(record, "tokens", path, where)
    if not all(isinstance(t, str) for t in tokens):
        raise InputError(f"{where}: tokens must be strings", file=path, field="tokens")
    sentence_id, problem = doc_id(record.get("orig_id"))
    if problem is not None:
        raise InputError(f"{where}: {problem}", file=path, field="orig_id")
    if sentence_id is not None:
        where = f"{where} (orig_id {sentence_id})"
    entities: list[Entity] = []
    for k, ent in enumerate(_checked_list(record, "entities", path, where)):
        if not isinstance(ent, dict):
            raise InputError(f"{where}: entity {k} is not an object", file=path, field="entities")
        start = _require(ent, "start", int, path, f"{where} entity {k}")
        end = _require(ent, "end", int, path, f"{where} entity {k}")
        etype = _require(ent, "type", str, path, f"{where} entity {k}")
        if (problem := type_name_problem(etype)) is not None:
            raise InputError(f"{where} entity {k}: type {problem}", file=path, field="entities")
        if not 0 <= start < end <= len(tokens):
            raise InputError(
                f"{where}: entity {k} span [{start}, {end}) is empty or outside the {len(tokens)} tokens "
                "(end is exclusive)",
                file=path,
                field="entities",
            )
        entities.append((start, end, etype))
    relations: list[Relation] = []
    for k, rel in enumerate(_checked_list(record, "relations", path, where, required=False)):
        if not isinstance(rel, dict):
            raise InputError(f"{where}: relation {k} is not an object", file=path, field="relations")
        head = _require(rel, "head", int, path, f"{where} relation {k}")
        tail = _require(rel, "tail", int, path, f"{where} relation {k}")
        rtype = _require(rel, "type", str, path, f"{where} relation {k}")
        if (problem := type_name_problem(rtype)) is not None:
            raise InputError(f"{where} relation {k}: type {problem}", file=path, field="relations")
        for name, idx in (("head", head), ("tail", tail)):
            if not 0 <= idx < len(entities):
                raise InputError(
                    f"{where}: relation {k} {name} {idx} is not an index into its {len(entities)} entities",
                    file=path,
                    field="relations",
                )
        relations.append((head, tail, rtype))
    return Document(sentence_id, tuple(tokens), tuple(entities), tuple(relations))


def _load_dygie(path: str, records: list[tuple[int, Any]], role: str) -> E2EDataset:
    errors: list[InputError] = []
    docs: list[Document] = []
    notes: list[str] = []
    use_predicted = role == "pred" and any(
        isinstance(r, dict) and ("predicted_ner" in r or "predicted_relations" in r) for _, r in records
    )
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
    if not docs:
        raise InputError("file has no sentences", file=path)
    return E2EDataset(path, "dygie", {Path(path).name.split(".")[0]: docs}, notes)


def _dygie_documents(record: Any, path: str, line: int, ner_key: str, rel_key: str) -> list[Document]:
    """The sentences of one PURE/DyGIE++ document, every part checked before it is used (InputErrors at `line`)."""
    if not isinstance(record, dict):
        raise InputError(f"expected a JSON object, got {_kind(record)}", file=path, line=line)
    if record.get("doc_key") is None:
        raise InputError("missing", file=path, line=line, field="doc_key")
    doc_key, problem = doc_id(record["doc_key"])
    if problem is not None:
        raise InputError(problem, file=path, line=line, field="doc_key")
    if "sentences" not in record:
        raise InputError("missing", file=path, line=line, field="sentences")
    sentences = record["sentences"]
    if not isinstance(sentences, list) or not all(
        isinstance(s, list) and all(isinstance(t, str) for t in s) for s in sentences
    ):
        raise InputError("expected a list of token lists", file=path, line=line, field="sentences")
    n = len(sentences)
    ner = record.get(ner_key, [[] for _ in sentences])
    rels = record.get(rel_key, [[] for _ in sentences])
    for key, value in ((ner_key, ner), (rel_key, rels)):
        if not isinstance(value, list) or len(value) != n or not all(isinstance(v, list) for v in value):
            raise InputError(f"expected one list per sentence ({n})", file=path, line=line, field=key)
    docs = []
    offset = 0
    for i, tokens in enumerate(sentences):
        lo, hi = offset, offset + len(tokens) - 1
        sentence_id = doc_key if n == 1 else f"{doc_key}#{i}"
        entities: list[Entity] = []
        index: dict[tuple[int, int], int] = {}
        for k, item in enumerate(ner[i]):
            if not (isinstance(item, list) and len(item) >= 3 and _ints(item[:2])) or type_name_problem(item[2]):
                raise InputError(
                    f"sentence {i} item {k}: expected [start, end, label] (a non-empty label)",
                    file=path,
                    line=line,
                    field=ner_key,
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
            if not (isinstance(item, list) and len(item) >= 5 and _ints(item[:4])) or type_name_problem(item[4]):
                raise InputError(
                    f"sentence {i} item {k}: expected [s1, e1, s2, e2, label] (a non-empty label)",
                    file=path,
                    line=line,
                    field=rel_key,
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
        docs.append(Document(sentence_id, tuple(tokens), tuple(entities), tuple(relations)))
        offset += len(tokens)
    return docs


def _ints(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


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
