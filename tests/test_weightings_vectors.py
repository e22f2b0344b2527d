"""Weighting schemes against weighting_schemes_vectors.json (paper-definition fields) and sklearn_prf_vectors.json."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import SEMEVAL_KEY, data_path, semeval_predictions, shared_path

import releval
from releval.metrics.averages import AveragingSpec, micro_average, prf_from_counts, weighted_averages
from releval.metrics.classification import encode
from releval.metrics.counts import class_counts

SCHEMES = ("micro", "weighted", "dodrans", "entropy", "macro")
TACRED = ("data", "tacred_labels")  # under ../shared: TACRED label files are not bundled


def _vectors(name: str) -> dict:
    return json.loads(data_path("testvectors", name).read_text())


def _assert_scores(result: releval.ScoreResult, expected: dict) -> None:
    for scheme in SCHEMES:
        exp = expected[scheme]
        got = result.averages[scheme]
        assert got.precision == pytest.approx(exp["precision"], abs=1e-12), scheme
        assert got.recall == pytest.approx(exp["recall"], abs=1e-12), scheme
        assert got.f == pytest.approx(exp["f1-score"], abs=1e-12), scheme


def test_toy_cases_paper_definition() -> None:
    cases = [c for c in _vectors("weighting_schemes_vectors.json")["toy_cases"] if c.get("paper_definition")]
    assert len(cases) == 2
    for case in cases:
        result = releval.score(case["y_true"], case["y_pred"], negative=case["negative_label"])
        _assert_scores(result, case["paper_definition"])
        weighted_classes = sum(1 for r in result.per_class if r.positive and r.support > 0)
        assert weighted_classes == case["paper_definition"]["n_classes_weighted"]
        assert len(result.pred_only_labels) == case["paper_definition"]["n_pred_only_classes"]


def _tacred_columns(system: str, gold_column: str) -> tuple[list[str], list[str]]:
    ref = releval.load_labels(shared_path(*TACRED, "test_results", "cnn_test.jsonl.gz"), role="gold")
    gold = ref
    if gold_column == "gold_tacrev":
        gold = releval.apply_patch(ref, shared_path(*TACRED, "patch", "test_patch.json"))
    if system.endswith("_test"):
        pred = releval.load_labels(shared_path(*TACRED, "test_results", f"{system}.txt.gz"), format="labels-lines")
    else:
        pred = releval.load_labels(shared_path(*TACRED, "test_results", f"{system}_test.jsonl.gz"), role="pred")
    return gold.labels, pred.labels


def _real_data_cases(dataset: str) -> list[dict]:
    cases = _vectors("weighting_schemes_vectors.json")["real_data_cases"]
    assert len(cases) == 29
    return [case for case in cases if case["dataset"].startswith(dataset)]


def _check_real_data_case(case: dict, gold: Path | list[str], pred: Path | list[str], negative: str) -> None:
    result = releval.score(gold, pred, negative=negative)
    _assert_scores(result, case["paper_definition"])
    positive_only = releval.score(gold, pred, negative=negative, entropy_n="positive", weightings=["entropy"])
    assert positive_only["entropy"].f == pytest.approx(case["entropy_with_N_positive_only"]["f1-score"], abs=1e-12)


def test_real_data_cases_paper_definition_semeval() -> None:
    """The five SemEval-2010 Task 8 systems (bundled): directed key, Other as the negative class."""
    cases = _real_data_cases("SemEval")
    assert len(cases) == 5
    for case in cases:
        pred = semeval_predictions(case["system_column"].removeprefix("onehaitao_"))
        _check_real_data_case(case, SEMEVAL_KEY, pred, "Other")


def test_real_data_cases_paper_definition_tacred() -> None:
    """The 12 TACRED systems against TACRED and TACRev gold (label files in ../shared only: skipped without it)."""
    cases = _real_data_cases("TACRED")
    assert len(cases) == 24
    for case in cases:
        gold, pred = _tacred_columns(case["system_column"], case["gold_column"])
        _check_real_data_case(case, gold, pred, "no_relation")


def _sk_value(value):
    return math.nan if value is None else value


def test_sklearn_prf_vectors() -> None:
    """Per-class values, micro, and macro/weighted where every listed label has gold support (paper definition)."""
    checked = 0
    for case in _vectors("sklearn_prf_vectors.json")["cases"]:
        if "y_true" not in case or "calls" not in case:
            continue  # multi-label matrices and report-key cases: not single-label PRF calls
        y_true, y_pred = [str(x) for x in case["y_true"]], [str(x) for x in case["y_pred"]]
        enc = encode(y_true, y_pred)
        for call in case["calls"]:
            params = call["params"]
            listed = [str(x) for x in params.get("labels") or sorted(set(y_true) | set(y_pred))]
            labels = enc.labels + [x for x in listed if x not in enc.labels]
            code = {lbl: i for i, lbl in enumerate(labels)}
            counts = class_counts(np.array([code[x] for x in y_true]), np.array([code[x] for x in y_pred]), len(labels))
            zd = params.get("zero_division", 0)
            zd = math.nan if zd == "nan" else float(zd)
            beta = params.get("beta", 1.0)
            idx = [code[x] for x in listed]
            exp = call["expected"]
            average = params.get("average")
            if average is None:
                prf = prf_from_counts(counts.tp[idx], counts.fp[idx], counts.fn[idx], beta, zd)
                np.testing.assert_allclose(prf.precision, [_sk_value(v) for v in exp["precision"]], atol=1e-12)
                np.testing.assert_allclose(prf.recall, [_sk_value(v) for v in exp["recall"]], atol=1e-12)
                np.testing.assert_allclose(prf.f, [_sk_value(v) for v in exp["fbeta"]], atol=1e-12)
                checked += 1
                continue
            mask = np.zeros(len(labels), dtype=bool)
            mask[idx] = True
            spec = AveragingSpec(mask, tuple(releval.get_weighting(w) for w in ("weighted", "macro")), beta, zd)
            if average == "micro":
                got = micro_average(counts, spec)
            elif math.isnan(zd) or (counts.support[idx] == 0).any():
                continue  # sklearn averages listed zero-support labels as 0; releval weights only n_i > 0
            else:
                got = weighted_averages(counts, spec)[average]
            assert float(got.precision) == pytest.approx(exp["precision"], abs=1e-12), (case["id"], params)
            assert float(got.recall) == pytest.approx(exp["recall"], abs=1e-12), (case["id"], params)
            assert float(got.f) == pytest.approx(exp["fbeta"], abs=1e-12), (case["id"], params)
            checked += 1
    assert checked >= 30
