"""The official SemEval-2010 Task 8 score as a board column: the measure `semeval-official`.

Its value is the score of `releval score --task semeval-official GOLD PRED` (releval.tasks.semeval_official: the
perl scorer v1.2's "(9+1)-way evaluation taking directionality into account", macro-F1 over the nine relations,
Other excluded; e.g. 89.06 for the bundled R-BERT predictions), as a fraction like every cell (0.8906…).

The scorer has no interval and no test, and `releval compare` none for it; the board's are a percentile bootstrap
of the items with the benchmark's resamples, seed and level, the official macro-F1 recomputed in each resample
from per-item counts exactly as the scorer counts (a prediction with the right relation in the wrong direction
counts against the precision of that relation and is no hit; the classes are the test set's relations in every
resample), and the tie test the paired bootstrap p-value of releval (`bootstrap_p_values`: the shifted δ*, ties
extreme) on the same draws for both runs. A benchmark whose gold is not SemEval's 19 directed labels refuses the
measure (the task's own message: it is tried on gold first).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from releval.service import scoring

MEASURE = "semeval-official"
#: Resamples drawn at once (rows of item counts): 200 × 10,717 items of int64 is 17 MB.
BLOCK = 200


def _result(gold: Sequence[str], pred: Sequence[str], ids: Sequence[str] | None) -> Any:
    from releval.tasks.semeval_official import score

    if ids is None:
        return score(list(gold), list(pred))
    return score(dict(zip(ids, gold)), dict(zip(ids, pred)))


def _item_counts(gold: Sequence[str], pred: Sequence[str]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Per item and relation of gold (scorer order): (hit, proposed, wrong direction, actual) as an (n, 4k) matrix
    of 0/1, and which relations are averaged (all but Other)."""
    from releval.data.semeval_labels import OTHER, undirected
    from releval.metrics.semeval import scorer_order

    gold_u = [undirected(x) for x in gold]
    pred_u = [undirected(x) for x in pred]
    labels = scorer_order(set(gold_u))
    index = {label: i for i, label in enumerate(labels)}
    k, n = len(labels), len(gold)
    out = np.zeros((n, 4 * k), dtype=np.float64)
    for i, (g, p, gu, pu) in enumerate(zip(gold, pred, gold_u, pred_u)):
        wrong = p != g and pu == gu
        if wrong:
            out[i, 2 * k + index[gu]] = 1  # xDIRx: against the relation's precision
        else:
            if pu in index:
                out[i, k + index[pu]] = 1
            if pu == gu:
                out[i, index[gu]] = 1
        out[i, 3 * k + index[gu]] = 1
    return out, np.array([label != OTHER for label in labels], dtype=bool)


def _macro_f1(totals: NDArray[np.float64], positive: NDArray[np.bool_]) -> NDArray[np.float64]:
    """The scorer's macro-F1 (a fraction) of each row of summed item counts (r, 4k)."""
    k = positive.shape[0]
    correct, proposed, xdir, actual = (totals[:, j * k : (j + 1) * k] for j in range(4))
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(proposed != 0, 100.0 * correct / (proposed + xdir), 0.0)
        recall = np.where(actual != 0, 100.0 * correct / actual, 0.0)
        f1 = np.where(precision + recall != 0, 2 * precision * recall / (precision + recall), 0.0)
    return f1[:, positive].sum(axis=1) / positive.sum() / 100.0


def resampled(
    gold: Sequence[str], preds: Sequence[Sequence[str]], spec: scoring.BenchmarkSpec
) -> list[NDArray[np.float64]]:
    """The official macro-F1 of each run in `preds` in each of the benchmark's bootstrap resamples (the same
    resampled items for every run)."""
    cells = [_item_counts(gold, pred) for pred in preds]
    n = len(gold)
    rng = np.random.default_rng(spec.seed)
    out: list[list[NDArray[np.float64]]] = [[] for _ in preds]
    for start in range(0, spec.resamples, BLOCK):
        size = min(BLOCK, spec.resamples - start)
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(np.float64)
        for j, (counts, positive) in enumerate(cells):
            out[j].append(_macro_f1(weights @ counts, positive))
    return [np.concatenate(parts) for parts in out]


def cell(gold: Sequence[str], pred: Sequence[str], spec: scoring.BenchmarkSpec, ids: Sequence[str] | None) -> Any:
    """The column's cell of one run: the official score, its percentile interval, its signature."""
    from releval.core.signature import Signature
    from releval.significance.paired import percentile_intervals

    result = _result(gold, pred, ids)
    (draws,) = resampled(gold, [pred], spec)
    ((low, high),) = percentile_intervals(draws[None, :], spec.confidence)
    fields: dict[str, object] = {**result.signature.fields, **spec.test_config().signature_fields()}
    fields["alignment"] = "position" if ids is None else "id"
    return scoring.Cell(result.official_score / 100.0, low, high, Signature.build(**fields).format())


def pair_p(gold: Sequence[str], best: Sequence[str], other: Sequence[str], spec: scoring.BenchmarkSpec) -> float:
    """The paired bootstrap p-value of the official score of `best` against `other` (the test's alternative)."""
    from releval.significance.paired import bootstrap_p_values

    fa, fb = resampled(gold, [best, other], spec)
    delta = _result(gold, best, None).official_score / 100.0 - _result(gold, other, None).official_score / 100.0
    return float(bootstrap_p_values(fa - fb, delta)[spec.test_config().alternative])
