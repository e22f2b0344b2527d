"""The input care of DrugProt, ChemProt (BLUE and SciBERT) and FewRel, with values known by hand (issue 32):

* a DrugProt file whose relation types were lower-cased is refused, and the same file with the case restored
  scores exactly as the original (the official toy numbers 18/23, 18/25, 0.75);
* an empty DrugProt prediction file (a failed export) is refused instead of scoring 0;
* BLUE's ChemProt scored without --task (plain rc, 'false' a class: micro = accuracy) is refused with the fix;
  with --task chemprot-blue it gives BLUE's micro over the five groups (counted here from the files); with --task
  rc named it is scored as rc with a warning;
* BLUE evaluation-layout rows whose docid or arguments differ from gold's for the same id are refused at the line;
* gold's own answers file given as a FewRel system is warned, and a re-written (not byte-identical) prediction
  with every answer right is not (a perfect system is possible on few episodes).
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from mistakes.chemprot import BLUE_GOLD, BLUE_SYS, evaluation_layout
from releval.cli import main
from releval.core.errors import InputError
from releval.data.drugprot import RELATION_TYPES
from releval.registry import get_task
from releval.tasks.classification import ClassificationConfig, score
from releval.tasks.drugprot import DrugProtConfig
from releval.tasks.fewrel import FewRelConfig
from releval.tasks.fewrel import score as fewrel_score

ROOT = Path(__file__).resolve().parents[1]
GS = ROOT / "examples" / "drugprot" / "gs-data"
TOY = ROOT / "examples" / "drugprot" / "toy-data" / "pred_relations.tsv"
FEWREL = ROOT / "examples" / "fewrel"
GROUPS = ("CPR:3", "CPR:4", "CPR:5", "CPR:6", "CPR:9")


def _run(*args: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def _with_types(tmp_path: Path, name: str, change: object) -> Path:
    rows = [line.split("\t") for line in TOY.read_text(encoding="utf-8").splitlines()]
    path = tmp_path / name
    path.write_text("".join("\t".join([p, change(t), a, b]) + "\n" for p, t, a, b in rows), encoding="utf-8")  # type: ignore[operator]
    return path


# ------------------------------------------------------------------------------------------------ DrugProt


def test_drugprot_lower_case_types_are_refused_and_restored_types_score_as_the_original(tmp_path: Path) -> None:
    lower = _with_types(tmp_path, "lower.tsv", str.lower)
    code, out, err = _run("score", "--task", "drugprot", GS, lower)
    assert code == 2 and out == ""
    assert f"{lower}: field 'relation type': " in err
    assert "differ from gold's only in letter case: 'activator' (gold 'ACTIVATOR')" in err
    assert "(first at line 5)" in err  # the toy file's first ACTIVATOR is on its line 5
    # the case restored (the unknown 'whatever'/'sdfcs' stay unknown): the official toy numbers again
    by_fold = {t.casefold(): t for t in RELATION_TYPES}
    restored = _with_types(tmp_path, "restored.tsv", lambda t: by_fold.get(t.casefold(), t.lower()))
    task = get_task("drugprot")
    (original,) = task.score_files(GS, [(None, TOY)], DrugProtConfig())
    (again,) = task.score_files(GS, [(None, restored)], DrugProtConfig())
    micro = again.averages["micro"]
    assert (micro.precision, micro.recall, micro.f) == pytest.approx((18 / 23, 18 / 25, 0.75), abs=1e-12)
    assert again.averages == original.averages and again.per_class == original.per_class


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_an_empty_drugprot_prediction_file_is_refused(tmp_path: Path, content: bytes) -> None:
    empty = tmp_path / "run.tsv"
    empty.write_bytes(content)
    with pytest.raises(InputError, match="no predicted relation at all: the file is empty") as info:
        get_task("drugprot").score_files(GS, [(None, empty)], DrugProtConfig())
    assert info.value.file == str(empty)
    code, out, err = _run("compare", "--task", "drugprot", GS, "-s", f"a={empty}", "-s", f"b={TOY}", "-R", "20")
    assert code == 2 and out == "" and "failed export" in err


def test_drugprot_predictions_all_outside_the_pmid_list_are_refused(tmp_path: Path) -> None:
    rows = [line.split("\t") for line in TOY.read_text(encoding="utf-8").splitlines()]
    other = tmp_path / "other.tsv"
    other.write_text("".join("\t".join(["9" + row[0], *row[1:]]) + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(InputError, match=f"none of the {len(rows)} predicted relation"):
        get_task("drugprot").score_files(GS, [(None, other)], DrugProtConfig())


def test_drugprot_gold_twice_is_warned_with_its_25_relations(tmp_path: Path) -> None:
    copy = tmp_path / "system.tsv"
    shutil.copyfile(GS / "gs_relations.tsv", copy)
    (result,) = get_task("drugprot").score_files(GS, [(None, copy)], DrugProtConfig())
    assert result.averages["micro"].f == 1.0
    assert [w.code for w in result.warnings] == ["pred-equals-gold"]
    assert "on all 25 relations" in result.warnings[0]
    (toy,) = get_task("drugprot").score_files(GS, [(None, TOY)], DrugProtConfig())
    assert "pred-equals-gold" not in [w.code for w in toy.warnings]
    assert "swapped-files" not in [w.code for w in toy.warnings]  # gs_relations.tsv vs pred_relations.tsv


def test_drugprot_gold_named_like_an_output_is_warned_as_swapped(tmp_path: Path) -> None:
    gold = tmp_path / "out"
    gold.mkdir()
    shutil.copyfile(GS / "gs_relations.tsv", gold / "pred_relations.tsv")
    for part in ("gs_entities.tsv", "pmids.txt"):
        shutil.copyfile(GS / part, gold / part)
    pred = tmp_path / "gs_relations.tsv"
    shutil.copyfile(TOY, pred)
    (result,) = get_task("drugprot").score_files(gold, [(None, pred)], DrugProtConfig())
    assert "swapped-files" in [w.code for w in result.warnings]


# ------------------------------------------------------------------------------------------------ ChemProt BLUE


def _labels(path: Path) -> list[str]:
    return [line.split("\t")[-1] for line in path.read_text(encoding="utf-8").splitlines()[1:]]


def _blue_micro_by_hand() -> float:
    gold, pred = _labels(BLUE_GOLD), _labels(BLUE_SYS)
    tp = sum(g == p and g in GROUPS for g, p in zip(gold, pred))
    predicted = sum(p in GROUPS for p in pred)
    actual = sum(g in GROUPS for g in gold)
    return 2 * tp / (predicted + actual)


def _micro(out: str) -> float:
    (result,) = json.loads(out)["results"]
    return float(result["averages"]["micro"]["f"])


def test_blue_without_task_is_refused_and_with_chemprot_blue_gives_blue_s_number() -> None:
    code, out, err = _run("score", BLUE_GOLD, BLUE_SYS, "-f", "json")
    assert code == 2 and out == ""
    assert "BLUE's ChemProt TSV scored as plain relation classification" in err
    assert "give --task chemprot-blue" in err
    code, out, _ = _run("score", "--task", "chemprot-blue", BLUE_GOLD, BLUE_SYS, "-f", "json")
    assert code == 0
    assert _micro(out) == pytest.approx(_blue_micro_by_hand(), abs=1e-12)
    assert round(100 * _micro(out), 2) == 46.45  # docs/biomedical.md; BLUE's eval_rel.py prints 0.465
    code, out, _ = _run("score", "--negative", "false", BLUE_GOLD, BLUE_SYS, "-f", "json")  # the same, as rc
    assert code == 0 and _micro(out) == pytest.approx(_blue_micro_by_hand(), abs=1e-12)


def test_blue_with_task_rc_named_is_scored_as_rc_with_a_warning() -> None:
    code, out, err = _run("score", "--task", "rc", BLUE_GOLD, BLUE_SYS, "-f", "json")
    assert code == 0
    accuracy = sum(g == p for g, p in zip(_labels(BLUE_GOLD), _labels(BLUE_SYS))) / 300
    assert _micro(out) == pytest.approx(accuracy, abs=1e-12) and round(100 * accuracy, 2) == 76.33
    assert "scored as plain relation classification" in err and "give --task chemprot-blue" in err
    code, out, err = _run("score", "--no-negative", BLUE_GOLD, BLUE_SYS, "-f", "json")  # said on purpose
    assert code == 0 and _micro(out) == pytest.approx(accuracy, abs=1e-12)
    assert "plain relation classification" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ("plot", "confusion", "{gold}", "{pred}", "-o", "{out}"),
        ("plot", "bootstrap", "{gold}", "{pred}", "{pred}", "-R", "20", "-o", "{out}"),
        ("compare", "{gold}", "-s", "a={pred}", "-s", "b={gold}", "-R", "20"),
        ("replicability", "from-predictions", "-d", "x={gold},{pred},{gold}", "-R", "20"),
    ],
)
def test_every_rc_command_refuses_blue_without_task(tmp_path: Path, argv: tuple[str, ...]) -> None:
    out_file = tmp_path / "out.png"
    values = {"gold": BLUE_GOLD, "pred": BLUE_SYS, "out": out_file}
    code, out, err = _run(*(part.format(**values) for part in argv))
    assert code == 2 and out == "" and not out_file.exists()
    assert "BLUE's ChemProt TSV scored as plain relation classification" in err
    assert "--negative false" in err  # the fix for a command without --task
    assert err.count("scored as plain") == 1 or argv[0] == "replicability"  # refused once for gold, not per system


def test_audit_reports_blue_without_task_as_an_error_and_with_task_rc_as_a_warning() -> None:
    code, out, _ = _run("audit", "run", BLUE_GOLD, BLUE_SYS)
    assert code == 1 and "ERROR   preset-layout: BLUE's ChemProt TSV scored as plain" in out
    code, out, _ = _run("audit", "run", "--task", "rc", BLUE_GOLD, BLUE_SYS)
    assert code == 0 and "WARNING preset-layout:" in out


def test_the_python_api_refuses_blue_as_rc_unless_rc_is_chosen() -> None:
    with pytest.raises(InputError, match="give --task chemprot-blue"):
        score(BLUE_GOLD, BLUE_SYS, ClassificationConfig())
    result = score(BLUE_GOLD, BLUE_SYS, ClassificationConfig(rc_chosen=True))
    assert "plain relation classification" in " ".join(result.warnings)
    assert "rc_chosen" not in str(result.signature)  # it changes no number


def test_blue_evaluation_layout_read_as_tsv_is_refused_too(tmp_path: Path) -> None:
    gold = evaluation_layout(BLUE_GOLD, tmp_path / "test_gs.tsv")
    pred = evaluation_layout(BLUE_SYS, tmp_path / "system.tsv")
    code, out, err = _run("score", gold, pred)
    assert code == 2 and out == "" and "BLUE's ChemProt labels (CPR:3, CPR:4, CPR:5, CPR:6, CPR:9, false)" in err
    code, out, _ = _run("score", "--task", "chemprot-blue", gold, pred, "-f", "json")
    assert code == 0 and _micro(out) == pytest.approx(_blue_micro_by_hand(), abs=1e-12)


@pytest.mark.parametrize(("column", "position"), [("docid", 1), ("arg1", 2), ("arg2", 3)])
def test_blue_rows_naming_another_pair_than_gold_s_are_refused_at_their_line(
    tmp_path: Path, column: str, position: int
) -> None:
    gold = evaluation_layout(BLUE_GOLD, tmp_path / "test_gs.tsv")

    def edit(k: int, row: list[str]) -> list[str]:
        return [*row[:position], "X9", *row[position + 1 :]] if k == 12 else row

    pred = evaluation_layout(BLUE_SYS, tmp_path / "system.tsv", edit)
    with pytest.raises(InputError, match=f"{column} 'X9' where gold has .* for the same id") as info:
        get_task("chemprot-blue").score_files(gold, [(None, pred)], get_task("chemprot-blue").make_config())
    assert (info.value.file, info.value.line, info.value.field) == (str(pred), 13, column)  # row 12: line 13


def test_a_blue_label_in_another_letter_case_is_named_as_such(tmp_path: Path) -> None:
    pred = tmp_path / "system.tsv"
    pred.write_text(BLUE_SYS.read_text(encoding="utf-8").replace("CPR:9", "cpr:9"), encoding="utf-8")
    code, out, err = _run("score", "--task", "chemprot-blue", BLUE_GOLD, pred)
    assert code == 2 and out == ""
    assert "'cpr:9' is not a BLUE ChemProt label: it differs from 'CPR:9' only in letter case" in err


# ------------------------------------------------------------------------------------------------ FewRel


def test_fewrel_gold_s_answers_file_as_the_system_is_warned(tmp_path: Path) -> None:
    official = FEWREL / "official-5-1.json"
    result = fewrel_score(official, FEWREL / "answers-5-1.json", FewRelConfig(resamples=100))
    assert result.accuracy == 1.0
    assert [w.code for w in result.warnings] == ["pred-equals-gold"]
    assert "(gold's answers file)" in result.warnings[0] and "all 250 queries" in result.warnings[0]
    copy = tmp_path / "copy.json"
    shutil.copyfile(FEWREL / "answers-5-1.json", copy)
    assert "a copy of gold's answers file" in fewrel_score(official, copy, FewRelConfig(resamples=100)).warnings[0]
    # every answer right, but written by a system (another layout): a perfect run is possible, nothing to warn
    rewritten = tmp_path / "run.json"
    rewritten.write_text(json.dumps(json.loads(copy.read_text(encoding="utf-8")), indent=1), encoding="utf-8")
    assert fewrel_score(official, rewritten, FewRelConfig(resamples=100)).warnings == []
    assert fewrel_score(official, FEWREL / "pred-bow-5-1.json", FewRelConfig(resamples=100)).warnings == []


def test_fewrel_compare_carries_the_warning() -> None:
    code, out, err = _run(
        "compare", "--task", "fewrel", FEWREL / "official-5-1.json", "-s", f"a={FEWREL / 'answers-5-1.json'}",
        "-s", f"b={FEWREL / 'pred-bow-5-1.json'}", "-R", "20",
    )  # fmt: skip
    assert code == 0 and "a: predictions equal gold: did you pass gold twice?" in err
