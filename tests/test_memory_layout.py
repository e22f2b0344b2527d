"""The compact columns of a label file (issue 13: `releval score` on a 10^7-line pair within 1.5 GB).

Ids are held as one UTF-8 buffer with offsets and hashes (`IdColumn`) and labels as codes into a vocabulary
(`LabelColumn`). Tested here: ids are matched exactly even when every hash collides, and the columns behave as the
lists they replace.
"""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import numpy as np
import pytest

from releval.data import alignment
from releval.data.alignment import align
from releval.data.columns import IdColumn, LabelColumn, has_repeats, id_column, locate
from releval.data.labels import LabelFile, apply_patch
from releval.errors import InputError, InputErrors

LABELS = ["no_relation"] + [f"rel:{i:02d}" for i in range(41)]


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
