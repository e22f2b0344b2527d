"""End-to-end loading as flat arrays (issue 13): the garbage collector's state, the arrays' values, and agreement
with the Document path (same errors, same counts)."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from releval.core.errors import InputError, InputErrors
from releval.data.e2e import (
    Document,
    align_arrays,
    align_documents,
    load_any_arrays,
    load_e2e,
    load_e2e_arrays,
)
from releval.data.e2e_arrays import E2EArrays
from releval.data.gc_pause import gc_paused
from releval.metrics.e2e import array_counts, document_counts

EXAMPLES = Path(__file__).parent.parent / "examples" / "conll04"
FIRST30 = EXAMPLES / "conll04_test_first30.json"
ALL_SPLITS = EXAMPLES / "conll04_sincere_all_splits.json"


@pytest.fixture
def gc_enabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def _write(tmp_path: Path, records: object, name: str = "data.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


SENTENCE = {
    "tokens": ["John", "works", "for", "Acme", "."],
    "entities": [{"type": "Peop", "start": 0, "end": 1}, {"type": "Org", "start": 3, "end": 4}],
    "relations": [{"type": "Work_For", "head": 0, "tail": 1}],
    "orig_id": 7,
}


# ----------------------------------------------------------------------------------------------- the collector


def test_gc_paused_restores_an_enabled_collector_also_after_an_error(gc_enabled: None) -> None:
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError), gc_paused():
        assert not gc.isenabled()
        _ = 1 / 0
    assert gc.isenabled()


def test_gc_paused_leaves_a_disabled_collector_disabled(gc_enabled: None) -> None:
    gc.disable()
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()
    with pytest.raises(ValueError), gc_paused():
        raise ValueError("inside")
    assert not gc.isenabled()


@pytest.mark.parametrize("loader", [load_e2e, load_e2e_arrays])
def test_loaders_restore_the_collector_after_a_load_and_after_an_error(
    loader: object, tmp_path: Path, gc_enabled: None
) -> None:
    load = loader  # type: ignore[assignment]
    load(FIRST30)  # type: ignore[operator]
    assert gc.isenabled()
    bad = _write(tmp_path, [{**SENTENCE, "entities": [{"type": "Peop", "start": 3, "end": 1}]}])
    with pytest.raises(InputError, match="entity 0 span"):
        load(bad)  # type: ignore[operator]
    assert gc.isenabled()
    broken = tmp_path / "broken.json"
    broken.write_text('[{"tokens": ["a"], ', encoding="utf-8")
    with pytest.raises(InputError, match="invalid JSON"):
        load(broken)  # type: ignore[operator]
    assert gc.isenabled()
    gc.disable()
    load(FIRST30)  # type: ignore[operator]
    assert not gc.isenabled()


# ----------------------------------------------------------------------------------------------- the arrays


def test_arrays_of_one_sentence_by_value(tmp_path: Path) -> None:
    second = {
        "tokens": ["Acme", "is", "in", "Paris"],
        "entities": [{"type": "Org", "start": 0, "end": 1}, {"type": "Loc", "start": 3, "end": 4}],
        "relations": None,
        "orig_id": "s2",
    }
    dataset = load_e2e_arrays(_write(tmp_path, [SENTENCE, second], "one.json"))
    assert list(dataset.splits) == ["one"]
    arrays = dataset.splits["one"]
    assert arrays.ids == ["7", "s2"]
    assert arrays.joined and arrays.tokens == ["John\0works\0for\0Acme\0.", "Acme\0is\0in\0Paris"]
    assert arrays.token_tuples() == [tuple(SENTENCE["tokens"]), tuple(second["tokens"])]  # type: ignore[arg-type]
    assert arrays.ent_doc.tolist() == [0, 0, 1, 1]
    assert arrays.ent_start.tolist() == [0, 3, 0, 3]
    assert arrays.ent_end.tolist() == [1, 4, 1, 4]
    assert [arrays.entity_types[c] for c in arrays.ent_type] == ["Peop", "Org", "Org", "Loc"]
    assert arrays.rel_doc.tolist() == [0]
    assert (arrays.rel_head.tolist(), arrays.rel_tail.tolist()) == ([0], [1])
    assert [arrays.relation_types[c] for c in arrays.rel_type] == ["Work_For"]


def _same(a: E2EArrays, b: E2EArrays) -> None:
    assert a.ids == b.ids and a.token_tuples() == b.token_tuples()
    for name in ("ent_doc", "ent_start", "ent_end", "rel_doc", "rel_head", "rel_tail"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert [a.entity_types[c] for c in a.ent_type] == [b.entity_types[c] for c in b.ent_type]
    assert [a.relation_types[c] for c in a.rel_type] == [b.relation_types[c] for c in b.rel_type]


@pytest.mark.parametrize("path", [FIRST30, ALL_SPLITS])
def test_arrays_equal_the_documents_arrays(path: Path) -> None:
    arrays, docs = load_e2e_arrays(path), load_e2e(path)
    assert list(arrays.splits) == list(docs.splits)
    for split in docs.splits:
        _same(arrays.splits[split], E2EArrays.from_documents(docs.splits[split]))
    _same(arrays.documents, E2EArrays.from_documents(docs.documents))


@pytest.mark.parametrize("path", [FIRST30, ALL_SPLITS])
def test_sentences_decoded_in_small_batches_give_the_same_arrays(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34's memory bound: a file is decoded `_BATCH` sentences at a time; batches of 7 (so a split ends in a
    part batch, and type names first appear in later batches) give the arrays the Documents give."""
    from releval.data.formats import spert

    monkeypatch.setattr(spert, "_BATCH", 7)
    arrays, docs = load_e2e_arrays(path), load_e2e(path)
    assert list(arrays.splits) == list(docs.splits)
    for split in docs.splits:
        _same(arrays.splits[split], E2EArrays.from_documents(docs.splits[split]))
    _same(arrays.documents, E2EArrays.from_documents(docs.documents))


def test_a_type_first_seen_in_a_later_batch_keeps_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from releval.data.formats import spert

    monkeypatch.setattr(spert, "_BATCH", 1)
    later = {**SENTENCE, "orig_id": 8, "entities": [{"type": "Loc", "start": 0, "end": 1}], "relations": []}
    arrays = load_e2e_arrays(_write(tmp_path, [SENTENCE, later, {**later, "orig_id": 9}])).splits["data"]
    assert [arrays.entity_types[c] for c in arrays.ent_type] == ["Peop", "Org", "Loc", "Loc"]
    assert arrays.ent_doc.tolist() == [0, 0, 1, 2]
    assert [arrays.relation_types[c] for c in arrays.rel_type] == ["Work_For"]
    assert (arrays.rel_head.tolist(), arrays.rel_tail.tolist()) == ([0], [1])


def test_a_file_the_column_checks_refuse_falls_back_to_the_same_located_errors(tmp_path: Path) -> None:
    records = [
        SENTENCE,
        {**SENTENCE, "orig_id": 8, "relations": [{"type": "Work_For", "head": 0, "tail": 5}]},
        {**SENTENCE, "orig_id": 9, "entities": [{"type": "Peop", "start": True, "end": 1}]},
    ]
    path = _write(tmp_path, records)
    with pytest.raises(InputErrors) as arrays_error:
        load_e2e_arrays(path)
    with pytest.raises(InputErrors) as documents_error:
        load_e2e(path)
    assert str(arrays_error.value) == str(documents_error.value)
    assert "record 2 (orig_id 8): relation 0 tail 5 is not an index into its 2 entities" in str(arrays_error.value)
    assert "record 3 (orig_id 9) entity 0: expected int, got true" in str(arrays_error.value)


def test_a_valid_file_with_extra_keys_is_read_alike(tmp_path: Path) -> None:
    records = [{**SENTENCE, "pos": ["NNP"] * 5}, {**SENTENCE, "orig_id": None, "relations": []}]
    path = _write(tmp_path, records)
    _same(load_e2e_arrays(path).splits["data"], E2EArrays.from_documents(load_e2e(path).splits["data"]))
    assert load_e2e_arrays(path).splits["data"].ids == ["7", None]


@pytest.mark.parametrize(
    "text",
    [
        '[{"tokens": ["a", "b"], "entities": [{"type": "X", "start": 1, "end": 2, "start": 0}], "orig_id": 1}]',
        '[{"tokens": ["a", "b"], "entities": [], "orig_id": 1, "orig_id": 2}]',
        '[{"tokens": ["a\\"", "b"], "entities": [], "entities": [], "orig_id": 1}]',
    ],
)
def test_a_key_written_twice_is_refused_on_both_paths(tmp_path: Path, text: str) -> None:
    path = tmp_path / "twice.json"
    path.write_text(text, encoding="utf-8")
    for load in (load_e2e, load_e2e_arrays):
        with pytest.raises(InputError, match="key written twice"):
            load(path)  # type: ignore[operator]


def test_escaped_quotes_and_backslashes_do_not_hide_or_invent_a_repeated_key(tmp_path: Path) -> None:
    records = [{**SENTENCE, "tokens": ['"', "\\", 'a"b', "c", "\\\\"]}]
    path = _write(tmp_path, records)
    assert load_e2e_arrays(path).splits["data"].token_tuples() == [('"', "\\", 'a"b', "c", "\\\\")]


@pytest.mark.parametrize(
    ("tokens", "joined"),
    [([["a", "b"], ["", "c"], ["d"]], True), ([["a"], []], False), ([["a\0b"], ["a", "b"]], False), ([[""]], True)],
)
def test_tokens_are_joined_only_when_nothing_is_lost(tmp_path: Path, tokens: list, joined: bool) -> None:
    records = [{"tokens": t, "entities": [], "orig_id": k} for k, t in enumerate(tokens)]
    arrays = load_e2e_arrays(_write(tmp_path, records)).splits["data"]
    assert arrays.joined is joined
    assert arrays.token_tuples() == [tuple(t) for t in tokens]


def test_joined_and_tuple_tokens_align_alike_and_name_the_differing_token(tmp_path: Path) -> None:
    gold = [Document("1", ("a", "b", "c")), Document("2", ("d",))]
    pred = _write(
        tmp_path,
        [{"tokens": ["a", "b", "c"], "entities": [], "orig_id": 1}, {"tokens": ["d"], "entities": [], "orig_id": 2}],
    )
    aligned = align_arrays(load_any_arrays(gold, "gold"), load_e2e_arrays(pred, "pred"))
    assert aligned.pred.ids == ["1", "2"]
    bad = _write(
        tmp_path,
        [
            {"tokens": ["a", "x", "c", "e"], "entities": [], "orig_id": 1},
            {"tokens": ["d"], "entities": [], "orig_id": 2},
        ],
        "bad.json",
    )
    message = "id 1: tokens differ from gold at token 1 (3 gold vs 4 predicted tokens)"
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        align_arrays(load_any_arrays(gold, "gold"), load_e2e_arrays(bad, "pred"))
    gold_file = _write(
        tmp_path,
        [{"tokens": ["a", "b", "c"], "entities": [], "orig_id": 1}, {"tokens": ["d"], "entities": [], "orig_id": 2}],
        "gold.json",
    )
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        align_arrays(load_e2e_arrays(gold_file), load_e2e_arrays(bad, "pred"))


# ----------------------------------------------------------------------------------------------- alignment and counts


def _documents(n: int, seed: int) -> tuple[list[Document], list[Document]]:
    rng = np.random.default_rng(seed)
    gold, pred = [], []
    for i in range(n):
        tokens = tuple(f"t{i}_{j}" for j in range(12))
        ents = tuple((int(s), int(s) + int(rng.integers(1, 3)), "AB"[int(rng.integers(0, 2))]) for s in range(0, 10, 2))
        rels = tuple(
            (int(rng.integers(0, 5)), int(rng.integers(0, 5)), "RS"[int(rng.integers(0, 2))]) for _ in range(4)
        )
        gold.append(Document(str(i), tokens, ents, rels))
        p_ents = (ents[0][:2] + ("C",), *ents[1:])
        p_rels = (*rels[1:], (int(rng.integers(0, 5)), 0, "R"), rels[1])
        pred.append(Document(str(i), tokens, p_ents, p_rels))
    return gold, pred


def test_aligned_arrays_count_as_the_documents_do_with_shuffled_predictions() -> None:
    gold, pred = _documents(40, 3)
    shuffled = [pred[k] for k in np.random.default_rng(4).permutation(len(pred))]
    aligned = align_arrays(load_any_arrays(gold, "gold"), load_any_arrays(shuffled, "pred"))
    assert aligned.pred.ids == aligned.gold.ids == [d.id for d in gold]
    criteria = ("ner", "strict", "boundaries", "relaxed")
    fast = array_counts(aligned.gold, aligned.pred, criteria, symmetric=["S"])
    slow = document_counts(gold, pred, criteria, symmetric=["S"])
    for criterion in criteria:
        assert fast[criterion].labels == slow[criterion].labels
        for name in ("tp", "fp", "fn"):
            np.testing.assert_array_equal(getattr(fast[criterion], name), getattr(slow[criterion], name))
        assert fast[criterion].gold_digest == slow[criterion].gold_digest
    assert int(fast["ner"].fp.sum()) == 40  # the first mention of every sentence is retyped


def test_align_arrays_picks_the_matching_split_with_the_same_note_and_errors(tmp_path: Path) -> None:
    docs = load_e2e(ALL_SPLITS)
    test_records = json.loads(ALL_SPLITS.read_text(encoding="utf-8"))["test"]
    pred = _write(tmp_path, test_records, "pred.json")
    aligned = align_arrays(load_e2e_arrays(ALL_SPLITS), load_e2e_arrays(pred, "pred"))
    expected = align_documents(docs, load_e2e(pred, "pred"))
    assert (aligned.split, aligned.notes) == (expected.split, expected.notes) == ("test", expected.notes)
    assert aligned.gold.ids == [d.id for d in expected.gold]
    changed = [dict(r) for r in test_records]
    changed[2] = {**changed[2], "tokens": ["x", *changed[2]["tokens"][1:]]}
    bad = _write(tmp_path, changed, "bad.json")
    with pytest.raises(InputError) as arrays_error:
        align_arrays(load_e2e_arrays(ALL_SPLITS), load_e2e_arrays(bad, "pred"))
    with pytest.raises(InputError) as documents_error:
        align_documents(docs, load_e2e(bad, "pred"))
    assert str(arrays_error.value) == str(documents_error.value)
    assert "tokens differ from gold at token 0" in str(arrays_error.value)
