"""Audit of end-to-end RE files (SpERT/sincere JSON, PURE/DyGIE++ JSONL) with the e2e loaders and scorer.

Checks: relations whose arguments are not among the file's entity mentions (counted exactly from the raw records,
since the loader stops at them), repeated sentence ids, missing / unknown sentences, duplicated entity mentions and
relations (set semantics hides them; duplicates inflate tools that count lists), Strict vs Boundaries (Taillé et al.
2020), and (head type, tail type) → relation constraints learned from the training file only.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from releval.audit.findings import AuditReport, Finding
from releval.core.errors import InputError, InputErrors, grouped_problems
from releval.core.signature import Signature
from releval.data.decoding import read_utf8
from releval.data.e2e import (
    Document,
    E2EDataset,
    align_arrays,
    align_documents,
    load_any_arrays,
    load_e2e,
    load_types,
)
from releval.data.formats import e2e_format_of
from releval.dataset_stats.e2e_dataset import fingerprint

if TYPE_CHECKING:
    from releval.tasks.e2e import E2EResult

N_EXAMPLES = 5
E2EInput = str | os.PathLike[str] | E2EDataset


def audit_e2e(
    gold: E2EInput,
    pred: E2EInput,
    train: E2EInput | None = None,
    *,
    by_position: bool = False,
    types: str | os.PathLike[str] | None = None,
) -> AuditReport:
    """Every end-to-end check on one system's predictions; findings as in `audit`, exit status 1 on any error.

    The input checks `score` makes (releval.tasks.e2e.check_predictions: relation and entity types against gold's
    and the `types` file's, predictions equal to gold, swapped files) are findings with the same messages; a type
    mistake that keeps every label from matching is an error and ends the audit (every other check would report
    it in other words)."""
    report = AuditReport(inputs={"gold": _name(gold), "pred": _name(pred), "train": _name(train) if train else None})
    loaded = {}
    for role, data in (("gold", gold), ("pred", pred), ("train", train)):
        if data is None:
            continue
        if not isinstance(data, E2EDataset):
            report.extend(dangling_findings(data, role))
        dataset, errors = _load(data, role)
        if errors:
            report.add(_unreadable(role, _name(data), errors))
        loaded[role] = dataset
    g, p = loaded.get("gold"), loaded.get("pred")
    for role, dataset in loaded.items():
        if dataset is not None:
            report.extend(duplicate_findings(dataset, role))
    if g is None:
        return report
    train_data = loaded.get("train")
    report.signature = Signature.build(
        task="audit",
        alignment="position" if by_position else "id",
        gold=fingerprint(g.documents),
        train=fingerprint(train_data.documents) if train_data is not None else None,
        n=len(g.documents),
    )
    if p is None:
        return report
    try:
        aligned = align_documents(g, p, by_position=by_position)
    except (InputError, InputErrors) as exc:
        report.add(_alignment_finding(g, p, exc))
        return report
    mistake, notices = input_findings(g, p, by_position, types)
    if mistake is not None:
        report.add(mistake)
        return report
    report.extend(notices)
    result = _scored(aligned.gold, aligned.pred, ("strict", "boundaries"))
    strict, boundaries = result["strict"]["micro"].f, result["boundaries"]["micro"].f
    report.add(
        Finding(
            "criteria",
            "info",
            f"relation micro-F1 {100 * strict:.2f} Strict vs {100 * boundaries:.2f} Boundaries "
            f"({100 * (boundaries - strict):+.2f}): report Strict, and say which one any compared number uses",
            data={"strict": strict, "boundaries": boundaries, "difference": boundaries - strict},
        )
    )
    t = loaded.get("train")
    if t is not None:
        report.extend(e2e_type_findings(aligned.gold, aligned.pred, t))
    return report


def input_findings(
    gold: E2EDataset, pred: E2EDataset, by_position: bool, types: str | os.PathLike[str] | None
) -> tuple[Finding | None, list[Finding]]:
    """(the type mistake `score` refuses, as an error finding — or None —, the warnings it gives as findings)."""
    from releval.tasks.e2e import check_predictions

    inventory = load_types(types) if types is not None else None
    g, p = load_any_arrays(gold, "gold"), load_any_arrays(pred, "pred")
    try:
        notices = check_predictions(g, p, align_arrays(g, p, by_position), inventory, str(types) if types else None)
    except InputError as exc:
        side = "gold" if exc.file == g.path else "pred"
        return Finding("label-mistake", "error", str(exc), None, [], {"file": side, "field": exc.field}), []
    return None, [Finding(n.code, "warning", str(n), None, [], {"file": "pred"}) for n in notices]


def _scored(gold: list[Document], pred: list[Document], criteria: tuple[str, ...]) -> E2EResult:
    """Aligned sentences scored without NER, quietly: the input checks' warnings are findings already
    (`input_findings`), and these documents have no file name to give."""
    from releval.tasks.e2e import E2EConfig, score

    return score(gold, pred, E2EConfig(criteria=criteria, ner=False, by_position=True))


def _name(data: Any) -> str:
    return data.path if isinstance(data, E2EDataset) else str(data)


def _load(data: E2EInput, role: str) -> tuple[E2EDataset | None, list[InputError]]:
    try:
        return (data if isinstance(data, E2EDataset) else load_e2e(data, "gold" if role == "train" else role)), []
    except InputErrors as exc:
        return None, list(exc.errors)
    except InputError as exc:
        return None, [exc]


def _unreadable(role: str, path: str, errors: list[InputError]) -> Finding:
    return Finding(
        "unreadable-input",
        "error",
        f"{role} file {path} has {len(errors)} problem(s) that keep it from being read (the loader stops after 50); "
        "the checks that need it are skipped",
        len(errors),
        grouped_problems(errors)[:20],  # alike problems said once
        {"file": role, "path": path},
    )


def dangling_findings(path: str | os.PathLike[str], role: str) -> list[Finding]:
    """Relations whose argument is not one of the file's entity mentions, counted over the whole raw file by its
    format (`E2EFormat.dangling`)."""
    try:
        raw = read_utf8(path)  # the loader's bytes: BOM dropped, UTF-16/32 with a BOM transcoded, NULs refused
    except InputError:
        return []
    fmt = e2e_format_of(raw)
    dangling = fmt.dangling(raw, role) if fmt is not None else []
    if not dangling:
        return []
    return [
        Finding(
            "relation-arguments-not-entities",
            "error",
            f"{role} file {path}: {len(dangling)} relation(s) have an argument that is not one of the sentence's "
            "entity mentions",
            len(dangling),
            dangling[:N_EXAMPLES],
            {"file": role, "path": str(path)},
        )
    ]


def _relation_keys(doc: Document) -> list[tuple]:
    return [(doc.entities[h][:2], doc.entities[t][:2], r) for h, t, r in doc.relations]


def duplicate_findings(dataset: E2EDataset, role: str) -> list[Finding]:
    """Repeated sentence ids, and entity mentions / relations listed twice in one sentence."""
    out = []
    docs = dataset.documents
    ids = Counter(d.id for d in docs if d.id is not None)
    repeated = {i: n for i, n in ids.items() if n > 1}
    if repeated:
        out.append(
            Finding(
                "duplicate-ids",
                "error",
                f"{role} file {dataset.path}: {sum(repeated.values()) - len(repeated)} repeated sentence(s) of "
                f"{len(repeated)} id(s)",
                sum(repeated.values()) - len(repeated),
                [str(i) for i in list(repeated)[:N_EXAMPLES]],
                {"file": role, "ids": len(repeated)},
            )
        )
    kinds = (
        ("duplicate-entities", "entity mention", lambda d: list(d.entities)),
        ("duplicate-relations", "relation", _relation_keys),
    )
    for code, what, keys in kinds:
        extra, examples = 0, []
        for k, doc in enumerate(docs):
            items = keys(doc)
            n = len(items) - len(set(items))
            if n:
                extra += n
                dup = next(x for x, c in Counter(items).items() if c > 1)
                examples.append(f"{doc.id if doc.id is not None else f'sentence {k + 1}'}: {dup}")
        if extra:
            out.append(
                Finding(
                    code,
                    "warning",
                    f"{role} file {dataset.path}: {extra} {what}(s) listed more than once in a sentence; releval "
                    "counts each once (set semantics), tools that count list items would inflate TP or FP",
                    extra,
                    examples[:N_EXAMPLES],
                    {"file": role},
                )
            )
    return out


def _alignment_finding(gold: E2EDataset, pred: E2EDataset, exc: InputError | InputErrors) -> Finding:
    errors = exc.errors if isinstance(exc, InputErrors) else [exc]
    gold_ids = {d.id for d in gold.documents}
    pred_ids = {d.id for d in pred.documents}
    data = {"missing": len(gold_ids - pred_ids), "unknown": len(pred_ids - gold_ids)} if len(gold.splits) == 1 else {}
    return Finding(
        "sentence-alignment",
        "error",
        "predictions cannot be paired with gold sentences: " + "; ".join(e.message for e in errors[:3]),
        len(errors),
        [str(e) for e in errors[:N_EXAMPLES]],
        data,
    )


def type_map(train: E2EDataset) -> dict[tuple[str, str], set[str]]:
    """(head type, tail type) → relation types, from the 'train' split when the file has one, else all sentences."""
    docs = train.splits["train"] if "train" in train.splits else train.documents
    allowed: dict[tuple[str, str], set[str]] = defaultdict(set)
    for doc in docs:
        for h, t, r in doc.relations:
            allowed[(doc.entities[h][2], doc.entities[t][2])].add(r)
    return dict(allowed)


def e2e_type_findings(gold: list[Document], pred: list[Document], train: E2EDataset) -> list[Finding]:
    """Predicted relations whose predicted argument types never carry that relation in training; F1 without them."""
    allowed = type_map(train)
    violations, examples, kept_docs = 0, [], []
    for k, doc in enumerate(pred):
        kept = []
        for h, t, r in doc.relations:
            pair = (doc.entities[h][2], doc.entities[t][2])
            if r in allowed.get(pair, ()):
                kept.append((h, t, r))
            else:
                violations += 1
                examples.append(f"{doc.id if doc.id is not None else f'sentence {k + 1}'}: {r} for {pair}")
        kept_docs.append(replace(doc, relations=tuple(kept)))
    data: dict[str, Any] = {"type_pairs_in_train": len(allowed), "violations": violations}
    if not violations:
        return [
            Finding("type-constraints", "info", "every predicted relation fits the training type map", 0, data=data)
        ]
    before = _scored(gold, pred, ("strict",))["strict"]["micro"].f
    after = _scored(gold, kept_docs, ("strict",))["strict"]["micro"].f
    data |= {"strict_f_before": before, "strict_f_without": after, "f_change": after - before}
    return [
        Finding(
            "type-constraints",
            "warning",
            f"{violations} predicted relation(s) join argument types never seen with that relation in training; "
            f"without them Strict micro-F1 {100 * before:.2f} → {100 * after:.2f}",
            violations,
            examples[:N_EXAMPLES],
            data,
        )
    ]
