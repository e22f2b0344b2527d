"""The evaluation of a benchmark's measures on the board (issue 33 item 3) and rank intervals of every task with a
comparison (item 4). Each number is checked against an independent computation over the board's own stored scores
or against `releval compare` run on the same files in another process:

* Kendall's τ-b between two measures: SciPy's `kendalltau` over the entries' values the board shows;
* discriminative power: the pairs of `releval compare`'s table (all pairs, Holm) whose adjusted p is below α, counted
  here;
* flips: the entry pairs whose order under micro and under the other measure differ, counted here from the values
  the board shows;
* the whole evaluation equals `releval compare --evaluate-measures` of the same files in the board's entry order;
* rank intervals of an e2e and a DocRED board equal `releval compare --task T --rank-intervals`.
"""

from __future__ import annotations

import csv
import io
import json
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from tests.service import synthetic
from tests.service.boards import BACKENDS, SQLITE_ONLY, Board, open_benchmark, releval, running_board

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: Four systems of different error rates (two close to each other) on the synthetic 300-item benchmark.
ERRORS = {"a": 0.20, "b": 0.22, "c": 0.30, "d": 0.45}


@pytest.mark.parametrize("backend", BACKENDS)
def test_measures_page_equals_an_independent_computation(backend: str, tmp_path: Path) -> None:
    from scipy.stats import kendalltau

    with running_board(backend, tmp_path) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "meta", str(gold), "--resamples", "200", env=board.env).returncode == 0
        open_benchmark(board, "meta")
        paths = {}
        for i, (name, error) in enumerate(ERRORS.items()):
            paths[name] = synthetic.write(tmp_path / f"{name}.jsonl", synthetic.predictions(20 + i, error))
            status, out = board.submit("meta", name, paths[name].read_bytes(), f"{name}.jsonl")
            assert status == 201, out
        board.wait_idle()
        doc = board.json("/b/meta/measures.json")
        assert doc["measures"] == ["micro", "weighted", "dodrans", "entropy", "macro"]
        assert doc["entries"] == list(ERRORS)  # entry order

        # a contributed measure is evaluated as soon as it is registered
        body = json.dumps({"name": "power:0.5"}).encode()
        assert board.request("POST", "/api/v1/benchmarks/meta/measures", body, token=board.admin)[0] == 201
        board.wait_idle()
        doc = board.json("/api/v1/benchmarks/meta/measures/evaluation")
        assert doc == board.json("/b/meta/measures.json")
        measures = doc["measures"]
        assert measures[-1] == "power:0.5"

        rows_shown = board.json("/b/meta/board.json")["rows"]
        shown = {r["name"]: {m: r["cells"][m]["value"] for m in measures} for r in rows_shown}
        names = list(ERRORS)
        for m in measures:  # the scores evaluated are the values the board shows
            assert {n: doc["scores"][n][m] for n in names} == pytest.approx({n: shown[n][m] for n in names}, abs=1e-12)
        taus = {(g["a"], g["b"]): g for g in doc["agreement"]}
        assert set(taus) == set(combinations(measures, 2))
        for (a, b), g in taus.items():
            expected = kendalltau([shown[n][a] for n in names], [shown[n][b] for n in names]).statistic
            assert g["tau_b"] == pytest.approx(expected, abs=1e-12), (a, b)
            low, high = g["interval"]
            assert -1 <= low <= high <= 1

        # flips, counted here from the values shown: micro against each other measure
        flips = {(f["b"], f["first"], f["second"]) for f in doc["flips"]}
        expected_flips = set()
        for other in measures[1:]:
            for x, y in combinations(names, 2):
                dm, do = shown[x]["micro"] - shown[y]["micro"], shown[x][other] - shown[y][other]
                if dm * do < 0:
                    expected_flips.add((other, x, y) if dm > 0 else (other, y, x))
        assert flips == expected_flips

        seed = board.json("/api/v1/benchmarks/meta")["seed"]
        # discriminative power: the pairs of `releval compare`'s own table significant after Holm, counted here;
        # and the whole evaluation is `compare --evaluate-measures` of the same files in the same order
        done = releval(
            "compare", str(gold), *(f"{n}={p}" for n, p in paths.items()), "-R", "200", "--seed", str(seed),
            "--test", "bootstrap", *(a for w in measures[1:] for a in ("-w", w)), "--evaluate-measures",
            "-f", "json", env=board.env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        table = json.loads(done.stdout)["results"][0]
        for p in doc["discriminative_power"]:
            rows = [r for r in table["pairs"] if r["metric"] == p["metric"]]
            assert p["pairs"] == len(rows) == 6
            assert p["significant"] == sum(r["p_adjusted"] < 0.05 for r in rows), p["metric"]
        cli = table["measures"]
        for key in ("discriminative_power", "agreement", "flips", "stability"):
            assert doc[key] == cli[key], key
        assert 0 < doc["discriminative_power"][0]["significant"]  # some pairs separate, the test is not vacuous

        # the CSV holds the same numbers; the figure is an SVG; the page shows the tables and links back
        rows = list(csv.DictReader(io.StringIO(board.request("GET", "/b/meta/measures.csv")[1].decode())))
        tau_rows = {(r["measure"], r["other"]): float(r["value"]) for r in rows if r["section"] == "kendall_tau_b"}
        assert tau_rows == pytest.approx({k: g["tau_b"] for k, g in taus.items()}, abs=1e-12)
        status, svg, headers = board.request("GET", "/b/meta/measures.svg")
        assert status == 200 and headers["Content-Type"] == "image/svg+xml" and svg.lstrip().startswith(b"<?xml")
        page = board.request("GET", "/b/meta/measures")[1].decode()
        assert 'id="power"' in page and 'id="agreement"' in page and 'src="/b/meta/measures.svg"' in page
        assert 'href="/b/meta/measures"' in board.request("GET", "/b/meta/")[1].decode()


def test_measures_page_refusals(tmp_path: Path) -> None:
    """One entry: no pair to evaluate (404 with the reason, never a 500); the API says it as JSON. A hidden phase:
    the organiser's alone."""
    with running_board("sqlite", tmp_path) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        assert releval("benchmark", "one", str(gold), "--resamples", "200", env=board.env).returncode == 0
        open_benchmark(board, "one")
        assert board.submit("one", "a", synthetic.jsonl(synthetic.predictions(1)), "a.jsonl")[0] == 201
        board.wait_idle()
        status, body, _ = board.request("GET", "/b/one/measures")
        assert status == 404 and b"boards of 2 to 60 entries" in body
        status, body, _ = board.request("GET", "/api/v1/benchmarks/one/measures/evaluation")
        assert status == 404 and "has 1" in json.loads(body)["error"]
        assert board.request("GET", "/b/nope/measures")[0] == 404

        # a benchmark in its hidden phase: the evaluation shows every entry's scores and tests, so only the
        # organiser (here an admin's token) reads it; anyone else is told when it is shown
        assert releval("benchmark", "hidden", str(gold), "--resamples", "200", env=board.env).returncode == 0
        for name, seed in (("a", 1), ("b", 2)):
            assert board.submit("hidden", name, synthetic.jsonl(synthetic.predictions(seed)), "p.jsonl")[0] == 201
        board.wait_idle()
        status, body, _ = board.request("GET", "/b/hidden/measures")
        assert status == 403 and b"shown once the" in body and b"phase ends" in body
        status, body, _ = board.request("GET", "/api/v1/benchmarks/hidden/measures/evaluation")
        assert status == 403, body
        status, body, _ = board.request("GET", "/api/v1/benchmarks/hidden/measures/evaluation", token=board.admin)
        assert status == 200 and json.loads(body)["entries"] == ["a", "b"], body


def _e2e_predictions(tmp_path: Path) -> list[Path]:
    """Three CoNLL04 systems: gold with every n-th relation dropped and entity type changed (tests/service)."""
    from tests.service.test_board_e2e import predictions

    out = []
    for n in (7, 4, 3):
        path = tmp_path / f"e2e-{n}.json"
        path.write_text(json.dumps(predictions(n)), encoding="utf-8")
        out.append(path)
    return out


def _compare_ranks(board: Board, doc: dict[str, Any], *args: str) -> dict[str, Any]:
    """`releval compare ARGS --rank-intervals` with the board's resamples, seed and level: its rank intervals."""
    done = releval(
        "compare", *args, "-R", str(doc["resamples"]), "--seed", str(doc["seed"]), "--confidence",
        str(doc["confidence"]), "--rank-intervals", "-f", "json", env=board.env, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout)["results"][0]["rank_intervals"])


@pytest.mark.parametrize("backend", SQLITE_ONLY)
def test_rank_intervals_of_e2e_and_docred_boards_equal_compare(backend: str, tmp_path: Path) -> None:
    """Issue 33 item 4: the board's rank interval of every entry under every measure is `releval compare --task T
    --rank-intervals` of the same files in the board's entry order, with the board's resamples, seed and level."""
    from scipy.stats import kendalltau
    from tests.service.test_board_e2e import GOLD as E2E_GOLD

    boards = {
        "e2e": (E2E_GOLD, _e2e_predictions(tmp_path), ["--ner"]),
        "docred": (
            EXAMPLES / "docred" / "redocred_dev_first40.json.gz",
            [EXAMPLES / "docred" / "system_a.json.gz", EXAMPLES / "docred" / "system_b.json.gz"],
            [],
        ),
    }
    with running_board(backend, tmp_path) as board:
        for task, (gold, systems, _) in boards.items():
            slug = f"ranks-{task}"
            done = releval("benchmark", slug, str(gold), "--task", task, "--resamples", "300", env=board.env)
            assert done.returncode == 0, done.stderr
            open_benchmark(board, slug)
            for i, path in enumerate(systems):
                status, out = board.submit(slug, f"s{i}", path.read_bytes(), path.name)
                assert status == 201, out
        board.wait_idle()
        for task, (gold, systems, options) in boards.items():
            doc = board.json(f"/api/v1/benchmarks/ranks-{task}/board")
            expected = _compare_ranks(
                board, doc, str(gold), "--task", task, *(f"s{i}={p}" for i, p in enumerate(systems)), *options
            )
            got = {r["name"]: {m: c["rank_interval"] for m, c in r["cells"].items()} for r in doc["rows"]}
            assert set(got) == {f"s{i}" for i in range(len(systems))}
            for name, per in got.items():
                assert set(per) == set(doc["measures"]), task
                for m, interval in per.items():
                    want = expected[name][m]
                    assert interval == [want["low"], want["high"]], (task, name, m)
            ranks = {r["name"]: r["cells"][doc["measures"][0]]["rank"] for r in doc["rows"]}
            assert ranks == {n: expected[n][doc["measures"][0]]["rank"] for n in got}, task

            # the measures page of a board of another task: τ-b is SciPy's over the values the board shows
            evaluation = board.json(f"/b/ranks-{task}/measures.json")
            assert evaluation["measures"] == doc["measures"] and evaluation["entries"] == sorted(got)
            values = {m: [r["cells"][m]["value"] for r in sorted(doc["rows"], key=lambda r: r["name"])]
                      for m in doc["measures"]}  # fmt: skip
            for g in evaluation["agreement"]:
                expected_tau = kendalltau(values[g["a"]], values[g["b"]]).statistic
                if expected_tau != expected_tau:  # NaN: a measure constant over the entries
                    assert g["tau_b"] is None, (task, g)
                else:
                    assert g["tau_b"] == pytest.approx(expected_tau, abs=1e-12), (task, g)


def test_rank_intervals_of_1000_systems_keep_no_matrix_of_pairs() -> None:
    """releval.significance.ranks on 1,000 systems: its peak memory stays far below one float per (pair, resample)
    (1,000 · 999 / 2 pairs · 200 resamples · 8 bytes = 799 MB): under a tenth of it (about 30 MB are measured, the
    joint cells of 1,000 systems and their F per resample) — what the board's 1,000-entry rank intervals need. The
    observed ranks are checked against a count made here."""
    import tracemalloc

    import numpy as np

    from releval.significance.config import SignificanceConfig
    from releval.significance.ranks import rank_intervals
    from releval.tasks.classification import ClassificationConfig

    n, k, resamples = 60, 1000, 200
    gold = synthetic.gold_labels(n)
    systems = {f"s{i:04d}": [synthetic.predictions(i, 0.1 + 0.5 * i / k, n)] for i in range(k)}
    config = ClassificationConfig(negative="no_relation", weightings=())
    tracemalloc.start()
    got = rank_intervals(gold, systems, config, SignificanceConfig(resamples=resamples))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < k * (k - 1) // 2 * resamples * 8 / 10, peak
    # the observed ranks: competition ranks of micro F, counted here from gold and predictions
    positive = [g != "no_relation" for g in gold]

    def micro(pred: list[str]) -> float:
        tp = sum(p == g and pos for p, g, pos in zip(pred, gold, positive))
        predicted = sum(p != "no_relation" for p in pred)
        return 2 * tp / (predicted + sum(positive)) if predicted + sum(positive) else 0.0

    f = np.array([micro(runs[0]) for runs in systems.values()])
    for i, name in enumerate(systems):
        r = got[name]["micro"]
        assert r.rank == 1 + int((f > f[i] + 1e-12).sum()), name
        assert 1 <= r.low <= r.high <= k, name


@pytest.mark.slow
def test_rank_intervals_of_a_1000_entry_board_equal_compare(tmp_path: Path) -> None:
    """A board of 1,000 entries (synthetic systems on 60 items; one measure, micro, the others retired) has every
    entry's rank interval, equal to `releval compare --rank-intervals` of the 1,000 files in entry order."""
    n, k = 60, 1000
    # no in-process worker while the 1,000 runs arrive: their jobs queue up and two `releval worker` processes then
    # score them, so the benchmark's tie groups (one job key) are computed a few times, not once per submission
    with running_board("sqlite", tmp_path, workers=0, RELEVAL_DAILY_QUOTA="100000") as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels(n))
        assert releval("benchmark", "large", str(gold), "--resamples", "100", env=board.env).returncode == 0
        open_benchmark(board, "large")
        for measure in ("weighted", "dodrans", "entropy", "macro"):
            status, out, _ = board.request("DELETE", f"/api/v1/benchmarks/large/measures/{measure}", token=board.admin)
            assert status == 200, out
        paths = {}
        for i in range(k):
            name = f"s{i:04d}"
            paths[name] = synthetic.write(tmp_path / f"{name}.jsonl", synthetic.predictions(i, 0.1 + 0.5 * i / k, n))
            status, out = board.submit("large", name, paths[name].read_bytes(), f"{name}.jsonl")
            assert status == 201, out
        for _ in range(2):
            board.start_worker()
        board.wait_idle(timeout=900)
        doc = board.json("/api/v1/benchmarks/large/board")
        assert doc["measures"] == ["micro"]
        expected = _compare_ranks(
            board, doc, str(gold), *(f"{name}={path}" for name, path in paths.items()), "--baseline", "s0000",
            "--test", "bootstrap",
        )  # fmt: skip
        got = {r["name"]: r["cells"]["micro"]["rank_interval"] for r in doc["rows"]}
        assert len(got) == k
        assert got == {name: [expected[name]["micro"]["low"], expected[name]["micro"]["high"]] for name in paths}
        assert len({tuple(v) for v in got.values()}) > 10  # intervals that tell entries apart


def test_rank_intervals_of_an_e2e_board_with_seeds_equal_compare(tmp_path: Path) -> None:
    """An entry with two seeds on an e2e board is ranked by the mean of its runs' measure in each resample: the
    intervals of `releval compare --task e2e --rank-intervals -s s0=a,b -s s1=c,d` (issue 33 item 4, over seeds)."""
    from tests.service.test_board_e2e import GOLD as E2E_GOLD
    from tests.service.test_board_e2e import predictions

    first, second, third = _e2e_predictions(tmp_path)
    fourth = tmp_path / "e2e-2.json"
    fourth.write_text(json.dumps(predictions(2)), encoding="utf-8")
    with running_board("sqlite", tmp_path) as board:
        done = releval("benchmark", "seeds", str(E2E_GOLD), "--task", "e2e", "--resamples", "300", env=board.env)
        assert done.returncode == 0, done.stderr
        open_benchmark(board, "seeds")
        for entry, seed, path in (("s0", "1", first), ("s0", "2", second), ("s1", "1", third), ("s1", "2", fourth)):
            status, out = board.submit("seeds", entry, path.read_bytes(), path.name, seed=seed)
            assert status == 201, out
        board.wait_idle()
        doc = board.json("/api/v1/benchmarks/seeds/board")
        expected = _compare_ranks(
            board,
            doc,
            str(E2E_GOLD),
            "--task",
            "e2e",
            "--ner",
            "-s",
            f"s0={first},{second}",
            "-s",
            f"s1={third},{fourth}",
        )
        got = {r["name"]: {m: c["rank_interval"] for m, c in r["cells"].items()} for r in doc["rows"]}
        assert set(got) == {"s0", "s1"}
        for name, per in got.items():
            for m, interval in per.items():
                assert interval == [expected[name][m]["low"], expected[name][m]["high"]], (name, m)
