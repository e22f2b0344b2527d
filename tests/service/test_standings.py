"""Ranking that means what it shows (issue 24, item 5): an entry with several seeds is shown, starred and tested by
all its seeds (mean with the t interval of the mean, clipped to the measure's range; Welch's t over seeds against
the best, as `releval compare` compares seeds), and every entry has a bootstrap rank interval equal to
`releval compare --rank-intervals` of the same files in the same order, digit for digit. On SQLite and
PostgreSQL."""

from __future__ import annotations

import json
import math

import pytest
from tests.service import synthetic
from tests.service.boards import BACKENDS, open_benchmark, releval, running_board


@pytest.mark.parametrize("backend", BACKENDS)
def test_seeds_rank_by_their_mean_and_rank_intervals_equal_compare(backend: str, tmp_path) -> None:
    from scipy import stats

    with running_board(backend, tmp_path, workers=2) as board:
        gold = synthetic.write(tmp_path / "gold.jsonl", synthetic.gold_labels())
        for slug in ("seeds", "ranks"):
            assert releval("benchmark", slug, str(gold), "--resamples", "200", env=board.env).returncode == 0
            open_benchmark(board, slug)

        # a two-seed entry whose first seed is the best run on the board but whose mean is below a single run
        high, low, single = (synthetic.predictions(s, e) for s, e in ((1, 0.05), (2, 0.45), (3, 0.2)))
        for entry, seed, pred in (("two-seeds", "1", high), ("two-seeds", "2", low), ("one-run", "1", single)):
            status, out = board.submit("seeds", entry, synthetic.jsonl(pred), f"{entry}-{seed}.jsonl", seed=seed)
            assert status == 201, out
        board.wait_idle()
        doc = board.json("/api/v1/benchmarks/seeds/board")
        rows = {r["name"]: r["cells"]["micro"] for r in doc["rows"]}
        two, one = rows["two-seeds"], rows["one-run"]
        assert two["seeds"][0] > one["value"] > two["value"]  # the first seed is above, the mean below
        assert two["value"] == pytest.approx(sum(two["seeds"]) / 2, abs=1e-15)
        assert one["tie"] == "best" and one["rank"] == 1
        assert two["tie"] in ("tied", "below") and two["rank"] == 2 and two["tie_test"] == "welch"
        # the one-run entry is a constant: Welch's t with one side constant is the one-sample t-test (SciPy's)
        expected_p = stats.ttest_1samp(two["seeds"], one["value"]).pvalue
        assert two["p_holm"] == pytest.approx(expected_p, rel=1e-9)  # one comparison: Holm leaves it
        assert two["tie"] == ("tied" if expected_p >= 0.05 else "below")
        # the mean's interval: x̄ ± t(0.975, 1) · s / √2, by hand
        mean, sd = sum(two["seeds"]) / 2, abs(two["seeds"][0] - two["seeds"][1]) / math.sqrt(2)
        half = stats.t.ppf(0.975, 1) * sd / math.sqrt(2)
        # clipped to the measure's range, 0 to 1 (issue 34 item 6: it reached past 1, [9.04, 163.19] on a page)
        assert mean + half > 1 and two["ci_clipped"] is True
        assert two["ci"] == pytest.approx([max(0.0, mean - half), 1.0], rel=1e-12)
        assert two["sd"] == pytest.approx(sd, rel=1e-12)
        assert one["ci_clipped"] is False
        page = board.request("GET", "/b/seeds/")[1].decode()
        low_pct = f"{100 * max(0.0, mean - half):.2f}"
        assert f"95% t interval of the mean [{low_pct}, 100.00] (clipped to the measure&#x27;s range, 0–100)" in page

        # rank intervals: four single runs close to one another
        errors = {"a": 0.24, "b": 0.25, "c": 0.26, "d": 0.35}
        paths = {}
        for i, (name, error) in enumerate(errors.items()):
            paths[name] = synthetic.write(tmp_path / f"{name}.jsonl", synthetic.predictions(10 + i, error))
            status, out = board.submit("ranks", name, paths[name].read_bytes(), f"{name}.jsonl")
            assert status == 201, out
        board.wait_idle()
        doc = board.json("/api/v1/benchmarks/ranks/board")
        done = releval(
            "compare",
            str(gold),
            *(f"{name}={path}" for name, path in paths.items()),  # the board's order: entries as submitted
            "-R",
            str(doc["resamples"]),
            "--seed",
            str(doc["seed"]),
            "--confidence",
            str(doc["confidence"]),
            "--rank-intervals",
            "-f",
            "json",
            env=board.env,
        )
        assert done.returncode == 0, done.stderr
        expected = json.loads(done.stdout)["results"][0]["rank_intervals"]
        got = {
            r["name"]: {m: c["rank_interval"] for m, c in r["cells"].items() if m in doc["measures"]}
            for r in doc["rows"]
        }
        want = {
            n: {m: [v["low"], v["high"]] for m, v in per.items() if m in doc["measures"]} for n, per in expected.items()
        }
        assert got == want
        assert any(low < high for per in got.values() for low, high in per.values())  # not all trivially certain
        ranks = {r["name"]: r["cells"]["micro"]["rank"] for r in doc["rows"]}
        assert ranks == {n: expected[n]["micro"]["rank"] for n in errors}
        page = board.request("GET", "/b/ranks/")[1].decode()
        low, high = got["d"]["micro"]
        assert f'<span class="ci">({low}–{high})</span>' in page and "bootstrap rank interval" in page
