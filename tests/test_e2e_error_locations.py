"""One reader per end-to-end format: every command that reads a SpERT or PURE/DyGIE++ file reports a bad byte, or a
JSON lines record broken over two lines, at the same place with the same reason (issue 27).

The expected messages are built here from how each file was made (the line, column and offset where the byte was
put, the line where the record was broken), not from releval's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import CONLL04_ALL_SPLITS

from releval.cli import main
from releval.core.errors import InputError, InputErrors

SENTENCE = {
    "tokens": ["John", "works", "for", "Acme", "."],
    "entities": [{"type": "Peop", "start": 0, "end": 1}, {"type": "Org", "start": 3, "end": 4}],
    "relations": [{"type": "Work_For", "head": 0, "tail": 1}],
}
DOCUMENT = {
    "sentences": [["John", "works", "for", "Acme", "."]],
    "ner": [[[0, 0, "Peop"], [3, 3, "Org"]]],
    "relations": [[[0, 0, 3, 3, "Work_For"]]],
}


def _bad_byte(lines: list[bytes], index: int, path: Path) -> str:
    """Put 0xFE inside the token "Acme" of line `index` (0-based); the message expected for it."""
    line = lines[index]
    column = line.index(b'"Acme"') + 4  # after `"Ac`: the characters before it (all ASCII here), plus 1
    lines[index] = line.replace(b'"Acme"', b'"Ac\xfeme"', 1)
    offset = sum(len(x) + 1 for x in lines[:index]) + column - 1
    path.write_bytes(b"\n".join(lines))
    return f"{path}:{index + 1}: not valid UTF-8: byte 0xFE at column {column} (offset {offset}): invalid start byte"


def spert_pretty(tmp: Path) -> tuple[Path, Path, str]:
    """A pretty-printed SpERT file (one key per line) with the bad byte in its third sentence."""
    good = [{**SENTENCE, "orig_id": k} for k in range(3)]
    text = json.dumps(good, indent=1).encode()
    lines = text.split(b"\n")
    index = [k for k, line in enumerate(lines) if b'"Acme"' in line][2]
    assert index > 30
    (tmp / "gold.json").write_bytes(text)
    return tmp / "gold.json", tmp / "pred.json", _bad_byte(lines, index, tmp / "pred.json")


def spert_conll04(tmp: Path) -> tuple[Path, Path, str]:
    """The CoNLL04 test split, pretty-printed, with the bad byte past the first 64 KiB (format detection reads
    only those: the loader has to find it)."""
    test = json.loads(CONLL04_ALL_SPLITS.read_text(encoding="utf-8"))["test"]
    test.append({**SENTENCE, "orig_id": "bad"})
    text = json.dumps(test, indent=1).encode()
    lines = text.split(b"\n")
    index = max(k for k, line in enumerate(lines) if b'"Acme"' in line)
    assert sum(len(x) + 1 for x in lines[:index]) > 1 << 16
    (tmp / "gold.json").write_bytes(text)
    return tmp / "gold.json", tmp / "pred.json", _bad_byte(lines, index, tmp / "pred.json")


def dygie_bad_byte(tmp: Path) -> tuple[Path, Path, str]:
    """JSON lines, the bad byte on the second of three lines."""
    lines = [json.dumps({"doc_key": f"d{k}", **DOCUMENT}).encode() for k in range(3)] + [b""]
    (tmp / "gold.jsonl").write_bytes(b"\n".join(lines))
    return tmp / "gold.jsonl", tmp / "pred.jsonl", _bad_byte(lines, 1, tmp / "pred.jsonl")


def dygie_split(tmp: Path) -> tuple[Path, Path, str]:
    """JSON lines whose first record is broken over lines 1-2 (a newline written after its `sentences`)."""
    lines = [json.dumps({"doc_key": f"d{k}", **DOCUMENT}).encode() for k in range(3)] + [b""]
    (tmp / "gold.jsonl").write_bytes(b"\n".join(lines))
    cut = lines[0].index(b', "ner"') + 1
    first, rest = lines[0][:cut], lines[0][cut:]
    (tmp / "pred.jsonl").write_bytes(b"\n".join([first, rest, *lines[1:]]))
    # orjson's column is the character after the last it read: the line's end
    expected = (
        f"{tmp / 'pred.jsonl'}:1: invalid JSON: unexpected end of data (column {len(first) + 1}): the line ends "
        "inside the record (a JSON lines record is one line)"
    )
    return tmp / "gold.jsonl", tmp / "pred.jsonl", expected


FILES = {"spert-pretty": spert_pretty, "spert-conll04": spert_conll04, "dygie-utf8": dygie_bad_byte}
FILES["dygie-split"] = dygie_split


def _argv(command: str, gold: Path, bad: Path) -> list[str]:
    return {
        "stats": ["stats", str(bad)],
        "score": ["score", "--task", "e2e", str(gold), str(bad)],
        "score-gold": ["score", "--task", "e2e", str(bad), str(gold)],
        "compare": ["compare", "--task", "e2e", str(gold), "-s", f"a={gold}", "-s", f"b={bad}"],
        "audit": ["audit", str(gold), str(bad)],
    }[command]


@pytest.mark.parametrize("command", ["stats", "score", "score-gold", "compare", "audit"])
@pytest.mark.parametrize("case", list(FILES))
def test_every_command_locates_the_error_alike(tmp_path: Path, capsys, case: str, command: str) -> None:
    gold, bad, expected = FILES[case](tmp_path)
    assert main(["stats", str(gold)]) == 0  # the file it was made from is fine
    capsys.readouterr()
    rc = main(_argv(command, gold, bad))
    captured = capsys.readouterr()
    if command == "audit":  # the audit reports an unreadable file as an error finding (exit 1, docs/audit.md)
        assert rc == 1
        assert f"e.g. {expected}\n" in captured.out
    else:
        assert rc == 2
        assert captured.err.splitlines()[0] in (f"error: {expected}", "error: 2 input problem(s):")
        assert expected in captured.err.splitlines()[:2][-1]


@pytest.mark.parametrize("case", list(FILES))
def test_a_board_upload_locates_the_error_alike(tmp_path: Path, case: str) -> None:
    """The board reads an uploaded end-to-end file (gold or run) through the same reader; it names the file by its
    base name (the upload's name, never a server path)."""
    pytest.importorskip("django")
    from releval.service.board_tasks import E2ETask

    _, bad, expected = FILES[case](tmp_path)
    with pytest.raises((InputError, InputErrors)) as info:
        E2ETask()._read(bad.read_bytes(), bad.name, "pred")
    first = info.value.errors[0] if isinstance(info.value, InputErrors) else info.value
    assert str(first) == expected.replace(str(bad), bad.name)
