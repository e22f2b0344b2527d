"""Small promises of the board (issue 24, item 7 of the report): `releval submit --wait` exits non-zero when the run's
scoring failed; every /api/ error is JSON, Django's own refusals included; a withdrawn entry leaves the board; each
cell has its rank by the value shown."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import time

import pytest
from tests.service import synthetic
from tests.service.boards import BACKENDS, open_benchmark, releval, running_board

CORRUPT = """
from releval.service import configure
configure()
from releval.service.models import RunData
assert RunData.objects.filter(run_id={run}).update(aligned=b"not what a run stores") == 1
"""


def test_submit_wait_exits_non_zero_when_scoring_fails(tmp_path) -> None:
    """A run whose stored data cannot be scored (corrupted here, before any worker runs) fails after its three
    attempts; `releval submit --wait` prints it and exits 2 naming the run."""
    with running_board("sqlite", tmp_path, workers=0) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "toy", str(gold), "--resamples", "50", env=board.env).returncode == 0
        open_benchmark(board, "toy")
        pred = synthetic.write(tmp_path / "p.jsonl", synthetic.predictions(1))
        args = ["submit", str(pred), "--board", board.url, "--token", board.admin, "--benchmark", "toy"]
        cli = subprocess.Popen(
            [sys.executable, "-m", "releval", *args, "--entry", "e", "--wait", "120"],
            env=board.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while board.json("/api/v1/queue")["queued"] == 0:
            assert time.monotonic() < deadline and cli.poll() is None
            time.sleep(0.1)
        done = subprocess.run(
            [sys.executable, "-c", CORRUPT.format(run=1)],  # a fresh database: the first run
            env=board.env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        board.start_worker()
        out, err = cli.communicate(timeout=120)
        assert cli.returncode == 2, (out, err)
        assert json.loads(out)["status"] == "failed" and json.loads(out)["run"] == 1
        assert err.strip() == "error: run 1 was stored but its scoring failed: see GET /api/v1/runs/1"
        # every measure failed on this run alone: none is marked failed
        assert board.json("/api/v1/benchmarks/toy")["measures_off"] == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_api_errors_ranks_and_withdrawn_entries(backend: str, tmp_path) -> None:
    with running_board(backend, tmp_path) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "toy", str(gold), "--resamples", "50", env=board.env).returncode == 0
        open_benchmark(board, "toy")

        # Django's own refusals under /api/, as JSON
        status, body, headers = board.request(
            "POST", "/api/v1/benchmarks/toy/runs", b"--x\r\n", {"Content-Type": "multipart/form-data"}, board.admin
        )
        assert status == 400 and headers["Content-Type"] == "application/json"
        assert json.loads(body)["error"].startswith("the body is not readable multipart/form-data")
        status, body, headers = board.request("GET", "/api/v1/nothing-here")
        assert (status, json.loads(body)) == (404, {"error": "no such address: /api/v1/nothing-here"})
        status, body, headers = board.request("PATCH", "/api/v1/benchmarks")
        assert status == 405 and json.loads(body)["error"].startswith("method PATCH not allowed here")
        assert "GET" in headers["Allow"]
        assert board.request("GET", "/b/nothing/")[2]["Content-Type"].startswith("text/html")  # pages stay HTML

        # ranks by the value shown: two entries with the same file share rank 1, the third is 3rd
        # (z is submitted first: rows come in rank order, entry order among equals)
        labels = {"z": synthetic.predictions(2), "x": synthetic.predictions(1, 0.1), "y": synthetic.predictions(1, 0.1)}
        ids = {}
        for name, pred in labels.items():
            status, out = board.submit("toy", name, synthetic.jsonl(pred), f"{name}.jsonl")
            assert status == 201, out
            ids[name] = out["run"]
        board.wait_idle()
        gold_labels = synthetic.gold_labels()
        micro = {}
        for name, pred in labels.items():  # no_relation is negative: micro F over the other labels, by hand
            tp = sum(p == g != "no_relation" for p, g in zip(pred, gold_labels))
            n_pred = sum(p != "no_relation" for p in pred)
            n_gold = sum(g != "no_relation" for g in gold_labels)
            micro[name] = 2 * tp / (n_pred + n_gold)
        assert micro["x"] == micro["y"] > micro["z"]
        rows = {r["name"]: r for r in board.json("/b/toy/board.json")["rows"]}
        assert {n: r["cells"]["micro"]["value"] for n, r in rows.items()} == pytest.approx(micro, abs=1e-15)
        assert {n: r["cells"]["micro"]["rank"] for n, r in rows.items()} == {"x": 1, "y": 1, "z": 3}
        assert list(rows) == ["x", "y", "z"]
        table = list(csv.DictReader(io.StringIO(board.request("GET", "/b/toy/board.csv")[1].decode())))
        assert {r["entry"]: r["rank"] for r in table if r["measure"] == "micro"} == {"x": "1", "y": "1", "z": "3"}
        page = board.request("GET", "/b/toy/")[1].decode()
        assert "rank</th>" in page and "(rank 3 of 3)" in page

        # withdrawn: z's only run deleted, z leaves the board (and the ranks close up)
        assert board.request("DELETE", f"/api/v1/runs/{ids['z']}", token=board.admin)[0] == 200
        board.wait_idle()
        rows = {r["name"]: r for r in board.json("/b/toy/board.json")["rows"]}
        assert sorted(rows) == ["x", "y"]


def _collect(board, path: str, key: str) -> list:
    """Every item of a list endpoint, following its `next` links; each page's size and total checked."""
    items: list = []
    while path:
        doc = board.json(path)
        assert len(doc[key]) <= doc["limit"] and doc["total"] >= len(items) + len(doc[key])
        items += doc[key]
        path = doc["next"]
    return items


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_list_endpoint_is_paginated(backend: str, tmp_path) -> None:
    with running_board(backend, tmp_path) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        for slug in ("toy", "toy-b", "toy-c"):
            assert releval("benchmark", slug, str(gold), "--resamples", "20", env=board.env).returncode == 0
        open_benchmark(board, "toy")
        runs = []
        for i in range(5):
            status, out = board.submit("toy", f"e{i}", synthetic.jsonl(synthetic.predictions(i)), f"e{i}.jsonl")
            assert status == 201, out
            runs.append(out["run"])
        status, out = board.submit("toy", "e0", synthetic.jsonl(synthetic.predictions(9)), "e0b.jsonl", seed="2")
        assert status == 201, out
        runs.append(out["run"])
        assert board.request("DELETE", f"/api/v1/runs/{runs[4]}", token=board.admin)[0] == 200  # e4 withdrawn
        board.wait_idle()

        first = board.json("/api/v1/benchmarks?limit=2")
        assert [b["slug"] for b in first["benchmarks"]] == ["toy", "toy-b"] and first["total"] == 3
        assert first["next"] == "/api/v1/benchmarks?limit=2&page=2" and first["previous"] is None
        second = board.json(first["next"])
        assert [b["slug"] for b in second["benchmarks"]] == ["toy-c"] and second["next"] is None
        assert second["previous"] == "/api/v1/benchmarks?limit=2&page=1"
        assert [b["slug"] for b in _collect(board, "/api/v1/benchmarks?limit=1", "benchmarks")] == [
            "toy",
            "toy-b",
            "toy-c",
        ]
        assert board.json("/api/v1/benchmarks")["limit"] == 100  # the default

        entries = _collect(board, "/api/v1/benchmarks/toy/entries?limit=2", "entries")
        assert [(e["name"], e["runs"], e["withdrawn"]) for e in entries] == [
            ("e0", 2, False),
            ("e1", 1, False),
            ("e2", 1, False),
            ("e3", 1, False),
            ("e4", 0, True),
        ]
        listed = _collect(board, "/api/v1/benchmarks/toy/runs?limit=2", "runs")
        assert [r["run"] for r in listed] == [r for r in runs if r != runs[4]]
        assert all(r["status"] == "scored" for r in listed)
        measures = _collect(board, "/api/v1/benchmarks/toy/measures?limit=2", "measures")
        assert [m["name"] for m in measures] == ["micro", "weighted", "dodrans", "entropy", "macro"]

        whole = board.json("/api/v1/benchmarks/toy/board")
        assert sorted(r["name"] for r in whole["rows"]) == ["e0", "e1", "e2", "e3"]  # the withdrawn entry is no row
        assert whole["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro"], board.json(
            "/api/v1/benchmarks/toy"
        )["measures_off"]
        ranks = [r["cells"]["micro"]["rank"] for r in whole["rows"]]
        assert ranks == sorted(ranks)  # rows in rank order
        paged = _collect(board, "/api/v1/benchmarks/toy/board?limit=3", "rows")
        assert paged == whole["rows"]  # ranks and ties are the whole board's on every page

        for query in ("limit=0", "limit=1001", "page=0", "page=x"):
            status, body, headers = board.request("GET", f"/api/v1/benchmarks/toy/entries?{query}")
            assert status == 400 and headers["Content-Type"] == "application/json", query
            assert json.loads(body)["error"].startswith(query.split("=")[0]), body
        assert board.json("/api/v1/benchmarks/toy/runs?page=9")["runs"] == []


def test_serve_on_a_taken_port_is_one_line_exit_2(tmp_path) -> None:
    """`releval serve` on a port another process listens on: one line naming the port, exit 2 (was an internal
    error, exit 3)."""
    import socket

    from tests.service.boards import board_env

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = board_env(f"sqlite:///{tmp_path / 'b.sqlite3'}", tmp_path)
        done = releval("serve", "--port", str(port), "--no-examples", "--workers", "0", env=env, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.strip().splitlines() == [
        f"error: --port {port}: cannot listen on 127.0.0.1:{port}: address already in use "
        "(another server there? choose another --port)"
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_lookalike_of_another_entry_name_is_refused(backend: str, tmp_path) -> None:
    """Entry names are compared after confusable folding: a homoglyph copy of an existing name is refused (409)
    naming the entry it imitates, nothing stored; a different name is taken."""
    with running_board(backend, tmp_path, workers=0) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "toy", str(gold), "--resamples", "20", env=board.env).returncode == 0
        open_benchmark(board, "toy")
        alice, mallory = board.token("alice"), board.token("mallory")
        data = synthetic.jsonl(synthetic.predictions(1))
        assert board.submit("toy", "R-BERT", data, "a.jsonl", token=alice)[0] == 201
        for lookalike in (
            "R-\u0412\u0415RT",  # Cyrillic В and Е
            "\uff32\uff0d\uff22\uff25\uff32\uff34",  # full width
            "R\u2010BERT",  # a hyphen from the punctuation block
            "r-bert",
            "R-BE\u0301RT",  # an accent
            "R-BERT\u00ad",  # a soft hyphen at the end: Default_Ignorable, shown as nothing
            "R-BERT\u180e",  # the Mongolian vowel separator: the same
            "R-\ufe0fBERT",  # a variation selector inside
        ):
            status, out = board.submit("toy", lookalike, data, "m.jsonl", token=mallory)
            assert status == 409, (lookalike, status, out)
            assert out["error"].startswith(f"entry {lookalike!r} looks the same as the entry 'R-BERT' on toy"), out
        assert board.submit("toy", "R-BERT", data, "m.jsonl", token=mallory)[0] == 403  # the same name: alice's
        assert board.submit("toy", "R-BERT (re-run)", data, "m.jsonl", token=mallory)[0] == 201
        entries = board.json("/api/v1/benchmarks/toy/entries")["entries"]
        assert [e["name"] for e in entries] == ["R-BERT", "R-BERT (re-run)"]


def _form_post(board, path: str, fields: dict[str, str], cookies: dict[str, str]) -> tuple[int, dict[str, str]]:
    """POST a page's form without following the redirect: (status, cookies set)."""
    import http.client
    import urllib.parse
    from http.cookies import SimpleCookie

    host = urllib.parse.urlsplit(board.url)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=60)
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()),
    }
    conn.request("POST", path, urllib.parse.urlencode(fields), headers)
    response = conn.getresponse()
    response.read()
    jar = SimpleCookie()
    for value in response.headers.get_all("Set-Cookie") or []:
        jar.load(value)
    conn.close()
    return response.status, {k: m.value for k, m in jar.items()}


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_organiser_signs_in_to_see_the_pages_in_full_during_a_hidden_phase(backend: str, tmp_path) -> None:
    import re

    with running_board(backend, tmp_path) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "hid", str(gold), "--resamples", "20", env=board.env).returncode == 0
        bob = board.token("bob")
        status, out = board.submit("hid", "bob-net", synthetic.jsonl(synthetic.predictions(1)), "b.jsonl", token=bob)
        assert status == 201, out
        board.wait_idle()
        entry = f"/b/hid/entry/{board.json('/api/v1/benchmarks/hid/board')['rows'][0]['entry']}/"

        def pages(cookie: str | None) -> tuple[str, str]:
            headers = {"Cookie": f"releval_viewer={cookie}"} if cookie else {}
            return tuple(board.request("GET", p, headers=headers)[1].decode() for p in ("/b/hid/", entry))

        page, entry_page = pages(None)
        assert 'id="hidden-phase"' in page and 'id="organiser-view"' in page
        assert 'id="per-class"' not in entry_page

        # the sign-in form is CSRF-protected: the token from the page and its cookie
        status, body, headers = board.request("GET", "/b/hid/")
        csrf_cookie = re.search(r"csrftoken=([^;]+)", headers["Set-Cookie"]).group(1)
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body.decode()).group(1)
        assert _form_post(board, "/b/hid/viewer", {"token": board.admin}, {})[0] == 403  # no CSRF token
        signed_in = {}
        for name, token in (("bob", bob), ("admin", board.admin)):
            fields = {"token": token, "csrfmiddlewaretoken": csrf}
            status, cookies = _form_post(board, "/b/hid/viewer", fields, {"csrftoken": csrf_cookie})
            assert status == 302 and "releval_viewer" in cookies, (status, cookies)
            signed_in[name] = cookies["releval_viewer"]
        status, cookies = _form_post(
            board, "/b/hid/viewer", {"token": "rlv_nope", "csrfmiddlewaretoken": csrf}, {"csrftoken": csrf_cookie}
        )
        assert status == 401 and "releval_viewer" not in cookies

        page, entry_page = pages(signed_in["admin"])  # the organiser (an admin): everything
        assert 'id="hidden-phase"' not in page and "Signed in as admin" in page
        assert 'id="per-class"' in entry_page
        page, entry_page = pages(signed_in["bob"])  # a submitter signed in: still the hidden view
        assert 'id="hidden-phase"' in page and 'id="per-class"' not in entry_page
        page, entry_page = pages(signed_in["bob"].replace(signed_in["bob"].split(":")[0], "1", 1))  # forged: nobody
        assert 'id="hidden-phase"' in page and 'id="per-class"' not in entry_page
        assert "Signed in" not in page
        # the API takes no cookie: the JSON board stays redacted without a bearer token
        status, body, _ = board.request(
            "GET", "/api/v1/benchmarks/hid/board", headers={"Cookie": f"releval_viewer={signed_in['admin']}"}
        )
        assert json.loads(body)["hidden_phase"] == "test"


def test_serve_stops_on_sigterm_while_it_answers_requests(tmp_path) -> None:
    """SIGTERM (or Ctrl-C) stops `releval serve` at once — exit 0, one line — even while it is answering requests.
    (The signal's exception was raised inside waitress's event loop when it landed during a connection's handler;
    waitress logged it and went on serving, and the board ignored every later signal.) Four clients keep the server
    busy, so most signals land during a handler; three servers in turn make a miss unlikely to go unseen."""
    import http.client
    import signal
    import threading
    import urllib.request

    from tests.service.boards import _wait_up, board_env, free_port

    env = board_env(f"sqlite:///{tmp_path / 'b.sqlite3'}", tmp_path)
    for attempt in range(3):
        port = free_port()
        log_path = tmp_path / f"serve{attempt}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "releval", "serve", "--port", str(port), "--no-examples", "--workers", "1"],
                env=env, stdout=log, stderr=log,
            )  # fmt: skip
            board = type("B", (), {"process": proc, "url": f"http://127.0.0.1:{port}"})()
            _wait_up(board, log_path)  # type: ignore[arg-type]
            done = threading.Event()

            def hammer(url: str = board.url, done: threading.Event = done) -> None:
                while not done.is_set():
                    try:
                        with urllib.request.urlopen(url + "/api/v1/queue", timeout=5) as r:
                            r.read()
                    except (OSError, http.client.HTTPException):  # the server stopped mid-answer
                        pass

            clients = [threading.Thread(target=hammer, daemon=True) for _ in range(4)]
            for c in clients:
                c.start()
            time.sleep(0.3)
            proc.send_signal(signal.SIGTERM)
            try:
                code = proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = None
            finally:
                done.set()
                for c in clients:
                    c.join()
        text = log_path.read_text(errors="replace")
        assert code == 0, f"attempt {attempt}: still serving 10 s after SIGTERM (or exit {code})\n{text[-2000:]}"
        # one line says it stopped, not as an error (it was `error: terminated by SIGTERM` and exit 143); waitress's
        # threads may still log a line after it
        assert "releval board stopped (SIGTERM)" in text.splitlines(), text[-2000:]
        assert "uncaptured python exception" not in text, text[-2000:]
        assert "error:" not in text, text[-2000:]
