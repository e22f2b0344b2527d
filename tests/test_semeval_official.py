"""The SemEval-2010 Task 8 official score against the perl scorer v1.2's own outputs.

Oracles: the scorer's printed result_scores*.txt (every number parsed by regex, and the whole text), the
scorer's outputs on constructed cases (testvectors/semeval2010_scorer_vectors.json), the official macro-F1 of
five real systems (tests/data/README.md), scikit-learn for the directed view, and properties.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import precision_recall_fscore_support
from tests.conftest import SEMEVAL_KEY, SEMEVAL_TRAIN_KEY, data_path, semeval_predictions

import releval
from releval.api import score_semeval_official
from releval.cli import main
from releval.core.errors import RelevalError
from releval.data.alignment import MISSING_LABEL
from releval.data.semeval_labels import DIRECTED, OTHER, undirected
from releval.metrics.semeval import SemevalView, semeval_scores
from releval.report.semeval_report import render_scores, short_name

SEMEVAL = data_path("semeval2010_task8")
EXAMPLES = SEMEVAL / "scorer_examples"  # answer_key2.txt, the training set's key, is SEMEVAL_TRAIN_KEY (examples/)
VECTORS = data_path("testvectors", "semeval2010_scorer_vectors.json")
VIEW_OF_SECTION = {"i_19way_directed": "directed", "ii_10way_undirected": "undirected", "iii_official": "official"}


def _pct(x: float) -> str:
    return f"{x:.2f}"


# ---------------------------------------------------------------- result_scores*.txt, parsed number by number

_NUM = r"\s*(\d+)"
_PCT = r"\s*([\d.]+)%"
_ROW = re.compile(r"^\s*(\S+) \|((?:\s*\d+)*)\s*\|((?:\s*\d+)+)$")
_SUM = re.compile(r"^ -SUM-((?:\s*\d+)+)$")
_COVERAGE = re.compile(rf"^Coverage ={_NUM}/(\d+) ={_PCT}$")
_ACCURACY = re.compile(rf"^Accuracy \((.+?)\) ={_NUM}/(\d+) ={_PCT}$")
_REL = re.compile(
    rf"^\s*(\S+) :    P ={_NUM}/(?:\(\s*(\d+) \+\s*(\d+)\)|\s*(\d+)) ={_PCT}     R ={_NUM}/{_NUM} ={_PCT}"
    rf"     F1 ={_PCT}$"
)
_MICRO = re.compile(rf"^P ={_NUM}/{_NUM} ={_PCT}     R ={_NUM}/{_NUM} ={_PCT}     F1 ={_PCT}$")
_MACRO = re.compile(rf"^P ={_PCT}\tR ={_PCT}\tF1 ={_PCT}$")
_WARNING = re.compile(r"^!!!WARNING!!! The proposed file contains (\d+) label\(s\) of type '(.+)', which is NOT")
_OFFICIAL = re.compile(r"macro-averaged F1 =\s*([\d.]+)% >>>$")


def _parse_block(lines: list[str]) -> dict:
    """Every number of one evaluation block of the perl output."""
    out: dict = {"rows": [], "relations": [], "accuracy": {}}
    section = None
    for line in lines:
        if line.startswith("Micro-averaged"):
            section = "micro"
            continue
        if line.startswith("MACRO-averaged"):
            section = "macro"
            continue
        if line.endswith("<-- classified as"):
            out["columns"] = line.split("<--")[0].split()
        elif m := _ROW.match(line):
            out["rows"].append((m.group(1), [int(x) for x in m.group(2).split()], [int(x) for x in m.group(3).split()]))
        elif m := _SUM.match(line):
            out["sum"] = [int(x) for x in m.group(1).split()]
        elif m := _COVERAGE.match(line):
            out["coverage"] = (int(m.group(1)), int(m.group(2)), m.group(3))
        elif m := _ACCURACY.match(line):
            out["accuracy"][m.group(1)] = (int(m.group(2)), int(m.group(3)), m.group(4))
        elif m := _REL.match(line):
            g = m.groups()
            den = (int(g[2]), int(g[3])) if g[2] is not None else (int(g[4]), 0)
            out["relations"].append((g[0], int(g[1]), den, g[5], int(g[6]), int(g[7]), g[8], g[9]))
        elif section == "micro" and (m := _MICRO.match(line)):
            out["micro"] = m.groups()
        elif section == "macro" and (m := _MACRO.match(line)):
            out["macro"] = m.groups()
    return out


def _parse_result_file(text: str) -> tuple[list[tuple[int, str]], dict[str, dict], str]:
    lines = text.replace("\r\n", "\n").split("\n")
    warnings = [(int(m.group(1)), m.group(2)) for ln in lines if (m := _WARNING.match(ln))]
    starts = [i for i, ln in enumerate(lines) if ln.startswith("<<< (")]
    assert len(starts) == 3
    bounds = [*starts, len(lines)]
    blocks = {
        name: _parse_block(lines[bounds[k] : bounds[k + 1]])
        for k, name in enumerate(("directed", "undirected", "official"))
    }
    official = next(m.group(1) for ln in lines if (m := _OFFICIAL.search(ln)))
    return warnings, blocks, official


def _check_block(view: SemevalView, parsed: dict) -> int:
    """Assert every parsed number equals releval's; returns how many numbers were compared."""
    n = 0
    assert parsed["columns"] == [short_name(c, view.labels) for c in view.columns]
    assert len(parsed["rows"]) == len(view.labels)
    for i, (name, cells, tail) in enumerate(parsed["rows"]):
        assert name == short_name(view.labels[i], view.labels)
        assert cells == view.confusion[i].tolist()
        expected_tail = [int(view.confusion[i].sum())]
        if view.uses_wrong_direction:
            expected_tail.append(int(view.wrong_direction[i]))
        expected_tail += [int(view.skipped[i]), int(view.actual[i])]
        assert tail == expected_tail
        n += len(cells) + len(tail)
    wrong = int(view.wrong_direction.sum())
    skipped = view.n_total - view.n_proposed
    tail = [view.n_proposed - wrong, wrong] if view.uses_wrong_direction else [view.n_proposed]
    assert parsed["sum"] == [*view.column_totals.tolist(), *tail, skipped, view.n_total]
    assert parsed["coverage"] == (view.n_proposed, view.n_total, _pct(view.coverage))
    acc = parsed["accuracy"]
    assert acc["calculated for the above confusion matrix"] == (view.n_correct, view.n_proposed, _pct(view.accuracy))
    assert acc["considering all skipped examples as Wrong"] == (
        view.n_correct,
        view.n_total,
        _pct(view.accuracy_skipped_wrong),
    )
    assert acc["considering all skipped examples as Other"] == (
        view.n_correct + view.other_skipped,
        view.n_total,
        _pct(view.accuracy_skipped_other),
    )
    assert len(parsed["relations"]) == len(view.labels)
    for i, (label, c, (prop, xdir), p, c2, actual, r, f) in enumerate(parsed["relations"]):
        assert label == ("_Other" if view.labels[i] == OTHER else view.labels[i])
        assert (c, c2, actual, r, f) == (
            int(view.correct[i]),
            int(view.correct[i]),
            int(view.actual[i]),
            _pct(view.recall[i]),
            _pct(view.f1[i]),
        )
        assert prop + xdir == int(view.p_denominator[i])
        assert p == _pct(view.precision[i])
        if view.uses_wrong_direction:
            assert (prop, xdir) == (int(view.proposed[i]), int(view.wrong_direction[i]))
    mi = view.micro
    assert parsed["micro"] == (
        str(mi.correct),
        str(mi.proposed),
        _pct(mi.precision),
        str(mi.correct),
        str(mi.actual),
        _pct(mi.recall),
        _pct(mi.f1),
    )
    assert parsed["macro"] == (_pct(view.macro_precision), _pct(view.macro_recall), _pct(view.macro_f1))
    return n + len(parsed["sum"]) + 9 + 8 * len(view.labels) + 10


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_every_number_of_the_scorers_example_outputs(k: int) -> None:
    expected_text = (EXAMPLES / f"result_scores{k}.txt").read_text()
    key = SEMEVAL_TRAIN_KEY if k == 2 else EXAMPLES / f"answer_key{k}.txt"
    result = score_semeval_official(key, EXAMPLES / f"proposed_answer{k}.txt", True)
    warnings, blocks, official = _parse_result_file(expected_text)
    assert warnings == [(n, "_Other" if lbl == OTHER else lbl) for lbl, n in result.scores.absent_from_key.items()]
    compared = sum(_check_block(v, blocks[v.name]) for v in result.scores.views)
    assert compared > 50
    assert official == _pct(result.official_score)
    # and the whole layout, line for line
    assert render_scores(result.scores) == expected_text.replace("\r\n", "\n")


def test_example_1_hand_checked_values() -> None:
    """A few values read off result_scores1.txt by eye, independently of the parser."""
    s = score_semeval_official(EXAMPLES / "answer_key1.txt", EXAMPLES / "proposed_answer1.txt", True).scores
    assert _pct(s.official_score) == "64.09"
    assert (_pct(s.directed.macro_f1), _pct(s.undirected.macro_f1)) == ("54.49", "72.20")
    ce = s.official.per_relation("Cause-Effect")
    assert (ce.correct, ce.proposed, ce.actual) == (2, 3, 6)
    assert int(s.official.wrong_direction.sum()) == 3 and s.n_skipped == 10
    assert (s.official.micro.correct, s.official.micro.proposed, s.official.micro.actual) == (16, 21, 33)


def test_example_2_training_key_with_skips() -> None:
    s = score_semeval_official(SEMEVAL_TRAIN_KEY, EXAMPLES / "proposed_answer2.txt", True).scores
    assert (s.official.n_proposed, s.official.n_total) == (7947, 8000)


# ---------------------------------------------------------------- constructed cases run through the perl scorer


def _vector_cases() -> list[dict]:
    return json.loads(VECTORS.read_text())["cases"]


@pytest.mark.parametrize("case", _vector_cases(), ids=lambda c: c["id"])
def test_scorer_vectors(case: dict) -> None:
    gold, proposed = case["answer_key"], case["proposed"]
    result = score_semeval_official(gold, proposed, allow_skipped=len(proposed) < len(gold))
    s = result.scores
    exp = case["expected"]
    assert _pct(s.official_score) == _pct(exp["official_score"])
    if "warnings" in exp:
        got = [
            f"!!!WARNING!!! The proposed file contains {n} label(s) of type '{lbl}', which is NOT present in the "
            "key file."
            for lbl, n in s.absent_from_key.items()
        ]
        assert got == exp["warnings"]
    else:
        assert s.absent_from_key == {}
    for section, name in VIEW_OF_SECTION.items():
        view, e = getattr(s, name), exp[section]
        assert [view.n_proposed, view.n_total] == e["coverage"]
        assert _pct(view.accuracy) == _pct(e["accuracy_on_proposed"])
        assert _pct(view.accuracy_skipped_wrong) == _pct(e["accuracy_skipped_wrong"])
        assert _pct(view.accuracy_skipped_other) == _pct(e["accuracy_skipped_other"])
        assert [("_Other" if x == OTHER else x) for x in view.labels] == list(e["per_class"])
        for label, row in zip(view.labels, e["per_class"].values()):
            got = view.per_relation(label)
            assert (got.correct, got.proposed, got.actual) == (row["correct"], row["p_denominator"], row["gold"])
            assert (_pct(got.precision), _pct(got.recall), _pct(got.f1)) == (
                _pct(row["P"]),
                _pct(row["R"]),
                _pct(row["F1"]),
            )
            if "wrong_direction" in row:
                i = view.labels.index(label)
                assert (int(view.proposed[i]), int(view.wrong_direction[i])) == (
                    row["proposed"],
                    row["wrong_direction"],
                )
        mi, em = view.micro, e["micro_excl_other"]
        assert (mi.correct, mi.proposed, mi.actual) == (em["correct"], em["proposed"], em["gold"])
        assert (_pct(mi.precision), _pct(mi.recall), _pct(mi.f1)) == (_pct(em["P"]), _pct(em["R"]), _pct(em["F1"]))
        ema = e["macro_excl_other"]
        assert (_pct(view.macro_precision), _pct(view.macro_recall), _pct(view.macro_f1)) == (
            _pct(ema["P"]),
            _pct(ema["R"]),
            _pct(ema["F1"]),
        )


def _error_case(case_id: str) -> dict:
    return next(c for c in json.loads(VECTORS.read_text())["error_cases"] if c["id"] == case_id)


@pytest.mark.parametrize("case_id", ["duplicate_id", "unknown_id", "bad_label_space", "space_separator"])
def test_inputs_the_scorer_rejects_are_errors(case_id: str, tmp_path: Path) -> None:
    case = _error_case(case_id)
    key, prop = tmp_path / "key.txt", tmp_path / "prop.txt"
    key.write_bytes(case["answer_key_text"].encode())
    prop.write_bytes(case["proposed_text"].encode())
    with pytest.raises(RelevalError, match="prop.txt"):
        score_semeval_official(key, prop, allow_skipped=True)


def test_crlf_scores_as_lf_and_missing_final_newline_is_accepted(tmp_path: Path) -> None:
    """CRLF is fine for the scorer too; a last line without newline, which perl rejects, releval reads (by choice)."""
    case = _error_case("crlf_ok")
    results = []
    for name, key_text, prop_text in [
        ("crlf", case["answer_key_text"], case["proposed_text"]),
        ("lf", case["answer_key_text"].replace("\r\n", "\n"), case["proposed_text"].replace("\r\n", "\n")),
        ("no-final-newline", "1\tOther\n2\tCause-Effect(e1,e2)\n", "1\tOther\n2\tCause-Effect(e1,e2)"),
    ]:
        (tmp_path / f"{name}.key").write_bytes(key_text.encode())
        (tmp_path / f"{name}.prop").write_bytes(prop_text.encode())
        results.append(
            render_scores(score_semeval_official(tmp_path / f"{name}.key", tmp_path / f"{name}.prop").scores)
        )
    assert results[0] == results[1] == results[2]
    assert "macro-averaged F1 = 100.00% >>>" in results[0]


def test_undirected_key_is_refused() -> None:
    """TEST_FILE_KEY.TXT (its first 10 lines) has undirected labels: the official score cannot be computed from it."""
    key = SEMEVAL / "TEST_FILE_KEY_first10.TXT"
    message = r"TEST_FILE_KEY_first10.TXT:1: field 'label': 'Message-Topic' is not one of the 19"
    with pytest.raises(RelevalError, match=message):
        score_semeval_official(key, SEMEVAL_KEY)


def test_skipped_ids_need_allow_skipped() -> None:
    with pytest.raises(RelevalError, match="1 gold item"):
        score_semeval_official({"1": "Other", "2": "Cause-Effect(e1,e2)"}, {"1": "Other"})
    s = score_semeval_official({"1": "Other", "2": "Cause-Effect(e1,e2)"}, {"1": "Other"}, allow_skipped=True)
    assert s.signature["missing"] == "skip" and s.scores.n_skipped == 1
    assert (s.scores.official.micro.recall, s.scores.official.micro.precision) == (0.0, 0.0)
    assert s.scores.official.accuracy_skipped_other == 50.0


# ---------------------------------------------------------------- real systems (data/README.md)

OFFICIAL_MACRO_F1 = {"rbert": "89.06", "crcnn": "83.27", "attblstm": "83.13", "attcnn": "81.56", "cnn": "79.26"}


@pytest.mark.parametrize("system", list(OFFICIAL_MACRO_F1))
def test_real_systems_official_macro_f1(system: str) -> None:
    result = score_semeval_official(SEMEVAL_KEY, semeval_predictions(system))
    assert _pct(result.official_score) == OFFICIAL_MACRO_F1[system]
    assert result.signature["n"] == "2717" and result.signature["task"] == "semeval-official"


def test_rbert_directed_view_and_blocks_key() -> None:
    """Metrics notes §1.3: RBERT directed micro 89.48 and macro 82.81; the 4-line-block key gives the same."""
    s = score_semeval_official(SEMEVAL / "TEST_FILE_FULL.TXT", semeval_predictions("rbert")).scores
    assert (_pct(s.directed.micro.f1), _pct(s.directed.macro_f1), _pct(s.official_score)) == ("89.48", "82.81", "89.06")


# ---------------------------------------------------------------- CLI (the task through `score`)


def test_cli_perl_report_json_and_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    key, prop = str(EXAMPLES / "answer_key1.txt"), str(EXAMPLES / "proposed_answer1.txt")
    assert main(["score", "--task", "semeval-official", key, prop]) == 2  # 10 skipped ids, strict by default
    assert "10 gold item(s) have no prediction" in capsys.readouterr().err
    assert main(["score", "--task", "semeval-official", "--on-missing", "wrong", "--perl-report", key, prop]) == 0
    captured = capsys.readouterr()
    # stdout is the perl scorer's own output, byte for byte; the signature and the warning go to stderr
    assert captured.out == (EXAMPLES / "result_scores1.txt").read_text().replace("\r\n", "\n")
    warning, signature = captured.err.splitlines()  # "Coverage = 30/40" in result_scores1.txt: 10 skipped
    assert warning == ("warning (proposed_answer1): 10 of 40 key item(s) skipped (no prediction)")
    assert re.fullmatch(
        r"signature: t:semeval-official\|v:official\|neg:Other\|avg:macro\|miss:skip\|lab:[0-9a-f]{8}\|"
        rf"gold:[0-9a-f]{{8}}\|n:40\|ver:{re.escape(releval.__version__)}",
        signature,
    )
    out_json = tmp_path / "r.json"
    rc = main(
        ["score", "--task", "semeval-official", "--on-missing", "wrong", "-f", "json", "-o", str(out_json), key, prop]
    )
    assert rc == 0
    data = json.loads(out_json.read_text())
    assert (data["kind"], data["task"], len(data["results"])) == ("score", "semeval-official", 1)
    result = data["results"][0]
    assert _pct(result["official_score"]) == "64.09"
    assert result["views"]["official"]["wrong_direction"][0] == 1  # Cause-Effect row of result_scores1.txt
    assert result["views"]["directed"]["micro_excluding_other"]["proposed"] == 21
    assert result["warnings"] == [
        {
            "code": "missing-skipped",
            "message": "10 of 40 key item(s) skipped (no prediction)",
        }
    ]
    bad = tmp_path / "bad.json"
    rc = main(
        [
            "score",
            "--task",
            "semeval-official",
            "-f",
            "json",
            "-o",
            str(bad),
            key,
            str(EXAMPLES / "proposed_answer4.txt"),
        ]
    )
    assert rc == 2 and not bad.exists()
    err = capsys.readouterr().err
    assert "4 input problem(s)" in err and "proposed_answer4.txt:7: field 'id'" in err


# ---------------------------------------------------------------- properties

_directed = st.sampled_from(DIRECTED)


@st.composite
def _pairs(draw: st.DrawFn, right_direction: bool) -> tuple[list[str], list[str]]:
    gold = draw(st.lists(_directed, min_size=1, max_size=60))
    if all(x == OTHER for x in gold):
        gold[0] = DIRECTED[0]
    pred = []
    for g in gold:
        p = draw(st.one_of(_directed, st.just(g), st.just(MISSING_LABEL)))
        if right_direction and p != MISSING_LABEL and undirected(p) == undirected(g):
            p = g
        pred.append(p)
    if all(p == MISSING_LABEL for p in pred):
        pred[0] = gold[0]
    return gold, pred


@settings(max_examples=200, deadline=None)
@given(_pairs(right_direction=True))
def test_official_equals_undirected_when_every_direction_is_right(pair: tuple[list[str], list[str]]) -> None:
    s = semeval_scores(*pair)
    assert s.official.macro_f1 == s.undirected.macro_f1
    assert (s.official.macro_precision, s.official.macro_recall) == (
        s.undirected.macro_precision,
        s.undirected.macro_recall,
    )
    assert np.array_equal(s.official.confusion, s.undirected.confusion)
    assert int(s.official.wrong_direction.sum()) == 0


@settings(max_examples=200, deadline=None)
@given(_pairs(right_direction=False))
def test_directed_view_matches_sklearn_and_official_is_bounded(pair: tuple[list[str], list[str]]) -> None:
    """With no skips and only key labels predicted, view (i) is sklearn's P/R/F over the key's labels."""
    gold, pred = pair
    s = semeval_scores(gold, pred)
    assert s.official.macro_recall <= s.undirected.macro_recall + 1e-9
    assert np.array_equal(s.official.correct + s.official.wrong_direction, s.undirected.correct)
    key = set(gold)
    if MISSING_LABEL in pred or not set(pred) <= key:
        return
    labels = list(s.directed.labels)
    p, r, f, _ = precision_recall_fscore_support(gold, pred, labels=labels, average=None, zero_division=0)
    np.testing.assert_allclose(s.directed.precision, 100 * p, atol=1e-9)
    np.testing.assert_allclose(s.directed.recall, 100 * r, atol=1e-9)
    np.testing.assert_allclose(s.directed.f1, 100 * f, atol=1e-9)
    positive = [x for x in labels if x != OTHER]
    mp, mr, mf, _ = precision_recall_fscore_support(gold, pred, labels=positive, average="micro", zero_division=0)
    np.testing.assert_allclose([s.directed.micro.precision, s.directed.micro.recall], [100 * mp, 100 * mr], atol=1e-9)
    np.testing.assert_allclose(s.directed.micro.f1, 100 * mf, atol=1e-9)
    _, _, macro_f, _ = precision_recall_fscore_support(gold, pred, labels=positive, average="macro", zero_division=0)
    np.testing.assert_allclose(s.directed.macro_f1, 100 * macro_f, atol=1e-9)
