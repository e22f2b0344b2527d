"""DocRED and ranked relation facts get the label checks of releval.tasks.vocabulary: relation ids that cannot
match gold (letter case, DocRED's names for its P-ids) are refused naming the file and the first prediction with
one, a submission equal to gold is warned; ranked gold reads OpenNRE's `anno_relation_list`.

The values are known independently: restoring the ids gives back the original file's numbers; the AUC of the
anno_relation_list case is computed by hand below and is what OpenNRE's `BagREDataset.eval` (commit 8e42fd7,
run unmodified outside the repository with torch stubbed) printed for the same two files: 0.6208333333333333 with
the lists read, 0.46111111111111114 from `relation` alone.
"""

from __future__ import annotations

import gzip
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mistakes.docred import GOLD, NAMES, SYSTEM_A, gold_as_submission, lowered, named
from releval.audit.docred_checks import audit_docred
from releval.cli import main
from releval.core.errors import InputError
from releval.tasks.docred import DocredConfig
from releval.tasks.docred import score_files as docred_score
from releval.tasks.ranked import RankedConfig
from releval.tasks.ranked import score as ranked_score

DATA = Path(__file__).parent / "data" / "ranked"
RANKED = Path(__file__).parents[1] / "examples" / "ranked"


def _read(path: Path) -> Any:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def _f1(pred: Path, **kw: Any) -> Any:
    return docred_score(str(GOLD), [(None, str(pred))], DocredConfig(**kw))[0]


# ------------------------------------------------------------------------------------------------------ DocRED


def test_lower_case_ids_are_refused_at_their_first_prediction_and_restored_ids_score_as_the_original(
    tmp_path: Path,
) -> None:
    sub = _read(SYSTEM_A)
    bad = _write(tmp_path / "lower.json", lowered(sub))
    with pytest.raises(InputError) as caught:
        _f1(bad)
    first_p1001 = next(i for i, p in enumerate(sub) if p["r"] == "P1001")  # the first bad id shown, sorted
    message = str(caught.value)
    assert message.startswith(f"{bad}: field 'relation id': 76 predicted relation id(s) differ from gold's only in")
    assert f"(first at prediction {first_p1001 + 1}, title {sub[first_p1001]['title']!r})" in message
    restored = _write(tmp_path / "restored.json", [{**p, "r": p["r"].upper()} for p in lowered(sub)])
    original = _f1(SYSTEM_A)
    assert _f1(restored).official == original.official
    assert round(100 * original.official["f1"], 2) == 79.15  # docs/docred.md's system A


def test_names_for_ids_are_refused_with_the_ids_and_without_promising_relation_names(tmp_path: Path) -> None:
    sub = _read(SYSTEM_A)
    bad = _write(tmp_path / "names.json", named(sub))
    for kw in ({}, {"relation_names": "docred"}):  # --relation-names does not make names readable
        with pytest.raises(InputError, match=r"are names where gold has ids: 'applies to jurisdiction' \(gold 'P1001'"):
            _f1(bad, **kw)
    with pytest.raises(InputError, match="it does not read names in predictions"):
        _f1(bad)
    names = json.loads(NAMES.read_text(encoding="utf-8"))
    ids = {name: rid for rid, name in names.items()}
    restored = _write(tmp_path / "restored.json", [{**p, "r": ids[p["r"]]} for p in named(sub)])
    assert _f1(restored).official == _f1(SYSTEM_A).official


def test_one_relation_name_in_other_letter_case_is_still_a_name(tmp_path: Path) -> None:
    sub = [{**p, "r": "Country"} if p["r"] == "P17" else p for p in _read(SYSTEM_A)]
    only_named = [p for p in sub if p["r"] == "Country"]
    with pytest.raises(InputError, match=r"'Country' \(gold 'P17'\)"):
        _f1(_write(tmp_path / "country.json", only_named))


def test_gold_as_submission_is_warned_and_one_fact_less_is_not(tmp_path: Path) -> None:
    facts = gold_as_submission(_read(GOLD))
    result = _f1(_write(tmp_path / "copy.json", facts))
    assert result.official["f1"] == 1.0 and result.official["evi_f1"] == 1.0
    warned = [w for w in result.warnings if w.code == "pred-equals-gold"]
    assert len(warned) == 1 and "reproduces gold exactly on all 40 documents" in warned[0]
    short = _f1(_write(tmp_path / "short.json", facts[1:]))
    assert not [w for w in short.warnings if w.code == "pred-equals-gold"]
    other_evidence = [{**facts[0], "evidence": []}, *facts[1:]]
    assert not [w for w in _f1(_write(tmp_path / "e.json", other_evidence)).warnings if w.code == "pred-equals-gold"]


def test_an_unknown_id_is_warned_and_a_docred_id_gold_lacks_is_not(tmp_path: Path) -> None:
    sub = _read(SYSTEM_A)
    gold_ids = {x["r"] for d in _read(GOLD) for x in d["labels"]}
    absent = sorted(set(json.loads(NAMES.read_text(encoding="utf-8"))) - gold_ids)[0]
    extra = {**sub[0], "h_idx": 0, "t_idx": 1}
    result = _f1(_write(tmp_path / "a.json", [*sub, {**extra, "r": "P99999"}, {**extra, "r": absent}]))
    unseen = [w for w in result.warnings if w.code == "pred-only-labels"]
    assert (
        len(unseen) == 1 and "1 predicted relation id(s) never occur in gold" in unseen[0] and "'P99999'" in unseen[0]
    )


def test_a_submission_named_like_gold_is_warned(tmp_path: Path) -> None:
    pred = _write(tmp_path / "gold.json", _read(SYSTEM_A))
    assert [w.code for w in _f1(pred).warnings].count("swapped-files") == 1


def test_audit_reports_the_refusal_and_the_warning(tmp_path: Path) -> None:
    report = audit_docred(GOLD, _write(tmp_path / "lower.json", lowered(_read(SYSTEM_A))), DocredConfig())
    assert [f.code for f in report.errors] == ["refused-relations"]
    assert "differ from gold's only in letter case" in report.errors[0].message
    copy = audit_docred(GOLD, _write(tmp_path / "copy.json", gold_as_submission(_read(GOLD))), DocredConfig())
    assert copy.get("pred-equals-gold") is not None and copy.get("pred-equals-gold").severity == "warning"  # type: ignore[union-attr]


# ------------------------------------------------------------------------------------------------------ ranked


def test_ranked_relation_in_other_letter_case_is_refused_at_its_line(tmp_path: Path) -> None:
    lines = (RANKED / "cnn.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if "\t/rel/r1\t" in line) + 1
    pred = tmp_path / "cnn.tsv"
    pred.write_text("".join(line.replace("\t/rel/r1\t", "\t/REL/R1\t") for line in lines), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        ranked_score(RANKED / "gold.jsonl", pred, RankedConfig(duplicates="count"))
    assert str(caught.value) == (
        f"{pred}: field 'relation': 1 predicted relation(s) differ from gold's only in letter case: '/REL/R1' (gold "
        f"'/rel/r1') (first at line {first}); they match nothing and would score 0 — write them as gold does"
    )


def test_ranked_relation_gold_lacks_is_warned_with_its_count() -> None:
    result = ranked_score(RANKED / "gold.jsonl", RANKED / "cnn.tsv", RankedConfig(duplicates="count"))
    unseen = [w for w in result.warnings if w.code == "pred-only-labels"]
    assert len(unseen) == 1 and "1 predicted relation(s) never occur in gold" in unseen[0] and "'/rel/r9'" in unseen[0]


def test_ranked_gold_facts_as_predictions_are_warned(tmp_path: Path) -> None:
    facts = dict.fromkeys(
        (r["h"]["id"], r["t"]["id"], r["relation"])
        for r in map(json.loads, (RANKED / "gold.jsonl").read_text(encoding="utf-8").splitlines())
        if r["relation"] != "NA"
    )
    pred = tmp_path / "facts.tsv"
    pred.write_text("".join(f"{h}\t{t}\t{r}\t0.9\n" for h, t, r in facts), encoding="utf-8")
    result = ranked_score(RANKED / "gold.jsonl", pred)
    warned = [w for w in result.warnings if w.code == "pred-equals-gold"]
    assert len(warned) == 1 and f"on all {len(facts)} facts" in warned[0]
    assert result.measures["max_f1"] == 1.0
    pred.write_text("".join(f"{h}\t{t}\t{r}\t0.9\n" for h, t, r in list(facts)[1:]), encoding="utf-8")
    assert not [w for w in ranked_score(RANKED / "gold.jsonl", pred).warnings if w.code == "pred-equals-gold"]


def _hand_auc(hits: list[bool], n_facts: int) -> Fraction:
    """sklearn.metrics.auc(recall, precision) over the ranking, in exact fractions: trapezoids between points."""
    points, correct = [], 0
    for i, hit in enumerate(hits, 1):
        correct += hit
        points.append((Fraction(correct, n_facts), Fraction(correct, i)))
    return sum(((r1 - r0) * (p0 + p1) / 2 for (r0, p0), (r1, p1) in zip(points, points[1:])), Fraction(0))


def test_anno_relation_list_gives_the_facts_as_opennre_reads_them(tmp_path: Path) -> None:
    # gold: (a, b) annotated x and y; (c, d) distantly y but annotated NA; (e, f) distantly NA but annotated z;
    # (g, h) z. Ranked predictions: e-f z, a-b x, c-d y, a-b y, g-h z, c-d x (c-d NA dropped).
    gold, pred = DATA / "anno_gold.jsonl", DATA / "anno_pred.tsv"
    listed = _hand_auc([True, True, False, True, True, False], 4)
    assert listed == Fraction(149, 240)
    result = ranked_score(gold, pred)
    assert result.n_facts == 4 and result.measures["auc"] == pytest.approx(float(listed), abs=1e-15)
    assert result.measures["auc"] == 0.6208333333333333  # OpenNRE's BagREDataset.eval, same files
    plain = tmp_path / "plain.jsonl"
    rows = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines()]
    plain.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "anno_relation_list"}) + "\n" for r in rows)
    )
    by_relation = _hand_auc([False, True, True, False, True, False], 3)
    assert by_relation == Fraction(83, 180)
    assert ranked_score(plain, pred).measures["auc"] == pytest.approx(float(by_relation), abs=1e-15)


def test_a_malformed_anno_relation_list_is_refused_at_its_line(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    lines = (DATA / "anno_gold.jsonl").read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace('"anno_relation_list": ["NA"]', '"anno_relation_list": "NA"')
    gold.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"gold.jsonl:3: field 'anno_relation_list': expected a list of relations"):
        ranked_score(gold, DATA / "anno_pred.tsv")


def test_score_command_reads_anno_relation_list(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["score", str(DATA / "anno_gold.jsonl"), str(DATA / "anno_pred.tsv"), "--task", "ranked", "-f", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["results"][0]["facts"] == 4 and out["results"][0]["measures"]["auc"] == 0.6208333333333333
