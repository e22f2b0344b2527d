"""The board's submissions, measure contributions and refusals, through HTTP against a real `releval serve` on
SQLite and PostgreSQL (the replicability across benchmarks, the library's numbers over queries the other tests run
on both, on SQLite alone): numbers checked against `releval score`, refusals checked to store nothing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.service import synthetic
from tests.service.boards import BACKENDS, SQLITE_ONLY, Board, open_benchmark, releval, running_board


def score_cli(gold, pred, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "releval", "score", str(gold), str(pred), *args, "-f", "json"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["results"][0]


def make_benchmark(board: Board, tmp_path, slug: str = "toy") -> object:
    gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
    done = releval("benchmark", slug, str(gold), "--title", "Toy", env=board.env)
    open_benchmark(board, slug)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"benchmark {slug}: 300 items")
    return gold


def counts(board: Board, slug: str = "toy") -> tuple[int, int]:
    """(entries, runs) on the board: what a refused request must leave unchanged."""
    data = board.json(f"/b/{slug}/board.json")
    return len(data["rows"]), sum(r["runs"] for r in data["rows"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_submit_register_measure_and_refusals(backend: str, tmp_path) -> None:
    with running_board(backend, tmp_path, RELEVAL_DAILY_QUOTA="3", RELEVAL_MAX_UPLOAD_MB="0.05") as board:
        gold = make_benchmark(board, tmp_path)
        alice, bob = board.token("alice"), board.token("bob")
        preds = {seed: synthetic.write(tmp_path / f"p{seed}.jsonl", synthetic.predictions(seed)) for seed in (1, 2, 3)}

        status, run = board.submit("toy", "alice-net", preds[1].read_bytes(), "p1.jsonl", token=alice, seed="1")
        assert status == 201 and run["status"] == "queued"
        status, _ = board.submit("toy", "alice-net", preds[2].read_bytes(), "p2.jsonl", token=alice, seed="2")
        assert status == 201
        status, _ = board.submit("toy", "bob-net", preds[3].read_bytes(), "p3.jsonl", token=bob, seed="1")
        assert status == 201
        board.wait_idle()
        assert counts(board) == (2, 3)

        # Refusals: each a clear 4xx, no traceback, nothing stored.
        good = preds[3].read_bytes()
        lines = good.splitlines(keepends=True)
        cases = {
            "wrong token": (board.submit("toy", "x", good, "p.jsonl", token="rlv_wrong"), 401, "unknown token"),
            "missing token": (board.submit("toy", "x", good, "p.jsonl", token=""), 401, "a token is required"),
            "another's entry": (
                board.submit("toy", "alice-net", good, "p.jsonl", token=bob, seed="9"),
                403,
                "belongs to another submitter",
            ),
            "repeated seed": (
                board.submit("toy", "alice-net", good, "p.jsonl", token=alice, seed="1"),
                409,
                "already has a test run with seed '1'",
            ),
            "missing id": (
                board.submit("toy", "x", b"".join(lines[:-1]), "../../etc/p.jsonl", token=bob, seed="2"),
                400,
                "missing",
            ),
            "duplicate id": (
                board.submit("toy", "x", good + lines[0], "dup.jsonl", token=bob, seed="2"),
                400,
                "dup.jsonl",
            ),
            "malformed line": (
                board.submit("toy", "x", good.replace(b'"id"', b"'id'", 1), "bad.jsonl", token=bob, seed="2"),
                400,
                "bad.jsonl",
            ),
            "oversized": (board.submit("toy", "x", good * 6, "big.jsonl", token=bob, seed="2"), 413, "limit"),
            "no benchmark": (board.submit("nope", "x", good, "p.jsonl", token=bob), 404, "no benchmark 'nope'"),
        }
        for name, ((status, body), want, text) in cases.items():
            assert status == want, (name, status, body)
            message = body["error"] if isinstance(body, dict) else body.decode()
            assert text in message, (name, message)
            assert "Traceback" not in message and 'File "' not in message, name
        # A located message: the file (its last path component only) and the missing id.
        missing = cases["missing id"][0][1]["error"]
        assert "p.jsonl" in missing and "../" not in missing and "x299" in missing
        malformed = cases["malformed line"][0][1]["error"]  # orjson's wording varies with its version
        assert malformed.startswith("bad.jsonl:1: invalid JSON: unexpected character") and malformed.endswith(
            "(column 2)"
        )
        assert counts(board) == (2, 3)

        # The quota: bob has 1 run; 2 more are allowed, the third in 24 hours is refused (429).
        for seed in ("2", "3"):
            assert board.submit("toy", "bob-net", good, "p3.jsonl", token=bob, seed=seed)[0] == 201
        status, body = board.submit("toy", "bob-net", good, "p3.jsonl", token=bob, seed="4")
        assert status == 429 and "daily quota" in body["error"]

        # Deleting another's run is refused; the owner may.
        run_id = run["run"]
        assert board.request("DELETE", f"/api/v1/runs/{run_id}", token=bob)[0] == 403
        assert board.json(f"/api/v1/runs/{run_id}")["run"] == run_id

        # Register a measure (the organiser's, here an admin; a submitter is refused): every stored run is
        # re-scored under it, with its own signature.
        body = json.dumps({"name": "power:0.50"}).encode()
        status, out, _ = board.request(
            "POST", "/api/v1/benchmarks/toy/measures", body, {"Content-Type": "application/json"}, token=bob
        )
        assert status == 403 and "only the organiser of toy" in json.loads(out)["error"]
        status, out, _ = board.request(
            "POST", "/api/v1/benchmarks/toy/measures", body, {"Content-Type": "application/json"}, token=board.admin
        )
        assert status == 201 and json.loads(out)["measure"] == "power:0.5"
        status, out, _ = board.request(
            "POST", "/api/v1/benchmarks/toy/measures", b'{"name": "power:x"}', {}, token=board.admin
        )
        assert status == 400 and "power" in json.loads(out)["error"]
        board.wait_idle()
        data = board.json("/b/toy/board.json")
        assert data["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro", "power:0.5"]
        assert data["stale_cells"] == 0
        rows = {r["name"]: r for r in data["rows"]}
        bob_runs = rows["bob-net"]["cells"]["power:0.5"]["seeds"]
        expected = score_cli(gold, preds[3], "-w", "power:0.5")["averages"]["power:0.5"]["f"]
        assert bob_runs == [expected, expected, expected]
        alice_cell = rows["alice-net"]["cells"]["power:0.5"]
        expected_alice = [score_cli(gold, preds[s], "-w", "power:0.5")["averages"]["power:0.5"]["f"] for s in (1, 2)]
        assert alice_cell["seeds"] == expected_alice
        assert alice_cell["value"] == pytest.approx(sum(expected_alice) / 2, abs=1e-15)
        assert "average:power:0.5|" in alice_cell["signature"]
        csv_text = board.request("GET", "/b/toy/board.csv")[1].decode()
        assert csv_text.count("power:0.5,") == 2 and "average:power:0.5|" in csv_text

        # The gold file is never served: no response carries its bytes or its labels in item order.
        gold_bytes = gold.read_bytes()
        for path in ("/", "/b/toy/", "/b/toy/board.json", "/api/v1/benchmarks/toy", "/api/v1/benchmarks"):
            page = board.request("GET", path)[1]
            assert gold_bytes[:200] not in page and b'"x0"' not in page, path


@pytest.mark.parametrize("backend", ["sqlite"])
def test_forms_need_csrf(backend: str, tmp_path) -> None:
    """The web forms refuse a POST without the CSRF token (403), and store nothing."""
    with running_board(backend, tmp_path) as board:
        make_benchmark(board, tmp_path)
        from releval.service.client import multipart

        body, content_type = multipart(
            {"entry": "csrf", "token": board.admin}, "p.jsonl", synthetic.jsonl(synthetic.predictions(1))
        )
        status, page, _ = board.request("POST", "/b/toy/submit", body, {"Content-Type": content_type})
        assert status == 403 and b"CSRF" in page
        status, _, _ = board.request(
            "POST",
            "/b/toy/measures",
            b"measure=macro&token=" + board.admin.encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert status == 403
        assert counts(board) == (0, 0)
        assert board.json("/b/toy/board.json")["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro"]


def test_submit_command(tmp_path) -> None:
    """`releval submit` stores a run and prints its cells; a refusal is one line on stderr and exit 2."""
    with running_board("sqlite", tmp_path) as board:
        gold = make_benchmark(board, tmp_path)
        pred = synthetic.write(tmp_path / "mine.jsonl", synthetic.predictions(5))
        args = ["submit", str(pred), "--board", board.url, "--benchmark", "toy", "--entry", "mine"]
        done = releval(*args, "--token", board.admin, "--wait", "60", "--selection", "test", env=board.env)
        assert done.returncode == 0, done.stderr
        run = json.loads(done.stdout)
        assert run["status"] == "scored"
        assert run["cells"]["macro"]["value"] == score_cli(gold, pred)["averages"]["macro"]["f"]
        done = releval(*args, "--token", "rlv_nope", env=board.env)
        assert done.returncode == 2
        assert done.stderr.strip() == "error: the board refused (401): unknown token"
        flags = board.json("/b/toy/board.json")["rows"][0]["flags"]
        assert {"code": "test-selected", "severity": "warning", "message": "model selected on the test set"} in flags
        # dev predictions: refused without dev gold, scored against it with; not on the board (test runs only)
        done = releval(*args, "--token", board.admin, "--split", "dev", "--seed", "2", env=board.env)
        assert done.returncode == 2 and "has no dev gold" in done.stderr
        dev_gold = synthetic.write(tmp_path / "dev.jsonl", synthetic.predictions(77, error=0.5))
        done = releval("benchmark", "toy2", str(gold), "--dev", str(dev_gold), env=board.env)
        open_benchmark(board, "toy2")
        assert done.returncode == 0, done.stderr
        assert board.json("/api/v1/benchmarks/toy2")["dev_n"] == 300
        args[args.index("toy")] = "toy2"
        done = releval(*args, "--token", board.admin, "--split", "dev", "--wait", "60", env=board.env)
        assert done.returncode == 0, done.stderr
        run = json.loads(done.stdout)
        assert (run["split"], run["status"]) == ("dev", "scored")
        assert run["cells"]["macro"]["value"] == score_cli(dev_gold, pred)["averages"]["macro"]["f"]
        assert board.json("/b/toy2/board.json")["rows"] == []  # an entry with dev runs only is not a row


def _perturb(labels: list[str], seed: int, error: float) -> list[str]:
    import random

    rng = random.Random(seed)
    return [rng.choice(synthetic.LABELS) if rng.random() < error else g for g in labels]


@pytest.mark.parametrize("backend", SQLITE_ONLY)
def test_replicability_across_benchmarks(backend: str, tmp_path) -> None:
    """Two entries on three benchmarks: the board's per-benchmark p-values, k̂ and identified benchmarks equal
    `releval replicability from-predictions` on the same files."""
    with running_board(backend, tmp_path) as board:
        datasets = []
        for k in (1, 2, 3):
            gold_labels = _perturb(synthetic.gold_labels(), 100 + k, 0.3)
            gold = synthetic.write(tmp_path / f"g{k}.jsonl", gold_labels)
            assert releval("benchmark", f"t{k}", str(gold), env=board.env).returncode == 0
            open_benchmark(board, f"t{k}")
            files = []
            for entry, error in (("A", 0.1 * k), ("B", 0.3)):
                pred = synthetic.write(
                    tmp_path / f"{entry}{k}.jsonl", _perturb(gold_labels, 10 * k + len(entry), error)
                )
                assert board.submit(f"t{k}", entry, pred.read_bytes(), pred.name)[0] == 201
                files.append(pred)
            datasets += ["-d", f"t{k}={gold},{files[0]},{files[1]}"]
        board.wait_idle()
        got = board.json("/api/v1/replicability?a=A&b=B&measure=macro")
        done = subprocess.run(
            [sys.executable, "-m", "releval", "replicability", "from-predictions", *datasets, "--metric", "macro"]
            + ["-f", "json"],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        expected = json.loads(done.stdout)
        assert [d["dataset"] for d in got["analysis"]["datasets"]] == ["t1", "t2", "t3"]
        for ours, theirs in zip(got["analysis"]["datasets"], expected["datasets"]):
            assert (ours["p"], ours["effect"], ours["identified"]) == (
                theirs["p"],
                theirs["effect"],
                theirs["identified"],
            )
        assert got["analysis"]["k"] == expected["k"]
        assert got["analysis"]["identification"]["identified"] == expected["identification"]["identified"]
        page = board.request("GET", "/replicability?a=A&b=B&measure=macro")[1].decode()
        assert f"k̂ = {expected['k_recommended']} of 3 benchmarks" in page
        status, body, _ = board.request("GET", "/api/v1/replicability?a=A&b=nobody")
        assert status == 404 and "share 0 benchmark(s)" in json.loads(body)["error"]


def test_only_admins_create_benchmarks(tmp_path) -> None:
    """POST /api/v1/benchmarks: 403 for a submitter, 401 without a token, 400 for a bad slug or gold, 201 for an
    admin; the gold is read by the strict loaders (a duplicate id is refused, nothing created)."""
    from releval.service.client import multipart

    with running_board("sqlite", tmp_path) as board:
        bob = board.token("bob")
        gold = synthetic.jsonl(synthetic.gold_labels())

        def create(token: str, slug: str, data: bytes = gold) -> tuple[int, dict]:
            body, content_type = multipart({"slug": slug, "title": "T"}, "gold.jsonl", data)
            status, out, _ = board.request(
                "POST", "/api/v1/benchmarks", body, {"Content-Type": content_type}, token=token
            )
            return status, json.loads(out)

        assert create(bob, "b1") == (403, {"error": "only an admin may create a benchmark"})
        assert create("", "b1")[0] == 401
        assert create(board.admin, "Bad_Slug")[0] == 400
        status, out = create(board.admin, "b1", gold + gold.splitlines(keepends=True)[0])
        assert status == 400 and out["error"].startswith("gold.jsonl:301: ")
        assert board.json("/api/v1/benchmarks")["benchmarks"] == []
        status, out = create(board.admin, "b1")
        assert status == 201 and out["n"] == 300 and out["stats"]["negative_label"] == "no_relation"
        assert out["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro"]
        assert create(board.admin, "b1")[0] == 409


def test_tokens_are_stored_hashed(tmp_path) -> None:
    """The database holds the SHA-256 of a token, never the token (checked on the SQLite file's raw bytes)."""
    import hashlib

    with running_board("sqlite", tmp_path) as board:
        token = board.token("carol")
        raw = (tmp_path / "board.sqlite3").read_bytes()
        assert token.encode() not in raw and board.admin.encode() not in raw
        assert hashlib.sha256(token.encode()).hexdigest().encode() in raw
        assert board.json("/api/v1/queue")["failed"] == 0


def test_variant_refusals_and_flags(tmp_path) -> None:
    """A variant with an unknown setting is refused (400, nothing created); a run its stricter Config refuses
    (`strict_labels`: a predicted label gold lacks) is not copied and its entry says why."""
    with running_board("sqlite", tmp_path) as board:
        make_benchmark(board, tmp_path)
        odd = synthetic.predictions(3)
        odd[0] = "Z"  # a label gold never uses: a warning by default, refused under strict_labels
        assert board.submit("toy", "odd", synthetic.jsonl(odd), "odd.jsonl")[0] == 201
        assert board.submit("toy", "fine", synthetic.jsonl(synthetic.predictions(4)), "fine.jsonl")[0] == 201
        board.wait_idle()

        def variant(settings: object, slug: str = "toy-strict") -> tuple[int, dict]:
            body = json.dumps({"slug": slug, "settings": settings}).encode()
            status, out, _ = board.request(
                "POST", "/api/v1/benchmarks/toy/variants", body, {"Content-Type": "application/json"}, token=board.admin
            )
            return status, json.loads(out)

        status, out = variant({"bogus": 1})
        assert status == 400 and "bogus" in out["error"]
        assert variant({})[0] == 400
        assert [b["slug"] for b in board.json("/api/v1/benchmarks")["benchmarks"]] == ["toy"]
        status, out = variant({"strict_labels": True})
        assert status == 201, out
        board.wait_idle()
        rows = {r["name"]: r for r in board.json("/b/toy-strict/board.json")["rows"]}
        assert rows["fine"]["runs"] == 1 and rows["odd"]["runs"] == 0
        (flag,) = [f for f in rows["odd"]["flags"] if f["code"] == "not-rescored"]
        assert flag["message"].startswith("test seed 1: ") and "Z" in flag["message"]


def test_a_file_without_ids_is_aligned_by_position_and_signed_so(tmp_path) -> None:
    """One label per line (no ids): aligned by position as `releval score` aligns it, and the cells say
    `alignment:position`, with the command line's numbers."""
    with running_board("sqlite", tmp_path) as board:
        gold = make_benchmark(board, tmp_path)
        labels = synthetic.predictions(9)
        pred = tmp_path / "pred.txt"
        pred.write_text("".join(f"{x}\n" for x in labels), encoding="utf-8")
        status, out = board.submit("toy", "lines", pred.read_bytes(), "pred.txt", format="labels-lines")
        assert status == 201, out
        board.wait_idle()
        cell = board.json("/b/toy/board.json")["rows"][0]["cells"]["macro"]
        expected = score_cli(gold, pred, "--pred-format", "labels-lines")
        assert cell["value"] == expected["averages"]["macro"]["f"]
        assert "|alignment:position|" in cell["signature"] and "|alignment:position|" in expected["signature"]
