"""Every number on the board equals what `releval score` and `releval compare` print for the same files.

A real `releval serve` with the bundled SemEval-2010 Task 8 benchmark and its five real systems, on SQLite and
on PostgreSQL; the reference numbers come from the command line run on the example files:
* F of every (entry, measure): `releval score KEY PRED… -f json`;
* each cell's interval: system A's interval in `releval compare KEY -s a=PRED -s b=PRED -R 1000 -f json`;
* each tie p-value: the bootstrap p of `releval compare KEY -s best=… -s entry=… -R 1000`, Holm-adjusted across
  the four entries by statsmodels (an independent implementation);
* each cell's signature: the comparison's signature with `average` naming the one measure.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from statsmodels.stats.multitest import multipletests
from tests.conftest import SEMEVAL_KEY, semeval_predictions
from tests.service.boards import BACKENDS, running_board

SYSTEMS = {
    "CNN (Zeng et al. 2014)": "cnn",
    "CR-CNN (dos Santos et al. 2015)": "crcnn",
    "Att-CNN (Shen and Huang 2016)": "attcnn",
    "Att-BLSTM (Zhou et al. 2016)": "attblstm",
    "R-BERT (Wu and He 2019)": "rbert",
}
MEASURES = ["micro", "weighted", "dodrans", "entropy", "macro"]


def cli(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "releval", *args, "-f", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def reference() -> dict:
    """The command line's numbers for the five systems."""
    scored = cli("score", str(SEMEVAL_KEY), *(f"{s}={semeval_predictions(s)}" for s in SYSTEMS.values()))
    results = scored["results"] if "results" in scored else scored
    f = {r["system"]: {m: r["averages"][m]["f"] for m in MEASURES} for r in results}
    ci, sig = {}, {}
    for s in SYSTEMS.values():
        p = str(semeval_predictions(s))
        table = cli("compare", str(SEMEVAL_KEY), "-s", f"a={p}", "-s", f"b={p}", "-R", "1000")["results"][0]
        ci[s] = {row["metric"]: row["ci_a"] for row in table["pairs"]}
        sig[s] = table["signature"]
    raw = {}
    best = "rbert"
    for s in SYSTEMS.values():
        if s == best:
            continue
        table = cli(
            "compare",
            str(SEMEVAL_KEY),
            "-s",
            f"{best}={semeval_predictions(best)}",
            "-s",
            f"{s}={semeval_predictions(s)}",
            "-R",
            "1000",
        )["results"][0]
        raw[s] = {row["metric"]: row["p_value"] for row in table["pairs"]}
    return {"f": f, "ci": ci, "signature": sig, "p": raw}


@pytest.mark.parametrize("backend", BACKENDS)
def test_board_equals_score_and_compare(backend: str, tmp_path, reference) -> None:
    with running_board(backend, tmp_path, examples=True) as board:
        board.wait_idle()
        data = board.json("/b/semeval2010-task8/board.json")
        # every family's example benchmark is there, under its task (each task's `example`, releval.service.bundled)
        tasks = {b["slug"]: b["task"] for b in board.json("/api/v1/benchmarks")["benchmarks"]}
        assert tasks == {
            "semeval2010-task8": "rc",
            "conll04": "e2e",
            "chemprot-scibert": "chemprot-scibert",
            "redocred-dev": "docred",
            "fewrel-wiki-5-1": "fewrel",
            "nyt-style-ranked": "ranked",
            "drugprot-sample": "drugprot",
        }
        # DrugProt's gold is three files, stored as one archive: its 466 candidate pairs (the official toy data)
        drugprot = board.json("/api/v1/benchmarks/drugprot-sample")
        assert drugprot["n"] == 466 and drugprot["open"], drugprot
    assert data["measures"] == MEASURES
    assert data["stale_cells"] == 0 and all(data["ties_current"].values())
    rows = {r["name"]: r for r in data["rows"]}
    assert sorted(rows) == sorted(SYSTEMS)
    for entry, system in SYSTEMS.items():
        for m in MEASURES:
            cell = rows[entry]["cells"][m]
            assert cell["value"] == reference["f"][system][m], (entry, m)
            assert cell["ci"] == reference["ci"][system][m], (entry, m)
            expected = reference["signature"][system].replace(f"average:{','.join(MEASURES)}", f"average:{m}")
            assert cell["signature"] == expected
            assert not cell["stale"]
    for m in MEASURES:
        others = [s for s in SYSTEMS.values() if s != "rbert"]
        holm = multipletests([reference["p"][s][m] for s in others], method="holm")[1]
        for s, p_adj in zip(others, holm):
            entry = next(e for e, v in SYSTEMS.items() if v == s)
            cell = rows[entry]["cells"][m]
            assert cell["p_holm"] == pytest.approx(p_adj, rel=1e-12, abs=0)
            assert cell["tie"] == ("tied" if p_adj >= 0.05 else "below")
        assert rows["R-BERT (Wu and He 2019)"]["cells"][m]["tie"] == "best"


def test_a_contributed_task_config_rescores_every_run(tmp_path) -> None:
    """A variant of the SemEval benchmark with direction dropped (`view: undirected`): every bundled run is re-read
    from its stored upload and scored again; each cell equals `releval score --view undirected`."""
    with running_board("sqlite", tmp_path, examples=True, workers=2) as board:
        board.wait_idle()
        body = json.dumps({"slug": "semeval-undirected", "settings": {"view": "undirected"}}).encode()
        status, out, _ = board.request(
            "POST",
            "/api/v1/benchmarks/semeval2010-task8/variants",
            body,
            {"Content-Type": "application/json"},
            token=board.admin,  # the organiser's (an admin here): a submitter is refused (test_benchmark_changes)
        )
        assert status == 201, out
        assert json.loads(out)["parent"] == "semeval2010-task8"
        board.wait_idle()
        data = board.json("/b/semeval-undirected/board.json")
    scored = cli(
        "score",
        str(SEMEVAL_KEY),
        "--view",
        "undirected",
        *(f"{s}={semeval_predictions(s)}" for s in SYSTEMS.values()),
    )["results"]
    expected = {r["system"]: r for r in scored}
    rows = {r["name"]: r for r in data["rows"]}
    assert sorted(rows) == sorted(SYSTEMS) and data["stale_cells"] == 0
    for entry, system in SYSTEMS.items():
        for m in MEASURES:
            cell = rows[entry]["cells"][m]
            assert cell["value"] == expected[system]["averages"][m]["f"], (entry, m)
            assert "|view:undirected|" in cell["signature"]
