"""Quotas are charged to the actor and never refunded (issue 24, item 2): deleting runs gives no slot back, the runs a
variant copies from its parent charge nobody, and a hidden phase's limits count the same charges."""

from __future__ import annotations

import json

import pytest
from tests.service import synthetic
from tests.service.boards import BACKENDS, Board, open_benchmark, releval, running_board


def _pred(seed: int) -> bytes:
    return synthetic.jsonl(synthetic.predictions(seed))


def _runs(board: Board, slug: str, entry: str) -> int:
    rows = {r["name"]: r for r in board.json(f"/b/{slug}/board.json")["rows"]}
    return rows[entry]["runs"] if entry in rows else 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_deleting_does_not_refund_and_variants_charge_nobody(backend: str, tmp_path) -> None:
    with running_board(backend, tmp_path, RELEVAL_DAILY_QUOTA="3") as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "toy", str(gold), env=board.env).returncode == 0
        open_benchmark(board, "toy")
        alice, bob = board.token("alice"), board.token("bob")

        # bob: three runs, two deleted; the fourth submission is still the fourth of the day
        ids = []
        for seed in (1, 2, 3):
            status, out = board.submit("toy", "bob-net", _pred(seed), "b.jsonl", token=bob, seed=str(seed))
            assert status == 201, out
            ids.append(out["run"])
        for run_id in ids[:2]:
            assert board.request("DELETE", f"/api/v1/runs/{run_id}", token=bob)[0] == 200
        assert _runs(board, "toy", "bob-net") == 1
        status, out = board.submit("toy", "bob-net", _pred(4), "b.jsonl", token=bob, seed="4")
        assert status == 429 and out["error"] == "daily quota reached: 3 submissions in the last 24 hours"

        # alice: two runs; the admin's variant copies them (two more runs of hers, on the variant): her third
        # submission is accepted, her fourth refused
        for seed in (5, 6):
            assert board.submit("toy", "alice-net", _pred(seed), "a.jsonl", token=alice, seed=str(seed))[0] == 201
        board.wait_idle()
        body = json.dumps({"slug": "toy-undirected", "settings": {"negative": None}}).encode()
        status, out, _ = board.request(
            "POST", "/api/v1/benchmarks/toy/variants", body, {"Content-Type": "application/json"}, token=board.admin
        )
        assert status == 201, out
        board.wait_idle()
        assert _runs(board, "toy-undirected", "alice-net") == 2
        assert board.submit("toy", "alice-net", _pred(7), "a.jsonl", token=alice, seed="7")[0] == 201
        assert board.submit("toy", "alice-net", _pred(8), "a.jsonl", token=alice, seed="8")[0] == 429


@pytest.mark.parametrize("backend", ["sqlite"])
def test_a_hidden_phase_counts_deleted_runs(backend: str, tmp_path) -> None:
    """A hidden phase's total limit (here 2) counts a deleted run; dev runs are not test submissions."""
    with running_board(backend, tmp_path) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "toy", str(gold), "--dev", str(gold), env=board.env).returncode == 0
        phase = {"name": "test", "start": "2020-01-01T00:00:00Z", "total_limit": 2}
        status, out, _ = board.request(
            "PUT", "/api/v1/benchmarks/toy/phases", json.dumps({"phases": [phase]}).encode(), token=board.admin
        )
        assert status == 200 and json.loads(out)["phases"][0]["daily_limit"] == 3, out
        carol = board.token("carol")
        status, out = board.submit("toy", "c", _pred(1), "c.jsonl", token=carol, seed="1")
        assert status == 201
        assert board.request("DELETE", f"/api/v1/runs/{out['run']}", token=carol)[0] == 200
        assert board.submit("toy", "c", _pred(2), "c.jsonl", token=carol, seed="2")[0] == 201
        assert board.submit("toy", "c", _pred(3), "c.jsonl", token=carol, seed="3", split="dev")[0] == 201
        status, out = board.submit("toy", "c", _pred(4), "c.jsonl", token=carol, seed="4")
        assert status == 429 and out["error"] == "the test phase allows 2 test submissions; you made 2"
        # a phase still to come: test submissions wait for it (dev ones do not)
        later = {"name": "final", "start": "2999-01-01T00:00:00Z"}
        status, out, _ = board.request(
            "PUT", "/api/v1/benchmarks/toy/phases", json.dumps({"phases": [later]}).encode(), token=board.admin
        )
        assert status == 200, out
        status, out = board.submit("toy", "d", _pred(5), "d.jsonl", token=carol, seed="1")
        assert status == 403 and out["error"] == "the final phase of toy opens at 2999-01-01T00:00:00+00:00"
        assert board.submit("toy", "d", _pred(5), "d.jsonl", token=carol, seed="1", split="dev")[0] == 201
        # bad phases: 400 naming the field, nothing changed
        for bad, field in (
            ({"phases": [{"name": "x", "start": "2020-01-01"}]}, "phases[0].start"),
            ({"phases": [{"name": "x", "start": "2020-01-02T00:00:00Z", "end": "2020-01-01T00:00:00Z"}]}, "end"),
            ({"phases": [{"name": "x", "start": "2020-01-01T00:00:00Z", "digits": -1}]}, "phases[0].digits"),
            ({"phases": [{"name": "x\x00", "start": "2020-01-01T00:00:00Z"}]}, "phases[0].name"),
            ({"phases": [{"name": "x", "start": "2020-01-01T00:00:00Z", "colour": 1}]}, "'colour'"),
            ({"open": "yes", "phases": []}, "open"),
        ):
            status, out, _ = board.request(
                "PUT", "/api/v1/benchmarks/toy/phases", json.dumps(bad).encode(), token=board.admin
            )
            assert status == 400 and field in json.loads(out)["error"], (bad, out)
        assert [p["name"] for p in board.json("/api/v1/benchmarks/toy/phases")["phases"]] == ["final"]
