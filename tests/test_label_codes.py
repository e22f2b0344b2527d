"""Label codes (releval.core.label_codes), the gold digest built on them, and `releval.score`'s list path.

Expected values are computed here independently: codes by a dictionary built from `sorted(set(...))`, the digest
by hashing the bytes its docstring defines, the list path's result by the general path (LabelFiles, alignment).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import releval
from releval.core import label_codes
from releval.core.label_codes import CHUNK, sorted_codes
from releval.core.signature import sequence_digest
from releval.data.labels import LabelFile
from releval.metrics.classification import encode
from releval.metrics.counts import confusion_matrix


def naive(sequences: list[list[str]], missing: str | None = None) -> tuple[list[str], list[list[int]]]:
    first = sorted(set(sequences[0]))
    rest = sorted({x for s in sequences[1:] for x in s} - set(first), key=lambda x: (x == missing, x))
    labels = first + rest
    code = {x: i for i, x in enumerate(labels)}
    return labels, [[code[x] for x in s] for s in sequences]


labels_strategy = st.lists(st.sampled_from(["A", "B", "no_relation", "é", "\x00", "", "<m>", "\ud800"]), max_size=40)


@settings(max_examples=200, deadline=None)
@given(st.lists(labels_strategy, min_size=1, max_size=4))
def test_sorted_codes_equal_a_dictionary_of_the_sorted_labels(sequences: list[list[str]]) -> None:
    labels, arrays = sorted_codes(sequences, missing="<m>")
    assert (labels, [a.tolist() for a in arrays]) == naive(sequences, missing="<m>")


@pytest.mark.parametrize("n_labels, dtype", [(256, np.uint8), (257, np.uint16), (65536, np.uint16), (65537, np.int64)])
def test_the_code_width_follows_the_vocabulary_and_grows_mid_sequence(n_labels: int, dtype: type) -> None:
    # the labels are met in an order that overflows the narrower width late, after several chunks
    names = [f"L{i:06d}" for i in range(n_labels)]
    gold = names[: n_labels // 2] * 3 + names[n_labels // 2 :]
    pred = list(reversed(gold))
    labels, (g, p) = sorted_codes([gold, pred])
    assert g.dtype == dtype and labels == names
    assert g.tolist() == [int(x[1:]) for x in gold] and p.tolist() == [int(x[1:]) for x in pred]


def test_chunks_that_meet_new_labels_late_are_coded_like_the_first() -> None:
    gold = ["a"] * (CHUNK + 3) + ["c", "b"] + ["a"] * (2 * CHUNK)
    pred = ["z"] * len(gold)
    labels, (g, p) = sorted_codes([gold, pred])
    assert labels == ["a", "b", "c", "z"]
    assert np.bincount(g).tolist() == [len(gold) - 2, 1, 1] and g[CHUNK + 3] == 2 and set(p.tolist()) == {3}


def test_non_str_items_are_read_as_their_str_anywhere_in_the_sequence() -> None:
    # an int after a chunk of str items, a str subclass, an unhashable list, a bool next to the int 1
    class Tag(str):
        pass

    gold: list[object] = ["1"] * (CHUNK + 1) + [1, Tag("x"), ["l"], True]
    labels, (g,) = sorted_codes([gold])
    assert labels == ["1", "True", "['l']", "x"]
    assert g[-4:].tolist() == [0, 3, 2, 1]


def test_a_generic_sequence_is_read_through_its_iterator() -> None:
    class Labels:
        def __init__(self, items: list[str]) -> None:
            self.items = items

        def __len__(self) -> int:
            return len(self.items)

        def __iter__(self):  # type: ignore[no-untyped-def]
            return iter(self.items)

    items = ["b", "a"] * CHUNK
    labels, (g,) = sorted_codes([Labels(items)])  # type: ignore[list-item]
    assert labels == ["a", "b"] and g[:4].tolist() == [1, 0, 1, 0] and len(g) == 2 * CHUNK


def expected_digest(labels: list[str]) -> str:
    """The documented definition, written out: count, length-prefixed sorted labels, codes in 1/2/4 bytes."""
    vocabulary = sorted(set(labels))
    data = len(vocabulary).to_bytes(4, "little")
    for x in vocabulary:
        raw = x.encode("utf-8", "surrogatepass")
        data += len(raw).to_bytes(4, "little") + raw
    width = 1 if len(vocabulary) <= 256 else 2 if len(vocabulary) <= 65536 else 4
    code = {x: i for i, x in enumerate(vocabulary)}
    data += b"".join(code[x].to_bytes(width, "little") for x in labels)
    return hashlib.sha256(data).hexdigest()[:8]


@settings(max_examples=100, deadline=None)
@given(labels_strategy)
def test_the_gold_digest_is_the_documented_hash(labels: list[str]) -> None:
    assert sequence_digest(labels) == expected_digest(labels)


def test_the_gold_digest_with_many_labels_uses_two_bytes_and_ignores_the_codes_dtype() -> None:
    labels = [f"r{i}" for i in range(300)] * 2
    assert sequence_digest(labels) == expected_digest(labels)
    vocabulary, (codes,) = sorted_codes([labels])
    assert sequence_digest(labels, (vocabulary, codes.astype(np.int64))) == expected_digest(labels)


def test_the_gold_digest_tells_apart_label_sets_that_join_to_the_same_text() -> None:
    # "a\0b" as one label against "a" and "b": a NUL-joined text would hash both alike
    assert sequence_digest(["a\x00b", "c"]) != sequence_digest(["a", "b\x00c"])


def test_confusion_matrix_of_byte_codes_does_not_overflow() -> None:
    rng = np.random.default_rng(1)
    g = rng.integers(0, 256, 3 * (1 << 20) + 7).astype(np.uint8)
    p = rng.integers(0, 256, g.size).astype(np.uint8)
    expected = np.zeros((256, 256), dtype=np.int64)
    np.add.at(expected, (g.astype(np.int64), p.astype(np.int64)), 1)
    assert np.array_equal(confusion_matrix(g, p, 256), expected)


def test_encode_counts_gold_labels_from_the_codes() -> None:
    enc = encode(["b", "b", "a"], ["c", "<missing>", "a"])
    assert (enc.labels, enc.n_gold_labels) == (["a", "b", "c", "<missing>"], 2)


def general(gold: list[object], pred: list[object], **settings: object) -> releval.ScoreResult:
    """The same call through LabelFiles, which takes the general path (alignment by position)."""
    g = [x if type(x) is str else str(x) for x in gold]
    p = [x if type(x) is str else str(x) for x in pred]
    lines = range(1, len(g) + 1)
    return releval.score(
        LabelFile("<gold list>", "list", None, g, lines),
        LabelFile("<pred list>", "list", None, p, lines),
        by_position=True,
        **settings,
    )


@pytest.mark.filterwarnings("ignore::releval.RelevalWarning")
@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["no_relation", "A", "B", 3]), st.sampled_from(["no_relation", "A", "C", 3])),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from(["auto", None, "A", "absent"]),
)
def test_the_list_path_gives_the_general_paths_result(pairs: list[tuple[object, object]], negative: object) -> None:
    gold, pred = [g for g, _ in pairs], [p for _, p in pairs]

    def run(path: Callable[..., Any]) -> Any:
        try:
            return path(gold, pred, negative=negative, allow_absent_negative=True)
        except releval.InputError as refused:  # class indices for labels (issue 32): refused alike on both paths
            return refused

    fast, slow = run(releval.score), run(general)
    if isinstance(fast, releval.InputError) or isinstance(slow, releval.InputError):
        assert str(fast) == str(slow)
        return
    assert fast.to_dict() == slow.to_dict()
    assert str(fast.signature) == str(slow.signature)


def test_the_list_path_leaves_other_cases_to_the_general_path() -> None:
    with pytest.raises(releval.InputError, match="2 items but gold"):
        releval.score(["A", "B", "C"], ["A", "B"])
    with pytest.raises(releval.InputError, match="by position"):
        releval.score(["A"], ["A"], by_position=False)
    undirected = releval.score(["Cause-Effect(e1,e2)"], ["Cause-Effect(e2,e1)"], view="undirected", negative=None)
    assert undirected["micro"].f == 1.0


def test_the_list_path_does_not_copy_or_change_the_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    gold, pred = ["A", "B", "A"], ("A", "A", "A")
    calls: list[int] = []
    monkeypatch.setattr(label_codes, "as_str_labels", lambda items: calls.append(1) or list(map(str, items)))
    r = releval.score(gold, pred, negative=None)
    assert calls == [] and gold == ["A", "B", "A"]
    assert r["micro"].f == pytest.approx(2 / 3)
