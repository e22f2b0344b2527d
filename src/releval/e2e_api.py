"""The end-to-end RE scoring API: `score_e2e(gold, pred)` → NER strict and RE Strict / Boundaries side by side.

Each criterion gives a ScoreResult (per-type rows, micro and every class weighting, signature with
`task:e2e|criterion:…`), so the classification path's output code applies (Taillé et al. 2020; notes §1.4).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from releval.api import check_settings
from releval.core.signature import Signature, short_hash
from releval.data.e2e import Document, E2EDataset, TypeInventory, align_documents, load_any, load_types
from releval.errors import OptionError
from releval.metrics.averages import AveragingSpec, all_averages
from releval.metrics.e2e import BOUNDARIES, NER, RELAXED, RELAXED_CAVEAT, STRICT, DocumentCounts, document_counts
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, Weighting, get_weightings
from releval.result import Average, ClassRow, ScoreResult

E2EInput = str | os.PathLike[str] | E2EDataset | Sequence[Document]
RE_CRITERIA = (STRICT, BOUNDARIES)


@dataclass(frozen=True)
class E2EResult:
    """Scores of one system: `results[criterion]` for 'ner', 'strict', 'boundaries' (and 'relaxed' if asked)."""

    system: str
    results: dict[str, ScoreResult]
    counts: dict[str, DocumentCounts]
    n_documents: int
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def __getitem__(self, criterion: str) -> ScoreResult:
        return self.results[criterion]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every criterion's result (no accuracy: it is undefined without a negative class)."""
        out = {}
        for name, r in self.results.items():
            d = r.to_dict()
            d.pop("accuracy", None)
            d.pop("negative", None)
            out[name] = d
        return {
            "system": self.system,
            "task": "e2e",
            "documents": self.n_documents,
            "criteria": out,
            "notes": list(self.notes),
            "warnings": list(self.warnings),
        }


def score_e2e(
    gold: E2EInput,
    pred: E2EInput,
    *,
    criteria: Sequence[str] = RE_CRITERIA,
    types: str | os.PathLike[str] | TypeInventory | None = None,
    relaxed: bool = False,
    ner: bool = True,
    weightings: Sequence[str | Weighting] = DEFAULT_WEIGHTINGS,
    beta: float = 1.0,
    zero_division: float = 0.0,
    by_position: bool = False,
    system: str | None = None,
) -> E2EResult:
    """Score predicted entities and relations against gold under NER strict and the requested RE criteria.

    `relaxed=True` adds the experimental Relaxed criterion (labelled so in every output). Predictions are
    aligned by id unless `by_position`; types declared symmetric in `types` match in either order.
    """
    criteria = list(dict.fromkeys(c.strip().lower() for c in criteria if c.strip()))
    bad = [c for c in criteria if c not in RE_CRITERIA]
    if RELAXED in bad:
        raise OptionError(
            "--criterion: the Relaxed criterion is experimental: ask for it with relaxed=True (--relaxed)",
            option="--criterion",
        )
    if bad or not criteria:
        raise OptionError(
            f"--criterion: unknown criterion {bad[0] if bad else '(none)'!r} (known: strict, boundaries)",
            option="--criterion",
        )
    schemes = get_weightings(weightings)
    check_settings(beta=beta, zero_division=zero_division)
    if relaxed:
        criteria.append(RELAXED)
    inventory = types if isinstance(types, TypeInventory) or types is None else load_types(types)
    g, p = load_any(gold, "gold"), load_any(pred, "pred")
    aligned = align_documents(g, p, by_position=by_position)
    counts = document_counts(
        aligned.gold,
        aligned.pred,
        ([NER] if ner else []) + criteria,
        symmetric=inventory.symmetric if inventory else (),
        entity_types=inventory.entities if inventory else (),
        relation_types=inventory.relations if inventory else (),
    )
    notes = [*g.notes, *p.notes, *aligned.notes]
    if inventory and inventory.symmetric:
        notes.append(f"symmetric relation type(s), matched in either order: {', '.join(sorted(inventory.symmetric))}")
    elif inventory is None:
        notes.append("no types file: every relation type is directed")
    warnings = _duplicate_warnings(counts)
    name = system or _system_name(p)
    results = {}
    for criterion, dc in counts.items():
        crit_notes = list(notes)
        crit_warnings = [w for w in warnings if w.startswith(f"{criterion}:")]
        if criterion == RELAXED:
            crit_warnings.insert(0, RELAXED_CAVEAT)
        results[criterion] = _result(
            f"{name}",
            dc,
            schemes,
            beta,
            zero_division,
            dc.gold_digest,
            len(aligned.gold),
            crit_notes,
            crit_warnings,
            symmetric=sorted(inventory.symmetric) if inventory else [],
        )
    return E2EResult(name, results, counts, len(aligned.gold), notes, warnings)


def _duplicate_warnings(counts: dict[str, DocumentCounts]) -> list[str]:
    out = []
    for criterion, dc in counts.items():
        what = "entity mention(s)" if criterion == NER else "relation(s)"
        for side, n in (("gold", dc.duplicates_gold), ("predicted", dc.duplicates_pred)):
            if n:
                out.append(f"{criterion}: {n} duplicated {side} {what} counted once (set semantics)")
    return out


def _result(
    system: str,
    dc: DocumentCounts,
    schemes: tuple[Weighting, ...],
    beta: float,
    zero_division: float,
    gold_digest: str,
    n_docs: int,
    notes: list[str],
    warnings: list[str],
    symmetric: list[str],
) -> ScoreResult:
    totals = dc.total()
    k = len(dc.labels)
    spec = AveragingSpec(np.ones(k, dtype=bool), schemes, beta, zero_division, "all")
    per_class, averages = all_averages(totals, spec)
    rows = [
        ClassRow(
            label,
            int(totals.tp[i]),
            int(totals.fp[i]),
            int(totals.fn[i]),
            int(totals.tp[i] + totals.fn[i]),
            float(per_class.precision[i]),  # type: ignore[index]
            float(per_class.recall[i]),  # type: ignore[index]
            float(per_class.f[i]),  # type: ignore[index]
            True,
        )
        for i, label in enumerate(dc.labels)
    ]
    signature = Signature.build(
        task="e2e",
        criterion=dc.criterion + ("(experimental)" if dc.criterion == RELAXED else ""),
        negative="none",
        average=["micro", *(w.name for w in schemes)],
        weighted_classes="support>0",
        beta=float(beta),
        zero_division=float(zero_division),
        labels=short_hash(sorted(dc.labels)) + (f"+sym:{','.join(symmetric)}" if symmetric else ""),
        gold=gold_digest,
        n=n_docs,
    )
    avgs = {
        name: Average(name, float(a.precision), float(a.recall), float(a.f))  # type: ignore[arg-type]
        for name, a in averages.items()
    }
    return ScoreResult(system, rows, avgs, float("nan"), n_docs, None, signature, notes, warnings)


def _system_name(pred: E2EDataset) -> str:
    if pred.path.startswith("<"):
        return "system"
    name = Path(pred.path).name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name
