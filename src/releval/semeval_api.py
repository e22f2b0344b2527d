"""`score_semeval_official(gold, pred)`: the SemEval-2010 Task 8 perl scorer v1.2, with releval's input checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from releval.api import LabelsInput, _system_name, as_label_file
from releval.core.signature import Signature, short_hash
from releval.data.alignment import align
from releval.data.labels import LabelFile
from releval.data.semeval_labels import DIRECTED_SET
from releval.errors import InputError
from releval.metrics.semeval import SemevalScores, semeval_scores

TASK = "semeval-official"


@dataclass(frozen=True)
class SemevalOfficialResult:
    """The scorer's three views for one system, with the settings' signature and any warnings."""

    system: str
    scores: SemevalScores
    signature: Signature
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def official_score(self) -> float:
        """Macro-F1 (percent) of the 10-way evaluation taking direction into account."""
        return self.scores.official_score

    def to_dict(self) -> dict[str, Any]:
        from releval.report.semeval_report import semeval_to_dict

        return semeval_to_dict(self)


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


def score_semeval_official(
    gold: LabelsInput,
    pred: LabelsInput,
    allow_skipped: bool = False,
    *,
    system: str | None = None,
) -> SemevalOfficialResult:
    """Score `pred` against the answer key `gold` as `semeval2010_task8_scorer-v1.2.pl PRED GOLD` does.

    Items are matched by id; an id not in the key is an error; a key id without prediction is an error unless
    `allow_skipped`, in which case it is skipped as by the scorer (lowers recall and coverage only).
    """
    g = as_label_file(gold, "gold")
    p = as_label_file(pred, "pred")
    _check_directed(g)
    _check_directed(p)
    by_position = g.ids is None and p.ids is None
    alignment = align(g, p, on_missing="wrong" if allow_skipped else "error", by_position=by_position)
    scores = semeval_scores(alignment.gold, alignment.pred)
    warnings = [
        f"the proposed file contains {n} label(s) of type '{label}', which is NOT present in the key file"
        for label, n in scores.absent_from_key.items()
    ]
    notes = []
    if scores.n_skipped:
        notes.append(f"{scores.n_skipped} of {len(alignment.gold)} key item(s) skipped (no prediction)")
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
