"""`releval replicability from-predictions --task NAME` for every registered task with a comparison.

Each task runs on its bundled example (the files the board's tests use, tests/service/test_library_task.py, plus
DrugProt's toy data), with three datasets: (gold, A, B), (gold, B, A) and (gold, A, A). What must hold, per dataset:

* the one-sided p-value and the effect are those of `releval compare --task NAME --alternative greater` run on
  that dataset's files by itself (another command, which builds its own Config from the options, names the systems
  itself and reports every measure: the measure is picked here from its JSON, the headline of the task);
* identical systems get p = 1 exactly and effect 0 (by hand: every resample's δ* = δ = 0 counts as extreme);
* the second dataset is the first with A and B swapped: its effect is the first's negated.

Then the analysis: from-predictions' k̂ and Holm's adjusted p-values equal `replicability analyze` on a table of
the per-dataset p-values written here. Few resamples and small files keep each case well under a second.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EXAMPLES, SEMEVAL_KEY, semeval_predictions

from releval.cli import main
from releval.registry import TASKS, get_task

R = "60"


def run(argv: list[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `releval ARGV`, in-process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _e2e_files(tmp: Path) -> tuple[str, str, str]:
    gold_path = EXAMPLES / "conll04" / "conll04_test_first30.json"
    gold = json.loads(gold_path.read_text(encoding="utf-8"))
    a = [dict(d, relations=[] if i in (0, 3) else d["relations"]) for i, d in enumerate(gold)]
    b = [dict(d, relations=[] if i % 3 == 1 else d["relations"]) for i, d in enumerate(gold)]
    (tmp / "e2e_a.json").write_text(json.dumps(a), encoding="utf-8")
    (tmp / "e2e_b.json").write_text(json.dumps(b), encoding="utf-8")
    return str(gold_path), str(tmp / "e2e_a.json"), str(tmp / "e2e_b.json")


def _blue_files(tmp: Path) -> tuple[str, str, str]:
    """BLUE's gold and system A bundled; B is A with every 4th label set to `false` (the negative class)."""
    a = EXAMPLES / "chemprot" / "blue_sys_a.tsv"
    head, *rows = a.read_text(encoding="utf-8").splitlines()
    b = [r if i % 4 else "\t".join([*r.split("\t")[:-1], "false"]) for i, r in enumerate(rows)]
    (tmp / "blue_b.tsv").write_text("\n".join([head, *b]) + "\n", encoding="utf-8")
    return str(EXAMPLES / "chemprot" / "blue_gold.tsv"), str(a), str(tmp / "blue_b.tsv")


def _drugprot_files(tmp: Path) -> tuple[str, str, str]:
    """DrugProt's official toy data: the gold folder, its toy predictions (A), and B = A without every 3rd line."""
    a = EXAMPLES / "drugprot" / "toy-data" / "pred_relations.tsv"
    lines = a.read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp / "drugprot_b.tsv").write_text("".join(x for i, x in enumerate(lines) if i % 3 != 2), encoding="utf-8")
    return str(EXAMPLES / "drugprot" / "gs-data"), str(a), str(tmp / "drugprot_b.tsv")


def _files(*parts: str) -> tuple[str, str, str]:
    gold, a, b = (str(EXAMPLES / p) for p in parts)
    return gold, a, b


#: Every task with a comparison: (its files (gold, A, B), given the test's tmp folder; its options).
CASES: dict[str, tuple[Any, tuple[str, ...]]] = {
    "rc": (lambda tmp: (str(SEMEVAL_KEY), str(semeval_predictions("crcnn")), str(semeval_predictions("cnn"))), ()),
    "e2e": (_e2e_files, ()),
    "fewrel": (
        lambda tmp: _files("fewrel/gold-5-1.json.gz", "fewrel/pred-between-5-1.json", "fewrel/pred-bow-5-1.json"),
        (),
    ),
    "chemprot-blue": (_blue_files, ()),
    "chemprot-scibert": (
        lambda tmp: _files(
            "chemprot/scibert_test_head.txt", "chemprot/scibert_sys_a.txt", "chemprot/scibert_sys_b.txt"
        ),
        (),
    ),
    "drugprot": (_drugprot_files, ()),
    "ranked": (
        lambda tmp: _files("ranked/gold.jsonl", "ranked/pcnn.jsonl", "ranked/cnn.tsv"),
        ("--duplicates", "count"),
    ),
    "docred": (
        lambda tmp: _files("docred/redocred_dev_first40.json.gz", "docred/system_a.json.gz", "docred/system_b.json.gz"),
        ("--train-facts", str(EXAMPLES / "docred" / "docred_train_facts_excerpt.fact")),
    ),
}


def test_every_task_with_a_comparison_is_in_the_matrix() -> None:
    with_compare = {name for name in TASKS if not TASKS[name].startswith("<") and get_task(name).compare is not None}
    assert with_compare == set(CASES)


def _compare(task: str, gold: str, a: str, b: str, options: tuple[str, ...]) -> tuple[float, float]:
    """(one-sided p, effect) of A against B on the task's headline measure, from `releval compare`'s JSON."""
    argv = ["compare", "--task", task, gold, "-s", f"A={a}", "-s", f"B={b}", "--alternative", "greater"]
    code, out, err = run([*argv, "-R", R, "-f", "json", *options])
    assert code == 0, err
    table = json.loads(out)["results"][0]
    metric = (get_task(task).measures or table["metrics"])[0]
    (row,) = [r for r in table["pairs"] if r["metric"] == metric and (r["a"], r["b"]) == ("A", "B")]
    assert row["effect"] == pytest.approx(table["scores"]["A"][metric] - table["scores"]["B"][metric], abs=1e-12)
    return row["p_value"], row["effect"]


@pytest.mark.parametrize("task", sorted(CASES))
def test_each_dataset_gets_the_one_sided_p_of_compare(task: str, tmp_path: Path) -> None:
    make, options = CASES[task]
    gold, a, b = make(tmp_path)
    datasets = ["-d", f"ab={gold},{a},{b}", "-d", f"ba={gold},{b},{a}", "-d", f"aa={gold},{a},{a}"]
    argv = ["replicability", "from-predictions", "--task", task, *datasets, "-R", R, "-f", "json", *options]
    code, out, err = run(argv)
    assert code == 0, err
    doc = json.loads(out)
    got = {row["dataset"]: (row["p"], row["effect"]) for row in doc["datasets"]}
    p_ab, effect_ab = _compare(task, gold, a, b, options)
    p_ba, effect_ba = _compare(task, gold, b, a, options)
    assert got["ab"] == pytest.approx((p_ab, effect_ab), abs=1e-12)
    assert got["ba"] == pytest.approx((p_ba, effect_ba), abs=1e-12)
    assert effect_ab == pytest.approx(-effect_ba, abs=1e-12) and effect_ab != 0  # the examples' systems differ
    assert got["aa"] == (1.0, 0.0)  # identical systems: every resample is as extreme as the observed δ = 0
    behind = "ab" if effect_ab < 0 else "ba"  # the tests are one-sided by construction: the warning says so
    assert f"mixed effect signs (1 positive, 1 negative): B is ahead on {behind}, where the one-sided" in err
    # the analysis of these p-values is `replicability analyze`'s on a table of them
    table = tmp_path / "p.csv"
    table.write_text("dataset,p,effect\n" + "".join(f"{d},{p!r},{e!r}\n" for d, (p, e) in got.items()))
    code, out, err = run(["replicability", "analyze", str(table), "-f", "json"])
    assert code == 0, err
    expected = json.loads(out)
    assert doc["k"] == expected["k"] and doc["identification"] == expected["identification"]
    assert [r["adjusted_p"] for r in doc["datasets"]] == [r["adjusted_p"] for r in expected["datasets"]]
    if task != "rc":  # the rc path's signature is today's (tests/test_replicability_cli.py)
        assert f"test:{task}:bootstrap:greater:" in doc["signature"]


def _metric_of(task: str, gold: str, a: str, b: str, metric: str, options: tuple[str, ...]) -> tuple[float, float]:
    argv = ["compare", "--task", task, gold, "-s", f"A={a}", "-s", f"B={b}", "--alternative", "greater"]
    code, out, err = run([*argv, "-R", R, "-f", "json", *options])
    assert code == 0, err
    (row,) = [r for r in json.loads(out)["results"][0]["pairs"] if r["metric"] == metric]
    return row["p_value"], row["effect"]


def test_docred_train_facts_per_dataset(tmp_path: Path) -> None:
    """--dataset-setting x:train_facts=… gives dataset x its own train facts: x's Ign F1 test is compare's with
    --train-facts, y's (the option's value, none) compare's without; the signature records both digests."""
    gold, a, b = CASES["docred"][0](tmp_path)
    facts = str(EXAMPLES / "docred" / "docred_train_facts_excerpt.fact")
    argv = [
        "replicability",
        "from-predictions",
        "--task",
        "docred",
        "-d",
        f"x={gold},{a},{b}",
        "-d",
        f"y={gold},{a},{b}",
    ]
    code, out, err = run(
        [*argv, "--dataset-setting", f"x:train_facts={facts}", "--metric", "ign_f1", "-R", R, "-f", "json"]
    )
    assert code == 0, err
    doc = json.loads(out)
    got = {row["dataset"]: (row["p"], row["effect"]) for row in doc["datasets"]}
    with_facts = _metric_of("docred", gold, a, b, "ign_f1", ("--train-facts", facts))
    without = _metric_of("docred", gold, a, b, "ign_f1", ())
    assert with_facts[1] != without[1]  # the train facts change Ign F1 here
    assert got == {"x": pytest.approx(with_facts, abs=1e-12), "y": pytest.approx(without, abs=1e-12)}
    assert "|train:x=d07bdd72543d,y=none|" in doc["signature"]
    assert "test:docred:bootstrap:greater:ign_f1" in doc["signature"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--task", "nope"), "--task: 'nope' is not one of rc, "),
        (("--task", "semeval-official"), "--task 'semeval-official' has no compare (tasks with one: rc, "),
        (("--task", "docred", "--metric", "accuracy"), "--metric 'accuracy' is not a measure of --task docred: f1, "),
        (("--task", "docred", "-t", "mcnemar"), "which --task docred does not have (its unit: document)"),
        (("--task", "fewrel", "--train-facts", "t.fact"), "--train-facts: apply to --task docred only"),
        (("--task", "docred", "--dataset-setting", "z:scorer=atlop"), "no dataset 'z' (datasets: good, bad)"),
        (("--task", "docred", "--dataset-setting", "good:weird=1"), "--dataset-setting good: weird: not a setting"),
    ],
)
def test_refusals_name_the_option(args: tuple[str, ...], message: str, tmp_path: Path) -> None:
    gold, a, b = CASES["docred"][0](tmp_path)
    out_file = tmp_path / "out.json"
    datasets = ["-d", f"good={gold},{a},{b}", "-d", f"bad={gold},{a},{b}"]
    code, out, err = run(["replicability", "from-predictions", *datasets, *args, "-R", "10", "-o", str(out_file)])
    assert (code, out) == (2, "") and not out_file.exists()
    assert message in err and "Traceback" not in err, err


def test_a_bad_file_is_named_with_its_dataset(tmp_path: Path) -> None:
    """Every dataset's input problems together, each line naming the dataset, then the file, record and field;
    exit 2 and no output file."""
    gold, a, b = CASES["docred"][0](tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"title": "x", "t_idx": 1, "r": "P17"}]))
    missing = tmp_path / "missing.json"
    out_file = tmp_path / "out.json"
    datasets = ["-d", f"good={gold},{a},{b}", "-d", f"bad={gold},{bad},{b}", "-d", f"gone={gold},{a},{missing}"]
    code, out, err = run(["replicability", "from-predictions", "--task", "docred", *datasets, "-o", str(out_file)])
    assert (code, out) == (2, "") and not out_file.exists()
    assert f"dataset 'bad': {bad}: record 1: field 'h_idx': " in err
    assert f"dataset 'gone': {missing}: file not found" in err
    assert "good" not in err and "Traceback" not in err
    # the default task (rc) names the dataset too
    code, out, err = run(["replicability", "from-predictions", "-d", f"q={SEMEVAL_KEY},{missing},{SEMEVAL_KEY}"])
    assert (code, out) == (2, "") and f"error: dataset 'q': {missing}: file not found" in err
