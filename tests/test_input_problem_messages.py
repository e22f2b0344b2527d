"""Issue 34 item 5: a file whose every record has the same problem is refused with one summary line, not "50 input
problem(s)" and 20 identical lines — by every command that reads it (releval.commands.inputs.READERS), for every
task family; the audit's `unreadable-input` finding says it once too.

Each family's file below breaks every record the same way; the first record's error is computed here from the file
(its line or record), so a wrong location or a second line fails the test.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import EXAMPLES
from releval import cli
from releval.commands.inputs import READERS
from releval.core.errors import MAX_ERRORS, InputError, InputErrors, grouped_problems

cli.register_commands([])

SEMEVAL = EXAMPLES / "semeval2010_task8"
CONLL04 = EXAMPLES / "conll04"


@dataclass(frozen=True)
class AllBad:
    """gold, a prediction file whose every record has one problem, a valid second system; the options the task
    needs; the start of the one error line (the first record's location and problem); whether the reader lists
    every record's problem (then the line says where else it occurs) or stops at the first."""

    gold: Path
    pred: Path
    pred2: Path
    first: str
    collects: bool
    options: tuple[str, ...] = ()


def _rc(folder: Path) -> AllBad:
    rows = [ln.split("\t") for ln in (SEMEVAL / "onehaitao_cnn.txt").read_text().splitlines() if ln.strip()]
    pred = folder / "cnn_extra.txt"
    pred.write_text("".join(f"{i}\t{label}\textra\n" for i, label in rows))
    first = f"{pred}:1: expected '<id>\\t<label>', got '{rows[0][0]}\\t{rows[0][1]}\\textra'"
    return AllBad(SEMEVAL / "test_key_directed.txt", pred, SEMEVAL / "onehaitao_rbert.txt", first, True)


def _e2e(folder: Path) -> AllBad:
    docs = json.loads((CONLL04 / "conll04_test_first30.json").read_text())
    for doc in docs:
        for relation in doc["relations"]:
            relation["head"] = 99
    pred = folder / "system_a.json"
    pred.write_text(json.dumps(docs))
    n = len(docs[0]["entities"])
    first = f"{pred}: field 'relations': record 1 (orig_id {docs[0]['orig_id']}): relation 0 head 99 is not an index "
    first += f"into its {n} entities"
    gold = CONLL04 / "conll04_test_first30.json"
    return AllBad(gold, pred, gold, first, True, ("--types", str(CONLL04 / "conll04_types.json")))


def _fewrel(folder: Path) -> AllBad:
    answers = json.loads((EXAMPLES / "fewrel" / "pred-bow-5-1.json").read_text())
    pred = folder / "names.json"
    pred.write_text(json.dumps([f"P{a}" for a in answers]))
    first = f"{pred}: record 1: field 'prediction': expected an integer index, got 'P{answers[0]}'"
    return AllBad(EXAMPLES / "fewrel" / "official-5-1.json", pred, EXAMPLES / "fewrel" / "pred-between-5-1.json",
                  first, False)  # fmt: skip


def _ranked(folder: Path) -> AllBad:
    pcnn = EXAMPLES / "ranked" / "pcnn.jsonl"
    pred = folder / "words.jsonl"
    pred.write_text("".join(json.dumps({**json.loads(ln), "score": "high"}) + "\n" for ln in pcnn.open()))
    first = f"{pred}:1: field 'score': expected a number, got 'high'"
    return AllBad(EXAMPLES / "ranked" / "gold.jsonl", pred, pcnn, first, False, ("--duplicates", "count"))


def _drugprot(folder: Path) -> AllBad:
    toy = EXAMPLES / "drugprot" / "toy-data" / "pred_relations.tsv"
    rows = [ln for ln in toy.read_text().splitlines() if ln.strip()]
    pred = folder / "five_columns.tsv"
    pred.write_text("".join(f"{ln}\t0.9\n" for ln in rows))
    first = f"{pred}:1: expected 4 tab-separated fields (PMID, type, Arg1:id, Arg2:id), got 5"
    return AllBad(EXAMPLES / "drugprot" / "gs-data", pred, toy, first, False)


def _blue(folder: Path) -> AllBad:
    rows = (EXAMPLES / "chemprot" / "blue_sys_a.tsv").read_text().splitlines()
    pred = folder / "blue_four.tsv"
    pred.write_text(rows[0] + "\n" + "".join(f"{ln}\tx\n" for ln in rows[1:]))
    first = f"{pred}:2: 4 tab-separated field(s), but the header has 3"
    gold = EXAMPLES / "chemprot" / "blue_gold.tsv"
    return AllBad(gold, pred, EXAMPLES / "chemprot" / "blue_sys_a.tsv", first, False)


def _scibert(folder: Path) -> AllBad:
    sys_a = EXAMPLES / "chemprot" / "scibert_sys_a.txt"
    pred = folder / "no_label.txt"
    pred.write_text("".join(json.dumps({"text": json.loads(ln)["text"], "metadata": []}) + "\n" for ln in sys_a.open()))
    first = f'{pred}:1: expected an object with a "label"'
    return AllBad(EXAMPLES / "chemprot" / "scibert_test_head.txt", pred, sys_a, first, False)


def _docred(folder: Path) -> AllBad:
    system = EXAMPLES / "docred" / "system_a.json.gz"
    preds = json.loads(gzip.decompress(system.read_bytes()))
    pred = folder / "string_heads.json"
    pred.write_text(json.dumps([{**p, "h_idx": str(p["h_idx"])} for p in preds]))
    first = f"{pred}: record 1: field 'h_idx': prediction 1 ({preds[0]['title']!r}): h_idx must be an entity index"
    return AllBad(EXAMPLES / "docred" / "redocred_dev_first40.json.gz", pred, system, first, False)


FAMILIES: dict[str, Callable[[Path], AllBad]] = {
    "rc": _rc,
    "semeval-official": _rc,
    "e2e": _e2e,
    "fewrel": _fewrel,
    "ranked": _ranked,
    "drugprot": _drugprot,
    "chemprot-blue": _blue,
    "chemprot-scibert": _scibert,
    "docred": _docred,
}


def _pairs() -> list[tuple[str, str]]:
    return [
        (task, words)
        for task in FAMILIES
        for words, reader in sorted(READERS.items())
        if reader.sides == "both" and task in reader.tasks
    ]


def test_every_family_is_here() -> None:
    """A new family read by some command must get its all-records-bad file here."""
    read = {task for reader in READERS.values() for task in reader.tasks}
    assert read <= set(FAMILIES)


@pytest.mark.parametrize(("task", "words"), _pairs())
def test_a_file_whose_every_record_fails_alike_is_one_line(
    task: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = FAMILIES[task](tmp_path)
    out = tmp_path / "out.png"
    argv = READERS[words].argv(str(case.gold), str(case.pred), str(case.pred2), str(out))
    command = cli._leaf_command(argv)
    if any("--task" in getattr(param, "opts", ()) for param in command.params):
        argv += ["--task", task]
    code = cli.main([*argv, *case.options])
    captured = capsys.readouterr()
    if words.startswith("audit"):  # the unreadable file is an error finding: its problem said once
        assert code == 1, captured.out + captured.err
        found = re.search(r"ERROR +unreadable-input.*\n((?: +e\.g\. .*\n)*)", captured.out)
        assert found, captured.out
        examples = found.group(1).splitlines()
        assert len(examples) == 1 and case.first in examples[0], captured.out
        return
    assert code == 2, captured.out + captured.err
    assert captured.out == "" and not out.exists()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    shown = lines[0].removeprefix("error: ").removeprefix("dataset 'x': ")
    assert shown.startswith(case.first), (shown, case.first)
    if case.collects:
        assert "— the same problem at " in shown


def test_grouped_lines_by_hand() -> None:
    """Alike problems: their first said in full, then where else; a few alike problems with different values keep
    a line each; other files or fields are other problems."""
    rows = [InputError(f"expected '<id>\\t<label>', got '{n}'", file="p.tsv", line=n) for n in range(1, 9)]
    assert grouped_problems(rows) == [
        "p.tsv:1: expected '<id>\\t<label>', got '1' — the same problem at 7 more lines (2, 3, 4, 5, 6, … 8)"
    ]
    typos = [InputError(f"label {lab!r} is not a SemEval label", file="p.tsv", line=n, field="label")
             for n, lab in ((2, "Cause-Efect"), (5, "Othr"))]  # fmt: skip
    assert grouped_problems(typos) == [str(e) for e in typos]  # two different typos: each shown
    same = [InputError("label 'Other ' has trailing white space", file="p.tsv", line=n, field="label") for n in (3, 9)]
    assert grouped_problems([*same, rows[0]]) == [
        "p.tsv:3: field 'label': label 'Other ' has trailing white space — the same problem at 1 more line (9)",
        "p.tsv:1: expected '<id>\\t<label>', got '1'",
    ]
    other_file = [InputError("empty line", file=f, line=1) for f in ("a.tsv", "b.tsv")]
    assert grouped_problems(other_file) == ["a.tsv:1: empty line", "b.tsv:1: empty line"]
    records = [InputError("expected an integer", file="f.json", record=r) for r in (1, 2)]
    assert grouped_problems(records) == [
        "f.json: record 1: expected an integer — the same problem at 1 more record (2)"
    ]


def test_the_message_says_when_the_reader_stopped() -> None:
    """At MAX_ERRORS problems a reader stops reading the file: the one line says so; fewer, it does not."""
    many = [InputError("empty line", file="p.tsv", line=n) for n in range(1, MAX_ERRORS + 1)]
    assert str(InputErrors(many)) == (
        f"p.tsv:1: empty line — the same problem at {MAX_ERRORS - 1} more lines (2, 3, 4, 5, 6, … {MAX_ERRORS}) "
        f"(a reader lists at most {MAX_ERRORS} problems per file)"
    )
    assert str(InputErrors(many[:3])) == "p.tsv:1: empty line — the same problem at 2 more lines (2, 3)"
    mixed = InputErrors([many[0], InputError("id 7 repeated (first on line 2)", file="p.tsv", line=4)])
    assert str(mixed).splitlines() == [
        "2 input problem(s):",
        "  p.tsv:1: empty line",
        "  p.tsv:4: id 7 repeated (first on line 2)",
    ]


# ------------------------------------------------------------------------------- white space named by its side


def _jsonl_label(folder: Path, pad: Callable[[str], str]) -> tuple[list[str], str]:
    rows = [ln.split("\t") for ln in (SEMEVAL / "onehaitao_cnn.txt").read_text().splitlines() if ln.strip()]
    pred = folder / "cnn.jsonl"
    pred.write_text("".join(json.dumps({"id": i, "label": pad(lab) if n == 3 else lab}) + "\n"
                            for n, (i, lab) in enumerate(rows)))  # fmt: skip
    return ["score", str(SEMEVAL / "test_key_directed.txt"), str(pred)], f"{pred}:4: field 'label': label "


def _ranked_relation(folder: Path, pad: Callable[[str], str]) -> tuple[list[str], str]:
    records = [json.loads(ln) for ln in (EXAMPLES / "ranked" / "pcnn.jsonl").open()]
    pred = folder / "padded.jsonl"
    pred.write_text("".join(json.dumps({**r, "relation": pad(r["relation"])}) + "\n" for r in records))
    argv = ["score", "--task", "ranked", str(EXAMPLES / "ranked" / "gold.jsonl"), str(pred)]
    return argv, f"{pred}:1: field 'relation': "


def _drugprot_type(folder: Path, pad: Callable[[str], str]) -> tuple[list[str], str]:
    toy = EXAMPLES / "drugprot" / "toy-data" / "pred_relations.tsv"
    rows = [ln.split("\t") for ln in toy.read_text().splitlines() if ln.strip()]
    pred = folder / "padded.tsv"
    pred.write_text("".join("\t".join([r[0], pad(r[1]), *r[2:]]) + "\n" for r in rows))
    argv = ["score", "--task", "drugprot", str(EXAMPLES / "drugprot" / "gs-data"), str(pred)]
    return argv, f"{pred}:1: field 'type': relation type "


def _docred_relation(folder: Path, pad: Callable[[str], str]) -> tuple[list[str], str]:
    preds = json.loads(gzip.decompress((EXAMPLES / "docred" / "system_a.json.gz").read_bytes()))
    pred = folder / "padded.json"
    pred.write_text(json.dumps([{**p, "r": pad(p["r"])} for p in preds]))
    argv = ["score", "--task", "docred", str(EXAMPLES / "docred" / "redocred_dev_first40.json.gz"), str(pred)]
    return argv, f"{pred}: field 'relation id': "


@pytest.mark.parametrize("make", [_jsonl_label, _ranked_relation, _drugprot_type, _docred_relation])
@pytest.mark.parametrize(
    ("pad", "side"),
    [(lambda s: s + " ", "trailing"), (lambda s: "\u00a0" + s, "leading"), (lambda s: f" {s}\u00a0", "surrounding")],
)
def test_white_space_is_named_by_its_side(
    make: Callable[..., tuple[list[str], str]],
    pad: Callable[[str], str],
    side: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 34 item 5: `'Other '` has *trailing* white space (not "surrounding"), in every family's reader."""
    argv, where = make(tmp_path, pad)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {where}") and f" {side} white space" in err, err
    others = {"trailing", "leading", "surrounding"} - {side}
    assert not any(f"{o} white space" in err for o in others), err
