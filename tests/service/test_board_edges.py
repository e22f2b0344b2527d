"""The board's last holes (issue 34, item 3): requests that reached a 500 or an HTML page under /api/ now answer a
JSON 400 or an empty page, on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest
from tests.service import synthetic
from tests.service.boards import BACKENDS, open_benchmark, releval, running_board

#: Past 2^63: as an SQL offset (page − 1) × limit it overflowed SQLite's and PostgreSQL's 64-bit integers (a 500).
HUGE_PAGE = 2**63 + 1
LISTS = {
    "/api/v1/benchmarks": "benchmarks",
    "/api/v1/benchmarks/toy/entries": "entries",
    "/api/v1/benchmarks/toy/runs": "runs",
    "/api/v1/benchmarks/toy/measures": "measures",
    "/api/v1/benchmarks/toy/board": "rows",
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_huge_pages_deep_json_and_bad_hosts_answer_json_400_or_an_empty_page(backend: str, tmp_path) -> None:
    with running_board(backend, tmp_path, workers=1) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "toy", str(gold), "--resamples", "20", env=board.env).returncode == 0
        open_benchmark(board, "toy")
        status, out = board.submit("toy", "e", synthetic.jsonl(synthetic.predictions(1)), "e.jsonl")
        assert status == 201, out
        board.wait_idle()

        # a page past 2^63 is a page past the end: an empty list, `previous` the last page, on every list
        for path, key in LISTS.items():
            status, body, headers = board.request("GET", f"{path}?page={HUGE_PAGE}&limit=1000")
            assert status == 200 and headers["Content-Type"] == "application/json", (path, status, body[:300])
            doc = json.loads(body)
            assert doc[key] == [] and doc["page"] == HUGE_PAGE and doc["next"] is None, (path, doc)
            assert doc["previous"] == f"{path}?page=1&limit=1000", (path, doc["previous"])
        # the same size of number as a limit is refused, naming the parameter
        status, body, _ = board.request("GET", f"/api/v1/benchmarks?limit={HUGE_PAGE}")
        assert status == 400 and json.loads(body)["error"] == f"limit '{HUGE_PAGE}': a whole number, 1 to 1000"

        # JSON nested 5,000 deep (RecursionError in the parser: a 500) and 40 deep (parses; refused by depth)
        deep = b"[" * 5000 + b"]" * 5000
        forty = json.dumps({"name": "power:0.5", "slug": "v", "x": json.loads("[" * 40 + "]" * 40)}).encode()
        for method, path in (
            ("POST", "/api/v1/benchmarks/toy/measures"),
            ("POST", "/api/v1/benchmarks/toy/variants"),
            ("PUT", "/api/v1/benchmarks/toy/phases"),
        ):
            for body in (deep, forty):
                status, out, headers = board.request(method, path, body, token=board.admin)
                assert status == 400 and headers["Content-Type"] == "application/json", (path, status, out[:300])
                assert json.loads(out) == {"error": "the body nests arrays and objects deeper than 32 levels"}
        # a benchmark's `settings` field, in a multipart form
        from releval.service.client import multipart

        form, content_type = multipart(
            {"slug": "deep", "settings": "[" * 5000 + "]" * 5000}, "gold.jsonl", gold.read_bytes()
        )
        status, out, _ = board.request(
            "POST", "/api/v1/benchmarks", form, {"Content-Type": content_type}, token=board.admin
        )
        assert (status, json.loads(out)) == (400, {"error": "settings nests arrays and objects deeper than 32 levels"})
        assert [b["slug"] for b in board.json("/api/v1/benchmarks")["benchmarks"]] == ["toy"]  # nothing stored
        assert board.json("/api/v1/benchmarks/toy")["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro"]

        # a Host header the board does not answer to: JSON under /api/ (was Django's HTML page), HTML on pages
        for path in ("/api/v1/benchmarks", "/api/v1/queue", "/api/v1/nothing-here"):
            status, out, headers = board.request("GET", path, headers={"Host": "evil.example"})
            assert status == 400 and headers["Content-Type"] == "application/json", (path, status, out[:300])
            assert json.loads(out) == {
                "error": "bad request (the Host header names a host this board does not answer to)"
            }
        status, out, headers = board.request("GET", "/b/toy/", headers={"Host": "evil.example"})
        assert status == 400 and headers["Content-Type"].startswith("text/html")
