"""The measures evaluated from the systems' runs (issue 33 item 3): Kendall's τ-b equals SciPy's `kendalltau`, the
discriminative power is the share of pairs significant in the comparison's own pair table (counted here from the
rows), and the flips are the pairs two measures order differently (from each system's own score)."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import releval
from conftest import EXAMPLES, SEMEVAL_KEY
from releval.significance.compare import compare_files
from releval.significance.config import SignificanceConfig
from releval.significance.meta import evaluate_measures, tau_b, tau_b_columns
from releval.significance.ranks import joint_system_draws
from releval.tasks.classification import ClassificationConfig

SYSTEMS = sorted((EXAMPLES / "semeval2010_task8").glob("onehaitao_*.txt"))


@pytest.mark.parametrize("seed", range(8))
def test_tau_b_is_scipys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, 12).astype(float)  # ties in both
    y = rng.integers(0, 4, 12).astype(float)
    assert tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    xs, ys = rng.normal(size=(9, 30)), rng.normal(size=(9, 30))
    got = tau_b_columns(xs, ys)
    for r in range(30):
        assert got[r] == pytest.approx(stats.kendalltau(xs[:, r], ys[:, r]).statistic, abs=1e-12)


def test_a_constant_ranking_has_no_tau() -> None:
    assert np.isnan(tau_b(np.array([1.0, 1.0, 1.0]), np.array([1.0, 2.0, 3.0])))
    assert np.isnan(stats.kendalltau([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]).statistic)


@pytest.fixture(scope="module")
def semeval() -> tuple:
    systems = {p.stem.removeprefix("onehaitao_"): [str(p)] for p in SYSTEMS}
    test = SignificanceConfig(("bootstrap",), resamples=1000, seed=5)
    config = ClassificationConfig()
    table = compare_files(str(SEMEVAL_KEY), systems, config, test)
    _, draws = joint_system_draws(str(SEMEVAL_KEY), systems, config, test)
    return systems, table, draws


def test_discriminative_power_counts_the_significant_pairs(semeval: tuple) -> None:
    _, table, draws = semeval
    meta = evaluate_measures(table, draws)
    for power in meta.power:
        rows = [r for r in table.rows if (r.test, r.metric) == (power.test, power.metric)]
        assert power.pairs == len(rows) == 10  # 5 systems
        assert power.significant == sum(r.p_adjusted < 0.05 for r in rows)
        if power.significant:
            assert power.smallest == min(abs(r.effect) for r in rows if r.p_adjusted < 0.05)


def test_agreement_is_kendalls_tau_of_the_systems_own_scores(semeval: tuple) -> None:
    systems, table, draws = semeval
    meta = evaluate_measures(table, draws)
    scored = {name: releval.score(SEMEVAL_KEY, paths[0]) for name, paths in systems.items()}
    names = list(systems)
    for agreement in meta.agreement:
        x = [scored[n][agreement.a].f for n in names]
        y = [scored[n][agreement.b].f for n in names]
        assert agreement.tau == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
        low, high = agreement.interval
        per_resample = [stats.kendalltau(draws[agreement.a][:, r], draws[agreement.b][:, r]).statistic
                        for r in range(draws[agreement.a].shape[1])]  # fmt: skip
        finite = np.array([t for t in per_resample if not np.isnan(t)])
        assert (low, high) == pytest.approx((np.quantile(finite, 0.025), np.quantile(finite, 0.975)), abs=1e-12)


def test_flips_are_the_pairs_two_measures_order_differently(semeval: tuple) -> None:
    systems, table, draws = semeval
    meta = evaluate_measures(table, draws)
    scored = {name: releval.score(SEMEVAL_KEY, paths[0]) for name, paths in systems.items()}
    expected = set()
    for other in table.metrics[1:]:
        for a, b in combinations(list(systems), 2):
            d_micro = scored[a]["micro"].f - scored[b]["micro"].f
            d_other = scored[a][other].f - scored[b][other].f
            if d_micro * d_other < 0:
                expected.add((other, *((a, b) if d_micro > 0 else (b, a))))
    assert {(f.b, f.first, f.second) for f in meta.flips} == expected
    for f in meta.flips:
        assert f.delta_a > 0 > f.delta_b


def test_a_system_that_drops_rare_classes_flips_micro_and_macro(tmp_path) -> None:
    """Harbecke's observation made on purpose: `frequent` is right everywhere but on the three rarest classes,
    `even` is wrong on 5 % of the other items; micro-F prefers `frequent`, macro-F `even`, and the flip is found."""
    rows = [line.split("\t") for line in SEMEVAL_KEY.read_text().splitlines() if line.strip()]
    counts: dict[str, int] = {}
    for _, label in rows:
        counts[label] = counts.get(label, 0) + 1
    rare = sorted((c, label) for label, c in counts.items() if label != "Other")[:3]
    rare_labels = {label for _, label in rare}
    frequent = tmp_path / "frequent.txt"
    frequent.write_text("".join(f"{i}\t{'Other' if lab in rare_labels else lab}\n" for i, lab in rows))
    even = tmp_path / "even.txt"
    even.write_text(
        "".join(
            f"{i}\t{'Other' if (k % 20 == 0 and lab not in rare_labels and lab != 'Other') else lab}\n"
            for k, (i, lab) in enumerate(rows)
        )
    )
    test = SignificanceConfig(("bootstrap",), resamples=200, seed=1)
    table = compare_files(str(SEMEVAL_KEY), {"frequent": [str(frequent)], "even": [str(even)]},
                          ClassificationConfig(weightings=("macro",)), test)  # fmt: skip
    a, b = releval.score(SEMEVAL_KEY, frequent), releval.score(SEMEVAL_KEY, even)
    assert a["micro"].f > b["micro"].f and a["macro"].f < b["macro"].f  # the files do what they are made for
    (flip,) = evaluate_measures(table).flips
    assert (flip.a, flip.b, flip.first, flip.second) == ("micro", "macro", "frequent", "even")
    assert flip.delta_a == pytest.approx(a["micro"].f - b["micro"].f, abs=1e-12)
    assert flip.delta_b == pytest.approx(a["macro"].f - b["macro"].f, abs=1e-12)


def test_a_half_is_scored_as_releval_score_scores_those_items(tmp_path) -> None:
    """The first half of split 0 (the permutation of the items by the split's seed) written out as files and
    scored by `releval.score` gives each system's F on that half."""
    from releval.significance.ranks import joint_system_halves

    systems = {p.stem: [str(p)] for p in SYSTEMS[:3]}
    first, second = joint_system_halves(str(SEMEVAL_KEY), systems, ClassificationConfig(), splits=3, seed=11)
    rows = [line.split("\t") for line in SEMEVAL_KEY.read_text().splitlines() if line.strip()]
    order = np.random.default_rng(11).permutation(len(rows))
    half = len(rows) // 2
    for which, items, scores in (("a", order[:half], first), ("b", order[half : 2 * half], second)):
        keep = {rows[i][0] for i in items}
        gold = tmp_path / f"gold_{which}.txt"
        gold.write_text("".join(f"{i}\t{lab}\n" for i, lab in rows if i in keep))
        for k, (name, (path,)) in enumerate(systems.items()):
            pred = tmp_path / f"{name}_{which}.txt"
            lines = Path(path).read_text().splitlines()
            pred.write_text("".join(line + "\n" for line in lines if line.split("\t")[0] in keep))
            result = releval.score(gold, pred, negative="Other")
            for metric in ("micro", "macro"):
                assert scores[metric][k, 0] == pytest.approx(result[metric].f, abs=1e-12), (which, name, metric)


def test_swap_rates_count_the_pairs_the_halves_order_differently() -> None:
    from releval.significance.meta import swap_rates

    observed = {"m": np.array([0.50, 0.505, 0.60])}  # gaps: 0.5 point (0–1), 10 points, 9.5 points (≥ 5)
    first = {"m": np.array([[0.50, 0.52], [0.51, 0.50], [0.60, 0.40]])}
    second = {"m": np.array([[0.52, 0.50], [0.50, 0.51], [0.61, 0.62]])}
    (s,) = swap_rates(observed, first, second)
    # split 0: (0,1) swaps (0.50<0.51 vs 0.52>0.50), (0,2) no, (1,2) no; split 1: (0,1) swaps, (0,2) swaps, (1,2) swaps
    assert s.rate == pytest.approx(4 / 6)
    low_bin, *_, top_bin = s.bins
    assert low_bin[2:] == (1.0, 1) and top_bin[2:] == (0.5, 2)


def test_compare_evaluate_measures_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """`compare --evaluate-measures`: the JSON carries the meta-evaluation of the same run (power counted from its
    own pairs), text shows the four tables, and a baseline (not every pair) is refused."""
    from releval import cli

    cli.register_commands([])
    argv = ["compare", str(SEMEVAL_KEY), *map(str, SYSTEMS), "-R", "300", "--evaluate-measures", "--splits", "20"]
    assert cli.main([*argv, "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)["results"][0]
    measures = result["measures"]
    for power in measures["discriminative_power"]:
        rows = [r for r in result["pairs"] if r["metric"] == power["metric"] and r["test"] == power["test"]]
        assert power["significant"] == sum(r["p_adjusted"] < 0.05 for r in rows) and power["pairs"] == 10
    assert {s["metric"] for s in measures["stability"]} == set(result["metrics"])
    assert all(s["splits"] == 20 for s in measures["stability"])
    assert len(measures["agreement"]) == 10 and all(a["interval"] is not None for a in measures["agreement"])
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    for title in ("Discriminative power", "Agreement of the measures", "order differently", "Stability: swap rate"):
        assert title in text
    assert cli.main([*argv, "--baseline", "onehaitao_cnn"]) == 2
    assert "--evaluate-measures" in capsys.readouterr().err
