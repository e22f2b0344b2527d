"""The SemEval-2010 Task 8 official scorer (perl v1.2) as a task, with releval's input checks.

Its Config has one setting — whether key items without a prediction are an error or skipped as the perl
scorer skips them — and its signature is made here, in one place.

>>> SemevalOfficialConfig(on_missing="wrong").allow_skipped
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from releval.core.notices import Notice
from releval.core.options import MISSING_POLICIES
from releval.core.signature import Signature, short_hash
from releval.data.alignment import align
from releval.data.labels import LabelFile
from releval.data.semeval_labels import DIRECTED_SET
from releval.errors import InputError
from releval.metrics.semeval import SemevalScores, semeval_scores
from releval.result import SCHEMA_VERSION
from releval.tasks.classification import LabelsInput, as_label_file
from releval.tasks.classification import system_name as _system_name
from releval.validation import check_choice

TASK = "semeval-official"


@dataclass(frozen=True)
class SemevalOfficialConfig:
    """`on_missing`: error (default), or wrong: key items without a prediction are skipped, as by the scorer."""

    task: ClassVar[str] = TASK
    on_missing: str = "error"

    def __post_init__(self) -> None:
        check_choice(self.on_missing, MISSING_POLICIES, "--on-missing")

    @property
    def allow_skipped(self) -> bool:
        return self.on_missing != "error"


@dataclass(frozen=True)
class SemevalOfficialResult:
    """The scorer's three views for one system, with the settings' signature and any warnings."""

    system: str
    scores: SemevalScores
    signature: Signature
    warnings: list[Notice] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def official_score(self) -> float:
        """Macro-F1 (percent) of the 10-way evaluation taking direction into account."""
        return self.scores.official_score

    @property
    def task(self) -> str:
        return TASK

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready numbers of all three views with the signature (percentages in [0, 100])."""
        from releval.report.semeval_report import semeval_to_dict

        return {"schema_version": SCHEMA_VERSION, **semeval_to_dict(self)}


def _check_directed(labels: LabelFile) -> None:
    """The scorer accepts only the 19 directed labels; an undirected key (TEST_FILE_KEY.TXT) is refused."""
    bad = [i for i, label in enumerate(labels.labels) if label not in DIRECTED_SET]
    if not bad:
        return
    i = bad[0]
    more = f" ({len(bad)} such labels in the file)" if len(bad) > 1 else ""
    raise InputError(
        f"'{labels.labels[i]}' is not one of the 19 directed SemEval-2010 Task 8 labels{more}; the official score "
        "needs directed labels such as Cause-Effect(e1,e2) or Other",
        file=labels.path,
        line=labels.lines[i] if i < len(labels.lines) else None,
        field="label",
    )


def score(
    gold: LabelsInput,
    pred: LabelsInput,
    config: SemevalOfficialConfig | None = None,
    system: str | None = None,
) -> SemevalOfficialResult:
    """Score `pred` against the answer key `gold` as `semeval2010_task8_scorer-v1.2.pl PRED GOLD` does.

    Items are matched by id; an id not in the key is an error; a key id without prediction is an error unless
    the Config allows skipping, in which case it is skipped as by the scorer (lowers recall and coverage only).
    """
    allow_skipped = (config or SemevalOfficialConfig()).allow_skipped
    g = as_label_file(gold, "gold")
    p = as_label_file(pred, "pred")
    _check_directed(g)
    _check_directed(p)
    by_position = g.ids is None and p.ids is None
    alignment = align(g, p, on_missing="wrong" if allow_skipped else "error", by_position=by_position)
    scores = semeval_scores(alignment.gold, alignment.pred)
    warnings = [
        Notice(
            f"the proposed file contains {n} label(s) of type '{label}', which is NOT present in the key file",
            "label-absent-from-key",
        )
        for label, n in scores.absent_from_key.items()
    ]
    notes: list[str] = []
    if scores.n_skipped:
        warnings.append(
            Notice(
                f"{scores.n_skipped} of {len(alignment.gold)} key item(s) skipped (no prediction)", "missing-skipped"
            )
        )
    signature = Signature.build(
        task=TASK,
        view="official",
        negative="Other",
        average="macro",
        missing="skip" if allow_skipped else "error",
        labels=short_hash(sorted(set(alignment.gold))),
        gold=short_hash(alignment.gold),  # gold labels in gold order: the same for any file format
        n=len(alignment.gold),
    )
    return SemevalOfficialResult(system or _system_name(p), scores, signature, warnings, notes)
