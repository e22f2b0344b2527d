"""The loaded form of a label file (issue 13: `releval score` on a 10^7-line pair within 1.5 GB).

Loaders hold ids as one UTF-8 buffer with offsets and hashes (`IdColumn`) and labels as codes into a vocabulary
(`LabelColumn`), read a block of lines at a time. Tested here: the bytes per item stay within a budget
(tracemalloc), a file read in many blocks is read exactly as in one (also every error), ids are matched exactly
even when every hash collides, and the columns behave as the lists they replace.
"""

from __future__ import annotations

import gc
import pickle
import random
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from tests.fuzz import oracle

from releval.core.errors import InputError, InputErrors
from releval.data import alignment
from releval.data.alignment import align
from releval.data.columns import IdColumn, LabelColumn, has_repeats, id_column, locate
from releval.data.formats import id_tsv, jsonl, tables
from releval.data.labels import LabelFile, apply_patch, load_labels

#: The module whose BLOCK_BYTES reads each kind of file.
MODULES = {".jsonl": jsonl, ".tsv": id_tsv, ".csv": tables}
LABELS = ["no_relation"] + [f"rel:{i:02d}" for i in range(41)]
N = 100_000


def _write(path: Path, ids: list[str], labels: list[str]) -> Path:
    """`path` written as JSON lines, `<id>\\t<label>` lines (.tsv) or a CSV table with a header (.csv)."""
    if path.suffix == ".tsv":
        path.write_text("".join(f"{i}\t{x}\n" for i, x in zip(ids, labels)), encoding="utf-8")
    elif path.suffix == ".csv":
        path.write_text("id,label\n" + "".join(f"{i},{x}\n" for i, x in zip(ids, labels)), encoding="utf-8")
    else:
        path.write_text("".join(f'{{"id": "{i}", "label": "{x}"}}\n' for i, x in zip(ids, labels)), encoding="utf-8")
    return path


def _pair(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    return [f"id{k}" for k in range(n)], [LABELS[0] if rng.random() < 0.8 else rng.choice(LABELS) for _ in range(n)]


# ----------------------------------------------------------------------------------------------- the byte budget

#: Bytes per item a loaded 10^5-line file may hold beyond its ids' characters: about 17 (an offset and a hash per
#: id, a one-byte label code); lists of str took 65 (a 49-byte str header per id, a pointer per id and per label).
HELD_PER_ITEM = 32
#: Bytes per item that reading may take at its peak beyond the file's bytes and the loaded columns: one block's
#: records and strings (BLOCK_BYTES set to 64 KiB here, as a 2 MiB block is to a large file): about 20 here; the
#: whole-file parse took 100 (JSON lines) and 150 (TSV).
PEAK_PER_ITEM = 40


@pytest.mark.parametrize("suffix", [".jsonl", ".tsv", ".csv"])
def test_a_loaded_file_stays_within_its_byte_budget(
    tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids, labels = _pair(N)
    path = _write(tmp_path / f"gold{suffix}", ids, labels)
    id_chars = sum(map(len, ids))
    for module in MODULES.values():
        monkeypatch.setattr(module, "BLOCK_BYTES", 1 << 16)
    load_labels(path)  # modules and caches loaded before measuring
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        loaded = load_labels(path)
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert loaded.ids == ids and loaded.labels == labels
    held -= before
    assert (held - id_chars) / N <= HELD_PER_ITEM, f"{held / N:.1f} bytes per item held"
    beyond = peak - before - path.stat().st_size - held
    assert beyond / N <= PEAK_PER_ITEM, f"{beyond / N:.1f} bytes per item at the peak beyond file and columns"


# ----------------------------------------------------------------------------------------------- blocks


def _read(path: Path, **options: object) -> tuple[str, object]:
    """('ok', (ids, labels, lines, fields)) or ('error', messages) of loading `path`."""
    try:
        f = load_labels(path, **options)  # type: ignore[arg-type]
    except InputErrors as exc:
        return "error", [str(e) for e in exc.errors]
    except InputError as exc:
        return "error", [str(exc)]
    fields = {k: list(v) for k, v in f.fields.items()}
    return "ok", (None if f.ids is None else list(f.ids), list(f.labels), list(f.lines), fields, f.format)


def _records(n: int, record: Callable[[int], str], end: str = "\n") -> str:
    return "".join(record(k) + end for k in range(n))


def _record(item_id: str, label: str = '"a"', more: str = "") -> str:
    """A JSON record from the JSON text of its id and label (and of more members)."""
    return '{"id": ' + item_id + ', "label": ' + label + more + "}"


def _plain(k: int, label: str = "a") -> str:
    return _record(f'"i{k}"', f'"{label}"')


JSONL_CASES = {
    "clean": _records(40, lambda k: _plain(k, LABELS[k % 5])),
    "integer ids in one block": _records(5, lambda k: _record(str(k))) + _records(30, _plain),
    "types": _records(30, lambda k: _record(f'"i{k}"', more=f', "subj_type": "T{k % 3}", "obj_type": "O"')),
    "repeated across blocks": _records(40, lambda k: _plain(k % 25)),
    "bad ids in two blocks": _records(40, lambda k: _record(f'"{" " if k in (3, 33) else ""}i{k}"')),
    "bad label late": _records(40, lambda k: _plain(k, "" if k == 38 else "a")),
    "control character": _records(30, lambda k: _record(f'"i{k}{chr(92) + "u0001" if k == 20 else ""}"')),
    "non-ascii": _records(30, lambda k: _record(f'"é{k}"', f'"ß{k % 2}"')),
    "invalid utf-8 late": _records(30, _plain) + _record('"x"', more=', "z": "\udcff"') + "\n",
    "no final line feed": _records(20, _plain).rstrip("\n"),
    "crlf": _records(20, _plain, "\r\n"),
    "blank line": _records(20, lambda k: _plain(k) + ("\n" if k == 12 else "")),
    "two records on a line": "".join(_plain(k) + (" " if k == 9 else "\n") for k in range(20)),
    "key twice late": _records(30, lambda k: _record(f'"i{k}"', more=', "label": "b"' if k == 27 else "")),
    "label not a string late": _records(30, lambda k: _record(f'"i{k}"', "1") if k == 29 else _plain(k)),
    "many labels": _records(600, lambda k: _plain(k, f"L{k}")),
}
TSV_CASES = {
    "clean": "".join(f"i{k}\t{LABELS[k % 7]}\n" for k in range(40)),
    "crlf": "".join(f"i{k}\ta\r\n" for k in range(40)),
    "lone cr late": "".join(f"i{k}\ta\n" for k in range(30)) + "x\ta\rb\n",
    "repeated across blocks": "".join(f"i{k % 30}\ta\n" for k in range(40)),
    "two tabs late": "".join(f"i{k}\ta\n" for k in range(30)) + "x\ta\tb\n",
    "blank line": "".join(f"i{k}\ta\n" + ("\n" if k == 17 else "") for k in range(30)),
    "trailing space in ids": "".join(f"i{k}{' ' if k % 11 == 0 else ''}\ta\n" for k in range(40)),
    "non-ascii": "".join(f"é{k}\tß\n" for k in range(40)),
    "invalid utf-8 late": None,  # written as bytes below
}


CSV_CASES = {
    "clean": "id,label,x\n" + "".join(f"i{k},{LABELS[k % 7]},{k}\n" for k in range(40)),
    "header only": "id,label\n",
    "no label column": "id,x\n" + "".join(f"i{k},a\n" for k in range(40)),
    "crlf": "id,label\r\n" + "".join(f"i{k},a\r\n" for k in range(40)),
    "quoted late": "id,label\n" + "".join(f"i{k},a\n" for k in range(40)) + '"i,x",b\n',
    "short row late": "id,label\n" + "".join(f"i{k},a\n" for k in range(40)) + "x\n",
    "repeated across blocks": "id,label\n" + "".join(f"i{k % 30},a\n" for k in range(40)),
    "bad label late": "id,label\n" + "".join(f"i{k},{'a ' if k == 37 else 'a'}\n" for k in range(40)),
    "bad header and bytes late": "x,y\n" + "".join(f"i{k},a\n" for k in range(40)) + "\udcff,a\n",
}
CASES = {".jsonl": JSONL_CASES, ".tsv": TSV_CASES, ".csv": CSV_CASES}


def _case_bytes(text: str | None) -> bytes:
    if text is None:
        return "".join(f"i{k}\ta\n" for k in range(30)).encode() + b"x\t\xff\n"
    return text.encode("utf-8", "surrogateescape")


@pytest.mark.parametrize(("suffix", "case"), [(suffix, c) for suffix, cases in CASES.items() for c in cases])
@pytest.mark.parametrize("role", ["gold", "pred"])
def test_a_file_read_in_many_blocks_reads_as_in_one(
    tmp_path: Path, suffix: str, case: str, role: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Items, line numbers and every error message are the same whatever the block size: one line per block, a
    few lines, or the whole file in one block."""
    path = tmp_path / f"{role}{suffix}"
    path.write_bytes(_case_bytes(CASES[suffix][case]))
    seen = []
    for size in (1 << 30, 1, 37, 200):
        monkeypatch.setattr(MODULES[suffix], "BLOCK_BYTES", size)
        seen.append(_read(path, role=role, check_unique=role == "gold"))
    assert seen[1:] == seen[:1] * 3


@pytest.mark.parametrize("suffix", [".jsonl", ".tsv", ".csv"])
def test_a_blocked_file_reads_as_the_whole_file_path(
    tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The block reader and the whole-file reader it falls back to give the same file (the latter is what every
    problem is named by)."""
    ids, labels = _pair(2000, seed=3)
    ids = [f"é{x}" if k % 7 == 0 else x for k, x in enumerate(ids)]
    path = _write(tmp_path / f"gold{suffix}", ids, labels)
    monkeypatch.setattr(MODULES[suffix], "BLOCK_BYTES", 1000)
    blocked = load_labels(path)
    monkeypatch.setattr(jsonl, "_block_jsonl", lambda *args: None)
    monkeypatch.setattr(id_tsv.IdTsv, "_by_block", lambda *args: None)
    monkeypatch.setattr(tables.Table, "_by_block", lambda *args: None)
    whole = load_labels(path)
    assert isinstance(blocked.ids, IdColumn) and isinstance(blocked.labels, LabelColumn)
    assert (blocked.ids, blocked.labels, list(blocked.lines)) == (whole.ids, whole.labels, list(whole.lines))
    assert blocked.ids == ids and blocked.labels == labels and blocked.digest == whole.digest


def test_the_loader_fuzzer_finds_nothing_with_tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutated inputs through every loader with blocks of a few bytes: every block boundary path is taken."""
    for module in MODULES.values():
        monkeypatch.setattr(module, "BLOCK_BYTES", 16)
    report = oracle.run(7, 1500, workers=1)
    assert report.count == 1500
    assert not report.new_classes(), report.summary()


# ----------------------------------------------------------------------------------------------- exact matching


def _colliding(ids: list[str], buckets: int) -> IdColumn:
    """The column of `ids` with hashes forced into `buckets` values: most ids share a hash with others."""
    plain = IdColumn.from_strings(ids)
    return IdColumn(plain.data, plain.offsets, plain.hashes % buckets)


def _dict_locate(keys: list[str], queries: list[str]) -> list[int]:
    index = {k: i for i, k in enumerate(keys)}
    return [index.get(q, -1) for q in queries]


@pytest.mark.parametrize("buckets", [1, 3, 1 << 62])
def test_locate_is_exact_whatever_the_hashes(buckets: int) -> None:
    rng = random.Random(buckets % 1000)
    keys = [f"k{rng.randrange(300)}" for _ in range(400)] + ["", "é", "a\x00b", "\ud800", "x" * 300]
    queries = [f"k{rng.randrange(400)}" for _ in range(500)] + ["", "é", "\ud800", "x" * 299, "x" * 300, "a"]
    got = locate(_colliding(keys, buckets), _colliding(queries, buckets))
    assert got.tolist() == _dict_locate(keys, queries)


@pytest.mark.parametrize("buckets", [1, 2, 1 << 62])
def test_repeats_are_found_exactly_whatever_the_hashes(buckets: int) -> None:
    ids = [f"i{k}" for k in range(200)]
    assert not has_repeats(_colliding(ids, buckets))
    assert has_repeats(_colliding([*ids, "i7"], buckets))


def _file(ids: list[str] | IdColumn, labels: list[str], name: str = "pred.jsonl") -> LabelFile:
    return LabelFile(name, "jsonl", ids, LabelColumn.from_strings(labels), range(1, len(labels) + 1))


@pytest.mark.parametrize("buckets", [1, 5])
@pytest.mark.parametrize("on_missing", ["error", "negative", "wrong"])
def test_alignment_with_colliding_hashes_is_the_alignment_of_lists(buckets: int, on_missing: str) -> None:
    rng = random.Random(buckets)
    gold_ids = [f"g{k}" for k in range(300)]
    gold_labels = [rng.choice(LABELS[:4]) for _ in gold_ids]
    pred_ids = gold_ids[:]
    rng.shuffle(pred_ids)
    cases = {
        "shuffled": pred_ids,
        "missing": pred_ids[:250],
        "unknown": [*pred_ids[:10], "zz", *pred_ids[10:], "zy"],
        "repeated": [*pred_ids, pred_ids[3], pred_ids[3], pred_ids[9]],
    }
    for name, ids in cases.items():
        labels = [rng.choice(LABELS[:5]) for _ in ids]
        outcomes = []
        for gold_col, pred_col in (
            (gold_ids, ids),
            (_colliding(gold_ids, buckets), _colliding(ids, buckets)),
        ):
            gold = _file(gold_col, gold_labels, "gold.jsonl")
            pred = _file(pred_col, labels)
            try:
                outcomes.append(align(gold, pred, on_missing=on_missing, negative="no_relation"))
            except InputErrors as exc:
                outcomes.append([str(e) for e in exc.errors])
            except InputError as exc:
                outcomes.append([str(exc)])
        assert outcomes[0] == outcomes[1], name


def test_alignment_messages_name_the_prediction_and_its_first_line() -> None:
    gold = _file([f"g{k}" for k in range(10)], ["a"] * 10, "gold.jsonl")
    pred = _file(["g1", "g0", "g1", "g2", "g0", *[f"g{k}" for k in range(3, 10)]], ["a"] * 12)
    with pytest.raises(InputErrors) as caught:
        align(gold, pred)
    assert [str(e) for e in caught.value.errors] == [
        "pred.jsonl:3: field 'id': id g1 repeated (first on line 1)",
        "pred.jsonl:5: field 'id': id g0 repeated (first on line 2)",
    ]
    unknown = _file([f"x{k}" for k in range(7)], ["a"] * 7)
    with pytest.raises(
        InputError,
        match=r"pred.jsonl:1: field 'id': 7 prediction id\(s\) not in gold gold.jsonl: "
        r"'x0', 'x1', 'x2', 'x3', 'x4', … \(2 more\)",
    ):
        align(gold, unknown)


def test_a_patch_is_applied_by_exact_id(tmp_path: Path) -> None:
    gold = _file([f"g{k}" for k in range(5)], ["a", "b", "a", "b", "a"], "gold.jsonl")
    patch = tmp_path / "patch.json"
    patch.write_text('[{"id": "g3", "relation": "c"}, {"id": "g0", "relation": "b"}]', encoding="utf-8")
    assert apply_patch(gold, patch).labels == ["b", "b", "a", "c", "a"]
    patch.write_text('[{"id": "g9", "relation": "c"}]', encoding="utf-8")
    with pytest.raises(InputError, match="1 patch id.s. not in gold gold.jsonl, e.g. 'g9'"):
        apply_patch(gold, patch)


def test_missing_placeholder_avoids_every_label_of_a_column() -> None:
    labels = LabelColumn.from_strings(["<missing>", "a", "<missing-2>"])
    assert alignment.missing_placeholder(labels, ["b"]) == "<missing-3>"


# ----------------------------------------------------------------------------------------------- the columns


def test_columns_behave_as_the_lists_they_hold() -> None:
    ids = ["a", "é", "\ud800x", "a b", "18446744073709551617"]
    column = IdColumn.from_strings(ids)
    assert column == ids and ids == column and column == tuple(ids) and column != ids[:-1]
    assert (len(column), column[1], column[-1], column[1:3], list(column)) == (5, "é", ids[-1], ids[1:3], ids)
    assert "a b" in column and column.index("é") == 1
    with pytest.raises(IndexError):
        column[5]
    assert column == IdColumn.from_strings(ids) and column != IdColumn.from_strings(ids[::-1])
    labels = LabelColumn.from_strings(["x", "y", "x"])
    assert labels == ["x", "y", "x"] and labels[-1] == "x" and labels[:2] == ["x", "y"] and labels.count("x") == 2
    assert repr(IdColumn.from_strings([str(k) for k in range(9)])) == "IdColumn(['0', '1', '2', '3', '4'], … (9 ids))"


def test_a_pickled_id_column_hashes_again() -> None:
    """Hashes are salted per process: a column carried to another process computes its own."""
    column = IdColumn.from_strings([f"i{k}" for k in range(100)])
    state = column.__getstate__()
    assert len(state) == 2 and all(not isinstance(x, np.ndarray) or x.size == 101 for x in state)
    again = pickle.loads(pickle.dumps(column))
    assert again == column and np.array_equal(again.hashes, column.hashes)
    assert locate(again, id_column(["i5", "i99", "zz"])).tolist() == [5, 99, -1]


def test_wide_vocabularies_keep_their_codes() -> None:
    labels = [f"L{k % 60000}" for k in range(120000)]
    column = LabelColumn.from_strings(labels)
    assert column.codes.dtype == np.uint16 and column.tolist() == labels
    wider = LabelColumn.from_strings([*labels, *(f"M{k}" for k in range(6000))])
    assert wider.codes.dtype == np.int64 and wider[-1] == "M5999" and wider[:120000] == labels


# ------------------------------------------------------------------- issue 34: readers of other task families

#: Bytes per item semeval_scores may allocate at its peak for 10^5 items: its per-item lists (the proposal and the
#: two undirected views, 8 bytes a pointer each) and the views' index arrays: about 60. A new undirected string per
#: item took 157.
SEMEVAL_PEAK_PER_ITEM = 80


def test_semeval_scores_shares_the_undirected_labels() -> None:
    from releval.metrics.semeval import semeval_scores

    rng = random.Random(3)
    names = ["Other"] + [f"R{k}({d})" for k in range(9) for d in ("e1,e2", "e2,e1")]
    gold = [rng.choice(names) for _ in range(N)]
    pred = [rng.choice(names) for _ in range(N)]
    semeval_scores(gold[:10], pred[:10])
    gc.collect()
    tracemalloc.start()
    try:
        semeval_scores(gold, pred)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak / N < SEMEVAL_PEAK_PER_ITEM


@pytest.mark.parametrize(
    "text",
    [
        "a\tb\nc\td\n",
        "a\tb\r\nc\td",  # CRLF, no final line end
        'x\t"two\nlines"\ny\tz\n\n\nw\t"q""uote"\n',  # a quoted field over two lines, blank lines
        "",
        "\n",
    ],
)
def test_records_read_one_line_at_a_time_as_from_a_stringio(text: str) -> None:
    """iter_records feeds csv a line at a time; csv over io.StringIO (what it used before) is the reference, line
    numbers included."""
    import csv
    import io

    from releval.data.delimited import iter_records

    reader = csv.reader(io.StringIO(text), delimiter="\t", strict=True)
    expected, end = [], 0
    for row in reader:
        expected.append((end + 1, reader.line_num, row))
        end = reader.line_num
    assert list(iter_records(text, "\t", "f.tsv")) == expected


def test_records_are_read_without_a_copy_of_the_text() -> None:
    """Reading a 10^5-line text record by record holds one record at a time; io.StringIO held the text again as
    4-byte characters (4 times an ASCII file)."""
    from releval.data.delimited import iter_records

    text = "".join(f"id{k}\t{LABELS[k % len(LABELS)]}\n" for k in range(N))
    list(iter_records(text[:100], "\t", "f.tsv"))
    gc.collect()
    tracemalloc.start()
    try:
        count = sum(1 for _ in iter_records(text, "\t", "f.tsv"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == N
    assert peak < len(text) / 10


def test_a_blue_chemprot_file_is_read_within_five_times_its_bytes() -> None:
    """BLUE's TSV read a row at a time: about 3.2 times the file's bytes at the peak for 10^5 rows (the text, each
    row's index, the columns); the list of every row and its sentence took 11.6 times."""
    from releval.data.formats.base import Fields
    from releval.data.formats.chemprot import BlueTsv

    groups = ["false", "CPR:3", "CPR:4", "CPR:5", "CPR:6", "CPR:9"]
    rows = "".join(
        f"{10000000 + k // 4}.T{k % 4}.T{20 + k % 4}\t@CHEMICAL$ binds @GENE$ .\t{groups[k % 6]}\n" for k in range(N)
    )
    data = ("index\tsentence\tlabel\n" + rows).encode()
    BlueTsv().parse(data[: data.index(b"\n", 200) + 1], "blue.tsv", Fields())
    gc.collect()
    tracemalloc.start()
    try:
        loaded = BlueTsv().parse(data, "blue.tsv", Fields())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [loaded.labels[k] for k in (0, 1, 5, 6)] == ["false", "CPR:3", "CPR:9", "false"]
    assert len(loaded.labels) == N and list(loaded.lines[:2]) == [2, 3]
    assert peak < 5 * len(data)


def test_a_drugprot_gold_standard_is_read_within_its_byte_budget(tmp_path: Path) -> None:
    """DrugProt's files read a line at a time, each PMID, mention id and type held once: at 5 * 10^4 relations the
    peak is about 5.0 times the three files' bytes and the gold set holds 3.7 times (a list of every line and a str
    per field per line: 8.2 and 6.6)."""
    from releval.data import drugprot

    n, abstracts = 50_000, 25_000
    (tmp_path / "pmids.txt").write_text("".join(f"{1000000 + k}\n" for k in range(abstracts)), encoding="utf-8")
    (tmp_path / "entities.tsv").write_text(
        "".join(
            f"{1000000 + k}\tT{j}\t{'CHEMICAL' if j < 3 else 'GENE'}\t{10 * j}\t{10 * j + 5}\tname{j}\n"
            for k in range(abstracts)
            for j in range(1, 5)
        ),
        encoding="utf-8",
    )
    (tmp_path / "relations.tsv").write_text(
        "".join(f"{1000000 + i // 2}\tINHIBITOR\tArg1:T{1 + i % 2}\tArg2:T{3 + i % 2}\n" for i in range(n)),
        encoding="utf-8",
    )
    size = sum(p.stat().st_size for p in tmp_path.iterdir())
    drugprot.load_gold(tmp_path)
    gc.collect()
    tracemalloc.start()
    try:
        gold = drugprot.load_gold(tmp_path)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(gold.gold.relations) == n and gold.candidate_pairs() == 4 * abstracts
    assert gold.gold.relations[1] == ("1000000", "T2", "T4", "INHIBITOR")
    assert peak < 6.5 * size and held < 5 * size
