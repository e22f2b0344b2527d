"""Readers of document-level RE files in DocRED's JSON (Yao et al. 2019; Re-DocRED, Revisit-DocRED alike).

* gold: a JSON list of documents `{title, sents, vertexSet, labels}`; `vertexSet[i]` is entity i's mentions
  `{name, sent_id, pos, type}`, `labels` its facts `{h, t, r, evidence}` (h, t entity indices, r a relation id such
  as P17, evidence sentence indices);
* predictions: CodaLab's `result.json`, a JSON list of `{title, h_idx, t_idx, r, evidence?, score?}`;
* train facts: the `(head mention name, tail mention name, relation)` triples the official scorer builds for Ign F1,
  from a DocRED training file (every mention pair of every label) or from a `.fact` list of such triples.

Every file may be gzipped; bounded reading and UTF-8 errors come from releval.data.io. Every malformed record is
an InputError naming the file, the document (its position and title), the label or prediction and the field.

>>> sorted(facts_of_documents([{"vertexSet": [[{"name": "A"}], [{"name": "B"}, {"name": "Bee"}]],
...                             "labels": [{"h": 0, "t": 1, "r": "P1"}]}]))
[('A', 'B', 'P1'), ('A', 'Bee', 'P1')]
"""

from __future__ import annotations

import codecs
import hashlib
import operator
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, repeat
from typing import Any

import msgspec

from releval.core.errors import InputError
from releval.data.decoding import (
    DECODE_FAILURES,
    UTF8_BOM,
    first_repeated_key,
    keys_may_repeat,
    parse_json_exact,
    refuse_repeated_record_keys,
    shown_int,
    with_all_keys,
)
from releval.data.io import read_bytes

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class DocredDocument:
    """One gold document: its title, sentence count, each entity's mention names and sentence ids, and its labels
    as (h, t, r, evidence) with evidence a tuple of sentence indices as written (None when the key is absent)."""

    title: str
    n_sentences: int
    names: tuple[tuple[str, ...], ...]
    sentences: tuple[tuple[int, ...], ...]
    labels: tuple[tuple[int, int, str, tuple[int, ...] | None], ...]


@dataclass(frozen=True)
class DocredGold:
    """A gold file: its documents in order, its path and a digest of its content."""

    path: str
    documents: tuple[DocredDocument, ...]
    digest: str

    def by_title(self) -> dict[str, DocredDocument]:
        return {d.title: d for d in self.documents}


class DocredPrediction(msgspec.Struct, frozen=True):
    """One predicted fact of a submission, in file order (evidence None: no `evidence` key; score None: none).
    A msgspec Struct: the CodaLab file decodes into these directly (`h_idx`, `t_idx` in JSON)."""

    title: str
    h: int = msgspec.field(name="h_idx")
    t: int = msgspec.field(name="t_idx")
    r: str = msgspec.field(name="r")
    evidence: tuple[int, ...] | None = None
    score: float | None = None


@dataclass(frozen=True)
class Submission:
    path: str
    predictions: tuple[DocredPrediction, ...]


@dataclass(frozen=True)
class TrainFacts:
    """Name triples seen in training: the union over `paths`, with a digest of the sorted set and what each file was
    (`docred` training documents or a `fact` list) and how many documents the `docred` files held."""

    facts: frozenset[tuple[str, str, str]]
    paths: tuple[str, ...]
    kinds: tuple[str, ...]
    n_documents: int
    n_labels: int

    @cached_property
    def digest(self) -> str:
        return fact_digest(self.facts)


def fact_digest(facts: Iterable[tuple[str, str, str]]) -> str:
    """12 hex digits of SHA-256 over the sorted triples (tab-separated, one per line): the same set, the same digest
    whatever file it came from."""
    # names hold no tab: the order of the lines is that of the triples; UTF-8 keeps the order of code points, so the
    # encoded lines sort as the strings do (bytes compare faster)
    lines = sorted([line.encode("utf-8") for line in map("\t".join, facts)])
    return hashlib.sha256(b"\n".join(lines) + (b"\n" if lines else b"")).hexdigest()[:12]


def _int(value: Any) -> bool:
    return type(value) is int


def _where(i: int, title: Any) -> str:
    return f"document {i + 1}" + (f" ({title!r})" if isinstance(title, str) else "")


def _check_evidence(value: Any, n_sents: int | None, file: str, record: int, field: str, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(_int(x) and x >= 0 for x in value):
        raise InputError(
            f"{where}: evidence must be a list of sentence indices (integers >= 0)",
            file=file,
            record=record,
            field=field,
        )
    if n_sents is not None and any(x >= n_sents for x in value):
        bad = next(x for x in value if x >= n_sents)
        raise InputError(
            f"{where}: evidence sentence {bad} but the document has {n_sents} sentences",
            file=file,
            record=record,
            field=field,
        )
    return tuple(value)


class _Mention(msgspec.Struct):
    name: str
    sent_id: int


class _Label(msgspec.Struct):
    h: int
    t: int
    r: str
    evidence: tuple[int, ...] | msgspec.UnsetType = msgspec.UNSET


class _Document(msgspec.Struct):
    title: str
    #: Only the number of sentences is read: each stays a view of the file's bytes (msgspec.Raw, one small object
    #: per sentence) instead of a str per token, which cost about ten times the tokens' bytes (issue 34's memory
    #: bound); msgspec does not check the UTF-8 of a Raw's strings, so `_typed` checks the whole file first.
    sents: list[msgspec.Raw]
    vertexSet: list[list[_Mention]]  # noqa: N815 (DocRED's key)
    labels: list[_Label]


def _valid_utf8(raw: bytes, block: int = 1 << 24) -> bool:
    """Whether `raw` is valid UTF-8, decoded a block at a time (one block's text held at once, not the file's).

    >>> _valid_utf8(b'["caf\\xc3\\xa9"]'), _valid_utf8(b'["caf\\xe9"]'), _valid_utf8(b"\\xc3\\xa9" * 5, block=3)
    (True, False, True)
    """
    if raw.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(raw)
    try:
        for start in range(0, len(raw), block):
            decoder.decode(view[start : start + block])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _typed(raw: bytes, kind: Any) -> Any:
    """The document decoded and type-checked by msgspec in C (the fast path), or None when anything is off: then
    the checking reader runs on it and reports the first problem with its location."""
    if not _valid_utf8(raw):
        return None
    try:
        return msgspec.json.decode(raw, type=list[kind])
    except DECODE_FAILURES:  # also invalid UTF-8 in a string and deep nesting: located by the careful reader
        return None


_GOLD_KEYS = ("title", "sents", "vertexSet", "labels", "name", "sent_id", "h", "t", "r", "evidence")
_PREDICTION_KEYS = ("title", "h_idx", "t_idx", "r", "evidence", "score")


def _gold_key_counts(docs: Sequence[Any]) -> dict[str, int]:
    """How many objects of gold documents (typed or parsed, already checked) hold each read key."""
    counts = dict.fromkeys(_GOLD_KEYS, 0)
    for d in docs:
        vertex = d.vertexSet if isinstance(d, _Document) else d["vertexSet"]
        labels = d.labels if isinstance(d, _Document) else d["labels"]
        for key in ("title", "sents", "vertexSet", "labels"):
            counts[key] += 1
        mentions = sum(map(len, vertex))
        counts["name"] += mentions
        counts["sent_id"] += mentions
        for key in ("h", "t", "r"):
            counts[key] += len(labels)
        counts["evidence"] += sum(
            (x.evidence is not msgspec.UNSET) if isinstance(x, _Label) else ("evidence" in x) for x in labels
        )
    return counts


def _parsed(raw: bytes, name: str) -> Any:
    """The JSON document of a file's bytes (a UTF-8 byte-order mark dropped): invalid UTF-8 and syntax errors located,
    integers beyond 64 bits exact."""
    data = raw[len(UTF8_BOM) :] if raw.startswith(UTF8_BOM) else raw
    return parse_json_exact(data, name)


def _fast_gold(name: str, docs: list[_Document], evidence: bool) -> DocredGold | None:
    """The DocredGold of typed documents, or None when a check fails (the checking reader then locates it)."""
    out = []
    titles: set[str] = set()
    unset = msgspec.UNSET
    for d in docs:
        nv, ns = len(d.vertexSet), len(d.sents)
        if d.title in titles or not all(d.vertexSet):
            return None
        titles.add(d.title)
        labs = d.labels
        hs, ts, rs = [x.h for x in labs], [x.t for x in labs], [x.r for x in labs]
        evs: list[Any] = [x.evidence for x in labs]
        if labs and (min(hs) < 0 or max(hs) >= nv or min(ts) < 0 or max(ts) >= nv or not all(rs)):
            return None
        if unset in evs:
            if evidence:
                return None
            evs = [None if e is unset else e for e in evs]
        flat = list(chain.from_iterable(e for e in evs if e))
        if flat and (min(flat) < 0 or max(flat) >= ns):
            return None
        names = tuple(tuple(map(_name, e)) for e in d.vertexSet)
        sents = tuple(tuple(map(_sent, e)) for e in d.vertexSet)
        flat_sents = list(chain.from_iterable(sents))
        if min(flat_sents, default=0) < 0 or max(flat_sents, default=0) >= ns:
            return None
        out.append(DocredDocument(d.title, ns, names, sents, tuple(zip(hs, ts, rs, evs))))
    return _gold(name, out)


_name, _sent = operator.attrgetter("name"), operator.attrgetter("sent_id")


def _gold(name: str, docs: list[DocredDocument]) -> DocredGold:
    digest = hashlib.sha256(repr([(d.title, d.labels) for d in docs]).encode("utf-8")).hexdigest()[:12]
    return DocredGold(name, tuple(docs), digest)


def _titled_record(
    obj: Any, keys: tuple[str, ...], where: str, name: str, rec: int, shown: tuple[str, ...] = ()
) -> str:
    """A gold document's or a prediction's object: every key of `keys` present and a string title, else a located
    InputError (record `rec`, the field); its title. `shown`: optional keys named in the error's shape."""
    if not isinstance(obj, dict):
        shape = ", ".join((*keys, *shown))
        raise InputError(f"{where}: expected an object {{{shape}}}", file=name, record=rec)
    for key in keys:
        if key not in obj:
            raise InputError(f"{where}: missing key", file=name, record=rec, field=key)
    title = obj["title"]
    if not isinstance(title, str):
        raise InputError(f"{where}: title must be a string", file=name, record=rec, field="title")
    return title


def load_gold(path: PathLike, *, evidence: bool = True) -> DocredGold:
    """A DocRED-format gold file. A label without `evidence` is an error naming its document unless `evidence` is
    False (evidence not scored); a repeated title is an error (the official scorer would merge the documents)."""
    return gold_of_bytes(str(path), read_bytes(path), evidence=evidence)


def gold_of_bytes(name: str, raw: bytes, *, evidence: bool = True) -> DocredGold:
    """`load_gold` of a file already read: `raw` its (gunzipped) bytes, `name` the file named in errors."""
    typed = _typed(raw, _Document)
    if typed is not None:
        fast = _fast_gold(name, typed, evidence)
        if fast is not None:
            refuse_repeated_record_keys(raw, name, _gold_key_counts(typed))
            return fast
    data = _parsed(raw, name)
    if not isinstance(data, list):
        raise InputError("a DocRED gold file is a JSON list of documents {title, sents, vertexSet, labels}", file=name)
    docs: list[DocredDocument] = []
    seen: dict[str, int] = {}
    for i, doc in enumerate(data):
        rec = i + 1
        where = _where(i, doc.get("title") if isinstance(doc, dict) else None)
        title = _titled_record(doc, ("title", "sents", "vertexSet", "labels"), where, name, rec)
        if title in seen:
            raise InputError(f"{where}: title repeats document {seen[title]}", file=name, record=rec, field="title")
        seen[title] = rec
        sents = doc["sents"]
        if not isinstance(sents, list):
            raise InputError(f"{where}: sents must be a list of sentences", file=name, record=rec, field="sents")
        vertex = doc["vertexSet"]
        if not isinstance(vertex, list):
            raise InputError(f"{where}: vertexSet must be a list of entities", file=name, record=rec, field="vertexSet")
        names, sent_ids = [], []
        for e, entity in enumerate(vertex):
            field = f"vertexSet[{e}]"
            if not isinstance(entity, list) or not entity:
                raise InputError(
                    f"{where}: entity {e} must be a non-empty list of mentions", file=name, record=rec, field=field
                )
            for m, mention in enumerate(entity):
                ok = isinstance(mention, dict) and isinstance(mention.get("name"), str) and _int(mention.get("sent_id"))
                if not ok:
                    raise InputError(
                        f"{where}: mention {m} of entity {e} needs a string name and an integer sent_id",
                        file=name,
                        record=rec,
                        field=f"{field}[{m}]",
                    )
                if not 0 <= mention["sent_id"] < len(sents):
                    raise InputError(
                        f"{where}: mention {m} of entity {e} is in sentence {shown_int(mention['sent_id'])}, but the "
                        f"document has {len(sents)} sentences (0..{len(sents) - 1})",
                        file=name,
                        record=rec,
                        field=f"{field}[{m}].sent_id",
                    )
            names.append(tuple(m["name"] for m in entity))
            sent_ids.append(tuple(m["sent_id"] for m in entity))
        labels_raw = doc["labels"]
        if not isinstance(labels_raw, list):
            raise InputError(f"{where}: labels must be a list", file=name, record=rec, field="labels")
        labels = []
        for j, label in enumerate(labels_raw):
            field = f"labels[{j}]"
            lw = f"{where}: label {j}"
            if not isinstance(label, dict):
                raise InputError(f"{lw}: expected an object {{h, t, r, evidence}}", file=name, record=rec, field=field)
            for key in ("h", "t"):
                v = label.get(key)
                if type(v) is not int or not 0 <= v < len(vertex):
                    raise InputError(
                        f"{lw}: {key} must be an entity index in 0..{len(vertex) - 1}, got {v!r}",
                        file=name,
                        record=rec,
                        field=f"{field}.{key}",
                    )
            if not isinstance(label.get("r"), str) or not label["r"]:
                raise InputError(
                    f"{lw}: r must be a relation id such as 'P17'", file=name, record=rec, field=f"{field}.r"
                )
            ev: tuple[int, ...] | None = None
            if "evidence" in label:
                ev = _check_evidence(label["evidence"], len(sents), name, rec, f"{field}.evidence", lw)
            elif evidence:
                raise InputError(
                    f"{lw}: no evidence key (score without evidence: --no-evidence)",
                    file=name,
                    record=rec,
                    field=f"{field}.evidence",
                )
            labels.append((label["h"], label["t"], label["r"], ev))
        docs.append(DocredDocument(title, len(sents), tuple(names), tuple(sent_ids), tuple(labels)))
    refuse_repeated_record_keys(raw, name, _gold_key_counts(data))
    return _gold(name, docs)


def _fast_submission(name: str, preds: list[DocredPrediction], gold: DocredGold | None) -> Submission | None:
    """The Submission of typed predictions, or None when a check fails (the checking reader then locates it).
    The checks run over columns: entity indices >= 0 and within their gold document, a non-empty relation, evidence
    sentences >= 0 and within their gold document."""
    lims = {d.title: (len(d.names), d.n_sentences) for d in gold.documents} if gold is not None else {}
    unbounded = (1 << 62, 1 << 62)  # a title absent from gold: any index >= 0
    bounds = list(map(lims.get, [p.title for p in preds], repeat(unbounded)))
    n_ent = [b[0] for b in bounds]
    heads, tails = [p.h for p in preds], [p.t for p in preds]
    if min(heads, default=0) < 0 or min(tails, default=0) < 0:
        return None
    if any(map(operator.ge, heads, n_ent)) or any(map(operator.ge, tails, n_ent)) or not all(p.r for p in preds):
        return None
    evs = [p.evidence or () for p in preds]
    if any(evs):
        flat = list(chain.from_iterable(evs))
        limit = list(chain.from_iterable(map(repeat, [b[1] for b in bounds], map(len, evs))))
        if min(flat) < 0 or any(map(operator.ge, flat, limit)):
            return None
    return Submission(name, tuple(preds))


def load_submission(path: PathLike, gold: DocredGold | None = None) -> Submission:
    """A CodaLab `result.json`. Entity indices of a prediction for a gold title must exist in that document, and
    its evidence sentences too; a title absent from gold is kept (the official scorer counts it as a false
    positive)."""
    name, raw = str(path), read_bytes(path)
    typed = _typed(raw, DocredPrediction) if b"null" not in raw else None  # null evidence: an error, located below
    if typed is not None:
        fast = _fast_submission(name, typed, gold)
        if fast is not None:
            refuse_repeated_record_keys(raw, name, _prediction_key_counts(typed))
            return fast
    data = _parsed(raw, name)
    if not isinstance(data, list):
        raise InputError("a DocRED submission is a JSON list of {title, h_idx, t_idx, r, evidence}", file=name)
    docs = gold.by_title() if gold is not None else {}
    out = []
    for i, x in enumerate(data):
        rec = i + 1
        where = f"prediction {rec}"
        title = _titled_record(x, ("title", "h_idx", "t_idx", "r"), where, name, rec, shown=("evidence",))
        doc = docs.get(title)
        for key in ("h_idx", "t_idx"):
            v = x[key]
            if not _int(v) or v < 0 or (doc is not None and v >= len(doc.names)):
                top = f"0..{len(doc.names) - 1}" if doc is not None else "an integer >= 0"
                raise InputError(
                    f"{where} ({title!r}): {key} must be an entity index in {top}, got {v!r}",
                    file=name,
                    record=rec,
                    field=key,
                )
        if not isinstance(x["r"], str) or not x["r"]:
            raise InputError(f"{where}: r must be a relation id such as 'P17'", file=name, record=rec, field="r")
        ev = None
        if "evidence" in x:
            ev = _check_evidence(x["evidence"], doc.n_sentences if doc else None, name, rec, "evidence", where)
        score = x.get("score")
        if score is not None and (type(score) not in (int, float) or score != score):
            raise InputError(f"{where}: score must be a number", file=name, record=rec, field="score")
        if type(score) is int and abs(score) > 2**1023:
            raise InputError(f"{where}: score is beyond a double's range", file=name, record=rec, field="score")
        out.append(DocredPrediction(title, x["h_idx"], x["t_idx"], x["r"], ev, None if score is None else float(score)))
    refuse_repeated_record_keys(raw, name, _prediction_key_counts(out, data))
    return Submission(name, tuple(out))


def _prediction_key_counts(preds: Sequence[DocredPrediction], data: Sequence[Any] | None = None) -> dict[str, int]:
    """How many prediction objects hold each read key (`data`: the parsed objects, when read that way)."""
    n = len(preds)
    counts = dict.fromkeys(_PREDICTION_KEYS[:4], n)
    if data is not None:
        counts["evidence"] = sum("evidence" in x for x in data)
        counts["score"] = sum("score" in x for x in data)
    else:  # typed: None is "absent" (a null evidence or score sends the file to the careful path)
        counts["evidence"] = sum(p.evidence is not None for p in preds)
        counts["score"] = sum(p.score is not None for p in preds)
    return counts


def facts_of_documents(docs: Sequence[Any]) -> frozenset[tuple[str, str, str]]:
    """(head mention name, tail mention name, r) for every mention pair of every label: the official scorer's
    `gen_train_facts` set of a training file."""
    out = set()
    for doc in docs:
        vertex = doc["vertexSet"]
        for label in doc["labels"]:
            for n1 in vertex[label["h"]]:
                for n2 in vertex[label["t"]]:
                    out.add((n1["name"], n2["name"], label["r"]))
    return frozenset(out)


@dataclass(frozen=True)
class _FactFile:
    """The facts of one train-fact file's content: a DocRED training file (`docred`, its documents and labels
    counted) or a `.fact` list (`fact`)."""

    facts: frozenset[tuple[str, str, str]]
    kind: str
    n_documents: int = 0
    n_labels: int = 0


def _fact_file(name: str, raw: bytes) -> _FactFile:
    """Parse one train-fact file (see `load_train_facts`)."""
    try:  # a .fact list, checked by msgspec in C; anything else is read and checked below
        return _FactFile(frozenset(msgspec.json.decode(raw, type=list[tuple[str, str, str]])), "fact")
    except (msgspec.DecodeError, msgspec.ValidationError):
        data = _parsed(raw, name)
    if not isinstance(data, list):
        raise InputError("train facts: expected a DocRED training file or a .fact list of triples", file=name)
    if data and isinstance(data[0], dict):
        gold = gold_of_bytes(name, raw, evidence=False)
        facts: set[tuple[str, str, str]] = set()
        for doc in gold.documents:
            for h, t, r, _ in doc.labels:
                facts.update((n1, n2, r) for n1 in doc.names[h] for n2 in doc.names[t])
        return _FactFile(frozenset(facts), "docred", len(gold.documents), sum(len(d.labels) for d in gold.documents))
    try:  # msgspec checks every triple in C; the slow loop below only runs to locate a bad one
        return _FactFile(frozenset(msgspec.convert(data, list[tuple[str, str, str]])), "fact")
    except msgspec.ValidationError:
        pass
    for i, triple in enumerate(data):
        if not (isinstance(triple, list) and len(triple) == 3 and all(isinstance(s, str) for s in triple)):
            raise InputError(
                "a .fact list holds [head name, tail name, relation] triples of strings", file=name, record=i + 1
            )
    return _FactFile(frozenset((t[0], t[1], t[2]) for t in data), "fact")


def load_train_fact_sets(*groups: Sequence[PathLike]) -> tuple[TrainFacts | None, ...]:
    """`load_train_facts` of each group of paths (None for an empty group), each distinct file **content** parsed
    once: a file is keyed by the SHA-256 of its (gunzipped) bytes, so `--train-facts a.fact --distant-facts b.fact`
    with b a copy of a parses one file, and groups of the same contents give the same TrainFacts object (its
    digest, a sort of every triple, computed once; the scorer looks the facts up once for both).

    >>> import json, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for n in ("a.fact", "b.fact"): _ = (d / n).write_text(json.dumps([["A", "B", "P1"]]))
    >>> train, distant = load_train_fact_sets([d / "a.fact"], [d / "b.fact"])
    >>> train is distant, sorted(train.facts), distant.paths == (str(d / "a.fact"),)
    (True, [('A', 'B', 'P1')], True)
    """
    by_path: dict[str, str] = {}  # path -> content digest: a path given twice is read once
    parts: dict[str, _FactFile] = {}  # content digest -> its facts: a content given twice is parsed once
    made: dict[frozenset[str], TrainFacts] = {}  # the distinct contents of a group -> its union
    out: list[TrainFacts | None] = []
    for paths in groups:
        if not paths:
            out.append(None)
            continue
        keys: list[str] = []
        for path in paths:
            name = str(path)
            if name not in by_path:
                raw = read_bytes(path)
                key = hashlib.sha256(raw).hexdigest()
                if key not in parts:
                    parts[key] = _fact_file(name, raw)
                by_path[name] = key
            keys.append(by_path[name])
        distinct = frozenset(keys)  # the union: a content repeated within a group counts once
        if distinct not in made:
            files = [parts[k] for k in dict.fromkeys(keys)]
            made[distinct] = TrainFacts(
                frozenset().union(*(f.facts for f in files)) if len(files) > 1 else files[0].facts,
                tuple(str(p) for p in paths),
                tuple(f.kind for f in files),
                sum(f.n_documents for f in files),
                sum(f.n_labels for f in files),
            )
        out.append(made[distinct])
    return tuple(out)


def load_train_facts(paths: Sequence[PathLike]) -> TrainFacts:
    """The union of the train facts of `paths`: each a DocRED training file or a `.fact` JSON list of
    [head name, tail name, relation] triples (recognised by its first element); a content given twice counts once."""
    if not paths:
        return TrainFacts(frozenset(), (), (), 0, 0)
    (facts,) = load_train_fact_sets(paths)
    assert facts is not None
    return facts


#: `relation_names` value naming the copy of DocRED's `rel_info.json` bundled with releval (MIT; NOTICE).
BUNDLED_RELATION_NAMES = "docred"


def load_relation_names(source: PathLike) -> dict[str, str]:
    """Relation names by id from a file in DocRED's `rel_info.json` format, a JSON object {"P131": "located in the
    administrative territorial entity", …}; `"docred"` reads the bundled copy of DocRED's own (96 types, the same ids
    in Re-DocRED and Revisit-DocRED). Every key must be a non-empty id and every value a name (a string): a
    `rel2id.json` (ids to numbers) is refused, naming the file and the key.

    >>> load_relation_names("docred")["P131"]
    'located in the administrative territorial entity'
    """
    if os.fspath(source) == BUNDLED_RELATION_NAMES:
        source = os.path.join(os.path.dirname(__file__), "docred_rel_info.json")
    name = str(source)
    raw = read_bytes(source)
    data = _parsed(raw, name)
    if isinstance(data, dict) and keys_may_repeat(raw, data, dict.fromkeys(data, 1)):
        twice = first_repeated_key(with_all_keys(raw))
        if twice is not None:
            raise InputError(
                "relation names: an id written twice (a JSON parser keeps only the last name)", file=name, field=twice
            )
    if not isinstance(data, dict) or not data:
        raise InputError(
            'relation names: expected a non-empty JSON object {"P131": "located in …", …} (DocRED\'s rel_info.json)',
            file=name,
        )
    for key, value in data.items():
        if not key.strip():
            raise InputError("relation names: an empty relation id", file=name, field=repr(key))
        if not isinstance(value, str) or not value.strip():
            hint = " (rel2id.json maps ids to numbers: give rel_info.json)" if isinstance(value, int) else ""
            raise InputError(
                f"relation names: the name of {key!r} must be a non-empty string, got {value!r}{hint}",
                file=name,
                field=key,
            )
    return {key: value.strip() for key, value in data.items()}
