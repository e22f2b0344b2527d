"""End-to-end RE dataset statistics and integrity checks (Taillé et al. 2020, Table 3, §5.4 and Appendix B).

Per split and in total: sentences, tokens, entity mentions, relations, per-type counts, overlapping / nested
mentions, relations whose arguments overlap, the relation type → (head type, tail type) mapping and whether it
is bijective, and a content fingerprint (sha256 of a canonical form) so two copies can be compared.
`DatasetStats` saves to JSON (`to_dict`) and loads back equal (`from_dict`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import PurePath
from typing import Any

import orjson

from releval.core.frames import data_frame
from releval.core.schema import check_schema, header, reading
from releval.core.signature import Signature, parse
from releval.core.table import Column, Table
from releval.data.e2e import Document, E2EDataset

#: The `kind` of saved end-to-end dataset statistics.
KIND = "e2e-dataset-stats"


@dataclass(frozen=True)
class SplitStats:
    """Counts of one split (or of all splits: name 'total')."""

    name: str
    sentences: int
    tokens: int
    entities: int
    relations: int
    entity_types: dict[str, int]
    relation_types: dict[str, int]
    nested_mentions: int  # pairs of mentions where one span contains the other (identical spans included)
    crossing_mentions: int  # pairs of mentions that overlap without nesting
    duplicate_mentions: int  # mentions repeating an earlier (start, end, type) of the same sentence
    overlapping_argument_relations: int  # relations whose head and tail spans share a token
    duplicate_relations: int  # relations repeating an earlier (head span+type, tail span+type, type)
    argument_types: dict[str, dict[str, int]]  # relation type → "HeadType→TailType" → count
    bijective: bool
    fingerprint: str

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (a part of a `DatasetStats`'s, so no schema version of its own)."""
        return {
            **self.__dict__,
            "entity_types": dict(self.entity_types),
            "relation_types": dict(self.relation_types),
            "argument_types": {r: dict(pairs) for r, pairs in self.argument_types.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SplitStats:
        """The split `to_dict()` wrote (ValueError naming the fields that are missing)."""
        names = [f.name for f in fields(cls)]
        missing = [name for name in names if name not in data]
        if missing:
            raise ValueError(f"split statistics: missing field(s) {', '.join(missing)}")
        return cls(**{name: data[name] for name in names})


@dataclass(frozen=True)
class DatasetStats:
    """Statistics of one file: its splits and their total."""

    path: str
    format: str
    splits: list[SplitStats]
    total: SplitStats
    notes: list[str] = field(default_factory=list)
    #: What the numbers were computed from: the content fingerprint and size of all splits (set when not given).
    signature: Signature = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.signature is None:
            fields_ = {"task": "stats", "gold": self.total.fingerprint, "n": self.total.sentences}
            object.__setattr__(self, "signature", Signature.build(**fields_))

    def to_frame(self) -> Any:
        """One row per split and the total: sentences, tokens, entities, relations and the integrity counts
        (pandas only here)."""
        keys: tuple[str, ...] = ("sentences", "tokens", "entities", "relations", "nested_mentions")
        keys += ("crossing_mentions", "duplicate_mentions", "overlapping_argument_relations", "duplicate_relations")
        keys += ("bijective",)
        rows = [*self.splits, self.total] if len(self.splits) > 1 else list(self.splits)
        records = [{"split": r.name, **{k: getattr(r, k) for k in keys}, "fingerprint": r.fingerprint} for r in rows]
        return data_frame(records, index="split")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: every split, their total and the notes (the JSON of `releval stats` on one file)."""
        return {
            **header(KIND),
            "path": self.path,
            "format": self.format,
            "splits": [s.to_dict() for s in self.splits],
            "total": self.total.to_dict(),
            "notes": list(self.notes),
            **self.signature.to_json(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DatasetStats:
        """The statistics `to_dict()` wrote (ValueError when `data` is not saved end-to-end dataset statistics)."""
        what = "end-to-end dataset statistics"
        check_schema(data, what, KIND)
        with reading(what):
            return cls(
                str(data["path"]),
                str(data["format"]),
                [SplitStats.from_dict(s) for s in data["splits"]],
                SplitStats.from_dict(data["total"]),
                [str(n) for n in data.get("notes", [])],
                parse(data["signature"]),
            )


def canonical_document(doc: Document) -> tuple:
    """Order-free form of a sentence: tokens, sorted mentions, sorted relations by argument spans and types."""
    ents = doc.entities
    rels = sorted((ents[h], ents[t], r) for h, t, r in doc.relations)
    return (doc.id, list(doc.tokens), sorted(ents), rels)


def fingerprint(docs: Sequence[Document]) -> str:
    """sha256 (first 16 hex digits) of the canonical documents sorted by content: order and indices don't matter."""
    digest = hashlib.sha256()
    for item in sorted(orjson.dumps(canonical_document(d)) for d in docs):
        digest.update(item)
        digest.update(b"\n")
    return digest.hexdigest()[:16]


def _is_bijective(mapping: dict[str, Counter]) -> bool:
    """Each relation type has exactly one argument-type pair, and no pair serves two relation types."""
    pairs = [next(iter(c)) for c in mapping.values() if len(c) == 1]
    return len(pairs) == len(mapping) and len(set(pairs)) == len(pairs)


def split_stats(name: str, docs: Sequence[Document]) -> SplitStats:
    """Counts and integrity checks of one list of sentences."""
    ent_types: Counter = Counter()
    rel_types: Counter = Counter()
    arg_types: dict[str, Counter] = {}
    nested = crossing = dup_ent = overlap_args = dup_rel = 0
    for doc in docs:
        ents = doc.entities
        ent_types.update(t for _, _, t in ents)
        dup_ent += len(ents) - len(set(ents))
        spans = sorted({(s, e) for s, e, _ in ents})
        for i, (s1, e1) in enumerate(spans):
            for s2, e2 in spans[i + 1 :]:
                if s2 >= e1:
                    break
                if e2 <= e1 or s2 == s1:
                    nested += 1
                else:
                    crossing += 1
        # several types on one span: also a nesting (identical spans)
        span_counts = Counter((s, e) for s, e, _ in set(ents))
        nested += sum(n * (n - 1) // 2 for n in span_counts.values())
        seen = set()
        for h, t, r in doc.relations:
            rel_types[r] += 1
            (hs, he, ht), (ts, te, tt) = ents[h], ents[t]
            arg_types.setdefault(r, Counter())[(ht, tt)] += 1
            if hs < te and ts < he:
                overlap_args += 1
            key = (ents[h], ents[t], r)
            dup_rel += key in seen
            seen.add(key)
    mapping = {r: arg_types[r] for r in sorted(arg_types)}
    return SplitStats(
        name=name,
        sentences=len(docs),
        tokens=sum(len(d.tokens) for d in docs),
        entities=sum(ent_types.values()),
        relations=sum(rel_types.values()),
        entity_types=dict(sorted(ent_types.items())),
        relation_types=dict(sorted(rel_types.items())),
        nested_mentions=nested,
        crossing_mentions=crossing,
        duplicate_mentions=dup_ent,
        overlapping_argument_relations=overlap_args,
        duplicate_relations=dup_rel,
        argument_types={r: {f"{h}→{t}": n for (h, t), n in sorted(c.items())} for r, c in mapping.items()},
        bijective=_is_bijective(mapping),
        fingerprint=fingerprint(docs),
    )


def dataset_stats(data: E2EDataset) -> DatasetStats:
    """Statistics of every split of a file and of their union."""
    splits = [split_stats(name, docs) for name, docs in data.splits.items()]
    notes = list(data.notes)
    ids = [d.id for d in data.documents if d.id is not None]
    repeated = [i for i, n in Counter(ids).items() if n > 1]
    if repeated:
        notes.append(f"{len(repeated)} sentence id(s) occur more than once, e.g. {', '.join(repeated[:5])}")
    contents = Counter(tuple(d.tokens) for d in data.documents)
    dup_sentences = sum(n - 1 for n in contents.values() if n > 1)
    if dup_sentences:
        notes.append(f"{dup_sentences} sentence(s) repeat the tokens of an earlier sentence")
    names = list(data.splits)
    for i, first in enumerate(names):
        seen = {tuple(d.tokens) for d in data.splits[first]}
        for second in names[i + 1 :]:
            shared = sum(tuple(d.tokens) in seen for d in data.splits[second])
            if shared:
                notes.append(f"{shared} sentence(s) of split '{second}' have the same tokens as one of '{first}'")
    return DatasetStats(data.path, data.format, splits, split_stats("total", data.documents), notes)


def files_stats(datasets: Sequence[E2EDataset]) -> DatasetStats:
    """Statistics of several files taken together — one row per file's split, their total, and the notes on
    sentences that two files share (a test sentence also in train) — as `releval stats train.json dev.json
    test.json` shows below the files' own tables."""
    splits: dict[str, list[Document]] = {}
    for data in datasets:
        for name, docs in data.splits.items():
            key = name if len(data.splits) == 1 else f"{PurePath(data.path).name}:{name}"
            while key in splits:  # two files of one name in different folders
                key += "'"
            splits[key] = docs
    formats = sorted({d.format for d in datasets})
    merged = E2EDataset(f"{len(datasets)} files", "+".join(formats), splits)
    return dataset_stats(merged)


def compare_datasets(a: E2EDataset, b: E2EDataset, limit: int = 20) -> list[str]:
    """Differences between two versions of a dataset: split sizes, sentences only in one, changed annotations."""
    out: list[str] = []
    sa, sb = dataset_stats(a), dataset_stats(b)
    if sa.total.fingerprint == sb.total.fingerprint:
        return []
    for field_name in ("sentences", "tokens", "entities", "relations"):
        x, y = getattr(sa.total, field_name), getattr(sb.total, field_name)
        if x != y:
            out.append(f"total {field_name}: {x:,} vs {y:,} ({y - x:+,})")
    for kind in ("entity_types", "relation_types"):
        ca, cb = getattr(sa.total, kind), getattr(sb.total, kind)
        for t in sorted(set(ca) | set(cb)):
            if ca.get(t, 0) != cb.get(t, 0):
                out.append(f"{kind[:-6]} type {t}: {ca.get(t, 0):,} vs {cb.get(t, 0):,}")
    split_a = {s.name: s for s in sa.splits}
    split_b = {s.name: s for s in sb.splits}
    for name in [*split_a, *(n for n in split_b if n not in split_a)]:
        if name not in split_a or name not in split_b:
            out.append(f"split '{name}' only in {'the first' if name in split_a else 'the second'} file")
        elif split_a[name].fingerprint != split_b[name].fingerprint:
            x, y = split_a[name], split_b[name]
            out.append(
                f"split '{name}' differs: {x.sentences}/{x.entities}/{x.relations} vs "
                f"{y.sentences}/{y.entities}/{y.relations} sentences/entities/relations"
            )
    out += _sentence_differences(a.documents, b.documents, limit)
    return out


def _sentence_differences(a: Sequence[Document], b: Sequence[Document], limit: int) -> list[str]:
    def key(d: Document) -> tuple:
        return (d.id,) if d.id is not None else (None, tuple(d.tokens))

    index_a = {key(d): d for d in a}
    index_b = {key(d): d for d in b}
    only_a = [k for k in index_a if k not in index_b]
    only_b = [k for k in index_b if k not in index_a]
    changed = []
    for k, da in index_a.items():
        db = index_b.get(k)
        if db is None:
            continue
        ca, cb = canonical_document(da), canonical_document(db)
        if ca != cb:
            parts = []
            if ca[1] != cb[1]:
                parts.append("tokens")
            if ca[2] != cb[2]:
                parts.append(f"entities {len(ca[2])}→{len(cb[2])}")
            if ca[3] != cb[3]:
                parts.append(f"relations {len(ca[3])}→{len(cb[3])}")
            changed.append(f"sentence {_show(k)}: {', '.join(parts)} differ")
    out = []
    if only_a:
        out.append(f"{len(only_a)} sentence(s) only in the first file, e.g. {', '.join(_show(k) for k in only_a[:5])}")
    if only_b:
        out.append(f"{len(only_b)} sentence(s) only in the second file, e.g. {', '.join(_show(k) for k in only_b[:5])}")
    if changed:
        out.append(f"{len(changed)} sentence(s) with changed annotations")
        out += ["  " + c for c in changed[:limit]]
        if len(changed) > limit:
            out.append(f"  ... and {len(changed) - limit} more")
    return out


def _show(key: tuple) -> str:
    if key[0] is not None:
        return str(key[0])
    tokens = key[1]
    return "'" + " ".join(tokens[:6]) + (" …'" if len(tokens) > 6 else "'")


_STAT_COLUMNS = (
    ("split", "name"),
    ("sentences", "sentences"),
    ("tokens", "tokens"),
    ("entities", "entities"),
    ("relations", "relations"),
    ("nested", "nested_mentions"),
    ("crossing", "crossing_mentions"),
    ("dup. ents", "duplicate_mentions"),
    ("rels w/ overlapping args", "overlapping_argument_relations"),
    ("dup. rels", "duplicate_relations"),
    ("bijective", "bijective"),
    ("fingerprint", "fingerprint"),
)


_E2E_NOTE = (
    "nested = pairs of mentions in one sentence where one span contains the other (identical spans with different "
    "types included); crossing = overlapping without nesting; bijective = each relation type has one (head, tail) "
    "type pair and no two relation types share one (Taillé et al. 2020, §5.4)"
)


def e2e_stats_tables(stats: Sequence[DatasetStats]) -> list[Table]:
    """Per file: per-split and total counts, mentions per entity and relation type, and the relation →
    argument-type mapping (shown only); for CSV one long table of (file, split, kind, key, value)."""
    tables = []
    data = []
    for s in stats:
        rows = [*s.splits, s.total] if len(s.splits) > 1 else s.splits
        columns = [Column("split")]
        columns += [Column(head, "count", key=attr) for head, attr in _STAT_COLUMNS[1:-2]]
        columns += [Column("bijective", align="right"), Column("fingerprint", align="right")]
        tables.append(
            Table(
                f"{s.path} ({s.format})",
                columns,
                [[getattr(r, attr) for _, attr in _STAT_COLUMNS] for r in rows],
                show="display",
            )
        )
        names = [r.name for r in rows]
        for kind, attr in (("entity type", "entity_types"), ("relation type", "relation_types")):
            types = sorted({t for r in rows for t in getattr(r, attr)})
            tables.append(
                Table(
                    f"mentions per {kind}",
                    [Column(kind), *(Column(name, "count") for name in names)],
                    [[t, *(getattr(r, attr).get(t, 0) for r in rows)] for t in types],
                    show="display",
                )
            )
        total = s.total
        verdict = "bijective" if total.bijective else "NOT bijective"
        tables.append(
            Table(
                f"relation type → (head type, tail type), all splits: {verdict}",
                [Column("relation"), Column("argument types", align="right")],
                [[r, ", ".join(f"{p} ({n:,})" for p, n in pairs.items())] for r, pairs in total.argument_types.items()],
                notes=[_E2E_NOTE, *s.notes],
                show="display",
            )
        )
        for split in [*s.splits, s.total]:
            data += [[s.path, split.name, "count", attr, getattr(split, attr)] for _, attr in _STAT_COLUMNS[1:]]
            data += [[s.path, split.name, "entity_type", t, n] for t, n in split.entity_types.items()]
            data += [[s.path, split.name, "relation_type", t, n] for t, n in split.relation_types.items()]
            for r, pairs in split.argument_types.items():
                data += [[s.path, split.name, "argument_types", f"{r}: {p}", n] for p, n in pairs.items()]
    columns = [Column("file"), Column("split"), Column("kind"), Column("key"), Column("value")]
    return [*tables, Table("", columns, data, show="data")]


@dataclass(frozen=True)
class E2EStatistics:
    """The statistics `releval stats` shows for end-to-end RE files: per file, per split and in total, and for
    several files a total row and the sentences they share. Rendered by releval.report (to_tables, to_dict)."""

    stats: list[DatasetStats]

    def to_tables(self) -> list[Table]:
        return e2e_stats_tables(self.stats)

    def to_dict(self) -> object:
        return self.stats[0].to_dict() if len(self.stats) == 1 else {"files": [s.to_dict() for s in self.stats]}


def statistics(paths: Sequence[Any], config: Any = None) -> E2EStatistics:
    """The end-to-end task's dataset statistics (releval.tasks.e2e.TASK): every file read, counted and checked;
    several files get a total row and the sentences two files share."""
    from releval.data.e2e import load_e2e

    datasets = [load_e2e(p) for p in paths]
    stats = [dataset_stats(d) for d in datasets]
    if len(datasets) > 1:
        stats.append(files_stats(datasets))
    return E2EStatistics(stats)
