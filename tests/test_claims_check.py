"""`claims check` compares a result only with claims measured on its test set (issue 14): the registry records each
claim's test set (size, gold digest where releval can compute it, patch), the verdict refuses a result on other test
data with the reason spelled out, and every system of a result file gets its own verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SEMEVAL_KEY, semeval_predictions, shared_path

import releval
from releval.audit import claims as claims_module
from releval.audit.claims import ClaimsCheck, ClaimVerdict, check_result, claims, known_test_sets, render_verdicts
from releval.audit.comparability import load_results
from releval.cli import main
from releval.core.signature import Signature

CONLL04_SLICE = Path(__file__).resolve().parents[1] / "examples" / "conll04" / "conll04_test_first30.json"
GUPTA = "the CoNLL04 test set (Gupta et al. 2016 split)"


def _save(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _near_copy(gold: Path, folder: Path) -> Path:
    """Gold's documents under gold's file name, less the first relation of the first document that has one: a
    system all but perfect (gold itself as predictions is warned, and a stored warning blocks every claim)."""
    docs = json.loads(gold.read_text())
    first = next(doc for doc in docs if doc.get("relations"))
    first["relations"] = first["relations"][1:]
    folder.mkdir(exist_ok=True)
    return _save(folder / gold.name, docs)


def _score_e2e(gold: Path, pred: Path, out: Path, *options: str) -> Path:
    if pred == gold:
        pred = _near_copy(gold, out.parent / "system")
    assert main(["score", "--task", "e2e", str(gold), str(pred), *options, "-f", "json", "-o", str(out)]) == 0
    return out


def _resigned(result: dict[str, Any], **fields: str) -> dict[str, Any]:
    """A saved result with some signature fields replaced (as scoring on other test data would have signed it)."""
    signature = dict(releval.signature.parse(result["signature"]).fields) | fields
    return result | {"signature": str(Signature.build(**signature))}


def _by_id(check: ClaimsCheck) -> dict[str, ClaimVerdict]:
    return {v.claim_id: v for v in check.verdicts}


# ---------------------------------------------------------------- the registry


def test_every_claim_records_its_test_set() -> None:
    """Every entry names a known test set of its dataset, with that set's size, its gold digest or null (never
    another digest), and a note saying where they come from; every test set has its provenance."""
    sets = known_test_sets()
    for c in claims():
        assert {"test_set", "test_size", "gold", "test_set_note"} <= set(c), c["id"]
        ts = sets[c["test_set"]]
        assert ts["dataset"] == c["dataset"], c["id"]
        assert c["test_size"] == ts["size"], c["id"]
        assert c["gold"] in (None, ts["gold"]), c["id"]
        assert isinstance(c["test_set_note"], str) and c["test_set_note"], c["id"]
    for key, ts in sets.items():
        assert ts["unit"] in ("items", "sentences") and ts["provenance"], key
        assert ts["gold"] is None or isinstance(ts["size"], int), key
    # claims on data releval can fingerprint here carry the digest; ACE05 and the others cannot
    assert {c["gold"] for c in claims(dataset="tacred")} == {"39b0892f"}
    assert {c["gold"] for c in claims(dataset="semeval")} == {"d074657e"}
    assert all(c["gold"] is None for d in ("ace05", "ace04", "ade", "scierc") for c in claims(dataset=d))
    table4 = [c for c in claims(dataset="ace05", source="taille2020") if c["table"] == "4"]
    assert {(c["test_size"], c["gold"]) for c in table4} == {(2050, None)}


def test_recorded_digests_are_releval_s_own(conll04_test: Path, tmp_path: Path) -> None:
    """The sizes and gold digests recorded for SemEval and CoNLL04 are what releval signs for the bundled test data
    (the full SemEval key; sincere's CoNLL04 test split, the file Taillé et al. used)."""
    sets = known_test_sets()
    semeval = releval.score(SEMEVAL_KEY, semeval_predictions("cnn")).signature
    assert (semeval["n"], semeval["gold"]) == ("2717", sets["semeval2010-task8-test"]["gold"])
    undirected = releval.score(SEMEVAL_KEY, semeval_predictions("cnn"), view="undirected").signature
    assert undirected["gold"] == sets["semeval2010-task8-test-undirected"]["gold"]
    saved = json.loads(_score_e2e(conll04_test, conll04_test, tmp_path / "c.json").read_text())
    for result in saved["results"][0]["criteria"].values():
        signature = releval.signature.parse(result["signature"])
        assert (signature["n"], signature["gold"]) == ("288", sets["conll04-test-gupta2016"]["gold"])


def test_recorded_tacred_digests_are_releval_s_own() -> None:
    """TACRED test (15,509 items) and TACRED test with the TACRev patch applied: size, gold and patch digests."""
    labels = shared_path("data", "tacred_labels", "test_results", "cnn_test.jsonl.gz")
    patch = shared_path("data", "tacred_labels", "patch", "test_patch.json")
    sets = known_test_sets()
    plain = releval.score(labels, labels, negative="no_relation").signature
    assert (plain["n"], plain["gold"], plain.get("patch")) == ("15509", sets["tacred-test"]["gold"], None)
    patched = releval.score(labels, labels, negative="no_relation", patch=patch).signature
    tacrev = sets["tacred-test+tacrev"]
    assert (patched["n"], patched["gold"], patched["patch"]) == ("15509", tacrev["gold"], tacrev["patch"])


# ---------------------------------------------------------------- CoNLL04


def test_thirty_sentence_slice_is_not_comparable_with_full_conll04_claims(tmp_path: Path) -> None:
    """The bundled 30-sentence slice of CoNLL04 test may be compared with no published CoNLL04 number: those on
    the Gupta et al. split say 30 of its 288 sentences, those whose split is not known say so."""
    path = _score_e2e(CONLL04_SLICE, CONLL04_SLICE, tmp_path / "slice.json")
    check = check_result(load_results(path))
    assert check.dataset == "conll04" and check.systems() == ["conll04_test_first30 (slice.json)"]
    assert not any(v.comparable for v in check.verdicts)
    by_id = _by_id(check)
    full = [c["id"] for c in claims(dataset="conll04") if c["test_set"] == "conll04-test-gupta2016"]
    assert len(full) == 21  # Taillé Table 4 (16), Eberts and Ulges (2020), four Relaxed results on Gupta's split
    for claim_id in full:
        assert f"result on 30 of 288 test sentences: not {GUPTA}" in by_id[claim_id].reasons, claim_id
    # the Strict Table 4 claims are refused for the test set alone: the settings agree
    assert by_id["taille2020-t4-bert-span-train-conll04-strict"].reasons == [
        f"result on 30 of 288 test sentences: not {GUPTA}"
    ]
    [unknown] = by_id["taille2020-t2-strict-miwa-sasaki2014-conll04"].reasons
    assert unknown.startswith("test set unknown (CoNLL04 test set of Miwa and Sasaki (2014)'s split): ")
    assert main(["claims", "check", str(path)]) == 0
    assert "may be compared with (0):\nmay NOT be compared with (28):" in render_verdicts(*check)


def test_full_conll04_test_is_comparable_with_claims_on_it(conll04_test: Path, tmp_path: Path) -> None:
    """A Strict result on the whole CoNLL04 test split may be compared with the Strict claims on that split (Taillé
    Table 4 and Eberts and Ulges), not with the Boundaries ones (criterion), nor with those whose split is unknown."""
    path = _score_e2e(conll04_test, conll04_test, tmp_path / "full.json", "--criterion", "strict")
    by_id = _by_id(check_result(load_results(path)))
    comparable = sorted(k for k, v in by_id.items() if v.comparable)
    strict_on_gupta = [
        c["id"] for c in claims(dataset="conll04", criterion="strict") if c["test_set"] == "conll04-test-gupta2016"
    ]
    assert comparable == sorted(strict_on_gupta) and len(comparable) == 9
    assert by_id["taille2020-t4-bert-span-train-conll04-strict"].reasons == [
        "same task, criterion, negative class and averaging (micro)",
        f"same test set: {GUPTA}, 288 sentences, gold digest 443cd97c",
        "the claim is a mean over 5 runs: compare it with a mean over runs",
    ]
    assert by_id["taille2020-t4-bert-span-train-conll04-boundaries"].reasons == [
        "criterion differs: the claim is boundaries, your result has strict"
    ]
    [giorgi] = by_id["taille2020-t2-strict-giorgi2019-conll04"].reasons
    assert giorgi.startswith("test set unknown (CoNLL04 test set, split not known): Taillé et al. §4.2: Giorgi")
    assert giorgi.endswith(f"releval cannot check that yours is the same; yours is {GUPTA}")


def test_same_size_other_gold_is_not_comparable(conll04_test: Path, tmp_path: Path) -> None:
    """288 sentences in another order (or relabelled): the size agrees, the gold digest does not."""
    shuffled = tmp_path / "reversed.json"
    shuffled.write_text(json.dumps(json.loads(conll04_test.read_text())[::-1]))
    path = _score_e2e(shuffled, shuffled, tmp_path / "r.json", "--criterion", "strict")
    [strict] = [r for r in load_results(path) if r.criterion == "strict"]
    verdict = _by_id(check_result(load_results(path)))["taille2020-t4-bert-span-train-conll04-strict"]
    assert not verdict.comparable
    assert verdict.reasons == [
        f"gold labels differ from those of {GUPTA}: digest {strict.signature['gold']}, not 443cd97c (another version "
        "or relabelling of the data, such as a TACRev patch, other sentences, or the same sentences in another order?)"
    ]


def test_size_alone_when_no_digest_is_recorded(tmp_path: Path) -> None:
    """ACE05 is not available here, so its claims record only the size: a result on 2,050 sentences may be compared
    with Taillé's Table 4 (saying only the size was checked), one on 1,535 with Li and Ji (2014)'s."""
    result = releval.score(["PHYS", "ORG-AFF", "PHYS"], ["PHYS", "PHYS", "PHYS"], negative=None).to_dict()
    e2e = {"task": "e2e", "criterion": "strict", "negative": "none"}
    path = _save(tmp_path / "ace.json", _resigned(result, **e2e, n="2050", gold="0badc0de"))
    by_id = _by_id(check_result(load_results(path), "ace05"))
    taille = by_id["taille2020-t4-bert-span-train-ace05-strict"]
    assert taille.comparable
    assert (
        "same number of test sentences as the ACE05 test set as Taillé et al. (2020) preprocessed it (Miwa and "
        "Bansal 2016's scripts) (2050); its gold digest is not recorded (releval cannot compute it from data "
        "available here), so only the size was checked"
    ) in taille.reasons
    assert by_id["taille2020-t2-strict-li-ji2014-ace05"].reasons == [
        "result on 2050 test sentences, not 1535: not the ACE05 test set of Li and Ji (2014)"
    ]
    path = _save(tmp_path / "ace.json", _resigned(result, **e2e, n="1535", gold="0badc0de"))
    by_id = _by_id(check_result(load_results(path), "ace05"))
    assert by_id["taille2020-t2-strict-li-ji2014-ace05"].comparable
    assert not by_id["taille2020-t4-bert-span-train-ace05-strict"].comparable


# ---------------------------------------------------------------- SemEval and TACRED


def test_semeval_full_key_is_comparable_with_semeval_claims(tmp_path: Path) -> None:
    """The full SemEval key, directed: both Harbecke Table 4 claims; undirected: neither, the gold named."""
    result = releval.score(SEMEVAL_KEY, semeval_predictions("rbert"))
    check = check_result(load_results(_save(tmp_path / "rbert.json", result.to_dict())))
    assert check.dataset == "semeval" and [v.comparable for v in check.verdicts] == [True, True]
    for v in check.verdicts:
        assert (
            "same test set: the SemEval-2010 Task 8 test set (directed labels), 2717 items, gold digest d074657e"
            in (v.reasons)
        )
    undirected = releval.score(SEMEVAL_KEY, semeval_predictions("rbert"), view="undirected")
    check = check_result(load_results(_save(tmp_path / "u.json", undirected.to_dict())))
    assert [v.comparable for v in check.verdicts] == [False, False]
    assert check.verdicts[0].reasons == [
        "gold labels differ from those of the SemEval-2010 Task 8 test set (directed labels): digest 87d26bd4, not "
        "d074657e; they are those of the SemEval-2010 Task 8 test set (undirected labels)",
        "label view differs: the claim is directed, yours is undirected",
    ]


def test_tacrev_patched_result_is_not_comparable_with_tacred_claims(tmp_path: Path) -> None:
    """TACRED test scored with the TACRev patch: not comparable with any plain-TACRED claim (the registry has no
    claim on TACRev), the patch and the gold named; the same predictions on plain TACRED: PTR and Olek's corrected
    number."""
    labels = shared_path("data", "tacred_labels", "test_results", "cnn_test.jsonl.gz")
    patch = shared_path("data", "tacred_labels", "patch", "test_patch.json")
    assert not [c for c in claims(dataset="tacred") if c["test_set"] != "tacred-test"]
    patched = releval.score(labels, labels, negative="no_relation", patch=patch)
    check = check_result(load_results(_save(tmp_path / "tacrev.json", patched.to_dict())))
    assert check.dataset == "tacred" and len(check.verdicts) == 6 and not any(v.comparable for v in check.verdicts)
    for v in check.verdicts:
        assert v.reasons[-2:] == [
            "your gold was patched (patch f8816ca4), the claim is on the unpatched TACRED test set",
            "gold labels differ from those of the TACRED test set: digest a6f12a00, not 39b0892f; they are those of "
            "the TACRED test set patched with TACRev",
        ], v.claim_id
    plain = releval.score(labels, labels, negative="no_relation")
    by_id = _by_id(check_result(load_results(_save(tmp_path / "tacred.json", plain.to_dict()))))
    assert sorted(k for k, v in by_id.items() if v.comparable) == [
        "harbecke2022-t3-ptr-tacred",
        "olek-t1t2-recent-spanbert-corrected",
    ]


def test_a_claim_on_a_patched_test_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reverse rule, on a claim placed on TACRev for this test: an unpatched TACRED result is refused; a result
    whose gold file was TACRev already (no patch applied by releval, TACRev's digest) and one patched with TACRev's
    patch are compared."""
    registry = claims_module.registry()
    tacrev_claim = dict(registry["claims"][-1]) | {
        "id": "test-ptr-tacrev",
        "test_set": "tacred-test+tacrev",
        "gold": "a6f12a00",
        "missing_policy": "wrong",
        "incorrectly_stated": False,
    }
    monkeypatch.setattr(claims_module, "registry", lambda: registry | {"claims": [tacrev_claim]})
    # a result that warns nothing (predictions equal to gold would block every claim: stored warnings count)
    result = releval.score(["no_relation", "per:title"], ["per:title", "per:title"]).to_dict()

    def verdict(**fields: str) -> ClaimVerdict:
        path = _save(tmp_path / "r.json", _resigned(result, n="15509", **fields))
        [v] = check_result(load_results(path), "tacred").verdicts
        return v

    unpatched = verdict(gold="39b0892f")
    assert not unpatched.comparable
    assert unpatched.reasons == [
        "the claim is on the TACRED test set patched with TACRev (patch f8816ca4); your gold was not patched",
        "gold labels differ from those of the TACRED test set patched with TACRev: digest 39b0892f, not a6f12a00; "
        "they are those of the TACRED test set",
    ]
    assert verdict(gold="a6f12a00").comparable
    assert verdict(gold="a6f12a00", patch="f8816ca4").comparable
    assert not verdict(gold="a6f12a00", patch="0123abcd").comparable


# ---------------------------------------------------------------- several systems


def test_every_system_of_a_result_file_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two systems in one `releval score` file: a verdict block for each, in file order, each with its own score."""
    out = tmp_path / "two.json"
    preds = [str(semeval_predictions(s)) for s in ("rbert", "cnn")]
    assert main(["score", str(SEMEVAL_KEY), *preds, "-f", "json", "-o", str(out)]) == 0
    check = check_result(load_results(out))
    assert check.systems() == ["onehaitao_rbert (two.json#1)", "onehaitao_cnn (two.json#2)"]
    assert len(check.verdicts) == 4 and all(v.comparable for v in check.verdicts)
    yours = {v.system: v.yours for v in check.verdicts}
    assert yours["onehaitao_rbert (two.json#1)"] != yours["onehaitao_cnn (two.json#2)"]
    capsys.readouterr()
    assert main(["claims", "check", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("published results on SemEval-2010 Task 8 (2):\n\n== onehaitao_rbert (two.json#1) ==\n")
    blocks = text.split("\n== ")[1:]
    assert [b.splitlines()[0] for b in blocks] == ["onehaitao_rbert (two.json#1) ==", "onehaitao_cnn (two.json#2) =="]
    assert all("may be compared with (2):" in b and "may NOT be compared with (0):" in b for b in blocks)
    saved = ClaimsCheck.from_dict(json.loads(json.dumps(check.to_dict())))
    assert saved == check and saved.systems() == check.systems()


def test_end_to_end_systems_keep_their_criteria_together(conll04_test: Path, tmp_path: Path) -> None:
    """An end-to-end file with two systems has six entries (NER, Strict, Boundaries each) but two systems, each
    checked against the CoNLL04 claims with its own scores."""
    docs = json.loads(conll04_test.read_text())
    for doc in docs[::3]:
        doc["relations"] = doc["relations"][1:]
    fewer = _save(tmp_path / "fewer.json", docs)
    out = tmp_path / "e2e.json"
    near = _near_copy(conll04_test, tmp_path / "system")  # one relation less: gold itself would be warned
    assert main(["score", "--task", "e2e", str(conll04_test), str(near), str(fewer), "-f", "json", "-o", str(out)]) == 0
    assert len(load_results(out)) == 6
    check = check_result(load_results(out))
    assert check.systems() == ["conll04_test (e2e.json#1)", "fewer (e2e.json#2)"]
    first, second = ([v for v in check.verdicts if v.system == s] for s in check.systems())
    assert len(first) == len(second) == 28
    assert sum(v.comparable for v in first) == sum(v.comparable for v in second) == 17
    for mine, theirs in zip((v for v in first if v.comparable), (v for v in second if v.comparable)):
        assert mine.claim_id == theirs.claim_id and 98 < mine.yours < 100 and theirs.yours < mine.yours


def test_a_check_saved_before_systems_loads() -> None:
    """A verdict saved without `system` loads with an empty one, and is rendered without a system header."""
    verdict = ClaimVerdict("c", "ref", "tacred", True, ["ok"], 1.0, 2.0)
    data = verdict.to_dict()
    del data["system"]
    assert ClaimVerdict.from_dict(data) == verdict
    assert "==" not in render_verdicts("tacred", [verdict])


def test_a_result_that_warns_its_predictions_are_gold_is_compared_with_no_claim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 32: `claims check` said "may be compared … yours 100.00" of a run whose predictions were gold itself.
    The warning the result stores (code pred-equals-gold) now blocks every claim, and is named as the reason."""
    pred = tmp_path / "system.txt"  # gold's lines under a system's name: only the identity is warned
    pred.write_text(SEMEVAL_KEY.read_text(encoding="utf-8"), encoding="utf-8")
    saved = tmp_path / "r.json"
    assert main(["score", str(SEMEVAL_KEY), str(pred), "-f", "json", "-o", str(saved)]) == 0
    stored = json.loads(saved.read_text(encoding="utf-8"))["results"][0]["warnings"]
    assert [w["code"] for w in stored] == ["pred-equals-gold"]
    check = check_result(load_results(saved))
    assert check.dataset == "semeval" and len(check.verdicts) == 2
    for v in check.verdicts:
        assert not v.comparable and v.yours == 100.0
        assert v.reasons == [f"your result warns (pred-equals-gold): {stored[0]['message']}"]
    capsys.readouterr()
    assert main(["claims", "check", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "may be compared with (0):" in out and "may NOT be compared with (2):" in out
    assert "your result warns (pred-equals-gold): predictions equal gold" in out


def test_a_warning_that_qualifies_an_interval_does_not_block(tmp_path: Path) -> None:
    """A stored warning about rare classes (an interval's caveat) leaves the number the claim's: comparable, with
    the warning listed; a fill of missing predictions (its own code) blocks."""
    result = releval.score(SEMEVAL_KEY, semeval_predictions("rbert")).to_dict()
    rare = {"code": "rare-classes", "message": "macro averages over 1 class with fewer than 5 gold items"}
    check = check_result(load_results(_save(tmp_path / "rare.json", result | {"warnings": [rare]})))
    assert [v.comparable for v in check.verdicts] == [True, True]
    assert all(v.reasons[-1] == f"your result warns (rare-classes): {rare['message']}" for v in check.verdicts)
    filled = {"code": "missing-filled-wrong", "message": "3 missing prediction(s) counted as wrong"}
    check = check_result(load_results(_save(tmp_path / "filled.json", result | {"warnings": [filled, "odd"]})))
    assert [v.comparable for v in check.verdicts] == [False, False]
    assert check.verdicts[0].reasons == [
        f"your result warns (missing-filled-wrong): {filled['message']}",
        "your result warns (warning): odd",
    ]
