"""Who may change a benchmark, and nothing registered can break it (issue 24, item 3): measures and variants are
the organiser's; each is tried on gold before anything is queued (`power:1e9`, `beta: 1e308`, a negative label gold
lacks: 400 with the reason, nothing stored or queued); a measure whose computation fails is marked failed and can
be retired while submissions go on scoring; a variant can be retired."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.service import synthetic
from tests.service.boards import BACKENDS, Board, open_benchmark, releval, running_board

SCRIPT = """
from releval.service import configure
configure()
from releval.service import queue
from releval.service.models import Benchmark, Measure, Run
bench = Benchmark.objects.get(slug="toy")
# a measure the library cannot compute, stored as a board before validation would have stored it
m = Measure.objects.create(benchmark=bench, name="bogus", position=99)
queue.enqueue("cells", {"measure": m.pk, "runs": list(Run.objects.values_list("id", flat=True))})
"""


def post(board: Board, path: str, body: object, token: str) -> tuple[int, dict]:
    status, out, _ = board.request(
        "POST", path, json.dumps(body).encode(), {"Content-Type": "application/json"}, token=token
    )
    return status, json.loads(out)


def state(board: Board) -> tuple[list[str], list[str], int]:
    """What a refused registration must leave unchanged: the benchmarks, toy's measures, the jobs ever queued."""
    q = board.json("/api/v1/queue")
    slugs = [b["slug"] for b in board.json("/api/v1/benchmarks")["benchmarks"]]
    return (
        slugs,
        board.json("/api/v1/benchmarks/toy")["measures"],
        sum(q[s] for s in ("queued", "running", "done", "failed")),
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_registrations_are_the_organisers_and_tried_first(backend: str, tmp_path) -> None:
    with running_board(backend, tmp_path) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "toy", str(gold), "--resamples", "100", env=board.env).returncode == 0
        open_benchmark(board, "toy")
        bob = board.token("bob")
        assert board.submit("toy", "bob-net", synthetic.jsonl(synthetic.predictions(1)), "b.jsonl", token=bob)[0] == 201
        board.wait_idle()
        before = state(board)

        refusals = [
            (bob, "/api/v1/benchmarks/toy/measures", {"name": "power:0.5"}, 403, "only the organiser of toy"),
            (
                bob,
                "/api/v1/benchmarks/toy/variants",
                {"slug": "v", "settings": {"view": "undirected"}},
                403,
                "organiser",
            ),
            (
                board.admin,
                "/api/v1/benchmarks/toy/measures",
                {"name": "power:1e9"},
                400,
                "measure 'power:1e+09' refused",
            ),
            (board.admin, "/api/v1/benchmarks/toy/measures", {"name": "power:400"}, 400, "F = nan"),
            (
                board.admin,
                "/api/v1/benchmarks/toy/variants",
                {"slug": "v", "settings": {"beta": 1e308}},
                400,
                "micro F = 0.0",
            ),
            (
                board.admin,
                "/api/v1/benchmarks/toy/variants",
                {"slug": "v", "settings": {"negative": "Foo"}},
                400,
                "negative label 'Foo' occurs neither in gold nor in the predictions",
            ),
        ]
        for token, path, body, want, text in refusals:
            status, out = post(board, path, body, token)
            assert status == want and text in out["error"], (body, status, out)
        assert state(board) == before  # nothing stored, nothing queued

        # what passes the trial is accepted: a weighting in range, a variant the scorer can compute
        assert post(board, "/api/v1/benchmarks/toy/measures", {"name": "power:2"}, board.admin)[0] == 201
        status, out = post(
            board, "/api/v1/benchmarks/toy/variants", {"slug": "toy-b2", "settings": {"beta": 2.0}}, board.admin
        )
        assert status == 201, out
        board.wait_idle()
        assert board.json("/b/toy-b2/board.json")["rows"][0]["runs"] == 1

        # the variant follows its parent: a run submitted to toy later is scored on toy-b2 too, under β = 2 (F₂ of
        # micro by hand), and goes when it is withdrawn from the parent
        later = synthetic.predictions(3)
        status, out = board.submit("toy", "carol-net", synthetic.jsonl(later), "c.jsonl", token=bob)
        assert status == 201, out
        board.wait_idle()
        rows = {r["name"]: r for r in board.json("/b/toy-b2/board.json")["rows"]}
        assert sorted(rows) == ["bob-net", "carol-net"]
        gold_labels = synthetic.gold_labels()
        tp = sum(p == g != "no_relation" for p, g in zip(later, gold_labels))
        n_pred = sum(p != "no_relation" for p in later)
        n_gold = sum(g != "no_relation" for g in gold_labels)
        precision, recall = tp / n_pred, tp / n_gold
        f2 = 5 * precision * recall / (4 * precision + recall)
        assert rows["carol-net"]["cells"]["micro"]["value"] == pytest.approx(f2, abs=1e-12)
        assert board.request("DELETE", f"/api/v1/runs/{out['run']}", token=bob)[0] == 200
        board.wait_idle()
        assert [r["name"] for r in board.json("/b/toy-b2/board.json")["rows"]] == ["bob-net"]

        # a variant retired: not listed on the index, takes no runs; only the organiser may retire it
        assert board.request("DELETE", "/api/v1/benchmarks/toy-b2", token=bob)[0] == 403
        assert board.request("DELETE", "/api/v1/benchmarks/toy", token=board.admin)[0] == 409  # not a variant
        status, out, _ = board.request("DELETE", "/api/v1/benchmarks/toy-b2", token=board.admin)
        assert status == 200 and json.loads(out)["retired"] is True
        assert "/b/toy-b2/" not in board.request("GET", "/")[1].decode()
        status, out = board.submit("toy-b2", "late", synthetic.jsonl(synthetic.predictions(2)), "l.jsonl", token=bob)
        assert status == 410 and out["error"] == "benchmark 'toy-b2' is retired"


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_failing_measure_is_marked_failed_and_retirable(backend: str, tmp_path) -> None:
    with running_board(backend, tmp_path) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "toy", str(gold), "--resamples", "100", env=board.env).returncode == 0
        open_benchmark(board, "toy")
        bob = board.token("bob")
        assert board.submit("toy", "a", synthetic.jsonl(synthetic.predictions(1)), "a.jsonl", token=bob)[0] == 201
        board.wait_idle()
        done = subprocess.run([sys.executable, "-c", SCRIPT], env=board.env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        board.wait_idle()
        info = board.json("/api/v1/benchmarks/toy")
        (off,) = info["measures_off"]
        assert off["name"] == "bogus" and off["status"] == "failed" and off["error"]
        assert info["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro"]

        # submissions still score, under every other measure, and the tie groups are complete
        status, run = board.submit("toy", "b", synthetic.jsonl(synthetic.predictions(2)), "b.jsonl", token=bob)
        assert status == 201
        board.wait_idle()
        got = board.json(f"/api/v1/runs/{run['run']}")
        assert got["status"] == "scored" and list(got["cells"]) == info["measures"]
        data = board.json("/b/toy/board.json")
        assert data["measures"] == info["measures"] and all(data["ties_current"].values()) and data["stale_cells"] == 0

        # retired by the organiser; a submitter may not, and the last measure cannot be
        assert board.request("DELETE", "/api/v1/benchmarks/toy/measures/bogus", token=bob)[0] == 403
        status, out, _ = board.request("DELETE", "/api/v1/benchmarks/toy/measures/bogus", token=board.admin)
        assert status == 200 and json.loads(out)["status"] == "retired"
        for name in ("weighted", "dodrans", "entropy", "macro"):
            assert board.request("DELETE", f"/api/v1/benchmarks/toy/measures/{name}", token=board.admin)[0] == 200
        status, out, _ = board.request("DELETE", "/api/v1/benchmarks/toy/measures/micro", token=board.admin)
        assert status == 409 and "last measure" in json.loads(out)["error"]
        board.wait_idle()
        data = board.json("/b/toy/board.json")
        assert data["measures"] == ["micro"] and all(data["ties_current"].values())
