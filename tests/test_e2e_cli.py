"""`releval score --task e2e` and `releval stats` on end-to-end files (and `--compare`), all formats."""

from __future__ import annotations

import csv
import io
import json

import pytest
from tests.conftest import CONLL04_ALL_SPLITS, CONLL04_TYPES, EXAMPLES, one_result

from releval.api import score_e2e
from releval.cli import main
from releval.core.errors import InputError
from releval.data.e2e import Document, load_e2e, to_spert

WEIGHTINGS = ["weighted", "dodrans", "entropy", "macro"]


def _score(gold, preds, capsys, *, fmt="text", output=None, types=None, relaxed=False, weightings=WEIGHTINGS):
    """`releval score --task e2e` through the command line, as a user runs it."""
    argv = ["score", str(gold), *map(str, preds), "--task", "e2e", "--format", fmt]
    argv += [x for w in weightings for x in ("--weighting", w)]
    argv += ["--output", str(output)] if output is not None else []
    argv += ["--types", str(types)] if types is not None else []
    argv += ["--relaxed"] if relaxed else []
    rc = main(argv)
    return rc, capsys.readouterr()


def run_stats_e2e(files, *, compare, format, output):
    """`releval stats FILES` as a user runs it (the e2e task's statistics, or --compare): its exit status."""
    argv = ["stats", *map(str, files), "--format", format]
    argv += ["--compare"] if compare else []
    argv += ["--output", str(output)] if output is not None else []
    return main(argv)


def test_stats_conll04_all_splits_text(capsys):
    rc = run_stats_e2e([CONLL04_ALL_SPLITS], compare=False, format="text", output=None)
    out = capsys.readouterr().out
    assert rc == 0
    lines = {ln.split()[0]: ln.split() for ln in out.splitlines() if ln.split()}
    assert lines["train"][1:5] == ["922", "26,525", "3,377", "1,283"]
    assert lines["dev"][1:5] == ["231", "6,993", "893", "343"]
    assert lines["test"][1:5] == ["288", "8,336", "1,079", "422"]
    assert lines["total"][1:5] == ["1,441", "41,854", "5,349", "2,048"]
    assert "relation type → (head type, tail type), all splits: bijective ==" in out
    assert "Live_In       Peop→Loc (521)" in out


def test_stats_json_csv_and_output_file(tmp_path, capsys):
    path = CONLL04_ALL_SPLITS
    run_stats_e2e([path], compare=False, format="json", output=None)
    data = json.loads(capsys.readouterr().out)
    assert (data["total"]["sentences"], data["total"]["entities"], data["total"]["relations"]) == (1441, 5349, 2048)
    assert data["total"]["bijective"] is True
    assert [s["name"] for s in data["splits"]] == ["train", "dev", "test"]
    out = tmp_path / "stats.csv"
    assert run_stats_e2e([path], compare=False, format="csv", output=out) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    got = {(r["split"], r["key"]): r["value"] for r in rows if r["kind"] == "count"}
    assert got[("test", "relations")] == "422"
    assert got[("total", "bijective")] == "True"
    for fmt, marker in (("markdown", "| total | 1,441 | 41,854 | 5,349 | 2,048 |"), ("latex", r"total & 1,441")):
        assert run_stats_e2e([path], compare=False, format=fmt, output=None) == 0
        assert marker in capsys.readouterr().out


def test_stats_compare(conll04_test, tmp_path, capsys):
    test = conll04_test
    docs = load_e2e(test).documents
    altered = [docs[0], Document(docs[1].id, docs[1].tokens, docs[1].entities, ()), *docs[3:]]
    other = tmp_path / "other.json"
    other.write_text(json.dumps(to_spert(altered)))
    assert run_stats_e2e([test, other], compare=True, format="json", output=None) == 1  # they differ, as in diff(1)
    data = json.loads(capsys.readouterr().out)
    assert data["identical"] is False
    removed = len(docs[1].relations) + len(docs[2].relations)
    assert f"total relations: 422 vs {422 - removed} ({-removed:+,})" in data["differences"]
    assert f"1 sentence(s) only in the first file, e.g. {docs[2].id}" in data["differences"]
    assert run_stats_e2e([test, test], compare=True, format="text", output=None) == 0
    assert "identical content" in capsys.readouterr().out


def test_score_conll04_against_itself_through_main(conll04_test, capsys):
    gold = str(conll04_test)
    types = str(CONLL04_TYPES)
    rc = main(["score", gold, gold, "--task", "e2e", "--types", types, "--format", "json"])
    data = one_result(json.loads(capsys.readouterr().out))
    assert rc == 0
    assert set(data["criteria"]) == {"ner", "strict", "boundaries"}
    for crit in data["criteria"].values():
        for avg in crit["averages"].values():
            assert avg["f"] == pytest.approx(1.0)
    assert data["criteria"]["strict"]["signature"].startswith("task:e2e|criterion:strict|")


def test_score_text_side_by_side_and_relaxed_label(conll04_test, tmp_path, capsys):
    gold = conll04_test
    docs = load_e2e(gold).documents
    # mistype the head of every relation of the first sentence with relations: Strict drops, Boundaries does not
    k = next(i for i, d in enumerate(docs) if d.relations)
    ents = [
        (s, e, "Other") if j == docs[k].relations[0][0] else (s, e, t) for j, (s, e, t) in enumerate(docs[k].entities)
    ]
    pred = [*docs[:k], Document(docs[k].id, docs[k].tokens, tuple(ents), docs[k].relations), *docs[k + 1 :]]
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(to_spert(pred)))
    rc, out = _score(gold, [path], capsys, relaxed=True)
    assert rc == 0
    text = out.out
    assert "Strict P" in text and "Boundaries P" in text and "Relaxed(exp.) P" in text
    micro = next(
        ln
        for ln in text.splitlines()
        if ln.strip().startswith("micro") and "Strict" not in ln and len(ln.split()) == 11
    )
    cells = micro.split()
    assert cells[6] == "100.00"  # Boundaries F1
    assert float(cells[3]) < 100.0  # Strict F1
    assert "Relaxed is EXPERIMENTAL and does not evaluate end-to-end RE" in out.err
    assert "crit:relaxed(experimental)" in text


def test_score_csv_markdown_latex_and_atomic_output(conll04_test, tmp_path, capsys):
    gold = conll04_test
    out = tmp_path / "scores.csv"
    rc, _ = _score(gold, [gold], capsys, fmt="csv", output=out)
    assert rc == 0
    comments, text = [], []
    for line in out.read_text().splitlines(keepends=True):
        (comments if line.startswith("#") else text).append(line)
    assert comments == [  # gold scored against itself: the CSV says so in a comment row
        f"# warning: {gold.stem}: predictions equal gold: did you pass gold twice? {gold} reproduces gold exactly "
        "on all 288 sentences\n"
    ]
    rows = list(csv.DictReader(io.StringIO("".join(text))))
    micro = {r["criterion"]: float(r["f"]) for r in rows if r["label"] == "micro"}
    assert micro == {"ner": 1.0, "strict": 1.0, "boundaries": 1.0}
    support = {r["label"]: int(r["support"]) for r in rows if r["criterion"] == "strict" and r["kind"] == "class"}
    assert support == {"Kill": 47, "Live_In": 100, "Located_In": 94, "OrgBased_In": 105, "Work_For": 76}
    _, md = _score(gold, [gold], capsys, fmt="markdown")
    assert "| **micro** | 100.00 | 100.00 | 100.00 | 100.00 | 100.00 | 100.00 | 422 |" in md.out
    _, tex = _score(gold, [gold], capsys, fmt="latex")
    assert r"\begin{tabular}{lrrrrrrr}" in tex.out


def test_bad_prediction_exits_2_and_writes_nothing(conll04_test, tmp_path, capsys):
    gold = conll04_test
    docs = load_e2e(gold).documents
    bad = to_spert([Document(docs[0].id, docs[0].tokens[:-1], (), ()), *docs[1:]])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    out = tmp_path / "out.json"
    with pytest.raises(InputError, match=f"id {docs[0].id}: tokens differ"):
        score_e2e(gold, path)
    rc = main(["score", str(gold), str(path), "--task", "e2e", "--output", str(out)])
    assert rc == 2
    assert f"id {docs[0].id}: tokens differ from gold" in capsys.readouterr().err
    assert not out.exists()


def test_bundled_example_slice(conll04_test):
    example = EXAMPLES / "conll04" / "conll04_test_first30.json"
    data = load_e2e(example)
    assert len(data.documents) == 30
    full = load_e2e(conll04_test).documents[:30]
    assert data.documents == full


def test_docs_worked_example_numbers(tmp_path, capsys):
    """The numbers shown in docs/e2e.md, recomputed from the bundled slice."""
    data = json.loads((EXAMPLES / "conll04" / "conll04_test_first30.json").read_text())
    swap = {"Loc": "Org", "Org": "Loc", "Peop": "Other", "Other": "Peop"}
    for k, s in enumerate(data):
        if len(s["entities"]) >= 4:
            s["entities"][3]["type"] = swap[s["entities"][3]["type"]]
        if k % 5 == 0 and s["relations"]:
            s["relations"] = s["relations"][:-1]
    pred = tmp_path / "example_pred.json"
    pred.write_text(json.dumps(data))
    rc, out = _score(
        EXAMPLES / "conll04" / "conll04_test_first30.json",
        [pred],
        capsys,
        fmt="json",
        types=EXAMPLES / "conll04" / "conll04_types.json",
        weightings=["macro", "weighted"],
    )
    result = one_result(json.loads(out.out))["criteria"]
    assert rc == 0
    assert round(100 * result["strict"]["averages"]["micro"]["f"], 2) == 77.55
    assert round(100 * result["boundaries"]["averages"]["micro"]["f"], 2) == 93.88
    assert round(100 * result["ner"]["averages"]["weighted"]["f"], 2) == 89.36
    located = next(r for r in result["strict"]["per_class"] if r["label"] == "Located_In")
    assert (located["tp"], located["fp"], located["fn"]) == (15, 7, 9)


def test_relaxed_needs_its_flag_on_the_command_line(conll04_test, capsys):
    gold = str(conll04_test)
    rc = main(["score", gold, gold, "--task", "e2e", "--criterion", "strict,relaxed"])
    assert rc == 2
    assert "--relaxed" in capsys.readouterr().err
    rc = main(["score", gold, gold, "--task", "e2e", "--criterion", "strict", "--relaxed", "--format", "json"])
    data = one_result(json.loads(capsys.readouterr().out))
    assert rc == 0
    assert list(data["criteria"]) == ["ner", "strict", "relaxed"]
    assert data["criteria"]["relaxed"]["warnings"][0]["message"].startswith("Relaxed is EXPERIMENTAL")
    assert data["criteria"]["relaxed"]["warnings"][0]["code"] == "experimental-criterion"
