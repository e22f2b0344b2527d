"""The public scoring API: `score(gold, pred)` from paths, LabelFiles, id→label mappings or label lists."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from releval.core.options import MISSING_POLICIES, VIEWS
from releval.core.signature import Signature, short_hash
from releval.data.alignment import Alignment, align
from releval.data.labels import LabelFile, apply_patch, load_labels
from releval.data.semeval_labels import undirected
from releval.errors import InputError
from releval.metrics.averages import ENTROPY_N
from releval.metrics.classification import detect_negative, encode, score_encoded
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, Weighting, get_weightings
from releval.result import ScoreResult
from releval.validation import check_beta, check_choice, check_zero_division

AUTO = "auto"
LabelsInput = str | os.PathLike[str] | LabelFile | Mapping[str, str] | Sequence[str]


def as_label_file(data: LabelsInput, role: str, format: str | None = None, **fields: str) -> LabelFile:
    """Normalise any accepted input to a LabelFile (paths are loaded; lists are positional)."""
    if isinstance(data, LabelFile):
        return data
    if isinstance(data, (str, os.PathLike)):
        # predictions' repeated ids are found by `align` (cheaper for large files)
        return load_labels(data, format=format, role=role, check_unique=role == "gold", **fields)
    if isinstance(data, Mapping):
        ids = [str(k) for k in data]
        return LabelFile(
            f"<{role} mapping>", "mapping", ids, [str(v) for v in data.values()], list(range(1, len(ids) + 1))
        )
    labels = [str(x) for x in data]
    return LabelFile(f"<{role} list>", "list", None, labels, list(range(1, len(labels) + 1)))


def check_settings(*, beta: float = 1.0, zero_division: float = 0.0, entropy_n: str = "all") -> None:
    """The scoring settings every average depends on: finite β >= 0, zero_division in [0, 1], entropy's N."""
    check_beta(beta)
    check_zero_division(zero_division)
    check_choice(entropy_n, ENTROPY_N, "--entropy-n")


def resolve_negative(negative: str | None, gold: LabelFile) -> tuple[str | None, list[str]]:
    """`auto` → no_relation/Other/NA if present (with a visible note); None → no negative class."""
    if negative != AUTO:
        return negative, []
    found = detect_negative(gold.labels)
    if found is None:
        return None, ["no negative class found among the gold labels (looked for no_relation, Other, NA)"]
    return found, [f"negative class '{found}' detected automatically (set it with --negative or --no-negative)"]


def score(
    gold: LabelsInput,
    pred: LabelsInput,
    *,
    negative: str | None = AUTO,
    weightings: Sequence[str | Weighting] = DEFAULT_WEIGHTINGS,
    beta: float = 1.0,
    zero_division: float = 0.0,
    entropy_n: str = "all",
    on_missing: str = "error",
    strict_labels: bool = False,
    by_position: bool | None = None,
    gold_format: str | None = None,
    pred_format: str | None = None,
    patch: str | os.PathLike[str] | None = None,
    view: str | None = None,
    system: str | None = None,
) -> ScoreResult:
    """Score one system against gold under micro and every weighting; every setting goes into the signature.

    Lists are aligned by position; files and mappings by id. `negative=None` means the data has no negative
    class; `'auto'` picks no_relation / Other / NA when present. `view='undirected'` drops the direction
    suffix of SemEval-style labels (`Cause-Effect(e2,e1)` → `Cause-Effect`) on both sides.

    Every setting is checked before a file is read: a bad one is an OptionError (a ValueError) naming the option.
    """
    weightings = get_weightings(weightings)
    check_settings(beta=beta, zero_division=zero_division, entropy_n=entropy_n)
    check_choice(on_missing, MISSING_POLICIES, "--on-missing")
    if view is not None:
        check_choice(view, VIEWS, "--view")
    g = as_label_file(gold, "gold", gold_format)
    p = as_label_file(pred, "pred", pred_format)
    if patch is not None:
        g = apply_patch(g, patch)
    if view == "undirected":
        g, p = g.with_labels([undirected(x) for x in g.labels]), p.with_labels([undirected(x) for x in p.labels])
    positional = by_position if by_position is not None else (g.ids is None and p.ids is None)
    neg, notes = resolve_negative(negative, g)
    if neg is not None and neg not in set(g.labels):
        notes.append(f"negative label '{neg}' does not occur in gold")
    alignment = align(g, p, on_missing=on_missing, negative=neg, by_position=positional)
    return score_alignment(
        alignment,
        gold_file=g,
        negative=neg,
        weightings=weightings,
        beta=beta,
        zero_division=zero_division,
        entropy_n=entropy_n,
        strict_labels=strict_labels,
        system=system or _system_name(p),
        notes=notes,
        task="rc",
        view=view,
    )


def score_alignment(
    alignment: Alignment,
    *,
    gold_file: LabelFile,
    negative: str | None,
    weightings: Sequence[str | Weighting] = DEFAULT_WEIGHTINGS,
    beta: float = 1.0,
    zero_division: float = 0.0,
    entropy_n: str = "all",
    strict_labels: bool = False,
    system: str = "system",
    notes: Sequence[str] = (),
    task: str = "rc",
    view: str | None = None,
) -> ScoreResult:
    """Score already aligned labels (used by `score` and by callers that build their own alignment)."""
    schemes = get_weightings(weightings)
    check_settings(beta=beta, zero_division=zero_division, entropy_n=entropy_n)
    enc = encode(alignment.gold, alignment.pred, missing=alignment.missing_label)
    unseen = [lbl for lbl in enc.labels[enc.n_gold_labels :] if lbl != alignment.missing_label]
    warnings: list[str] = []
    if unseen:
        if strict_labels:
            raise InputError(
                f"{len(unseen)} predicted label(s) never occur in gold: {', '.join(unseen)} (--strict-labels)"
            )
        warnings.append(f"predicted label(s) never seen in gold, counted as false positives: {', '.join(unseen)}")
    if alignment.policy == "negative" and alignment.n_missing:
        share = alignment.missing_negative_share or 0.0
        warnings.append(
            f"{alignment.n_missing} missing prediction(s) filled with '{negative}'; {100 * share:.1f} % of them "
            "are gold-negative — if that is near 100 %, the protocol leaks gold labels (see `releval audit`)"
        )
    scores = score_encoded(
        enc, negative=negative, weightings=schemes, beta=beta, zero_division=zero_division, entropy_n=entropy_n
    )
    signature = Signature.build(
        task=task,
        view=view,
        negative=negative if negative is not None else "none",
        average=["micro", *(w.name for w in schemes)],
        weighted_classes="pos+support",
        entropy_n=entropy_n,
        beta=float(beta),
        zero_division=float(zero_division),
        missing=alignment.policy,
        labels=short_hash(sorted(set(alignment.gold))),
        gold=short_hash(alignment.gold),  # gold labels in gold order: the same for any file format
        n=scores.n,
    )
    extra = {}
    if alignment.n_missing:
        extra["missing"] = {
            "policy": alignment.policy,
            "count": alignment.n_missing,
            "gold_negative": alignment.missing_gold_negative,
        }
    return ScoreResult.from_scores(system, scores, signature, [*notes, *alignment.notes], warnings, extra)


def _system_name(pred: LabelFile) -> str:
    if pred.path.startswith("<"):
        return "system"
    name = Path(pred.path).name
    for suffix in (".gz", ".jsonl", ".json", ".txt", ".tsv", ".csv"):
        name = name.removesuffix(suffix)
    return name
