"""Hostile inputs of the newer task families (issue 34): ranked facts, DocRED, FewRel and DrugProt.

Each case is a small damaged copy of a bundled example, written into tmp_path. It is run through every command
that reads its task (`releval.commands.inputs.READERS` filtered by the reader's `tasks`, plus `score`, which reads
every task, and `plot episodes` for FewRel), and every one must refuse it the same way: exit 2 (`audit run`: an
ERROR finding, exit 1), nothing on standard output, one `error:` line naming the file and the true place of the
problem — never "internal error" (exit 3), never a score.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.conftest import EXAMPLES

from releval import cli
from releval.commands.inputs import READERS

cli.register_commands([])

RANKED_GOLD = EXAMPLES / "ranked" / "gold.jsonl"
RANKED_PRED = EXAMPLES / "ranked" / "pcnn.jsonl"
DOCRED_GOLD = EXAMPLES / "docred" / "redocred_dev_first40.json.gz"
DOCRED_PRED = EXAMPLES / "docred" / "system_a.json.gz"
FEWREL = EXAMPLES / "fewrel"
DRUGPROT = EXAMPLES / "drugprot"


@dataclass(frozen=True)
class Files:
    gold: Path
    pred: Path
    bad: Path  # the damaged file, the one the error must name


@dataclass(frozen=True)
class Hostile:
    """One damaged input: its task, which side is damaged, how to write it, and the place the error must name
    (a regular expression matched against the error line after the file name)."""

    name: str
    task: str
    side: str
    make: Callable[[Path], Files]
    where: str
    phrase: str


def _pred_lines() -> list[bytes]:
    return RANKED_PRED.read_bytes().splitlines(keepends=True)


def _ranked(tmp: Path, data: bytes) -> Files:
    bad = tmp / "pred.jsonl"
    bad.write_bytes(data)
    return Files(RANKED_GOLD, bad, bad)


def lone_cr(tmp: Path) -> Files:
    lines = _pred_lines()
    return _ranked(tmp, b"".join(lines[:4]) + lines[4].rstrip(b"\n") + b"\r" + b"".join(lines[5:]))


def record_over_lines(tmp: Path) -> Files:
    lines = _pred_lines()
    lines[6] = lines[6].replace(b'", "t"', b'",\n "t"', 1)
    return _ranked(tmp, b"".join(lines))


def ranked_utf8(tmp: Path) -> Files:
    lines = _pred_lines()
    lines[176] = lines[176].replace(b'"relation": "', b'"relation": "\xff', 1)
    return _ranked(tmp, b"".join(lines))


def ranked_deep(tmp: Path) -> Files:
    lines = _pred_lines()
    lines[11] = lines[11].replace(b"}\n", b', "extra": ' + b"[" * 5000 + b"]" * 5000 + b"}\n")
    return _ranked(tmp, b"".join(lines))


def ranked_key_twice_crash(tmp: Path) -> Files:
    lines = _pred_lines()
    lines[8] = lines[8].replace(b"{", b'{"h": 5, ', 1)  # the first value is bad, the last one fine
    return _ranked(tmp, b"".join(lines))


def ranked_key_twice_silent(tmp: Path) -> Files:
    lines = _pred_lines()
    lines[9] = lines[9].replace(b'"score": ', b'"score": 0.999, "score": ', 1)  # both values valid scores
    return _ranked(tmp, b"".join(lines))


def _docred_docs() -> list[dict]:
    docs: list[dict] = json.loads(gzip.decompress(DOCRED_GOLD.read_bytes()))
    return docs[:5]


def _docred_gold(tmp: Path, data: bytes) -> Files:
    gold = tmp / "gold.json"
    gold.write_bytes(data)
    titles = {d["title"] for d in _docred_docs()}
    preds = [p for p in json.loads(gzip.decompress(DOCRED_PRED.read_bytes())) if p["title"] in titles]
    pred = tmp / "pred.json"
    pred.write_text(json.dumps(preds), encoding="utf-8")
    return Files(gold, pred, gold)


def docred_utf8(tmp: Path) -> Files:
    raw = json.dumps(_docred_docs(), indent=1).encode()
    at = raw.index(b'"name": "', raw.index(b'"vertexSet"')) + 9
    line = raw.count(b"\n", 0, at) + 1
    (tmp / "line").write_text(str(line))
    return _docred_gold(tmp, raw[:at] + b"\xc3\x28" + raw[at:])


def docred_utf8_token(tmp: Path) -> Files:
    """Invalid UTF-8 in a sentence's token: `sents` is read without decoding its strings (only their number
    counts), so the file's UTF-8 is checked on its own before."""
    raw = json.dumps(_docred_docs(), indent=1).encode()
    at = raw.index(b'"', raw.index(b"[", raw.index(b'"sents"')) + 1) + 1
    line = raw.count(b"\n", 0, at) + 1
    (tmp / "line").write_text(str(line))
    return _docred_gold(tmp, raw[:at] + b"\xff" + raw[at:])


def docred_sent_id(value: int) -> Callable[[Path], Files]:
    def make(tmp: Path) -> Files:
        docs = _docred_docs()
        docs[1]["vertexSet"][2][0]["sent_id"] = value
        return _docred_gold(tmp, json.dumps(docs).encode())

    return make


def docred_deep_prediction(tmp: Path) -> Files:
    files = _docred_gold(tmp, json.dumps(_docred_docs()).encode())
    files.pred.write_bytes(b"[" * 5000 + b"]" * 5000)
    return Files(files.gold, files.pred, files.pred)


def fewrel_huge_answer(tmp: Path) -> Files:
    shutil.copy(FEWREL / "input-5-1.json.gz", tmp / "input-5-1.json.gz")
    answers = json.loads((FEWREL / "answers-5-1.json").read_text())
    answers[3] = 10**20
    (tmp / "answers.json").write_text(json.dumps(answers))
    gold = tmp / "official.json"
    gold.write_text(json.dumps({"episodes": "input-5-1.json.gz", "answers": "answers.json"}))
    return Files(gold, FEWREL / "pred-bow-5-1.json", tmp / "answers.json")


def _drugprot(tmp: Path, which: str, edit: Callable[[list[bytes]], None]) -> Files:
    gold = tmp / "gs-data"
    shutil.copytree(DRUGPROT / "gs-data", gold)
    path = gold / which
    lines = path.read_bytes().split(b"\n")
    edit(lines)
    path.write_bytes(b"\n".join(lines))
    return Files(gold, DRUGPROT / "toy-data" / "pred_relations.tsv", path)


def drugprot_long_offset(tmp: Path) -> Files:
    def edit(lines: list[bytes]) -> None:
        cells = lines[1].split(b"\t")
        cells[3], cells[4] = b"1" * 5000, b"2" * 5000
        lines[1] = b"\t".join(cells)

    return _drugprot(tmp, "gs_entities.tsv", edit)


def drugprot_padded_type(tmp: Path) -> Files:
    def edit(lines: list[bytes]) -> None:
        cells = lines[2].split(b"\t")
        cells[1] = cells[1] + "\u00a0".encode()
        lines[2] = b"\t".join(cells)

    return _drugprot(tmp, "gs_relations.tsv", edit)


def drugprot_padded_id(tmp: Path) -> Files:
    def edit(lines: list[bytes]) -> None:
        cells = lines[4].split(b"\t")
        cells[1] = b" " + cells[1]
        lines[4] = b"\t".join(cells)

    return _drugprot(tmp, "gs_entities.tsv", edit)


CR = "a carriage return (CR) not followed by a line feed"
TWICE = "key written twice in one"
CASES = [
    Hostile("ranked lone CR between records", "ranked", "pred", lone_cr, r":5:", CR),
    Hostile("ranked record over two lines", "ranked", "pred", record_over_lines, r":7:", "a JSON lines record"),
    Hostile("ranked invalid UTF-8 on line 177", "ranked", "pred", ranked_utf8, r":177:", "not valid UTF-8"),
    Hostile("ranked nesting 5,000 deep", "ranked", "pred", ranked_deep, r":12:", "1,024 levels"),
    Hostile("ranked key twice (crashed)", "ranked", "pred", ranked_key_twice_crash, r":9: field 'h'", TWICE),
    Hostile("ranked key twice (silent)", "ranked", "pred", ranked_key_twice_silent, r":10: field 'score'", TWICE),
    Hostile("DocRED invalid UTF-8", "docred", "gold", docred_utf8, "LINE", "not valid UTF-8"),
    Hostile("DocRED invalid UTF-8 in a token", "docred", "gold", docred_utf8_token, "LINE", "not valid UTF-8"),
    Hostile("DocRED sent_id 10^20", "docred", "gold", docred_sent_id(10**20), r"record 2: field 'vertexSet\[2\]", ""),
    Hostile(
        "DocRED sent_id past the document",
        "docred",
        "gold",
        docred_sent_id(999),
        r"record 2: field 'vertexSet\[2\]\[0\]\.sent_id'",
        "is in sentence 999",
    ),
    Hostile("DocRED prediction nesting", "docred", "pred", docred_deep_prediction, r":1:", "1,024 levels"),
    Hostile("FewRel answer 10^20", "fewrel", "gold", fewrel_huge_answer, r"record 4", "100000000000000000000"),
    Hostile("DrugProt 5,000-digit offset", "drugprot", "gold", drugprot_long_offset, r":2: field 'start'", "span"),
    Hostile(
        "DrugProt NBSP after a type",
        "drugprot",
        "gold",
        drugprot_padded_type,
        r":3: field 'type'",
        "trailing white space",
    ),
    Hostile("DrugProt space before an id", "drugprot", "gold", drugprot_padded_id, r":5: field 'id'", "leading white"),
]


def _commands(case: Hostile) -> list[str]:
    words = [w for w, r in READERS.items() if case.task in r.tasks and (r.sides == "both" or case.side == "gold")]
    extra = ["score"] + (["plot episodes"] if case.task == "fewrel" else [])
    return sorted(set(words) | set(extra))


GOOD_PRED = {"ranked": RANKED_PRED, "docred": DOCRED_PRED}


def _argv(words: str, files: Files, out: Path, task: str) -> list[str]:
    """The command's words with the case's files; a second system (compare, replicability) is the intact example,
    so that the one damaged file gives the one error."""
    if words in READERS:
        return READERS[words].argv(str(files.gold), str(files.pred), str(GOOD_PRED.get(task, files.pred)), str(out))
    if words == "plot episodes":
        return ["plot", "episodes", str(files.gold), str(files.pred), "-o", str(out)]
    return [*words.split(), str(files.gold), str(files.pred)]


PAIRS = [(case, words) for case in CASES for words in _commands(case)]


@pytest.mark.parametrize(("case", "words"), PAIRS, ids=[f"{c.name} | {w}" for c, w in PAIRS])
def test_every_command_refuses_with_one_located_line(
    case: Hostile, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = case.make(tmp_path)
    out = tmp_path / "out.png"
    task = [] if words == "plot episodes" else ["--task", case.task]
    # the bundled ranked systems repeat some predictions: say how to count them, as their users must
    options = ["--duplicates", "count"] if case.task == "ranked" else []
    code = cli.main([*_argv(words, files, out, case.task), *task, *options])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err + captured.out
    where = case.where
    if where == "LINE":
        where = f":{(tmp_path / 'line').read_text()}:"
    if words == "audit run":
        assert code == 1, captured.out + captured.err
        found = [line for line in captured.out.splitlines() if "ERROR" in line and str(files.bad) in line]
        assert len(found) == 1, captured.out
        assert re.search(re.escape(str(files.bad)) + ".*" + where, found[0]) and case.phrase in found[0], found[0]
        return
    assert code == 2, captured.out + captured.err
    assert captured.out == "" and not out.exists()
    errors = [line for line in captured.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, captured.err
    assert re.match(r"error: (dataset 'x': )?" + re.escape(str(files.bad)) + f"(: )?{where}", errors[0]), errors[0]
    assert case.phrase in errors[0], errors[0]


def test_the_cases_cover_every_family_and_command() -> None:
    """Each family has a case, and each case runs through at least `score` (else it would run nowhere)."""
    assert {c.task for c in CASES} == {"ranked", "docred", "fewrel", "drugprot"}
    assert all("score" in _commands(c) for c in CASES)
    assert {w for _, w in PAIRS} >= {"score", "compare", "replicability from-predictions", "stats", "audit run"}


def test_a_header_naming_20000_columns_twice_is_refused_in_linear_time(tmp_path: Path) -> None:
    """`check-stats --table` counted each header name with list.count: 40,000 columns took 38–67 s before the
    refusal. Now one count; the message names the first ten and the number."""
    import time

    from releval.core.errors import InputError
    from releval.data.claim_tables import load_check_table

    columns = ["name", "a", "b"] + [f"c{i % 20_000}" for i in range(40_000)]
    table = tmp_path / "wide.csv"
    table.write_text(",".join(columns) + "\n" + ",".join(["1"] * len(columns)) + "\n", encoding="utf-8")
    start = time.process_time()
    with pytest.raises(InputError) as info:
        load_check_table(table)
    assert time.process_time() - start < 5
    assert info.value.line == 1
    assert info.value.message == (
        "header names column(s) c0, c1, c10, c100, c1000, c10000, c10001, c10002, c10003, c10004, … (20,000 in all) "
        "more than once"
    )


def test_a_relation_id_written_twice_in_relation_names_is_refused(tmp_path: Path) -> None:
    """`--relation-names` read `{"P1": "a", "P1": "c"}` as P1 → c without a word; every key is read, so a repeat is
    refused naming it (the bundled rel_info.json is read as before: 96 names)."""
    from releval.core.errors import InputError
    from releval.data.docred import load_relation_names

    names = tmp_path / "rel_info.json"
    names.write_text('{"P1": "a", "P2": "b", "P1": "c"}', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_relation_names(names)
    assert (info.value.field, info.value.message) == (
        "P1",
        "relation names: an id written twice (a JSON parser keeps only the last name)",
    )
    assert len(load_relation_names("docred")) == 96
