"""FewRel's mistaken inputs, made from the example bundled in examples/fewrel: 50 five-way one-shot episodes
(`official-5-1.json` points to the episodes and to `answers-5-1.json`), the bag-of-words baseline's predictions,
and the same episodes with one none-of-the-above query each (`gold-5-1-nota.json.gz`)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from conftest import EXAMPLES
from mistakes import Files, Mistake

FEWREL = EXAMPLES / "fewrel"
OFFICIAL = FEWREL / "official-5-1.json"
BOW, BETWEEN = FEWREL / "pred-bow-5-1.json", FEWREL / "pred-between-5-1.json"


def _edited(edit: Callable[[list[int]], list[int]]) -> Callable[[Path], Files]:
    def make(folder: Path) -> Files:
        pred = folder / "system.json"
        pred.write_text(json.dumps(edit(json.loads(BOW.read_text(encoding="utf-8")))), encoding="utf-8")
        return Files(OFFICIAL, pred, BETWEEN)

    return make


def _answers_twice(folder: Path) -> Files:
    """The official gold (episodes and answers in two files, copied together) and its answers file as the system."""
    for name in ("official-5-1.json", "input-5-1.json.gz", "answers-5-1.json"):
        shutil.copyfile(FEWREL / name, folder / name)
    return Files(folder / "official-5-1.json", folder / "answers-5-1.json", BETWEEN)


def _swapped(folder: Path) -> Files:
    return Files(BOW, OFFICIAL, BETWEEN)


CASES = [
    Mistake("fewrel", "an index outside 0..N-1", _edited(lambda v: [*v[:9], 7, *v[10:]]), "is out of range 0..4"),
    Mistake("fewrel", "N (none-of-the-above) without NOTA", _edited(lambda v: [5, *v[1:]]), "not a NOTA setting"),
    Mistake("fewrel", "one prediction lost", _edited(lambda v: v[:-1]), "249 predictions for 250 queries"),
    Mistake("fewrel", "relation names for indices", _edited(lambda v: [f"P{x}" for x in v]), "expected an integer"),
    Mistake("fewrel", "predictions given as gold", _swapped, "this is a list of answers"),
    Mistake("fewrel", "gold's answers file as the system", _answers_twice, "did you pass gold twice?", refused=False),
]
