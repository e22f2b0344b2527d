"""The public scoring API: thin functions over the tasks (releval.tasks), each building its task's Config.

`score(gold, pred, **settings)` is relation classification; the settings are the fields of
`releval.tasks.classification.ClassificationConfig` (or pass a Config). Warnings the result carries (a fill
of missing predictions, labels never seen in gold) are repeated through `warnings.warn` as `RelevalWarning`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from releval.core.notices import warn_all
from releval.result import ScoreResult
from releval.tasks.classification import AUTO, ClassificationConfig, LabelsInput, as_label_file, resolve_negative
from releval.tasks.classification import score as _score

if TYPE_CHECKING:
    from releval.tasks.e2e import E2EConfig, E2EInput, E2EResult
    from releval.tasks.semeval_official import SemevalOfficialResult

__all__ = [
    "AUTO",
    "ClassificationConfig",
    "LabelsInput",
    "as_label_file",
    "resolve_negative",
    "score",
    "score_e2e",
    "score_semeval_official",
]


def score(
    gold: LabelsInput,
    pred: LabelsInput,
    config: ClassificationConfig | None = None,
    *,
    system: str | None = None,
    **settings: Any,
) -> ScoreResult:
    """Score one system against gold under micro and every weighting; every setting goes into the signature.

    Parameters
    ----------
    gold, pred
        Paths (any supported format), LabelFiles, id → label mappings, or label lists (aligned by position).
    config
        A `ClassificationConfig`; or give its fields as keywords (`negative`, `weightings`, `beta`,
        `zero_division`, `entropy_n`, `on_missing`, `strict_labels`, `by_position`, `view`, `patch`,
        `gold_format`, `pred_format`, `id_field`, `label_field`). Keywords given with a Config override it.
    system
        The name shown in tables (default: the prediction file's name).

    Returns
    -------
    ScoreResult
        Per-class rows, every average, accuracy, notes, warnings and the signature of the settings.

    Every setting is checked before a file is read: a bad one is an OptionError (a ValueError) naming it.

    References
    ----------
    Harbecke et al. (2022) for the weightings; Olek for the missing-prediction policies.

    Examples
    --------
    >>> r = score(["A", "B", "no_relation"], ["A", "no_relation", "no_relation"], weightings=["macro"])
    >>> round(r["micro"].f, 4), r.signature["negative"]
    (0.6667, 'no_relation')
    """
    if config is None:
        config = ClassificationConfig(**settings)
    elif settings:
        from dataclasses import replace

        config = replace(config, **settings)
    result = _score(gold, pred, config, system)
    warn_all(result.warnings)
    return result


def score_e2e(
    gold: E2EInput,
    pred: E2EInput,
    config: E2EConfig | None = None,
    *,
    system: str | None = None,
    **settings: Any,
) -> E2EResult:
    """Score predicted entities and relations against gold under NER strict and RE Strict / Boundaries.

    Parameters
    ----------
    gold, pred
        SpERT JSON or DyGIE JSONL paths, E2EDatasets, or lists of Documents.
    config
        An `E2EConfig`; or its fields as keywords: `criteria`, `ner`, `relaxed` (the experimental Relaxed
        criterion, labelled so everywhere), `types` (a SpERT types file: symmetric relation types), `weightings`,
        `beta`, `zero_division`, `by_position`.

    Returns
    -------
    E2EResult
        `result[criterion]` is a ScoreResult per criterion, each with its own signature.

    References
    ----------
    Taillé et al. (2020) for the criteria; Harbecke et al. (2022) for the weightings.

    Examples
    --------
    >>> from releval.data.e2e import Document
    >>> doc = Document("d1", ("A", "b", "C"), ((0, 1, "Peop"), (2, 3, "Loc")), ((0, 1, "Live_In"),))
    >>> r = score_e2e([doc], [doc], ner=False, weightings=["macro"])
    >>> r["strict"]["micro"].f, r["strict"].signature["criterion"]
    (1.0, 'strict')
    """
    from dataclasses import replace

    from releval.tasks.e2e import E2EConfig, score

    config = E2EConfig(**settings) if config is None else replace(config, **settings) if settings else config
    result = score(gold, pred, config, system)
    warn_all(result.warnings)
    return result


def score_semeval_official(
    gold: LabelsInput,
    pred: LabelsInput,
    allow_skipped: bool = False,
    *,
    on_missing: str | None = None,
    system: str | None = None,
) -> SemevalOfficialResult:
    """Score `pred` against the answer key `gold` as the SemEval-2010 Task 8 perl scorer v1.2 does.

    Parameters
    ----------
    gold, pred
        The key and the proposed answers (paths, LabelFiles, mappings), with the 19 directed labels.
    allow_skipped
        Key items without a prediction are skipped as by the scorer (lowers recall and coverage) instead of
        being an error: the same as `on_missing="wrong"`.
    on_missing
        What a key item without a prediction is (overrides `allow_skipped`): "error"; "wrong", skipped as by the
        scorer (the perl report on the file as given); "negative", scored as Other (the perl report on the file
        with each missing id added as Other). The three macro-F1 are the same under both; the report is not.
    system
        The name shown in tables (default: the prediction file's name).

    Returns
    -------
    SemevalOfficialResult
        The scorer's three views; `official_score` is the macro-F1 of the 9+1-way evaluation with direction.
        Its warnings are repeated through `warnings.warn` as `RelevalWarning`.

    References
    ----------
    Hendrickx et al. (2010), SemEval-2010 Task 8 and its scorer v1.2.

    Examples
    --------
    >>> key = {"1": "Cause-Effect(e1,e2)", "2": "Other", "3": "Message-Topic(e2,e1)"}
    >>> r = score_semeval_official(key, key)
    >>> round(r.official_score, 2)
    100.0
    """
    from releval.tasks.semeval_official import SemevalOfficialConfig, score

    policy = on_missing if on_missing is not None else "wrong" if allow_skipped else "error"
    result = score(gold, pred, SemevalOfficialConfig(policy), system)
    warn_all(result.warnings)
    return result
