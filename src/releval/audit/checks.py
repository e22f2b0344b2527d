"""`audit(gold, pred, train)`: every check runs, each problem becomes a Finding; nothing stops at the first problem.

Checks: coverage (missing / repeated / unknown ids), gold and predictions swapped or identical (the warnings `score`
gives, releval.tasks.label_mistakes), sensitivity to the missing-prediction policy with RECENT's leak
signature (olek-recent-f1.txt: filled items that are ~100 % gold-negative), label space against gold and training
data, and (head type, tail type) → relation constraints learned from the training data only.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from releval.audit.findings import AuditReport, Finding
from releval.audit.loading import Loaded, load_tolerant
from releval.core.errors import InputError, OptionError, grouped_problems
from releval.core.signature import Signature, sequence_digest, short_hash
from releval.core.validation import check_choice
from releval.data.alignment import Alignment, align, offset_hint
from releval.data.labels import FORMATS, LabelFile, apply_patch
from releval.data.semeval_labels import undirected
from releval.result import ScoreResult
from releval.tasks.classification import (
    ClassificationConfig,
    LabelsInput,
    Prepared,
    as_label_file,
    check_pair_labels,
    check_preset_layout,
    resolve_negative,
    score_prepared,
)
from releval.tasks.label_mistakes import content_swap_reasons, identical_to_gold, swapped_files, vocabulary

LEAK_SHARE = 0.95  # a filled-item gold-negative share at or above this (and above the base rate) is RECENT's signature
SIGNIFICANCE = 0.01  # one-sided binomial test of the share against the base rate
TYPE_FIELDS = ("subj_type", "obj_type")
N_EXAMPLES = 5


def audit(
    gold: LabelsInput,
    pred: LabelsInput,
    train: LabelsInput | None = None,
    *,
    config: ClassificationConfig | None = None,
    train_format: str | None = None,
    **reading: object,
) -> AuditReport:
    """Run every check on one system's predictions and return all findings (severity error / warning / info).

    End-to-end files (entities and relations) are audited by `releval.audit.e2e_checks.audit_e2e`.

    `config` says how the files are read, as for `score` (formats and field names per side, a gold patch, the
    undirected view, alignment by position, the negative class: 'auto' detects no_relation / Other / NA, None means
    no negative class); the keyword settings of ClassificationConfig may be given instead (`negative=…`,
    `gold_format=…`). The missing-prediction policy and --strict-labels are not settings of an audit: it reports
    what every policy does and every label gold lacks. `train` (optional) enables the label-space checks against
    training labels and the type constraints learned from training data. A format name that does not exist is an
    OptionError (a settings mistake, not a finding about the data).
    """
    if config is None:
        config = ClassificationConfig(**reading)  # type: ignore[arg-type]
    elif reading:
        raise OptionError(f"{', '.join(reading)}: give them in config, or give no config", option=next(iter(reading)))
    if train_format is not None:
        check_choice(train_format, FORMATS, "train_format")
    g = _load(gold, "gold", config.gold_read_format, config.side_fields("gold"))
    p = _load(pred, "pred", config.pred_format, config.side_fields("pred"))
    t = _load(train, "train", train_format, config.side_fields("gold")) if train is not None else None
    if g.end_to_end or p.end_to_end:
        from releval.audit.e2e_checks import audit_e2e

        return audit_e2e(gold, pred, train)  # type: ignore[arg-type]
    report = AuditReport(inputs={"gold": g.path, "pred": p.path, "train": t.path if t else None})
    for loaded in (g, p, t):
        if loaded is not None:
            report.extend(input_findings(loaded))
    if g.file is None or p.file is None:
        return report
    gold_file, pred_file = _as_read(g.file, p.file, config)
    neg, notes = resolve_negative(config.negative, gold_file.labels)
    report.signature = _signature(gold_file, neg, t.file if t is not None else None, config)
    report.add(_negative_finding(gold_file, neg, notes))
    try:
        layout = [Finding("preset-layout", "warning", str(w)) for w in check_preset_layout(gold_file, config)]
    except InputError as exc:  # BLUE's ChemProt TSV audited as plain rc: the numbers would not be BLUE's
        report.add(Finding("preset-layout", "error", exc.message, None, [], {"file": "gold"}))
        return report
    report.extend(layout)
    mistake = label_mistake_finding(gold_file, pred_file, config)
    if mistake is not None:
        report.add(mistake)
        return report  # no label can match: every other check would report the same mistake in other words
    known_pred, cover = coverage_findings(gold_file, pred_file)
    report.extend(cover)
    report.extend(swap_findings(gold_file, pred_file))
    alignment = _alignment(gold_file, known_pred, neg)
    if alignment is None:
        return report
    report.extend(
        [
            Finding("pred-equals-gold", "warning", str(notice), len(alignment.gold))
            for notice in identical_to_gold(alignment.gold, alignment.pred, p.path)
        ]
    )
    report.extend(policy_findings(gold_file, known_pred, neg))
    train_file = t.file if t is not None else None
    report.extend(label_space_findings(gold_file, pred_file, train_file))
    if train_file is not None:
        report.extend(type_constraint_findings(gold_file, alignment, train_file, neg))
    return report


def _as_read(gold: LabelFile, pred: LabelFile, config: ClassificationConfig) -> tuple[LabelFile, LabelFile]:
    """Gold with the Config's patch and view, predictions with its view, and — aligned by position — the
    predictions given gold's ids (releval.tasks.classification.load_gold's rules)."""
    if config.patch is not None:
        gold = apply_patch(gold, config.patch)
    if config.view == "undirected":
        gold = gold.with_labels([undirected(x) for x in gold.labels])
        pred = pred.with_labels([undirected(x) for x in pred.labels])
    positional = config.by_position if config.by_position is not None else (gold.ids is None or pred.ids is None)
    if positional:
        if len(pred) != len(gold):
            raise InputError(
                f"has {len(pred)} items but gold {gold.path} has {len(gold)}; position alignment needs equal lengths",
                file=pred.path,
            )
        ids = gold.ids if gold.ids is not None else [str(k) for k in range(1, len(gold) + 1)]
        gold, pred = replace(gold, ids=ids), replace(pred, ids=ids)
    return gold, pred


def label_mistake_finding(gold: LabelFile, pred: LabelFile, config: ClassificationConfig) -> Finding | None:
    """The label mistakes every command refuses (releval.tasks.classification.check_pair_labels: directed
    predictions against the undirected key, letter case, a misspelt negative) as an error finding with the
    same message, or None."""
    gold_set = set(gold.labels)
    unseen = sorted(set(pred.labels) - gold_set)
    strict = replace(config, strict_labels=False)  # an audit lists unseen labels (label_space_findings)
    try:
        check_pair_labels(sorted(gold_set), unseen, strict, pred.path, pred_labels=set(pred.labels))
    except OptionError:
        raise  # a setting's mistake (a misspelt --negative) is refused, as by every command
    except InputError as exc:
        return Finding("label-mistake", "error", exc.message, len(unseen), unseen[:N_EXAMPLES], {"file": "pred"})
    return None


def swap_findings(gold: LabelFile, pred: LabelFile) -> list[Finding]:
    """The warning `score` gives when gold and predictions seem swapped (file names, or content: the vocabularies
    and formats; releval.tasks.label_mistakes.swapped_files), as a finding with the content's reasons as data."""
    return [
        Finding(
            "swapped-files",
            "warning",
            str(notice),
            None,
            [],
            {
                "gold_labels": len(vocabulary(gold.labels)),
                "pred_labels": len(vocabulary(pred.labels)),
                "content_reasons": content_swap_reasons(gold, pred),
            },
        )
        for notice in swapped_files(gold, pred)
    ]


def _signature(
    gold: LabelFile, negative: str | None, train: LabelFile | None, config: ClassificationConfig
) -> Signature:
    """What the audit's numbers depend on: the view, the patch, the negative class, the gold labels (set and
    sequence), the training labels and n."""
    return Signature.build(
        task="audit",
        view=config.view,
        patch=hashlib.sha256(Path(config.patch).read_bytes()).hexdigest()[:8] if config.patch else None,
        negative=negative if negative is not None else "none",
        labels=short_hash(sorted(set(gold.labels))),
        gold=sequence_digest(gold.labels),
        train=sequence_digest(train.labels) if train is not None else None,
        n=len(gold.labels),
    )


def _load(data: LabelsInput, role: str, format: str | None, fields: dict[str, str]) -> Loaded:
    if isinstance(data, (str, os.PathLike)):
        return load_tolerant(data, role, format=format, **fields)
    f = as_label_file(data, "pred" if role == "pred" else "gold")
    return Loaded(role, f.path, f)


def _examples(items: Sequence[str], k: int = N_EXAMPLES) -> list[str]:
    return [str(x) for x in items[:k]]


def input_findings(loaded: Loaded) -> list[Finding]:
    """Problems that kept a file from loading (all of them) and every repeated id (exact count, with lines)."""
    out = []
    if loaded.errors:
        out.append(
            Finding(
                "unreadable-input",
                "error",
                f"{loaded.role} file {loaded.path} has {len(loaded.errors)} problem(s) that keep it from being read; "
                "the checks that need it are skipped",
                len(loaded.errors),
                grouped_problems(loaded.errors)[:20],  # alike problems said once
                {"file": loaded.role, "path": loaded.path},
            )
        )
    if loaded.repeats:
        ids = {r.id for r in loaded.repeats}
        out.append(
            Finding(
                "duplicate-ids",
                "error",
                f"{loaded.role} file {loaded.path}: {len(loaded.repeats)} repeated record(s) of {len(ids)} id(s); "
                "the first record of each id is used by the other checks",
                len(loaded.repeats),
                [f"{r.id} (line {r.line}, first on line {r.first_line})" for r in loaded.repeats[:N_EXAMPLES]],
                {"file": loaded.role, "path": loaded.path, "records": len(loaded.repeats), "ids": len(ids)},
            )
        )
    return out


def _negative_finding(gold: LabelFile, negative: str | None, notes: list[str]) -> Finding:
    n_neg = sum(label == negative for label in gold.labels) if negative is not None else 0
    rate = n_neg / len(gold) if len(gold) else 0.0
    if negative is None:
        message = "no negative class: every label is scored as a relation"
    else:
        message = f"negative class '{negative}': {n_neg} of {len(gold)} gold items ({100 * rate:.1f} %)"
    return Finding(
        "negative-class",
        "info",
        "; ".join([message, *notes]),
        n_neg,
        data={"negative": negative, "gold_negative": n_neg, "n_gold": len(gold), "base_rate": rate},
    )


def coverage_findings(gold: LabelFile, pred: LabelFile) -> tuple[LabelFile, list[Finding]]:
    """Unknown and missing ids, and (without ids) a length mismatch; returns pred restricted to known ids."""
    if gold.ids is None or pred.ids is None:
        if len(gold) == len(pred):
            return pred, [
                Finding("positional", "info", f"aligned by position ({len(gold)} items): ids cannot be checked")
            ]
        return pred, [
            Finding(
                "length-mismatch",
                "error",
                f"no ids and {len(pred)} predictions for {len(gold)} gold items: they cannot be aligned",
                abs(len(gold) - len(pred)),
                data={"n_gold": len(gold), "n_pred": len(pred)},
            )
        ]
    out = []
    gold_ids = set(gold.ids)
    unknown = [(i, item_id) for i, item_id in enumerate(pred.ids) if item_id not in gold_ids]
    if unknown:
        out.append(
            Finding(
                "unknown-ids",
                "error",
                f"{len(unknown)} prediction(s) have ids that are not in gold; they are left out of the other checks"
                + offset_hint(list(gold.ids), list(pred.ids)),  # ids offset by a constant: the offset and the fix
                len(unknown),
                [f"{item_id} (line {pred.lines[i]})" for i, item_id in unknown[:N_EXAMPLES]],
                {"path": pred.path},
            )
        )
        keep = [i for i, item_id in enumerate(pred.ids) if item_id in gold_ids]
        pred = _subset(pred, keep)
    pred_ids = set(pred.ids or [])
    missing = [item_id for item_id in gold.ids if item_id not in pred_ids]
    if missing:
        out.append(
            Finding(
                "missing-predictions",
                "error",
                f"{len(missing)} of {len(gold)} gold items have no prediction; the score depends on how they are "
                "filled (see missing-policy-sensitivity)",
                len(missing),
                _examples(missing),
                {"n_gold": len(gold), "n_pred": len(pred)},
            )
        )
    return pred, out


def _subset(f: LabelFile, keep: list[int]) -> LabelFile:
    fields = {k: [v[i] for i in keep] for k, v in f.fields.items()}
    ids = [f.ids[i] for i in keep] if f.ids is not None else None
    return replace(f, ids=ids, labels=[f.labels[i] for i in keep], lines=[f.lines[i] for i in keep], fields=fields)


def _alignment(gold: LabelFile, pred: LabelFile, negative: str | None) -> Alignment | None:
    """The alignment the other checks use: missing items counted wrong (Olek's corrected protocol)."""
    if gold.ids is None or pred.ids is None:
        return align(gold, pred, by_position=True) if len(gold) == len(pred) else None
    return align(gold, pred, on_missing="wrong", negative=negative)


@dataclass(frozen=True)
class MicroCounts:
    """Micro-averaged counts and scores over the positive classes of one result."""

    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f: float

    @classmethod
    def of(cls, result: ScoreResult) -> MicroCounts:
        rows = [r for r in result.per_class if r.positive]
        micro = result["micro"]
        return cls(
            sum(r.tp for r in rows),
            sum(r.fp for r in rows),
            sum(r.fn for r in rows),
            micro.precision,
            micro.recall,
            micro.f,
        )

    def to_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


def _score(alignment: Alignment, gold: LabelFile, negative: str | None) -> ScoreResult:
    prepared = Prepared(alignment, negative, False, None, [])
    return score_prepared(prepared, ClassificationConfig(negative=negative), check_labels=False)


def policy_findings(gold: LabelFile, pred: LabelFile, negative: str | None) -> list[Finding]:
    """Score under `negative` and `wrong` filling, their difference, and the filled items' gold-negative share.

    A share near 100 % (against a lower base rate) is RECENT's leak: only items whose gold label is negative were
    left out of the prediction file, so filling them with the negative class turns false positives into hits.
    """
    if gold.ids is None or pred.ids is None:
        return []
    present = set(pred.ids)
    if all(item_id in present for item_id in gold.ids):
        return []
    if negative is None:
        return [
            Finding(
                "missing-policy-sensitivity",
                "info",
                "no negative class, so missing predictions can only be counted as wrong",
            )
        ]
    filled_neg = align(gold, pred, on_missing="negative", negative=negative)
    filled_wrong = align(gold, pred, on_missing="wrong", negative=negative)
    as_negative = MicroCounts.of(_score(filled_neg, gold, negative))
    as_wrong = MicroCounts.of(_score(filled_wrong, gold, negative))
    diff = as_negative.f - as_wrong.f
    out = [
        Finding(
            "missing-policy-sensitivity",
            "warning",
            f"micro-F1 {100 * as_negative.f:.2f} with missing predictions filled as '{negative}' vs "
            f"{100 * as_wrong.f:.2f} with them counted as wrong (difference {100 * diff:+.2f} points)",
            filled_neg.n_missing,
            data={"negative": as_negative.to_dict(), "wrong": as_wrong.to_dict(), "f_difference": diff},
        )
    ]
    from scipy.stats import binomtest  # lazily: the CLI starts without SciPy

    n, k = filled_neg.n_missing, filled_neg.missing_gold_negative
    base_rate = sum(label == negative for label in gold.labels) / len(gold)
    share = k / n
    p_value = float(binomtest(k, n, base_rate, alternative="greater").pvalue) if 0 < base_rate < 1 else None
    if share >= LEAK_SHARE and share > base_rate:
        severity = "error"
        verdict = "RECENT's leak signature: the prediction file lacks (almost) only gold-negative items"
    elif p_value is not None and p_value < SIGNIFICANCE:
        severity = "warning"
        verdict = "the missing items are gold-negative more often than chance: filling them as negative inflates F1"
    else:
        severity = "info"
        verdict = "no sign that the missing items were chosen by their gold label"
    out.append(
        Finding(
            "missing-gold-negative-share",
            severity,
            f"{k} of {n} filled items are gold-negative ({100 * share:.1f} %) against a base rate of "
            f"{100 * base_rate:.1f} %: {verdict}",
            n,
            data={
                "filled": n,
                "gold_negative": k,
                "share": share,
                "base_rate": base_rate,
                "p_value": p_value,
                "test": "one-sided exact binomial test of the share against the base rate (scipy.stats.binomtest)",
            },
        )
    )
    return out


def label_space_findings(gold: LabelFile, pred: LabelFile, train: LabelFile | None) -> list[Finding]:
    """Predicted labels outside gold / training labels, and a predicted label set equal to test's but not train's."""
    out = []
    pred_counts = Counter(pred.labels)
    gold_set = set(gold.labels)
    train_set = set(train.labels) if train is not None else None
    not_in_gold = sorted(label for label in pred_counts if label not in gold_set)
    if train_set is not None:
        nowhere = [label for label in not_in_gold if label not in train_set]
        train_only = [label for label in not_in_gold if label in train_set]
        if nowhere:
            what = "occur in neither gold nor train"
            out.append(_label_finding("labels-unknown", "error", nowhere, pred_counts, what))
        if train_only:
            out.append(
                _label_finding(
                    "labels-not-in-gold",
                    "info",
                    train_only,
                    pred_counts,
                    "occur in train but not in gold (counted as false positives)",
                )
            )
        test_only = sorted(label for label in pred_counts if label in gold_set and label not in train_set)
        if test_only:
            out.append(
                _label_finding(
                    "labels-not-in-train",
                    "warning",
                    test_only,
                    pred_counts,
                    "never occur in training data but occur in gold: the label inventory may come from the test set",
                )
            )
        pred_set = set(pred_counts)
        if pred_set == gold_set and gold_set != train_set:
            out.append(
                Finding(
                    "label-set-from-test",
                    "warning",
                    f"the predicted label set equals the test set's ({len(gold_set)} labels) but not the training "
                    f"set's ({len(train_set)} labels): the label inventory may have been taken from the test set",
                    len(pred_set),
                    _examples(sorted(gold_set ^ train_set)),
                    {"gold_not_train": sorted(gold_set - train_set), "train_not_gold": sorted(train_set - gold_set)},
                )
            )
    elif not_in_gold:
        out.append(
            _label_finding(
                "labels-not-in-gold",
                "warning",
                not_in_gold,
                pred_counts,
                "never occur in gold (counted as false positives; pass --train to check them against training data)",
            )
        )
    return out


def _label_finding(code: str, severity: str, labels: list[str], counts: Counter[str], what: str) -> Finding:
    n = sum(counts[label] for label in labels)
    return Finding(
        code,
        severity,
        f"{n} prediction(s) use {len(labels)} label(s) that {what}: {', '.join(labels[:10])}",
        n,
        _examples(labels),
        {"labels": {label: counts[label] for label in labels}},
    )


def type_signature_map(train: LabelFile) -> dict[tuple[str, str], set[str]]:
    """(head type, tail type) → relations seen with it, learned from the training data only."""
    allowed: dict[tuple[str, str], set[str]] = defaultdict(set)
    for head, tail, label in zip(train.fields[TYPE_FIELDS[0]], train.fields[TYPE_FIELDS[1]], train.labels):
        allowed[(head, tail)].add(label)
    return dict(allowed)


def type_constraint_findings(
    gold: LabelFile, alignment: Alignment, train: LabelFile, negative: str | None
) -> list[Finding]:
    """Predictions whose relation never occurs with the item's argument types in training, and their effect on F1."""
    missing_fields = [
        f"{name} file lacks {fld}"
        for name, f in (("gold", gold), ("train", train))
        for fld in TYPE_FIELDS
        if fld not in f.fields
    ]
    if missing_fields:
        return [
            Finding(
                "type-constraints-skipped",
                "info",
                "type constraints not checked: " + "; ".join(missing_fields),
                data={"reason": missing_fields},
            )
        ]
    allowed = type_signature_map(train)
    heads, tails = gold.fields[TYPE_FIELDS[0]], gold.fields[TYPE_FIELDS[1]]
    violations = [
        i
        for i, label in enumerate(alignment.pred)
        if label != negative and label != alignment.missing_label and label not in allowed.get((heads[i], tails[i]), ())
    ]
    unseen_pairs = {(heads[i], tails[i]) for i in violations if (heads[i], tails[i]) not in allowed}
    correct = sum(alignment.gold[i] == alignment.pred[i] for i in violations)
    by_pair = Counter(f"{heads[i]}→{tails[i]}: {alignment.pred[i]}" for i in violations)
    data: dict[str, object] = {
        "type_pairs_in_train": len(allowed),
        "violations": len(violations),
        "violations_correct": correct,
        "violations_in_unseen_pairs": sum((heads[i], tails[i]) not in allowed for i in violations),
        "by_pair": dict(by_pair.most_common()),
    }
    ids = gold.ids or [str(n) for n in gold.lines]
    examples = [f"{ids[i]}: {alignment.pred[i]} for ({heads[i]}, {tails[i]})" for i in violations[:N_EXAMPLES]]
    if not violations:
        return [
            Finding(
                "type-constraints",
                "info",
                f"every prediction fits the (head type, tail type) → relations map of the training data "
                f"({len(allowed)} type pairs)",
                0,
                data=data,
            )
        ]
    before = MicroCounts.of(_score(alignment, gold, negative))
    message = (
        f"{len(violations)} prediction(s) use a relation never seen with their argument types in training "
        f"({correct} of them correct; {len(unseen_pairs)} type pair(s) absent from training)"
    )
    if negative is not None:
        flagged = set(violations)
        fixed = [negative if i in flagged else label for i, label in enumerate(alignment.pred)]
        after = MicroCounts.of(_score(replace(alignment, pred=fixed), gold, negative))
        data |= {"before": before.to_dict(), "as_negative": after.to_dict(), "f_change": after.f - before.f}
        message += f"; counted as '{negative}' instead, micro-F1 {100 * before.f:.2f} → {100 * after.f:.2f}"
    return [Finding("type-constraints", "warning", message, len(violations), examples, data)]
