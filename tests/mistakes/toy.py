"""The toy plugin task (tests/toy_task.py, written against the extension API alone) mistaken as issue 32 measured
for the families releval ships: it declares its labelled field (`vocabularies`) and checks nothing itself, so every
refusal and warning here is the pipeline's (releval.tasks.vocabulary.prediction_checks, added by releval.registry
to every command that reads its predictions). Its tokens are split on white space, so a label with white space
around it or a number glued on cannot reach it: there is no such case."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import toy_task
from mistakes import Files, Mistake

GOLD = "Kill Work_For Kill Live_In Located_In Kill"
SYSTEM = "Kill Work_For Live_In Live_In Located_In Work_For"  # 4 of 6 right


def _files(pred: str, gold_name: str = "gold.txt", pred_name: str = "system_a.txt") -> Callable[[Path], Files]:
    def make(folder: Path) -> Files:
        paths = []
        for name, text in ((gold_name, GOLD), (pred_name, pred), ("system_b.txt", SYSTEM)):
            (folder / name).write_text(text + "\n" if text else "", encoding="utf-8")
            paths.append(folder / name)
        return Files(*paths)

    return make


def _swapped(folder: Path) -> Files:
    """The system's output named like an output given as gold, gold named like gold given as the predictions."""
    made = _files(GOLD, gold_name="system_predictions.txt", pred_name="test_gold.txt")(folder)
    (folder / "system_predictions.txt").write_text(SYSTEM + "\n", encoding="utf-8")
    return made


def _case(name: str, make: Callable[[Path], Files], phrase: str, refused: bool = True) -> Mistake:
    return Mistake("toy", name, make, phrase, refused, plugin=toy_task.TASK)


_INDEX = {label: str(k) for k, label in enumerate(sorted(set(GOLD.split())))}

CASES = [
    _case("lower-cased tokens", _files(SYSTEM.lower()), "differ from gold's only in letter case"),
    _case(
        "integer class indices",
        _files(" ".join(_INDEX[t] for t in SYSTEM.split())),
        "the predicted tokens are integers",
    ),
    _case(
        "another dataset's labels",
        _files("per:title org:founded_by no_relation per:title no_relation no_relation"),
        "no predicted token occurs in gold",
    ),  # fmt: skip
    _case("an empty prediction file", _files(""), "the prediction file is empty"),
    _case("identical to gold", _files(GOLD), "predictions equal gold", refused=False),
    _case("swapped files", _swapped, "gold and predictions may be swapped", refused=False),
]
