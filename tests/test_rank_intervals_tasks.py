"""Rank intervals for every task with a comparison, any number of systems (issue 33 item 4): the bounds read off a
count of ranks equal `rank_bounds` on the ranks themselves; systems built far apart get exact ranks; `compare
--rank-intervals` works for e2e, DocRED, FewRel and DrugProt; memory does not grow with the resamples."""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from releval import cli
from releval.significance.comparison import JointRows, bounds_of_counts, joint_rank_intervals
from releval.significance.config import SignificanceConfig
from releval.significance.ranking import rank_bounds

ROOT = Path(__file__).resolve().parents[1]
CONLL = ROOT / "examples" / "conll04" / "conll04_test_first30.json"
DOCRED = ROOT / "examples" / "docred"

cli.register_commands([])


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("confidence", [0.95, 0.9, 0.5, 0.999])
def test_bounds_of_counts_are_rank_bounds(seed: int, confidence: float) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 30))
    ranks = rng.integers(1, k + 1, size=int(rng.integers(1, 3000)))
    counts = np.bincount(ranks - 1, minlength=k)
    assert bounds_of_counts(counts, confidence) == rank_bounds(ranks, confidence)


def _accuracy_rows(n: int, rates: list[float], seed: int) -> dict[str, np.ndarray]:
    rng = random.Random(seed)
    return {f"s{k}": np.array([[1.0, 1.0] if rng.random() > r else [0.0, 1.0] for _ in range(n)]) for k, r in
            enumerate(rates)}  # fmt: skip


def _accuracy(totals: np.ndarray) -> dict[str, np.ndarray]:
    return {"accuracy": totals[..., 0] / totals[..., 1]}


def test_systems_far_apart_have_exact_ranks_and_close_ones_overlap() -> None:
    rows = _accuracy_rows(2000, [0.05, 0.3, 0.6, 0.61], seed=3)
    got = joint_rank_intervals(JointRows(rows, _accuracy), ["accuracy"], SignificanceConfig(resamples=400, seed=1))
    assert [(got[s]["accuracy"].low, got[s]["accuracy"].high) for s in ("s0", "s1")] == [(1, 1), (2, 2)]
    assert got["s2"]["accuracy"].low == 3 and got["s3"]["accuracy"].high == 4
    assert got["s2"]["accuracy"].high == 4 or got["s3"]["accuracy"].low == 3  # 1 point apart on 2,000 items
    observed = {s: r[:, 0].mean() for s, r in rows.items()}
    order = sorted(observed, key=lambda s: -observed[s])
    assert [got[s]["accuracy"].rank for s in order] == [1, 2, 3, 4]


def test_a_thousand_systems_in_memory_that_does_not_grow_with_the_resamples() -> None:
    """1,000 entries: only a count of ranks (1,000 × 1,000 per measure) is kept, never every resample's scores, so
    the peak of 1,024 resamples is that of 256 (the scores alone would be 8 MB per 1,000 resamples)."""
    rng = np.random.default_rng(0)
    skill = rng.uniform(0.3, 0.9, 1000)
    correct = rng.random((300, 1000)) < skill
    rows = {f"s{k}": np.stack([correct[:, k].astype(float), np.ones(300)], axis=1) for k in range(1000)}
    peaks = {}
    for resamples in (256, 1024):  # one block of resamples, and four
        tracemalloc.start()
        got = joint_rank_intervals(JointRows(rows, _accuracy), ["accuracy"], SignificanceConfig(resamples=resamples))
        peaks[resamples] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert len(got) == 1000
        best = max(rows, key=lambda s: rows[s][:, 0].mean())
        assert got[best]["accuracy"].rank == 1 and got[best]["accuracy"].low == 1
    assert peaks[1024] < 1.2 * peaks[256], peaks


@pytest.mark.parametrize(
    ("task", "gold", "preds"),
    [
        ("docred", DOCRED / "redocred_dev_first40.json.gz", [DOCRED / "system_a.json.gz", DOCRED / "system_b.json.gz"]),
        ("fewrel", ROOT / "examples" / "fewrel" / "gold-5-1.json.gz",
         [ROOT / "examples" / "fewrel" / "pred-bow-5-1.json", ROOT / "examples" / "fewrel" / "pred-between-5-1.json"]),
    ],
)  # fmt: skip
def test_compare_rank_intervals_for_other_tasks(
    task: str, gold: Path, preds: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", "--task", task, str(gold), *map(str, preds), "-R", "300", "--rank-intervals", "-f", "json"]
    assert cli.main(argv) == 0, capsys.readouterr().err
    result = json.loads(capsys.readouterr().out)["results"][0]
    ranks = result["rank_intervals"]
    for metric in result["metrics"]:
        by_score = sorted(result["scores"], key=lambda n: -result["scores"][n][metric])
        assert ranks[by_score[0]][metric]["rank"] == 1  # the shown rank is the observed scores' order
        for name in result["scores"]:
            r = ranks[name][metric]
            assert 1 <= r["low"] <= r["rank"] <= r["high"] <= len(preds) or r["low"] <= r["high"]


def test_compare_rank_intervals_for_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Three CoNLL04 systems: gold less nothing, less a third of the relations, less every relation."""
    docs = json.loads(CONLL.read_text())
    systems = []
    for name, keep in (("full", lambda i, r: True), ("some", lambda i, r: i % 3), ("none", lambda i, r: False)):
        mine = [dict(d, relations=[r for i, r in enumerate(d["relations"]) if keep(i, r)]) for d in docs]
        if name == "full":  # gold itself would be warned: one relation less
            first = next(d for d in mine if d["relations"])
            first["relations"] = first["relations"][1:]
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(mine))
        systems.append(path)
    argv = ["compare", "--task", "e2e", str(CONLL), *map(str, systems), "-R", "300", "--rank-intervals", "-f", "json"]
    assert cli.main(argv) == 0, capsys.readouterr().err
    ranks = json.loads(capsys.readouterr().out)["results"][0]["rank_intervals"]
    assert ranks["full"]["strict:micro"] == {"rank": 1, "low": 1, "high": 1}
    assert ranks["none"]["strict:micro"] == {"rank": 3, "low": 3, "high": 3}
