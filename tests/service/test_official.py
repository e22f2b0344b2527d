"""The official SemEval-2010 Task 8 score as a board column (`semeval-official`, issue 24 item 6): its value is
`releval score --task semeval-official`'s (89.06 for the bundled R-BERT), its bootstrap statistic is the scorer's
own score of each resample (checked on explicit resamples against the task's `score` on the resampled items), and a
benchmark whose gold is not SemEval's refuses it before anything is queued. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tests.service import synthetic
from tests.service.boards import BACKENDS, open_benchmark, releval, running_board

from releval.service import official
from releval.tasks.semeval_official import score

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "semeval2010_task8"


def _labels(name: str) -> list[str]:
    return [line.split("\t")[1].strip() for line in (EXAMPLES / name).read_text().splitlines() if line.strip()]


def test_each_resample_is_scored_as_the_scorer_scores_the_resampled_items() -> None:
    gold, pred = _labels("test_key_directed.txt"), _labels("onehaitao_attcnn.txt")
    counts, positive = official._item_counts(gold, pred)
    rng = np.random.default_rng(3)
    for _ in range(5):
        picked = rng.integers(0, len(gold), len(gold))
        weights = np.bincount(picked, minlength=len(gold)).astype(np.float64)
        by_hand = score([gold[i] for i in picked], [pred[i] for i in picked]).official_score / 100
        assert official._macro_f1((weights @ counts)[None, :], positive)[0] == pytest.approx(by_hand, abs=1e-12)


def post(board, path: str, body: object) -> tuple[int, dict]:
    status, out, _ = board.request(
        "POST", path, json.dumps(body).encode(), {"Content-Type": "application/json"}, token=board.admin
    )
    return status, json.loads(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_official_score_is_a_column(backend: str, tmp_path) -> None:
    with running_board(backend, tmp_path) as board:
        key = EXAMPLES / "test_key_directed.txt"
        args = ("benchmark", "semeval", str(key), "--negative", "Other", "--resamples", "200")
        assert releval(*args, env=board.env).returncode == 0
        open_benchmark(board, "semeval")
        files = {"R-BERT": "onehaitao_rbert.txt", "CR-CNN": "onehaitao_crcnn.txt"}
        for entry, name in files.items():
            status, out = board.submit("semeval", entry, (EXAMPLES / name).read_bytes(), name)
            assert status == 201, out
        board.wait_idle()
        status, out = post(
            board, "/api/v1/benchmarks/semeval/variants", {"slug": "v", "settings": {"view": "official"}}
        )
        assert status == 400 and '{"name": "semeval-official"}' in out["error"], out
        status, out = post(board, "/api/v1/benchmarks/semeval/measures", {"name": "semeval-official"})
        assert status == 201, out
        board.wait_idle()
        doc = board.json("/api/v1/benchmarks/semeval/board")
        assert doc["measures"][-1] == "semeval-official"
        rows = {r["name"]: r["cells"]["semeval-official"] for r in doc["rows"]}
        for entry, name in files.items():
            done = releval(
                "score", "--task", "semeval-official", str(key), str(EXAMPLES / name), "-f", "json", env=board.env
            )
            assert done.returncode == 0, done.stderr
            expected = json.loads(done.stdout)["results"][0]["official_score"] / 100
            assert rows[entry]["value"] == expected, entry  # the same number, to the last digit
            low, high = rows[entry]["ci"]
            assert low < expected < high
            assert rows[entry]["signature"].startswith("task:semeval-official|view:official|")
        assert f"{100 * rows['R-BERT']['value']:.2f}" == "89.06"
        assert rows["R-BERT"]["tie"] == "best" and rows["CR-CNN"]["tie"] == "below"
        assert rows["R-BERT"]["rank_interval"] == [1, 1]
        assert "semeval-official" in board.request("GET", "/b/semeval/")[1].decode()

        # with the column registered, the class weights figure still draws the weightings (it was a 500: the
        # official score is no weighting), and an undirected variant is taken (it was refused: the official score
        # cannot be read from undirected labels) without that column, which is the same on every variant
        status, svg, headers = board.request("GET", "/b/semeval/weights.svg")
        assert status == 200 and headers["Content-Type"] == "image/svg+xml", svg[:300]
        assert svg.startswith(b"<?xml") and b"</svg>" in svg
        status, out = post(
            board, "/api/v1/benchmarks/semeval/variants", {"slug": "semeval-u", "settings": {"view": "undirected"}}
        )
        assert status == 201, out
        assert out["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro"]
        board.wait_idle()
        rows = {r["name"]: r["cells"] for r in board.json("/api/v1/benchmarks/semeval-u/board")["rows"]}
        for entry, name in files.items():
            done = releval(
                "score", str(key), str(EXAMPLES / name), "--view", "undirected", "--negative", "Other", "-f", "json",
                env=board.env,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            assert rows[entry]["micro"]["value"] == json.loads(done.stdout)["results"][0]["averages"]["micro"]["f"]
        assert f"{100 * rows['R-BERT']['micro']['value']:.2f}" == "89.96"
        status, out = post(board, "/api/v1/benchmarks/semeval-u/measures", {"name": "semeval-official"})
        assert status == 400 and "it is a column of semeval" in out["error"], out

        # a benchmark whose gold is not SemEval-2010's refuses it, nothing queued
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "toy", str(gold), "--resamples", "20", env=board.env).returncode == 0
        jobs = board.json("/api/v1/queue")["done"]
        status, out = post(board, "/api/v1/benchmarks/toy/measures", {"name": "semeval-official"})
        assert status == 400 and "is not one of the 19 directed SemEval-2010 Task 8 labels" in out["error"], out
        assert board.json("/api/v1/benchmarks/toy")["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro"]
        assert board.json("/api/v1/queue")["done"] == jobs
