"""E2E loaders (SpERT/sincere JSON, PURE/DyGIE++ JSONL, types file), alignment and dataset statistics."""

from __future__ import annotations

import json

import pytest
from tests.conftest import CONLL04_ALL_SPLITS, CONLL04_TYPES

from releval.api import score_e2e
from releval.core.errors import InputError, RelevalError
from releval.data.e2e import (
    Document,
    align_documents,
    detect_format,
    load_e2e,
    load_types,
    to_dygie,
    to_spert,
)
from releval.dataset_stats.e2e_dataset import compare_datasets, dataset_stats, fingerprint, split_stats

TOKENS = ["John", "works", "for", "Acme", "Corp", "in", "Paris", "."]
SENTENCE = {
    "tokens": TOKENS,
    "entities": [
        {"type": "Peop", "start": 0, "end": 1},
        {"type": "Org", "start": 3, "end": 5},
        {"type": "Loc", "start": 6, "end": 7},
    ],
    "relations": [{"type": "Work_For", "head": 0, "tail": 1}, {"type": "OrgBased_In", "head": 1, "tail": 2}],
    "orig_id": 7,
}


def _write(tmp_path, name, data, lines=False):
    path = tmp_path / name
    if lines:
        path.write_text("".join(json.dumps(x) + "\n" for x in data))
    else:
        path.write_text(json.dumps(data))
    return path


def test_spert_list_and_split_dict(tmp_path):
    single = load_e2e(_write(tmp_path, "dev.json", [SENTENCE]))
    assert single.format == "spert"
    assert list(single.splits) == ["dev"]
    doc = single.documents[0]
    assert doc == Document(
        "7", tuple(TOKENS), ((0, 1, "Peop"), (3, 5, "Org"), (6, 7, "Loc")), ((0, 1, "Work_For"), (1, 2, "OrgBased_In"))
    )
    split = load_e2e(_write(tmp_path, "all.json", {"train": [SENTENCE], "test": [dict(SENTENCE, orig_id=8)]}))
    assert list(split.splits) == ["train", "test"]
    assert [d.id for d in split.documents] == ["7", "8"]


def test_dygie_document_offsets_become_sentence_offsets(tmp_path):
    record = {
        "doc_key": "d1",
        "sentences": [["A", "b", "."], TOKENS],
        "ner": [[[0, 0, "Peop"]], [[3, 3, "Peop"], [6, 7, "Org"], [9, 9, "Loc"]]],
        "relations": [[], [[3, 3, 6, 7, "Work_For"], [6, 7, 9, 9, "OrgBased_In"]]],
    }
    data = load_e2e(_write(tmp_path, "docs.jsonl", [record], lines=True))
    assert data.format == "dygie"
    first, second = data.documents
    assert first == Document("d1#0", ("A", "b", "."), ((0, 1, "Peop"),), ())
    # offsets 3..9 in the document are 0..6 in the second sentence; ends become exclusive
    assert second.entities == ((0, 1, "Peop"), (3, 5, "Org"), (6, 7, "Loc"))
    assert second.relations == ((0, 1, "Work_For"), (1, 2, "OrgBased_In"))


def test_dygie_predictions_read_predicted_fields(tmp_path):
    record = {
        "doc_key": "7",
        "sentences": [TOKENS],
        "ner": [[[0, 0, "Peop"]]],
        "relations": [[]],
        "predicted_ner": [[[0, 0, "Peop", 1.2, 0.9], [3, 4, "Org", 0.3, 0.6]]],
        "predicted_relations": [[[0, 0, 3, 4, "Work_For", 2.0, 0.8]]],
    }
    path = _write(tmp_path, "pred.jsonl", [record], lines=True)
    pred = load_e2e(path, role="pred").documents[0]
    assert pred.entities == ((0, 1, "Peop"), (3, 5, "Org"))
    assert pred.relations == ((0, 1, "Work_For"),)
    assert load_e2e(path, role="gold").documents[0].entities == ((0, 1, "Peop"),)


def test_pure_and_spert_files_of_the_same_predictions_score_identically(conll04_test, tmp_path):
    gold_path = conll04_test
    gold = load_e2e(gold_path).documents
    # predictions: drop every third relation, mistype every fifth entity
    pred = [
        Document(
            d.id,
            d.tokens,
            tuple((s, e, "Other" if (k + j) % 5 == 0 else t) for j, (s, e, t) in enumerate(d.entities)),
            tuple(r for j, r in enumerate(d.relations) if (k + j) % 3),
        )
        for k, d in enumerate(gold)
    ]
    spert = _write(tmp_path, "pred.json", to_spert(pred))
    pure = _write(tmp_path, "pred.jsonl", to_dygie(pred, predicted=True), lines=True)
    assert (detect_format(spert), detect_format(pure)) == ("spert", "dygie")
    types = CONLL04_TYPES
    a = score_e2e(gold_path, spert, types=types)
    b = score_e2e(gold_path, pure, types=types)
    assert a["strict"]["micro"].f < a["boundaries"]["micro"].f < 1.0
    for criterion in ("ner", "strict", "boundaries"):
        assert a[criterion].per_class == b[criterion].per_class
        assert a[criterion].averages == b[criterion].averages
    # and a DyGIE gold file scores the same as the SpERT gold file
    gold_pure = _write(tmp_path, "gold.jsonl", to_dygie(gold), lines=True)
    c = score_e2e(gold_pure, spert, types=types)
    assert c["strict"].averages == a["strict"].averages


def test_types_file_symmetric_flags(tmp_path):
    inv = load_types(CONLL04_TYPES)
    assert inv.relations == ("Work_For", "Kill", "OrgBased_In", "Live_In", "Located_In")
    assert inv.entities == ("Loc", "Org", "Peop", "Other")
    assert inv.symmetric == frozenset()
    path = _write(tmp_path, "t.json", {"entities": {"P": {}}, "relations": {"Spouse": {"symmetric": True}}})
    assert load_types(path).symmetric == frozenset({"Spouse"})
    bad = _write(tmp_path, "bad.json", {"entities": {}, "relations": {"Spouse": {"symmetric": "yes"}}})
    with pytest.raises(InputError, match="'symmetric' must be true or false"):
        load_types(bad)


def test_bad_spans_and_indices_are_located(tmp_path):
    bad = dict(SENTENCE, entities=[{"type": "Peop", "start": 5, "end": 9}], relations=[])
    with pytest.raises(InputError) as err:
        load_e2e(_write(tmp_path, "bad.json", [SENTENCE, bad]))
    assert "bad.json" in str(err.value) and "record 2 (orig_id 7): entity 0 span [5, 9)" in str(err.value)
    bad = dict(SENTENCE, relations=[{"type": "Kill", "head": 0, "tail": 5}])
    with pytest.raises(InputError, match="relation 0 tail 5 is not an index into its 3 entities"):
        load_e2e(_write(tmp_path, "bad2.json", {"test": [bad]}))
    record = {"doc_key": "x", "sentences": [TOKENS], "ner": [[[0, 0, "P"]]], "relations": [[[0, 0, 3, 4, "R"]]]}
    with pytest.raises(InputError, match=r"argument span \[3, 4\] is not an entity mention"):
        load_e2e(_write(tmp_path, "bad.jsonl", [record], lines=True))


def test_alignment_by_id_checks_tokens_and_coverage(tmp_path):
    gold = load_e2e(_write(tmp_path, "g.json", [SENTENCE, dict(SENTENCE, orig_id=8)]))
    pred = load_e2e(_write(tmp_path, "p.json", [dict(SENTENCE, orig_id=8), SENTENCE]))
    aligned = align_documents(gold, pred)
    assert [d.id for d in aligned.pred] == ["7", "8"]
    changed = dict(SENTENCE, orig_id=8, tokens=[*TOKENS[:-1], "!"])
    with pytest.raises(InputError, match="id 8: tokens differ from gold at token 7"):
        align_documents(gold, load_e2e(_write(tmp_path, "p2.json", [SENTENCE, changed])))
    with pytest.raises(InputError, match="1 gold sentence id\\(s\\) without prediction, e.g. 8"):
        align_documents(gold, load_e2e(_write(tmp_path, "p3.json", [SENTENCE])))
    no_ids = [{k: v for k, v in SENTENCE.items() if k != "orig_id"}] * 2
    with pytest.raises(InputError, match="--by-position"):
        score_e2e(gold, load_e2e(_write(tmp_path, "p4.json", no_ids)))
    r = score_e2e(gold, load_e2e(_write(tmp_path, "p5.json", no_ids)), by_position=True)
    assert r["strict"]["micro"].f == 1.0


def test_split_file_gold_picks_the_matching_split(conll04_test):
    gold = CONLL04_ALL_SPLITS
    test = conll04_test
    r = score_e2e(gold, test)
    assert r.n_documents == 288
    assert "gold split 'test' used: its sentences match the predictions" in r.notes


# ------------------------------------------------------------------------------ statistics


def test_conll04_statistics_match_taille_table_3():
    stats = dataset_stats(load_e2e(CONLL04_ALL_SPLITS))
    by_split = {s.name: (s.sentences, s.tokens, s.entities, s.relations) for s in stats.splits}
    # Taillé et al. (2020), Appendix B table, "Ours"
    assert by_split == {
        "train": (922, 26525, 3377, 1283),
        "dev": (231, 6993, 893, 343),
        "test": (288, 8336, 1079, 422),
    }
    t = stats.total
    assert (t.sentences, t.tokens, t.entities, t.relations) == (1441, 41854, 5349, 2048)
    assert t.bijective is True
    assert t.argument_types["Live_In"] == {"Peop→Loc": 521}
    assert t.nested_mentions == t.crossing_mentions == t.overlapping_argument_relations == 0


def test_overlap_nesting_duplicates_and_bijectivity_by_hand():
    doc = Document(
        "x",
        tuple("abcdefgh"),
        ((0, 3, "A"), (1, 2, "B"), (2, 5, "A"), (0, 3, "C"), (0, 3, "A"), (6, 7, "B")),
        ((0, 2, "r"), (1, 5, "s"), (0, 5, "r")),
    )
    s = split_stats("x", [doc])
    # distinct spans (0,3),(1,2),(2,5),(6,7): (0,3)⊃(1,2) nested; (0,3)×(2,5) crossing; (1,2),(2,5) disjoint;
    # plus one pair of identical spans with different types (0,3,A)/(0,3,C)
    assert (s.nested_mentions, s.crossing_mentions, s.duplicate_mentions) == (2, 1, 1)
    # r: (0,3)-(2,5) overlap; s: (1,2)-(6,7) no; r: (0,3)-(6,7) no
    assert s.overlapping_argument_relations == 1
    assert s.argument_types == {"r": {"A→A": 1, "A→B": 1}, "s": {"B→B": 1}}
    assert s.bijective is False


def test_fingerprint_ignores_order_and_compare_lists_differences(tmp_path):
    a = [SENTENCE, dict(SENTENCE, orig_id=8)]
    shuffled = dict(
        SENTENCE,
        entities=SENTENCE["entities"][::-1],
        relations=[{"type": "Work_For", "head": 2, "tail": 1}, {"type": "OrgBased_In", "head": 1, "tail": 0}],
    )
    b = [dict(shuffled, orig_id=8), SENTENCE]
    da, db = load_e2e(_write(tmp_path, "a.json", a)), load_e2e(_write(tmp_path, "b.json", b))
    assert fingerprint(da.documents) == fingerprint(db.documents)
    changed = [SENTENCE, dict(SENTENCE, orig_id=8, relations=SENTENCE["relations"][:1])]
    dc = load_e2e(_write(tmp_path, "a.json", changed))
    diffs = compare_datasets(da, dc)
    assert "total relations: 4 vs 3 (-1)" in diffs
    assert "relation type OrgBased_In: 2 vs 1" in diffs
    assert "  sentence 8: relations 2→1 differ" in diffs


def test_invalid_json_is_located(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"doc_key": "a", "sentences": [["x"]]}\n{"doc_key": \n')
    with pytest.raises(RelevalError, match="x.jsonl:2"):
        load_e2e(path)
