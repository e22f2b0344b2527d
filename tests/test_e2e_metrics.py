"""End-to-end RE and NER criteria: hand-computed toys, the e2e / NER span test vectors, and the vectorised
counting checked against a per-sentence Python set implementation (property test)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import CONLL04_ALL_SPLITS, CONLL04_TYPES, data_path

from releval.api import score_e2e
from releval.data.e2e import Document, TypeInventory, load_e2e
from releval.metrics.e2e import document_counts, reference_counts

TOKENS = tuple(f"w{i}" for i in range(12))


def _doc(entities, relations, doc_id="a"):
    return Document(doc_id, TOKENS, tuple(entities), tuple(relations))


# Hand-computed toy: Work_For with a mistyped tail (predicted twice through a duplicated head mention),
# Spouse predicted tail→head, Live_In whose tail mention the entity model missed.
GOLD = _doc(
    [(0, 1, "Peop"), (2, 4, "Org"), (5, 6, "Peop"), (7, 8, "Loc")],
    [(0, 1, "Work_For"), (0, 2, "Spouse"), (2, 3, "Live_In")],
)
PRED = _doc(
    [(0, 1, "Peop"), (2, 4, "Loc"), (5, 6, "Peop"), (0, 1, "Peop")],
    [(3, 1, "Work_For"), (0, 1, "Work_For"), (2, 0, "Spouse")],
)
SYM = TypeInventory(("Peop", "Org", "Loc"), ("Work_For", "Spouse", "Live_In"), frozenset({"Spouse"}))
DIRECTED = TypeInventory(SYM.entities, SYM.relations, frozenset())


def _counts(result, criterion):
    return {r.label: (r.tp, r.fp, r.fn) for r in result[criterion].per_class}


def test_toy_symmetric_declared():
    r = score_e2e([GOLD], [PRED], types=SYM)
    # NER: Peop (0,1) and (5,6) found; Org (2,4) predicted as Loc; Loc (7,8) missed; the duplicate counts once
    assert _counts(r, "ner") == {"Peop": (2, 0, 0), "Org": (0, 0, 1), "Loc": (0, 1, 1)}
    assert r["ner"]["micro"].precision == pytest.approx(2 / 3)
    assert r["ner"]["micro"].recall == pytest.approx(2 / 4)
    # Strict: Work_For tail type wrong (FP+FN); Spouse reversed but symmetric (TP); Live_In missed argument (FN)
    assert _counts(r, "strict") == {"Work_For": (0, 1, 1), "Spouse": (1, 0, 0), "Live_In": (0, 0, 1)}
    micro = r["strict"]["micro"]
    assert (micro.precision, micro.recall, micro.f) == pytest.approx((1 / 2, 1 / 3, 0.4))
    # Boundaries ignores the argument types: Work_For is a TP
    assert _counts(r, "boundaries") == {"Work_For": (1, 0, 0), "Spouse": (1, 0, 0), "Live_In": (0, 0, 1)}
    micro = r["boundaries"]["micro"]
    assert (micro.precision, micro.recall, micro.f) == pytest.approx((1.0, 2 / 3, 0.8))
    assert r["boundaries"]["macro"].f == pytest.approx(2 / 3)
    assert r["boundaries"]["weighted"].f == pytest.approx(2 / 3)  # every type has support 1
    assert "ner: 1 duplicated predicted entity mention(s) counted once (set semantics)" in r.warnings
    assert "strict: 1 duplicated predicted relation(s) counted once (set semantics)" in r.warnings


def test_toy_all_directed():
    r = score_e2e([GOLD], [PRED], types=DIRECTED)
    assert _counts(r, "strict") == {"Work_For": (0, 1, 1), "Spouse": (0, 1, 1), "Live_In": (0, 0, 1)}
    assert _counts(r, "boundaries") == {"Work_For": (1, 0, 0), "Spouse": (0, 1, 1), "Live_In": (0, 0, 1)}
    assert r["boundaries"]["micro"].f == pytest.approx(2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3))


def test_recall_counts_gold_relations_whose_arguments_were_missed():
    empty = _doc([], [])
    r = score_e2e([GOLD], [empty], types=SYM)
    for criterion in ("strict", "boundaries"):
        assert r[criterion]["micro"].recall == 0.0
        assert sum(row.fn for row in r[criterion].per_class) == 3


def test_gold_duplicates_are_warned_and_counted_once():
    gold = _doc([(0, 1, "Peop"), (2, 3, "Loc")], [(0, 1, "Live_In"), (0, 1, "Live_In")])
    r = score_e2e([gold], [gold])
    assert r["strict"]["micro"].f == 1.0
    assert _counts(r, "strict") == {"Live_In": (1, 0, 0)}
    assert "strict: 1 duplicated gold relation(s) counted once (set semantics)" in r.warnings


def test_relaxed_only_behind_its_flag_and_labelled_experimental():
    with pytest.raises(ValueError, match="experimental"):
        score_e2e([GOLD], [PRED], criteria=("strict", "relaxed"))
    r = score_e2e([GOLD], [PRED], types=SYM, relaxed=True)
    assert r["relaxed"].signature["criterion"] == "relaxed(experimental)"
    assert r["relaxed"].warnings[0].startswith("Relaxed is EXPERIMENTAL and does not evaluate end-to-end RE")
    assert r["strict"].signature["criterion"] == "strict"
    assert r["strict"].signature["task"] == "e2e"


# ------------------------------------------------------------------------------ test vectors (tests/data)


def _vector_doc(doc_id, data, n_tokens=20):
    return Document(
        doc_id,
        tuple(f"t{i}" for i in range(n_tokens)),
        tuple((e["start"], e["end"], e["type"]) for e in data["entities"]),
        tuple((r["head"], r["tail"], r["type"]) for r in data["relations"]),
    )


def _check_reference(result, expected):
    for criterion, key in (
        ("ner", "ner_strict"),
        ("strict", "re_strict"),
        ("boundaries", "re_boundaries"),
        ("relaxed", "re_relaxed_overlap_proposal"),
    ):
        exp = expected[key]
        rows = {r.label: r for r in result[criterion].per_class}
        for label, e in exp["per_type"].items():
            row = rows[label]
            assert (row.tp, row.fp, row.fn) == (e["tp"], e["fp"], e["fn"]), (criterion, label)
            assert (row.precision, row.recall, row.f) == pytest.approx((e["precision"], e["recall"], e["f1"]))
        micro = result[criterion]["micro"]
        m = exp["micro"]
        assert (micro.precision, micro.recall, micro.f) == pytest.approx((m["precision"], m["recall"], m["f1"]))
        macro = result[criterion]["macro"]
        m = exp["macro_over_types_with_gold_support"]
        assert (macro.precision, macro.recall, macro.f) == pytest.approx((m["precision"], m["recall"], m["f1"]))


@pytest.mark.parametrize(
    ("setting", "symmetric"), [("expected_symmetric_declared", {"Spouse"}), ("expected_all_directed", set())]
)
def test_e2e_vectors_toy(setting, symmetric):
    vectors = json.loads(data_path("testvectors", "e2e_re_vectors.json").read_text())
    sentences = vectors["toy"]["sentences"]
    gold = [_vector_doc(s["id"], s["gold"]) for s in sentences]
    pred = [_vector_doc(s["id"], s["pred"]) for s in sentences]
    types = TypeInventory(tuple(vectors["entity_types"]), tuple(vectors["relation_types"]), frozenset(symmetric))
    result = score_e2e(gold, pred, types=types, relaxed=True)
    _check_reference(result, vectors["toy"][setting]["reference_set_semantics"])


def test_e2e_vectors_conll04_perturbed(conll04_test):
    vectors = json.loads(data_path("testvectors", "e2e_re_vectors.json").read_text())
    case = vectors["conll04_test_perturbed"]
    gold = load_e2e(conll04_test)
    # the perturbation moves some predicted ends past the sentence end, so the documents are built directly
    pred = [
        Document(
            g.id,
            g.tokens,
            tuple((e["start"], e["end"], e["type"]) for e in p["entities"]),
            tuple((r["head"], r["tail"], r["type"]) for r in p["relations"]),
        )
        for p, g in zip(case["pred_only"], gold.documents, strict=True)
    ]
    result = score_e2e(gold, pred, types=CONLL04_TYPES, relaxed=True)
    _check_reference(result, case["expected"]["reference_set_semantics"])


def _chunks(tags, scheme):
    """Strict chunk decoding (seqeval mode='strict'): IOB2 B-X I-X*; IOBES S-X or B-X I-X* E-X."""
    spans, start, kind = [], None, None
    for i, tag in enumerate([*tags, "O"]):
        prefix, _, label = tag.partition("-")
        if scheme == "IOB2":
            if start is not None and not (prefix == "I" and label == kind):
                spans.append((start, i, kind))
                start = None
            if prefix == "B":
                start, kind = i, label
        else:
            if prefix == "S":
                spans.append((i, i + 1, label))
                start = None
            elif prefix == "B":
                start, kind = i, label
            elif prefix == "I" and start is not None and label == kind:
                continue
            elif prefix == "E" and start is not None and label == kind:
                spans.append((start, i + 1, kind))
                start = None
            else:
                start = None
    return spans


def _ner_docs(sentences, scheme):
    return [
        Document(str(i), tuple(f"t{j}" for j in range(len(s))), tuple(_chunks(s, scheme)))
        for i, s in enumerate(sentences)
    ]


def test_ner_span_vectors_seqeval_strict():
    vectors = json.loads(data_path("testvectors", "ner_span_vectors.json").read_text())
    checked = 0
    for case in vectors["seqeval"]["cases"]:
        for key, scheme in (("expected_strict_IOB2", "IOB2"), ("expected_strict_IOBES", "IOBES")):
            if key not in case:
                continue
            exp = case[key]
            r = score_e2e(_ner_docs(case["y_true"], scheme), _ner_docs(case["y_pred"], scheme), criteria=["strict"])
            ner = r["ner"]
            for name in ("micro", "weighted"):
                if name in exp:
                    e = exp[name]
                    assert (ner[name].precision, ner[name].recall, ner[name].f) == pytest.approx(
                        (e["precision"], e["recall"], e["f1"])
                    ), (case["id"], name)
            if "None" in exp:
                rows = {row.label: row for row in ner.per_class}
                labels = case[key].get("report_labels_order") or sorted(rows)
                for i, label in enumerate(labels):
                    assert rows[label].f == pytest.approx(exp["None"]["f1"][i]), (case["id"], label)
                    assert rows[label].support == exp["None"]["support"][i]
                # seqeval's macro also averages types seen only in predictions; releval's macro does not
                if all(rows[label].support > 0 for label in labels):
                    assert ner["macro"].f == pytest.approx(exp["macro"]["f1"])
            checked += 1
    assert checked == 6


def test_ner_span_vectors_nervaluate_strict():
    vectors = json.loads(data_path("testvectors", "ner_span_vectors.json").read_text())
    checked = 0
    for case in vectors["nervaluate_1_2_1"]["cases"]:
        if case["loader"] == "list":
            gold, pred = _ner_docs(case["true"], "IOB2"), _ner_docs(case["pred"], "IOB2")
        else:  # dict spans with an inclusive end

            def docs(items):
                return [
                    Document(
                        str(i),
                        tuple(f"t{j}" for j in range(10)),
                        tuple((e["start"], e["end"] + 1, e["label"]) for e in s),
                    )
                    for i, s in enumerate(items)
                ]

            gold, pred = docs(case["true"]), docs(case["pred"])
        strict = case["expected"]["overall"]["strict"]
        micro = score_e2e(gold, pred)["ner"]["micro"]
        # nervaluate's strict schema: P = COR / ACT, R = COR / POS — NER strict micro without duplicates
        assert (micro.precision, micro.recall) == pytest.approx((strict["precision"], strict["recall"])), case["id"]
        checked += 1
    assert checked == 3


# ------------------------------------------------------------------------------ CoNLL04 invariants


def test_conll04_gold_against_itself_is_100_everywhere():
    gold = load_e2e(CONLL04_ALL_SPLITS)
    r = score_e2e(gold, gold, types=CONLL04_TYPES, relaxed=True)
    assert set(r.results) == {"ner", "strict", "boundaries", "relaxed"}
    for result in r.results.values():
        for average in result.averages.values():
            assert (average.precision, average.recall, average.f) == pytest.approx((1.0, 1.0, 1.0), abs=1e-12)
    assert sum(row.support for row in r["strict"].per_class) == 2048
    assert sum(row.support for row in r["ner"].per_class) == 5349


def test_mistyped_argument_lowers_strict_but_not_boundaries(conll04_test):
    gold = load_e2e(conll04_test)
    docs = gold.documents
    k = next(i for i, d in enumerate(docs) if d.relations)
    head = docs[k].relations[0][0]
    ents = list(docs[k].entities)
    s, e, t = ents[head]
    ents[head] = (s, e, "Other" if t != "Other" else "Loc")
    pred = [*docs[:k], Document(docs[k].id, docs[k].tokens, tuple(ents), docs[k].relations), *docs[k + 1 :]]
    r = score_e2e(gold, pred)
    assert r["boundaries"]["micro"].f == 1.0
    affected = sum(1 for h, tl, _ in docs[k].relations if head in (h, tl))
    strict = r["strict"]["micro"]
    assert strict.recall == pytest.approx((422 - affected) / 422)
    assert strict.precision == pytest.approx((422 - affected) / 422)
    assert r["ner"]["micro"].recall == pytest.approx(1078 / 1079)


# ------------------------------------------------------------------------------ vectorised == naive sets

ENT_TYPES = ["A", "B", "C"]
REL_TYPES = ["r", "s", "u"]


@st.composite
def documents(draw, n_tokens=8):
    spans = st.tuples(st.integers(0, n_tokens - 1), st.integers(1, 3), st.sampled_from(ENT_TYPES)).map(
        lambda x: (x[0], min(x[0] + x[1], n_tokens), x[2])
    )
    ents = draw(st.lists(spans, max_size=6))
    rels = []
    if ents:
        idx = st.integers(0, len(ents) - 1)
        rels = draw(st.lists(st.tuples(idx, idx, st.sampled_from(REL_TYPES)), max_size=8))
    return ents, rels


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(documents(), documents()), min_size=1, max_size=6), st.sets(st.sampled_from(REL_TYPES)))
def test_vectorised_counts_equal_per_sentence_sets(pairs, symmetric):
    tokens = tuple(f"t{i}" for i in range(8))
    gold = [Document(str(i), tokens, tuple(g[0]), tuple(g[1])) for i, (g, _) in enumerate(pairs)]
    pred = [Document(str(i), tokens, tuple(p[0]), tuple(p[1])) for i, (_, p) in enumerate(pairs)]
    counts = document_counts(gold, pred, ("ner", "strict", "boundaries"), symmetric=symmetric)
    for criterion, dc in counts.items():
        expected = reference_counts(gold, pred, criterion, symmetric)
        total = dc.total()
        got = {
            label: (int(total.tp[i]), int(total.fp[i]), int(total.fn[i]))
            for i, label in enumerate(dc.labels)
            if total.tp[i] + total.fp[i] + total.fn[i]
        }
        assert got == expected, criterion


def test_document_resampling_sums_per_document_counts(conll04_test):
    gold = load_e2e(conll04_test).documents
    pred = [Document(d.id, d.tokens, d.entities, d.relations[1:]) for d in gold]
    dc = document_counts(gold, pred, ("strict",))["strict"]
    assert dc.tp.shape == (288, 5)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 288, size=(4, 288))
    boot = dc.resample(idx)
    assert boot.tp.shape == (4, 5)
    for b in range(4):
        sub_g = [gold[i] for i in idx[b]]
        sub_p = [pred[i] for i in idx[b]]
        ref = reference_counts(sub_g, sub_p, "strict")
        for j, label in enumerate(dc.labels):
            assert (boot.tp[b, j], boot.fp[b, j], boot.fn[b, j]) == ref.get(label, (0, 0, 0))
