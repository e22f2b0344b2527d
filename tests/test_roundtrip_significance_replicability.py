"""Saved significance, replicability and check-stats results load back equal (the one Result protocol).

A leaderboard service stores results as JSON, so for every result type T of these layers `T.from_dict(r.to_dict())
== r` must hold — also after `json.dumps`/`json.loads` and after releval's strict JSON (NaN written as null), as the
command line writes it. Each result is computed through the public API on the SemEval-2010 Task 8 test set and the
predictions of onehaitao's systems in examples/ (split into three parts where several datasets are needed), and one
field of each is checked against a value computed here by hand, so a round trip that kept a wrong number would fail.
A header of another schema version or kind is refused with a message naming both.
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy import stats
from tests.conftest import SEMEVAL_KEY, semeval_predictions

from releval.audit.published import StatsCheck, check_stats
from releval.cli import main
from releval.core import schema
from releval.core.errors import InputError
from releval.core.notices import Notice
from releval.data.labels import load_labels
from releval.data.pvalues import PValueTable, load_pvalues
from releval.replicability.analysis import (
    DEPENDENCES,
    ID_GUARANTEE,
    PC_METHODS,
    DatasetTests,
    Identification,
    ReplicabilityResult,
    analyze,
    identify,
    pvalues_from_predictions,
)
from releval.replicability.simulation import ScenarioResult, SimulationResult, simulate, simulate_scenario
from releval.report.strict_json import dumps_strict
from releval.result import SCHEMA_VERSION
from releval.significance.config import SignificanceConfig
from releval.significance.paired import (
    DiscordantTest,
    MetricComparison,
    PairedResult,
    mcnemar,
    paired_bootstrap,
    paired_bootstrap_scores,
)
from releval.significance.paired_classic import ClassicResult, paired_t, wilcoxon_signed_rank
from releval.significance.seeds import SeedComparison, compare_seeds

NEGATIVE = "Other"
SYSTEMS = ("rbert", "attblstm", "cnn", "crcnn")


def _labels(path: Path, role: str) -> list[str]:
    return list(load_labels(path, role=role).labels)


@pytest.fixture(scope="module")
def semeval() -> dict[str, list[str]]:
    """Gold ("key") and every system's predictions of the 2,717 SemEval test items, aligned (same ids, same order)."""
    out = {"key": _labels(SEMEVAL_KEY, "gold")}
    out |= {name: _labels(semeval_predictions(name), "pred") for name in SYSTEMS}
    return out


def micro_f(gold: list[str], pred: list[str]) -> float:
    """Micro F1 over the relation classes (Other excluded), by hand."""
    tp = sum(g == p != NEGATIVE for g, p in zip(gold, pred))
    precision = tp / sum(p != NEGATIVE for p in pred)
    recall = tp / sum(g != NEGATIVE for g in gold)
    return 2 * precision * recall / (precision + recall)


def discordant(gold: list[str], a: list[str], b: list[str]) -> tuple[int, int]:
    """(#items only A gets right, #items only B gets right)."""
    only_a = sum(x == g != y for g, x, y in zip(gold, a, b))
    only_b = sum(y == g != x for g, x, y in zip(gold, a, b))
    return only_a, only_b


def parts(labels: list[str], k: int = 3) -> list[list[str]]:
    """The test set cut into k consecutive parts: k "datasets" of real predictions."""
    size = math.ceil(len(labels) / k)
    return [labels[i : i + size] for i in range(0, len(labels), size)]


def roundtrip(result: Any) -> Any:
    """`from_dict(to_dict())` equals the result as a dict, after json and after releval's strict JSON; returns the
    copy loaded from strict JSON (what the command line writes)."""
    kind = type(result)
    data = result.to_dict()
    assert data["schema_version"] == SCHEMA_VERSION and isinstance(data["kind"], str)
    assert kind.from_dict(data) == result
    assert kind.from_dict(json.loads(json.dumps(data))) == result
    loaded = kind.from_dict(json.loads(dumps_strict(data)))
    assert loaded == result
    assert json.loads(dumps_strict(loaded.to_dict())) == json.loads(dumps_strict(data))
    return loaded


# ------------------------------------------------------------------------------------------- significance


@pytest.fixture(scope="module")
def bootstrap(semeval: dict[str, list[str]]) -> PairedResult:
    test = SignificanceConfig(resamples=999, seed=7)
    return paired_bootstrap(semeval["key"], semeval["rbert"], semeval["cnn"], test=test, negative=NEGATIVE)


def test_paired_result_roundtrip_keeps_the_micro_f(bootstrap: PairedResult, semeval: dict[str, list[str]]) -> None:
    loaded = roundtrip(bootstrap)
    assert loaded.score_a == pytest.approx(micro_f(semeval["key"], semeval["rbert"]), abs=1e-12)
    assert loaded.score_b == pytest.approx(micro_f(semeval["key"], semeval["cnn"]), abs=1e-12)
    assert loaded.signature == bootstrap.signature and loaded.signature["resamples"] == "999"
    assert isinstance(loaded["micro"].ci_effect, tuple) and loaded.extra == {"cells": bootstrap.extra["cells"]}
    changed = bootstrap.to_dict()
    changed["rows"]["micro"]["score_a"] = 0.5
    assert PairedResult.from_dict(changed) != bootstrap  # equality sees a changed number


def test_metric_comparison_roundtrip_keeps_the_means(semeval: dict[str, list[str]]) -> None:
    gold = semeval["key"]
    right_a = [float(g == p) for g, p in zip(gold, semeval["rbert"])]
    right_b = [float(g == p) for g, p in zip(gold, semeval["crcnn"])]
    result = paired_bootstrap_scores(right_a, right_b, resamples=499, seed=3)
    loaded = roundtrip(result)
    assert loaded.score_a == pytest.approx(sum(right_a) / len(gold), abs=1e-15)
    assert loaded.p_values.keys() == {"two-sided", "greater", "less"}


def test_discordant_test_roundtrip_keeps_mcnemar(semeval: dict[str, list[str]]) -> None:
    gold, a, b = semeval["key"], semeval["rbert"], semeval["cnn"]
    result = mcnemar(gold, a, b, alternative="greater")
    loaded = roundtrip(result)
    only_a, only_b = discordant(gold, a, b)
    assert (loaded.b, loaded.c) == (only_a, only_b)
    expected = stats.binomtest(only_a, only_a + only_b, 0.5, alternative="greater").pvalue
    assert loaded.p_value == pytest.approx(expected, rel=1e-12)


def test_classic_results_roundtrip(semeval: dict[str, list[str]]) -> None:
    """Per-class F of two systems: the paired t statistic by hand; Wilcoxon's missing df stays None, not NaN."""
    import releval

    f_a = [row.f for row in releval.score(semeval["key"], semeval["rbert"], negative=NEGATIVE).per_class]
    f_b = [row.f for row in releval.score(semeval["key"], semeval["cnn"], negative=NEGATIVE).per_class]
    t = roundtrip(paired_t(f_a, f_b))
    d = np.subtract(f_a, f_b)
    assert t.statistic == pytest.approx(d.mean() / (d.std(ddof=1) / math.sqrt(d.size)), rel=1e-12)
    assert isinstance(t.ci, tuple) and t.df == d.size - 1
    w = roundtrip(wilcoxon_signed_rank(f_a, f_b))
    assert w.df is None and w.ci is None and w.test == "wilcoxon"


def test_classic_result_nan_survives_strict_json() -> None:
    """No difference at all: SciPy's t and p are NaN, written as null and read back as NaN."""
    result = paired_t([0.5, 0.6, 0.7], [0.5, 0.6, 0.7])
    assert math.isnan(result.statistic)
    loaded = roundtrip(result)
    assert math.isnan(loaded.statistic) and math.isnan(loaded.p_value)


def test_seed_comparison_roundtrip_keeps_the_means(semeval: dict[str, list[str]]) -> None:
    runs_a = [micro_f(semeval["key"], semeval[s]) for s in ("rbert", "attblstm")]
    runs_b = [micro_f(semeval["key"], semeval[s]) for s in ("cnn", "crcnn")]
    loaded = roundtrip(compare_seeds(runs_a, runs_b, "greater"))
    assert loaded.mean_a == pytest.approx(sum(runs_a) / 2, abs=1e-15)
    assert loaded.alternative == "greater"


def test_seed_comparison_of_constant_runs_loads_back_nan(semeval: dict[str, list[str]]) -> None:
    """The same score on every run: t and df are NaN (null in JSON), and the note survives."""
    f = micro_f(semeval["key"], semeval["rbert"])
    result = compare_seeds([f, f, f], [f, f, f])
    data = json.loads(dumps_strict(result.to_dict()))
    assert data["t"] is None and data["df"] is None
    loaded = roundtrip(result)
    assert math.isnan(loaded.t) and loaded.p_value == 1.0 and loaded.note == result.note


# ------------------------------------------------------------------------------------------- replicability


@pytest.fixture(scope="module")
def dataset_tests(semeval: dict[str, list[str]]) -> DatasetTests:
    """One-sided McNemar (rbert better than cnn) on each third of the test set."""
    datasets = [
        (f"part{i + 1}", gold, a, b)
        for i, (gold, a, b) in enumerate(zip(*(parts(semeval[k]) for k in ("key", "rbert", "cnn"))))
    ]
    return pvalues_from_predictions(datasets, test="mcnemar", negative=NEGATIVE)


def test_dataset_tests_roundtrip_keeps_each_p(dataset_tests: DatasetTests, semeval: dict[str, list[str]]) -> None:
    loaded = roundtrip(dataset_tests)
    gold, a, b = (parts(semeval[k])[1] for k in ("key", "rbert", "cnn"))
    only_a, only_b = discordant(gold, a, b)
    expected = stats.binomtest(only_a, only_a + only_b, 0.5, alternative="greater").pvalue
    assert loaded.pvalues[1] == pytest.approx(expected, rel=1e-12)
    assert loaded.pvalues.dtype == np.float64 and loaded.details[1]["b"] == only_a
    assert loaded.test == "mcnemar:greater:accuracy"


def test_identification_roundtrip_keeps_holm(dataset_tests: DatasetTests) -> None:
    p = dataset_tests.pvalues
    loaded = roundtrip(identify(p, 0.05, "holm"))
    order = np.argsort(p)
    holm = np.maximum.accumulate([min(1.0, (p.size - j) * p[i]) for j, i in enumerate(order)])
    assert loaded.adjusted[order] == pytest.approx(holm, rel=1e-12)
    assert loaded.rejected.dtype == np.bool_ and loaded.controls == "FWER"


def test_replicability_result_roundtrip_keeps_k(dataset_tests: DatasetTests) -> None:
    result = analyze(
        dataset_tests.pvalues,
        0.05,
        names=dataset_tests.names,
        effects=dataset_tests.effects,
        dependence="independent",
        method="hochberg",
        pc_methods=PC_METHODS,
    )
    result = dataclasses.replace(result, test=dataset_tests.test, settings=dataset_tests.settings)
    loaded = roundtrip(result)
    assert loaded.k["count"] == int(np.sum(dataset_tests.pvalues <= 0.05))
    m = dataset_tests.pvalues.size
    assert loaded.k["bonferroni"] == max(
        (u for u in range(1, m + 1) if (m - u + 1) * np.sort(dataset_tests.pvalues)[u - 1] <= 0.05), default=0
    )
    assert loaded.signature == result.signature and "test:mcnemar:greater:accuracy" in str(loaded.signature)
    assert loaded.pc_methods == PC_METHODS and loaded.effects is not None


def test_replicability_result_keeps_notices_and_version() -> None:
    """The warnings keep their codes, and a saved result keeps the version it was computed by."""
    result = analyze([0.0001, 1.12e-08, 0.0944], names=["Tamil", "Hungarian", "Kazakh"], effects=[-3.42, 3.1, 0.31])
    result = dataclasses.replace(result, warnings=[Notice("filled", code="missing-filled-wrong"), *result.warnings])
    loaded = roundtrip(result)
    assert [w.code for w in loaded.warnings] == ["missing-filled-wrong", "warning", "warning"]
    data = result.to_dict()
    data["signature"] = data["signature"].replace(f"version:{result.version}", "version:0.0.1")
    old = ReplicabilityResult.from_dict(data)
    assert old.version == "0.0.1" and old.signature["version"] == "0.0.1" and old != result


def test_replicability_cli_json_loads_back(tmp_path: Path) -> None:
    """`replicability from-predictions -f json` writes the result's to_dict: it loads, and writes the same again."""
    key, rbert, cnn = SEMEVAL_KEY, semeval_predictions("rbert"), semeval_predictions("cnn")
    attcnn = semeval_predictions("attcnn")
    out = tmp_path / "rep.json"
    args = ["replicability", "from-predictions", "-d", f"x={key},{rbert},{cnn}", "-d", f"y={key},{attcnn},{cnn}"]
    assert main([*args, "-R", "499", "-f", "json", "-o", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    loaded = ReplicabilityResult.from_dict(data)
    assert loaded.to_dict() == data and loaded.settings["resamples"] == 499
    assert loaded.test == "bootstrap:greater:micro" and str(loaded.signature) == data["signature"]


def test_simulation_roundtrip_keeps_each_repetition() -> None:
    """The independent scenario runs first on the seeded generator: its count estimator is #{p_i <= alpha}."""
    sim = simulate(300, seed=7, methods=("bonferroni", "fisher"))
    loaded = roundtrip(sim)
    p = np.random.default_rng(7).random((300, 100))
    np.testing.assert_array_equal(loaded.scenarios["independent"].k_hat["count"], np.sum(p <= 0.05, axis=1))
    assert loaded.scenarios["independent"].k_hat["count"].dtype == np.int64
    assert loaded.methods == ("count", "bonferroni", "fisher") and loaded.signature == sim.signature


def test_scenario_roundtrip() -> None:
    scenario = simulate_scenario("dependent", 40, rng=np.random.default_rng(3), methods=PC_METHODS)
    loaded = roundtrip(scenario)
    assert loaded.theory == {} and sum(loaded.histogram("stouffer").values()) == 40
    independent = roundtrip(simulate_scenario("independent", 20, rng=np.random.default_rng(3)))
    assert independent.theory["count"] == pytest.approx(1 - 0.95**100) and "stouffer" not in independent.theory


def test_pvalue_table_roundtrip_and_reload(dataset_tests: DatasetTests, tmp_path: Path) -> None:
    """A table read from CSV loads back from its JSON; that JSON is itself a table `load_pvalues` reads."""
    path = tmp_path / "p.csv"
    rows = zip(dataset_tests.names, dataset_tests.pvalues, dataset_tests.effects)
    path.write_text(
        "dataset,p,effect\n" + "".join(f"{n},{float(p)!r},{float(e)!r}\n" for n, p, e in rows), encoding="utf-8"
    )
    table = load_pvalues(path)
    loaded = roundtrip(table)
    assert list(loaded.p) == list(dataset_tests.pvalues) and loaded.source == str(path)
    saved = tmp_path / "p.json"
    saved.write_text(dumps_strict(table.to_dict()), encoding="utf-8")
    assert load_pvalues(saved) == dataclasses.replace(table, source=str(saved))


# ------------------------------------------------------------------------------------------- audit


def test_stats_check_roundtrip_keeps_d_and_claims() -> None:
    check = check_stats("72.5±0.3", "71.5±0.4", 5, claimed_p="< 0.001", claimed_d="2.6", name="TACRED")
    loaded = roundtrip(check)
    low = math.sqrt(2) * 0.9 / math.hypot(0.35, 0.45)
    assert loaded.readings["sample"].d.low == pytest.approx(low, rel=1e-9)
    assert loaded.claimed_p is not None and loaded.claimed_p.bound == "<" and loaded.claimed_p.text == "< 0.001"
    assert loaded.d_consistent == check.d_consistent and list(loaded.readings) == ["sample", "population"]


def test_check_stats_cli_json_loads_back(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-stats", "--a", "72.5±0.3", "--b", "71.5±0.4", "--claimed-d", "5.0", "-f", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    (loaded,) = (StatsCheck.from_dict(item) for item in data)
    assert loaded.to_dict() == data[0] and loaded.d_consistent is False


# ------------------------------------------------------------------------------------------- refusals


@pytest.fixture(scope="module")
def every_result(
    bootstrap: PairedResult, dataset_tests: DatasetTests, semeval: dict[str, list[str]]
) -> dict[type, Any]:
    gold, a, b = semeval["key"], semeval["rbert"], semeval["cnn"]
    rep = analyze(dataset_tests.pvalues, names=dataset_tests.names)
    sim = simulate(20, seed=1)
    return {
        PairedResult: bootstrap,
        MetricComparison: bootstrap["micro"],
        DiscordantTest: mcnemar(gold, a, b),
        ClassicResult: paired_t([0.1, 0.5, 0.4], [0.2, 0.3, 0.1]),
        SeedComparison: compare_seeds([0.8, 0.82], [0.7, 0.75]),
        DatasetTests: dataset_tests,
        Identification: rep.identification,
        ReplicabilityResult: rep,
        ScenarioResult: sim.scenarios["independent"],
        SimulationResult: sim,
        StatsCheck: check_stats("72.5±0.3", "71.5±0.4", 5),
        PValueTable: PValueTable(["a", "b"], np.array([0.01, 0.2])),
    }


TYPES = [
    PairedResult,
    MetricComparison,
    DiscordantTest,
    ClassicResult,
    SeedComparison,
    DatasetTests,
    Identification,
    ReplicabilityResult,
    ScenarioResult,
    SimulationResult,
    StatsCheck,
    PValueTable,
]


@pytest.mark.parametrize("kind", TYPES, ids=lambda t: t.__name__)
def test_wrong_header_is_refused(kind: type, every_result: dict[type, Any]) -> None:
    data = every_result[kind].to_dict()
    assert kind.from_dict(data) == every_result[kind]
    with pytest.raises(ValueError, match=r"schema_version 2 is not 1"):
        kind.from_dict({**data, "schema_version": 2})
    with pytest.raises(ValueError, match=r"schema_version True is not 1"):
        kind.from_dict({**data, "schema_version": True})
    with pytest.raises(ValueError, match=r"schema_version None is not 1"):
        kind.from_dict({k: v for k, v in data.items() if k != "schema_version"})
    with pytest.raises(ValueError, match=rf"kind 'score' is not '{data['kind']}'"):
        kind.from_dict({**data, "kind": "score"})
    with pytest.raises(ValueError, match="expected a JSON object, got list"):
        kind.from_dict([data])  # type: ignore[arg-type]


def test_every_kind_is_distinct(every_result: dict[type, Any]) -> None:
    """A result of one kind is never read as another: the kinds differ."""
    kinds = [r.to_dict()["kind"] for r in every_result.values()]
    assert len(set(kinds)) == len(kinds)


@pytest.mark.parametrize(
    ("kind", "edit", "message"),
    [
        (ReplicabilityResult, lambda d: d.pop("datasets"), "replicability analysis: missing key 'datasets'"),
        (ReplicabilityResult, lambda d: d.update(dependence="any"), "dependence 'any' is not one of"),
        (PairedResult, lambda d: d.update(metric="nope"), "metric 'nope' is not among its rows"),
        (SeedComparison, lambda d: d.update(alternative="both"), "alternative 'both' is not one of"),
        (SimulationResult, lambda d: d.update(scenarios=[1]), "replicability simulation: malformed data"),
    ],
)
def test_broken_content_is_refused_with_its_place(
    kind: type, edit: Callable[[dict[str, Any]], Any], message: str, every_result: dict[type, Any]
) -> None:
    data = every_result[kind].to_dict()
    edit(data)
    with pytest.raises(ValueError, match=message):
        kind.from_dict(data)


def test_one_schema_version() -> None:
    """core.schema (readable from every layer) and result.py agree on the version."""
    assert schema.SCHEMA_VERSION == SCHEMA_VERSION


# ------------------------------------------------------------------------------------------- properties

p_values = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    p=st.lists(p_values, min_size=1, max_size=25),
    alpha=st.floats(min_value=0.001, max_value=0.5),
    dependence=st.sampled_from(DEPENDENCES),
    method=st.sampled_from(sorted(ID_GUARANTEE)),
    estimators=st.lists(st.sampled_from(PC_METHODS), min_size=1, unique=True),
    with_effects=st.booleans(),
    data=st.data(),
)
def test_any_analysis_roundtrips(
    p: list[float],
    alpha: float,
    dependence: str,
    method: str,
    estimators: list[str],
    with_effects: bool,
    data: st.DataObject,
) -> None:
    """Any p-values, alpha, assumption, procedure and estimators: the analysis loads back equal (strict JSON too)."""
    effects = None
    if with_effects:
        effect = st.floats(min_value=-10, max_value=10, allow_nan=False)
        effects = data.draw(st.lists(effect, min_size=len(p), max_size=len(p)))
    result = analyze(p, alpha, effects=effects, dependence=dependence, method=method, pc_methods=estimators)
    loaded = roundtrip(result)
    assert list(loaded.pvalues) == p and loaded.k == result.k


runs = st.lists(st.floats(min_value=0.0, max_value=1.0, allow_nan=False), min_size=2, max_size=8)


@settings(max_examples=60, deadline=None)
@given(a=runs, b=runs, alternative=st.sampled_from(("two-sided", "greater", "less")))
@example(a=[0.0, 0.0], b=[0.0, 3.1349310580278698e-102], alternative="two-sided")  # squared SDs underflowed
@example(a=[0.0, 1e-170], b=[2e-170, 5e-170], alternative="less")  # so did the squared deviations
def test_any_seed_comparison_roundtrips(a: list[float], b: list[float], alternative: str) -> None:
    """Any runs that can be compared (constant runs with different means are refused) load back equal; runs of
    tiny scores give the statistics of the same runs scaled up (t, df, p and d do not depend on the scale)."""
    try:
        result = compare_seeds(a, b, alternative)
    except InputError:
        assume(False)
        return
    roundtrip(result)
    scale = max(max(map(abs, a)), max(map(abs, b)))
    # Subnormal values (below 2.2e-308) have lost digits already: the same runs scaled up are other runs.
    normal = all(x == 0 or abs(x) >= sys.float_info.min for x in (*a, *b))
    if result.note is None and 0 < scale < 1e-100 and normal:
        big = compare_seeds([x / scale for x in a], [x / scale for x in b], alternative)
        assert (result.t, result.df, result.p_value) == pytest.approx((big.t, big.df, big.p_value), rel=1e-9)
        assert result.cohen_d == pytest.approx(big.cohen_d, rel=1e-9)
