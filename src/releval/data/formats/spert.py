"""`spert`: SpERT / sincere JSON, sentences with entity mentions and relations (end-to-end RE).

The format SpERT (Eberts & Ulges 2020) reads and writes its CoNLL04, SciERC and ADE data in, as redistributed by
btaille/sincere (Taillé et al. 2020), whose all-splits file bundles the splits in one object: a JSON list of
sentences, or an object of such lists by split (`{"train": [...], "dev": [...], "test": [...]}`). Entity spans are
token offsets with an exclusive end; relations index into the sentence's entities; `orig_id` is optional:

    [{"tokens": ["John", "works", "for", "Acme", "."],
      "entities": [{"type": "Peop", "start": 0, "end": 1}, {"type": "Org", "start": 3, "end": 4}],
      "relations": [{"type": "Work_For", "head": 0, "tail": 1}], "orig_id": 2447},
     ...]

Sentences are located by their place (`test[3]`, or `record 4` in a plain list), since a pretty-printed file
spreads one over many lines.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from itertools import chain, repeat
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import orjson

from releval.core.errors import InputError, raise_all
from releval.data.decoding import keys_may_repeat, with_all_keys
from releval.data.formats.base import Document, E2EDataset, E2EFormat, Entity, Evidence, Head, Relation
from releval.data.formats.common import MAX_ERRORS, TWICE, doc_id, exact_ids, ids_ok, json_kind, type_name_problem

if TYPE_CHECKING:
    from releval.data.e2e_arrays import E2EArrays, E2EArraysDataset

KEYS = {
    "sentence": ("tokens", "entities", "relations", "orig_id"),
    "entity": ("type", "start", "end"),
    "relation": ("type", "head", "tail"),
}
_SPLIT_DICT = re.compile(r'^\{\s*"(train|dev|test)"\s*:')


class Spert(E2EFormat):
    """A list of sentences or a split dict; every JSON document but a single PURE/DyGIE++ one is read as this."""

    name = "spert"

    def sniff(self, head: Head) -> Evidence | None:
        """A split dict's opening, or `tokens` and `entities` in the first record."""
        first_record = head.stripped[:4096]
        if _SPLIT_DICT.match(head.stripped) or ('"tokens"' in first_record and '"entities"' in first_record):
            return Evidence.SIGNATURE
        return None

    def claims(self, document: Any) -> bool:
        """Any JSON document except a PURE/DyGIE++ document (an object with `sentences`); the loader says what is
        wrong with one that is no list of sentences or split dict."""
        return not (isinstance(document, dict) and "sentences" in document)

    def content(self, document: Any, data: bytes) -> Any:
        """The document, re-read with exact integers when an `orig_id` is a float (beyond 64 bits)."""
        if isinstance(document, list) and any(
            isinstance(r, dict) and type(r.get("orig_id")) is float for r in document
        ):
            return exact_ids(document, data, ())
        if isinstance(document, dict) and any(
            isinstance(r, dict) and type(r.get("orig_id")) is float
            for v in document.values()
            if isinstance(v, list)
            for r in v
        ):
            return exact_ids(document, data, ())
        return document

    def load(self, content: Any, data: bytes, name: str, role: str) -> E2EDataset:
        dataset = _load_spert(name, content)
        _check_repeated_keys(data, content, name)
        return dataset

    def load_arrays(self, content: Any, data: bytes, name: str, role: str) -> E2EArraysDataset:
        """What `load` reads, with the same checks and errors, as flat arrays: a well-formed file is checked and
        read column by column, without a Python object per mention; any other goes through `load`'s sentence by
        sentence reading, which finds and locates every problem."""
        from releval.data.e2e_arrays import E2EArrays, E2EArraysDataset

        arrays = _fast_arrays(_raw_splits(name, content))
        if arrays is None:
            dataset = _load_spert(name, content)
            arrays = {split: E2EArrays.from_documents(docs) for split, docs in dataset.splits.items()}
        elif not any(len(a) for a in arrays.values()):
            raise InputError("file has no sentences", file=name)
        _check_repeated_keys(data, content, name)
        return E2EArraysDataset(name, "spert", arrays)

    def read_arrays(self, data: bytes, name: str) -> E2EArraysDataset | None:
        """The file's sentences as arrays when it is a well-formed SpERT document whose objects hold only the keys
        releval reads: split into its sentences' raw text, then decoded into typed records `_BATCH` sentences at a
        time (msgspec checks every type while it parses, and makes no dict per mention), each batch checked column
        by column and turned into arrays before the next is decoded. None for any other file, which `read_e2e` and
        `load_arrays` then read, check and locate as always (so nothing this accepts is refused there, and the
        reverse)."""
        from releval.data.e2e_arrays import E2EArrays, E2EArraysDataset

        try:
            document = _raw_decoder().decode(data)
        except (msgspec.MsgspecError, ValueError, RecursionError):
            return None
        if isinstance(document, dict):
            if not document or "sentences" in document:
                return None  # refused, or a PURE/DyGIE++ document
            splits = document
        else:
            splits = {Path(name).name.split(".")[0]: document}
        if not any(splits.values()):
            return None
        entity_types: dict[str, int] = {}
        relation_types: dict[str, int] = {}
        arrays = {}
        strings = len(document) if isinstance(document, dict) else 0  # split names
        no_nul = b"\\u0000" not in data
        try:
            for split, records in splits.items():
                parts = []
                for start in range(0, len(records), _BATCH):
                    batch = list(map(_sentence_decoder().decode, records[start : start + _BATCH]))
                    found, held = _typed_columns(batch, entity_types, relation_types, no_nul)
                    if found is None:
                        return None
                    # the type tables as they stand: this batch's codes index them (`concat` reads them)
                    parts.append(replace(found, entity_types=list(entity_types), relation_types=list(relation_types)))
                    strings += held
                    del batch
                    records[start : start + _BATCH] = repeat(None, min(_BATCH, len(records) - start))
                if not parts:
                    found, _ = _typed_columns([], entity_types, relation_types, no_nul)
                    parts.append(found)  # type: ignore[arg-type]
                arrays[split] = E2EArrays.concat(parts)
        except (msgspec.MsgspecError, ValueError, OverflowError, RecursionError):
            return None
        if _string_delimiters(data) != 2 * strings:
            return None  # a key written twice (or escaped backslashes): the thorough path finds and locates it
        if any(type_name_problem(name) is not None for name in chain(entity_types, relation_types)):
            return None
        e_names, r_names = list(entity_types), list(relation_types)
        return E2EArraysDataset(
            name,
            "spert",
            {split: replace(a, entity_types=e_names, relation_types=r_names) for split, a in arrays.items()},
        )

    def dangling(self, data: bytes, role: str) -> list[str]:
        try:
            document = orjson.loads(data)
            records = (
                document
                if isinstance(document, list)
                else [x for v in document.values() if isinstance(v, list) for x in v]
            )
            return _dangling(records)
        except (orjson.JSONDecodeError, TypeError, KeyError, IndexError, AttributeError):
            return []


def _dangling(records: list[Any]) -> list[str]:
    out = []
    for k, rec in enumerate(records):
        n = len(rec.get("entities", []))
        for j, rel in enumerate(rec.get("relations", []) or []):
            if not (0 <= rel["head"] < n and 0 <= rel["tail"] < n):
                out.append(
                    f"record {k + 1} (orig_id {rec.get('orig_id')}) relation {j}: head {rel['head']}, "
                    f"tail {rel['tail']}, {n} entities"
                )
    return out


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


def _check_repeated_keys(raw: bytes, data: Any, name: str) -> None:
    """A key that is read, written twice in one object, is an InputError there: parsers keep the last value.

    The byte counts of `keys_may_repeat` clear almost every file; only when they leave doubt is the file read again
    with the standard library's `json`, which shows every key (`with_all_keys`).
    """
    if _no_key_repeats(raw, data):
        return
    records = [r for rs in (data.values() if isinstance(data, dict) else [data]) for r in rs]
    present = Counter(k for rec in records for k in KEYS["sentence"] if k in rec)
    n_entities = sum(len(rec["entities"]) for rec in records)  # checked: each has start, end and type
    n_relations = sum(len(rec.get("relations") or ()) for rec in records)  # each has head, tail and type
    present.update({"start": n_entities, "end": n_entities, "head": n_relations, "tail": n_relations})
    present["type"] = n_entities + n_relations
    keys = {k for ks in KEYS.values() for k in ks}
    if not keys_may_repeat(raw, keys, {k: present[k] for k in keys}):
        return
    again = with_all_keys(raw)
    if again is None:
        return
    for (where, kind, _), (_, _, obj) in zip(_spert_objects(data), _spert_objects(again)):
        twice = [k for k in getattr(obj, "repeated", []) if k in KEYS[kind]]
        if twice:
            raise InputError(f"{where}: {TWICE}", file=name, field=twice[0])


def _no_key_repeats(raw: bytes, data: Any) -> bool:
    """True when certainly no object of the (checked) SpERT document `data` was written with a key twice.

    Without backslashes every `"` of JSON text delimits a string, so the file holds half as many strings as quotes
    (with backslashes but no escaped backslash, an escaped quote is `\\"`). A parser drops a repeated key, so the file
    holds exactly as many strings as the parsed document — keys and string values — only when nothing was repeated.
    Counting the document's strings is cheap when its objects hold the keys releval reads and nothing else; for
    other files this answers False and `_check_repeated_keys` looks key by key.
    """
    delimiters = _string_delimiters(raw)
    if delimiters is None:
        return False
    splits = list(data.values()) if isinstance(data, dict) else [data]
    strings = len(data) if isinstance(data, dict) else 0
    known = set(KEYS["sentence"])
    for records in splits:
        if {key for record in records for key in record} - known:
            return False
        entities: list[dict[str, Any]] = list(chain.from_iterable(map(itemgetter("entities"), records)))
        relations: list[dict[str, Any]] = list(
            chain.from_iterable(filter(None, map(dict.get, records, repeat("relations"))))
        )
        if set(map(len, entities)) - {3} or set(map(len, relations)) - {3}:
            return False  # each has its three keys (checked): a fourth is a key that is not read
        strings += sum(map(len, records)) + sum(map(len, map(itemgetter("tokens"), records)))
        strings += sum(type(x) is str for x in map(dict.get, records, repeat("orig_id")))
        strings += 4 * (len(entities) + len(relations))  # three keys and the type name each
    return delimiters == 2 * strings


def _fast_arrays(splits: dict[str, list]) -> dict[str, E2EArrays] | None:
    """The arrays of every split when every record is well-formed, checked column by column (the checks of
    `_spert_document`, on whole columns); None when something needs a closer look."""
    entity_types: dict[str, int] = {}
    relation_types: dict[str, int] = {}
    columns: dict[str, E2EArrays] = {}
    try:
        for split, records in splits.items():
            found = _split_columns(records, entity_types, relation_types)
            if found is None:
                return None
            columns[split] = found
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    if any(type_name_problem(name) is not None for name in chain(entity_types, relation_types)):
        return None
    e_names, r_names = list(entity_types), list(relation_types)
    return {split: replace(a, entity_types=e_names, relation_types=r_names) for split, a in columns.items()}


def _ids(values: list) -> list[str | None] | None:
    """Sentence ids as `doc_id` reads them, or None when one is refused (or needs a closer look)."""
    kinds = set(map(type, values))
    if kinds - {str, int, type(None)}:
        return None
    strings = values if kinds == {str} else [x for x in values if type(x) is str]
    if strings and not ids_ok(strings):
        return None
    if kinds == {str}:
        return values
    return [x if x is None or type(x) is str else str(x) for x in values]


def _split_columns(records: list, entity_types: dict[str, int], relation_types: dict[str, int]) -> E2EArrays | None:
    """The arrays of one split's records (type codes into the tables given, which the caller stores), or None."""
    if set(map(type, records)) - {dict}:
        return None
    tokens = list(map(itemgetter("tokens"), records))
    if set(map(type, tokens)) - {list} or set(map(type, chain.from_iterable(tokens))) - {str}:
        return None
    ids = _ids(list(map(dict.get, records, repeat("orig_id"))))
    entity_lists = list(map(itemgetter("entities"), records))
    relation_lists: list[Any] = list(map(dict.get, records, repeat("relations")))
    kinds = set(map(type, relation_lists))
    if ids is None or set(map(type, entity_lists)) - {list} or kinds - {list, type(None)}:
        return None
    if type(None) in kinds:
        relation_lists = [[] if r is None else r for r in relation_lists]
    entities = list(chain.from_iterable(entity_lists))
    relations = list(chain.from_iterable(relation_lists))
    if set(map(type, entities)) - {dict} or set(map(type, relations)) - {dict}:
        return None
    starts, ends, heads, tails = (
        list(map(itemgetter(key), rows))
        for key, rows in (("start", entities), ("end", entities), ("head", relations), ("tail", relations))
    )
    names = list(map(itemgetter("type"), entities)), list(map(itemgetter("type"), relations))
    if set(map(type, chain(starts, ends, heads, tails))) - {int} or set(map(type, chain(*names))) - {str}:
        return None  # a bool is no int here, as in `_require`
    columns = (starts, ends, names[0]), (heads, tails, names[1])
    return _arrays(ids, tokens, entity_lists, relation_lists, columns, entity_types, relation_types)


def _arrays(
    ids: list[str | None],
    tokens: list,
    entity_lists: list,
    relation_lists: list,
    columns: tuple[tuple[list, list, list], tuple[list, list, list]],
    entity_types: dict[str, int],
    relation_types: dict[str, int],
    no_nul: bool = False,
) -> E2EArrays | None:
    """The arrays of one split from its (type-checked) columns — (starts, ends, types), (heads, tails, types) — when
    every span lies inside its sentence and every relation argument indexes its sentence's mentions; else None."""
    import numpy as np

    from releval.data.e2e_arrays import E2EArrays, ints, token_keys, type_codes

    (starts, ends, entity_names), (heads, tails, relation_names) = columns
    n = len(tokens)
    n_tokens = np.fromiter(map(len, tokens), np.int64, n)
    n_ent = np.fromiter(map(len, entity_lists), np.int64, n)
    n_rel = np.fromiter(map(len, relation_lists), np.int64, n)
    ent_doc = np.repeat(np.arange(n, dtype=np.int64), n_ent)
    rel_doc = np.repeat(np.arange(n, dtype=np.int64), n_rel)
    start, end, head, tail = ints(starts), ints(ends), ints(heads), ints(tails)
    if not np.all((start >= 0) & (start < end) & (end <= n_tokens[ent_doc])):
        return None
    limit = n_ent[rel_doc]
    if not np.all((head >= 0) & (head < limit) & (tail >= 0) & (tail < limit)):
        return None
    offsets = (np.cumsum(n_ent) - n_ent)[rel_doc]
    keys, joined = token_keys(tokens, n_tokens, no_nul)
    return E2EArrays(
        ids,
        keys,
        ent_doc,
        start,
        end,
        type_codes(entity_names, entity_types),
        rel_doc,
        head + offsets,
        tail + offsets,
        type_codes(relation_names, relation_types),
        [],
        [],
        joined,
    )


class _Mention(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str
    start: int
    end: int


class _Relation(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str
    head: int
    tail: int


class _Sentence(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    tokens: tuple[str, ...]
    entities: list[_Mention]
    relations: list[_Relation] | None | msgspec.UnsetType = msgspec.UNSET
    orig_id: int | str | None | msgspec.UnsetType = msgspec.UNSET


#: Sentences decoded into typed records at a time: the records of one batch are turned into arrays and dropped
#: before the next is decoded, so the typed records (several times the text's size) never exist for a whole file.
_BATCH = 1 << 15

_decoders: dict[str, msgspec.json.Decoder] = {}


def _raw_decoder() -> msgspec.json.Decoder:
    """A SpERT file as its sentences' raw JSON text (`msgspec.Raw`, a view into the file: no object per value)."""
    if "raw" not in _decoders:
        _decoders["raw"] = msgspec.json.Decoder(list[msgspec.Raw] | dict[str, list[msgspec.Raw]])
    return _decoders["raw"]


def _sentence_decoder() -> msgspec.json.Decoder:
    """One sentence's raw JSON text as a typed record (msgspec checks every type while it parses)."""
    if "sentence" not in _decoders:
        _decoders["sentence"] = msgspec.json.Decoder(_Sentence)
    return _decoders["sentence"]


def _string_delimiters(raw: bytes) -> int | None:
    """How many `"` of JSON text `raw` delimit strings; None when escaped backslashes make that costly to tell."""
    if b"\\" not in raw:
        return _quotes(raw)
    if b"\\\\" in raw:
        return None
    return _quotes(raw) - raw.count(b'\\"')


def _quotes(raw: bytes, block: int = 1 << 24) -> int:
    """`raw.count(b'"')`, several times faster on large files (NumPy, 16 MiB at a time)."""
    if len(raw) < block:
        return raw.count(b'"')
    import numpy as np

    data = np.frombuffer(raw, dtype=np.uint8)
    return sum(int(np.count_nonzero(data[k : k + block] == 34)) for k in range(0, data.size, block))


def _typed_columns(
    records: list[_Sentence], entity_types: dict[str, int], relation_types: dict[str, int], no_nul: bool
) -> tuple[E2EArrays | None, int]:
    """`_split_columns` for typed records (whose types msgspec checked), or None; and how many strings (keys and
    string values) the records hold, which tells whether a key was repeated (see `_no_key_repeats`). `no_nul`: the
    file holds no `\\u0000`, the only way JSON text can put NUL in a token."""
    unset = msgspec.UNSET
    raw_ids = list(map(attrgetter("orig_id"), records))
    raw_relations = list(map(attrgetter("relations"), records))
    keys = 2 * len(records) + len(records) - raw_ids.count(unset) + len(records) - raw_relations.count(unset)
    if unset in raw_ids:
        raw_ids = [None if x is unset else x for x in raw_ids]
    ids = _ids(raw_ids)
    if ids is None:
        return None, 0
    entity_lists = list(map(attrgetter("entities"), records))
    relation_lists: list[Any] = [r or [] for r in raw_relations]
    entities = list(chain.from_iterable(entity_lists))
    relations = list(chain.from_iterable(relation_lists))
    columns = (
        tuple(list(map(attrgetter(key), entities)) for key in ("start", "end", "type")),
        tuple(list(map(attrgetter(key), relations)) for key in ("head", "tail", "type")),
    )
    tokens = list(map(attrgetter("tokens"), records))
    values = sum(map(len, tokens)) + sum(type(x) is str for x in raw_ids) + len(entities) + len(relations)
    strings = keys + values + 3 * (len(entities) + len(relations))  # each mention: three keys and its type name
    found = _arrays(ids, tokens, entity_lists, relation_lists, columns, entity_types, relation_types, no_nul)  # type: ignore[arg-type]
    return found, strings


def _raw_splits(path: str, data: Any) -> dict[str, list]:
    """The record lists of a SpERT document by split (a plain list: one split named after the file)."""
    if isinstance(data, dict):
        unknown = [k for k in data if not isinstance(data[k], list)]
        if unknown or not data:
            raise InputError(
                "expected a list of sentences or a {'train'|'dev'|'test': [...]} split dict", file=path, field=None
            )
        return dict(data)
    if isinstance(data, list):
        return {Path(path).name.split(".")[0]: data}
    raise InputError("expected a JSON list of sentences or a split dict", file=path)


def _load_spert(path: str, data: Any) -> E2EDataset:
    splits_raw = _raw_splits(path, data)
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
                if len(errors) >= MAX_ERRORS:
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
            f"{where}: expected {getattr(kind, '__name__', kind)}, got {json_kind(value)}", file=path, field=key
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
        raise InputError(f"{where}: expected a list, got {json_kind(value)}", file=path, field=key)
    return value


def _typed(item: Any, kind: str, k: int, ints: tuple[str, str], path: str, where: str) -> tuple[int, int, str]:
    """(two integers, type) of entity or relation `k` (`kind`): an object with the integer keys `ints` and a type
    name, each checked in that order."""
    plural = "entities" if kind == "entity" else "relations"
    if not isinstance(item, dict):
        raise InputError(f"{where}: {kind} {k} is not an object", file=path, field=plural)
    at = f"{where} {kind} {k}"
    first, second = (_require(item, key, int, path, at) for key in ints)
    type_name = _require(item, "type", str, path, at)
    if (problem := type_name_problem(type_name)) is not None:
        raise InputError(f"{at}: type {problem}", file=path, field=plural)
    return first, second, type_name


def _spert_document(record: Any, path: str, where: str) -> Document:
    """One SpERT/sincere sentence, every part checked before it is used (a wrong type is an InputError, never a
    TypeError): tokens, entities {type, start, end (exclusive)}, relations {type, head, tail} (absent or null:
    none), orig_id (optional)."""
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected an object, got {json_kind(record)}", file=path)
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
        start, end, etype = _typed(ent, "entity", k, ("start", "end"), path, where)
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
        head, tail, rtype = _typed(rel, "relation", k, ("head", "tail"), path, where)
        for name, idx in (("head", head), ("tail", tail)):
            if not 0 <= idx < len(entities):
                raise InputError(
                    f"{where}: relation {k} {name} {idx} is not an index into its {len(entities)} entities",
                    file=path,
                    field="relations",
                )
        relations.append((head, tail, rtype))
    return Document(sentence_id, tuple(tokens), tuple(entities), tuple(relations))
