"""DocRED task: the official numbers equal the reference scorers' (run outside the repository, stored in
tests/data/docred_reference_vectors.json), the per-relation table equals scikit-learn's, the edge cases give
defined values with notes or located errors, and the commands run it."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from docred_cases import CASES, perturb
from releval.cli import main
from releval.core.errors import InputError
from releval.tasks.docred import DocredConfig, score_files

HERE = Path(__file__).parent
VECTORS = json.loads((HERE / "data" / "docred_reference_vectors.json").read_text())["cases"]
SHARED = HERE.parent.parent / "shared" / "data" / "docred"
GOLD_DEV = SHARED / "redocred_dev_revised.json.gz"
FACTS = SHARED / "docred_train_annotated.fact.gz"
needs_shared = pytest.mark.skipif(not GOLD_DEV.exists(), reason="../shared/data/docred is absent")

OFFICIAL = {"RE_F1": "f1", "Evi_F1": "evi_f1", "RE_ignore_annotated_F1": "ign_f1",
            "RE_ignore_distant_F1": "ign_distant_f1", "RE_P": "precision", "RE_R": "recall"}  # fmt: skip
SUBSETS = {"freq_F1": "frequent_f1", "long_tail_F1": "long_tail_f1", "intra_F1": "intra_f1", "inter_F1": "inter_f1",
           "freq_P": "frequent_precision", "freq_R": "frequent_recall", "long_tail_P": "long_tail_precision",
           "long_tail_R": "long_tail_recall"}  # fmt: skip


def _write(tmp: Path, case: dict[str, Any]) -> dict[str, str]:
    out = {}
    for key in ("truth", "train_annotated", "train_distant", "submission"):
        out[key] = str(tmp / f"{key}.json")
        Path(out[key]).write_text(json.dumps(case[key]))
    return out


def _score(tmp: Path, case: dict[str, Any], scorer: str, **kw: Any):  # noqa: ANN202
    files = _write(tmp, case)
    config = DocredConfig(
        scorer=scorer, train_facts=(files["train_annotated"],), distant_facts=(files["train_distant"],), **kw
    )
    return score_files(files["truth"], [("s", files["submission"])], config)[0]


def _check(result: Any, expected: dict[str, Any], subsets: bool = False) -> None:
    for key, value in expected.items():
        got = result.subsets[SUBSETS[key]] if key in SUBSETS else result.official[OFFICIAL[key]]
        if subsets or key in OFFICIAL:
            assert got == value, key  # bit for bit


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("scorer", ["codalab", "atlop", "redocred"])
def test_made_up_cases_equal_each_reference_bit_for_bit(tmp_path: Path, name: str, scorer: str) -> None:
    expected = VECTORS[name][scorer]
    result = _score(tmp_path, CASES[name], scorer)
    if "error" in expected:  # the reference crashes: releval gives 0 and a note saying so
        assert any("ZeroDivisionError" in n or "IndexError" in n for n in result.notes), result.notes
        return
    _check(result, expected)


@pytest.mark.parametrize("name", ["mixed", "duplicate_gold_labels", "all_correct_in_train", "gold_without_evidence"])
def test_redocred_subsets_equal_its_benchmark_function(tmp_path: Path, name: str) -> None:
    expected = VECTORS[name]["redocred_benchmark"]
    result = _score(tmp_path, CASES[name], "redocred")
    if "error" in expected:  # a title gold lacks: the benchmark function raises; releval counts it as false
        assert expected["error"] == "KeyError: 'D9'"  # positives (as the official F1 does) and says so
        assert any("absent from gold" in w and "KeyError" in w for w in result.warnings), result.warnings
        _check(result, VECTORS[name]["redocred"])  # the official numbers: the Re-DocRED scorer's own, D9 included
        return
    _check(result, expected, subsets=True)


def test_edge_case_notes(tmp_path: Path) -> None:
    empty = _score(tmp_path, CASES["empty_submission"], "codalab")
    assert empty.official["f1"] == 0.0 and any("IndexError" in n for n in empty.notes)
    ign = _score(tmp_path, CASES["all_correct_in_train"], "codalab")
    assert ign.official["ign_f1"] == 0.0 and any("ZeroDivisionError" in n for n in ign.notes)
    unknown = _score(tmp_path, CASES["only_unknown_titles"], "codalab")
    assert unknown.official["precision"] == 0.0 and any("absent from gold" in w for w in unknown.warnings)
    dup = _score(tmp_path, CASES["mixed"], "codalab")
    assert any("first keeps its evidence" in w for w in dup.warnings)


def test_shared_vector_case_equals_codalab_output(tmp_path: Path) -> None:
    path = HERE.parent.parent / "shared" / "testvectors" / "docred_vectors.json"
    if not path.exists():
        pytest.skip("../shared/testvectors is absent")
    v = json.loads(path.read_text())
    docs = v["train_annotated"]
    annotated = [[a["name"], b["name"], lab["r"]] for d in docs for lab in d["labels"]
                 for a in d["vertexSet"][lab["h"]] for b in d["vertexSet"][lab["t"]]]  # fmt: skip
    case = {"truth": v["truth"], "train_annotated": annotated, "train_distant": [], "submission": v["submission"]}
    files = _write(tmp_path, case)
    Path(files["train_distant"]).write_text(json.dumps(v["train_distant"]))  # a DocRED training file works too
    config = DocredConfig(train_facts=(files["train_annotated"],), distant_facts=(files["train_distant"],))
    r = score_files(files["truth"], [(None, files["submission"])], config)[0]
    expected = v["expected_official"]["scores_txt"]
    assert round(r.official["f1"], 6) == expected["RE_F1"]
    assert round(r.official["evi_f1"], 6) == expected["Evi_F1"]
    assert round(r.official["ign_f1"], 6) == expected["RE_ignore_annotated_F1"]
    assert round(r.official["ign_distant_f1"], 6) == expected["RE_ignore_distant_F1"]


def _dev_case(seed: int, unknown: bool, distant: list[list[str]]) -> dict[str, Any]:
    gold = json.loads(gzip.decompress(GOLD_DEV.read_bytes()))
    facts = json.loads(gzip.decompress(FACTS.read_bytes()))
    return {"truth": gold, "train_annotated": facts, "train_distant": distant,
            "submission": perturb(gold, seed, unknown_title=unknown)}  # fmt: skip


@needs_shared
@pytest.mark.parametrize("scorer", ["codalab", "atlop", "redocred"])
def test_redocred_dev_perturbed_equals_each_reference(tmp_path: Path, scorer: str) -> None:
    _check(_score(tmp_path, _dev_case(0, True, []), scorer), VECTORS["redocred_dev_perturbed_seed0"][scorer])
    case = _dev_case(1, False, CASES["mixed"]["train_distant"])
    result = _score(tmp_path, case, scorer)
    _check(result, VECTORS["redocred_dev_perturbed_seed1_known_titles"][scorer])
    if scorer == "redocred":
        _check(result, VECTORS["redocred_dev_perturbed_seed1_known_titles"]["redocred_benchmark"], subsets=True)


@needs_shared
def test_per_relation_table_equals_sklearn_and_micro_equals_official(tmp_path: Path) -> None:
    from sklearn.metrics import precision_recall_fscore_support
    from sklearn.preprocessing import MultiLabelBinarizer

    case = _dev_case(0, True, [])
    result = _score(tmp_path, case, "codalab", weightings=("macro", "weighted"))
    table = result.per_relation
    assert table.averages["micro"].f == result.official["f1"]  # exactly
    keys: dict[tuple[str, int, int], tuple[set[str], set[str]]] = {}
    for d in case["truth"]:
        for lab in d["labels"]:
            keys.setdefault((d["title"], lab["h"], lab["t"]), (set(), set()))[0].add(lab["r"])
    for p in case["submission"]:
        keys.setdefault((p["title"], p["h_idx"], p["t_idx"]), (set(), set()))[1].add(p["r"])
    labels = [row.label for row in table.per_class]
    mlb = MultiLabelBinarizer(classes=labels)
    y_true = mlb.fit_transform([g for g, _ in keys.values()])
    y_pred = mlb.transform([p for _, p in keys.values()])
    p, r, f, s = precision_recall_fscore_support(y_true, y_pred, zero_division=0)
    np.testing.assert_allclose([row.f for row in table.per_class], f, atol=1e-12)
    np.testing.assert_allclose([row.precision for row in table.per_class], p, atol=1e-12)
    gold_types = [i for i, n in enumerate(s) if n]  # multilabel: column indices
    for average in ("macro", "weighted"):
        *_, f_avg, _ = precision_recall_fscore_support(y_true, y_pred, labels=gold_types, average=average,
                                                       zero_division=0)  # fmt: skip
        assert table.averages[average].f == pytest.approx(f_avg, abs=1e-12)


def test_pr_curve_by_hand(tmp_path: Path) -> None:
    case = dict(CASES["mixed"])
    scores = [0.9, 0.8, 0.1, 0.7, 0.6, 0.5, 0.4, 0.3]
    case["submission"] = [{**p, "score": s} for p, s in zip(CASES["mixed"]["submission"], scores)]
    r = _score(tmp_path, case, "codalab")
    # deduplicated in order: D1 0-1 P108 (.9, ok), D1 1-2 P159 (.8, ok), D1 2-3 P17 (.7, ok), D1 3-2 P17 (.6),
    # D2 0-1 P19 (.5, ok), D2 0-2 P27 (.4), D9 (.3); 6 gold facts
    assert r.curve is not None
    assert r.curve.recall == pytest.approx([1 / 6, 2 / 6, 3 / 6, 3 / 6, 4 / 6, 4 / 6, 4 / 6])
    assert r.curve.best_f1 == pytest.approx(max(2 * p * q / (p + q) for p, q in [(1, 1 / 6), (1, 2 / 6), (1, 3 / 6),
                                                                             (4 / 5, 4 / 6)]))  # fmt: skip
    assert any("not a test result" in w for w in r.warnings)


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d[0]["labels"][1].pop("evidence"), "labels[1].evidence"),
        (lambda d: d[0]["labels"][0].update(h=9), "labels[0].h"),
        (lambda d: d[1].update(title="D1"), "title"),
        (lambda d: d[0]["vertexSet"][0][0].pop("sent_id"), "vertexSet[0][0]"),
    ],
)
def test_malformed_gold_is_a_located_error(tmp_path: Path, mutate: Any, field: str) -> None:
    case = json.loads(json.dumps(CASES["mixed"]))
    mutate(case["truth"])
    with pytest.raises(InputError) as err:
        _score(tmp_path, case, "codalab")
    assert err.value.field == field and err.value.record is not None


def test_missing_evidence_allowed_when_evidence_is_not_scored(tmp_path: Path) -> None:
    case = json.loads(json.dumps(CASES["mixed"]))
    case["truth"][0]["labels"][1].pop("evidence")
    result = _score(tmp_path, case, "codalab", evidence=False)
    assert "evi_f1" not in result.official


def test_malformed_prediction_is_a_located_error(tmp_path: Path) -> None:
    case = json.loads(json.dumps(CASES["mixed"]))
    case["submission"][2]["t_idx"] = 17
    with pytest.raises(InputError, match="t_idx") as err:
        _score(tmp_path, case, "codalab")
    assert err.value.record == 3


class Run:
    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def invoke(self, _main: Any, argv: list[str]) -> Any:
        code = main(argv)
        out, err = self.capsys.readouterr()
        return type("R", (), {"exit_code": code, "stdout": out, "output": out + err})


def test_cli_score_formats_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _write(tmp_path, CASES["mixed"])
    runner = Run(capsys)
    base = ["score", "--task", "docred", files["truth"], f"sys={files['submission']}",
            "--train-facts", files["train_annotated"]]  # fmt: skip
    for fmt in ("text", "json", "markdown", "latex", "csv"):
        res = runner.invoke(main, [*base, "-f", fmt])
        assert res.exit_code == 0, res.output
    out = json.loads(runner.invoke(main, [*base, "-f", "json"]).stdout)
    assert out["results"][0]["official"]["f1"] == VECTORS["mixed"]["codalab"]["RE_F1"]
    Path(files["submission"]).write_text('[{"title": "D1", "h_idx": 0}]')
    res = runner.invoke(main, base)
    assert res.exit_code == 2 and "record 1" in res.output and "t_idx" in res.output


def test_cli_compare_paired_and_seeds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _write(tmp_path, CASES["mixed"])
    other = tmp_path / "other.json"
    other.write_text(json.dumps(CASES["mixed"]["submission"][:4]))
    runner = Run(capsys)
    res = runner.invoke(main, ["compare", "--task", "docred", files["truth"], f"a={files['submission']}",
                               f"b={other}", "-R", "200", "-f", "json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    table = json.loads(res.stdout)["results"][0]
    assert {"f1", "ign_f1", "evi_f1", "macro"} <= set(table["metrics"])
    assert table["scores"]["a"]["f1"] == VECTORS["mixed"]["codalab"]["RE_F1"]
    res = runner.invoke(main, ["compare", "--task", "docred", files["truth"], "-s", f"a={files['submission']},{other}",
                               "-s", f"b={other},{files['submission']}"])  # fmt: skip
    assert res.exit_code == 0, res.output


def test_stats_shows_revisit_agreement(capsys: pytest.CaptureFixture[str]) -> None:
    runner = Run(capsys)
    bundled = HERE.parent / "examples" / "docred"
    revise, scratch = bundled / "revisit_valid_revise.json.gz", bundled / "revisit_valid_scratch.json.gz"
    res = runner.invoke(main, ["stats", "--task", "docred", str(revise), str(scratch), "-f", "json"])
    assert res.exit_code == 0, res.output
    agreement = json.loads(res.stdout)["agreement"][0]
    assert (agreement["shared"], agreement["facts_b"], agreement["precision_a_vs_b"]) == (1214, 3308, 1.0)
    assert round(100 * agreement["recall_a_vs_b"], 1) == 36.7
    if not GOLD_DEV.exists():
        return
    res = runner.invoke(main, ["stats", "--task", "docred", str(GOLD_DEV), "--train-facts", str(FACTS)])
    assert res.exit_code == 0 and "Re-DocRED" in res.output  # the mismatch of gold and train facts is named


def _three_entity_document(title: str) -> dict[str, Any]:
    vertex = [[{"name": n, "sent_id": s}] for n, s in (("A", 0), ("B", 1), ("C", 1))]
    labels = [{"h": 0, "t": 1, "r": "P1", "evidence": [0]}, {"h": 0, "t": 1, "r": "P2", "evidence": [0]},
              {"h": 1, "t": 2, "r": "P3", "evidence": [1]}]  # fmt: skip
    return {"title": title, "sents": [["a"], ["b"]], "vertexSet": vertex, "labels": labels}


def test_stats_percent_na_is_na_over_na_plus_facts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/docred.md's example by hand: 3 entities = 6 candidate pairs, 3 facts on 2 pairs, 4 NA pairs: % NA =
    4 / (4 + 3), not 4 / 6; the printed note says which."""
    gold = tmp_path / "g.json"
    gold.write_text(json.dumps([_three_entity_document("T")]))
    assert main(["stats", "--task", "docred", str(gold), "-f", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["files"]
    assert (row["candidates"], row["facts"]) == (6, 3)
    assert row["na_percent"] == pytest.approx(100 * 4 / 7) and row["na_percent"] != pytest.approx(100 * 4 / 6)
    assert main(["stats", "--task", "docred", str(gold)]) == 0
    out = capsys.readouterr().out
    assert "57.14" in out and "% NA = NA / (NA + facts)" in out
    doc = (HERE.parent / "docs" / "docred.md").read_text()
    assert "**% NA** is NA / (NA +\nfacts), a share of label samples, not NA / candidate pairs" in doc
    assert "% NA over candidate pairs" not in doc


def test_gold_with_a_repeated_title_is_refused_as_the_docs_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/docred.md's refusals table: a repeated title is refused, naming the second document and the first (the
    reference scorers merge the two documents), by score and stats alike."""
    gold = tmp_path / "g.json"
    gold.write_text(json.dumps([_three_entity_document("T"), _three_entity_document("U"), _three_entity_document("T")]))
    row = "| gold with a repeated title (titles key the predictions) | the documents merged | refused, naming the "
    assert row in (HERE.parent / "docs" / "docred.md").read_text()
    for argv in (["score", "--task", "docred", str(gold), str(gold)], ["stats", "--task", "docred", str(gold)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "record 3: field 'title'" in err and "repeats document 1" in err, err


def test_plot_per_relation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _write(tmp_path, CASES["mixed"])
    png, data = tmp_path / "f.png", tmp_path / "f.json"
    argv = ["plot", "per-class", "--task", "docred", files["truth"], f"a={files['submission']}", "-o", str(png),
            "--data-json", str(data), "--train-facts", files["train_annotated"]]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr()
    drawn = json.loads(data.read_text())["data"]
    assert drawn["classes"][0] == "P17"  # most gold facts first: P17 has 2 of the 6
    assert drawn["averages"]["micro"] == [VECTORS["mixed"]["codalab"]["RE_F1"]]
    assert png.stat().st_size > 0
    assert main(["plot", "per-class", files["truth"], files["submission"], "-o", str(png),
                 "--train-facts", files["train_annotated"]]) == 2  # fmt: skip
    assert "--task docred" in capsys.readouterr().err


def test_null_evidence_in_a_prediction_is_a_located_error(tmp_path: Path) -> None:
    """The column reader takes JSON null as no evidence; a file holding null is read by the checking reader, which
    refuses a null `evidence` (the CodaLab scorer would crash on set(None)) and accepts a null `score`."""
    case = json.loads(json.dumps(CASES["mixed"]))
    case["submission"][0]["score"] = None
    assert _score(tmp_path, case, "codalab").official["f1"] == VECTORS["mixed"]["codalab"]["RE_F1"]
    case["submission"][3]["evidence"] = None
    with pytest.raises(InputError) as err:
        _score(tmp_path, case, "codalab")
    assert (err.value.record, err.value.field) == (4, "evidence")


def test_intra_and_inter_beyond_62_sentences_by_hand(tmp_path: Path) -> None:
    """Sentence sets as bit masks: past 62 sentences they are Python integers; intra/inter as Re-DocRED defines
    them (some mention of h and some of t share a sentence)."""
    ents = [[("A", 0), ("A2", 70)], [("B", 70)], [("C", 3)]]
    labels = [{"h": 0, "t": 1, "r": "P1", "evidence": [70]}, {"h": 1, "t": 2, "r": "P2", "evidence": [3]}]
    vertex = [[{"name": n, "sent_id": s} for n, s in e] for e in ents]
    doc = {"title": "L", "sents": [["w"]] * 71, "vertexSet": vertex, "labels": labels}
    sub = [{"title": "L", "h_idx": 0, "t_idx": 1, "r": "P1", "evidence": [70]},
           {"title": "L", "h_idx": 0, "t_idx": 2, "r": "P2", "evidence": [0]}]  # fmt: skip
    case = {"truth": [doc], "train_annotated": [], "train_distant": [], "submission": sub}
    s = _score(tmp_path, case, "codalab").subsets
    # gold: (0,1) intra (sentence 70), (1,2) inter; predictions: (0,1) intra correct, (0,2) inter wrong
    assert (s["intra_precision"], s["intra_recall"]) == (1.0, 1.0)
    assert (s["inter_precision"], s["inter_recall"]) == (0.0, 0.0)


def test_the_same_file_as_train_and_distant_facts_is_read_once(tmp_path: Path) -> None:
    from releval.tasks.docred import Facts

    files = _write(tmp_path, CASES["mixed"])
    both = Facts.of(DocredConfig(train_facts=(files["train_annotated"],), distant_facts=(files["train_annotated"],)))
    assert both.distant is both.train
    r = _score(tmp_path, {**CASES["mixed"], "train_distant": CASES["mixed"]["train_annotated"]}, "codalab")
    assert r.official["ign_distant_f1"] == r.official["ign_f1"]


def test_two_files_of_the_same_content_as_train_and_distant_facts_are_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34: `--train-facts a --distant-facts b` with b a copy of a (the CodaLab layout: train_annotated.fact and
    train_distant.fact) gives the numbers of one file given as both, and parses one file, not two; a third file of
    other content is parsed too (the count is of contents, not of calls)."""
    import releval.data.docred as data_docred
    from releval.tasks.docred import Facts

    parsed: list[str] = []
    original = data_docred._fact_file

    def counting(name: str, raw: bytes) -> Any:
        parsed.append(Path(name).name)
        return original(name, raw)

    monkeypatch.setattr(data_docred, "_fact_file", counting)
    files = _write(tmp_path, CASES["mixed"])
    copy = tmp_path / "train_distant.fact"
    copy.write_bytes(Path(files["train_annotated"]).read_bytes())
    gold, pred = files["truth"], [("s", files["submission"])]
    once = score_files(gold, pred, DocredConfig(train_facts=(files["train_annotated"],),
                                                distant_facts=(files["train_annotated"],)))[0]  # fmt: skip
    assert parsed == ["train_annotated.json"]
    parsed.clear()
    config = DocredConfig(train_facts=(files["train_annotated"],), distant_facts=(str(copy),))
    both = Facts.of(config)
    assert parsed == ["train_annotated.json"] and both.distant is both.train
    parsed.clear()
    two = score_files(gold, pred, config)[0]
    assert parsed == ["train_annotated.json"]
    assert two.official == once.official and two.signature == once.signature
    # by hand: the copy's facts are the annotated facts, so Ign-distant equals Ign (the reference's own vector)
    assert two.official["ign_distant_f1"] == two.official["ign_f1"]
    # a file of other content is a second parse, and a second set
    other = tmp_path / "other.fact"
    other.write_text(json.dumps([["x", "y", "P1"]]))
    parsed.clear()
    apart = Facts.of(DocredConfig(train_facts=(files["train_annotated"],), distant_facts=(str(other),)))
    assert parsed == ["train_annotated.json", "other.fact"] and apart.distant is not apart.train
    assert apart.distant is not None and apart.distant.facts == {("x", "y", "P1")}


def test_relation_names_in_tables_json_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--relation-names docred: the bundled rel_info.json (P131 checked by hand against DocRED's file); a file of
    one's own; a rel2id.json (numbers, not names) is a located error, exit 2."""
    files = _write(tmp_path, CASES["mixed"])
    base = ["score", "--task", "docred", files["truth"], files["submission"]]
    assert main([*base, "--relation-names", "docred"]) == 0
    out = capsys.readouterr().out
    assert "P17 country " in out and "P108 employer " in out and "P159 headquarters location " in out
    own = tmp_path / "names.json"
    own.write_text(json.dumps({"P17": "land", "P131": "located in the administrative territorial entity"}))
    assert main([*base, "--relation-names", str(own), "-f", "json"]) == 0
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert result["relation_names"] == {"P17": "land"}  # the ids of this gold and submission that have a name
    assert [row["label"] for row in result["per_relation"]["per_class"]][:2] == ["P108", "P159"]  # ids unchanged
    assert main([*base, "--relation-names", str(own), "-f", "csv"]) == 0
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines() if ",class,P17," in line]
    assert rows and rows[0][rows[0].index("P17") + 1] == "land"
    from releval.data.docred import load_relation_names

    assert load_relation_names("docred")["P131"] == "located in the administrative territorial entity"
    bad = tmp_path / "rel2id.json"
    bad.write_text(json.dumps({"Na": 0, "P17": 1}))
    assert main([*base, "--relation-names", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "'Na'" in err and "rel_info.json" in err and "Traceback" not in err


def test_per_relation_figure_grows_in_height_with_the_types() -> None:
    """96 relation types with names: one row each, ROW_INCHES apart (more than a 7-pt label), so the figure's
    height grows with their number and its width with the longest name."""
    from releval.core.signature import parse
    from releval.report.figures import per_class_figure
    from releval.report.figures.per_class import ROW_INCHES
    from releval.result import Average, ClassRow, ScoreResult

    def result(k: int) -> ScoreResult:
        rows = [ClassRow(f"P{i}", 1, 0, 1, 2, 1.0, 0.5, 2 / 3, True) for i in range(k)]
        return ScoreResult("s", rows, {"micro": Average("micro", 1.0, 0.5, 2 / 3)}, 0.5, 2 * k, None,
                           parse("task:docred"))  # fmt: skip

    names = {f"P{i}": "located in the administrative territorial entity" for i in range(96)}
    _, big = per_class_figure([result(96)], names=names)
    _, half = per_class_figure([result(48)], names=names)
    hb, hh = big.get_size_inches()[1], half.get_size_inches()[1]
    assert hb - hh == pytest.approx(48 * ROW_INCHES) and ROW_INCHES * 72 > 7  # points per row > font size
    labels = [t.get_text() for t in big.axes[0].get_yticklabels()]
    assert labels[0] == "P0 located in the administrative territorial entity (2)" and len(labels) == 96


def test_huge_entity_index_for_a_title_absent_from_gold(tmp_path: Path) -> None:
    """A title gold lacks has no entities to check its indices against: any integer >= 0 is a false positive."""
    case = json.loads(json.dumps(CASES["mixed"]))
    case["submission"][-1]["h_idx"] = 2**64 - 1  # D9: beyond int64
    assert _score(tmp_path, case, "codalab").official["f1"] == VECTORS["mixed"]["codalab"]["RE_F1"]


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (("stats", "--task", "docred", "{gold}"), "stats"),
        (("compare", "--task", "docred", "{gold}", "-s", "a={a}", "-s", "b={b}", "-R", "20"), "compare"),
        (("audit", "run", "--task", "docred", "{gold}", "{a}"), "audit"),
        (("replicability", "from-predictions", "--task", "docred", "-d", "x={gold},{a},{b}", "-R", "20"),
         "replicability"),
    ],
)  # fmt: skip
def test_relation_names_are_refused_where_no_per_relation_table_is_shown(
    argv: tuple[str, ...], command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only score and plot per-class show per-relation rows: every other command says it does not use the names
    (exit 2, no output file), naming itself."""
    bundled = HERE.parent / "examples" / "docred"
    files = {"gold": bundled / "redocred_dev_first40.json.gz", "a": bundled / "system_a.json.gz",
             "b": bundled / "system_b.json.gz"}  # fmt: skip
    out = tmp_path / "out.json"
    args = [a.format(**files) for a in argv]
    assert main([*args, "--relation-names", "docred", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--relation-names: not used by {command}" in err and "Traceback" not in err
    assert not out.exists()
