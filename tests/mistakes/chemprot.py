"""ChemProt's mistaken inputs (both presets), made from the files bundled in examples/chemprot: BLUE's layout
(`blue_gold.tsv`, `blue_sys_a.tsv`: synthetic) and SciBERT's (`scibert_test_head.txt`, `scibert_sys_a.txt`).

BLUE's ChemProt scored as plain `--task rc` is not here: the matrix gives every command `--task`, and `plot
confusion` and `plot bootstrap` have none; tests/test_bio_mistakes.py checks it command by command."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from conftest import EXAMPLES
from mistakes import Files, Mistake

CHEMPROT = EXAMPLES / "chemprot"
BLUE_GOLD, BLUE_SYS = CHEMPROT / "blue_gold.tsv", CHEMPROT / "blue_sys_a.tsv"
SCI_GOLD, SCI_SYS = CHEMPROT / "scibert_test_head.txt", CHEMPROT / "scibert_sys_a.txt"


def evaluation_layout(source: Path, target: Path, edit: Callable[[int, list[str]], list[str]] | None = None) -> Path:
    """A BLUE `index sentence label` file rewritten in BLUE's evaluation layout (`id docid arg1 arg2 label`, as its
    create_chemprot_test_gs.py writes it), each row passed through `edit(row number, fields)`."""
    lines = source.read_text(encoding="utf-8").splitlines()[1:]
    out = ["id\tdocid\targ1\targ2\tlabel"]
    for k, line in enumerate(lines, 1):
        index, _, label = line.split("\t")
        docid, arg1, arg2 = index.split(".")
        row = [f"r{k}", docid, arg1, arg2, label]
        out.append("\t".join(edit(k, row) if edit else row))
    target.write_text("\n".join(out) + "\n", encoding="utf-8")
    return target


def _moved_argument(folder: Path) -> Files:
    gold = evaluation_layout(BLUE_GOLD, folder / "test_gs.tsv")
    pred = evaluation_layout(BLUE_SYS, folder / "system.tsv", lambda k, r: [*r[:2], "T99", *r[3:]] if k == 7 else r)
    return Files(gold, pred, evaluation_layout(BLUE_SYS, folder / "other.tsv"))


def _shuffled_rows(folder: Path) -> Files:
    lines = BLUE_SYS.read_text(encoding="utf-8").splitlines()
    lines[3], lines[4] = lines[4], lines[3]
    pred = folder / "system.tsv"
    pred.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Files(BLUE_GOLD, pred, BLUE_SYS)


def _short(source: Path, gold: Path) -> Callable[[Path], Files]:
    def make(folder: Path) -> Files:
        pred = folder / "system.txt"
        pred.write_text("".join(source.read_text(encoding="utf-8").splitlines(keepends=True)[:-1]), encoding="utf-8")
        return Files(gold, pred, source)

    return make


def _lower_blue(folder: Path) -> Files:
    pred = folder / "system.tsv"
    pred.write_text(BLUE_SYS.read_text(encoding="utf-8").replace("CPR:", "cpr:"), encoding="utf-8")
    return Files(BLUE_GOLD, pred, BLUE_SYS)


def _lower_scibert(folder: Path) -> Files:
    pred = folder / "system.txt"
    pred.write_text(SCI_SYS.read_text(encoding="utf-8").replace('"INHIBITOR"', '"inhibitor"'), encoding="utf-8")
    return Files(SCI_GOLD, pred, SCI_SYS)


def _twice(gold: Path, other: Path) -> Callable[[Path], Files]:
    def make(folder: Path) -> Files:
        copy = folder / f"system{gold.suffix}"
        shutil.copyfile(gold, copy)
        return Files(gold, copy, other)

    return make


def _swapped_names(gold: Path, pred: Path) -> Callable[[Path], Files]:
    def make(folder: Path) -> Files:
        g, p = folder / f"predictions{gold.suffix}", folder / f"gold{pred.suffix}"
        shutil.copyfile(gold, g)
        shutil.copyfile(pred, p)
        return Files(g, p, pred)

    return make


CASES = [
    Mistake("chemprot-blue", "a row's arg1 is not gold's (evaluation layout)", _moved_argument, "for the same id"),
    Mistake("chemprot-blue", "rows not in gold's order", _shuffled_rows, "the rows are not in gold's order"),
    Mistake("chemprot-blue", "the last row lost", _short(BLUE_SYS, BLUE_GOLD), "line counts differ"),
    Mistake("chemprot-blue", "CPR groups in lower case", _lower_blue, "only in letter case"),
    Mistake("chemprot-blue", "gold passed twice", _twice(BLUE_GOLD, BLUE_SYS), "did you pass gold twice?", False),
    Mistake("chemprot-blue", "swapped (names)", _swapped_names(BLUE_GOLD, BLUE_SYS), "may be swapped", False),
    Mistake("chemprot-scibert", "the last line lost", _short(SCI_SYS, SCI_GOLD), "line counts differ"),
    Mistake("chemprot-scibert", "a label in lower case", _lower_scibert, "only in letter case"),
    Mistake("chemprot-scibert", "gold passed twice", _twice(SCI_GOLD, SCI_SYS), "did you pass gold twice?", False),
    Mistake("chemprot-scibert", "swapped (names)", _swapped_names(SCI_GOLD, SCI_SYS), "may be swapped", False),
]
