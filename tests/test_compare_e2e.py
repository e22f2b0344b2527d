"""`releval compare --task e2e`: paired tests over documents and seed comparisons, checked against set-based
scoring written here (Python sets per sentence), exact enumeration of the randomization distribution, a naive
per-document bootstrap and SciPy's Welch test."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from tests.conftest import REPO, one_result

from releval.cli import main
from releval.significance.compare import SeedTable, compare_paired, compare_seed_runs
from releval.tasks.e2e import E2EConfig

GOLD_PATH = REPO / "examples" / "conll04" / "conll04_test_first30.json"
GOLD = json.loads(GOLD_PATH.read_text())
WITH_RELATIONS = [i for i, d in enumerate(GOLD) if d["relations"]]


def _system(drop: set[int], wrong_type: set[int] = frozenset()) -> list[dict]:
    """Gold with the relations of documents in `drop` removed and those in `wrong_type` relabelled 'Kill'."""
    docs = copy.deepcopy(GOLD)
    for i in drop:
        docs[i]["relations"] = []
    for i in wrong_type:
        for r in docs[i]["relations"]:
            r["type"] = "Live_In" if r["type"] == "Kill" else "Kill"
    return docs


def _facts(doc: dict, boundaries: bool = False) -> set[tuple]:
    ents = doc["entities"]
    out = set()
    for r in doc["relations"]:
        h, t = ents[r["head"]], ents[r["tail"]]
        if boundaries:
            out.add((h["start"], h["end"], t["start"], t["end"], r["type"]))
        else:
            out.add((h["start"], h["end"], h["type"], t["start"], t["end"], t["type"], r["type"]))
    return out


def _f_scores(gold: list[dict], pred: list[dict], boundaries: bool = False) -> dict[str, float]:
    """Micro-F1 and macro-F1 (over relation types with gold support) from per-sentence sets."""
    tp: dict[str, int] = {}
    fp: dict[str, int] = {}
    fn: dict[str, int] = {}
    for g, p in zip(gold, pred):
        gs, ps = _facts(g, boundaries), _facts(p, boundaries)
        for f in gs & ps:
            tp[f[-1]] = tp.get(f[-1], 0) + 1
        for f in ps - gs:
            fp[f[-1]] = fp.get(f[-1], 0) + 1
        for f in gs - ps:
            fn[f[-1]] = fn.get(f[-1], 0) + 1
    t, p_, n_ = sum(tp.values()), sum(fp.values()), sum(fn.values())
    micro = 2 * t / (2 * t + p_ + n_) if t + p_ + n_ else 0.0
    supported = [k for k in set(tp) | set(fn) if tp.get(k, 0) + fn.get(k, 0) > 0]
    per = [2 * tp.get(k, 0) / (2 * tp.get(k, 0) + fp.get(k, 0) + fn.get(k, 0)) for k in supported]
    return {"micro": micro, "macro": float(np.mean(per)) if per else 0.0}


def _write(tmp_path: Path, name: str, docs: list[dict]) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(docs))
    return path


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("e2e_systems")
    return {"a": _write(tmp, "a", SYSTEM_A), "b": _write(tmp, "b", SYSTEM_B), "a2": _write(tmp, "a2", SYSTEM_A)}


A_DROP = set(WITH_RELATIONS[:1])
B_DROP = set(WITH_RELATIONS[1:5])
B_WRONG = set(WITH_RELATIONS[5:8])
SYSTEM_A = _system(A_DROP)
SYSTEM_B = _system(B_DROP, B_WRONG)


def test_scores_match_set_based_scoring(paths: dict[str, Path]) -> None:
    table = compare_paired(GOLD_PATH, {"a": paths["a"], "b": paths["b"]}, E2EConfig(ner=False), resamples=200)
    assert table.n == 30 and table.unit == "documents"
    for name, docs in (("a", SYSTEM_A), ("b", SYSTEM_B)):
        for criterion, boundaries in (("strict", False), ("boundaries", True)):
            expected = _f_scores(GOLD, docs, boundaries)
            for avg in ("micro", "macro"):
                assert table.scores[name][f"{criterion}:{avg}"] == pytest.approx(expected[avg], abs=1e-12)
    assert "strict:dodrans" in table.metrics and "boundaries:entropy" in table.metrics


def test_randomization_matches_exact_enumeration_over_documents(paths: dict[str, Path]) -> None:
    """Swapping whole documents: p from 20,000 random swaps ≈ the exact p over all 2^8 swap patterns."""
    differing = sorted(A_DROP | B_DROP | B_WRONG)
    assert len(differing) == 8
    observed = _f_scores(GOLD, SYSTEM_A)
    delta = {m: observed[m] - _f_scores(GOLD, SYSTEM_B)[m] for m in observed}
    extreme = dict.fromkeys(delta, 0)
    for pattern in itertools.product([False, True], repeat=len(differing)):
        a, b = list(SYSTEM_A), list(SYSTEM_B)
        for doc, swap in zip(differing, pattern):
            if swap:
                a[doc], b[doc] = SYSTEM_B[doc], SYSTEM_A[doc]
        fa, fb = _f_scores(GOLD, a), _f_scores(GOLD, b)
        for m in delta:
            extreme[m] += abs(fa[m] - fb[m]) >= abs(delta[m]) - 1e-12
    table = compare_paired(
        GOLD_PATH,
        {"a": paths["a"], "b": paths["b"]},
        E2EConfig(ner=False),
        tests=["randomization"],
        resamples=20_000,
        seed=3,
    )
    rows = {r.metric: r for r in table.rows}
    for m in delta:
        exact = extreme[m] / 2 ** len(differing)
        assert rows[f"strict:{m}"].effect == pytest.approx(delta[m], abs=1e-12)
        assert rows[f"strict:{m}"].p_value == pytest.approx(exact, abs=0.015), m


def test_bootstrap_matches_naive_document_resampling(paths: dict[str, Path]) -> None:
    """The 90 % interval of δ* (strict micro) agrees with a per-document bootstrap written with sets."""
    table = compare_paired(
        GOLD_PATH, {"a": paths["a"], "b": paths["b"]}, E2EConfig(ner=False), resamples=4_000, seed=9, confidence=0.9
    )
    row = next(r for r in table.rows if r.metric == "strict:micro")
    rng = np.random.default_rng(1)
    naive = []
    for _ in range(1_500):
        idx = rng.integers(0, len(GOLD), len(GOLD))
        g = [GOLD[i] for i in idx]
        naive.append(
            _f_scores(g, [SYSTEM_A[i] for i in idx])["micro"] - _f_scores(g, [SYSTEM_B[i] for i in idx])["micro"]
        )
    lo, hi = np.quantile(naive, [0.05, 0.95])
    assert row.ci_effect[0] == pytest.approx(lo, abs=0.02) and row.ci_effect[1] == pytest.approx(hi, abs=0.02)
    assert row.ci_effect[0] < row.effect < row.ci_effect[1]


def test_identical_systems_get_p_one(paths: dict[str, Path]) -> None:
    table = compare_paired(
        GOLD_PATH, {"a": paths["a"], "b": paths["a2"]}, E2EConfig(ner=False), tests=["bootstrap", "randomization"]
    )
    assert {r.p_value for r in table.rows} == {1.0}
    assert {r.effect for r in table.rows} == {0.0}


def test_seed_runs_use_welch_over_run_scores(tmp_path: Path) -> None:
    runs_a = [SYSTEM_A, _system(set(WITH_RELATIONS[:2])), _system(set(WITH_RELATIONS[1:5]))]
    runs_b = [SYSTEM_B, _system(set(WITH_RELATIONS[6:9])), _system(set(WITH_RELATIONS[4:6]), {WITH_RELATIONS[0]})]
    files = {
        name: [_write(tmp_path, f"{name}{i}", docs) for i, docs in enumerate(runs)]
        for name, runs in (("a", runs_a), ("b", runs_b))
    }
    table = compare_seed_runs(GOLD_PATH, files, E2EConfig(ner=False), criteria=["strict"])
    fa = [_f_scores(GOLD, r)["macro"] for r in runs_a]
    fb = [_f_scores(GOLD, r)["macro"] for r in runs_b]
    assert table.runs["a"]["strict:macro"] == pytest.approx(fa, abs=1e-12)
    row = next(r for r in table.rows if r.metric == "strict:macro")
    assert row.result.p_value == pytest.approx(stats.ttest_ind(fa, fb, equal_var=False).pvalue, rel=1e-9)
    assert table.unit == "documents" and "task:e2e" in str(table.signature)
    saved = json.loads(json.dumps(table.to_dict()))
    assert SeedTable.from_dict(saved) == table  # a saved seed table loads back (its rows hold seed comparisons)
    loaded = next(r for r in SeedTable.from_dict(saved).rows if r.metric == "strict:macro")
    assert loaded.result.p_value == pytest.approx(stats.ttest_ind(fa, fb, equal_var=False).pvalue, rel=1e-9)


def test_cli_e2e_compare_json_and_refusals(paths: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = paths["a"], paths["b"]
    args = ["compare", str(GOLD_PATH), "--task", "e2e", "--system", f"a={a}", "--system", f"b={b}"]
    assert main([*args, "--ner", "--resamples", "500", "-f", "json"]) == 0
    out = one_result(json.loads(capsys.readouterr().out))
    assert out["unit"] == "documents" and out["n"] == 30
    assert out["metrics"][0] == "ner:micro" and out["scores"]["a"]["ner:micro"] == 1.0
    assert out["scores"]["b"]["strict:micro"] == pytest.approx(_f_scores(GOLD, SYSTEM_B)["micro"], abs=1e-12)
    assert "task:e2e" in out["signature"] and "resamples:500" in out["signature"]
    assert main([*args, "--test", "mcnemar"]) == 2
    assert "mcnemar" in capsys.readouterr().err
    assert main([*args, "--on-missing", "negative"]) == 2
    assert "--on-missing: apply to --task rc" in capsys.readouterr().err  # and the ChemProt presets: rc Configs
    assert main([*args, "--criterion", "relaxed"]) == 2
    assert "the Relaxed criterion is experimental" in capsys.readouterr().err
    assert main(["compare", str(GOLD_PATH), "--system", f"a={a}", "--system", f"b={b}"]) == 2
    assert "use --task e2e" in capsys.readouterr().err


def test_docs_e2e_example_is_current(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The worked example in docs/significance.md is this run's output, and its F values are the set-based ones."""
    systems = {}
    for name, drop in (("a", WITH_RELATIONS[:2]), ("b", WITH_RELATIONS[2:9])):
        systems[name] = _system(set(drop))
    paths = {name: _write(tmp_path, f"sys_{name}", docs) for name, docs in systems.items()}
    types = REPO / "examples" / "conll04" / "conll04_types.json"
    args = ["compare", str(GOLD_PATH), "--task", "e2e", "--types", str(types), "-w", "macro"]
    assert main([*args, "--system", f"a={paths['a']}", "--system", f"b={paths['b']}"]) == 0
    out = capsys.readouterr().out
    assert out in (REPO / "docs" / "significance.md").read_text(encoding="utf-8")
    assert f"{100 * _f_scores(GOLD, systems['b'])['macro']:.2f}" in out.splitlines()[4]
