"""`audit compare`: may two saved results be compared? Signatures field by field, plus dataset facts when present.

Rules follow Taillé et al. (2020, §4): a different criterion (Strict / Boundaries / Relaxed), averaging, negative
class, label set (e.g. an entity type dropped), test data or missing-prediction protocol makes numbers incomparable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from releval.audit.claims import check_dataset, criterion_gaps
from releval.audit.saved_results import SavedResult, load_results
from releval.core.errors import InputError
from releval.core.schema import check_schema, header, known, reading
from releval.core.table import Column, Table
from releval.data.io import PathLike

NOT_COMPARABLE, CAVEATS, COMPARABLE = "not comparable", "comparable with caveats", "comparable"
_BLOCKING = ("task", "view", "criterion", "negative", "weighted_classes", "beta", "labels", "n", "missing")
_CAVEAT = ("entropy_n", "zero_division", "gold")
_IGNORED = ("test", "resamples", "seed", "confidence", "class_set", "alpha", "methods", "dependence", "version")
#: The `kind` of a saved comparison.
KIND = "comparison"


@dataclass(frozen=True)
class Comparison:
    """The verdict on one pair of results, with every reason (blocking ones first)."""

    a: str
    b: str
    verdict: str
    reasons: list[str]
    differences: dict[str, tuple[str | None, str | None]]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (each difference as a two-item list [A's value, B's value])."""
        return {
            **header(KIND),
            "a": self.a,
            "b": self.b,
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "differences": {k: list(v) for k, v in self.differences.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Comparison:
        """The comparison `to_dict()` wrote (ValueError when `data` is not one, or its verdict is unknown)."""
        what = "comparison"
        check_schema(data, what, KIND)
        with reading(what):
            verdict = known(data["verdict"], (NOT_COMPARABLE, CAVEATS, COMPARABLE), what, "verdict")
            differences: dict[str, tuple[str | None, str | None]] = {}
            for key, pair in data.get("differences", {}).items():
                if not isinstance(pair, list) or len(pair) != 2:
                    raise ValueError(f"{what}: difference {key!r} is not a pair [A, B]")
                a, b = pair
                differences[str(key)] = (None if a is None else str(a), None if b is None else str(b))
            return cls(str(data["a"]), str(data["b"]), verdict, [str(r) for r in data["reasons"]], differences)


def _criterion_name(value: str | None) -> str:
    return (value or "unstated").replace("(experimental)", "").capitalize()


def _gap_hint(a: str | None, b: str | None, dataset: str | None) -> str:
    """Taillé et al.'s measured Boundaries − Strict gap, as a hint of how far apart the numbers should be."""
    pair = {(a or "").removesuffix("(experimental)"), (b or "").removesuffix("(experimental)")}
    if pair != {"strict", "boundaries"}:
        return ""
    gaps = criterion_gaps()
    names = [dataset.lower()] if dataset and dataset.lower() in gaps else sorted(gaps)
    parts = [f"+{gaps[d]['low']:.1f}–{gaps[d]['high']:.1f} F1 on {gaps[d]['name']}" for d in names]
    return "; expect ≈ " + ", ".join(parts) + " for Boundaries over Strict (Taillé et al. 2020, Table 4 test scores)"


def compare_pair(a: SavedResult, b: SavedResult, dataset: str | None = None) -> Comparison:
    """Compare two results' signatures field by field and their dataset facts; the verdict names every reason."""
    diffs = a.signature.differences(b.signature)
    blocking, caveats = [], []
    for key, (va, vb) in diffs.items():
        if key in _IGNORED:
            continue
        if key == "criterion":
            blocking.append(
                f"A is {_criterion_name(va)}, B is {_criterion_name(vb)}: not comparable" + _gap_hint(va, vb, dataset)
            )
        elif key == "average":
            shared = sorted(set((va or "").split(",")) & set((vb or "").split(",")) - {""})
            caveats.append(f"averages differ (A: {va}, B: {vb}); compare only {', '.join(shared) or 'nothing'}")
        elif key == "missing":
            blocking.append(_missing_reason(va, vb))
        elif key == "task" and _task_reason(va, vb):
            blocking.append(_task_reason(va, vb))
        elif key in _BLOCKING:
            blocking.append(f"{_LABELS.get(key, key)} differs: A {va or 'unstated'}, B {vb or 'unstated'}")
        elif key in _CAVEAT:
            caveats.append(f"{_LABELS.get(key, key)} differs: A {va or 'unstated'}, B {vb or 'unstated'}")
        else:
            caveats.append(f"{key} differs: A {va or 'unstated'}, B {vb or 'unstated'}")
    for key in sorted(set(a.dataset) | set(b.dataset)):
        if key in a.dataset and key in b.dataset and a.dataset[key] != b.dataset[key]:
            blocking.append(f"dataset {key} differs: A {a.dataset[key]!r}, B {b.dataset[key]!r}")
    verdict = NOT_COMPARABLE if blocking else CAVEATS if caveats else COMPARABLE
    reasons = blocking + caveats or ["every setting in the signatures is the same"]
    return Comparison(a.name, b.name, verdict, reasons, diffs)


_LABELS = {
    "task": "task",
    "view": "label view (directed / undirected)",
    "negative": "negative class",
    "weighted_classes": "classes in the weighted averages",
    "beta": "F-beta's beta",
    "labels": "label set",
    "n": "number of test items",
    "entropy_n": "entropy's N",
    "zero_division": "zero-division value",
    "gold": "gold data (digest)",
}


#: Why the two ChemProt tasks' numbers are not comparable (releval.tasks.chemprot; docs/biomedical.md).


def _task_reason(a: str | None, b: str | None) -> str:
    """Why two tasks of one dataset are not comparable (releval.tasks.chemprot.PRESET_REASONS: the ChemProt
    presets), or "" when nothing more than "task differs" is known."""
    from releval.tasks.chemprot import PRESET_REASONS

    return PRESET_REASONS.get(frozenset((a or "", b or "")), "")


def _missing_reason(a: str | None, b: str | None) -> str:
    leaky = [side for side, v in (("A", a), ("B", b)) if v == "negative"]
    text = f"missing-prediction policy differs: A {a or 'none missing'}, B {b or 'none missing'}"
    if leaky:
        text += f"; {' and '.join(leaky)} filled missing predictions with the negative class (RECENT's leak pattern)"
    return text


def _pairs(results: Sequence[list[SavedResult]]) -> list[tuple[SavedResult, SavedResult]]:
    """Which entries of two files to compare: same criterion where they share one, else every pair."""
    out = []
    for left, right in combinations(results, 2):
        shared = {r.criterion for r in left} & {r.criterion for r in right}
        if shared:
            out += [(x, y) for x in left for y in right if x.criterion == y.criterion]
            rest_l = [x for x in left if x.criterion not in shared and x.criterion != "ner"]
            rest_r = [y for y in right if y.criterion not in shared and y.criterion != "ner"]
            out += [(x, y) for x in rest_l for y in rest_r]
        else:
            out += [(x, y) for x in left for y in right]
    return out


def compare_files(paths: Sequence[PathLike], dataset: str | None = None) -> list[Comparison]:
    """Every pair of results across the files (two or more), each with a verdict and its reasons."""
    if dataset is not None:
        check_dataset(dataset)
    if len(paths) < 2:
        raise InputError("audit compare needs at least two result files")
    loaded = [load_results(p) for p in paths]
    return [compare_pair(a, b, dataset) for a, b in _pairs(loaded)]


def comparison_tables(comparisons: Sequence[Comparison]) -> list[Table]:
    """One block per pair (its verdict, then every reason; shown only) and, for CSV, one row per reason."""
    blocks = [
        Table(f"{c.a} vs {c.b}: {c.verdict.upper()}", lead=[f"  - {r}" for r in c.reasons], show="display")
        for c in comparisons
    ]
    columns = [Column("A", key="a"), Column("B", key="b"), Column("verdict"), Column("reason")]
    rows = [(c.a, c.b, c.verdict, r) for c in comparisons for r in c.reasons]
    return [*blocks, Table("", columns, rows, show="data")]
