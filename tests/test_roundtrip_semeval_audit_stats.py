"""Saved results load back: the SemEval official scorer's result, audit reports and their findings, comparisons of
saved results, claims checks, label statistics and end-to-end dataset statistics.

Each is built from the bundled examples through the public API, saved with `to_dict()`, and read back with
`from_dict()` equal to what was computed — directly, after a plain JSON round trip and after the strict JSON the
command line writes (NaN as null). A number checked by counting the example file independently survives, and a
reader refuses data of another schema version or another kind with a message that says so.
"""

from __future__ import annotations

import doctest
import json
import math
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import CONLL04_ALL_SPLITS, EXAMPLES, SEMEVAL_KEY, SEMEVAL_TRAIN_KEY, semeval_predictions

import releval
import releval.audit.findings
from releval.audit import audit
from releval.audit.claims import ClaimsCheck, ClaimVerdict, check_result
from releval.audit.comparability import Comparison, SavedResult, compare_files, compare_pair, load_results
from releval.audit.findings import SEVERITIES, AuditReport, Finding
from releval.cli import main
from releval.core.notices import RelevalWarning
from releval.core.signature import Signature
from releval.data.alignment import MISSING_LABEL
from releval.data.e2e import load_e2e
from releval.data.semeval_labels import DIRECTED, OTHER
from releval.dataset_stats.e2e_dataset import DatasetStats, SplitStats, dataset_stats
from releval.dataset_stats.label_distribution import LabelStats, label_stats
from releval.report.strict_json import dumps_strict
from releval.tasks.semeval_official import SemevalOfficialConfig, SemevalOfficialResult
from releval.tasks.semeval_official import score as score_semeval_task

CONLL04_FIRST30 = EXAMPLES / "conll04" / "conll04_test_first30.json"
N_DROPPED = 17  # key items left out of the prediction file in the examples below


def _round_trip(cls: Any, result: Any) -> Any:
    """`cls.from_dict` of `result.to_dict()` equals `result` as is, after plain JSON and after strict JSON; the
    strict copy is returned, so a test can look at what a saved file gives back."""
    data = result.to_dict()
    assert cls.from_dict(data) == result
    assert cls.from_dict(json.loads(json.dumps(data))) == result
    loaded = cls.from_dict(json.loads(dumps_strict(data)))
    assert loaded == result
    return loaded


def _key_items(path: Path = SEMEVAL_KEY) -> list[tuple[str, str]]:
    """(id, label) of every line of a `<id>\\t<label>` key, read without releval."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(i, label) for i, label in (line.split("\t") for line in lines if line.strip())]


def _quietly(call: Callable[[], Any]) -> Any:
    """The public API repeats a result's warnings through `warnings.warn`; the tests look at the result instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RelevalWarning)
        return call()


@pytest.fixture(scope="module")
def pred_without_tail(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The CNN's predictions without their last N_DROPPED lines: key items with no prediction."""
    lines = semeval_predictions("cnn").read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path_factory.mktemp("semeval") / "cnn_without_tail.txt"
    path.write_text("".join(lines[:-N_DROPPED]), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def leaky_pred(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The CNN's predictions without those of the first 40 gold-`Other` items (RECENT's leak pattern)."""
    other = [i for i, label in _key_items() if label == OTHER][:40]
    dropped = set(other)
    lines = semeval_predictions("cnn").read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path_factory.mktemp("audit") / "cnn_leaky.txt"
    path.write_text("".join(ln for ln in lines if ln.split("\t")[0] not in dropped), encoding="utf-8")
    return path


# ---------------------------------------------------------------- SemEval official scorer


def test_semeval_official_result_round_trips(pred_without_tail: Path) -> None:
    result = _quietly(lambda: releval.score_semeval_official(SEMEVAL_KEY, pred_without_tail, allow_skipped=True))
    loaded = _round_trip(SemevalOfficialResult, result)
    items = _key_items()
    positive = sum(label != OTHER for _, label in items)
    official = loaded.scores.official
    assert (official.n_total, official.n_proposed) == (len(items), len(items) - N_DROPPED) == (2717, 2700)
    assert official.micro.actual == positive  # every key item but the Others, skipped ones included
    assert loaded.scores.n_skipped == N_DROPPED
    assert loaded.official_score == result.official_score
    assert [(w.code, str(w)) for w in loaded.warnings] == [
        ("missing-skipped", f"{N_DROPPED} of 2717 key item(s) skipped (no prediction)")
    ]
    assert loaded.signature["missing"] == "skip"


def test_semeval_official_result_with_labels_absent_from_key() -> None:
    """A proposed label the key lacks (a direction too) is a column of its own and a coded warning; both survive."""
    key = {"1": "Cause-Effect(e1,e2)", "2": "Other", "3": "Cause-Effect(e1,e2)"}
    pred = {"1": "Cause-Effect(e1,e2)", "2": "Message-Topic(e1,e2)", "3": "Cause-Effect(e2,e1)"}
    result = score_semeval_task(key, pred)
    loaded = _round_trip(SemevalOfficialResult, result)
    assert loaded.scores.absent_from_key == {"Cause-Effect(e2,e1)": 1, "Message-Topic(e1,e2)": 1}
    assert loaded.scores.directed.columns[-2:] == ("Cause-Effect(e2,e1)", "Message-Topic(e1,e2)")
    assert [w.code for w in loaded.warnings] == ["label-absent-from-key"] * 2
    assert int(loaded.scores.official.wrong_direction.sum()) == 1


def test_semeval_official_cli_json_loads_back(tmp_path: Path) -> None:
    """What `releval score --task semeval-official -f json` writes (the envelope of every score: one result per
    system under "results") holds results `from_dict` reads."""
    out = tmp_path / "cnn.json"
    pred = semeval_predictions("cnn")
    assert main(["score", "--task", "semeval-official", "-f", "json", "-o", str(out), str(SEMEVAL_KEY), str(pred)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert (data["kind"], data["task"], len(data["results"])) == ("score", "semeval-official", 1)
    saved = SemevalOfficialResult.from_dict(data["results"][0])
    assert saved == releval.score_semeval_official(SEMEVAL_KEY, pred)


def test_semeval_equality_sees_a_changed_count(pred_without_tail: Path) -> None:
    """The views' arrays are compared by value: one changed confusion cell makes the results differ."""
    result = _quietly(lambda: releval.score_semeval_official(SEMEVAL_KEY, pred_without_tail, allow_skipped=True))
    data = json.loads(dumps_strict(result.to_dict()))
    data["views"]["official"]["confusion"][0][0] += 1
    assert SemevalOfficialResult.from_dict(data) != result


_directed = st.sampled_from(DIRECTED)


@st.composite
def _keys_and_proposals(draw: st.DrawFn) -> tuple[dict[str, str], dict[str, str]]:
    """A key with a relation besides Other and a proposal for some (at least one) of its items."""
    gold = draw(st.lists(_directed, min_size=1, max_size=40))
    if all(x == OTHER for x in gold):
        gold[0] = DIRECTED[0]
    pred = [draw(st.one_of(_directed, st.just(g), st.just(MISSING_LABEL))) for g in gold]
    if all(p == MISSING_LABEL for p in pred):
        pred[0] = gold[0]
    key = {str(i): g for i, g in enumerate(gold)}
    return key, {str(i): p for i, p in enumerate(pred) if p != MISSING_LABEL}


@settings(max_examples=60, deadline=None)
@given(_keys_and_proposals())
def test_any_semeval_official_result_round_trips(pair: tuple[dict[str, str], dict[str, str]]) -> None:
    result = score_semeval_task(*pair, SemevalOfficialConfig(on_missing="wrong"))
    _round_trip(SemevalOfficialResult, result)


# ---------------------------------------------------------------- audit


def test_audit_report_round_trips(leaky_pred: Path) -> None:
    report = audit(SEMEVAL_KEY, leaky_pred, train=SEMEVAL_TRAIN_KEY)
    loaded = _round_trip(AuditReport, report)
    n_other = sum(label == OTHER for _, label in _key_items())
    assert loaded.get("negative-class").count == n_other
    assert loaded.get("missing-predictions").count == 40
    share = loaded.get("missing-gold-negative-share")
    assert (share.severity, share.data["gold_negative"], share.data["filled"]) == ("error", 40, 40)
    policy = loaded.get("missing-policy-sensitivity")
    assert set(policy.data["wrong"]) == {"tp", "fp", "fn", "precision", "recall", "f"}
    assert policy.data["f_difference"] > 0  # filling the missing Others as Other inflates F1
    assert loaded.exit_status == 1 and loaded.inputs == report.inputs


def test_end_to_end_audit_report_round_trips() -> None:
    report = _quietly(lambda: audit(CONLL04_FIRST30, CONLL04_FIRST30))
    loaded = _round_trip(AuditReport, report)
    assert [f.code for f in loaded] == [f.code for f in report] and loaded.exit_status == report.exit_status == 0


def test_audit_cli_json_loads_back(leaky_pred: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    assert main(["audit", str(SEMEVAL_KEY), str(leaky_pred), "-f", "json", "-o", str(out)]) == 1
    saved = AuditReport.from_dict(json.loads(out.read_text(encoding="utf-8")))
    assert saved == audit(SEMEVAL_KEY, leaky_pred)


def test_finding_data_is_kept_as_json_reads_it() -> None:
    """Tuples, numpy numbers, integer keys and NaN become what JSON gives back, so a saved finding is equal."""
    import numpy as np

    f = Finding("x", "info", "m", data={"pair": ("a", 1), 3: np.float64(0.5), "nan": math.nan, "arr": np.arange(2)})
    assert f.data == {"pair": ["a", 1], "3": 0.5, "nan": None, "arr": [0, 1]}
    assert Finding.from_dict(json.loads(dumps_strict(f.to_dict()))) == f
    failed, attempted = doctest.testmod(releval.audit.findings)
    assert attempted > 0 and failed == 0


_json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8)
)
_json_like = st.recursive(
    _json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.text(max_size=5), st.integers()), inner, max_size=3),
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    st.text(min_size=1, max_size=12),
    st.sampled_from(SEVERITIES),
    st.text(max_size=40),
    st.none() | st.integers(min_value=0),
    st.lists(st.text(max_size=10), max_size=4),
    st.dictionaries(st.text(max_size=6), _json_like, max_size=4),
)
def test_any_finding_round_trips(
    code: str, severity: str, message: str, count: int | None, examples: list[str], data: dict[str, Any]
) -> None:
    finding = Finding(code, severity, message, count, examples, data)
    assert _round_trip(Finding, finding) == finding
    report = AuditReport([finding, finding], {"gold": "g", "pred": "p", "train": None})
    assert _round_trip(AuditReport, report).summary() == report.summary()


# ---------------------------------------------------------------- comparisons and claims


def _save(path: Path, result: Any) -> Path:
    path.write_text(dumps_strict(result.to_dict()), encoding="utf-8")
    return path


def test_comparisons_round_trip(pred_without_tail: Path, tmp_path: Path) -> None:
    """The leaky and the corrected scoring of the same predictions: not comparable, the policies differ."""
    leaky = _quietly(lambda: releval.score(SEMEVAL_KEY, pred_without_tail, on_missing="negative"))
    fixed = _quietly(lambda: releval.score(SEMEVAL_KEY, pred_without_tail, on_missing="wrong"))
    other = _quietly(lambda: releval.score(SEMEVAL_KEY, semeval_predictions("rbert")))
    paths = [_save(tmp_path / f"{n}.json", r) for n, r in (("leaky", leaky), ("fixed", fixed), ("rbert", other))]
    comparisons = compare_files(paths)
    assert len(comparisons) == 3
    for c in comparisons:
        _round_trip(Comparison, c)
    loaded = Comparison.from_dict(json.loads(dumps_strict(comparisons[0].to_dict())))
    assert (loaded.a, loaded.b, loaded.verdict) == ("leaky.json", "fixed.json", "not comparable")
    assert loaded.differences["missing"] == ("negative", "wrong")


def test_audit_compare_cli_json_loads_back(pred_without_tail: Path, tmp_path: Path) -> None:
    a = _save(tmp_path / "a.json", _quietly(lambda: releval.score(SEMEVAL_KEY, pred_without_tail, on_missing="wrong")))
    b = _save(tmp_path / "b.json", releval.score(SEMEVAL_KEY, semeval_predictions("rbert")))
    out = tmp_path / "compared.json"
    assert main(["audit", "compare", str(a), str(b), "-f", "json", "-o", str(out)]) == 1
    saved = [Comparison.from_dict(c) for c in json.loads(out.read_text(encoding="utf-8"))]
    assert saved == compare_files([a, b])


_settings = st.fixed_dictionaries(
    {},
    optional={
        "task": st.sampled_from(["rc", "e2e"]),
        "criterion": st.sampled_from(["strict", "boundaries"]),
        "negative": st.sampled_from(["no_relation", "none"]),
        "average": st.sampled_from(["micro", "micro,macro"]),
        "missing": st.sampled_from(["negative", "wrong"]),
        "entropy_n": st.sampled_from(["all", "positive"]),
        "seed": st.integers(0, 3),
    },
)


@settings(max_examples=100, deadline=None)
@given(_settings, _settings, st.sampled_from([None, "conll04", "ace05"]))
def test_any_comparison_round_trips(a: dict[str, Any], b: dict[str, Any], dataset: str | None) -> None:
    left = SavedResult("a.json", "a.json", Signature.build(**a), {})
    right = SavedResult("b.json", "b.json", Signature.build(**b), {})
    _round_trip(Comparison, compare_pair(left, right, dataset))


def test_claims_check_round_trips(tmp_path: Path) -> None:
    result = releval.score(SEMEVAL_KEY, semeval_predictions("rbert"))
    path = _save(tmp_path / "rbert.json", result)
    checked = check_result(load_results(path))
    assert checked.dataset == "semeval" and checked.verdicts
    loaded = _round_trip(ClaimsCheck, checked)
    dataset, verdicts = loaded  # still a (dataset, verdicts) pair
    mine = [v.yours for v in verdicts if v.yours is not None]
    assert mine and set(mine) <= {100 * result["micro"].f, 100 * result["macro"].f}
    for v in checked.verdicts:
        assert ClaimVerdict.from_dict(json.loads(json.dumps(v.to_dict()))) == v


def test_claims_check_cli_json_loads_back(tmp_path: Path) -> None:
    path = _save(tmp_path / "rbert.json", releval.score(SEMEVAL_KEY, semeval_predictions("rbert")))
    out = tmp_path / "claims.json"
    assert main(["claims", "check", str(path), "-f", "json", "-o", str(out)]) == 0
    saved = ClaimsCheck.from_dict(json.loads(out.read_text(encoding="utf-8")))
    assert saved == check_result(load_results(path))


# ---------------------------------------------------------------- statistics


def test_label_stats_round_trip() -> None:
    labels = [label for _, label in _key_items()]
    stats = label_stats(str(SEMEVAL_KEY), labels, OTHER)
    loaded = _round_trip(LabelStats, stats)
    counts = Counter(labels)
    assert (loaded.n_samples, loaded.n_negative, loaded.n_labels) == (2717, counts[OTHER], 19)
    assert loaded.counts == counts
    assert loaded.ratio == max(n for label, n in counts.items() if label != OTHER) / min(
        n for label, n in counts.items() if label != OTHER
    )


def test_label_stats_without_a_positive_class_round_trip() -> None:
    """The ratio is undefined (NaN): strict JSON writes null, which reads back as NaN, equal to NaN."""
    stats = label_stats("only-negatives", ["Other"] * 3, "Other")
    assert math.isnan(stats.ratio)
    assert json.loads(dumps_strict(stats.to_dict()))["ratio"] is None
    assert math.isnan(_round_trip(LabelStats, stats).ratio)


def test_stats_cli_json_rows_load_back(capsys: pytest.CaptureFixture[str]) -> None:
    """Each row `releval stats -f json` prints is label statistics (its `view` key aside)."""
    assert main(["stats", str(SEMEVAL_KEY), "--view", "directed", "-f", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["view"] == "directed"
    assert LabelStats.from_dict(row) == label_stats(
        str(SEMEVAL_KEY), [label for _, label in _key_items()], OTHER, "directed"
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "neg"]), max_size=30), st.sampled_from([None, "neg", "a"]))
def test_any_label_stats_round_trip(labels: list[str], negative: str | None) -> None:
    _round_trip(LabelStats, label_stats("file", labels, negative))


def test_dataset_stats_round_trip() -> None:
    stats = dataset_stats(load_e2e(CONLL04_ALL_SPLITS))
    loaded = _round_trip(DatasetStats, stats)
    splits = json.loads(CONLL04_ALL_SPLITS.read_text(encoding="utf-8"))
    for split in loaded.splits:
        docs = splits[split.name]
        counted = (len(docs), sum(len(d["entities"]) for d in docs), sum(len(d["relations"]) for d in docs))
        assert (split.sentences, split.entities, split.relations) == counted
    assert (loaded.total.sentences, loaded.total.entities, loaded.total.relations) == (1441, 5349, 2048)
    assert loaded.total.argument_types == stats.total.argument_types and loaded.total.bijective is True
    for split in stats.splits:
        assert SplitStats.from_dict(json.loads(json.dumps(split.to_dict()))) == split


def test_stats_cli_json_of_an_e2e_file_loads_back(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(CONLL04_FIRST30), "-f", "json"]) == 0
    saved = DatasetStats.from_dict(json.loads(capsys.readouterr().out))
    assert saved == dataset_stats(load_e2e(CONLL04_FIRST30))


# ---------------------------------------------------------------- refusals


def _examples() -> dict[str, tuple[Any, dict[str, Any]]]:
    """One saved result of every top-level kind, with the class that reads it."""
    key = {"1": "Cause-Effect(e1,e2)", "2": "Other"}
    finding = Finding("negative-class", "info", "m", 1)
    comparison = compare_pair(
        SavedResult("a", "a", Signature.build(task="rc"), {}), SavedResult("b", "b", Signature.build(task="e2e"), {})
    )
    results: dict[str, tuple[Any, Any]] = {
        "semeval-official": (SemevalOfficialResult, score_semeval_task(key, key)),
        "audit": (AuditReport, AuditReport([finding], {"gold": "g", "pred": "p"})),
        "comparison": (Comparison, comparison),
        "claims-check": (ClaimsCheck, ClaimsCheck(None, [])),
        "label-stats": (LabelStats, label_stats("f", ["a", "b"], None)),
        "e2e-dataset-stats": (DatasetStats, dataset_stats(load_e2e(CONLL04_FIRST30))),
    }
    return {kind: (cls, result.to_dict()) for kind, (cls, result) in results.items()}


EXAMPLE_KINDS = list(_examples())


@pytest.mark.parametrize("kind", EXAMPLE_KINDS)
def test_to_dict_starts_with_schema_version_and_kind(kind: str) -> None:
    _, data = _examples()[kind]
    assert list(data)[:2] == ["schema_version", "kind"] and data["kind"] == kind and data["schema_version"] == 1


@pytest.mark.parametrize("kind", EXAMPLE_KINDS)
def test_from_dict_refuses_another_schema_version(kind: str) -> None:
    cls, data = _examples()[kind]
    with pytest.raises(ValueError, match="schema_version 2 is not 1"):
        cls.from_dict({**data, "schema_version": 2})
    with pytest.raises(ValueError, match="schema_version None is not 1"):
        cls.from_dict({k: v for k, v in data.items() if k != "schema_version"})
    with pytest.raises(ValueError, match="expected a JSON object"):
        cls.from_dict([data])


@pytest.mark.parametrize("kind", EXAMPLE_KINDS)
def test_from_dict_refuses_another_kind(kind: str) -> None:
    examples = _examples()
    cls, _ = examples[kind]
    for other, (_, data) in examples.items():
        if other != kind:
            with pytest.raises(ValueError, match=f"kind '{other}' is not '{kind}'"):
                cls.from_dict(data)


REQUIRED = {
    "semeval-official": ("views", "SemEval official result"),
    "audit": ("findings", "audit report"),
    "comparison": ("verdict", "comparison"),
    "claims-check": ("claims", "claims check"),
    "label-stats": ("counts", "label statistics"),
    "e2e-dataset-stats": ("splits", "end-to-end dataset statistics"),
}


@pytest.mark.parametrize("kind", EXAMPLE_KINDS)
def test_from_dict_names_a_missing_key(kind: str) -> None:
    """A damaged file is a ValueError that says what was being read, not a bare KeyError."""
    cls, data = _examples()[kind]
    key, what = REQUIRED[kind]
    with pytest.raises(ValueError, match=f"^{what}: missing key '{key}'"):
        cls.from_dict({k: v for k, v in data.items() if k != key})
