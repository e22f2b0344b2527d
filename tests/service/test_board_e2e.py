"""An end-to-end RE benchmark on the board (CoNLL04, the bundled test sentences): cells under Strict, Boundaries
and NER equal `releval score --task e2e` and the intervals of `releval compare --task e2e`, on SQLite and
PostgreSQL; a prediction file whose sentences are not gold's is refused with the loaders' message."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.conftest import EXAMPLES
from tests.service.boards import BACKENDS, open_benchmark, releval, running_board

GOLD = EXAMPLES / "conll04" / "conll04_test_first30.json"
MEASURES = [f"{c}:{a}" for c in ("strict", "boundaries") for a in ("micro", "weighted", "dodrans", "entropy", "macro")]
MEASURES += ["ner:micro", "ner:macro"]


def predictions(drop_every: int) -> list[dict]:
    """Gold with every n-th relation dropped and every n-th entity's type changed (a system's typical mistakes)."""
    docs = json.loads(GOLD.read_text(encoding="utf-8"))
    k = 0
    for doc in docs:
        kept = []
        for rel in doc["relations"]:
            k += 1
            if k % drop_every:
                kept.append(rel)
        doc["relations"] = kept
        for i, ent in enumerate(doc["entities"]):
            if (i + k) % drop_every == 0:
                ent["type"] = "Other" if ent["type"] != "Other" else "Org"
    return docs


def cli(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "releval", *args, "-f", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("backend", BACKENDS)
def test_e2e_board_equals_score_and_compare(backend: str, tmp_path) -> None:
    with running_board(backend, tmp_path) as board:
        done = releval("benchmark", "conll", str(GOLD), "--task", "e2e", env=board.env)
        open_benchmark(board, "conll")
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("benchmark conll: 30 items, measures strict:micro, strict:weighted")
        files = {}
        for name, n in (("good", 7), ("weak", 3)):
            files[name] = tmp_path / f"{name}.json"
            files[name].write_text(json.dumps(predictions(n)), encoding="utf-8")
            status, out = board.submit("conll", name, files[name].read_bytes(), files[name].name)
            assert status == 201, out
        # sentences that are not gold's: refused, nothing stored
        other = json.loads(GOLD.read_text(encoding="utf-8"))
        other[3]["tokens"] = [*other[3]["tokens"], "extra"]
        status, out = board.submit("conll", "x", json.dumps(other).encode(), "other.json")
        assert status == 400 and out["error"].startswith("other.json"), out
        board.wait_idle()
        data = board.json("/b/conll/board.json")
        assert data["measures"] == MEASURES and data["stale_cells"] == 0
        rows = {r["name"]: r for r in data["rows"]}
        assert sorted(rows) == ["good", "weak"]
        for name, path in files.items():
            scored = cli("score", "--task", "e2e", str(GOLD), str(path))["results"][0]["criteria"]
            table = cli(
                "compare", str(GOLD), "--task", "e2e", "--ner", "-s", f"a={path}", "-s", f"b={path}", "-R", "1000"
            )["results"][0]
            ci = {row["metric"]: row["ci_a"] for row in table["pairs"]}
            for m in MEASURES:
                criterion, _, average = m.partition(":")
                cell = rows[name]["cells"][m]
                assert cell["value"] == scored[criterion]["averages"][average]["f"], (name, m)
                assert cell["ci"] == ci[m], (name, m)
                assert f"|criterion:{criterion}|" in cell["signature"] and f"|average:{average}|" in cell["signature"]
                assert cell["signature"].split("|labels:")[1] == table["signature"].split("|labels:")[1]
        assert rows["good"]["cells"]["strict:micro"]["tie"] == "best"
        page = board.request("GET", f"/b/conll/entry/{rows['weak']['entry']}/")[1].decode()
        assert "Per class (first run, Strict)" in page
        assert board.request("GET", f"/b/conll/entry/{rows['weak']['entry']}/figure.svg")[0] == 200
        assert board.request("GET", "/b/conll/weights.svg")[0] == 200
        body = json.dumps({"name": "boundaries:power:0.5"}).encode()
        status, out, _ = board.request(
            "POST", "/api/v1/benchmarks/conll/measures", body, {"Content-Type": "application/json"}, token=board.admin
        )
        assert status == 201, out
        status, out, _ = board.request(
            "POST", "/api/v1/benchmarks/conll/measures", b'{"name": "power:0.5"}', {}, token=board.admin
        )
        assert status == 400 and "CRITERION:AVERAGE" in json.loads(out)["error"]
        board.wait_idle()
        data = board.json("/b/conll/board.json")
        assert data["stale_cells"] == 0
        for name, path in files.items():
            scored = cli("score", "--task", "e2e", str(GOLD), str(path), "-w", "power:0.5")["results"][0]["criteria"]
            value = {r["name"]: r for r in data["rows"]}[name]["cells"]["boundaries:power:0.5"]["value"]
            assert value == scored["boundaries"]["averages"]["power:0.5"]["f"]


def test_e2e_upload_with_lower_cased_relation_types_is_refused(tmp_path) -> None:
    """A run whose relation types are gold's lower-cased matches nothing (Strict 0.00 on a board that stored it):
    refused at upload with the scorer's message naming the file, the field and the first record; nothing stored.
    The same run with gold's spelling is accepted (the refusal is the case, not the file)."""
    docs = predictions(7)
    lowered = json.loads(json.dumps(docs))
    for doc in lowered:
        for rel in doc["relations"]:
            rel["type"] = rel["type"].lower()
    with running_board("sqlite", tmp_path) as board:
        done = releval("benchmark", "conll", str(GOLD), "--task", "e2e", env=board.env)
        assert done.returncode == 0, done.stderr
        status, out = board.submit("conll", "lower", json.dumps(lowered).encode(), "lower.json")
        assert status == 400, out
        assert out["error"].startswith("lower.json"), out
        assert "relation type(s) differ from gold's only in letter case" in out["error"]
        assert "'live_in' (gold 'Live_In')" in out["error"] and "(first at record 3 (orig_id 34))" in out["error"]
        status, out = board.submit("conll", "good", json.dumps(docs).encode(), "good.json")
        assert status == 201, out
        board.wait_idle()
        open_benchmark(board, "conll")
        assert [r["name"] for r in board.json("/b/conll/board.json")["rows"]] == ["good"]
