"""Audit of a DocRED submission (CodaLab `result.json`) against DocRED-format gold: the integrity checks of issue 25.

Every number comes from what `score --task docred` and `stats --task docred` compute (releval.tasks.docred's
`count` and `result_of`, releval.dataset_stats.docred's `file_stats` and `dataset_checks`): no second implementation.

Checks: gold labels without `evidence` (an error while evidence is scored; `--no-evidence` scores without it),
predictions without `evidence` (they predict no evidence sentence), predictions for titles absent from gold (false
positives), repeated (title, h_idx, t_idx, r) predictions (dropped, the first keeps its evidence), scores present
(a best threshold picked on this split is no test result), the **leak check** — the share of gold facts whose
(head mention name, tail mention name, r) is a train fact (the facts Ign F1 leaves out of precision) and the share
of predictions that copy a train fact — and whether gold and train facts come from the same dataset (Re-DocRED gold
with DocRED's train facts gives wrong Ign F1).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from releval.audit.findings import AuditReport, Finding
from releval.core.errors import InputError
from releval.data.docred import DocredGold, load_gold, load_submission
from releval.dataset_stats.docred import dataset_checks, file_stats
from releval.tasks import docred

N_EXAMPLES = 5


def audit_docred(
    gold: str | os.PathLike[str], pred: str | os.PathLike[str], config: docred.DocredConfig
) -> AuditReport:
    """Every DocRED check on one submission; findings as in `releval.audit.checks.audit` (exit status 1 on any
    error). Unreadable gold or predictions are an error finding each (the other checks are skipped); unreadable
    train facts are an InputError (a setting, like a missing file)."""
    train_paths = ", ".join(config.train_facts) or None
    report = AuditReport(inputs={"gold": str(gold), "pred": str(pred), "train": train_paths})
    facts = docred.Facts.of(config)
    try:
        g = load_gold(gold, evidence=False)
    except InputError as exc:
        report.add(_unreadable("gold", str(gold), exc))
        return report
    missing = [(d.title, j) for d in g.documents for j, label in enumerate(d.labels) if label[3] is None]
    if missing:
        report.add(_gold_evidence_finding(g, missing, config.evidence))
    if missing and config.evidence:
        config = replace(config, evidence=False)  # the other checks run as `score --no-evidence` would
    try:
        sub = load_submission(pred, g)
    except InputError as exc:
        report.add(_unreadable("pred", str(pred), exc))
        return report
    try:
        counts = docred.count(g, sub, facts, config)
    except InputError as exc:  # relation ids that cannot match gold: `score` refuses them
        report.add(Finding("refused-relations", "error", f"{exc}; the other checks are skipped", 1))
        return report
    result = docred.result_of("system", g, counts, facts, config, [])
    report.signature = result.signature
    report.extend(submission_findings(g, sub, counts, result))
    report.extend(leak_findings(g, counts, facts))
    report.extend(dataset_findings(g, str(gold), facts))
    return report


def _unreadable(role: str, path: str, exc: InputError) -> Finding:
    return Finding(
        "unreadable-input",
        "error",
        f"{role} file {path} cannot be read as DocRED JSON: {exc}; the checks that need it are skipped",
        1,
        [str(exc)],
        {"file": role, "path": path},
    )


def _gold_evidence_finding(gold: DocredGold, missing: list[tuple[str, int]], scored: bool) -> Finding:
    n_labels = sum(len(d.labels) for d in gold.documents)
    docs = list(dict.fromkeys(title for title, _ in missing))
    if scored:
        message = (
            f"{len(missing)} of {n_labels} gold label(s) in {len(docs)} document(s) have no `evidence` key: `score` "
            "refuses them while evidence is scored; score without evidence (--no-evidence) or complete the gold "
            "(the other checks ran without evidence)"
        )
    else:
        message = f"{len(missing)} of {n_labels} gold label(s) have no `evidence` key (evidence not scored)"
    return Finding(
        "gold-missing-evidence",
        "error" if scored else "info",
        message,
        len(missing),
        [f"{title!r} label {j}" for title, j in missing[:N_EXAMPLES]],
        {"labels": n_labels, "documents": len(docs)},
    )


def submission_findings(
    gold: DocredGold, sub: Any, counts: docred.DocredCounts, result: docred.DocredResult
) -> list[Finding]:
    """Predictions without evidence, for titles absent from gold, repeated, and scored (a threshold picked on
    this split) — each with the words `score` warns with."""
    out = [
        Finding(w.code, "warning", str(w))
        for w in result.warnings
        if w.code in ("pred-only-labels", "pred-equals-gold", "swapped-files")
    ]
    n = len(sub.predictions)
    no_evidence = [p for p in sub.predictions if p.evidence is None]
    if no_evidence:
        out.append(
            Finding(
                "pred-missing-evidence",
                "warning",
                f"{len(no_evidence)} of {n} prediction(s) have no `evidence` key: each predicts no evidence sentence "
                "(Evi R lower, as in the CodaLab scorer)",
                len(no_evidence),
                [f"{p.title!r} {p.h}→{p.t} {p.r}" for p in no_evidence[:N_EXAMPLES]],
                {"predictions": n},
            )
        )
    unknown = list(counts.units[counts.n_gold_documents :])
    if unknown:
        k = len(counts.labels)
        n_unknown = int(counts.stats[counts.n_gold_documents :, 3 * k + docred.EXTRA.index("predictions")].sum())
        message = docred.CRASH_NOTES["unknown_titles"].format(n=n_unknown, t=len(unknown))
        out.append(
            Finding("unknown-titles", "warning", message, n_unknown, unknown[:N_EXAMPLES], {"titles": len(unknown)})
        )
    if counts.duplicates:
        message = next(str(w) for w in result.warnings if w.code == "duplicates-dropped")
        out.append(Finding("duplicate-predictions", "warning", message, counts.duplicates))
    if result.curve is not None:
        out.append(
            Finding(
                "threshold-on-evaluated-split",
                "warning",
                f"the predictions carry scores: {docred.THRESHOLD_WARNING} (best F1 here "
                f"{100 * result.curve.best_f1:.2f} at score ≥ {result.curve.best_threshold:.4g})",
                data={"best_f1": result.curve.best_f1, "best_threshold": result.curve.best_threshold},
            )
        )
    return out


def leak_findings(gold: DocredGold, counts: docred.DocredCounts, facts: docred.Facts) -> list[Finding]:
    """The leak check: the share of distinct gold facts seen in train (Ign F1's idea made visible) and the share of
    the deduplicated predictions for gold documents that copy a train fact (how many of those are correct), by the
    scorer's own "in train" (releval.tasks.docred.seen_in)."""
    if facts.train is None:
        return [
            Finding(
                "no-train-facts",
                "info",
                "no train facts given (--train-facts): no leak check, and Ign F1 equals F1; give the training set's "
                "facts (a DocRED training file or a .fact list)",
            )
        ]
    train = facts.train.facts
    index = docred.gold_index(gold)
    seen = docred.seen_in(gold, index.keys, train)
    n_gold, n_seen = len(index.keys), int(seen.sum())
    known = [j for j, key in enumerate(counts.keys) if key[0] < counts.n_gold_documents]
    copies = docred.seen_in(gold, [counts.keys[j] for j in known], train)
    n_pred, n_copies = len(known), int(copies.sum())
    correct = int(sum(bool(counts.correct[j]) for j, c in zip(known, copies.tolist()) if c))
    share_gold = n_seen / n_gold if n_gold else 0.0
    share_pred = n_copies / n_pred if n_pred else 0.0
    examples = [f"{gold.documents[u].title!r} {h}→{t} {r}" for (u, h, t, r), s in zip(index.keys, seen) if s]
    return [
        Finding(
            "gold-facts-in-train",
            "info",
            f"{n_seen} of {n_gold} gold fact(s) ({100 * share_gold:.1f} %) have a (head mention name, tail mention "
            "name, r) among the train facts: Ign F1 leaves them out of precision when predicted (recall keeps them)",
            n_seen,
            examples[:N_EXAMPLES],
            {"gold_facts": n_gold, "seen": n_seen, "share": share_gold},
        ),
        Finding(
            "predictions-copy-train",
            "info",
            f"{n_copies} of {n_pred} prediction(s) for gold documents ({100 * share_pred:.1f} %) are train facts "
            f"(some mention-name triple seen in train): {correct} of them correct, {n_copies - correct} wrong; "
            f"gold's share is {100 * share_gold:.1f} %",
            n_copies,
            data={"predictions": n_pred, "copies": n_copies, "correct": correct, "share": share_pred},
        ),
    ]


def dataset_findings(gold: DocredGold, name: str, facts: docred.Facts) -> list[Finding]:
    """Gold and train facts from different datasets: `stats --task docred`'s own check (dataset_checks)."""
    if facts.train is None:
        return []
    notes, warnings = dataset_checks([file_stats(gold, name, facts.train)], facts.train)
    out = [Finding("train-facts-other-dataset", "warning", w) for w in warnings]
    return out + [Finding("train-facts-origin-unknown", "info", n) for n in notes]
