"""End-to-end predictions get the label checks rc has (issue 32): relation and entity types against gold's and the
types file's, predictions equal to gold, gold and predictions swapped — on the bundled CoNLL04 slice and the docs'
toy system (docs/e2e.md: Strict 77.55, Boundaries 93.88 micro-F1, numbers the docs and test_e2e_cli check)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from tests.conftest import CONLL04_TYPES, EXAMPLES

from mistakes.e2e import GOLD, lower_relations, misspelt_live_in, toy_system, upper_entities
from releval.api import score_e2e
from releval.cli import main
from releval.core.errors import InputError
from releval.data.e2e import load_e2e, to_dygie
from releval.tasks.e2e import E2EConfig, score

SLICE = EXAMPLES / "conll04" / "conll04_test_first30.json"


def _write(path: Path, docs: list[dict]) -> Path:
    path.write_text(json.dumps(docs), encoding="utf-8")
    return path


def _first_record(docs: list[dict], key: str, label: str) -> str:
    """Where the first relation (or entity) of type `label` is, as the messages say it (counted here from JSON)."""
    k = next(i for i, d in enumerate(docs) if any(x["type"] == label for x in d[key]))
    return f"record {k + 1} (orig_id {docs[k]['orig_id']})"


def _quiet(gold: Path, pred: Path, **settings: object):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return score(gold, pred, E2EConfig(**settings))  # type: ignore[arg-type]


def test_lower_cased_relation_types_are_refused_and_gold_spelling_restores_the_score(tmp_path: Path) -> None:
    """The toy system with its relation types lower-cased scored Strict 0.00 (every relation a FP and a FN): now
    refused with the file, the field, every lower-cased type and its first record; written as gold spells them,
    it scores what the original does (77.55 / 93.88, per type the same counts)."""
    lowered = lower_relations(toy_system())
    pred = _write(tmp_path / "lower.json", lowered)
    with pytest.raises(InputError) as caught:
        score(SLICE, pred, E2EConfig())
    error = caught.value
    assert (error.file, error.field) == (str(pred), "relation type")
    assert error.message.startswith(
        "4 predicted relation type(s) differ from gold's only in letter case: 'live_in' (gold 'Live_In'), "
        "'located_in' (gold 'Located_In'), 'orgbased_in' (gold 'OrgBased_In'), 'work_for' (gold 'Work_For') "
        f"(first at {_first_record(lowered, 'relations', 'live_in')});"
    )
    spelling = {t.lower(): t for d in GOLD for t in (r["type"] for r in d["relations"])}
    for doc in lowered:
        for relation in doc["relations"]:
            relation["type"] = spelling[relation["type"]]
    fixed = _quiet(SLICE, _write(tmp_path / "fixed.json", lowered))
    original = _quiet(SLICE, _write(tmp_path / "original.json", toy_system()))
    assert round(100 * fixed["strict"]["micro"].f, 2) == 77.55
    assert round(100 * fixed["boundaries"]["micro"].f, 2) == 93.88
    for criterion in ("ner", "strict", "boundaries"):
        assert fixed[criterion].per_class == original[criterion].per_class


def test_upper_cased_entity_types_are_refused(tmp_path: Path) -> None:
    """NER scored 0.00 with `PEOP` for `Peop`: refused, at the first record with an entity."""
    upper = upper_entities(toy_system())
    pred = _write(tmp_path / "upper.json", upper)
    with pytest.raises(InputError, match=r"4 predicted entity type\(s\) differ from gold's only in letter case") as e:
        score_e2e(SLICE, pred)
    assert e.value.field == "entity type" and e.value.file == str(pred)
    assert f"'PEOP' (gold 'Peop') (first at {_first_record(upper, 'entities', 'LOC')})" in e.value.message


def test_a_type_outside_the_types_file_is_refused_and_outside_gold_warned(tmp_path: Path) -> None:
    """`Lives_In` for `Live_In`: with --types a type the file does not declare, refused with the closest declared
    type; without a types file gold is the only reference: warned (counted as false positives)."""
    typo = misspelt_live_in(toy_system())
    pred = _write(tmp_path / "typo.json", typo)
    with pytest.raises(InputError) as caught:
        score(SLICE, pred, E2EConfig(types=CONLL04_TYPES))
    assert caught.value.message.startswith(
        f"1 predicted relation type(s) not declared in the types file {CONLL04_TYPES}: 'Lives_In' (closest declared "
        "'Live_In') (first at "
    )
    result = _quiet(SLICE, pred)
    assert [w.code for w in result.warnings] == ["pred-only-labels"]
    assert "'Lives_In' (gold has 'Live_In')" in result.warnings[0]
    live_in = next(r for r in result["strict"].per_class if r.label == "Live_In")
    gold_live_in = sum(r["type"] == "Live_In" for d in GOLD for r in d["relations"])
    assert (live_in.tp, live_in.fn) == (0, gold_live_in)  # every Live_In missed: what the warning is about


def test_gold_types_the_types_file_does_not_declare_are_refused(tmp_path: Path) -> None:
    """Another dataset's types file: gold's own types are not in it (its rows would be made up): refused, naming
    gold; a declared type gold never uses is a legitimate prediction (no warning)."""
    declared = json.loads(CONLL04_TYPES.read_text(encoding="utf-8"))
    del declared["relations"]["Live_In"]
    types = tmp_path / "types.json"
    types.write_text(json.dumps(declared), encoding="utf-8")
    pred = _write(tmp_path / "system.json", toy_system())
    with pytest.raises(InputError, match=r"1 gold's relation type\(s\) not declared in the types file") as caught:
        score(SLICE, pred, E2EConfig(types=types))
    assert caught.value.file == str(SLICE)
    kill = toy_system()  # no Kill in the slice's gold, declared by CoNLL04's types file
    kill[2]["relations"][0]["type"] = "Kill"
    result = _quiet(SLICE, _write(tmp_path / "kill.json", kill), types=CONLL04_TYPES)
    assert result.warnings == []


def test_predictions_equal_to_gold_are_warned_and_one_difference_is_not(tmp_path: Path) -> None:
    copy = _write(tmp_path / "copy.json", GOLD)
    result = _quiet(SLICE, copy)
    assert [(w.code, str(w)) for w in result.warnings] == [
        (
            "pred-equals-gold",
            f"predictions equal gold: did you pass gold twice? {copy} reproduces gold exactly on all 30 sentences",
        )
    ]
    assert result["strict"].warnings == result.warnings  # in each criterion's result (JSON, the board) as well
    one_off = json.loads(json.dumps(GOLD))
    one_off[29]["entities"][0]["end"] += 1  # one span one token longer: not gold any more
    assert _quiet(SLICE, _write(tmp_path / "one_off.json", one_off)).warnings == []


def test_swapped_by_name_exchanges_precision_and_recall_and_is_warned(tmp_path: Path) -> None:
    system = _write(tmp_path / "spert_predictions.json", toy_system())
    gold = _write(tmp_path / "conll04_test_gold.json", GOLD)
    right = _quiet(gold, system)
    swapped = _quiet(system, gold)
    assert right.warnings == []
    assert [w.code for w in swapped.warnings] == ["swapped-files"]
    assert f"the prediction file {gold} is named like a gold file" in swapped.warnings[0]
    micro, other = right["strict"]["micro"], swapped["strict"]["micro"]
    assert (other.precision, other.recall) == (micro.recall, micro.precision)


def test_swapped_by_content(tmp_path: Path) -> None:
    """Content that only one side has: a PURE/DyGIE++ model output (predicted_ner/predicted_relations) given as
    gold beside the dataset; SpERT gold without orig_id beside predictions with them (SpERT writes none)."""
    docs, system = load_e2e(SLICE).documents, load_e2e(_write(tmp_path / "s.json", toy_system())).documents
    output = [g | p for g, p in zip(to_dygie(docs), to_dygie(system, predicted=True))]
    out_path = tmp_path / "a.jsonl"
    out_path.write_text("".join(json.dumps(d) + "\n" for d in output), encoding="utf-8")
    data_path = tmp_path / "b.jsonl"
    data_path.write_text("".join(json.dumps(d) + "\n" for d in to_dygie(docs)), encoding="utf-8")
    result = _quiet(out_path, data_path)
    codes = [w.code for w in result.warnings]
    assert codes == ["pred-equals-gold", "swapped-files"]  # the output's gold keys read as gold, the dataset's too
    assert f"the gold file {out_path} holds a model's output (predicted_ner/predicted_relations)" in result.warnings[1]
    assert _quiet(data_path, out_path).warnings == []  # the right way round: predicted_* read, nothing to say
    no_ids = _write(tmp_path / "c.json", [{k: v for k, v in d.items() if k != "orig_id"} for d in toy_system()])
    with_ids = _write(tmp_path / "d.json", GOLD)
    swapped = _quiet(no_ids, with_ids, by_position=True)
    assert [w.code for w in swapped.warnings] == ["swapped-files"]
    assert "the prediction file has sentence ids (orig_id) and the gold file has none" in swapped.warnings[0]
    assert _quiet(with_ids, no_ids, by_position=True).warnings == []


def test_the_header_says_what_each_criterion_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 34: "Strict = Strict (…)" named the criterion twice."""
    pred = _write(tmp_path / "system.json", toy_system())
    assert main(["score", str(SLICE), str(pred), "--task", "e2e"]) == 0
    out = capsys.readouterr().out
    assert (
        "relations — Strict = argument spans and types + relation type; Boundaries = argument spans + relation "
        "type; argument types ignored ==" in out
    )
    assert "Strict = Strict" not in out


@pytest.mark.parametrize("task", [["--task", "e2e"], []])
def test_audit_reports_the_refusal_as_an_error(
    task: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`audit run` (with --task e2e, or detecting end-to-end files) gives the refusal as an error finding, exit 1."""
    pred = _write(tmp_path / "lower.json", lower_relations(toy_system()))
    assert main(["audit", "run", str(SLICE), str(pred), *task, "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["code"], f["severity"]) for f in findings] == [("label-mistake", "error")]
    assert "relation type(s) differ from gold's only in letter case" in findings[0]["message"]


def test_pure_dygie_refusals_name_the_sentence_id(tmp_path: Path) -> None:
    """In PURE/DyGIE++ files the location is the sentence's id (its doc_key here: one sentence per document)."""
    records = to_dygie(load_e2e(SLICE).documents)
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    for record in records:
        for relation in record["relations"][0]:
            relation[4] = relation[4].lower()
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    first = next(r["doc_key"] for r in records if any(x[4] == "live_in" for x in r["relations"][0]))
    with pytest.raises(InputError, match=rf"\(gold 'Work_For'\) \(first at sentence id {first}\);"):
        score(tmp_path / "gold.jsonl", tmp_path / "pred.jsonl", E2EConfig())


def test_gold_without_relations_leaves_predicted_types_alone(tmp_path: Path) -> None:
    """Sentences whose gold has no relation (nothing to hold the predicted types against): a predicted relation is
    a false positive, not a vocabulary mistake."""
    gold = [d | {"relations": []} for d in GOLD[:3]]
    pred = json.loads(json.dumps(gold))
    pred[0]["relations"] = [{"type": "Kill", "head": 0, "tail": 1}]
    result = _quiet(_write(tmp_path / "g.json", gold), _write(tmp_path / "p.json", pred))
    assert result.warnings == []
    assert (result["strict"]["micro"].precision, result["strict"]["micro"].recall) == (0.0, 0.0)
