"""DocRED submissions whose relation ids cannot match gold's, built from the bundled Re-DocRED excerpt and system A:
P-ids in lower case and DocRED's relation names for the ids (refused), and gold written as a submission (warned)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mistakes import Files, Mistake

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docred"
GOLD = EXAMPLES / "redocred_dev_first40.json.gz"
SYSTEM_A = EXAMPLES / "system_a.json.gz"
SYSTEM_B = EXAMPLES / "system_b.json.gz"
NAMES = Path(__file__).resolve().parents[2] / "src" / "releval" / "data" / "docred_rel_info.json"


def _read(path: Path) -> Any:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def lowered(sub: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every relation id in lower case (`p17` for `P17`)."""
    return [{**p, "r": p["r"].lower()} for p in sub]


def named(sub: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every relation id replaced by its DocRED name (`country` for `P17`)."""
    names = json.loads(NAMES.read_text(encoding="utf-8"))
    return [{**p, "r": names[p["r"]]} for p in sub]


def gold_as_submission(gold: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Gold's facts written as a CodaLab submission, each with its evidence."""
    return [
        {"title": d["title"], "h_idx": x["h"], "t_idx": x["t"], "r": x["r"], "evidence": x.get("evidence", [])}
        for d in gold
        for x in d["labels"]
    ]


def _case(change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]], of_gold: bool = False) -> Callable:
    def make(folder: Path) -> Files:
        pred, pred2 = folder / "result.json", folder / "result_b.json"
        pred.write_text(json.dumps(change(_read(GOLD) if of_gold else _read(SYSTEM_A))), encoding="utf-8")
        pred2.write_text(json.dumps(_read(SYSTEM_B)), encoding="utf-8")
        return Files(GOLD, pred, pred2)

    return make


CASES = [
    Mistake("docred", "lower-cased P-ids", _case(lowered), "differ from gold's only in letter case: 'p1001'"),
    Mistake("docred", "relation names for P-ids", _case(named), "are names where gold has ids"),
    Mistake("docred", "gold as the submission", _case(gold_as_submission, True), "predictions equal gold", False),
]
