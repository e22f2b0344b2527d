"""DrugProt's mistaken inputs, made from the official library's toy data bundled in examples/drugprot: gold is its
`gs-data/` (5 abstracts, 25 relations), the valid second system its `toy-data/pred_relations.tsv`."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import EXAMPLES
from mistakes import Files, Mistake

GS = EXAMPLES / "drugprot" / "gs-data"
TOY = EXAMPLES / "drugprot" / "toy-data" / "pred_relations.tsv"


def _rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(folder: Path, name: str, rows: list[list[str]]) -> Path:
    path = folder / name
    path.write_text("".join("\t".join(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _with(edit: object, name: str = "system.tsv") -> object:
    """A case whose prediction is the toy predictions with `edit(rows)` applied."""

    def make(folder: Path) -> Files:
        rows = edit(_rows(TOY))  # type: ignore[operator]
        return Files(GS, _write(folder, name, rows), TOY)

    return make


def _lower(rows: list[list[str]]) -> list[list[str]]:
    return [[p, t.lower(), a, b] for p, t, a, b in rows]


def _indices(rows: list[list[str]]) -> list[list[str]]:
    return [[p, str(k % 13), a, b] for k, (p, _, a, b) in enumerate(rows)]


def _chemprot_groups(rows: list[list[str]]) -> list[list[str]]:
    return [[p, f"CPR:{3 + k % 5}", a, b] for k, (p, _, a, b) in enumerate(rows)]


def _other_pmids(rows: list[list[str]]) -> list[list[str]]:
    return [["9" + p, t, a, b] for p, t, a, b in rows]


def _not_an_entity(rows: list[list[str]]) -> list[list[str]]:
    return [*rows[:3], [rows[3][0], rows[3][1], rows[3][2], "Arg2:T999"], *rows[4:]]


def _empty(folder: Path) -> Files:
    empty = folder / "system.tsv"
    empty.write_bytes(b"")
    return Files(GS, empty, TOY)


def _gold_twice(folder: Path) -> Files:
    copy = folder / "system.tsv"
    shutil.copyfile(GS / "gs_relations.tsv", copy)
    return Files(GS, copy, TOY)


def _swapped_names(folder: Path) -> Files:
    """Gold kept under an output's name and the toy predictions under a key's: the names say they were swapped."""
    gold = folder / "run"
    gold.mkdir()
    shutil.copyfile(GS / "gs_relations.tsv", gold / "predictions_relations.tsv")
    for part in ("gs_entities.tsv", "pmids.txt"):
        shutil.copyfile(GS / part, gold / part)
    pred = folder / "gold_key.tsv"
    shutil.copyfile(TOY, pred)
    return Files(gold, pred, TOY)


CASES = [
    Mistake("drugprot", "relation types in lower case", _with(_lower), "differ from gold's only in letter case"),
    Mistake("drugprot", "an empty prediction file", _empty, "no predicted relation at all"),
    Mistake("drugprot", "relation types as class indices", _with(_indices), "class indices, not labels"),
    Mistake("drugprot", "ChemProt's CPR groups as types", _with(_chemprot_groups), "no predicted relation type occurs"),
    Mistake("drugprot", "every relation on another PMID", _with(_other_pmids), "is on a PMID of the list"),
    Mistake("drugprot", "an argument that is no entity", _with(_not_an_entity), "is not an entity of PMID"),
    Mistake("drugprot", "gold passed twice", _gold_twice, "did you pass gold twice?", refused=False),
    Mistake("drugprot", "gold and predictions swapped (names)", _swapped_names, "may be swapped", refused=False),
]
