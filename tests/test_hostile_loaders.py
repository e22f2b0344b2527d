"""Hostile input to the loaders (issue 11): one test per class of bad input that used to give a silently wrong
result, a traceback or an error at the wrong place. Each test asserts the exact value read or the error's
location (file, line or record, field) and message; fixtures are written into tmp_path."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import pytest

import releval
from releval.audit.comparability import load_results
from releval.audit.loading import load_tolerant
from releval.cli import main
from releval.core.errors import InputError, InputErrors
from releval.data.claim_tables import load_check_table
from releval.data.e2e import load_e2e, load_types
from releval.data.labels import FORMATS, load_labels
from releval.data.pvalues import load_pvalues

BIG = 2**64  # 18446744073709551616: orjson reads it, and everything above, as a float


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def one_error(excinfo: pytest.ExceptionInfo) -> InputError:
    """The single InputError raised (an InputErrors with one member counts too)."""
    exc = excinfo.value
    if isinstance(exc, InputErrors):
        assert len(exc.errors) == 1, str(exc)
        return exc.errors[0]
    return exc


GOLD5 = [{"id": str(i), "label": lbl} for i, lbl in enumerate(["per:title", "no_relation", "per:title", "org:x", "a"])]


# ----------------------------------------------------------------------------------------------- silently wrong


def test_two_jsonl_records_on_one_line_are_refused_at_that_line(tmp_path: Path) -> None:
    """The old reader joined lines into one array, so `{…},{…}` on one line was two records: a prediction went
    missing from its line and F1 came out 1.00 instead of 0.80."""
    lines = jsonl(GOLD5).splitlines()
    for joiner in (",", "", " "):
        pred = write(tmp_path, "pred.jsonl", lines[0] + joiner + lines[1] + "\n" + "\n".join(lines[2:]) + "\n")
        with pytest.raises((InputError, InputErrors)) as info:
            load_labels(pred)
        err = one_error(info)
        assert (err.file, err.line) == (str(pred), 1)
        assert "a JSON lines file holds one record per line" in err.message
    gold = write(tmp_path, "gold.jsonl", jsonl(GOLD5))
    assert main(["score", str(gold), str(pred), "--on-missing", "wrong"]) == 2


def test_a_jsonl_record_split_over_two_lines_is_refused(tmp_path: Path) -> None:
    """Joining lines with commas put a comma inside a string: `per:ti` + `tle` became the label `per:ti,tle`."""
    text = jsonl(GOLD5).replace('"per:title"}', '"per:ti\ntle"}', 1)
    with pytest.raises(InputErrors) as info:
        load_labels(write(tmp_path, "p.jsonl", text))
    first, second = info.value.errors
    assert (first.line, second.line) == (1, 2)
    assert "the line ends inside the record (a JSON lines record is one line)" in first.message
    # split between two tokens (valid JSON whitespace), which the joined array accepted without a trace
    text = jsonl(GOLD5).replace('"0", "label"', '"0",\n "label"', 1)
    with pytest.raises(InputErrors) as info:
        load_labels(write(tmp_path, "q.jsonl", text))
    assert [e.line for e in info.value.errors] == [1, 2]
    # a split record and two records on one line: as many values as lines, still refused
    lines = jsonl(GOLD5).splitlines()
    text = lines[0] + lines[1] + "\n" + lines[2].replace(', "label"', ',\n"label"') + "\n" + "\n".join(lines[3:])
    with pytest.raises(InputErrors) as info:
        load_labels(write(tmp_path, "r.jsonl", text))
    assert [e.line for e in info.value.errors] == [1, 2, 3]


@pytest.mark.parametrize("careful", [False, True], ids=["fast-path", "line-by-line"])
def test_integer_ids_beyond_64_bits_are_read_exactly(tmp_path: Path, careful: bool) -> None:
    """2^64 and 2^64 + 1 used to become the same float string, so a prediction was paired with another item."""
    records = [{"id": BIG, "label": "a"}, {"id": BIG + 1, "label": "b"}, {"id": 7, "label": "c"}]
    if careful:  # an extra key in the first record only: the typed fast path declines, the careful one reads it
        records[0]["x"] = [1]
    loaded = load_labels(write(tmp_path, "g.jsonl", jsonl(records)))
    assert loaded.ids == ["18446744073709551616", "18446744073709551617", "7"]
    tacred = write(tmp_path, "g.json", json.dumps([{"id": BIG + 1, "relation": "a"}, {"id": BIG, "relation": "b"}]))
    assert load_labels(tacred).ids == ["18446744073709551617", "18446744073709551616"]


@pytest.mark.parametrize(
    ("value", "shown"), [("1.5", "the number 1.5"), ("true", "true"), ("null", "null"), ("[1]", "a list")]
)
def test_ids_other_than_strings_and_integers_are_refused_at_their_line(tmp_path: Path, value: str, shown: str) -> None:
    text = '{"id": "a", "label": "x"}\n{"id": ' + value + ', "label": "y"}\n'
    with pytest.raises((InputError, InputErrors)) as info:
        load_labels(write(tmp_path, "p.jsonl", text))
    err = one_error(info)
    assert (err.line, err.field, err.message) == (2, "id", f"id must be a string or an integer, got {shown}")


def test_bomless_utf16_and_nul_bytes_are_refused_with_their_line(tmp_path: Path) -> None:
    """A UTF-16 file without a byte-order mark used to load with NULs inside every id and label."""
    path = write(tmp_path, "p.tsv", "1\tOther\n2\tOther\n".encode("utf-16-le"))
    with pytest.raises(InputError) as info:
        load_labels(path)
    assert info.value.line == 1
    assert "looks like UTF-16 LE text without a byte-order mark; save the file as UTF-8" in info.value.message
    path = write(tmp_path, "q.jsonl", b'{"id": "1", "label": "a"}\n{"id": "2", "label": "b\x00"}\n')
    with pytest.raises(InputError) as info:
        load_labels(path)
    assert (info.value.line, info.value.message) == (2, "NUL byte: a text input holds none (a binary or damaged file?)")


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_with_a_byte_order_mark_are_decoded(tmp_path: Path, codec: str) -> None:
    """Decision: a byte-order mark makes the encoding certain, so such files are read (Windows tools write them)."""
    bom = {"utf-16": b"", "utf-16-be": b"\xfe\xff", "utf-32": b""}[codec]
    path = write(tmp_path, "k.tsv", bom + "1\tCause-Effect(e1,e2)\r\n2\tOther\r\n".encode(codec))
    loaded = load_labels(path)
    assert (loaded.format, loaded.ids, loaded.labels) == ("semeval-tsv", ["1", "2"], ["Cause-Effect(e1,e2)", "Other"])


def test_a_real_label_spelled_like_the_missing_placeholder_is_no_match_for_a_missing_prediction() -> None:
    """A gold label `<missing>` equalled the placeholder of `--on-missing wrong`: missing predictions scored as
    correct (accuracy 1.0 here). The placeholder is now a label neither side uses."""
    gold = {"1": "<missing>", "2": "a", "3": "<missing-2>"}
    result = releval.score(gold, {"2": "a", "3": "<missing-2>"}, on_missing="wrong", negative=None)
    assert result.accuracy == pytest.approx(2 / 3)
    assert result.averages["micro"].f == pytest.approx(2 / 3)
    placeholder = next(r for r in result.per_class if r.label == "<missing-3>")
    assert (placeholder.support, placeholder.fp) == (0, 1)


def test_audit_of_a_tsv_with_a_header_and_a_repeated_id_reads_the_header_as_a_header(tmp_path: Path) -> None:
    """`audit --id-field/--label-field` guessed the format without the field names, so the header became a record
    and every line number was off."""
    path = write(tmp_path, "p.tsv", "sid\trel\nx1\ta\nx2\tb\nx1\tc\n")
    loaded = load_tolerant(path, "pred", id_field="sid", label_field="rel")
    assert loaded.errors == []
    assert [(r.id, r.line, r.first_line) for r in loaded.repeats] == [("x1", 4, 2)]
    assert loaded.file is not None
    assert (loaded.file.ids, list(loaded.file.lines)) == (["x1", "x2"], [2, 3])


# ----------------------------------------------------------------------------------------------- tracebacks


def test_corrupt_gzip_is_an_input_error(tmp_path: Path) -> None:
    data = bytearray(gzip.compress(jsonl(GOLD5 * 50).encode()))
    data[40:60] = b"\xff" * 20  # a corrupt deflate stream: zlib.error, not OSError
    with pytest.raises(zlib.error):
        gzip.decompress(bytes(data))
    with pytest.raises(InputError) as info:
        load_labels(write(tmp_path, "p.jsonl.gz", bytes(data)))
    assert info.value.message.startswith("corrupt gzip data")


@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_a_lone_cr_in_csv_or_tsv_is_located(tmp_path: Path, delimiter: str) -> None:
    text = f"id{delimiter}label\n1{delimiter}a\r2{delimiter}b\n"
    with pytest.raises(InputError) as info:
        load_labels(write(tmp_path, "p.csv", text), format="csv" if delimiter == "," else "tsv")
    assert info.value.line == 2 and "carriage return (CR) not followed by a line feed" in info.value.message
    quoted = f'id{delimiter}label\n"1"{delimiter}a\r\r\n'  # csv itself reads CR CR LF as one line end
    with pytest.raises(InputError) as info:
        load_labels(write(tmp_path, "q.csv", quoted), format="csv" if delimiter == "," else "tsv")
    assert info.value.line == 2


def test_fields_over_128_kib_are_read_in_every_table(tmp_path: Path) -> None:
    """csv's 128 KiB field limit raised csv.Error; the limit is raised deliberately, the field read whole."""
    long = "x" * 140_000
    loaded = load_labels(write(tmp_path, "p.csv", f'id,label,text\n1,a,"{long}"\n2,b,{long}\n'))
    assert (loaded.ids, loaded.labels) == (["1", "2"], ["a", "b"])
    table = load_pvalues(write(tmp_path, "p.tsv", f"dataset\tp\tnote\nd1\t0.01\t{long}\n"))
    assert table.datasets == ["d1"] and table.p.tolist() == [0.01]
    rows = load_check_table(write(tmp_path, "t.csv", f'name,a,b\n"{long}",72.5±0.3,71.5±0.4\n'))
    assert rows[0]["name"] == long and rows[0]["_line"] == "2"


def test_lone_cr_in_pvalue_and_check_tables_is_located(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_pvalues(write(tmp_path, "p.csv", "dataset,p\nd1,0.1\rd2,0.2\n"))
    assert info.value.line == 2 and "carriage return" in info.value.message
    with pytest.raises(InputError) as info:
        load_check_table(write(tmp_path, "t.csv", "name,a,b\nx,72.5±0.3,71.5±0.4\ry,1±1,2±1\n"))
    assert info.value.line == 2 and "carriage return" in info.value.message


DEEP = "[" * 1500 + "]" * 1500


def test_json_nested_1000_deep_is_one_located_error(tmp_path: Path) -> None:
    """RecursionError in the p-value, `audit compare` and `claims check` readers (json.loads)."""
    deep = '{"datasets": [{"dataset": "d", "p": 0.1}],\n "x": ' + DEEP + "}"
    for load in (load_pvalues, load_results, load_check_table):
        with pytest.raises(InputError) as info:
            load(write(tmp_path, "deep.json", deep))
        assert info.value.line == 2 and "nested more than 1,024 levels deep" in info.value.message, load
    assert main(["audit", "compare", str(tmp_path / "deep.json"), str(tmp_path / "deep.json")]) == 2
    assert main(["claims", "check", str(tmp_path / "deep.json")]) == 2


def test_bad_utf8_or_deep_nesting_on_a_later_jsonl_line_is_located(tmp_path: Path) -> None:
    """msgspec's UnicodeDecodeError and RecursionError escaped the fast path."""
    first = b'{"id": "1", "label": "a"}\n'
    for later, words in (
        (b'{"id": "2", "label": "\xff"}\n', "UTF-8"),
        (b'{"id": "2", "label": ' + DEEP.encode() + b"}\n", "levels deep"),
    ):
        with pytest.raises(InputError) as info:
            load_labels(write(tmp_path, "p.jsonl", first * 3 + later))
        assert info.value.line == 4 and words in info.value.message
    # invalid UTF-8 in a key the fast path does not read is refused too (msgspec skips such values unchecked)
    with pytest.raises(InputError) as info:
        load_labels(write(tmp_path, "q.jsonl", first + b'{"id": "2", "label": "b", "note": "\xff"}\n'))
    assert info.value.line == 2


def test_e2e_structure_is_checked_before_it_is_iterated(tmp_path: Path) -> None:
    """`"relations": 5` (SpERT) and `"ner": [5]` (DyGIE) raised TypeError."""
    spert = [{"tokens": ["a", "b"], "entities": [], "relations": 5}]
    with pytest.raises(InputError) as info:
        load_e2e(write(tmp_path, "s.json", json.dumps(spert)))
    assert (info.value.field, info.value.message) == ("relations", "record 1: expected a list, got the number 5")
    dygie = [
        {"doc_key": "d1", "sentences": [["a"]], "ner": [[]], "relations": [[]]},
        {"doc_key": "d2", "sentences": [["a"]], "ner": [5], "relations": [[]]},
    ]
    with pytest.raises(InputError) as info:
        load_e2e(write(tmp_path, "d.jsonl", jsonl(dygie)))
    assert (info.value.line, info.value.field) == (2, "ner")


def test_malformed_result_json_in_claims_check_is_an_input_error(tmp_path: Path) -> None:
    result = {"signature": "t:rc|neg:no_relation|avg:micro|n:3", "per_class": [{"label": "per:title"}]}
    for part, value in (("per_class", 5), ("per_class", [5]), ("averages", {"micro": 5}), ("averages", {"micro": {}})):
        path = write(tmp_path, "r.json", json.dumps({**result, part: value}))
        with pytest.raises(InputError) as info:
            load_results(path)
        assert info.value.field == part
        assert main(["claims", "check", str(path)]) == 2


def test_check_stats_claims_beyond_a_double_are_refused_at_their_row(tmp_path: Path) -> None:
    """`1e400` as a claimed p or d raised OverflowError."""
    path = write(
        tmp_path, "t.csv", "name,a,b,claimed_p,claimed_d\nx,72.5±0.3,71.5±0.4,0.01,0.5\ny,1±1,2±1,1e400,3·10^999\n"
    )
    with pytest.raises(InputErrors) as info:
        load_check_table(path)
    assert [(e.line, e.field) for e in info.value.errors] == [(3, "claimed_p"), (3, "claimed_d")]
    assert main(["check-stats", "--table", str(path)]) == 2
    records = write(tmp_path, "t.json", json.dumps([{"name": "x", "a": "1±1", "b": "2±1", "claimed_p": "1e400"}]))
    with pytest.raises(InputError) as info:
        load_check_table(records)
    assert (info.value.record, info.value.line, info.value.field) == (1, None, "claimed_p")


# ----------------------------------------------------------------------------------------------- wrong places


def test_tacred_errors_name_the_record_and_keep_the_label_intact(tmp_path: Path) -> None:
    """The word "line" was text-replaced by "record": the label ' pipeline' became ' piperecord', and the record
    number was lost."""
    path = write(tmp_path, "g.json", json.dumps([{"id": "1", "relation": "a"}, {"id": "2", "relation": " pipeline"}]))
    with pytest.raises(InputError) as info:
        load_labels(path)
    err = info.value
    assert (err.record, err.line, err.field) == (2, None, "relation")
    assert err.message == "label ' pipeline' has leading white space"
    assert str(err) == f"{path}: record 2: field 'relation': label ' pipeline' has leading white space"
    gold = write(tmp_path, "gold.json", json.dumps([{"id": "1", "relation": "a"}, {"id": "2", "relation": "b"}]))
    patch = write(tmp_path, "patch.json", json.dumps([{"id": "2", "relation": "c"}, {"id": "9", "relation": "d"}]))
    with pytest.raises(InputError) as info:
        releval.apply_patch(load_labels(gold), patch)
    assert (info.value.record, info.value.field) == (2, "id")


def test_a_syntax_error_in_a_pretty_printed_spert_file_is_reported_at_its_line(tmp_path: Path) -> None:
    good = '  {"tokens": ["a"], "entities": [], "relations": []},'
    path = write(tmp_path, "s.json", "[\n" + "\n".join([good] * 500) + '\n  {"tokens": [}\n]\n')
    with pytest.raises(InputError) as info:
        load_e2e(path)
    assert info.value.line == 502 and "column 15" in info.value.message


def test_one_tabless_line_in_a_semeval_answer_file_is_named(tmp_path: Path) -> None:
    """Detection wanted every line of the first 200 to hold a tab; one bad line made the file a headed TSV and the
    error blamed line 1 ("no label field found")."""
    lines = [f"{i}\tOther" for i in range(1, 100)]
    lines[49] = "50 Other"
    path = write(tmp_path, "answer.txt", "\n".join(lines) + "\n")
    with pytest.raises(InputError) as info:
        load_labels(path)
    assert (info.value.line, info.value.message) == (50, "expected '<numeric id>\\t<label>', got '50 Other'")
    lines[0], lines[49] = "1 Other", "50\tOther"
    with pytest.raises(InputError) as info:
        load_labels(write(tmp_path, "answer2.txt", "\n".join(lines) + "\n"))
    assert info.value.line == 1


def test_a_stray_quote_is_reported_where_it_opened_with_a_short_excerpt(tmp_path: Path) -> None:
    rest = "".join(f"{i},label_{i}\n" for i in range(3, 2000))
    path = write(tmp_path, "p.csv", 'id,label\n1,a\n2,"b\n' + rest)
    with pytest.raises(InputError) as info:
        load_labels(path)
    assert info.value.line == 3
    assert info.value.message == (
        'a quote (") opened in this record is never closed, so the rest of the file (to line 2000) would be one '
        "value: '2,\"b'"
    )
    closed_later = write(tmp_path, "q.csv", 'id,label\n1,a\n2,"b\n3,c\n4,d"\n5,e\n')
    with pytest.raises(InputError) as info:
        load_labels(closed_later)
    assert (info.value.line, info.value.field) == (3, "label")
    assert info.value.message.startswith("a quoted value runs from line 3 to line 5: 'b\\n3,c\\n4,d'")


def test_a_dygie_record_without_sentences_is_named_by_its_line(tmp_path: Path) -> None:
    docs = [{"doc_key": "d1", "sentences": [["a"]], "ner": [[]], "relations": [[]]}, {"doc_key": "d2"}]
    with pytest.raises(InputError) as info:
        load_e2e(write(tmp_path, "d.jsonl", jsonl(docs)))
    assert (info.value.line, info.value.field, info.value.message) == (2, "sentences", "missing")


# --------------------------------------------------------------------------------------- refusals and leniencies


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("fast.jsonl", '{"id": "1", "label": "a", "label": "b"}\n', ("line", 1, "label")),
        ("careful.jsonl", '{"id": "1", "label": "a"}\n\n{"id": "2", "id": "3", "label": "b"}\n', ("line", 3, "id")),
        ("escaped.jsonl", '{"id": "1", "label": "a", "l\\u0061bel": "b"}\n', ("line", 1, "label")),
        (
            "list.json",
            '[{"id": "1", "relation": "a"}, {"id": "2", "relation": "b", "relation": "c"}]',
            ("record", 2, "relation"),
        ),
    ],
)
def test_a_read_key_written_twice_in_one_record_is_refused(tmp_path: Path, name: str, text: str, where: tuple) -> None:
    """orjson and msgspec silently keep the last of two values of a key."""
    with pytest.raises((InputError, InputErrors)) as info:
        load_labels(write(tmp_path, name, text))
    errors = info.value.errors if isinstance(info.value, InputErrors) else [info.value]
    twice = [e for e in errors if "key written twice" in e.message]
    unit, number, fld = where
    assert [(getattr(e, unit), e.field) for e in twice] == [(number, fld)]


def test_an_unread_key_written_twice_is_accepted(tmp_path: Path) -> None:
    """Deliberate leniency: only the keys that are read are checked (they alone can change a score)."""
    loaded = load_labels(write(tmp_path, "p.jsonl", '{"id": "1", "label": "a", "note": 1, "note": 2}\n'))
    assert (loaded.ids, loaded.labels) == (["1"], ["a"])


def test_e2e_read_keys_written_twice_are_refused(tmp_path: Path) -> None:
    spert = '[{"tokens": ["a", "b"], "entities": [{"type": "P", "type": "O", "start": 0, "end": 1}]}]'
    with pytest.raises(InputError) as info:
        load_e2e(write(tmp_path, "s.json", spert))
    assert (info.value.field, info.value.message.split(":")[0]) == ("type", "record 1 entity 0")
    dygie = '{"doc_key": "d1", "sentences": [["a"]]}\n{"doc_key": "d2", "doc_key": "d3", "sentences": [["b"]]}\n'
    with pytest.raises(InputError) as info:
        load_e2e(write(tmp_path, "d.jsonl", dygie))
    assert (info.value.line, info.value.field) == (2, "doc_key")


@pytest.mark.parametrize(
    ("fmt", "text", "line", "message"),
    [
        ("jsonl", '{"id": "a", "label": "x"}\n{"id": "", "label": "y"}\n', 2, "empty id"),
        ("jsonl", '{"id": "a", "label": "x"}\n{"id": " b", "label": "y"}\n', 2, "id ' b' has leading white space"),
        ("id-tsv", "a\tx\nb \ty\n", 2, "id 'b ' has trailing white space"),
        ("csv", "id,label\na,x\n,y\n", 3, "empty id"),
        ("tsv", "id\tlabel\na\tx\nb\u0007\ty\n", 3, "id 'b\\x07' holds a control character"),
    ],
)
def test_empty_padded_or_control_character_ids_are_refused(
    tmp_path: Path, fmt: str, text: str, line: int, message: str
) -> None:
    with pytest.raises(InputError) as info:
        load_labels(write(tmp_path, "f.txt", text), format=fmt)
    assert (info.value.line, info.value.field, info.value.message) == (line, "id", message)


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_empty_file_is_refused_in_every_forced_format(tmp_path: Path, fmt: str) -> None:
    """labels-lines and semeval blocks returned zero items, which scored as an empty evaluation."""
    for content in ("", "\n\n", "\ufeff"):
        with pytest.raises(InputError) as info:
            load_labels(write(tmp_path, "empty.txt", content), format=fmt)
        assert info.value.message == "file is empty"


def test_deliberate_leniencies_bom_and_crlf_everywhere(tmp_path: Path) -> None:
    """A UTF-8 BOM is dropped in every format (TACRED JSON too) and CRLF line ends are read as LF."""
    bom = "\ufeff"
    tacred = write(tmp_path, "g.json", bom + json.dumps([{"id": "1", "relation": "a"}]))
    assert load_labels(tacred).labels == ["a"]
    for name, text in (
        ("p.jsonl", '{"id": "1", "label": "a"}\r\n{"id": "2", "label": "b"}\r\n'),
        ("p.tsv", "1\ta\r\n2\tb\r\n"),
        ("p.csv", 'id,label\r\n1,"a"\r\n2,b\r\n'),
    ):
        loaded = load_labels(write(tmp_path, name, bom + text))
        assert (loaded.ids, loaded.labels) == (["1", "2"], ["a", "b"]), name


def test_pvalue_tables_refuse_what_float_and_json_would_bend(tmp_path: Path) -> None:
    """float() read '1_0' and other scripts' digits; the {name: p} form silently kept the last of two names; a
    dataset name with a control character was kept; two columns for one field read the first silently."""
    with pytest.raises(InputError) as info:
        load_pvalues(write(tmp_path, "p.tsv", "dataset\tp\nd1\t٠.03\n"))
    assert (info.value.line, info.value.field) == (2, "p")
    with pytest.raises(InputError) as info:
        load_pvalues(write(tmp_path, "p.json", '{"d1": 0.1, "d2": 0.2, "d1": 0.3}'))
    assert "'d1' written twice" in info.value.message
    with pytest.raises(InputError) as info:
        load_pvalues(write(tmp_path, "q.json", '[{"dataset": "d1", "p": 0.1}, {"dataset": "d2", "p": 0.2, "p": 0.5}]'))
    assert "record 2" in info.value.message and info.value.field == "p"
    with pytest.raises(InputError) as info:
        load_pvalues(write(tmp_path, "r.csv", "dataset,p\nd\u00851,0.1\n"))
    assert (info.value.line, info.value.field) == (2, "dataset")
    with pytest.raises(InputError) as info:
        load_pvalues(write(tmp_path, "s.csv", "dataset,p,p_value\nd1,0.1,0.2\n"))
    assert (info.value.line, info.value.field) == (1, "p")
    assert load_pvalues(write(tmp_path, "t.json", '[{"dataset": 7, "p": 0.5}]')).datasets == ["7"]


def test_spert_types_file_refuses_repeated_and_empty_type_names(tmp_path: Path) -> None:
    repeated = '{"entities": {"Peop": {}}, "relations": {"Kill": {"symmetric": false}, "Kill": {"symmetric": true}}}'
    with pytest.raises(InputError, match="key 'Kill' written twice"):
        load_types(write(tmp_path, "t.json", repeated))
    with pytest.raises(InputError) as info:
        load_types(write(tmp_path, "u.json", '{"entities": {" ": {}}, "relations": {}}'))
    assert (info.value.field, info.value.message) == ("entities", "type name is empty")


def test_detection_falls_back_on_the_file_name_and_names_the_line(tmp_path: Path) -> None:
    """A JSON lines file whose lines are no objects, or a one-line .tsv without a tab, used to be called 'one label
    per line' without a location; the extension now picks the loader, which names the line."""
    with pytest.raises(InputError) as info:
        load_labels(write(tmp_path, "p.jsonl", "5\n6\n"))
    assert info.value.line == 1 and "expected a JSON object" in str(info.value)
    with pytest.raises(InputError) as info:
        load_labels(write(tmp_path, "p.tsv", "951a352\n"))
    assert info.value.line == 1
    with pytest.raises(InputError) as info:
        load_labels(write(tmp_path, "p.txt", "\n\nno_relation\n"))
    assert info.value.line == 3 and "looks like one label per line" in info.value.message


def test_a_huge_field_quoted_in_an_error_is_cut_to_a_readable_line(tmp_path: Path) -> None:
    """A repeated 200 KiB id: the error keeps its location, its start and its advice, and elides the middle."""
    big = "x" * 200_000
    path = tmp_path / "pred.tsv"
    path.write_text(f"{big}\tper:title\n2\tno_relation\n{big}\tno_relation\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_labels(path, format="id-tsv")
    text = str(info.value)
    assert (info.value.line, info.value.field) == (3, "id")
    assert text.startswith(f"{path}:3: field 'id': id xxx") and text.endswith("repeated (first on line 1)")
    assert "characters] …" in text and len(text) <= 1000 + len(f"{path}:3: field 'id': ")
