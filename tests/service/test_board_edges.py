"""The board's last holes (issue 34, item 3): requests that reached a 500 or an HTML page under /api/ now answer a
JSON 400 or an empty page, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re

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


def _csrf(board, path: str) -> tuple[str, str]:
    """The CSRF cookie a form page sets and the token its form carries."""
    import re

    status, body, headers = board.request("GET", path)
    assert status == 200, body[:300]
    cookie = re.search(r"csrftoken=([^;]+)", headers["Set-Cookie"]).group(1)
    return cookie, re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body.decode()).group(1)


def _post_form(board, path: str, body: bytes, content_type: str, cookie: str) -> tuple[int, str, str]:
    """POST a form without following a redirect: (status, Location, page)."""
    import http.client
    import urllib.parse

    host = urllib.parse.urlsplit(board.url)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=60)
    conn.request("POST", path, body, {"Content-Type": content_type, "Cookie": f"csrftoken={cookie}"})
    response = conn.getresponse()
    page = response.read().decode()
    conn.close()
    return response.status, response.headers.get("Location", ""), page


def test_forms_redirect_after_post_submit_wait_exits_3_while_queued_and_the_log_is_one_line(tmp_path) -> None:
    """Issue 34 item 7: a form's success is 303 See Other to a page saying what was done (it was 200: a reload sent
    the form again); `releval submit --wait` exits 3 when the wait ends with the run still queued (it exited 0); the
    server's log has one line per warning (no Python source path, no traceback for a refused Host header) and a
    stop is one line, exit 0 (it was `error: terminated by SIGTERM`)."""
    import subprocess
    import sys
    import urllib.parse

    from releval.service.client import multipart

    gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
    with running_board("sqlite", tmp_path, workers=0) as board:
        # the new-benchmark form: 303 to ?created=SLUG, which names it
        cookie, csrf = _csrf(board, "/benchmarks/new")
        fields = {"slug": "toy", "title": "Toy", "resamples": "20", "token": board.admin, "csrfmiddlewaretoken": csrf}
        body, content_type = multipart(fields, "gold.jsonl", gold.read_bytes())
        status, location, _ = _post_form(board, "/benchmarks/new", body, content_type, cookie)
        assert (status, location) == (303, "/benchmarks/new?created=toy")
        page = board.request("GET", location)[1].decode()
        assert 'id="created"' in page and "Toy</a> created: 300 items." in page
        # its task list is every task of the registry with a paired comparison, in the registry's order (the board
        # names none: releval.service.board_tasks.board_tasks)
        from releval.registry import TASKS, get_task

        offered = re.findall(r'<option value="([^"]+)"', page)
        assert offered == [name for name in TASKS if get_task(name).compare is not None] and offered[0] == "rc"
        open_benchmark(board, "toy")

        # the submission form: 303 to ?run=ID; reloading that page stores nothing more
        cookie, csrf = _csrf(board, "/b/toy/submit")
        fields = {"entry": "web", "seed": "1", "token": board.admin, "csrfmiddlewaretoken": csrf}
        body, content_type = multipart(fields, "p.jsonl", synthetic.jsonl(synthetic.predictions(1)))
        status, location, _ = _post_form(board, "/b/toy/submit", body, content_type, cookie)
        assert status == 303 and location.startswith("/b/toy/submit?run="), (status, location)
        run = int(urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["run"][0])
        for _ in range(2):
            page = board.request("GET", location)[1].decode()
            assert f"Stored run {run} of web (seed 1); it is being scored." in page
        assert [r["run"] for r in board.json("/api/v1/benchmarks/toy/runs")["runs"]] == [run]
        # a refusal stays on the form, with its status and the reason (nothing to redirect to)
        fields["token"] = "rlv_nope"
        body, content_type = multipart(fields, "p.jsonl", synthetic.jsonl(synthetic.predictions(2)))
        status, location, page = _post_form(board, "/b/toy/submit", body, content_type, cookie)
        assert (status, location) == (401, "") and 'id="error"' in page and "unknown token" in page
        # the measure form of the board page: 303 to a page that names the measure
        cookie, csrf = _csrf(board, "/b/toy/submit")
        form = urllib.parse.urlencode({"measure": "power:0.5", "token": board.admin, "csrfmiddlewaretoken": csrf})
        status, location, _ = _post_form(
            board, "/b/toy/measures", form.encode(), "application/x-www-form-urlencoded", cookie
        )
        assert (status, location) == (303, "/b/toy/measures?registered=power%3A0.5")
        assert 'id="registered"' in board.request("GET", location)[1].decode()

        # --wait ends with the run still queued (no worker here): the run printed, one line, exit 3
        pred = synthetic.write(tmp_path / "p.jsonl", synthetic.gold_labels())  # gold itself: a warning when scored
        args = ["submit", str(pred), "--board", board.url, "--token", board.admin, "--benchmark", "toy"]
        done = releval(*args, "--entry", "queued", "--wait", "0.5", env=board.env)
        assert done.returncode == 3, (done.stdout, done.stderr)
        out = json.loads(done.stdout)
        assert out["status"] == "queued"
        assert done.stderr.strip() == (
            f"error: run {out['run']} is still queued after waiting 0.5 s: it is stored and will be scored; "
            f"see GET /api/v1/runs/{out['run']}"
        )
        # scored once a worker runs; the same command with a long wait then exits 0
        worker = subprocess.run(
            [sys.executable, "-m", "releval", "worker", "--burst"], env=board.env, capture_output=True, text=True
        )
        assert worker.returncode == 0, worker.stderr
        assert "warning: predictions equal gold: did you pass gold twice?" in worker.stderr
        assert ".py:" not in worker.stderr and "Traceback" not in worker.stderr, worker.stderr
        done = releval(*args, "--entry", "queued", "--seed", "2", "--wait", "0", env=board.env)
        assert done.returncode == 0 and json.loads(done.stdout)["status"] == "queued"  # no wait asked: not an error

        # lines a client's mistakes put in the server's log
        assert board.request("GET", "/api/v1/nothing")[0] == 404
        assert board.request("GET", "/api/v1/queue", headers={"Host": "evil.example"})[0] == 400
    log = (tmp_path / "serve.log").read_text()
    lines = log.splitlines()
    assert "warning: Not Found: /api/v1/nothing" in lines
    assert lines.count("warning: Not Found: /api/v1/nothing") == 1  # once (it was printed twice)
    assert any(line.startswith("warning: Invalid HTTP_HOST header: 'evil.example'") for line in lines), log
    assert "Traceback" not in log and ".py" not in log, log
    assert "releval board stopped (SIGTERM)" in lines and "error:" not in log, log


def _micro(pred: list[str], gold: list[str]) -> float:
    """Micro F over the labels other than no_relation (the synthetic benchmark's negative class), by hand."""
    tp = sum(p == g != "no_relation" for p, g in zip(pred, gold))
    n_pred = sum(p != "no_relation" for p in pred)
    n_gold = sum(g != "no_relation" for g in gold)
    return 2 * tp / (n_pred + n_gold)


def _same_when_rounded(gold: list[str]) -> tuple[list[str], list[str]]:
    """Two prediction lists whose micro F differ but round to the same whole percentage (neither near a .5)."""
    first = synthetic.predictions(1)
    f1 = 100 * _micro(first, gold)
    for i, label in enumerate(first):
        if label == gold[i] or gold[i] == "no_relation":
            continue
        second = [*first[:i], gold[i], *first[i + 1 :]]  # one wrong item made right
        f2 = 100 * _micro(second, gold)
        if f1 != f2 and round(f1) == round(f2) and all(abs(f % 1 - 0.5) > 0.05 for f in (f1, f2)):
            return first, second
    raise AssertionError("no such pair")


@pytest.mark.parametrize("backend", BACKENDS)
def test_hidden_phase_refuses_labels_outside_gold_and_marks_the_best_shown_value(backend: str, tmp_path) -> None:
    """Issue 34 item 5. During a hidden phase a test upload predicting labels gold lacks is refused in every format
    (decoys tuned micro F's denominator until the rounded value gave away the exact count of correct items), and
    ★ goes to every entry showing the highest rounded value (it went to the highest exact value, so two entries
    showing the same number were told apart; so did their order)."""
    gold = synthetic.gold_labels()
    with running_board(backend, tmp_path) as board:
        path = synthetic.write(tmp_path / "gold.jsonl", gold)
        assert releval("benchmark", "hid", str(path), "--resamples", "50", env=board.env).returncode == 0
        phases = {"phases": [{"name": "test", "start": "2020-01-01T00:00:00Z", "digits": 0, "daily_limit": None}]}
        status, out, _ = board.request(
            "PUT", "/api/v1/benchmarks/hid/phases", json.dumps(phases).encode(), token=board.admin
        )
        assert status == 200, out
        alice, bob = board.token("alice"), board.token("bob")

        decoys = synthetic.predictions(1)
        decoys[:40] = ["Z"] * 20 + ["Y"] * 20  # forty predictions of labels gold has nowhere
        tsv = "".join(f"x{i}\t{label}\n" for i, label in enumerate(decoys)).encode()
        for data, name in ((synthetic.jsonl(decoys), "decoys.jsonl"), (tsv, "decoys.tsv")):
            status, out = board.submit("hid", "probe", data, name, token=alice)
            assert status == 400, (name, status, out)
            assert out["error"] == (
                f"{name}: 2 predicted label(s) that gold does not have ('Y', 'Z'): refused while the test phase "
                "hides the test labels (a label outside gold is never right; predict one of gold's labels, or the "
                "negative class)"
            ), out
        assert board.json("/api/v1/benchmarks/hid/runs")["runs"] == []
        # the organiser (here an admin) sees everything anyway: not refused
        status, out = board.submit("hid", "organiser-decoys", synthetic.jsonl(decoys), "d.jsonl")
        assert status == 201, out

        first, second = _same_when_rounded(gold)
        assert _micro(first, gold) < _micro(second, gold)
        assert board.submit("hid", "alice-net", synthetic.jsonl(first), "a.jsonl", token=alice)[0] == 201
        assert board.submit("hid", "bob-net", synthetic.jsonl(second), "b.jsonl", token=bob)[0] == 201
        board.wait_idle()
        shown = {r["name"]: r["cells"]["micro"] for r in board.json("/api/v1/benchmarks/hid/board")["rows"]}
        assert shown["alice-net"]["value"] == shown["bob-net"]["value"] == round(100 * _micro(first, gold)) / 100
        assert shown["alice-net"]["tie"] == shown["bob-net"]["tie"] == "best"
        assert shown["alice-net"]["rank"] == shown["bob-net"]["rank"] == 1
        # entry order among equal shown values (bob's higher exact value came first before)
        names = [r["name"] for r in board.json("/api/v1/benchmarks/hid/board")["rows"]]
        assert names.index("alice-net") < names.index("bob-net"), names
        # the organiser's full view: the exact values, one ★
        status, body, _ = board.request("GET", "/api/v1/benchmarks/hid/board", token=board.admin)
        full = {r["name"]: r["cells"]["micro"] for r in json.loads(body)["rows"]}
        assert full["bob-net"]["value"] == pytest.approx(_micro(second, gold), abs=1e-15)
        assert full["bob-net"]["tie"] == "best" and full["alice-net"]["tie"] != "best"
