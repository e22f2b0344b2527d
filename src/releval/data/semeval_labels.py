"""The SemEval-2010 Task 8 label inventory (Hendrickx et al. 2010): 9 relations × 2 directions + Other."""

from __future__ import annotations

RELATIONS: tuple[str, ...] = (
    "Cause-Effect",
    "Component-Whole",
    "Content-Container",
    "Entity-Destination",
    "Entity-Origin",
    "Instrument-Agency",
    "Member-Collection",
    "Message-Topic",
    "Product-Producer",
)
OTHER = "Other"
DIRECTED: tuple[str, ...] = tuple(f"{r}({d})" for r in RELATIONS for d in ("e1,e2", "e2,e1")) + (OTHER,)
UNDIRECTED: tuple[str, ...] = (*RELATIONS, OTHER)
DIRECTED_SET = frozenset(DIRECTED)
UNDIRECTED_SET = frozenset(UNDIRECTED)


def undirected(label: str) -> str:
    """`Cause-Effect(e2,e1)` → `Cause-Effect`; `Other` and undirected labels unchanged."""
    cut = label.find("(")
    return label if cut < 0 else label[:cut]
