"""Tie groups that hold with many systems (issue 33 item 1): the family is the best against the rest, and a
conclusion the resamples cannot reach is never printed.

Expected values are computed here by hand (Holm's step-down written out) or read off the pair rows of the same run
(every system whose interval of Δ against the best excludes 0 must be outside the best's tie group).
"""

from __future__ import annotations

import gzip
import json
import random
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SEMEVAL_KEY
from releval import cli
from releval.core.signature import Signature
from releval.significance.compare import compare_files
from releval.significance.config import SignificanceConfig
from releval.significance.tables import PairedTable, PairRow
from releval.significance.ties import floor_of, resamples_needed, tie_groups
from releval.tasks.classification import ClassificationConfig

cli.register_commands([])


def _table(p_raw: dict[tuple[str, str], float], scores: dict[str, float], resamples: int = 10_000) -> PairedTable:
    rows = [
        PairRow(a, b, "bootstrap", "micro", scores[a], scores[b], scores[a] - scores[b], p, p)
        for (a, b), p in p_raw.items()
    ]
    sig = Signature.build(task="rc", test="bootstrap:two-sided", resamples=resamples, methods="holm")
    return PairedTable(
        {n: {"micro": s} for n, s in scores.items()},
        rows,
        None,
        ("bootstrap",),
        ("micro",),
        "two-sided",
        "holm",
        100,
        sig,
    )


def test_the_tie_group_corrects_over_the_comparisons_with_the_best_only() -> None:
    scores = {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}
    p = {("a", "b"): 0.02, ("a", "c"): 0.001, ("a", "d"): 0.3, ("b", "c"): 0.5, ("b", "d"): 0.5, ("c", "d"): 0.5}
    (group,) = tie_groups(_table(p, scores))
    # Holm over the 3 comparisons with a: sorted 0.001, 0.02, 0.3 → 0.003, 0.04, 0.3: only d is tied.
    # Over all 6 pairs, b's adjusted p would be 5 × 0.02 = 0.1 and b would wrongly join the group.
    assert (group.best, group.tied, group.comparisons, group.decided) == ("a", ("d",), 3, True)


def test_floors_by_hand() -> None:
    assert floor_of(55, 1000, "holm") == pytest.approx(55 / 1001)  # 0.0549: the SemEval case
    assert floor_of(1176, 10_000, "holm") == pytest.approx(1176 / 10_001)  # 0.1176: 49 TACRED systems
    assert floor_of(48, 10_000, "holm") == pytest.approx(48 / 10_001)  # best vs rest: 0.0048
    assert floor_of(55, 1000, "none") == pytest.approx(1 / 1001)
    assert resamples_needed(10, 0.05) == 400 and 10 / (400 + 1) < 0.025


def test_an_undecidable_family_prints_no_group() -> None:
    scores = {"a": 0.9, "b": 0.8, "c": 0.7}
    p = {("a", "b"): 1 / 11, ("a", "c"): 1 / 11, ("b", "c"): 0.5}
    (group,) = tie_groups(_table(p, scores, resamples=10))
    assert not group.decided and group.tied == ()
    assert "2 comparisons" in group.reason and "-R 80" in group.reason  # ⌈2 × 2 / 0.05⌉ = 80


def _systems(folder: Path, rates: list[float], seed: int = 0) -> list[Path]:
    """Systems made from the SemEval key by giving a share `rate` of the items another label (each system its own
    items): their F falls with the rate, and their differences are real."""
    rows = [line.split("\t") for line in SEMEVAL_KEY.read_text().splitlines() if line.strip()]
    labels = sorted({label for _, label in rows})
    paths = []
    for k, rate in enumerate(rates):
        rng = random.Random(seed * 1000 + k)
        out = []
        for item, label in rows:
            if rng.random() < rate:
                label = labels[(labels.index(label) + 1 + rng.randrange(len(labels) - 1)) % len(labels)]
            out.append(f"{item}\t{label}\n")
        path = folder / f"sys{k:02d}.txt"
        path.write_text("".join(out))
        paths.append(path)
    return paths


def _micro_group(text: str) -> list[str]:
    line = next(line for line in text.splitlines() if re.match(r"bootstrap\s+micro\s", line))
    tied = re.split(r"\s{2,}", line.strip())[3]
    return [] if tied == "–" else tied.split(", ")


def test_eleven_systems_at_r_1000_no_clear_loser_is_tied_with_the_best(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's SemEval case: 11 systems, 55 pairs, -R 1000. Holm over all pairs cannot go below 0.0549; the
    tie group (10 comparisons, floor 0.00999) must leave out every system whose interval against the best
    excludes 0."""
    paths = _systems(tmp_path, [0.05, 0.06, 0.07, 0.08, 0.10, 0.12, 0.15, 0.18, 0.22, 0.26, 0.30])
    argv = ["compare", str(SEMEVAL_KEY), *map(str, paths), "-R", "1000"]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    tied = _micro_group(captured.out)
    assert "undecided" not in captured.out
    assert "resample-floor" not in captured.err and "resamples cannot decide 55 comparisons" in captured.err
    assert cli.main([*argv, "--format", "json"]) == 0
    table = json.loads(capsys.readouterr().out)["results"][0]
    best = max(table["scores"], key=lambda n: table["scores"][n]["micro"])
    clear = set()
    for row in table["pairs"]:
        if best in (row["a"], row["b"]) and row["metric"] == "micro":
            low, high = row["ci_effect"]
            if low > 0 or high < 0:
                clear.add(row["b"] if row["a"] == best else row["a"])
    assert clear, "the systems were made to differ"
    assert not clear & set(tied), f"tied with the best although their intervals exclude 0: {clear & set(tied)}"
    assert {n for n in table["scores"] if n != best} - clear <= set(tied)  # the others are tied (p ≥ 0.05)


def test_too_few_resamples_for_the_best_against_the_rest_prints_undecided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = _systems(tmp_path, [0.05, 0.10, 0.20, 0.30, 0.40, 0.50])
    argv = ["compare", str(SEMEVAL_KEY), *map(str, paths), "-R", "60"]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    assert "undecided: too few resamples" in captured.out
    assert _micro_group(captured.out) == ["undecided: too few resamples (see the warning)"]
    # 15 pairs, R = 60: floor 15/61 = 0.246; the 5 comparisons with the best: 5/61 = 0.082, undecided too.
    assert "60 resamples cannot decide 15 comparisons (all pairs): the smallest holm p is 0.246" in captured.err
    assert "are undecided too" in captured.err and "-R 600" in captured.err  # ⌈2 × 15 / 0.05⌉
    assert cli.main([*argv, "--format", "json"]) == 0
    codes = [w["code"] for w in json.loads(capsys.readouterr().out)["results"][0]["warnings"]]
    assert "resample-floor" in codes


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rates=st.lists(st.floats(0.02, 0.45), min_size=5, max_size=9), seed=st.integers(0, 10**6))
def test_a_pair_clearly_apart_is_never_tied_with_the_best(tmp_path: Path, rates: list[float], seed: int) -> None:
    """Property: whatever the systems, a system whose interval of Δ against the best excludes 0 by ≥ 2 points
    is never in the best's tie group (decided or not: an undecided group names nobody)."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))  # one folder per example: hypothesis reuses tmp_path
    paths = _systems(folder, rates, seed)
    test = SignificanceConfig(("bootstrap",), resamples=400, seed=seed)
    table = compare_files(
        str(SEMEVAL_KEY), {p.stem: [str(p)] for p in paths}, ClassificationConfig(weightings=()), test
    )
    assert isinstance(table, PairedTable)
    (group,) = tie_groups(table)
    for row in table.rows:
        if group.best in (row.a, row.b):
            other = row.b if row.a == group.best else row.a
            low, high = row.ci_effect
            if low >= 0.02 or high <= -0.02:
                assert other not in group.tied, (rates, seed, other, row.ci_effect)


def test_forty_nine_systems_fit_a_120_column_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's TACRED-sized board: 49 systems compared all against all. The compact view is one line per
    system (the Δ matrix would be 48 columns wide); no line but the signature (one copyable token) is wider than
    120, and the numbers of the lines are the pair rows' (JSON of the same run)."""
    rates = [0.04 + 0.005 * k for k in range(48)] + [0.6]
    paths = _systems(tmp_path, rates)
    named = []
    for k, path in enumerate(paths):  # long names, as real runs have
        target = path.with_name(f"bert_large_relation_classifier_seed_{k:02d}.txt")
        path.rename(target)
        named.append(target)
    argv = ["compare", str(SEMEVAL_KEY), *map(str, named), "-R", "500", "--seed", "7"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    wide = [line for line in out.splitlines() if len(line) > 120 and not line.startswith("signature:")]
    assert not wide, wide[:3]
    assert "Against the best (bootstrap, micro F)" in out
    assert cli.main([*argv, "--format", "json"]) == 0
    table = json.loads(capsys.readouterr().out)["results"][0]
    scores = {n: s["micro"] for n, s in table["scores"].items()}
    best = max(scores, key=lambda n: scores[n])
    worst = min(scores, key=lambda n: scores[n])
    line = next(line for line in out.splitlines() if re.match(rf"\s*\d+\s+{worst}\s", line))
    row = next(r for r in table["pairs"] if {r["a"], r["b"]} == {best, worst} and r["metric"] == "micro")
    delta = row["effect"] if row["a"] == worst else -row["effect"]
    assert f"{100 * scores[worst]:.2f}" in line and f"{100 * delta:+.2f}" in line
    assert not line.rstrip().endswith("≈")  # 60 % of the labels wrong: never tied with the best


TACRED_SYSTEMS = (
    "bag_of_embeddings", "bilstm_bert_cased", "bilstm_elmo_unmasked", "cnn_bert_cased", "cnn", "gcn_elmo", "gcn",
    "lstm_bert_uncased", "lstm", "self_att_bert_cased",
)  # fmt: skip


def test_forty_nine_tacred_systems_at_the_defaults_do_not_tie_a_27_point_loser_with_the_best(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's TACRED case: 49 systems (TACRED's ten real ones, and 39 item-wise blends of two of the nine that
    are not the best), compared at the defaults (10,000 resamples, Holm). All 1,176 pairs cannot be decided (floor
    1,176/10,001 = 0.118); the tie group is the best against the other 48 (floor 48/10,001 = 0.0048), and
    bag_of_embeddings (39.44) is not tied with self_att_bert_cased (66.86)."""
    from conftest import shared_path

    labels, gold_line = {}, ""
    for name in TACRED_SYSTEMS:
        path = shared_path("data", "tacred_labels", "test_results", f"{name}_test.jsonl.gz")
        with gzip.open(path, "rt", encoding="utf-8") as f:
            records = [json.loads(line) for line in f]
        labels[name] = [r["label_pred"] for r in records]
        gold_line = gold_line or "".join(f"{r['id']}\t{r['label_true']}\n" for r in records)
        ids = [r["id"] for r in records]
    gold = tmp_path / "gold.tsv"
    gold.write_text(gold_line, encoding="utf-8")

    def write(name: str, predicted: list[str]) -> Path:
        path = tmp_path / f"{name}.tsv"
        path.write_text("".join(f"{i}\t{x}\n" for i, x in zip(ids, predicted)), encoding="utf-8")
        return path

    paths = [write(name, predicted) for name, predicted in labels.items()]
    others = [n for n in TACRED_SYSTEMS if n != "self_att_bert_cased"]
    for j in range(39):  # blends: items i with (i + j) % 3 == 0 from b, the others from a
        a, b = labels[others[j % 9]], labels[others[(j + 1 + j // 9) % 9]]
        paths.append(write(f"blend{j:02d}", [xb if (i + j) % 3 == 0 else xa for i, (xa, xb) in enumerate(zip(a, b))]))
    assert len(paths) == 49
    argv = ["compare", str(gold), *map(str, paths), "--format", "json"]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    table = json.loads(captured.out)["results"][0]
    scores = {n: s["micro"] for n, s in table["scores"].items()}
    assert (
        round(100 * scores["self_att_bert_cased"], 2) == 66.86 and round(100 * scores["bag_of_embeddings"], 2) == 39.44
    )
    assert max(scores, key=lambda n: scores[n]) == "self_att_bert_cased"
    assert "resamples cannot decide 1,176 comparisons" in captured.err  # all pairs: said, not concluded
    assert cli.main(argv[:-2]) == 0  # the text view: the tie group of micro
    tied = _micro_group(capsys.readouterr().out)
    assert tied and not tied[0].startswith("undecided")
    assert "bag_of_embeddings" not in tied
