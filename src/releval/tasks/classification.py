"""Relation classification: one label per item, scored under micro and every class weighting.

The Config holds every setting that can change a number (the negative class, the weightings, β, zero_division,
entropy's N, the missing-prediction policy, the label view, the alignment, a gold patch), and `signature()` is
the only place a classification signature is made — `score`, `compare`, `replicability from-predictions` and
the Python API all sign through it, so equal signatures mean equal settings (Harbecke et al. 2022 for the
weightings; Olek for the missing-prediction policies).

>>> config = ClassificationConfig(negative="Other", weightings=("macro",))
>>> result = score(["A", "B", "Other"], ["A", "Other", "Other"], config)
>>> round(result["micro"].f, 4), round(result["macro"].f, 4)
(0.6667, 0.5)
>>> result.signature["task"], result.signature["negative"], result.signature["alignment"]
('rc', 'Other', 'position')
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from releval.core.errors import InputError
from releval.core.notices import Notice
from releval.core.options import ENTROPY_N, MISSING_POLICIES, VIEWS
from releval.core.signature import Signature, sequence_digest, short_hash
from releval.core.validation import check_choice, check_nonempty
from releval.data.alignment import Alignment, align
from releval.data.columns import distinct
from releval.data.label_inputs import LabelsInput, as_label_file, system_name
from releval.data.labels import FORMATS, LabelFile, apply_patch
from releval.data.semeval_labels import undirected
from releval.metrics.averages import AveragingSpec
from releval.metrics.cells import PairedCells, cells_from_labels, encode_triplet
from releval.metrics.classification import (
    NEGATIVE_CANDIDATES,
    ClassificationScores,
    Encoded,
    detect_negative,
    encode,
    score_encoded,
)
from releval.metrics.counts import ClassCounts
from releval.metrics.missing_bounds import FillBounds, fill_bounds
from releval.result import Average, ScoreResult
from releval.tasks.base import ScoringConfig, Task, build_signature, rows_per_class
from releval.tasks.label_mistakes import (
    check_label_junk,
    check_label_spelling,
    check_negative_exists,
    check_semeval_direction,
    identical_to_gold,
    position_id_warnings,
    swapped_files,
)
from releval.tasks.vocabulary import Vocabulary, check_vocabulary

AUTO = "auto"


@dataclass(frozen=True)
class ClassificationConfig(ScoringConfig):
    """Every setting of relation-classification scoring, checked when the Config is made (OptionError).

    `negative`: the negative label, "auto" (no_relation / Other / NA when present in gold) or None (no negative
    class). `on_missing`: error, negative (fill with the negative class: leaks gold labels) or wrong (Olek's
    correction). `by_position`: align by position (None: by id, or by position when neither side has ids).
    `patch`: a TACRev-style relabelling of gold. The formats and field names say how files are read:
    `pred_format` applies to gold too unless `gold_format` is given ("auto": detect gold's format whatever
    `pred_format` says); `gold_id_field`, `gold_label_field`, `pred_id_field`, `pred_label_field` override
    `id_field` and `label_field` for one side.
    `allow_absent_negative`: an explicit `negative` that gold does not contain is an error (a misspelt negative
    turns the real one into a positive class) unless this says it is intended (a slice without negatives).
    `rc_chosen`: plain relation classification was chosen by name (the command line's `--task rc`): a gold file in
    a preset's own layout (BLUE's ChemProt TSV) is then scored as rc with a warning instead of refused
    (`check_preset_layout`). It changes no number, so it is not in the signature.
    """

    task: ClassVar[str] = "rc"

    negative: str | None = AUTO
    entropy_n: str = "all"
    on_missing: str = "error"
    strict_labels: bool = False
    by_position: bool | None = None
    view: str = "directed"
    patch: str | None = None
    gold_format: str | None = None
    pred_format: str | None = None
    id_field: str = "id"
    label_field: str | None = None
    allow_absent_negative: bool = False
    gold_id_field: str | None = None
    gold_label_field: str | None = None
    pred_id_field: str | None = None
    pred_label_field: str | None = None
    rc_chosen: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.negative is not None:
            check_nonempty(self.negative, "negative")
        check_choice(self.entropy_n, ENTROPY_N, "entropy_n")
        check_choice(self.on_missing, MISSING_POLICIES, "on_missing")
        check_choice(self.view, VIEWS, "view")
        for option, name in (("gold_format", self.gold_format), ("pred_format", self.pred_format)):
            if name is not None and not (option == "gold_format" and name == AUTO):
                check_choice(name, FORMATS, option)
        check_nonempty(self.id_field, "id_field")
        for option in ("label_field", "gold_id_field", "gold_label_field", "pred_id_field", "pred_label_field"):
            if getattr(self, option) is not None:
                check_nonempty(getattr(self, option), option)
        if self.patch is not None:
            object.__setattr__(self, "patch", os.fspath(self.patch))

    @property
    def fields(self) -> dict[str, str]:
        """The id/label field names for JSONL/CSV/TSV loaders (both sides; `side_fields` gives one side's)."""
        return {"id_field": self.id_field, **({"label_field": self.label_field} if self.label_field else {})}

    def side_fields(self, role: str) -> dict[str, str]:
        """The id/label field names of the gold ('gold') or prediction ('pred') file: the side's own, else the
        shared ones.

        >>> ClassificationConfig(label_field="relation", pred_label_field="pred_label").side_fields("pred")
        {'id_field': 'id', 'label_field': 'pred_label'}
        """
        id_field = getattr(self, f"{role}_id_field") or self.id_field
        label_field = getattr(self, f"{role}_label_field") or self.label_field
        return {"id_field": id_field, **({"label_field": label_field} if label_field else {})}

    @property
    def gold_read_format(self) -> str | None:
        """The format gold is read as: `gold_format`, else `pred_format`; None (or "auto"): detected."""
        fmt = self.gold_format or self.pred_format
        return None if fmt == AUTO else fmt


@dataclass(frozen=True)
class DataFacts:
    """How the systems of a comparison were aligned with gold: what the signature and the warnings must say.

    `missing`: the missing-prediction policy that was applied ("error" when nothing was filled);
    `warnings`: the fills, per system, as notices.
    """

    missing: str = "error"
    by_position: bool = True
    patch_digest: str | None = None
    warnings: tuple[Notice, ...] = ()

    @classmethod
    def of(cls, prepared: Sequence[tuple[str, Prepared]]) -> DataFacts:
        """The facts of several systems' alignments ([(system, Prepared)]): any fill shows in the signature."""
        policies = {p.alignment.policy for _, p in prepared}
        missing = next((x for x in ("negative", "wrong") if x in policies), "error")
        warnings = tuple(
            Notice(f"{name}: {w}", w.code)
            for name, p in prepared
            for w in (*p.warnings, *missing_notices(p.alignment, p.negative))
        )
        first = prepared[0][1] if prepared else None
        return cls(
            missing,
            first.by_position if first else True,
            first.patch_digest if first else None,
            warnings,
        )


@dataclass(frozen=True)
class Prepared:
    """Gold and one system aligned under a Config, with what the signature needs to know about the data."""

    alignment: Alignment
    negative: str | None
    by_position: bool
    patch_digest: str | None
    notes: list[str]
    #: The prediction file (named by the label checks' errors) and what `prepare` noticed about the pair.
    pred_path: str = "<pred>"
    warnings: tuple[Notice, ...] = ()


def load_gold(gold: LabelsInput, config: ClassificationConfig) -> tuple[LabelFile, str | None]:
    """The gold file as the Config reads it (format, fields, patch, view) and the digest of the patch applied."""
    g = as_label_file(gold, "gold", config.gold_read_format, config.side_fields("gold"))
    check_preset_layout(g, config)  # refused once here, before any system; the warning goes with each (`prepare`)
    digest = None
    if config.patch is not None:
        g = apply_patch(g, config.patch)  # a missing or malformed patch is an InputError here, before hashing it
        digest = hashlib.sha256(Path(config.patch).read_bytes()).hexdigest()[:8]
    if config.view == "undirected":
        g = g.with_labels([undirected(x) for x in g.labels])
    return g, digest


def load_pred(pred: LabelsInput, config: ClassificationConfig) -> LabelFile:
    """One prediction file as the Config reads it (format, fields, view)."""
    p = as_label_file(pred, "pred", config.pred_format, config.side_fields("pred"))
    if config.view == "undirected":
        p = p.with_labels([undirected(x) for x in p.labels])
    return p


def resolve_negative(negative: str | None, gold: Sequence[str]) -> tuple[str | None, list[str]]:
    """`auto` → no_relation/Other/NA if present (with a visible note); None → no negative class."""
    if negative != AUTO:
        notes = (
            [] if negative is None or negative in set(gold) else [f"negative label '{negative}' does not occur in gold"]
        )
        return negative, notes
    found = detect_negative(gold)
    if found is None:
        return None, ["no negative class found among the gold labels (looked for no_relation, Other, NA)"]
    return found, [f"negative class '{found}' detected automatically (set it with --negative or --no-negative)"]


def check_preset_layout(gold: LabelFile, config: ClassificationConfig) -> list[Notice]:
    """Refuse to score as plain rc, with the negative class left to detection, BLUE's ChemProt gold (its TSV, or
    any file whose labels are BLUE's CPR:3/4/5/6/9 and `false`, e.g. its `id docid arg1 arg2 label` evaluation
    files read as TSV): no negative class is detected ('false' is none of no_relation/Other/NA), so `false` would
    count as a class and micro-F1 would be accuracy (76.33 on examples/chemprot where BLUE's number is 46.45). The
    fix is the preset's task (`--task chemprot-blue`). When rc was chosen by name (`rc_chosen`), the result is kept
    with this as a warning; an explicit --negative or --no-negative is the user's choice.

    >>> from releval.data.labels import LabelFile
    >>> gold = LabelFile("blue.tsv", "chemprot-blue", None, ["CPR:4", "false"], [2, 3])
    >>> try:
    ...     check_preset_layout(gold, ClassificationConfig())
    ... except InputError as error:
    ...     print(error.message.split(":")[0])
    BLUE's ChemProt TSV scored as plain relation classification
    >>> [w.code for w in check_preset_layout(gold, ClassificationConfig(rc_chosen=True))]
    ['warning']
    """
    if config.task != "rc" or config.negative != AUTO:
        return []
    from releval.data.formats.chemprot import BLUE_GROUPS, BLUE_LABELS, BLUE_NEGATIVE

    if gold.format == "chemprot-blue":
        layout = "BLUE's ChemProt TSV"
    else:
        labels = distinct(gold.labels)
        if not (BLUE_NEGATIVE in labels and labels & set(BLUE_GROUPS) and labels <= BLUE_LABELS):
            return []
        layout = f"BLUE's ChemProt labels ({', '.join(sorted(labels))})"
    task, negative = "chemprot-blue", BLUE_NEGATIVE
    message = (
        f"{layout} scored as plain relation classification: '{negative}' is not a negative class rc detects, so it "
        f"counts as a class and micro-F1 is accuracy, not the benchmark's number (micro with '{negative}' left out)"
    )
    if config.rc_chosen:
        return [Notice(f"{gold.path}: {message}; for that number give --task {task}", "warning")]
    raise InputError(
        f"{message} — give --task {task} (a command without --task: --negative {negative}); to count "
        f"'{negative}' as a class on purpose, give --task rc or --no-negative",
        file=gold.path,
    )


def check_negative_label(config: ClassificationConfig, gold: Sequence[str], preds: Iterable[Sequence[str]]) -> None:
    """`score`'s refusal of an explicit negative label gold does not contain (a typo), for the commands that
    align labels themselves (compare): the same rule and message (releval.tasks.label_mistakes)."""
    if config.negative in (AUTO, None) or config.allow_absent_negative:
        return
    gold_labels = set(gold)
    if config.negative in gold_labels:
        return
    pred_only = sorted(set().union(*map(set, preds)) - gold_labels)
    check_negative_exists(config.negative, sorted(gold_labels), pred_only)


def prepare(
    gold: LabelFile, pred: LabelFile, config: ClassificationConfig, patch_digest: str | None = None
) -> Prepared:
    """Align one system with gold under the Config (missing predictions per `on_missing`)."""
    positional = config.by_position if config.by_position is not None else (gold.ids is None or pred.ids is None)
    preset = check_preset_layout(gold, config)
    negative, notes = resolve_negative(config.negative, gold.labels)
    alignment = align(gold, pred, on_missing=config.on_missing, negative=negative, by_position=positional)
    warnings = [
        *preset,
        *(position_id_warnings(gold, pred) if positional else []),
        *swapped_files(gold, pred),
        *([] if alignment.n_missing else identical_to_gold(alignment.gold, alignment.pred, pred.path)),
    ]
    return Prepared(alignment, negative, positional, patch_digest, notes, pred.path, tuple(warnings))


def signature(
    config: ClassificationConfig,
    gold: Sequence[str],
    *,
    negative: str | None,
    missing: str,
    by_position: bool,
    patch_digest: str | None,
    extra: Mapping[str, object] | None = None,
    coded: tuple[list[str], Any] | None = None,
) -> Signature:
    """THE classification signature: the Config's settings plus the data's facts (and a test's, in `extra`).
    `coded` is gold as (sorted distinct labels, codes) when the caller has encoded it: the digests then cost no
    pass over the labels."""
    vocabulary = coded[0] if coded is not None else sorted(set(gold))
    return build_signature(
        {
            **config.signature_fields(),
            "view": config.view,
            "negative": negative if negative is not None else "none",
            "weighted_classes": "pos+support",
            "entropy_n": config.entropy_n,
            "missing": missing,
            "alignment": "position" if by_position else "id",
            "patch": patch_digest,
            "labels": short_hash(vocabulary),
            "gold": sequence_digest(gold, coded),  # gold labels in gold order: the same for any file format
            "n": len(gold),
            **dict(extra or {}),
        }
    )


def missing_notices(alignment: Alignment, negative: str | None) -> list[Notice]:
    """The structured warning for every fill of a missing prediction (never silent)."""
    if not alignment.n_missing:
        return []
    if alignment.policy == "negative":
        share = alignment.missing_negative_share or 0.0
        return [
            Notice(
                f"{alignment.n_missing} missing prediction(s) filled with '{negative}'; {100 * share:.1f} % of them "
                "are gold-negative — if that is near 100 %, the protocol leaks gold labels (see `releval audit`)",
                "missing-filled-negative",
            )
        ]
    return [
        Notice(
            f"{alignment.n_missing} missing prediction(s) counted as wrong (Olek's correction): micro is exact; "
            "a class-weighted average cannot know which class each false positive belongs to, so it is shown as "
            "an interval over every attribution (docs/audit.md)",
            "missing-filled-wrong",
        )
    ]


def check_prepared(prepared: Prepared, config: ClassificationConfig, gold_set: set[str]) -> Prepared:
    """`prepared` with the label checks of `check_pair_labels` made (refused, or its warning added): for the
    commands that align systems without scoring them at once (compare, plot, replicability, the board).
    `gold_set` is gold's distinct labels (releval.data.columns.distinct), computed once for every system."""
    a = prepared.alignment
    predicted = distinct(a.pred) - {a.missing_label}
    unseen = sorted(predicted - gold_set)
    checked = check_pair_labels(sorted(gold_set), unseen, config, prepared.pred_path, pred_labels=predicted)
    return replace(prepared, warnings=(*prepared.warnings, *checked))


#: How many labels a warning lists before it says how many more there are (a line stays readable).
SHOWN_LABELS = 10


def shown_labels(labels: Sequence[str], limit: int = SHOWN_LABELS) -> str:
    """The first `limit` labels, comma-separated, and how many more there are: a warning's list stays one short
    line whatever the file holds.

    >>> shown_labels(["a", "b", "c"], 2)
    'a, b, … (1 more)'
    """
    more = f", … ({len(labels) - limit} more)" if len(labels) > limit else ""
    return ", ".join(labels[:limit]) + more


def check_pair_labels(
    gold_labels: Sequence[str],
    unseen: Sequence[str],
    config: ClassificationConfig,
    pred_path: str,
    *,
    pred_labels: Collection[str] | None = None,
) -> list[Notice]:
    """The label checks every command makes before it shows a number for one prediction file, in one place
    (releval.tasks.label_mistakes, releval.tasks.vocabulary): `gold_labels` are gold's distinct labels, `unseen`
    the predicted labels gold never uses, `pred_labels` every distinct predicted label (None: unknown, taken to
    share a label with gold). Refused (InputError/OptionError): an explicit negative label gold lacks (a typo),
    directed SemEval labels against the undirected key (or the reverse), labels that differ from gold's only in
    letter case, labels with trailing junk (`Other 0`: a score column glued on) or surrounding white space,
    integer class indices where gold has names, no predicted label in common with gold (another dataset's
    labels), and with `strict_labels` any unseen label. Returned: the warning that unseen labels count as false
    positives (listing at most ten), which says that gold and predictions may be swapped when many are new.

    >>> config = ClassificationConfig(negative="Other")
    >>> [w.code for w in check_pair_labels(["A", "Other"], ["B"], config, "p.txt")]
    ['pred-only-labels']
    >>> try:
    ...     check_pair_labels(["A", "Other"], ["0", "1"], config, "p.txt", pred_labels=["0", "1"])
    ... except InputError as error:
    ...     print(error.message.split(" (")[0])
    the predicted labels are integers
    """
    if config.negative not in (AUTO, None) and not config.allow_absent_negative:
        check_negative_exists(config.negative, gold_labels, unseen)
    check_label_junk(gold_labels, unseen, pred_path)
    check_semeval_direction(gold_labels, unseen, pred_path)
    check_label_spelling(gold_labels, unseen, pred_path)
    if not unseen:
        return []
    gold_set = frozenset(gold_labels)
    # a negative label is a legitimate prediction even where gold has none (a slice of positives only)
    negative = config.negative
    negatives: frozenset[str] = frozenset(NEGATIVE_CANDIDATES if negative is None or negative == AUTO else (negative,))
    predicted = set(unseen if pred_labels is None else pred_labels) - negatives
    if pred_labels is None or len(predicted) < 3 or not gold_set - negatives:
        # unknown, or too few labels to call them another dataset's: taken to share a label with gold, so that
        # only the other checks decide
        predicted |= set(sorted(gold_set)[:1])
    integers = {p for p in unseen if p.lstrip("+-").isdigit()}
    if integers and len(integers) * 2 < len(predicted):  # a few stray integers among names: warned, not refused
        predicted -= integers
    # integers where gold has names, another dataset's labels, white space: before any talk of a swap
    check_vocabulary(Vocabulary("label", gold_set, predicted, pred_path, allowed=negatives - gold_set))
    if config.strict_labels:
        raise InputError(
            f"{len(unseen)} predicted label(s) never occur in gold: {shown_labels(unseen)} (--strict-labels)",
            file=pred_path,
        )
    swap = ""
    if len(unseen) >= 3 and len(unseen) * 4 >= len(gold_labels):  # a quarter of gold's classes new: swapped?
        swap = "; so many new labels suggest gold and predictions were given the other way round (gold first)"
    return [
        Notice(
            f"predicted label(s) never seen in gold, counted as false positives: {shown_labels(unseen)}{swap}",
            "pred-only-labels",
        )
    ]


def score_prepared(
    prepared: Prepared,
    config: ClassificationConfig,
    system: str = "system",
    enc: Encoded | None = None,
    *,
    check_labels: bool = True,
) -> ScoreResult:
    """Score one aligned system under the Config; notes, warnings and the signature go into the result.
    `enc` is the alignment already encoded, when the caller has it. `check_labels` refuses the label mistakes of
    `releval.tasks.label_mistakes` (a misspelt negative, SemEval direction, letter case); the audit, which scores
    variants of a protocol to report on them, turns it off."""
    alignment, negative = prepared.alignment, prepared.negative
    schemes = config.weightings
    if enc is None:
        enc = encode(alignment.gold, alignment.pred, missing=alignment.missing_label)
    unseen = [lbl for lbl in enc.labels[enc.n_gold_labels :] if lbl != alignment.missing_label]
    warnings: list[Notice] = list(prepared.warnings)
    if check_labels:
        predicted = None
        if unseen:  # the predicted vocabulary, for the label checks (read from the codes only when needed)
            used = np.flatnonzero(np.bincount(enc.pred, minlength=len(enc.labels))).tolist()
            predicted = [enc.labels[k] for k in used if enc.labels[k] != alignment.missing_label]
        checked = check_pair_labels(
            enc.labels[: enc.n_gold_labels], unseen, config, prepared.pred_path, pred_labels=predicted
        )
        warnings += [w for w in checked if w not in warnings]  # check_prepared may have added them already
    warnings += missing_notices(alignment, negative)
    scores = score_encoded(
        enc,
        negative=negative,
        weightings=schemes,
        beta=config.beta,
        zero_division=config.zero_division,
        entropy_n=config.entropy_n,
    )
    sig = signature(
        config,
        alignment.gold,
        negative=negative,
        missing=alignment.policy,
        by_position=prepared.by_position,
        patch_digest=prepared.patch_digest,
        coded=(enc.labels[: enc.n_gold_labels], enc.gold),
    )
    extra: dict[str, Any] = {}
    if alignment.n_missing:
        extra["missing"] = {
            "policy": alignment.policy,
            "count": alignment.n_missing,
            "gold_negative": alignment.missing_gold_negative,
        }
    notes = [*prepared.notes, *alignment.notes]
    result = ScoreResult.from_scores(system, scores, sig, notes, warnings, extra)
    if alignment.policy == "wrong" and alignment.n_missing:
        result = with_fill_bounds(result, scores, enc, alignment.missing_label, config)
    return result


def fill_bounds_of(
    scores: ClassificationScores, enc: Encoded, missing_label: str, config: ClassificationConfig
) -> FillBounds:
    """Olek's correction for every weighting (releval.metrics.missing_bounds): the counts without the placeholder
    column, and how many filled items each gold class has."""
    keep = np.array([label != missing_label for label in scores.labels], dtype=bool)
    c = scores.counts
    counts = ClassCounts(tp=np.asarray(c.tp)[keep], fp=np.asarray(c.fp)[keep], fn=np.asarray(c.fn)[keep])
    placeholder = scores.labels.index(missing_label)
    filled = np.bincount(enc.gold[enc.pred == placeholder], minlength=len(scores.labels))[keep].astype(np.int64)
    spec = AveragingSpec(
        scores.positive[keep],
        config.weightings,
        config.beta,
        config.zero_division,
        config.entropy_n,
    )
    return fill_bounds(counts, filled, spec)


def with_fill_bounds(
    result: ScoreResult, scores: ClassificationScores, enc: Encoded, missing_label: str, config: ClassificationConfig
) -> ScoreResult:
    """The result under `on_missing="wrong"` with every class-weighted average replaced by its worst case over
    the attributions of the filled items' false positives, and the interval (worst, best) in `bounds`.

    The `<missing>` placeholder has no gold support, so the weighted averages `score_encoded` gives count none of
    its false positives: they keep the leaky value. The worst case is the conservative point (no attribution
    scores lower); micro, which counts every FP whatever its class, is exact and unchanged.
    """
    bounds = fill_bounds_of(scores, enc, missing_label, config)
    averages = dict(result.averages)
    intervals: dict[str, tuple[Average, Average]] = {}
    for name, bound in bounds.averages.items():
        low = Average(name, float(bound.low.precision), float(bound.low.recall), float(bound.low.f))
        high = Average(name, float(bound.high.precision), float(bound.high.recall), float(bound.high.f))
        averages[name], intervals[name] = low, (low, high)
    notes = list(result.notes)
    if bounds.n_unattributable:
        notes.append(
            f"{bounds.n_unattributable} filled item(s) have as gold class the only weighted class, so no class "
            "could receive their false positive; the class-weighted intervals leave them out (micro counts them)"
        )
    return replace(result, averages=averages, bounds=intervals, notes=notes)


def score(gold: LabelsInput, pred: LabelsInput, config: ClassificationConfig, system: str | None = None) -> ScoreResult:
    """Load (if needed), align and score one system against gold under `config`."""
    if _plain_lists(gold, pred, config):
        return _score_lists(gold, pred, config, system)  # type: ignore[arg-type]
    g, digest = load_gold(gold, config)
    p = load_pred(pred, config)
    return score_prepared(prepare(g, p, config, digest), config, system or system_name(p))


def _plain_lists(gold: LabelsInput, pred: LabelsInput, config: ClassificationConfig) -> bool:
    """Two label lists of one length, aligned by position, read as they are (no patch, no view)."""
    return (
        isinstance(gold, (list, tuple))
        and isinstance(pred, (list, tuple))
        and len(gold) == len(pred)
        and config.patch is None
        and config.view == "directed"
        and config.by_position is not False
    )


def _score_lists(
    gold: Sequence[object], pred: Sequence[object], config: ClassificationConfig, system: str | None
) -> ScoreResult:
    """`score` on two label lists, the Python API's usual call, without copying them into LabelFiles: the lists
    are encoded once, and every fact the result needs — the gold label set, the negative class, the gold digest —
    is read from the codes, not from another pass over the items. The same result as the general path (tests:
    test_score_lists_path.py)."""
    enc = encode(gold, pred)
    negative, notes = resolve_negative(config.negative, enc.labels[: enc.n_gold_labels])
    alignment = Alignment(gold, pred, notes=["aligned by position"])  # type: ignore[arg-type]
    # the content checks of `prepare` on the lists' vocabularies, read from the codes (no pass over the items)
    gold_vocabulary = enc.labels[: enc.n_gold_labels]
    pred_vocabulary = [enc.labels[k] for k in np.flatnonzero(np.bincount(enc.pred, minlength=len(enc.labels))).tolist()]
    swapped = swapped_files(
        LabelFile("<gold list>", "list", None, gold_vocabulary, range(1, len(gold_vocabulary) + 1)),
        LabelFile("<pred list>", "list", None, pred_vocabulary, range(1, len(pred_vocabulary) + 1)),
    )
    same = identical_to_gold(alignment.gold, alignment.pred, "<pred list>")
    prepared = Prepared(alignment, negative, True, None, notes, "<pred list>", (*swapped, *same))
    return score_prepared(prepared, config, system or "system", enc)


def paired_cells(
    gold: Sequence[str], pred_a: Sequence[str], pred_b: Sequence[str], config: ClassificationConfig
) -> tuple[PairedCells, AveragingSpec, str | None]:
    """The per-item statistics of two systems on the same aligned items, as distinct cells, and the averaging
    spec (positive classes, weightings, β, zero_division, entropy's N) — what every paired resampling test needs.
    Returns the resolved negative class too."""
    gold, pred_a, pred_b = ([x if type(x) is str else str(x) for x in s] for s in (gold, pred_a, pred_b))
    labels, g, a, b = encode_triplet(gold, pred_a, pred_b)
    negative, _ = resolve_negative(config.negative, gold)
    spec = AveragingSpec(
        np.array([lbl != negative for lbl in labels], dtype=bool),
        config.weightings,
        config.beta,
        config.zero_division,
        config.entropy_n,
    )
    return cells_from_labels(g, a, b, len(labels)), spec, negative


def score_files(
    gold: LabelsInput, systems: Sequence[tuple[str | None, LabelsInput]], config: ClassificationConfig
) -> list[ScoreResult]:
    """Score several systems against one gold (read once) under `config`: one ScoreResult per system, named by
    its given name or its file. Every check `score` makes is made for each (check_pair_labels)."""
    gold_file, digest = load_gold(gold, config)
    results = []
    for name, pred in systems:
        pred_file = load_pred(pred, config)
        prepared = prepare(gold_file, pred_file, config, digest)
        results.append(score_prepared(prepared, config, name or system_name(pred_file)))
    return results


TASK: Task[ClassificationConfig, ScoreResult] = Task(
    name="rc",
    help="relation classification: one label per item, every class weighting",
    config=ClassificationConfig,
    unit="item",
    score_files=score_files,
    per_class=rows_per_class,
    wide_tsv=True,
)
