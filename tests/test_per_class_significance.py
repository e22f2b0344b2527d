"""Per-class significance (releval.significance.per_class): which classes drive a difference between two systems.

Proven as the pair engine was: δ per class is F(A) − F(B) of each system scored alone; the per-class δ* of the
cell draws has the law of resampling items (exact enumeration of all 6^6 item resamples against 200,000 draws,
χ²) and of swapping items (all 2^8 swap patterns); against an independent per-item NumPy bootstrap on a larger case
(two-sample KS per class, intervals and p-values within Monte-Carlo error); Holm's adjusted p-values are
`corrections.holm` of the raw ones; the averages are exactly those of a plain run with the same seed; identical
systems give δ = 0 and p = 1; the SemEval-2010 Task 8 example of docs/significance.md; every output format.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from tests.conftest import EXAMPLES, REPO, SEMEVAL_KEY

import releval
from releval.core.errors import OptionError
from releval.metrics.cells import encode_triplet
from releval.report.compare_report import render_per_class
from releval.significance.compare import compare_paired
from releval.significance.config import SignificanceConfig
from releval.significance.corrections import bonferroni, holm
from releval.significance.paired import TIE_TOLERANCE, approximate_randomization, paired_bootstrap
from releval.significance.per_class import PerClassComparison, per_class_differences, resampled_class_f
from releval.tasks import classification as rc
from releval.tasks.e2e import E2EConfig

SEMEVAL = EXAMPLES / "semeval2010_task8"
RBERT, CNN = SEMEVAL / "onehaitao_rbert.txt", SEMEVAL / "onehaitao_cnn.txt"
#: The classes whose difference between R-BERT and CNN survives Holm's correction across the 18 positive classes
#: (bootstrap, 10,000 resamples, seed 12345): docs/significance.md, "Which classes drive a difference".
SEMEVAL_SURVIVORS = [
    "Member-Collection(e1,e2)",
    "Message-Topic(e2,e1)",
    "Product-Producer(e2,e1)",
    "Component-Whole(e2,e1)",
    "Instrument-Agency(e2,e1)",
    "Component-Whole(e1,e2)",
    "Product-Producer(e1,e2)",
    "Message-Topic(e1,e2)",
    "Content-Container(e1,e2)",
    "Entity-Destination(e1,e2)",
    "Cause-Effect(e1,e2)",
]

# Six items, two positive classes and the negative N; A and B err differently on every class.
TINY_GOLD = ["r", "r", "s", "s", "N", "N"]
TINY_A = ["r", "s", "s", "N", "r", "N"]
TINY_B = ["r", "r", "N", "s", "N", "N"]


@pytest.fixture(scope="module")
def semeval() -> PerClassComparison:
    return per_class_differences(SEMEVAL_KEY, RBERT, CNN, names=("rbert", "cnn"))


def _item_f(gold: np.ndarray, pred: np.ndarray, label: int) -> np.ndarray:
    """F1 of one class from items (last axis), written without releval: 0 when TP + FP + FN = 0."""
    tp = np.sum((gold == label) & (pred == label), axis=-1)
    fp = np.sum((gold != label) & (pred == label), axis=-1)
    fn = np.sum((gold == label) & (pred != label), axis=-1)
    den = 2 * tp + fp + fn
    return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0)


def _codes(*seqs: list[str]) -> tuple[dict[str, int], list[np.ndarray]]:
    labels = sorted(set().union(*seqs))
    code = {x: i for i, x in enumerate(labels)}
    return code, [np.array([code[x] for x in s]) for s in seqs]


def _bootstrap_p(deltas: np.ndarray, weights: np.ndarray, delta: float) -> dict[str, float]:
    """The exact probabilities the bootstrap's p-values estimate, from a law of δ* (values and probabilities)."""
    shifted = deltas - delta
    return {
        "greater": float(weights[shifted >= delta - TIE_TOLERANCE].sum()),
        "less": float(weights[shifted <= delta + TIE_TOLERANCE].sum()),
        "two-sided": float(weights[np.abs(shifted) >= abs(delta) - TIE_TOLERANCE].sum()),
    }


def _close(estimate: float, exact: float, draws: int) -> bool:
    """Within 5 standard errors of a (c + 1)/(R + 1) estimate of `exact` (plus the +1's bias)."""
    return abs(estimate - exact) <= 5 * math.sqrt(exact * (1 - exact) / draws) + 2 / draws


# ------------------------------------------------------------------------------------------------ what δ is


def test_delta_per_class_is_the_difference_of_each_system_scored_alone(semeval: PerClassComparison) -> None:
    """δ = F(A) − F(B) per class, F and support as `releval.score` gives them; every positive class with gold
    support is compared, and only those."""
    alone_a = {r.label: r for r in releval.score(SEMEVAL_KEY, RBERT).per_class}
    alone_b = {r.label: r for r in releval.score(SEMEVAL_KEY, CNN).per_class}
    expected = {label for label, r in alone_a.items() if r.positive and r.support > 0}
    assert {r.label for r in semeval.rows} == expected and len(expected) == 18
    for row in semeval.rows:
        assert row.score_a == alone_a[row.label].f and row.score_b == alone_b[row.label].f
        assert row.effect == alone_a[row.label].f - alone_b[row.label].f
        assert row.support == alone_a[row.label].support
    effects = [abs(r.effect) for r in semeval.rows]
    assert effects == sorted(effects, reverse=True)  # sorted by |δ|, largest first


def test_sign_follows_the_paired_results_a_minus_b() -> None:
    res = per_class_differences(TINY_GOLD * 5, TINY_A * 5, TINY_GOLD * 5, negative="N", resamples=99)
    assert all(r.effect <= 0 for r in res.rows)  # B is gold: A can only be worse
    swapped = per_class_differences(TINY_GOLD * 5, TINY_GOLD * 5, TINY_A * 5, negative="N", resamples=99)
    assert {r.label: r.effect for r in swapped.rows} == {r.label: -r.effect for r in res.rows}


# ------------------------------------------------------------------------------- the law of the resamples


def _tiny_cells():  # noqa: ANN202
    cells, spec, _ = rc.paired_cells(TINY_GOLD, TINY_A, TINY_B, rc.ClassificationConfig(negative="N"))
    labels = encode_triplet(TINY_GOLD, TINY_A, TINY_B)[0]
    return cells, spec, labels


def _tiny_item_law() -> tuple[dict[tuple[float, float], Fraction], dict[str, float]]:
    """All 6^6 item resamples, each of probability 1/6^6: the joint law of (δ*_r, δ*_s), and the observed δ."""
    n = len(TINY_GOLD)
    code, (g, a, b) = _codes(TINY_GOLD, TINY_A, TINY_B)
    idx = np.array(list(itertools.product(range(n), repeat=n)))
    deltas = [np.round(_item_f(g[idx], a[idx], code[c]) - _item_f(g[idx], b[idx], code[c]), 12) for c in "rs"]
    law = Counter(zip(deltas[0].tolist(), deltas[1].tolist()))
    observed = {c: float(_item_f(g, a, code[c]) - _item_f(g, b, code[c])) for c in "rs"}
    return {k: Fraction(v, n**n) for k, v in law.items()}, observed


def test_cell_draws_have_the_item_bootstrap_law_of_per_class_delta() -> None:
    """200,000 bootstrap draws of the cells against the exact law of (δ*_r, δ*_s) over all 6^6 item resamples:
    χ² goodness of fit, cells of expected count < 5 pooled."""
    law, _ = _tiny_item_law()
    cells, spec, labels = _tiny_cells()
    classes = np.array([labels.index("r"), labels.index("s")])
    resamples = 200_000
    draws = resampled_class_f(cells, spec, classes, resamples, seed=4)
    delta = np.round(draws.per_class_a - draws.per_class_b, 12)
    seen = Counter(zip(delta[0].tolist(), delta[1].tolist()))
    assert set(seen) <= set(law)
    keys = sorted(law, key=lambda k: law[k])
    expected = np.array([float(law[k]) * resamples for k in keys])
    observed = np.array([seen.get(k, 0) for k in keys], dtype=float)
    small = expected < 5
    if small.any():
        expected = np.append(expected[~small], expected[small].sum())
        observed = np.append(observed[~small], observed[small].sum())
    assert len(keys) > 20
    assert stats.chisquare(observed, expected).pvalue > 0.001


def test_bootstrap_p_values_estimate_the_exact_item_bootstrap_p() -> None:
    """Every class's p under every alternative, from 100,000 resamples, within Monte-Carlo error of the exact
    probability over all 6^6 item resamples (the rule of the averages: shifted, ties extreme)."""
    law, observed = _tiny_item_law()
    keys = list(law)
    weights = np.array([float(law[k]) for k in keys])
    resamples = 100_000
    for alternative in ("two-sided", "greater", "less"):
        res = per_class_differences(
            TINY_GOLD, TINY_A, TINY_B, negative="N", resamples=resamples, seed=8, alternative=alternative
        )
        for i, c in enumerate("rs"):
            row = res.row(c)
            assert row.effect == pytest.approx(observed[c], abs=1e-12)
            exact = _bootstrap_p(np.array([k[i] for k in keys]), weights, observed[c])
            for alt, p in exact.items():
                assert _close(row.p_values[alt], min(p, 1.0), resamples), (c, alt, row.p_values[alt], p)


def test_randomization_p_values_estimate_the_exact_swap_p() -> None:
    """Approximate randomization per class: the same swaps as the averages', p within Monte-Carlo error of the
    exact p over all 2^8 swap patterns of eight items."""
    gold = ["r", "r", "r", "s", "s", "s", "N", "N"]
    a = ["r", "r", "s", "s", "s", "N", "N", "r"]
    b = ["r", "N", "N", "s", "r", "s", "s", "N"]
    code, (g, pa, pb) = _codes(gold, a, b)
    swap = np.array(list(itertools.product([False, True], repeat=len(gold))))
    sa, sb = np.where(swap, pb, pa), np.where(swap, pa, pb)
    resamples = 40_000
    res = per_class_differences(gold, a, b, negative="N", tests=("randomization",), resamples=resamples, seed=3)
    assert res.tests == ("randomization",) and res.confidence is None
    for c in "rs":
        star = _item_f(g, sa, code[c]) - _item_f(g, sb, code[c])
        delta = float(_item_f(g, pa, code[c]) - _item_f(g, pb, code[c]))
        exact = float(np.mean(np.abs(star) >= abs(delta) - TIE_TOLERANCE))
        row = res.row(c)
        assert row.ci_effect is None and row.effect == pytest.approx(delta, abs=1e-12)
        assert _close(row.p_value, exact, resamples), (c, row.p_value, exact)


def _larger_case(n: int = 1500, k: int = 5, seed: int = 7) -> tuple[list[str], list[str], list[str]]:
    """Two correlated systems: a shared item difficulty decides who errs, most errors go to the negative class."""
    rng = np.random.default_rng(seed)
    labels = ["none"] + [f"rel{i}" for i in range(1, k)]
    gold = rng.choice(k, n, p=[0.5] + [0.5 / (k - 1)] * (k - 1))
    hard = rng.random(n)
    out = []
    for s in range(2):
        wrong = hard < 0.15 + 0.1 * s + 0.1 * rng.random(n)
        noise = np.where(rng.random(n) < 0.5, 0, rng.integers(0, k, n))
        out.append([labels[i] for i in np.where(wrong, noise, gold)])
    return [labels[i] for i in gold], out[0], out[1]


def test_ks_against_an_independent_per_item_bootstrap() -> None:
    """Per class, δ* of the cell draws against a per-item NumPy bootstrap (item indices drawn with replacement,
    per-class F counted from the items): two-sample KS p > 0.001; the 95 % interval's ends and the two-sided p
    agree within Monte-Carlo error."""
    gold, a, b = _larger_case()
    resamples = 4000
    res = per_class_differences(gold, a, b, negative="none", resamples=resamples, seed=21)
    code, (g, pa, pb) = _codes(gold, a, b)
    rng = np.random.default_rng(22)
    idx = rng.integers(0, len(gold), (resamples, len(gold)))
    assert len(res.rows) == 4
    for row in res.rows:
        c = code[row.label]
        item = _item_f(g[idx], pa[idx], c) - _item_f(g[idx], pb[idx], c)
        cells, spec, _ = rc.paired_cells(gold, a, b, rc.ClassificationConfig(negative="none"))
        labels = encode_triplet(gold, a, b)[0]
        draws = resampled_class_f(cells, spec, np.array([labels.index(row.label)]), resamples, seed=21)
        cell = draws.per_class_a[0] - draws.per_class_b[0]
        assert stats.ks_2samp(cell, item).pvalue > 0.001
        low, high = np.quantile(item, [0.025, 0.975])
        assert row.ci_effect == pytest.approx((np.quantile(cell, 0.025), np.quantile(cell, 0.975)), abs=1e-12)
        assert row.ci_effect[0] == pytest.approx(low, abs=0.015) and row.ci_effect[1] == pytest.approx(high, abs=0.015)
        shifted = item - row.effect
        p_item = (np.count_nonzero(np.abs(shifted) >= abs(row.effect) - TIE_TOLERANCE) + 1) / (resamples + 1)
        assert abs(row.p_value - p_item) <= 5 * math.sqrt(max(p_item, 1e-3) / resamples) + 2 / resamples


# --------------------------------------------------------------------------------- correction and averages


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_adjusted_p_values_are_holm_of_the_raw_ones(semeval: PerClassComparison, alternative: str) -> None:
    res = (
        semeval
        if alternative == "two-sided"
        else per_class_differences(SEMEVAL_KEY, RBERT, CNN, alternative=alternative, resamples=2000)
    )
    raw = [r.p_value for r in res.rows]
    assert [r.p_adjusted for r in res.rows] == holm(raw).tolist()
    assert res.significant() == [r.label for r in res.rows if r.p_adjusted <= 0.05]


def test_bonferroni_and_none_and_each_test_its_own_family() -> None:
    both = SignificanceConfig(("bootstrap", "randomization"), resamples=2000, correction="bonferroni")
    res = per_class_differences(SEMEVAL_KEY, RBERT, CNN, test=both)
    for t in both.tests:
        rows = res.rows_of(t)
        assert len(rows) == 18 and all(r.test == t for r in rows)
        assert [r.p_adjusted for r in rows] == bonferroni([r.p_value for r in rows]).tolist()
    assert res.signature["methods"] == "bonferroni,family=classes"
    none = per_class_differences(SEMEVAL_KEY, RBERT, CNN, resamples=500, correction="none")
    assert all(r.p_adjusted == r.p_value for r in none.rows)


def test_averages_are_those_of_a_plain_run_with_the_same_seed(semeval: PerClassComparison) -> None:
    """The per-class numbers come from the averages' own resamples: the averages are unchanged, number for
    number, against paired_bootstrap, approximate_randomization and compare_paired with the same seed."""
    gold, a, b = _larger_case(n=800)
    test = SignificanceConfig(("bootstrap", "randomization"), resamples=3000, seed=99, confidence=0.9)
    res = per_class_differences(gold, a, b, test=test, negative="none")
    assert res.averages["bootstrap"] == paired_bootstrap(gold, a, b, test=test, negative="none").rows
    assert res.averages["randomization"] == approximate_randomization(gold, a, b, test=test, negative="none").rows
    table = compare_paired(SEMEVAL_KEY, {"rbert": RBERT, "cnn": CNN})
    for pair_row in table.rows:
        comparison = semeval.averages["bootstrap"][pair_row.metric]
        assert (comparison.score_a, comparison.score_b, comparison.effect) == (
            pair_row.score_a,
            pair_row.score_b,
            pair_row.effect,
        )
        assert (comparison.p_value, comparison.ci_effect) == (pair_row.p_value, pair_row.ci_effect)


def test_identical_systems_give_zero_and_p_one() -> None:
    gold, a, _ = _larger_case(n=600)
    res = per_class_differences(gold, a, list(a), negative="none", tests=("bootstrap", "randomization"), resamples=500)
    assert len(res.rows) == 8
    for row in res.rows:
        assert row.effect == 0.0 and row.p_adjusted == 1.0
        assert row.p_values == {"greater": 1.0, "less": 1.0, "two-sided": 1.0}
        assert row.ci_effect in (None, (0.0, 0.0))
    assert res.significant("bootstrap") == res.significant("randomization") == []


# ------------------------------------------------------------------------------------ the SemEval example


def test_semeval_rbert_vs_cnn_survivors_and_table(semeval: PerClassComparison) -> None:
    """R-BERT vs CNN: 11 of the 18 classes survive Holm; R-BERT is better on every class it differs on, and the
    class with the largest δ (Member-Collection(e1,e2), 32 items: +32 points) survives, while
    Instrument-Agency(e1,e2) (22 items, +15.5 points, CI across 0) does not."""
    assert semeval.significant() == SEMEVAL_SURVIVORS
    assert all(r.effect >= 0 for r in semeval.rows)
    top = semeval.rows[0]
    assert (top.label, top.support, round(100 * top.effect, 2)) == ("Member-Collection(e1,e2)", 32, 32.34)
    ia = semeval["Instrument-Agency(e1,e2)"]
    assert ia.ci_effect is not None and ia.ci_effect[0] < 0 < ia.ci_effect[1] and ia.p_adjusted > 0.05
    assert semeval["Entity-Destination(e2,e1)"].support == 1 and semeval["Entity-Destination(e2,e1)"].p_value == 1.0
    text = render_per_class(semeval, "text")
    lines = {ln.split()[0]: ln.split() for ln in text.splitlines() if ln.split() and "(e" in ln.split()[0]}
    assert len(lines) == 18
    for row in semeval.rows:
        cells = lines[row.label]
        assert cells[-1] == ("yes" if row.label in SEMEVAL_SURVIVORS else "no")
        assert cells[1] == str(row.support) and cells[5] == f"{100 * row.effect:+.2f}"
    assert semeval.signature["methods"] == "holm,family=classes" and semeval.signature["alpha"] == "0.05"
    assert semeval.signature["test"] == "bootstrap:two-sided" and semeval.signature["seed"] == "12345"


def test_docs_example_is_current(semeval: PerClassComparison) -> None:
    """The per-class table printed in docs/significance.md is what the example's code prints now."""
    doc = (REPO / "docs" / "significance.md").read_text(encoding="utf-8")
    section = doc.split("## Which classes drive a difference", 1)[1].split("\n## ", 1)[0]
    shown = re.search(r"```text\n(.*?)```", section, re.S)
    assert shown is not None
    expected = render_per_class(semeval, "text")
    version = re.compile(r"\|version:[^|\s]+")
    assert version.sub("", shown.group(1)) == version.sub("", expected)  # the version moves on; the numbers do not


# ------------------------------------------------------------------------------------- formats and types


@pytest.mark.parametrize("format", ["text", "markdown", "latex", "csv", "json"])
def test_every_output_format_renders(semeval: PerClassComparison, format: str) -> None:
    out = render_per_class(semeval, format)
    assert "Member-Collection(e1,e2)" in out
    if format == "json":
        document = json.loads(out)
        assert document["kind"] == "per-class-paired" and document["task"] == "rc"
        assert PerClassComparison.from_dict(document["results"][0]) == semeval
    elif format == "csv":
        assert "p_adjusted" in out and "survives" in out and "holm,family=classes" in out
    else:
        assert "survives" in out and ("Δ" in out or r"\Delta" in out)


def test_round_trip_and_frame(semeval: PerClassComparison) -> None:
    data = json.loads(json.dumps(semeval.to_dict()))
    assert PerClassComparison.from_dict(data) == semeval
    assert data["significant"]["bootstrap"] == SEMEVAL_SURVIVORS
    with pytest.raises(ValueError, match="kind"):
        PerClassComparison.from_dict({**data, "kind": "paired"})
    pytest.importorskip("pandas")
    frame = semeval.to_frame()
    assert frame.shape[0] == 18 and bool(frame.loc[("bootstrap", "Message-Topic(e2,e1)"), "significant"])
    assert frame["effect"].tolist() == [r.effect for r in semeval.rows]


def test_public_name_and_refusals() -> None:
    assert releval.per_class_differences is per_class_differences
    with pytest.raises(OptionError, match="McNemar"):
        per_class_differences(TINY_GOLD, TINY_A, TINY_B, tests=("bootstrap", "mcnemar"))
    with pytest.raises(OptionError, match="criterion"):
        per_class_differences(TINY_GOLD, TINY_A, TINY_B, criterion="strict")
    with pytest.raises(OptionError, match="names"):
        per_class_differences(TINY_GOLD, TINY_A, TINY_B, names=("x", "x"))
    with pytest.raises(OptionError, match="alpha"):
        per_class_differences(TINY_GOLD, TINY_A, TINY_B, alpha=1.0)
    with pytest.raises(OptionError, match="on_missing"):
        per_class_differences(
            TINY_GOLD, TINY_A, TINY_B, negative="N", facts=rc.DataFacts(missing="wrong"), resamples=10
        )


def test_missing_predictions_counted_as_wrong_are_refused(tmp_path: Path) -> None:
    """Under Olek's correction a filled item's false positive belongs to no known class: no per-class F."""
    gold = tmp_path / "gold.tsv"
    pred = tmp_path / "pred.tsv"
    gold.write_text("".join(f"{i}\t{x}\n" for i, x in enumerate(TINY_GOLD)))
    pred.write_text("".join(f"{i}\t{x}\n" for i, x in enumerate(TINY_A) if i != 2))
    with pytest.raises(OptionError, match="on_missing"):
        per_class_differences(gold, pred, pred, on_missing="wrong", negative="N")


# ------------------------------------------------------------------------------------------ end-to-end RE


CONLL = EXAMPLES / "conll04" / "conll04_test_first30.json"


def _e2e_system(tmp_path: Path, name: str, drop: list[int], relabel: list[int]) -> Path:
    """Gold with the relations of documents `drop` removed and those of `relabel` given another type."""
    docs = copy.deepcopy(json.loads(CONLL.read_text()))
    with_relations = [i for i, d in enumerate(docs) if d["relations"]]
    for i in drop:
        docs[with_relations[i]]["relations"] = []
    for i in relabel:
        for r in docs[with_relations[i]]["relations"]:
            r["type"] = "Live_In" if r["type"] == "Kill" else "Kill"
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(docs))
    return path


def test_end_to_end_classes_are_relation_types(tmp_path: Path) -> None:
    """End-to-end RE: documents resampled, one criterion's relation types as the classes; δ per type is the
    difference of each system's per-type F, and the criterion's averages are compare_paired's."""
    a = _e2e_system(tmp_path, "a", [0], [])
    b = _e2e_system(tmp_path, "b", [1, 2, 3, 4], [5, 6, 7])
    config = E2EConfig(ner=False)
    res = per_class_differences(CONLL, a, b, config, resamples=1000, names=("a", "b"))
    assert res.criterion == "strict" and res.unit == "documents" and res.n == 30 and res.task == "e2e"
    assert res.signature["criterion"] == "strict" and res.signature["test"] == "bootstrap:two-sided:documents"
    alone_a = {r.label: r for r in releval.score_e2e(CONLL, a, config)["strict"].per_class}
    alone_b = {r.label: r for r in releval.score_e2e(CONLL, b, config)["strict"].per_class}
    assert {r.label for r in res.rows} == {label for label, r in alone_a.items() if r.support > 0}
    for row in res.rows:
        assert row.effect == alone_a[row.label].f - alone_b[row.label].f
    table = compare_paired(CONLL, {"a": a, "b": b}, config, resamples=1000)
    for pair_row in table.rows:
        if pair_row.metric.startswith("strict:"):
            comparison = res.averages["bootstrap"][pair_row.metric.split(":", 1)[1]]
            assert (comparison.effect, comparison.p_value, comparison.ci_effect) == (
                pair_row.effect,
                pair_row.p_value,
                pair_row.ci_effect,
            )
    boundaries = per_class_differences(CONLL, a, b, config, criterion="boundaries", resamples=200)
    assert boundaries.criterion == "boundaries"
    assert "strict" in render_per_class(res, "text") and PerClassComparison.from_dict(res.to_dict()) == res
    with pytest.raises(OptionError, match="criterion"):
        per_class_differences(CONLL, a, b, config, criterion="ner", resamples=10)
