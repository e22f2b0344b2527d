"""ChemProt (BLUE and SciBERT presets) and DrugProt: numbers checked against scikit-learn, Harbecke et al.'s
Table 1 and the official DrugProt evaluation library; located errors; every output format; audit compare."""

from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path

import pytest
from sklearn.metrics import precision_recall_fscore_support

from releval.cli import main
from releval.core.errors import InputError, OptionError
from releval.core.options import OUTPUT_FORMATS
from releval.registry import get_task
from releval.tasks.chemprot import BlueConfig, SciBertConfig
from releval.tasks.drugprot import DrugProtConfig

ROOT = Path(__file__).resolve().parents[1]
CHEMPROT = ROOT / "examples" / "chemprot"
DRUGPROT = ROOT / "examples" / "drugprot"
GROUPS = ["CPR:3", "CPR:4", "CPR:5", "CPR:6", "CPR:9"]

# The official DrugProt evaluation library (tonifuc3m/drugprot-evaluation-library@6b93955, src/main.py run on its
# own gs-data/ and toy-data/pred_relations.tsv, outside this repository): its printout, rounded to 3 digits.
OFFICIAL_TOY = {
    "micro": (0.783, 0.72, 0.75),
    "INDIRECT-DOWNREGULATOR": (1.0, 0.5, 0.667),
    "DIRECT-REGULATOR": (1.0, 1.0, 1.0),
    "ACTIVATOR": (1.0, 1.0, 1.0),
    "INHIBITOR": (1.0, 0.8, 0.889),
    "AGONIST": (0.8, 0.667, 0.727),
    "ANTAGONIST": (1.0, 1.0, 1.0),
    "PART-OF": (1.0, 0.5, 0.667),
}


def _run(*args: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def _blue_file(path: Path, labels: list[str], index: list[str] | None = None) -> Path:
    index = index or [f"{100 + i // 3}.T{i % 3}.T9" for i in range(len(labels))]
    rows = "".join(f"{k}\tsome @CHEMICAL$ and @GENE$\t{x}\n" for k, x in zip(index, labels))
    path.write_text("index\tsentence\tlabel\n" + rows, encoding="utf-8")
    return path


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_blue_micro_equals_sklearn_over_the_five_groups(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    labels = [*GROUPS, "false"]
    gold = [rng.choices(labels, [1, 2, 1, 1, 1, 6])[0] for _ in range(400)]
    pred = [rng.choice(labels) if rng.random() < 0.4 else g for g in gold]
    g, p = _blue_file(tmp_path / "gold.tsv", gold), _blue_file(tmp_path / "pred.tsv", pred)
    (result,) = get_task("chemprot-blue").score_files(g, [(None, p)], BlueConfig())
    want = precision_recall_fscore_support(gold, pred, labels=GROUPS, average="micro", zero_division=0)
    micro = result.averages["micro"]
    assert (micro.precision, micro.recall, micro.f) == pytest.approx(want[:3], abs=1e-12)
    macro = precision_recall_fscore_support(gold, pred, labels=GROUPS, average="macro", zero_division=0)
    assert result.averages["macro"].f == pytest.approx(macro[2], abs=1e-12)
    assert result.signature["task"] == "chemprot-blue" and result.signature["negative"] == "false"


def test_blue_example_gives_blue_s_own_evaluation_numbers() -> None:
    """BLUE's eval_rel.py (ncbi-nlp/BLUE_Benchmark@c497c41, run outside this repository with NumPy's removed
    np.float/np.int aliases replaced) on examples/chemprot/blue_{gold,sys_a}.tsv rewritten in its evaluation layout
    printed, for the five groups: micro TP 36, FP 68, FN 15, P 0.346, R 0.706, F 0.465."""
    task = get_task("chemprot-blue")
    (result,) = task.score_files(CHEMPROT / "blue_gold.tsv", [(None, CHEMPROT / "blue_sys_a.tsv")], BlueConfig())
    micro = result.averages["micro"]
    assert (micro.precision, micro.recall, micro.f) == pytest.approx((36 / 104, 36 / 51, 72 / 155), abs=1e-12)
    assert [round(x, 3) for x in (micro.precision, micro.recall, micro.f)] == [0.346, 0.706, 0.465]


def test_blue_reads_its_evaluation_layout_too(tmp_path: Path) -> None:
    """BLUE's eval_rel.py reads `id docid arg1 arg2 label` files (create_chemprot_test_gs.py writes them)."""
    head = "id\tdocid\targ1\targ2\tlabel\n"
    gold, pred = tmp_path / "gs.tsv", tmp_path / "pred.tsv"
    gold.write_text(head + "1.R0\t1\tT1\tT2\tCPR:4\n1.R1\t1\tT1\tT3\tfalse\n1.R2\t1\tT4\tT3\tCPR:9\n", "utf-8")
    pred.write_text(head + "1.R0\t1\tT1\tT2\tCPR:4\n1.R1\t1\tT1\tT3\tCPR:9\n1.R2\t1\tT4\tT3\tfalse\n", "utf-8")
    (result,) = get_task("chemprot-blue").score_files(gold, [(None, pred)], BlueConfig())
    micro = result.averages["micro"]
    assert (micro.precision, micro.recall) == (0.5, 0.5)  # TP CPR:4; FP CPR:9 on a false pair; FN the CPR:9 pair
    pred.write_text(head + "1.R0\t1\tT1\tT2\tCPR:4\n1.R2\t1\tT4\tT3\tfalse\n1.R1\t1\tT1\tT3\tCPR:9\n", "utf-8")
    with pytest.raises(InputError, match="index '1.R2' where gold has '1.R1'") as info:
        get_task("chemprot-blue").score_files(gold, [(None, pred)], BlueConfig())
    assert (info.value.line, info.value.field) == (3, "index")


def test_blue_line_counts_index_and_labels_are_refused_at_their_line(tmp_path: Path) -> None:
    gold = _blue_file(tmp_path / "gold.tsv", ["CPR:4", "false", "CPR:9", "false"])
    task, config = get_task("chemprot-blue"), BlueConfig()
    short = _blue_file(tmp_path / "short.tsv", ["CPR:4", "false", "CPR:9"])
    with pytest.raises(InputError, match="3 prediction rows for 4 gold rows") as info:
        task.score_files(gold, [(None, short)], config)
    assert (Path(info.value.file).name, info.value.line) == ("short.tsv", 5)
    long = _blue_file(tmp_path / "long.tsv", ["CPR:4", "false", "CPR:9", "false", "false"])
    with pytest.raises(InputError, match="5 prediction rows for 4 gold rows") as info:
        task.score_files(gold, [(None, long)], config)
    assert (Path(info.value.file).name, info.value.line) == ("long.tsv", 6)
    moved = _blue_file(tmp_path / "moved.tsv", ["CPR:4"] * 4, ["100.T0.T9", "100.T1.T9", "100.T9.T9", "101.T0.T9"])
    with pytest.raises(InputError, match="index '100.T9.T9' where gold has '100.T2.T9'") as info:
        task.score_files(gold, [(None, moved)], config)
    assert (info.value.line, info.value.field) == (4, "index")
    typo = tmp_path / "typo.tsv"
    typo.write_text((tmp_path / "long.tsv").read_text().replace("CPR:9", "CPR:7"), encoding="utf-8")
    with pytest.raises(InputError, match="'CPR:7' is not a BLUE ChemProt label") as info:
        task.score_files(gold, [(None, typo)], config)
    assert (info.value.line, info.value.field) == (4, "label")


def test_blue_line_count_mismatch_is_one_line_and_exit_2_on_the_command_line(tmp_path: Path) -> None:
    gold = _blue_file(tmp_path / "gold.tsv", ["CPR:4", "false", "CPR:9"])
    pred = _blue_file(tmp_path / "pred.tsv", ["CPR:4", "false"])
    for command in (["score"], ["compare", "-R", "20"]):
        extra = [f"a={pred}", f"b={pred}"] if command[0] == "compare" else [pred]
        code, out, err = _run(*command, "--task", "chemprot-blue", gold, *extra)
        assert code == 2 and not out
        assert "pred.tsv:4: 2 prediction rows for 3 gold rows" in err and "Traceback" not in err


def test_presets_refuse_another_negative_class() -> None:
    with pytest.raises(OptionError, match="chemprot-blue's negative class is 'false'"):
        BlueConfig(negative="Other")
    with pytest.raises(OptionError, match="chemprot-scibert's negative class is none"):
        SciBertConfig(negative="INHIBITOR")
    gold, pred = CHEMPROT / "scibert_test_head.txt", CHEMPROT / "scibert_sys_a.txt"
    code, _, err = _run("score", "--task", "chemprot-scibert", "--negative", "X", gold, pred)
    assert code == 2 and "negative class is none" in err


def test_scibert_micro_is_accuracy_and_says_so() -> None:
    gold, pred = CHEMPROT / "scibert_test_head.txt", CHEMPROT / "scibert_sys_a.txt"
    (result,) = get_task("chemprot-scibert").score_files(gold, [(None, pred)], SciBertConfig())
    g = [json.loads(x)["label"] for x in gold.read_text(encoding="utf-8").splitlines()]
    p = [json.loads(x)["label"] for x in pred.read_text(encoding="utf-8").splitlines()]
    accuracy = sum(a == b for a, b in zip(g, p)) / len(g)
    assert result.averages["micro"].f == pytest.approx(accuracy, abs=1e-12) == pytest.approx(result.accuracy)
    assert any("no negative class: micro-F1 equals accuracy" in note for note in result.notes)
    code, out, _ = _run("score", "--task", "chemprot-scibert", gold, pred)
    assert code == 0 and "no negative class: micro-F1 equals accuracy" in out


def test_scibert_refuses_a_label_outside_the_13_at_its_line(tmp_path: Path) -> None:
    lines = (CHEMPROT / "scibert_sys_a.txt").read_text(encoding="utf-8").splitlines()
    lines[6] = json.dumps({"text": "x", "label": "CPR:4", "metadata": []})
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = _run("score", "--task", "chemprot-scibert", CHEMPROT / "scibert_test_head.txt", bad)
    assert code == 2 and "bad.txt:7: field 'label': 'CPR:4' is not a SciBERT ChemProt label" in err


def test_stats_reproduces_harbecke_table1_chemprot_row() -> None:
    files = [CHEMPROT / f"scibert_chemprot_{s}.txt.gz" for s in ("train", "dev", "test")]
    code, out, _ = _run("stats", "--task", "chemprot-scibert", *files, "-f", "json")
    assert code == 0
    row = json.loads(out)["table1"]
    # Harbecke et al. (2022), Table 1: ChemProt 13 / 10,065 / 0 / 7.23 / 7.23 / 314
    assert (row["relations"], row["samples"], row["negative_percent"]) == (13, 10065, 0.0)
    assert round(row["perplexity"], 2) == round(row["perplexity_without_negative"], 2) == 7.23
    assert round(row["ratio"]) == 314 and row["ratio"] == 1255 / 4  # INHIBITOR 1,255 / AGONIST-ACTIVATOR 4 in test
    code, out, _ = _run("stats", "--task", "chemprot-scibert", *files)
    assert "chemprot-scibert    13    10,065     0  7.23         7.23    314" in out


@pytest.mark.skipif(not (ROOT.parent / "shared" / "data" / "chemprot").is_dir(), reason="../shared/data is absent")
def test_the_bundled_chemprot_splits_are_scibert_s_files() -> None:
    for split in ("train", "dev", "test"):
        name = f"scibert_chemprot_{split}.txt.gz"
        assert (CHEMPROT / name).read_bytes() == (ROOT.parent / "shared" / "data" / "chemprot" / name).read_bytes()


def test_drugprot_reproduces_the_official_toy_numbers() -> None:
    code, out, _ = _run(
        "score", "--task", "drugprot", DRUGPROT / "gs-data", DRUGPROT / "toy-data" / "pred_relations.tsv", "-f", "json"
    )
    assert code == 0
    (result,) = json.loads(out)["results"]
    micro = result["averages"]["micro"]
    assert (micro["precision"], micro["recall"], micro["f"]) == pytest.approx((18 / 23, 18 / 25, 0.75), abs=1e-12)
    got = {"micro": (micro["precision"], micro["recall"], micro["f"])}
    got |= {r["label"]: (r["precision"], r["recall"], r["f"]) for r in result["per_class"] if r["support"] > 0}
    assert {k: tuple(round(x, 3) for x in v) for k, v in got.items()} == OFFICIAL_TOY
    warnings = " ".join(w["message"] if isinstance(w, dict) else w for w in result["warnings"])
    assert "'whatever' (line 26), 'sdfcs' (line 27)" in warnings and "3 repeated" in warnings


def test_drugprot_weightings_by_hand() -> None:
    task = get_task("drugprot")
    (result,) = task.score_files(
        DRUGPROT / "gs-data", [(None, DRUGPROT / "toy-data" / "pred_relations.tsv")], DrugProtConfig()
    )
    f1 = {t: v[2] for t, v in OFFICIAL_TOY.items() if t != "micro"}
    exact = {"INDIRECT-DOWNREGULATOR": 2 / 3, "INHIBITOR": 8 / 9, "AGONIST": 8 / 11, "PART-OF": 2 / 3}
    f1 |= exact
    support = {"INDIRECT-DOWNREGULATOR": 6, "DIRECT-REGULATOR": 2, "ACTIVATOR": 1, "INHIBITOR": 5, "AGONIST": 6}
    support |= {"ANTAGONIST": 3, "PART-OF": 2}
    assert result.averages["macro"].f == pytest.approx(sum(f1.values()) / 7, abs=1e-12)
    weighted = sum(f1[t] * support[t] for t in f1) / 25
    assert result.averages["weighted"].f == pytest.approx(weighted, abs=1e-12)


def _drugprot_gold(tmp_path: Path) -> Path:
    folder = tmp_path / "gs"
    folder.mkdir()
    for name in ("gs_entities.tsv", "gs_relations.tsv", "pmids.txt"):
        (folder / name).write_bytes((DRUGPROT / "gs-data" / name).read_bytes())
    return folder


@pytest.mark.parametrize(
    ("line", "message", "field"),
    [
        ("1322047\tAGONIST\tArg1:T6\tArg2:T99", "Arg2:T99' is not an entity of PMID 1322047", "Arg2"),
        ("1322047\tAGONIST\tArg1:T6\tArg2:T7", "one CHEMICAL and one GENE", "Arg2"),
        ("1322047\tAGONIST\tArg1:T6", "expected 4 tab-separated fields", None),
    ],
)
def test_drugprot_refuses_bad_predictions_at_their_line(tmp_path: Path, line: str, message: str, field: str) -> None:
    pred = tmp_path / "pred.tsv"
    pred.write_text("1322047\tAGONIST\tArg1:T6\tArg2:T15\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        get_task("drugprot").score_files(_drugprot_gold(tmp_path), [(None, pred)], DrugProtConfig())
    assert (Path(info.value.file).name, info.value.line, info.value.field) == ("pred.tsv", 2, field)


def test_drugprot_gold_is_its_folder_or_its_relations_file(tmp_path: Path) -> None:
    task, pred = get_task("drugprot"), DRUGPROT / "toy-data" / "pred_relations.tsv"
    (by_folder,) = task.score_files(DRUGPROT / "gs-data", [(None, pred)], DrugProtConfig())
    (by_file,) = task.score_files(DRUGPROT / "gs-data" / "gs_relations.tsv", [(None, pred)], DrugProtConfig())
    assert by_folder.averages == by_file.averages and by_folder.signature == by_file.signature
    gold = _drugprot_gold(tmp_path)
    (gold / "pmids.txt").unlink()
    code, _, err = _run("score", "--task", "drugprot", gold, pred)
    assert code == 2 and "no PMID list file (pmids.txt or *pmids*.txt)" in err


def _drugprot_gold_of(tmp_path: Path, entities: str, relations: str, pmids: str) -> Path:
    """A DrugProt gold folder (the official layout: entities, relations and the PMID list) of these three texts."""
    gold = tmp_path / "gs"
    gold.mkdir()
    for name, text in (("gs_entities.tsv", entities), ("gs_relations.tsv", relations), ("pmids.txt", pmids)):
        (gold / name).write_text(text, encoding="utf-8")
    return gold


def test_drugprot_keys_relations_by_abstract(tmp_path: Path) -> None:
    """The official library's overlapping columns (`pos0 = pos0 + idx`) give micro P = R = F1 = 1.0 here (its
    src/main.py run on these files outside the repository): the prediction names the wrong abstract, so by
    definition TP = 0, FP = 1, FN = 1."""
    gold = _drugprot_gold_of(
        tmp_path,
        "100\tT1\tCHEMICAL\t0\t5\taspirin\n100\tT2\tGENE\t10\t15\tCOX-1\n"
        "200\tT1\tCHEMICAL\t0\t5\tibuprofen\n200\tT2\tGENE\t10\t15\tCOX-2\n",
        "100\tINHIBITOR\tArg1:T1\tArg2:T2\n",
        "100\n200\n",
    )
    pred = tmp_path / "pred.tsv"
    pred.write_text("200\tINHIBITOR\tArg1:T1\tArg2:T2\n", encoding="utf-8")
    (result,) = get_task("drugprot").score_files(gold, [(None, pred)], DrugProtConfig())
    (row,) = result.per_class
    assert (row.tp, row.fp, row.fn) == (0, 1, 1) and result.averages["micro"].f == 0.0


def test_drugprot_counts_per_abstract_by_hand_share_the_list_s_pmids(tmp_path: Path) -> None:
    """Abstract 100: gold (T1, T2) INHIBITOR and (T3, T2) ACTIVATOR; predicted (T1, T2) INHIBITOR twice (arguments
    swapped the second time: one relation) and (T3, T2) INHIBITOR. So TP 1 and FP 1 for INHIBITOR, FN 1 for
    ACTIVATOR, nothing for abstract 200. Issue 34's memory bound: every relation holds the PMID list's str."""
    from releval.data.drugprot import load_gold, read_relations
    from releval.tasks.drugprot import RELATION_TYPES, document_counts

    gold = _drugprot_gold_of(
        tmp_path,
        "100\tT1\tCHEMICAL\t0\t5\ta\n100\tT2\tGENE\t6\t9\tb\n100\tT3\tCHEMICAL\t10\t12\tc\n"
        "200\tT1\tCHEMICAL\t0\t5\td\n",
        "100\tINHIBITOR\tArg1:T1\tArg2:T2\n100\tACTIVATOR\tArg1:T3\tArg2:T2\n",
        "200\n100\n",
    )
    pred = tmp_path / "pred.tsv"
    pred.write_text(
        "100\tINHIBITOR\tArg1:T1\tArg2:T2\n100\tINHIBITOR\tArg1:T2\tArg2:T1\n100\tINHIBITOR\tArg1:T3\tArg2:T2\n",
        encoding="utf-8",
    )
    g = load_gold(gold)
    p = read_relations(pred, g.entities, set(g.pmids), "pred")
    assert p.relations == [("100", "T1", "T2", "INHIBITOR"), ("100", "T3", "T2", "INHIBITOR")] and p.duplicates == 1
    tp, fp, fn = document_counts(g, p)
    inhibitor, activator = RELATION_TYPES.index("INHIBITOR"), RELATION_TYPES.index("ACTIVATOR")
    assert tp.sum() == tp[1, inhibitor] == 1 and fp.sum() == fp[1, inhibitor] == 1
    assert fn.sum() == fn[1, activator] == 1 and tp.shape == (2, 13)
    listed = g.pmids[1]
    assert all(r[0] is listed for r in [*g.gold.relations, *p.relations]) and next(iter(g.entities)) is listed


def test_drugprot_gold_with_an_unknown_type_is_refused(tmp_path: Path) -> None:
    gold = _drugprot_gold(tmp_path)
    relations = gold / "gs_relations.tsv"
    relations.write_text(relations.read_text().replace("ACTIVATOR", "ACTIVATES", 1), encoding="utf-8")
    code, _, err = _run("score", "--task", "drugprot", gold, DRUGPROT / "toy-data" / "pred_relations.tsv")
    assert code == 2 and "gs_relations.tsv:4: field 'type': 'ACTIVATES' is not a DrugProt relation type" in err


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
def test_every_task_scores_and_compares_in_every_format(fmt: str) -> None:
    cases = [
        ("chemprot-blue", CHEMPROT / "blue_gold.tsv", CHEMPROT / "blue_sys_a.tsv", CHEMPROT / "blue_gold.tsv"),
        (
            "chemprot-scibert",
            CHEMPROT / "scibert_test_head.txt",
            CHEMPROT / "scibert_sys_a.txt",
            CHEMPROT / "scibert_sys_b.txt",
        ),
        (
            "drugprot",
            DRUGPROT / "gs-data",
            DRUGPROT / "toy-data" / "pred_relations.tsv",
            DRUGPROT / "gs-data" / "gs_relations.tsv",
        ),
    ]
    for task, gold, a, b in cases:
        code, out, err = _run("score", "--task", task, gold, a, "-f", fmt)
        assert code == 0 and out, err
        code, out, err = _run("compare", "--task", task, gold, f"a={a}", f"b={b}", "-R", "50", "-f", fmt)
        assert code == 0 and out, err
    code, out, _ = _run("score", "--task", "drugprot", DRUGPROT / "gs-data", cases[2][2], "-f", fmt)
    assert "75" in out


def test_audit_compare_refuses_the_two_chemprot_tasks(tmp_path: Path) -> None:
    sci, blue = tmp_path / "sci.json", tmp_path / "blue.json"
    _run(
        "score",
        "--task",
        "chemprot-scibert",
        CHEMPROT / "scibert_test_head.txt",
        CHEMPROT / "scibert_sys_a.txt",
        "-f",
        "json",
        "-o",
        sci,
    )
    _run(
        "score",
        "--task",
        "chemprot-blue",
        CHEMPROT / "blue_gold.tsv",
        CHEMPROT / "blue_sys_a.tsv",
        "-f",
        "json",
        "-o",
        blue,
    )
    code, out, _ = _run("audit", "compare", sci, blue)
    assert code == 1 and "NOT COMPARABLE" in out and "chemprot-blue (BLUE/BioBERT/BLURB" in out


def test_drugprot_seed_runs_are_compared_by_their_scores(tmp_path: Path) -> None:
    """Several files per system: Welch over the runs' F, each run scored as `score` scores it."""
    toy = (DRUGPROT / "toy-data" / "pred_relations.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    gold = (DRUGPROT / "gs-data" / "gs_relations.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    runs = {"a1": toy, "a2": toy[:20], "b1": gold[:15], "b2": gold[:22]}
    for name, lines in runs.items():
        (tmp_path / f"{name}.tsv").write_text("".join(lines), encoding="utf-8")
    a, b = (f"{x}={tmp_path / (x + '1.tsv')},{tmp_path / (x + '2.tsv')}" for x in ("a", "b"))
    code, out, err = _run("compare", "--task", "drugprot", DRUGPROT / "gs-data", "-s", a, "-s", b, "-f", "json")
    assert code == 0, err
    (table,) = json.loads(out)["results"]
    assert table["kind"] == "seeds" and table["task"] == "drugprot"
    task = get_task("drugprot")
    for system in ("a", "b"):
        scored = task.score_files(
            DRUGPROT / "gs-data", [(None, tmp_path / f"{system}{k}.tsv") for k in (1, 2)], DrugProtConfig()
        )
        want = sum(r.averages["micro"].f for r in scored) / 2
        assert table["runs"][system]["micro"] == pytest.approx([r.averages["micro"].f for r in scored])
        assert sum(table["runs"][system]["micro"]) / 2 == pytest.approx(want)


def _labels_of(path: Path) -> list[str]:
    """The label column of a BLUE TSV or of SciBERT's JSON lines, read here without releval."""
    if path.suffix == ".tsv":
        return [line.split("\t")[-1] for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    return [json.loads(line)["label"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("task", "gold", "preds", "labels"),
    [
        ("chemprot-blue", "blue_gold.tsv", ("blue_sys_a.tsv",), GROUPS),
        ("chemprot-scibert", "scibert_test_head.txt", ("scibert_sys_a.txt", "scibert_sys_b.txt"), None),
    ],
)
def test_plot_per_class_of_chemprot_is_sklearn_s_per_class_f(
    task: str, gold: str, preds: tuple[str, ...], labels: list[str] | None, tmp_path: Path
) -> None:
    """`plot per-class --task chemprot-*`: each plotted class value is scikit-learn's per-class F1 of the same
    files (BLUE: the five CPR groups only, 'false' not a class; SciBERT: every gold label), micro its micro-F1."""
    png, data_file = tmp_path / "pc.png", tmp_path / "pc.json"
    files = [CHEMPROT / gold, *(CHEMPROT / p for p in preds)]
    code, _, err = _run("plot", "per-class", "--task", task, *files, "-o", png, "--data-json", data_file, "-w", "macro")
    assert code == 0, err
    drawn = json.loads(data_file.read_text(encoding="utf-8"))["data"]
    y_true = _labels_of(files[0])
    classes = labels if labels is not None else sorted(set(y_true))
    support = {c: y_true.count(c) for c in classes if y_true.count(c)}
    assert drawn["classes"] == sorted(support, key=lambda c: (-support[c], c))
    for s, pred in enumerate(files[1:]):
        y_pred = _labels_of(pred)
        _, _, f, _ = precision_recall_fscore_support(y_true, y_pred, labels=drawn["classes"], zero_division=0)
        assert drawn["values"][s] == pytest.approx(list(f), abs=1e-12)
        micro = precision_recall_fscore_support(y_true, y_pred, labels=classes, average="micro", zero_division=0)[2]
        macro = precision_recall_fscore_support(y_true, y_pred, labels=drawn["classes"], average="macro")[2]
        assert drawn["averages"]["micro"][s] == pytest.approx(micro, abs=1e-12)
        assert drawn["averages"]["macro"][s] == pytest.approx(macro, abs=1e-12)
    assert png.read_bytes().startswith(b"\x89PNG")


def test_plot_per_class_of_drugprot_is_the_official_library_s_per_type_f(tmp_path: Path) -> None:
    """`plot per-class --task drugprot`: the plotted per-type F and micro F are the official library's on its toy
    data (OFFICIAL_TOY, 3 digits); --entropy-n, a classification setting, is refused for drugprot."""
    png, data_file = tmp_path / "pc.png", tmp_path / "pc.json"
    pred = DRUGPROT / "toy-data" / "pred_relations.tsv"
    code, _, err = _run(
        "plot", "per-class", "--task", "drugprot", DRUGPROT / "gs-data", pred, "-o", png, "--data-json", data_file
    )
    assert code == 0, err
    drawn = json.loads(data_file.read_text(encoding="utf-8"))["data"]
    got = {c: round(v, 3) for c, v in zip(drawn["classes"], drawn["values"][0])}
    assert got == {c: v[2] for c, v in OFFICIAL_TOY.items() if c != "micro"}
    assert round(drawn["averages"]["micro"][0], 3) == OFFICIAL_TOY["micro"][2]
    code, _, err = _run(
        "plot", "per-class", "--task", "drugprot", DRUGPROT / "gs-data", pred, "-o", png, "--entropy-n", "positive"
    )
    # refused as every command refuses a setting a task's Config lacks: naming the tasks that have it
    assert code == 2 and "--entropy-n: apply to --task rc or chemprot-blue or chemprot-scibert only" in err
