"""`dygie`: PURE / DyGIE++ JSON lines, documents with sentences, mentions and relations (end-to-end RE).

The format of DyGIE++ (Wadden et al. 2019) and PURE (Zhong & Chen 2021): their preprocessing scripts write ACE05
and SciERC in it and their models predict into it. One document per line, sentences as token lists,
`ner` and `relations` one list per sentence, spans inclusive and in document-level token offsets. Predictions are
in `predicted_ner` / `predicted_relations`:

    {"doc_key": "CNN_ENG_20030306_083604.6", "sentences": [["John", "works", "for", "Acme", "."], ["..."]],
     "ner": [[[0, 0, "PER"], [3, 3, "ORG"]], []], "relations": [[[0, 0, 3, 3, "ORG-AFF"]], []]}

Each sentence becomes one Document (exclusive, sentence-level offsets; id `<doc_key>#<i>`, or the doc_key for a
one-sentence document). A file that is one JSON document (pretty-printed) is read as a one-line file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from releval.core.errors import InputError, raise_all
from releval.data.decoding import jsonl_problem, keys_may_repeat, with_all_keys
from releval.data.formats.base import Document, E2EDataset, E2EFormat, Entity, Evidence, Head, Relation
from releval.data.formats.common import MAX_ERRORS, TWICE, doc_id, exact_ids, json_kind, type_name_problem

KEYS = ("doc_key", "sentences", "ner", "relations", "predicted_ner", "predicted_relations")


class Dygie(E2EFormat):
    """JSON lines of documents with `doc_key` and `sentences` (or one such document as the whole file)."""

    name = "dygie"

    def sniff(self, head: Head) -> Evidence | None:
        """`doc_key` in the first record."""
        return Evidence.SIGNATURE if '"doc_key"' in head.stripped[:4096] else None

    def claims(self, document: Any) -> bool:
        """One document (an object with `sentences`) as the whole file."""
        return isinstance(document, dict) and "sentences" in document

    def claims_lines(self, first: Any) -> bool:
        """JSON lines whose first line is an object."""
        return isinstance(first, dict)

    def content(self, document: Any, data: bytes) -> Any:
        """(line, document) pairs: here the one document, on line 1."""
        return [(1, exact_ids(document, data, ("doc_key",)))]

    def read_lines(self, data: bytes, name: str) -> Any:
        return _json_lines(data.split(b"\n"), name)

    def load(self, content: Any, data: bytes, name: str, role: str) -> E2EDataset:
        dataset = _load_dygie(name, content, role)
        _check_repeated_keys(data, content, name)
        return dataset

    def dangling(self, data: bytes, role: str) -> list[str]:
        try:
            try:
                records = [orjson.loads(data)]
            except orjson.JSONDecodeError:
                records = [orjson.loads(ln) for ln in data.split(b"\n") if ln.strip()]
            return _dangling(records, role)
        except (orjson.JSONDecodeError, TypeError, KeyError, IndexError, AttributeError):
            return []


def _dangling(records: list[dict], role: str) -> list[str]:
    predicted = role == "pred" and any("predicted_relations" in r for r in records)
    ner_key, rel_key = ("predicted_ner", "predicted_relations") if predicted else ("ner", "relations")
    out = []
    for rec in records:
        for i, (ner, rels) in enumerate(zip(rec.get(ner_key, []), rec.get(rel_key, []))):
            spans = {(e[0], e[1]) for e in ner}
            for rel in rels:
                missing = [list(s) for s in ((rel[0], rel[1]), (rel[2], rel[3])) if s not in spans]
                if missing:
                    out.append(f"{rec.get('doc_key')} sentence {i}: {rel[4]} argument(s) {missing} not in {ner_key}")
    return out


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
            errors.append(InputError(jsonl_problem(exc), file=name, line=number))
            if len(errors) >= MAX_ERRORS:
                break
            continue
        records.append((number, exact_ids(value, line, ("doc_key",))))
    raise_all(errors)
    if not any(isinstance(r, dict) and ("sentences" in r or "doc_key" in r) for _, r in records):
        raise InputError(
            "JSON lines without 'sentences' or 'doc_key': not a PURE/DyGIE++ file", file=name, line=records[0][0]
        )
    return records


def _check_repeated_keys(raw: bytes, data: list[tuple[int, Any]], name: str) -> None:
    """A key that is read, written twice in one document, is an InputError at its line (see spert's)."""
    present = Counter(k for _, rec in data for k in KEYS if k in rec)
    if not keys_may_repeat(raw, KEYS, {k: present[k] for k in KEYS}):
        return
    lines = raw.split(b"\n")
    errors = []
    for line, _ in data:
        document = raw if len(data) == 1 else lines[line - 1]  # one document may span lines (pretty-printed)
        twice = [k for k in getattr(with_all_keys(document), "repeated", []) if k in KEYS]
        if twice:
            errors.append(InputError(TWICE, file=name, line=line, field=twice[0]))
    raise_all(errors[:MAX_ERRORS])


def _load_dygie(path: str, records: list[tuple[int, Any]], role: str) -> E2EDataset:
    errors: list[InputError] = []
    docs: list[Document] = []
    notes: list[str] = []
    model_output = any(isinstance(r, dict) and ("predicted_ner" in r or "predicted_relations" in r) for _, r in records)
    use_predicted = role == "pred" and model_output
    ner_key, rel_key = ("predicted_ner", "predicted_relations") if use_predicted else ("ner", "relations")
    if role == "pred" and not use_predicted:
        notes.append(f"{path}: no predicted_ner/predicted_relations; read 'ner' and 'relations' as the predictions")
    for line, record in records:
        try:
            docs.extend(_dygie_documents(record, path, line, ner_key, rel_key))
        except InputError as exc:
            errors.append(exc)
            if len(errors) >= MAX_ERRORS:
                raise_all(errors)
    raise_all(errors)
    if not docs:
        raise InputError("file has no sentences", file=path)
    return E2EDataset(path, "dygie", {Path(path).name.split(".")[0]: docs}, notes, model_output)


def _dygie_documents(record: Any, path: str, line: int, ner_key: str, rel_key: str) -> list[Document]:
    """The sentences of one PURE/DyGIE++ document, every part checked before it is used (InputErrors at `line`)."""

    def refuse(message: str, fld: str | None = None) -> InputError:
        return InputError(message, file=path, line=line, field=fld)

    if not isinstance(record, dict):
        raise refuse(f"expected a JSON object, got {json_kind(record)}")
    if record.get("doc_key") is None:
        raise refuse("missing", "doc_key")
    doc_key, problem = doc_id(record["doc_key"])
    if problem is not None:
        raise refuse(problem, "doc_key")
    if "sentences" not in record:
        raise refuse("missing", "sentences")
    sentences = record["sentences"]
    if not isinstance(sentences, list) or not all(
        isinstance(s, list) and all(isinstance(t, str) for t in s) for s in sentences
    ):
        raise refuse("expected a list of token lists", "sentences")
    n = len(sentences)
    ner = record.get(ner_key, [[] for _ in sentences])
    rels = record.get(rel_key, [[] for _ in sentences])
    for key, value in ((ner_key, ner), (rel_key, rels)):
        if not isinstance(value, list) or len(value) != n or not all(isinstance(v, list) for v in value):
            raise refuse(f"expected one list per sentence ({n})", key)
    docs = []
    offset = 0
    for i, tokens in enumerate(sentences):
        lo, hi = offset, offset + len(tokens) - 1
        sentence_id = doc_key if n == 1 else f"{doc_key}#{i}"
        entities: list[Entity] = []
        index: dict[tuple[int, int], int] = {}
        for k, item in enumerate(ner[i]):
            if not (isinstance(item, list) and len(item) >= 3 and _ints(item[:2])) or type_name_problem(item[2]):
                raise refuse(f"sentence {i} item {k}: expected [start, end, label] (a non-empty label)", ner_key)
            s, e, label = item[0], item[1], item[2]
            if not lo <= s <= e <= hi:
                raise refuse(
                    f"sentence {i} item {k}: span [{s}, {e}] (inclusive, document offsets) outside the sentence's "
                    f"tokens [{lo}, {hi}]",
                    ner_key,
                )
            index.setdefault((s, e), len(entities))
            entities.append((s - offset, e - offset + 1, label))
        relations: list[Relation] = []
        for k, item in enumerate(rels[i]):
            if not (isinstance(item, list) and len(item) >= 5 and _ints(item[:4])) or type_name_problem(item[4]):
                raise refuse(f"sentence {i} item {k}: expected [s1, e1, s2, e2, label] (a non-empty label)", rel_key)
            args = []
            for span in ((item[0], item[1]), (item[2], item[3])):
                if span not in index:
                    raise refuse(
                        f"sentence {i} item {k}: argument span {list(span)} is not an entity mention of {ner_key}",
                        rel_key,
                    )
                args.append(index[span])
            relations.append((args[0], args[1], item[4]))
        docs.append(Document(sentence_id, tuple(tokens), tuple(entities), tuple(relations)))
        offset += len(tokens)
    return docs


def _ints(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)
