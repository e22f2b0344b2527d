"""The one input stage (releval.commands.inputs) and the task registry (releval.tasks): every command that reads gold
and predictions refuses the same mistaken inputs with the same message, and shares the input options' meaning.

The commands come from READERS, which `input_options` fills as each command registers: a new command that reads
labels is in this matrix without anyone adding it here. Expected values are computed in this file by hand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import toy_task
from releval import cli
from releval.commands.inputs import INPUT_OPTIONS, READERS, Inputs
from releval.registry import TASKS, get_task, register_task, unregister_task

SEMEVAL = Path(__file__).resolve().parents[1] / "examples" / "semeval2010_task8"
KEY, CNN, RBERT = SEMEVAL / "test_key_directed.txt", SEMEVAL / "onehaitao_cnn.txt", SEMEVAL / "onehaitao_rbert.txt"

cli.register_commands([])


def _rows(path: Path) -> list[tuple[str, str]]:
    return [tuple(line.split("\t")) for line in path.read_text().splitlines() if line.strip()]  # type: ignore[misc]


def _undirected(label: str) -> str:
    return re.sub(r"\(e[12],e[12]\)$", "", label)


@pytest.fixture(scope="module")
def mistakes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path, Path, str]]:
    """name → (gold, pred, pred2, the phrase every command's error must hold)."""
    d = tmp_path_factory.mktemp("mistakes")
    key_undirected = d / "key_undirected.txt"
    key_undirected.write_text("".join(f"{i}\t{_undirected(lab)}\n" for i, lab in _rows(KEY)))
    lower, lower2 = d / "cnn_lower.txt", d / "rbert_lower.txt"
    lower.write_text("".join(f"{i}\t{lab.lower()}\n" for i, lab in _rows(CNN)))
    lower2.write_text("".join(f"{i}\t{lab.lower()}\n" for i, lab in _rows(RBERT)))
    junk, junk2 = d / "cnn_scored.txt", d / "rbert_scored.txt"  # a score column glued to the label by a space
    junk.write_text("".join(f"{i}\t{lab} 0.93\n" for i, lab in _rows(CNN)))
    junk2.write_text("".join(f"{i}\t{lab} 0\n" for i, lab in _rows(RBERT)))
    key_renumbered = d / "key_from_1.txt"  # gold ids 1..2717; the predictions keep SemEval's 8001..10717
    key_renumbered.write_text("".join(f"{int(i) - 8000}\t{lab}\n" for i, lab in _rows(KEY)))
    return {
        "undirected key, directed predictions": (key_undirected, CNN, RBERT, "gold is the undirected key"),
        "labels differing in letter case": (KEY, lower, lower2, "differ from gold labels only in letter case"),
        "trailing junk on labels": (KEY, junk, junk2, "end in trailing junk"),
        "ids offset by a constant": (key_renumbered, CNN, RBERT, "every prediction id is a gold id + 8000"),
    }


def test_every_reader_is_in_the_matrix() -> None:
    assert {"score", "compare", "replicability from-predictions"} <= set(READERS)
    for reader in READERS.values():  # each reader has the shared options, spelt once (INPUT_OPTIONS)
        assert set(reader.options) <= {o.flag for o in INPUT_OPTIONS}
        assert {"--negative", "--input-format", "--gold-format"} <= set(reader.options)


MISTAKES = [
    "undirected key, directed predictions",
    "labels differing in letter case",
    "trailing junk on labels",
    "ids offset by a constant",
]


@pytest.mark.parametrize("mistake", MISTAKES)
@pytest.mark.parametrize("words", sorted(w for w, r in READERS.items() if r.sides == "both"))
def test_every_reader_refuses_each_mistake(
    words: str,
    mistake: str,
    mistakes: dict[str, tuple[Path, Path, Path, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    gold, pred, pred2, phrase = mistakes[mistake]
    out = tmp_path / "out.png"
    code = cli.main(READERS[words].argv(str(gold), str(pred), str(pred2), str(out)))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert not out.exists()
    if words.startswith("audit"):  # an audit reports the mistake as an error finding with the same words, exit 1
        assert code == 1, captured.err
        assert re.search(rf"ERROR +(label-mistake|unknown-ids) \[\d+\]: .*{re.escape(phrase)}", captured.out)
        return
    assert code == 2, captured.err
    assert captured.out == ""  # no score of a mistaken input is shown
    assert phrase in captured.err


def test_the_junk_and_offset_refusals_say_what_and_how(
    mistakes: dict[str, tuple[Path, Path, Path, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    """The suffix is named (not "never seen in gold", not "swapped"); the offset, the ranges and the fix too."""
    gold, pred, _, _ = mistakes["trailing junk on labels"]
    assert cli.main(["score", str(gold), str(pred)]) == 2
    err = capsys.readouterr().err
    used = {lab for _, lab in _rows(CNN)}  # the distinct labels the CNN predicts, each with ' 0.93' glued on
    assert f"{len(used)} predicted label(s) end in trailing junk" in err
    assert "after a gold label: 'Cause-Effect(e1,e2) 0.93' ('Cause-Effect(e1,e2)' + ' 0.93')" in err
    assert "--pred-label-field" in err and "swapped" not in err and "never seen in gold" not in err
    gold, pred, _, _ = mistakes["ids offset by a constant"]
    assert cli.main(["score", str(gold), str(pred)]) == 2
    err = capsys.readouterr().err
    assert "2717 prediction id(s) not in gold" in err
    assert "(gold 1..2717, predictions 8001..10717): the ids are offset by +8000" in err
    assert "subtract 8000 from the prediction ids" in err and "--by-position" in err  # the same order: by position
    assert cli.main(["score", str(gold), str(pred), "--by-position", "-f", "json"]) == 0  # the fix named works
    out = json.loads(capsys.readouterr().out)
    g, p = [lab for _, lab in _rows(gold)], [lab for _, lab in _rows(pred)]
    assert out["results"][0]["averages"]["micro"]["f"] == pytest.approx(_micro_f(g, p, "Other"), abs=1e-12)


def test_id_offset_by_hand() -> None:
    """The offset is found for plain and prefixed numbers, either sign, in any order; never for ids that are not
    one shifted set, nor for numbers beyond 64 bits (a fuzzed id)."""
    from releval.data.alignment import id_offset, offset_hint

    assert id_offset(["1", "2", "3"], ["8001", "8002", "8003"]) == (8000, True)
    assert id_offset(["s8001", "s8002"], ["s2", "s1"]) == (-8000, False)  # s1 + 8000 = s8001; order reversed
    assert id_offset(["1", "2", "3"], ["11", "13"]) == (10, False)  # 11 - 10 = 1 and 13 - 10 = 3 are gold ids
    assert id_offset(["1", "2", "3"], ["11", "14"]) is None  # 14 - 10 = 4 is no gold id
    assert id_offset(["a1", "b2"], ["a5", "b6"]) is None  # two prefixes
    assert id_offset(["1", "2"], ["123456789012345678901234567890"]) is None
    hint = offset_hint(["s8001", "s8002"], ["s2", "s1"])
    assert "offset by -8000" in hint and "add 8000 to the prediction ids" in hint and "different orders" in hint


@pytest.fixture(scope="module")
def suspicious(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path, Path, str]]:
    """name → (gold, pred, pred2, the phrase every command's warning must hold): inputs that are scored, with a
    warning, because they may be intended."""
    d = tmp_path_factory.mktemp("suspicious")
    # a system that never predicts two rare classes, given as gold; the key (neutrally named) given as predictions
    dropped = ("Entity-Destination(e2,e1)", "Content-Container(e2,e1)")
    system = d / "a.txt"
    system.write_text("".join(f"{i}\t{'Other' if lab in dropped else lab}\n" for i, lab in _rows(CNN)))
    key_copy, key_copy2 = d / "b.txt", d / "c.txt"
    key_copy.write_text(KEY.read_text())
    key_copy2.write_text(KEY.read_text())
    gold_labels = {"Other" if lab in dropped else lab for _, lab in _rows(CNN)}
    extra = {lab for _, lab in _rows(KEY)} - gold_labels
    swapped = f"the predictions use every one of gold's {len(gold_labels)} labels and {len(extra)} more"
    return {
        "gold and predictions swapped (content)": (system, key_copy, key_copy2, swapped),
        "predictions identical to gold": (KEY, key_copy, key_copy2, "predictions equal gold: did you pass gold twice?"),
    }


@pytest.mark.parametrize("suspect", ["gold and predictions swapped (content)", "predictions identical to gold"])
@pytest.mark.parametrize("words", sorted(w for w, r in READERS.items() if r.sides == "both"))
def test_every_reader_warns_of_each_suspicious_input(
    words: str,
    suspect: str,
    suspicious: dict[str, tuple[Path, Path, Path, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    gold, pred, pred2, phrase = suspicious[suspect]
    code = cli.main(READERS[words].argv(str(gold), str(pred), str(pred2), str(tmp_path / "out.png")))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    if words.startswith("audit"):  # a warning finding, in the report
        assert code == 0, captured.out
        assert re.search(rf"WARNING +(swapped-files|pred-equals-gold)\b.*{re.escape(phrase)}", captured.out)
        return
    assert code == 0, captured.err
    assert "warning" in captured.err and phrase in captured.err  # a score shown, never without the warning


def test_the_swap_and_identity_warnings_are_structured_in_json(
    suspicious: dict[str, tuple[Path, Path, Path, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    gold, pred, _, _ = suspicious["gold and predictions swapped (content)"]
    assert cli.main(["score", str(gold), str(pred), "-f", "json"]) == 0
    codes = [w["code"] for w in json.loads(capsys.readouterr().out)["results"][0]["warnings"]]
    assert codes == ["swapped-files", "pred-only-labels"]
    gold, pred, _, _ = suspicious["predictions identical to gold"]
    assert cli.main(["score", str(gold), str(pred), "-f", "json"]) == 0
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert [w["code"] for w in result["warnings"]] == ["pred-equals-gold"]
    assert result["averages"]["micro"]["f"] == 1.0


def test_audit_reports_the_same_swap_and_identity(
    suspicious: dict[str, tuple[Path, Path, Path, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    """`audit` has its own tolerant loader: the same findings, with the content's reasons as data."""
    for suspect, code in (
        ("gold and predictions swapped (content)", "swapped-files"),
        ("predictions identical to gold", "pred-equals-gold"),
    ):
        gold, pred, _, phrase = suspicious[suspect]
        cli.main(["audit", "run", str(gold), str(pred), "-f", "json"])
        findings = {f["code"]: f for f in json.loads(capsys.readouterr().out)["findings"]}
        assert phrase in findings[code]["message"] and findings[code]["severity"] == "warning"
    swap = findings_of(suspicious["gold and predictions swapped (content)"], capsys)["swapped-files"]
    assert swap["data"]["gold_labels"] == 17 and swap["data"]["pred_labels"] == 19  # 19 directed labels, 2 dropped


def findings_of(files: tuple[Path, Path, Path, str], capsys: pytest.CaptureFixture[str]) -> dict[str, dict]:
    cli.main(["audit", "run", str(files[0]), str(files[1]), "-f", "json"])
    return {f["code"]: f for f in json.loads(capsys.readouterr().out)["findings"]}


def test_a_tacred_gold_json_given_as_predictions_is_a_swap_by_its_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Equal vocabularies say nothing; the prediction file's shape (TACRED records with argument types) does."""
    labels = ["no_relation", "per:title", "org:founded", "per:title"]
    records = [
        {"id": f"x{k}", "relation": r, "token": ["a", "b"], "subj_type": "PERSON", "obj_type": "TITLE"}
        for k, r in enumerate(labels)
    ]
    (tmp_path / "test.json").write_text(json.dumps(records))
    (tmp_path / "out.txt").write_text("".join(f"x{k}\t{r}\n" for k, r in enumerate(["no_relation", *labels[1:]])))
    assert cli.main(["score", str(tmp_path / "out.txt"), str(tmp_path / "test.json")]) == 0
    err = capsys.readouterr().err
    assert "may be swapped" in err and "is a tacred-json file in a dataset's own shape" in err
    assert cli.main(["score", str(tmp_path / "test.json"), str(tmp_path / "out.txt")]) == 0  # the right way round
    assert "swapped" not in capsys.readouterr().err


def _micro_f(gold: list[str], pred: list[str], negative: str) -> float:
    """Micro-F1 over the positive classes, counted by hand."""
    tp = sum(g == p != negative for g, p in zip(gold, pred))
    n_pred = sum(p != negative for p in pred)
    n_gold = sum(g != negative for g in gold)
    return 2 * tp / (n_pred + n_gold)


@pytest.mark.parametrize("words", ["compare", "replicability from-predictions"])
def test_view_undirected_works_in_every_reader(
    words: str, mistakes: dict[str, tuple[Path, Path, Path, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    gold, pred, pred2, _ = mistakes["undirected key, directed predictions"]
    argv = [*READERS[words].argv(str(gold), str(pred), str(pred2)), "--view", "undirected", "-f", "json"]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    text = json.dumps(out)
    assert "view:undirected" in text
    if words == "compare":
        g = [lab for _, lab in _rows(gold)]
        expected = {
            name: _micro_f(g, [_undirected(lab) for _, lab in _rows(path)], "Other")
            for name, path in (("a", pred), ("b", pred2))
        }
        scores = out["results"][0]["scores"]
        for name, f in expected.items():
            assert scores[name]["micro"] == pytest.approx(f, abs=1e-12)


def test_compare_reads_positional_files_with_patch_and_labels_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The acceptance line `releval compare test.json a.txt b.txt --pred-format labels-lines --patch patch.json`."""
    gold = ["no_relation", "per:title", "org:founded", "per:title", "no_relation", "org:founded"]
    a = ["no_relation", "per:title", "per:title", "per:title", "org:founded", "org:founded"]
    b = ["no_relation", "no_relation", "org:founded", "per:title", "no_relation", "per:title"]
    (tmp_path / "test.json").write_text(json.dumps([{"id": f"x{k}", "relation": r} for k, r in enumerate(gold)]))
    (tmp_path / "a.txt").write_text("\n".join(a) + "\n")
    (tmp_path / "b.txt").write_text("\n".join(b) + "\n")
    (tmp_path / "patch.json").write_text(json.dumps([{"id": "x2", "relation": "per:title"}]))  # TACRev-style
    argv = ["compare", str(tmp_path / "test.json"), str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    argv += ["--pred-format", "labels-lines", "--patch", str(tmp_path / "patch.json"), "-R", "100", "-f", "json"]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    patched = [*gold[:2], "per:title", *gold[3:]]
    scores = out["results"][0]["scores"]
    assert scores["a"]["micro"] == pytest.approx(_micro_f(patched, a, "no_relation"), abs=1e-12)
    assert scores["b"]["micro"] == pytest.approx(_micro_f(patched, b, "no_relation"), abs=1e-12)
    assert "patch:" in json.dumps(out)


def test_an_option_a_task_does_not_read_is_refused_naming_the_tasks_that_do(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["score", str(KEY), str(CNN), "--task", "semeval-official", "--view", "undirected"]) == 2
    assert "--view: apply to --task rc only" in capsys.readouterr().err


def test_a_toy_task_registered_in_a_test_runs_through_score_compare_and_stats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    register_task(toy_task.TASK)
    try:
        assert "toy" in TASKS and get_task("toy").unit == "item"
        gold, a, b = tmp_path / "gold.txt", tmp_path / "a.txt", tmp_path / "b.txt"
        gold.write_text("a b c d\n")
        a.write_text("a b x d\n")
        b.write_text("a y x d\n")
        assert cli.main(["score", str(gold), str(a), "--task", "toy"]) == 0
        assert "75.00" in capsys.readouterr().out  # 3 of 4 lines match
        # an rc-only option is refused for the toy task, as for any task whose Config lacks the setting
        assert cli.main(["score", str(gold), str(a), "--task", "toy", "--view", "undirected"]) == 2
        assert "--view" in capsys.readouterr().err
        assert cli.main(["compare", str(gold), str(a), str(b), "--task", "toy", "-R", "50", "-f", "json"]) == 0
        scores = json.loads(capsys.readouterr().out)["results"][0]["scores"]
        assert scores["a"]["micro"] == pytest.approx(0.75) and scores["b"]["micro"] == pytest.approx(0.5)
        assert cli.main(["stats", str(gold), str(a), "--task", "toy", "-f", "json"]) == 0
        assert json.loads(capsys.readouterr().out) == {"lines": 8, "distinct": 5}  # a b c d x
    finally:
        unregister_task("toy")
    assert "toy" not in TASKS


def test_inputs_defaults_are_the_options_defaults() -> None:
    """Nothing given: no option counts as given, for any command."""
    assert Inputs().given_fields() == {}


def test_stats_reads_a_patched_gold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The acceptance line `releval stats test.json --patch patch.json`: the patch moves one item between classes."""
    gold = ["no_relation", "per:title", "org:founded", "per:title", "no_relation", "org:founded"]
    (tmp_path / "test.json").write_text(json.dumps([{"id": f"x{k}", "relation": r} for k, r in enumerate(gold)]))
    (tmp_path / "patch.json").write_text(json.dumps([{"id": "x2", "relation": "no_relation"}]))
    assert cli.main(["stats", str(tmp_path / "test.json"), "--patch", str(tmp_path / "patch.json"), "-f", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["samples"] == 6 and row["relations"] == 3
    assert row["negative_percent"] == pytest.approx(100 * 3 / 6)  # x0, x4 and the patched x2
    assert row["ratio"] == pytest.approx(2.0)  # per:title 2 / org:founded 1


def test_a_warning_every_system_has_is_said_once_and_others_by_system() -> None:
    from types import SimpleNamespace

    from releval.commands.common import result_warnings

    a = SimpleNamespace(system="a", warnings=["about gold", "a: only a's"])
    b = SimpleNamespace(system="b", warnings=["about gold", "b's own"])
    assert result_warnings([a, b]) == ["warning: about gold", "warning: a: only a's", "warning (b): b's own"]
    # one system: its warnings are its own, named
    assert result_warnings([a]) == ["warning (a): about gold", "warning: a: only a's"]
