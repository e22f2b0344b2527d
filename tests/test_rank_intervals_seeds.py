"""Rank intervals over seeds (issue 33 item 4): a system given several runs is ranked in every resample by the mean
of its runs' measure, every run on the same drawn units — for the joint draw of every task (e2e, DocRED, FewRel,
DrugProt) as for rc's (releval.significance.ranks, the board's definition), and on the command line for every task
that declares rank intervals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from releval import cli
from releval.registry import get_task, tasks_with
from releval.significance.comparison import JointRows, joint_rank_intervals
from releval.significance.config import SignificanceConfig
from releval.significance.ranking import RankInterval
from releval.significance.ranks import rank_intervals as rc_rank_intervals
from releval.significance.tables import SeedTable

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SEMEVAL = EXAMPLES / "semeval2010_task8"
CONLL = EXAMPLES / "conll04" / "conll04_test_first30.json"

cli.register_commands([])


def _accuracy(totals: np.ndarray) -> dict[str, np.ndarray]:
    return {"accuracy": totals[..., 0] / totals[..., 1]}


def _run(correct: np.ndarray) -> np.ndarray:
    """A run's per-unit (correct, 1) rows."""
    return np.stack([correct.astype(float), np.ones(len(correct))], axis=1)


def test_seed_means_rank_as_one_run_holding_both_runs_units() -> None:
    """Two runs' mean accuracy, (c₁/n + c₂/n)/2, is the accuracy of one 'run' whose unit rows are the two runs'
    rows added, (c₁ + c₂)/2n. With n = 64 (a power of two, so both are exact in floating point) and every second run
    correct wherever the first is (so the added rows tell the distinct units apart exactly as the pairs do, in the
    same order), the two joint draws are the same draws: the intervals must agree digit for digit."""
    rng = np.random.default_rng(5)
    n = 64
    runs: dict[str, list[np.ndarray]] = {}
    for k, skill in enumerate((0.55, 0.6, 0.62, 0.8)):
        first = rng.random(n) < skill
        second = first | (rng.random(n) < 0.3)  # correct wherever the first run is
        runs[f"s{k}"] = [_run(first), _run(second)]
    summed = {name: r[0] + r[1] for name, r in runs.items()}
    test = SignificanceConfig(resamples=500, seed=3)
    got = joint_rank_intervals(JointRows(runs, _accuracy), ["accuracy"], test)
    want = joint_rank_intervals(JointRows(summed, _accuracy), ["accuracy"], test)
    assert got == want
    assert any(r["accuracy"].low < r["accuracy"].high for r in got.values())  # close systems: not all exact
    means = {name: np.mean([run[:, 0].mean() for run in r]) for name, r in runs.items()}
    assert [got[name]["accuracy"].rank for name in sorted(means, key=lambda s: -means[s])] == [1, 2, 3, 4]


def test_the_mean_of_the_runs_ranks_not_the_first_run() -> None:
    """By hand: a's runs are right on every unit and wrong on every unit (mean 0.5 in every resample); b's are right
    on every unit and on all units but one (mean > 0.5 unless a resample draws that one unit 50 times). b ranks 1
    in every resample, a 2 — though their first runs tie."""
    n = 50
    ones, zeros = np.ones(n, dtype=bool), np.zeros(n, dtype=bool)
    all_but_one = ones.copy()
    all_but_one[7] = False
    joint = JointRows({"a": [_run(ones), _run(zeros)], "b": [_run(ones), _run(all_but_one)]}, _accuracy)
    got = joint_rank_intervals(joint, ["accuracy"], SignificanceConfig(resamples=300))
    assert got == {"a": {"accuracy": RankInterval(2, 2, 2)}, "b": {"accuracy": RankInterval(1, 1, 1)}}
    firsts = JointRows({"a": _run(ones), "b": _run(ones)}, _accuracy)
    tied = joint_rank_intervals(firsts, ["accuracy"], SignificanceConfig(resamples=300))
    assert tied["a"]["accuracy"] == tied["b"]["accuracy"] == RankInterval(1, 1, 1)


def _e2e_systems(tmp_path: Path) -> tuple[Path, Path, Path]:
    """CoNLL04 systems: gold less one relation ('full'), less a third of the relations ('some')."""
    docs = json.loads(CONLL.read_text())
    paths = []
    for name, keep in (("full", lambda i: True), ("some", lambda i: i % 3)):
        mine = [dict(d, relations=[r for i, r in enumerate(d["relations"]) if keep(i)]) for d in docs]
        if name == "full":
            first = next(d for d in mine if d["relations"])
            first["relations"] = first["relations"][1:]
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(mine))
        paths.append(path)
    return CONLL, paths[0], paths[1]


#: (gold, run a, run b) on each task's bundled example.
CASES = {
    "rc": (SEMEVAL / "test_key_directed.txt", SEMEVAL / "onehaitao_cnn.txt", SEMEVAL / "onehaitao_rbert.txt"),
    "docred": tuple(EXAMPLES / "docred" / f for f in ("redocred_dev_first40.json.gz", "system_a.json.gz",
                                                      "system_b.json.gz")),
    "fewrel": tuple(EXAMPLES / "fewrel" / f for f in ("gold-5-1.json.gz", "pred-bow-5-1.json",
                                                      "pred-between-5-1.json")),
    "drugprot": (EXAMPLES / "drugprot" / "gs-data", EXAMPLES / "drugprot" / "toy-data" / "pred_relations.tsv",
                 EXAMPLES / "drugprot" / "gs-data" / "gs_relations.tsv"),
    "chemprot-blue": tuple(EXAMPLES / "chemprot" / f for f in ("blue_gold.tsv", "blue_sys_a.tsv", "blue_gold.tsv")),
    "chemprot-scibert": tuple(EXAMPLES / "chemprot" / f for f in ("scibert_test_head.txt", "scibert_sys_a.txt",
                                                                  "scibert_sys_b.txt")),
    "ranked": (EXAMPLES / "ranked" / "gold.jsonl", EXAMPLES / "ranked" / "pcnn.jsonl", EXAMPLES / "ranked" / "cnn.tsv"),
}  # fmt: skip

#: Options each task's example needs (the bundled ranked runs predict some facts twice).
OPTIONS = {"ranked": ["--duplicates", "max"]}
SETTINGS = {"ranked": {"duplicates": "max"}}


def _cases(tmp_path: Path, task: str) -> tuple[Path, Path, Path]:
    return _e2e_systems(tmp_path) if task == "e2e" else CASES[task]  # type: ignore[return-value]


def test_every_task_with_a_comparison_declares_rank_intervals() -> None:
    assert set(tasks_with("rank_intervals")) == set(tasks_with("compare")) == {"e2e", *CASES}


@pytest.mark.parametrize("task", ["e2e", *CASES])
def test_two_systems_of_the_same_two_runs_tie_in_every_resample(
    task: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """x = (a, b) and y = (b, a): the same two runs in another order have the same mean in every resample
    (addition commutes exactly), so both rank 1 in every resample, under every measure. Ranking by the first run
    alone would rank a against b instead."""
    gold, a, b = _cases(tmp_path, task)
    argv = ["compare", "--task", task, str(gold), "-s", f"x={a},{b}", "-s", f"y={b},{a}", "-R", "200",
            *OPTIONS.get(task, []), "--rank-intervals", "-f", "json"]  # fmt: skip
    assert cli.main(argv) == 0, capsys.readouterr().err
    (table,) = json.loads(capsys.readouterr().out)["results"]
    assert table["kind"] == "seeds" and table["confidence"] == 0.95
    assert "|resamples:200|seed:" in table["signature"] and "|confidence:0.95|" in table["signature"]
    assert cli.main(argv[:-3] + ["-f", "json"]) == 0  # without the intervals: no draw, none of its settings signed
    assert "resamples" not in json.loads(capsys.readouterr().out)["results"][0]["signature"]
    ranks = table["rank_intervals"]
    assert set(ranks) == {"x", "y"} and set(ranks["x"]) == set(table["metrics"])
    for name in ("x", "y"):
        for metric in table["metrics"]:
            assert ranks[name][metric] == {"rank": 1, "low": 1, "high": 1}, (name, metric)


@pytest.mark.parametrize("task", ["e2e", *CASES])
def test_runs_repeated_rank_as_one_file_per_system(task: str, tmp_path: Path) -> None:
    """x = (a, a), y = (b, b): the mean of a run and itself is the run's measure exactly, and the repeated columns
    leave the distinct units and their order unchanged, so the intervals are the single-file intervals digit for
    digit."""
    gold, a, b = _cases(tmp_path, task)
    the_task = get_task(task)
    assert the_task.rank_intervals is not None
    test = SignificanceConfig(resamples=200, seed=11)
    config = the_task.config(**SETTINGS.get(task, {}))
    one = the_task.rank_intervals(gold, {"x": [a], "y": [b]}, config, test)
    two = the_task.rank_intervals(gold, {"x": [a, a], "y": [b, b]}, config, test)
    assert one == two


def test_compare_over_seeds_is_the_boards_rank_intervals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """rc over seeds on the command line: releval.significance.ranks.rank_intervals (the board's, validated there)
    on the same runs, resamples and seed; the text view shows the intervals."""
    runs = {"x": [SEMEVAL / "onehaitao_cnn.txt", SEMEVAL / "onehaitao_crcnn.txt"],
            "y": [SEMEVAL / "onehaitao_attcnn.txt", SEMEVAL / "onehaitao_attblstm.txt"],
            "z": [SEMEVAL / "onehaitao_rbert.txt", SEMEVAL / "onehaitao_crcnn.txt"]}  # fmt: skip
    gold = SEMEVAL / "test_key_directed.txt"
    specs = [x for name, paths in runs.items() for x in ("-s", f"{name}={paths[0]},{paths[1]}")]
    argv = ["compare", str(gold), *specs, "-R", "300", "--seed", "4", "--rank-intervals"]
    assert cli.main([*argv, "-f", "json"]) == 0, capsys.readouterr().err
    table = json.loads(capsys.readouterr().out)["results"][0]
    assert SeedTable.from_dict(table).to_dict() == table  # the intervals and their level read back
    got = table["rank_intervals"]
    from releval.tasks.classification import ClassificationConfig

    want = rc_rank_intervals(gold, runs, ClassificationConfig(), SignificanceConfig(resamples=300, seed=4))
    assert got == {s: {m: r.to_dict() for m, r in per.items()} for s, per in want.items()}
    assert got["z"]["micro"]["rank"] == 1
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "Rank (bootstrap 95% rank interval) per average" in text
