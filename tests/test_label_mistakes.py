"""The mistakes that used to give a plausible wrong number with exit 0 (issue 14): each is now refused with the
fix, or warned about. Each test makes the mistake as a user makes it, on the bundled SemEval files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import releval
from releval.core.errors import InputError
from releval.data.semeval_labels import undirected

ROOT = Path(__file__).resolve().parents[1]
KEY = ROOT / "examples" / "semeval2010_task8" / "test_key_directed.txt"
RBERT = ROOT / "examples" / "semeval2010_task8" / "onehaitao_rbert.txt"


def undirected_key(tmp_path: Path) -> Path:
    """The official TEST_FILE_KEY.TXT's form: the bundled directed key with the direction dropped."""
    path = tmp_path / "TEST_FILE_KEY.TXT"
    lines = [line.split("\t") for line in KEY.read_text().splitlines()]
    path.write_text("".join(f"{i}\t{undirected(label)}\n" for i, label in lines))
    return path


def test_a_misspelt_negative_is_refused_with_the_likely_label() -> None:
    with pytest.raises(releval.OptionError, match="did you mean 'Other'") as caught:
        releval.score(KEY, RBERT, negative="Othr")
    assert caught.value.option == "negative"
    assert "occurs neither in gold nor in the predictions" in str(caught.value)


def test_an_absent_negative_is_scored_when_the_user_says_it_is_intended() -> None:
    # Without a negative in the data the class is simply not there: the same numbers as no negative at all,
    # and the note says it does not occur.
    gold, pred = ["A", "B", "A"], ["A", "A", "A"]
    allowed = releval.score(gold, pred, negative="no_relation", allow_absent_negative=True)
    assert allowed["micro"].f == pytest.approx(2 / 3)
    assert allowed["macro"].f == releval.score(gold, pred, negative=None)["macro"].f
    assert any("does not occur in gold" in note for note in allowed.notes)
    with pytest.raises(releval.OptionError, match="does not occur in gold"):
        releval.score(gold, ["no_relation"] * 3, negative="no_relation")


def test_directed_predictions_against_the_undirected_key_say_what_to_do(tmp_path: Path) -> None:
    key = undirected_key(tmp_path)
    with pytest.raises(releval.InputError, match="--view undirected") as caught:
        releval.score(key, RBERT)
    assert caught.value.file == str(RBERT) and caught.value.field == "label"
    # the fix the message gives works: directed and undirected key agree once the direction is dropped
    fixed = releval.score(key, RBERT, view="undirected")
    assert fixed["micro"].f == releval.score(KEY, RBERT, view="undirected")["micro"].f
    assert fixed["micro"].f == pytest.approx(0.8995652173913044, abs=1e-15)  # RBERT, 9+1-way without direction


def test_undirected_predictions_against_the_directed_key_are_refused(tmp_path: Path) -> None:
    with pytest.raises(releval.InputError, match="undirected SemEval-2010 Task 8 labels"):
        releval.score(KEY, undirected_key(tmp_path))


def test_labels_that_differ_only_in_case_are_refused(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / "pred.jsonl"
    gold.write_text("".join(json.dumps({"id": str(i), "label": x}) + "\n" for i, x in enumerate(["per:title"] * 3)))
    pred.write_text("".join(json.dumps({"id": str(i), "label": x}) + "\n" for i, x in enumerate(["PER:TITLE"] * 3)))
    with pytest.raises(releval.InputError, match=r"only in letter case: 'PER:TITLE' \(gold 'per:title'\)"):
        releval.score(gold, pred, negative=None)


def test_by_position_on_files_listed_in_another_order_warns_with_the_fix(tmp_path: Path) -> None:
    lines = KEY.read_text().splitlines()
    shuffled = tmp_path / "pred.txt"
    shuffled.write_text("\n".join(lines[1:] + lines[:1]) + "\n")  # the same ids, rotated by one
    with pytest.warns(releval.RelevalWarning, match="align by id instead"):
        result = releval.score(KEY, shuffled, by_position=True)
    (warning,) = [w for w in result.warnings if w.code == "position-ids-disagree"]
    assert "2717 prediction id(s)" in warning and f"{shuffled}, line 1: id '8002' where gold has '8001'" in warning
    with pytest.warns(releval.RelevalWarning, match="predictions equal gold"):
        assert releval.score(KEY, shuffled)["micro"].f == 1.0  # by id: every item meets its own label


def test_by_position_with_ids_of_another_scheme_is_what_it_is_for(tmp_path: Path) -> None:
    lines = [line.split("\t") for line in KEY.read_text().splitlines()]
    renumbered = tmp_path / "pred.txt"
    renumbered.write_text("".join(f"{k}\t{label}\n" for k, (_, label) in enumerate(lines)))
    with pytest.warns(releval.RelevalWarning, match="predictions equal gold"):
        result = releval.score(KEY, renumbered, by_position=True)
    # no position warning; the one warning left is that these predictions are gold itself
    assert result["micro"].f == 1.0 and [w.code for w in result.warnings] == ["pred-equals-gold"]


@pytest.mark.parametrize(
    "gold_name, pred_name, warned",
    [
        ("pred.txt", "gold.txt", True),
        ("system_output.txt", "test_key.txt", True),
        ("answer_key.txt", "predictions.txt", False),
        ("keyword_gold.txt", "keyword_preds.txt", False),
        ("a.txt", "b.txt", False),
    ],
)
def test_swapped_file_names_are_warned_about(tmp_path: Path, gold_name: str, pred_name: str, warned: bool) -> None:
    gold, pred = tmp_path / gold_name, tmp_path / pred_name
    gold.write_bytes(KEY.read_bytes())
    pred.write_bytes(RBERT.read_bytes())
    with pytest.warns() if warned else _no_swap_warning():
        result = releval.score(gold, pred)
    assert [w.code for w in result.warnings].count("swapped-files") == int(warned)


class _no_swap_warning:
    """A context that fails when a swapped-files warning is raised (other warnings pass)."""

    def __enter__(self) -> None:
        import warnings

        self._catch = warnings.catch_warnings(record=True)
        self._seen = self._catch.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc: object) -> None:
        self._catch.__exit__(*exc)
        assert not [w for w in self._seen if "swapped" in str(w.message)]


def test_many_labels_never_seen_in_gold_suggest_a_swap(tmp_path: Path) -> None:
    # gold given as the prediction of a system that never predicts the rare classes: swapped, the real gold
    # brings every class the system missed as "new" labels
    gold = [line.split("\t") for line in KEY.read_text().splitlines()]
    keep = {"Other", "Cause-Effect(e1,e2)", "Cause-Effect(e2,e1)"}
    system = tmp_path / "a.txt"
    system.write_text("".join(f"{i}\t{label if label in keep else 'Other'}\n" for i, label in gold))
    swapped = releval.score(system, KEY)
    (warning,) = [w for w in swapped.warnings if w.code == "pred-only-labels"]
    assert warning.endswith(
        "so many new labels suggest gold and predictions were given the other way round (gold first)"
    )
    right = releval.score(KEY, system)
    assert [w for w in right.warnings if w.code == "pred-only-labels"] == []


def cli(*args: object) -> tuple[int, str, str]:
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "releval", *map(str, args)], capture_output=True, text=True)
    return run.returncode, run.stdout, run.stderr


def test_the_commands_a_user_types(tmp_path: Path) -> None:
    code, out, err = cli("score", KEY, RBERT, "--negative", "Othr")
    assert (code, out) == (2, "") and err.startswith("error: --negative label 'Othr' occurs neither in gold")
    assert "did you mean 'Other'?" in err and "--allow-absent-negative" in err
    code, out, err = cli("score", undirected_key(tmp_path), RBERT)
    assert code == 2 and "--view undirected" in err and err.count("\n") == 1
    code, out, err = cli("score", undirected_key(tmp_path), RBERT, "--view", "undirected", "-f", "json")
    assert code == 0 and abs(json.loads(out)["results"][0]["averages"]["micro"]["f"] - 0.8995652173913044) < 1e-15
    gold, pred = tmp_path / "gold.tsv", tmp_path / "pred.tsv"
    gold.write_text("1\tper:title\n2\tno_relation\n")
    pred.write_text("1\tPER:TITLE\n2\tno_relation\n")
    code, out, err = cli("score", gold, pred)
    assert code == 2 and "only in letter case: 'PER:TITLE' (gold 'per:title')" in err


def test_macro_conventions_from_the_command_line() -> None:
    conll = ROOT / "examples" / "conll04" / "conll04_test_first30.json"
    types = ROOT / "examples" / "conll04" / "conll04_types.json"
    macros = {}
    for classes in ("gold", "declared"):
        code, out, err = cli(
            "score", "--task", "e2e", conll, conll, "--types", types, "--macro-classes", classes, "-f", "json"
        )
        assert code == 0, err
        macros[classes] = json.loads(out)["results"][0]["criteria"]["strict"]["averages"]["macro"]["f"]
    assert macros == {"gold": 1.0, "declared": 0.8}  # no gold Kill in the slice: 4 of 5 declared types score 1


def test_trailing_junk_is_a_number_glued_by_a_separator() -> None:
    from releval.tasks.label_mistakes import trailing_junk

    assert trailing_junk("Other 0") == ("Other", " 0")
    assert trailing_junk("per:title\t0.93") == ("per:title", "\t0.93")
    assert trailing_junk("per:title,1e-3") == ("per:title", ",1e-3")
    assert trailing_junk("no_relation 3 -0.25") == ("no_relation", " 3 -0.25")  # a rank and a score
    for label in ("Cause-Effect(e1,e2)", "P17", "per:title", "org:number_of_employees/members", "Other"):
        assert trailing_junk(label) is None


def test_junk_on_gold_labels_is_named_as_gold_s() -> None:
    """Gold carries the score column, the predictions do not: the same refusal, naming gold and its option."""
    from releval.tasks.label_mistakes import check_label_junk

    with pytest.raises(InputError) as info:
        check_label_junk(["Other 1", "per:title 1"], ["Other", "per:title"], "preds.txt")
    message = info.value.message
    assert message.startswith(
        "2 gold label(s) end in trailing junk after a predicted label: 'Other 1' ('Other' + ' 1')"
    )
    assert "--gold-label-field" in message and info.value.file is None
    check_label_junk(["Other", "per:title"], ["Part-Whole 2"], "preds.txt")  # 'Part-Whole' is no gold label: new
