"""The sentence of end-to-end RE data, as every format reader and the array form share it: tokens, entity mentions
and relations. A module of its own, below the format readers (releval.data.formats) and the arrays
(releval.data.e2e_arrays), which both build on it.

>>> Document("s1", ("Ann", "works", "at", "Acme"), ((0, 1, "Peop"), (3, 4, "Org")), ((0, 1, "Work_For"),)).relations
((0, 1, 'Work_For'),)
"""

from __future__ import annotations

from dataclasses import dataclass

#: An entity mention: (start token, end token exclusive, type).
Entity = tuple[int, int, str]
#: A relation: (index of the head entity, index of the tail entity, type).
Relation = tuple[int, int, str]


@dataclass(frozen=True)
class Document:
    """One sentence: tokens, entity mentions (start, end-exclusive, type) and relations (head, tail, type)."""

    id: str | None
    tokens: tuple[str, ...]
    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()
