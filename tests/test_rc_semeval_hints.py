"""`--task rc` and `--task semeval-official` on the bundled SemEval-2010 Task 8 files, mistaken the ways issue 32
measured: each mistake is refused (or warned about) with the right diagnosis, and every hint is followed here —
the command it names is run — to a correct number.

The correct numbers come from outside releval: the perl scorer's macro-F1 of onehaitao_cnn.txt
(testvectors/semeval2010_systems_perl.json: 79.26, 71.12, 80.59), and rc's micro-F1 counted by hand below.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.conftest import SEMEVAL_KEY, data_path, semeval_predictions

import releval
from releval.cli import main
from releval.tasks.semeval_official import SemevalOfficialConfig, SemevalOfficialResult
from releval.tasks.semeval_official import score as official

CNN = semeval_predictions("cnn")
RC = ["score", "--task", "rc"]
OFFICIAL = ["score", "--task", "semeval-official"]
#: TACRED's relation labels (Zhang et al. 2017), a few of its 42.
TACRED = ["no_relation", "per:title", "org:top_members/employees", "per:employee_of", "org:founded_by"]


def _rows(path: Path) -> list[tuple[str, str]]:
    return [(a, b) for a, b in (line.split("\t") for line in path.read_text(encoding="utf-8").splitlines())]


def _perl_cnn() -> tuple[str, str, str]:
    cnn = json.loads(data_path("testvectors", "semeval2010_systems_perl.json").read_text())["systems"]["cnn"]
    return cnn["official"], cnn["19-way"], cnn["undirected"]


def _official_numbers(result: SemevalOfficialResult) -> tuple[str, str, str]:
    s = result.scores
    return tuple(f"{v.macro_f1:.2f}" for v in (s.official, s.directed, s.undirected))  # type: ignore[return-value]


def _micro_by_hand(gold: Path, pred: Path) -> float:
    """Micro-F1 with Other as the negative class, counted on the two files' lines (the same ids, in order)."""
    g, p = dict(_rows(gold)), dict(_rows(pred))
    correct = sum(1 for i, y in g.items() if y != "Other" and p[i] == y)
    proposed = sum(1 for y in p.values() if y != "Other")
    actual = sum(1 for y in g.values() if y != "Other")
    precision, recall = correct / proposed, correct / actual
    return 2 * precision * recall / (precision + recall)


def _run(argv: list[object], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _command_in(message: str) -> str:
    """The shell command a hint names between backquotes."""
    return message.split("`")[1]


def test_integer_class_indices_are_named_so_by_both_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(CNN)
    index = {label: str(k) for k, label in enumerate(sorted({y for _, y in rows}))}
    pred = tmp_path / "cnn_indices.txt"
    pred.write_text("".join(f"{i}\t{index[y]}\n" for i, y in rows))
    for task in (RC, OFFICIAL):
        code, out, err = _run([*task, SEMEVAL_KEY, pred], capsys)
        assert (code, out) == (2, "")
        assert "the predicted labels are integers" in err and "id2label" in err
        assert "swapped" not in err and "never seen in gold" not in err
    names = {k: label for label, k in index.items()}  # the hint followed: each index mapped to its name
    mapped = tmp_path / "cnn_mapped.txt"
    mapped.write_text("".join(f"{i}\t{names[k]}\n" for i, k in _rows(pred)))
    assert _official_numbers(official(SEMEVAL_KEY, mapped)) == _perl_cnn()
    assert releval.score(SEMEVAL_KEY, mapped)["micro"].f == pytest.approx(_micro_by_hand(SEMEVAL_KEY, CNN), abs=1e-12)


def test_another_datasets_labels_are_named_so_by_both_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pred = tmp_path / "tacred_like.txt"
    pred.write_text("".join(f"{i}\t{TACRED[k % len(TACRED)]}\n" for k, (i, _) in enumerate(_rows(CNN))))
    for task in (RC, OFFICIAL):
        code, out, err = _run([*task, SEMEVAL_KEY, pred], capsys)
        assert (code, out) == (2, "")
        assert "no predicted label occurs in gold" in err and "another dataset's labels" in err
        assert "swapped" not in err


@pytest.mark.skipif(shutil.which("sed") is None or shutil.which("bash") is None, reason="needs sed and bash")
def test_space_separated_ids_name_the_tab_and_the_command_that_fixes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spaced = tmp_path / "cnn_spaces.txt"
    spaced.write_text("".join(f"{i} {y}\n" for i, y in _rows(CNN)))
    for argv in (RC, OFFICIAL, [*RC, "--pred-format", "id-tsv"]):  # detected, or read as the format named
        code, out, err = _run([*argv, SEMEVAL_KEY, spaced], capsys)
        assert (code, out) == (2, "") and err.count("\n") == 1
        assert "separated by a space" in err and "labels-lines" not in err
        assert len(err) < 600
    # following the hint: the command it names, run as given, writes a file both tasks score right
    subprocess.run(["bash", "-c", _command_in(err)], cwd=tmp_path, check=True)
    fixed = tmp_path / "cnn_spaces.tabs.txt"
    assert fixed.read_bytes() == CNN.read_bytes()
    assert _official_numbers(official(SEMEVAL_KEY, fixed)) == _perl_cnn()
    assert releval.score(SEMEVAL_KEY, fixed)["micro"].f == pytest.approx(_micro_by_hand(SEMEVAL_KEY, CNN), abs=1e-12)


@pytest.mark.skipif(shutil.which("sed") is None or shutil.which("bash") is None, reason="needs sed and bash")
def test_space_separated_ids_read_as_labels_lines_say_so_in_one_short_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the old hint led to (--pred-format labels-lines): 0.00 and a 74,038-character warning. Now refused,
    naming the id glued to each label, and the command it names gives the right number."""
    spaced = tmp_path / "cnn_spaces.txt"
    spaced.write_text("".join(f"{i} {y}\n" for i, y in _rows(CNN)))
    code, out, err = _run([*RC, SEMEVAL_KEY, spaced, "--pred-format", "labels-lines"], capsys)
    assert (code, out) == (2, "")
    assert "2717 predicted label(s) are a word, a space and a gold label" in err
    assert "'10000 Instrument-Agency(e2,e1)' (gold 'Instrument-Agency(e2,e1)')" in err
    assert len(err) < 800
    subprocess.run(["bash", "-c", _command_in(err)], cwd=tmp_path, check=True)
    code, out, err = _run([*RC, SEMEVAL_KEY, tmp_path / "cnn_spaces.tabs.txt", "-f", "json"], capsys)
    assert code == 0
    micro = json.loads(out)["results"][0]["averages"]["micro"]["f"]
    assert micro == pytest.approx(_micro_by_hand(SEMEVAL_KEY, CNN), abs=1e-12)


def test_a_warning_lists_at_most_ten_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(CNN)
    pred = tmp_path / "cnn_new_labels.txt"  # 100 items given new labels, the rest as the CNN predicted
    pred.write_text("".join(f"{i}\t{f'New-{k}' if k < 100 else y}\n" for k, (i, y) in enumerate(rows)))
    code, _, err = _run([*RC, SEMEVAL_KEY, pred, "--pred-format", "id-tsv"], capsys)
    assert code == 0
    (line,) = [ln for ln in err.splitlines() if "never seen in gold" in ln]
    assert "… (90 more)" in line and len(line) < 400


def test_offset_ids_under_semeval_official_name_what_that_task_accepts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows(CNN)
    pred = tmp_path / "cnn_from_1.txt"
    pred.write_text("".join(f"{int(i) - 8000}\t{y}\n" for i, y in rows))
    code, out, err = _run([*OFFICIAL, SEMEVAL_KEY, pred], capsys)
    assert (code, out) == (2, "")
    assert "add 8000 to the prediction ids" in err and "by-position" not in err and "by_position" not in err
    assert _run([*OFFICIAL, SEMEVAL_KEY, pred, "--by-position"], capsys)[0] == 2  # what the old hint said
    renumbered = tmp_path / "cnn_renumbered.txt"  # the hint followed: 8000 added to every id
    renumbered.write_text("".join(f"{int(i) + 8000}\t{y}\n" for i, y in _rows(pred)))
    assert _official_numbers(official(SEMEVAL_KEY, renumbered)) == _perl_cnn()
    # --task rc, which can align by position, still offers it; followed, it gives the number by hand
    code, out, err = _run([*RC, SEMEVAL_KEY, pred], capsys)
    assert code == 2 and "--by-position" in err
    code, out, err = _run([*RC, SEMEVAL_KEY, pred, "--by-position", "-f", "json"], capsys)
    assert code == 0
    micro = json.loads(out)["results"][0]["averages"]["micro"]["f"]
    assert micro == pytest.approx(_micro_by_hand(SEMEVAL_KEY, CNN), abs=1e-12)


def test_semeval_official_warns_of_gold_given_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "run1.txt"
    copy.write_bytes(SEMEVAL_KEY.read_bytes())
    code, out, err = _run([*OFFICIAL, SEMEVAL_KEY, copy], capsys)
    assert code == 0 and "100.00" in out
    assert "predictions equal gold: did you pass gold twice?" in err


def test_semeval_official_warns_of_swapped_files(capsys: pytest.CaptureFixture[str]) -> None:
    """The key given as predictions and the CNN as gold: the perl scorer would print 75.30 for the 19-way view
    (71.12 is right); releval prints it too, and says the files look swapped."""
    code, out, err = _run([*OFFICIAL, CNN, SEMEVAL_KEY], capsys)
    assert code == 0
    assert "gold and predictions may be swapped" in err
    assert "named like a gold file" in err and "every one of gold's 18 labels and 1 more" in err
    right = official(SEMEVAL_KEY, CNN)
    assert _official_numbers(right) == _perl_cnn()
    assert not [w for w in right.warnings if w.code in ("swapped-files", "pred-equals-gold")]


def test_the_scorers_own_proposed_answer_files_are_not_named_like_gold() -> None:
    """`proposed_answer1.txt` is what the official scorer's bundle calls a prediction: no swap warning."""
    folder = data_path("semeval2010_task8", "scorer_examples")
    result = official(folder / "answer_key1.txt", folder / "proposed_answer1.txt", SemevalOfficialConfig("wrong"))
    assert not [w for w in result.warnings if w.code == "swapped-files"]


def test_json_lines_with_other_field_names_name_the_fields_and_the_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Records {"sent_id": …, "rel": …} were read as one id → label object and reported as invalid JSON."""
    pred = tmp_path / "cnn.jsonl"
    pred.write_text("".join(json.dumps({"sent_id": i, "rel": y}) + "\n" for i, y in _rows(CNN)))
    code, out, err = _run([*RC, SEMEVAL_KEY, pred], capsys)
    assert (code, out) == (2, "")
    assert "invalid JSON" not in err and err.count("\n") == 1
    assert "no record has the id field 'id' nor a label field" in err and "the record has 'sent_id', 'rel'" in err
    assert "--pred-id-field and --pred-label-field" in err
    code, out, err = _run(
        [*RC, SEMEVAL_KEY, pred, "--pred-id-field", "sent_id", "--pred-label-field", "rel", "-f", "json"], capsys
    )
    assert code == 0
    micro = json.loads(out)["results"][0]["averages"]["micro"]["f"]
    assert micro == pytest.approx(_micro_by_hand(SEMEVAL_KEY, CNN), abs=1e-12)
    # a label field found but no id field: one error naming the id option, not one per record
    pred.write_text("".join(json.dumps({"idx": i, "prediction": y}) + "\n" for i, y in _rows(CNN)))
    code, out, err = _run([*RC, SEMEVAL_KEY, pred], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "no record has the id field 'id' (the record has 'idx', 'prediction'); name it with --pred-id-field" in err
    code, out, err = _run([*RC, SEMEVAL_KEY, pred, "--pred-id-field", "idx", "-f", "json"], capsys)
    micro = json.loads(out)["results"][0]["averages"]["micro"]["f"]
    assert micro == pytest.approx(_micro_by_hand(SEMEVAL_KEY, CNN), abs=1e-12)


def test_a_wide_tsv_named_for_its_systems_is_no_swap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`system_outputs.tsv` (id, gold, one column per system) is gold and systems in one file: its name is no sign
    of a swap (it warned once per system)."""
    key, cnn, rbert = _rows(SEMEVAL_KEY), _rows(CNN), _rows(semeval_predictions("rbert"))
    wide = tmp_path / "system_outputs.tsv"
    body = "".join(f"{i}\t{g}\t{c}\t{r}\n" for (i, g), (_, c), (_, r) in zip(key, cnn, rbert))
    wide.write_text("id\tgold\tcnn\trbert\n" + body)
    code, out, err = _run([*RC, wide, "-f", "json"], capsys)
    assert code == 0 and "swapped" not in err
    results = {r["system"]: r["averages"]["micro"]["f"] for r in json.loads(out)["results"]}
    assert results["cnn"] == pytest.approx(_micro_by_hand(SEMEVAL_KEY, CNN), abs=1e-12)
    assert results["rbert"] == pytest.approx(_micro_by_hand(SEMEVAL_KEY, semeval_predictions("rbert")), abs=1e-12)
    code, out, err = _run(["compare", wide, "-R", "20"], capsys)
    assert code == 0 and "swapped" not in err


def test_trailing_white_space_on_a_semeval_label_is_named_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows(CNN)
    pred = tmp_path / "cnn_trailing.txt"
    pred.write_text("".join(f"{i}\t{y}{' ' if k == 2 else ''}\n" for k, (i, y) in enumerate(rows)))
    for task in (RC, OFFICIAL):
        code, out, err = _run([*task, SEMEVAL_KEY, pred], capsys)
        assert (code, out) == (2, "")
        assert f"{pred.name}:3: field 'label': label '{rows[2][1]} ' has trailing white space after" in err
        assert "is not a SemEval-2010 Task 8 label" not in err
    stripped = tmp_path / "cnn_stripped.txt"  # the hint followed: the label written without it
    stripped.write_text("".join(line.rstrip() + "\n" for line in pred.read_text().splitlines()))
    assert _official_numbers(official(SEMEVAL_KEY, stripped)) == _perl_cnn()


def test_the_sentences_only_test_file_is_named_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SemEval's TEST_FILE.txt (the sentences given to systems, no labels) given as gold or as predictions."""
    sentences = tmp_path / "TEST_FILE.txt"
    sentences.write_text(
        '8001\t"The most common <e1>audits</e1> were about <e2>waste</e2> and recycling."\n'
        '8002\t"The <e1>company</e1> fabricates plastic <e2>chairs</e2>."\n'
        '8003\t"The school <e1>master</e1> teaches the lesson with a <e2>stick</e2>."\n'
    )
    for argv in ([sentences, CNN], [SEMEVAL_KEY, sentences]):
        code, out, err = _run([*OFFICIAL, *argv], capsys)
        assert (code, out) == (2, "") and err.count("\n") == 1
        assert "the file holds sentences only, no label line" in err and "TEST_FILE_KEY.TXT" in err


def test_name_glob_runs_are_named_without_the_file_extension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for seed in (1, 2):
        (tmp_path / f"cnn_seed{seed}.txt").write_bytes(CNN.read_bytes())
    code, out, _ = _run([*RC, SEMEVAL_KEY, f"cnn={tmp_path}/cnn_seed*.txt", "-f", "json"], capsys)
    assert code == 0
    assert [r["system"] for r in json.loads(out)["results"]] == ["cnn[cnn_seed1]", "cnn[cnn_seed2]"]


def test_stats_says_when_no_negative_class_was_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    positives = tmp_path / "positives.tsv"
    positives.write_text("1\tper:title\n2\torg:founded\n3\tper:title\n")
    code, out, _ = _run(["stats", positives], capsys)
    assert code == 0 and "note: no negative class: none of no_relation / Other / NA occurs" in out
    code, out, _ = _run(["stats", SEMEVAL_KEY], capsys)
    assert code == 0 and "no negative class" not in out  # Other is SemEval's


def test_a_wide_tsv_alone_under_semeval_official_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key, cnn = _rows(SEMEVAL_KEY), _rows(CNN)
    wide = tmp_path / "results.tsv"
    wide.write_text("id\tgold\tcnn\n" + "".join(f"{i}\t{g}\t{c}\n" for (i, g), (_, c) in zip(key, cnn)))
    code, out, err = _run([*OFFICIAL, wide], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "is a wide TSV" in err and "under --task rc only" in err and "give each system's prediction file" in err
    # what it says, followed: the prediction file after it (its gold column is the key)
    code, out, err = _run([*OFFICIAL, wide, CNN, "-f", "csv"], capsys)
    assert code == 0 and "swapped" not in err
    assert _official_numbers(official(wide, CNN)) == _perl_cnn()


def test_json_integer_labels_are_named_class_indices_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(CNN)
    names = sorted({y for _, y in rows})
    pred = tmp_path / "cnn_argmax.jsonl"
    pred.write_text("".join(json.dumps({"id": i, "label": names.index(y)}) + "\n" for i, y in rows))
    for task in (RC, OFFICIAL):
        code, out, err = _run([*task, SEMEVAL_KEY, pred], capsys)
        assert (code, out) == (2, "") and err.count("\n") == 1
        assert "every label is a JSON integer (0, 1, 2, 3, 4, …): class indices, not labels" in err
    mapped = tmp_path / "cnn_mapped.jsonl"  # the hint followed: each index mapped to its name (id2label)
    mapped.write_text(
        "".join(
            json.dumps({"id": r["id"], "label": names[r["label"]]}) + "\n"
            for r in map(json.loads, pred.read_text().splitlines())
        )
    )
    assert _official_numbers(official(SEMEVAL_KEY, mapped)) == _perl_cnn()


def test_a_few_stray_integers_among_names_are_warned_about_not_refused() -> None:
    """One "0" among the CNN's 18 label names is a false positive like any unseen label, not class indices."""
    rows = _rows(CNN)
    gold = [y for _, y in _rows(SEMEVAL_KEY)]
    pred = [("0" if k % 100 == 0 else y) for k, (_, y) in enumerate(rows)]
    with pytest.warns(releval.RelevalWarning, match="never seen in gold, counted as false positives: 0$"):
        result = releval.score(gold, pred)
    correct = sum(1 for g, p in zip(gold, pred) if g == p and g != "Other")
    proposed, actual = sum(p != "Other" for p in pred), sum(g != "Other" for g in gold)
    assert result["micro"].precision == pytest.approx(correct / proposed, abs=1e-12)
    assert result["micro"].recall == pytest.approx(correct / actual, abs=1e-12)
