"""End-to-end sentences as flat arrays: what scoring needs, without a Python object per entity mention or relation.

`E2EArrays` holds the sentences of one split: their ids and tokens (for alignment) and one row per entity mention
(sentence, start, end-exclusive, type code) and per relation (sentence, head, tail, type code), where head and tail
index the entity rows. The SpERT loader builds it straight from the parsed JSON (`Spert.load_arrays`); any other
source goes through `Document`s (`E2EArrays.from_documents`). Counting (`releval.metrics.e2e.array_counts`) reads
the arrays directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from releval.data.documents import Document

if TYPE_CHECKING:
    from numpy.typing import NDArray


def ints(values: Sequence[int]) -> NDArray[np.int64]:
    """A list of Python integers as an int64 array (OverflowError beyond 64 bits)."""
    return np.fromiter(values, np.int64, len(values))


SEPARATOR = "\x00"


def token_keys(
    tokens: list[Sequence[str]], n_tokens: NDArray[np.int64], no_nul: bool = False
) -> tuple[list[Any], bool]:
    """(tokens of each sentence in a compact, exact form, whether they are joined): each sentence's tokens joined by
    NUL — one string instead of a tuple of strings, a tenth of the memory and nothing for the garbage collector to
    walk — when no token holds NUL (`no_nul`: the caller knows) and no sentence is empty (then joining loses
    nothing); else a tuple each."""
    if n_tokens.size and int(n_tokens.min()) > 0:
        keys = list(map(SEPARATOR.join, tokens))
        if no_nul or sum(map(str.count, keys, repeat(SEPARATOR))) == int(n_tokens.sum()) - n_tokens.size:
            return keys, True
    return list(map(tuple, tokens)), False


def type_codes(names: Sequence[str], table: dict[str, int]) -> NDArray[np.int64]:
    """Codes of `names` in `table`, which gets the names it does not hold yet (sorted)."""
    for name in sorted(set(names) - table.keys()):
        table[name] = len(table)
    return np.fromiter(map(table.__getitem__, names), np.int64, len(names))


@dataclass(frozen=True)
class E2EArrays:
    """Sentences of one split as flat arrays (see the module's docstring).

    `ent_doc` and `rel_doc` give each row's sentence (0-based, in the order of `ids`; after alignment, the gold
    order: rows need not be grouped by sentence); `rel_head` and `rel_tail` index the entity rows; type codes index
    `entity_types` and `relation_types`.
    """

    ids: list[str | None]
    tokens: list[Any]  # a tuple of strings per sentence, or their NUL-joined key when `joined`
    ent_doc: NDArray[np.int64]
    ent_start: NDArray[np.int64]
    ent_end: NDArray[np.int64]
    ent_type: NDArray[np.int64]
    rel_doc: NDArray[np.int64]
    rel_head: NDArray[np.int64]
    rel_tail: NDArray[np.int64]
    rel_type: NDArray[np.int64]
    entity_types: list[str]
    relation_types: list[str]
    joined: bool = False  # `tokens` holds each sentence's tokens joined by NUL, which no token holds (`token_keys`)

    def __len__(self) -> int:
        return len(self.ids)

    def token_tuples(self) -> list[tuple[str, ...]]:
        """The tokens of every sentence, as a tuple each."""
        if not self.joined:
            return self.tokens
        return [tuple(key.split(SEPARATOR)) for key in self.tokens]

    @classmethod
    def from_documents(cls, docs: Sequence[Document]) -> E2EArrays:
        """The arrays of `docs` (relation indices are not checked: the loaders did that)."""
        n = len(docs)
        n_ent = np.fromiter(map(len, map(attrgetter("entities"), docs)), np.int64, n)
        n_rel = np.fromiter(map(len, map(attrgetter("relations"), docs)), np.int64, n)
        ents = list(chain.from_iterable(map(attrgetter("entities"), docs)))
        rels = list(chain.from_iterable(map(attrgetter("relations"), docs)))
        # map(itemgetter) runs in C: far faster than zip(*rows) on a million rows
        ent = [list(map(itemgetter(k), ents)) for k in range(3)]
        rel = [list(map(itemgetter(k), rels)) for k in range(3)]
        offsets = np.cumsum(n_ent) - n_ent
        rel_doc = np.repeat(np.arange(n, dtype=np.int64), n_rel)
        entity_types: dict[str, int] = {}
        relation_types: dict[str, int] = {}
        return cls(
            [d.id for d in docs],
            [d.tokens for d in docs],
            np.repeat(np.arange(n, dtype=np.int64), n_ent),
            ints(ent[0]),
            ints(ent[1]),
            type_codes(ent[2], entity_types),
            rel_doc,
            ints(rel[0]) + offsets[rel_doc],
            ints(rel[1]) + offsets[rel_doc],
            type_codes(rel[2], relation_types),
            list(entity_types),
            list(relation_types),
        )

    @classmethod
    def concat(cls, parts: Sequence[E2EArrays]) -> E2EArrays:
        """The sentences of `parts` one after the other, type codes over the union of their type names."""
        if len(parts) == 1:
            return parts[0]
        all_joined = all(p.joined for p in parts)
        entity_types = list(dict.fromkeys(chain.from_iterable(p.entity_types for p in parts)))
        relation_types = list(dict.fromkeys(chain.from_iterable(p.relation_types for p in parts)))
        e_index = {name: i for i, name in enumerate(entity_types)}
        r_index = {name: i for i, name in enumerate(relation_types)}
        docs = np.cumsum([0] + [len(p) for p in parts])
        rows = np.cumsum([0] + [p.ent_doc.size for p in parts])

        def recode(codes: NDArray[np.int64], names: list[str], index: dict[str, int]) -> NDArray[np.int64]:
            return np.array([index[name] for name in names], dtype=np.int64)[codes] if codes.size else codes

        def joined(get: attrgetter, shift: NDArray[np.int64] | None = None) -> NDArray[np.int64]:
            return np.concatenate([get(p) + (0 if shift is None else shift[k]) for k, p in enumerate(parts)])

        return cls(
            [i for p in parts for i in p.ids],
            [t for p in parts for t in (p.tokens if all_joined else p.token_tuples())],
            joined(attrgetter("ent_doc"), docs),
            joined(attrgetter("ent_start")),
            joined(attrgetter("ent_end")),
            np.concatenate([recode(p.ent_type, p.entity_types, e_index) for p in parts]),
            joined(attrgetter("rel_doc"), docs),
            joined(attrgetter("rel_head"), rows),
            joined(attrgetter("rel_tail"), rows),
            np.concatenate([recode(p.rel_type, p.relation_types, r_index) for p in parts]),
            entity_types,
            relation_types,
            all_joined,
        )

    def aligned(self, gold_position: Sequence[int]) -> E2EArrays:
        """These sentences renumbered: sentence k becomes sentence `gold_position[k]` (ids and tokens reordered)."""
        position = np.asarray(gold_position, dtype=np.int64)
        order = np.empty_like(position)
        order[position] = np.arange(position.size, dtype=np.int64)
        return E2EArrays(
            [self.ids[k] for k in order],
            [self.tokens[k] for k in order],
            position[self.ent_doc],
            self.ent_start,
            self.ent_end,
            self.ent_type,
            position[self.rel_doc],
            self.rel_head,
            self.rel_tail,
            self.rel_type,
            self.entity_types,
            self.relation_types,
            self.joined,
        )


@dataclass(frozen=True)
class E2EArraysDataset:
    """The sentences of one file as arrays, by split (as `E2EDataset` holds them as Documents; `model_output` as
    there)."""

    path: str
    format: str
    splits: dict[str, E2EArrays]
    notes: list[str] = field(default_factory=list)
    model_output: bool = False

    @property
    def documents(self) -> E2EArrays:
        """All sentences, splits concatenated in file order."""
        return E2EArrays.concat(list(self.splits.values()))
