"""`--task fewrel`: FewRel episodes (the official test input with answers), accuracy as the mean of per-episode
accuracies per N-way K-shot setting, its bootstrap interval over episodes, per-relation accuracy, paired tests over
episodes, Harbecke Table 1 statistics of FewRel files, the sampler, and every located refusal.

Expected values are computed here independently: per-episode accuracies with scikit-learn's accuracy_score and
their mean with NumPy, per-relation accuracies by counting, the randomization p-value against the exact paired
permutation test enumerated over every sign pattern, the bootstrap interval against a plain NumPy bootstrap, the
statistics from the files' relation counts (2^H by hand), and the sampler against a re-statement of
`fewshot_re_kit`'s `FewRelDataset.__getitem__` (thunlp/FewRel@278a231) with the same random generator.
"""

from __future__ import annotations

import copy
import gzip
import itertools
import json
import random
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import accuracy_score
from tests.conftest import EXAMPLES, SHARED

from releval.cli import main
from releval.core.errors import InputError, OptionError
from releval.data.fewrel import NOTA, load_episodes, load_predictions, sample_episodes, write_episodes
from releval.registry import get_task
from releval.significance.compare import PairedTable, SeedTable
from releval.significance.config import SignificanceConfig
from releval.tasks.base import resolve
from releval.tasks.fewrel import FewRelConfig, score

FEWREL = EXAMPLES / "fewrel"
GOLD = FEWREL / "gold-5-1.json.gz"
GOLD_NOTA = FEWREL / "gold-5-1-nota.json.gz"
BOW, BETWEEN = FEWREL / "pred-bow-5-1.json", FEWREL / "pred-between-5-1.json"


def _json(path: Path):
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


def _instance(word: str) -> dict:
    return {"tokens": [word, "x"], "h": ["a", "Q1", [[0]]], "t": ["b", "Q2", [[1]]]}


def _toy_data(relations: int = 6, per: int = 8) -> dict[str, list[dict]]:
    return {f"R{r}": [_instance(f"r{r}i{i}") for i in range(per)] for r in range(relations)}


def _expected(gold_entries: list[dict], preds: list[int]) -> tuple[float, list[float]]:
    """The mean of per-episode accuracies, each episode's accuracy from scikit-learn."""
    by_episode: dict[int, list[int]] = {}
    for i, entry in enumerate(gold_entries):
        by_episode.setdefault(entry.get("episode", i), []).append(i)
    accs = [
        accuracy_score([gold_entries[i]["answer"] for i in idx], [preds[i] for i in idx]) for idx in by_episode.values()
    ]
    return float(np.mean(accs)), accs


# ------------------------------------------------------------------------------------------------ accuracy


def test_bundled_example_accuracy_is_the_mean_of_per_episode_accuracies() -> None:
    entries = _json(GOLD)
    for path in (BOW, BETWEEN):
        preds = _json(path)
        expected, accs = _expected(entries, preds)
        assert len(accs) == 50
        result = score(GOLD, path)
        assert abs(result.accuracy - expected) < 1e-12
        # one query per relation and episode: also the share of correct entries
        assert abs(result.accuracy - accuracy_score([e["answer"] for e in entries], preds)) < 1e-12
        assert result.settings[0].name == "5-way 1-shot"
        assert (result.settings[0].episodes, result.settings[0].queries) == (50, 250)


def test_unequal_episodes_weigh_each_episode_once(tmp_path: Path) -> None:
    """Episodes with different numbers of queries: the mean of episode accuracies, not the share of queries."""
    data = _toy_data()
    entries = sample_episodes(data, n_way=2, k_shot=1, q_query=1, episodes=2, seed=1)
    entries += sample_episodes(data, n_way=2, k_shot=1, q_query=3, episodes=1, seed=2)
    for e in entries[4:]:
        e["episode"] = 7  # the third episode: 6 queries
    gold = tmp_path / "gold.json"
    write_episodes(entries, gold_path=gold)
    preds = [e["answer"] for e in entries]
    preds[0] = 1 - preds[0]  # episode 0: 1/2
    preds[4] = 1 - preds[4]  # episode 7: 5/6
    expected, accs = _expected(entries, preds)
    assert accs == [0.5, 1.0, pytest.approx(5 / 6)]
    result = score(gold, preds)
    assert abs(result.accuracy - expected) < 1e-12
    assert abs(result.accuracy - (0.5 + 1 + 5 / 6) / 3) < 1e-12
    assert result.accuracy != pytest.approx(accuracy_score([e["answer"] for e in entries], preds))


def test_several_settings_and_none_of_the_above(tmp_path: Path) -> None:
    data = _toy_data()
    a = sample_episodes(data, n_way=3, k_shot=2, q_query=2, na_rate=1, episodes=4, seed=3)
    b = sample_episodes(data, n_way=2, k_shot=1, q_query=1, episodes=5, seed=4)
    for e in b:
        e["episode"] += 100
    entries = a + b
    gold = tmp_path / "gold.json"
    write_episodes(entries, gold_path=gold)
    rng = random.Random(5)
    preds = [e["answer"] if rng.random() < 0.6 else rng.randrange(len(e["meta_train"]) + 1) for e in entries]
    for i, e in enumerate(entries):  # the 2-way setting has no NOTA: predictions stay in 0..1
        if len(e["meta_train"]) == 2 and preds[i] == 2:
            preds[i] = 0
    result = score(gold, preds)
    names = [row.name for row in result.settings]
    assert names == ["all", "3-way 2-shot NOTA", "2-way 1-shot"]
    overall, _ = _expected(entries, preds)
    first, _ = _expected(a, preds[: len(a)])
    second, _ = _expected(b, preds[len(a) :])
    assert abs(result["all"].accuracy - overall) < 1e-12
    assert abs(result["accuracy:3-2-nota"].accuracy - first) < 1e-12
    assert abs(result["accuracy:2-1"].accuracy - second) < 1e-12
    # NOTA share: 2 of the 3·2 + 2 queries of each 3-way episode
    row = result["3-way 2-shot NOTA"]
    assert (row.episodes, row.queries, row.nota_queries) == (4, 32, 8)
    # per-relation accuracy by counting, the NOTA queries last
    counts: dict[str, list[int]] = {}
    for e, p in zip(entries, preds):
        n = len(e["meta_train"])
        rel = NOTA if e["answer"] == n else e["relation"][e["answer"]]
        counts.setdefault(rel, [0, 0])
        counts[rel][0] += 1
        counts[rel][1] += int(p == e["answer"])
    assert result.relations[-1].relation == NOTA
    assert {r.relation: (r.queries, r.correct) for r in result.relations} == {k: tuple(v) for k, v in counts.items()}


def test_bootstrap_interval_over_episodes_matches_a_plain_numpy_bootstrap() -> None:
    entries, preds = _json(GOLD), _json(BOW)
    _, accs = _expected(entries, preds)
    rng = np.random.default_rng(0)
    x = np.asarray(accs)
    means = x[rng.integers(0, x.size, size=(20000, x.size))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    got = score(GOLD, BOW).settings[0].ci
    assert got is not None
    assert got[0] == pytest.approx(lo, abs=0.01) and got[1] == pytest.approx(hi, abs=0.01)
    # every episode right: no spread at all
    assert score(GOLD, [e["answer"] for e in entries]).settings[0].ci == (1.0, 1.0)


def test_manifest_of_the_official_files_equals_the_gold_with_answers() -> None:
    inline, official = score(GOLD, BOW), score(FEWREL / "official-5-1.json", BOW)
    assert official.accuracy == inline.accuracy
    assert official.signature == inline.signature  # the same episodes and answers: the same digest
    assert _json(FEWREL / "answers-5-1.json") == [e["answer"] for e in _json(GOLD)]


# ------------------------------------------------------------------------------------------------ compare


def test_compare_is_a_paired_table_over_episodes_with_the_task_measures() -> None:
    task = get_task("fewrel")
    test = SignificanceConfig(("bootstrap", "randomization"), resamples=2000, seed=1)
    table = resolve(task.compare)(GOLD, {"bow": [BOW], "between": [BETWEEN]}, FewRelConfig(), test)
    assert isinstance(table, PairedTable)
    assert table.metrics == ("accuracy",) == task.measures
    assert (table.n, table.unit) == (50, "episodes")
    assert table.scores["bow"]["accuracy"] == pytest.approx(score(GOLD, BOW).accuracy, abs=1e-12)
    assert {row.test for row in table.rows} == {"bootstrap", "randomization"}
    boot = next(r for r in table.rows if r.test == "bootstrap")
    assert boot.ci_a is not None and boot.ci_a[0] <= boot.score_a <= boot.ci_a[1]
    assert "episodes" in table.signature["test"]


def test_randomization_p_value_matches_the_exact_paired_permutation_test(tmp_path: Path) -> None:
    """12 one-query-per-relation episodes: the exact test flips each episode's pair of accuracies (2^12 patterns)."""
    data = _toy_data()
    entries = sample_episodes(data, n_way=2, k_shot=1, q_query=1, episodes=12, seed=9)
    gold = tmp_path / "gold.json"
    write_episodes(entries, gold_path=gold)
    rng = random.Random(11)
    a = [e["answer"] if rng.random() < 0.8 else 1 - e["answer"] for e in entries]
    b = [e["answer"] if rng.random() < 0.5 else 1 - e["answer"] for e in entries]
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    _, acc_a = _expected(entries, a)
    _, acc_b = _expected(entries, b)
    d = np.asarray(acc_a) - np.asarray(acc_b)
    observed = abs(d.mean())
    flips = np.array(list(itertools.product((1, -1), repeat=d.size)))
    exact = float(np.mean(np.abs((flips * d).mean(axis=1)) >= observed - 1e-12))
    test = SignificanceConfig(("randomization",), resamples=20000, seed=3)
    table = resolve(get_task("fewrel").compare)(
        gold, {"a": [tmp_path / "a.json"], "b": [tmp_path / "b.json"]}, None, test
    )
    assert table.rows[0].p_value == pytest.approx(exact, abs=0.015)


def test_several_runs_per_system_are_compared_over_seeds() -> None:
    task = get_task("fewrel")
    table = resolve(task.compare)(
        GOLD, {"x": [BOW, BETWEEN], "y": [BETWEEN, BETWEEN]}, FewRelConfig(), SignificanceConfig()
    )
    assert isinstance(table, SeedTable)
    bow, between = score(GOLD, BOW).accuracy, score(GOLD, BETWEEN).accuracy
    assert table.runs["x"]["accuracy"] == pytest.approx([bow, between], abs=1e-12)
    assert table.unit == "episodes"


# ------------------------------------------------------------------------------------------------ sampler


def _reference_sampler(data, n, k, q, na_rate, episodes, seed):
    """fewshot_re_kit's FewRelDataset.__getitem__, re-stated with random.Random(seed) for its random draws."""
    rng = random.Random(seed)
    classes = list(data)
    out = []
    for e in range(episodes):
        target = rng.sample(classes, n)
        support, query, label = [], [], []
        for i, name in enumerate(target):
            indices = rng.sample(range(len(data[name])), k + q)
            support.append([data[name][j] for j in indices[:k]])
            query += [data[name][j] for j in indices[k:]]
            label += [i] * q
        na_classes = [c for c in classes if c not in target]
        for _ in range(int(na_rate * q)):
            cur = na_classes[rng.randrange(len(na_classes))]
            query.append(data[cur][rng.randrange(len(data[cur]))])
            label.append(n)
        out += [(e, target, support, x, y) for x, y in zip(query, label)]
    return out


@pytest.mark.parametrize(("n", "k", "q", "na"), [(5, 1, 1, 0.0), (3, 2, 2, 1.0), (4, 1, 2, 2.5)])
def test_sampler_is_fewshot_re_kits_sampler_with_a_seed(n: int, k: int, q: int, na: float) -> None:
    data = _toy_data(relations=7, per=6)
    got = sample_episodes(data, n_way=n, k_shot=k, q_query=q, na_rate=na, episodes=6, seed=42)
    ref = _reference_sampler(data, n, k, q, na, 6, 42)
    assert len(got) == len(ref) == 6 * (n * q + int(na * q))
    for entry, (e, target, support, query, label) in zip(got, ref):
        assert (entry["episode"], entry["relation"], entry["meta_train"]) == (e, target, support)
        assert (entry["meta_test"], entry["answer"]) == (query, label)
        if label < n:  # a query is never one of its relation's support instances
            assert query not in entry["meta_train"][label]
        else:
            assert all(query not in data[r] for r in target)
    again = sample_episodes(data, n_way=n, k_shot=k, q_query=q, na_rate=na, episodes=6, seed=42)
    assert again == got
    assert sample_episodes(data, n_way=n, k_shot=k, q_query=q, na_rate=na, episodes=6, seed=43) != got


def test_sampler_refuses_settings_the_data_cannot_give() -> None:
    data = _toy_data(relations=3, per=3)
    with pytest.raises(OptionError, match="need 4 relations; the data has 3"):
        sample_episodes(data, n_way=3, k_shot=1, na_rate=1)
    with pytest.raises(OptionError, match="K \\+ Q = 4 instances per relation"):
        sample_episodes(data, n_way=2, k_shot=3)
    with pytest.raises(OptionError, match="n_way"):
        sample_episodes(data, n_way=0, k_shot=1)


def test_sampler_on_val_wiki_when_shared_data_is_there() -> None:
    path = SHARED / "data" / "fewrel" / "val_wiki.json.gz"
    if not path.exists():
        pytest.skip(f"{path} not available")
    entries = sample_episodes(path, n_way=5, k_shot=1, q_query=1, episodes=50, seed=2018)
    assert entries == _json(GOLD)  # the bundled example is exactly this sample


# ------------------------------------------------------------------------------------------------ statistics


def _perplexity(counts: list[int]) -> float:
    p = np.asarray(counts, dtype=float) / sum(counts)
    return float(2 ** -(p * np.log2(p)).sum())


def test_stats_of_val_pubmed_and_of_gold_episodes(capsys: pytest.CaptureFixture[str]) -> None:
    pubmed = FEWREL / "val_pubmed.json.gz"
    assert main(["stats", "--task", "fewrel", str(pubmed), str(GOLD_NOTA), "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = data["files"]
    assert data["n"] == 1300
    assert (rows[0]["relations"], rows[0]["samples"], rows[0]["negative_percent"]) == (10, 1000, 0.0)
    assert rows[0]["perplexity"] == pytest.approx(10.0) and rows[0]["ratio"] == 1.0
    entries = _json(GOLD_NOTA)
    labels = [NOTA if e["answer"] == 5 else e["relation"][e["answer"]] for e in entries]
    counts = [labels.count(x) for x in set(labels)]
    positive = [labels.count(x) for x in set(labels) if x != NOTA]
    assert rows[1]["samples"] == 300 and rows[1]["negative_percent"] == pytest.approx(100 * 50 / 300)
    assert rows[1]["perplexity"] == pytest.approx(_perplexity(counts))
    assert rows[1]["perplexity_without_negative"] == pytest.approx(_perplexity(positive))
    assert rows[1]["ratio"] == pytest.approx(max(positive) / min(positive))
    assert rows[2]["name"] == "total" and rows[2]["samples"] == 1300


@pytest.mark.parametrize("name", ["val_wiki", "val_semeval"])
def test_stats_of_the_shared_validation_sets(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = SHARED / "data" / "fewrel" / f"{name}.json.gz"
    if not path.exists():
        pytest.skip(f"{path} not available")
    counts = [len(v) for v in _json(path).values()]
    assert main(["stats", "--task", "fewrel", str(path), "-f", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["files"]
    assert (row["relations"], row["samples"], row["negative"]) == (len(counts), sum(counts), 0)
    assert row["perplexity"] == pytest.approx(_perplexity(counts)) == row["perplexity_without_negative"]
    assert row["ratio"] == pytest.approx(max(counts) / min(counts))
    if name == "val_wiki":
        assert (row["relations"], row["samples"], row["perplexity"], row["ratio"]) == (16, 11200, 16.0, 1.0)


# ------------------------------------------------------------------------------------------------ the command line


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "latex", "csv"])
def test_every_command_in_every_format(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    acc = score(GOLD, BOW).accuracy
    shown = f"{100 * acc:.2f}"
    out = tmp_path / f"score.{fmt}"
    assert main(["score", "--task", "fewrel", str(GOLD), f"bow={BOW}", f"between={BETWEEN}", "-f", fmt]) == 0
    text = capsys.readouterr().out
    assert "bow" in text and "between" in text
    assert (shown in text) if fmt != "csv" and fmt != "json" else (repr(acc)[:6] in text)
    assert main(["score", "--task", "fewrel", str(GOLD), f"bow={BOW}", "-f", fmt, "-o", str(out)]) == 0
    assert out.exists() and "bow" in out.read_text(encoding="utf-8")
    argv = ["compare", "--task", "fewrel", str(GOLD), f"bow={BOW}", f"between={BETWEEN}", "-R", "200", "-f", fmt]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "bow" in text and "between" in text
    assert main(["stats", "--task", "fewrel", str(GOLD), "-f", fmt]) == 0
    assert "250" in capsys.readouterr().out


def test_json_score_reads_back() -> None:
    from releval.tasks.fewrel import FewRelResult

    result = score(GOLD_NOTA, FEWREL / "pred-bow-5-1-nota.json")
    assert FewRelResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


# ------------------------------------------------------------------------------------------------ refusals


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_wrong_answer_count_and_indices_are_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    preds = _json(BOW)
    cases = {
        "short": (preds[:-1], "249 predictions for 250 queries"),
        "range": ([*preds[:9], 7, *preds[10:]], "record 10: field 'prediction': index 7 is out of range 0..4"),
        "negative": ([-1, *preds[1:]], "record 1: field 'prediction': index -1 is out of range 0..4"),
        "nota": ([*preds[:3], 5, *preds[4:]], "record 4: field 'prediction': 5 means none-of-the-above"),
        "string": ([*preds[:2], "3", *preds[3:]], "record 3: field 'prediction': expected an integer index, got '3'"),
        "object": ({"a": 1}, "expected a JSON list of integers, got dict"),
    }
    for name, (value, message) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(value))
        err = _fails(["score", "--task", "fewrel", str(GOLD), str(path)], capsys)
        assert f"{path}" in err and message in err, (name, err)
        assert _fails(["compare", "--task", "fewrel", str(GOLD), str(BOW), str(path), "-R", "10"], capsys)
    # in a NOTA setting, N is none-of-the-above and N + 1 is out of range
    nota = _json(FEWREL / "pred-bow-5-1-nota.json")
    path = tmp_path / "nota6.json"
    path.write_text(json.dumps([6, *nota[1:]]))
    assert "index 6 is out of range 0..5" in _fails(["score", "--task", "fewrel", str(GOLD_NOTA), str(path)], capsys)


def _bad_gold(tmp_path: Path, change) -> Path:
    entries = copy.deepcopy(_json(GOLD))
    change(entries)
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(entries))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda e: e[2]["meta_train"][1].append(e[2]["meta_train"][0][0]),
            "record 3: field 'meta_train': the relations",
        ),
        (lambda e: e[4].update(meta_train=[]), "record 5: field 'meta_train': expected a non-empty list"),
        (lambda e: e[0]["meta_train"][0][0].pop("tokens"), "record 1: field 'meta_train': an instance needs"),
        (lambda e: e[1].update(meta_test=[e[1]["meta_test"]] * 2), "record 2: field 'meta_test': expected one query"),
        (lambda e: e[6].pop("meta_test"), "record 7: field 'meta_test': no query"),
        (lambda e: e[3].update(relation=["P1"]), "record 4: field 'relation': expected 5 distinct relation names"),
        (lambda e: e[8].update(answer=6), "record 9: field 'answer': answer 6 is out of range 0..5"),
        (lambda e: e[8].update(answer=True), "record 9: field 'answer': expected an integer, got true"),
        (lambda e: e[9].pop("answer"), "record 10: field 'answer': no 'answer'"),
        (lambda e: e[5].pop("episode"), "field 'episode': some entries have an episode number and others not"),
        (
            lambda e: e[5].update(episode=e[5]["episode"] + 1),
            "record 11: field 'episode': this entry's episode (first seen at record 6)",
        ),
        (lambda e: e.__setitem__(slice(None), []), "no episodes"),
    ],
)
def test_malformed_episodes_are_located(change, message: str, tmp_path: Path, capsys) -> None:
    path = _bad_gold(tmp_path, change)
    preds = tmp_path / "p.json"
    preds.write_text("[]")
    err = _fails(["score", "--task", "fewrel", str(path), str(BOW)], capsys)
    assert str(path) in err and message in err, err


def test_answer_out_of_range_is_nota_when_equal_to_n(tmp_path: Path) -> None:
    """An answer N is none-of-the-above (allowed); N + 1 is refused."""
    path = _bad_gold(tmp_path, lambda e: e[8].update(answer=6))
    with pytest.raises(InputError, match="answer 6 is out of range 0..5"):
        load_episodes(path)


def test_manifest_problems_are_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "official.json"
    manifest.write_text(json.dumps({"episodes": "missing.json", "answers": [1]}))
    assert "field 'episodes': no file" in _fails(["score", "--task", "fewrel", str(manifest), str(BOW)], capsys)
    (tmp_path / "input.json").write_bytes(gzip.decompress((FEWREL / "input-5-1.json.gz").read_bytes()))
    manifest.write_text(json.dumps({"episodes": "input.json", "answers": [0, 1]}))
    err = _fails(["score", "--task", "fewrel", str(manifest), str(BOW)], capsys)
    assert "2 answers for 250 queries" in err
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([0] * 249 + [9]))
    manifest.write_text(json.dumps({"episodes": "input.json", "answers": "answers.json"}))
    err = _fails(["score", "--task", "fewrel", str(manifest), str(BOW)], capsys)
    assert f"{answers}: record 250: field 'answer': answer 9 is out of range 0..5" in err
    # the answers alone are not gold: the episodes say what N is
    assert "this is a list of answers" in _fails(["score", "--task", "fewrel", str(answers), str(BOW)], capsys)


def test_options_fewrel_does_not_read_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--task", "fewrel", str(GOLD), str(BOW)]
    assert "--weighting" in _fails(["score", *base, "-w", "macro"], capsys)
    assert "--negative" in _fails(["score", *base, "--negative", "Other"], capsys)
    assert "--weighting" in _fails(["compare", *base, str(BETWEEN), "-w", "macro"], capsys)
    assert "mcnemar" in _fails(["compare", *base, str(BETWEEN), "-t", "mcnemar"], capsys)


def test_predictions_may_be_a_python_list() -> None:
    gold = load_episodes(GOLD)
    values = load_predictions(_json(BOW), gold)
    assert values.tolist() == _json(BOW)


def test_plot_episodes_draws_the_scores_and_their_intervals(tmp_path: Path, capsys) -> None:
    pytest.importorskip("matplotlib")
    figure, data = tmp_path / "episodes.png", tmp_path / "episodes.json"
    argv = ["plot", "episodes", str(GOLD_NOTA), f"bow={FEWREL / 'pred-bow-5-1-nota.json'}", "-o", str(figure)]
    assert main([*argv, "--data-json", str(data)]) == 0
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    plotted = json.loads(data.read_text(encoding="utf-8"))["data"]
    result = score(GOLD_NOTA, FEWREL / "pred-bow-5-1-nota.json")
    assert plotted["accuracy"] == [[result.accuracy]]
    assert plotted["low"] == [[result.settings[0].ci[0]]] and plotted["high"] == [[result.settings[0].ci[1]]]
    assert plotted["relations"][-1] == NOTA
    bad = tmp_path / "bad.json"
    bad.write_text("[9]")
    assert "1 predictions for 300 queries" in _fails(
        ["plot", "episodes", str(GOLD_NOTA), str(bad), "-o", str(figure)], capsys
    )


def test_fast_and_full_readers_agree() -> None:
    """A well-formed file is read without parsing its tokens (msgspec, raw JSON); the full reader, which locates
    problems, gives the same episodes and the same digest."""
    from releval.data import fewrel

    fast = load_episodes(GOLD_NOTA)
    entries = _json(GOLD_NOTA)
    full = fewrel._build(entries, "x", [e["answer"] for e in entries], "x", str(GOLD_NOTA))
    assert fast.digest == full.digest
    for field in ("n_way", "k_shot", "episode", "answers"):
        assert getattr(fast, field).tolist() == getattr(full, field).tolist()
    assert fast.relations == full.relations
    # the same episodes with other white space: the same digest
    spaced = json.dumps(entries, indent=1, ensure_ascii=False).encode()
    assert fewrel._fast(spaced, None, "y").digest == fast.digest
