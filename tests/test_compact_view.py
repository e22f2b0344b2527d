"""Several systems print one line each (sacreBLEU-style), the per-class block on request (issue 14): the numbers
of each line are the systems' own averages, and no line runs past a terminal's width."""

from __future__ import annotations

from pathlib import Path

import pytest

import releval
from releval.report.results import render_results

ROOT = Path(__file__).resolve().parents[1]
KEY = ROOT / "examples" / "semeval2010_task8" / "test_key_directed.txt"
SYSTEMS = sorted((ROOT / "examples" / "semeval2010_task8").glob("onehaitao_*.txt"))
CONLL = ROOT / "examples" / "conll04" / "conll04_test_first30.json"


@pytest.fixture(scope="module")
def results() -> list[releval.ScoreResult]:
    return [releval.score(KEY, path) for path in SYSTEMS]


def test_one_line_per_system_with_every_average(results: list[releval.ScoreResult]) -> None:
    lines = render_results(results).splitlines()
    assert lines[:2] == [
        "== F1 (%) per average ==",
        "system              micro  weighted  dodrans  entropy  macro  accuracy",
    ]
    body = {line.split()[0]: line.split()[1:] for line in lines[3:8]}
    for r in results:
        expected = [f"{100 * r[a].f:.2f}" for a in ("micro", "weighted", "dodrans", "entropy", "macro")]
        assert body[r.system] == [*expected, f"{100 * r.accuracy:.2f}"]
    assert max(map(len, lines[:8])) <= 80
    # the five systems share one signature, printed once
    assert [line for line in lines if line.startswith("signature")] == [
        f"signature: {results[0].signature.format(short=True)}"
    ]


def test_per_class_on_request_and_for_one_system(results: list[releval.ScoreResult]) -> None:
    wide = render_results(results, per_class=True)
    assert "Cause-Effect(e1,e2)" in wide and "onehaitao_rbert P" in wide
    single = render_results(results[:1])
    assert "Cause-Effect(e1,e2)" in single and "== F1 (%) per average ==" not in single


def test_data_formats_keep_every_class_row(results: list[releval.ScoreResult]) -> None:
    csv = render_results(results, format="csv")
    assert sum(',class,"Cause-Effect(e1,e2)",' in line for line in csv.splitlines()) == len(results)


def test_end_to_end_systems_get_one_line_per_criterion() -> None:
    a, b = (releval.score_e2e(CONLL, CONLL, system=name) for name in ("a", "b"))
    lines = render_results([a, b]).splitlines()
    rows = [line.split()[:2] for line in lines[3:9]]
    assert rows == [
        ["a", "NER"],
        ["a", "Strict"],
        ["a", "Boundaries"],
        ["b", "NER"],
        ["b", "Strict"],
        ["b", "Boundaries"],
    ]
    assert sum(line.startswith("signature (") for line in lines) == 3  # one per criterion, shared by both systems
