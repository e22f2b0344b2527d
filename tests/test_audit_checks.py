"""`releval audit`: Olek's RECENT case from counts, the leak vectors, coverage / label-space / type-constraint findings
with exact counts on TACRED (../shared only) and SemEval (bundled) files; expected values computed independently."""

from __future__ import annotations

import gzip
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import precision_recall_fscore_support
from tests.conftest import SEMEVAL_KEY, SEMEVAL_TRAIN_KEY, data_path, semeval_predictions, shared_path

from releval.audit import audit
from releval.cli import main

TACRED = ("data", "tacred_labels", "test_results", "gcn_test.jsonl.gz")  # under ../shared: not bundled


def _truncated(x: float) -> float:
    """Olek's tables truncate to two decimals (75.856… is printed 75.85)."""
    return math.floor(10_000 * float(x)) / 100


def test_olek_case_from_counts() -> None:
    """olek-recent-f1.txt Tables 1–2: 944 gold-negative items left out → 75.85 under `negative`, 65.16 under `wrong`."""
    gold = {f"p{i}": "r" for i in range(3325)} | {f"n{i}": "no_relation" for i in range(246 + 944 + 500)}
    pred = {f"p{i}": ("r" if i < 2182 else "no_relation") for i in range(3325)}
    pred |= {f"n{i}": "r" for i in range(246)} | {f"n{i}": "no_relation" for i in range(1190, 1690)}
    report = audit(gold, pred, negative="no_relation")
    sens = report.get("missing-policy-sensitivity")
    assert sens is not None and sens.severity == "warning" and sens.count == 944
    neg, wrong = sens.data["negative"], sens.data["wrong"]
    assert (neg["tp"], neg["fp"], neg["fn"]) == (2182, 246, 1143)
    assert (wrong["tp"], wrong["fp"], wrong["fn"]) == (2182, 1190, 1143)
    assert [_truncated(neg[k]) for k in ("precision", "recall", "f")] == [89.86, 65.62, 75.85]
    assert [_truncated(wrong[k]) for k in ("precision", "recall", "f")] == [64.70, 65.62, 65.16]
    assert sens.data["f_difference"] == pytest.approx(4364 / (4364 + 246 + 1143) - 4364 / 6697)
    share = report.get("missing-gold-negative-share")
    assert share.severity == "error" and share.data["share"] == 1.0
    assert share.data["base_rate"] == pytest.approx(1690 / 5015)
    assert report.get("missing-predictions").count == 944
    assert report.exit_status == 1
    assert report.to_dict()["findings"][2]["data"]["negative"]["fp"] == 246


def test_recent_loophole_vectors() -> None:
    """negative_class_and_leak_vectors.json `recent_loophole.synthetic`: ids passed by the binary classifier but absent
    from the precomputed file are missing; `negative` filling gives the loophole score, `wrong` the corrected one."""
    vec = json.loads(data_path("testvectors", "negative_class_and_leak_vectors.json").read_text())
    syn = vec["recent_loophole"]["synthetic"]
    gold = {str(i): g for i, g in enumerate(syn["gold"])}
    present = set(syn["ids_present_in_precomputed_file"])
    pred = {}
    for i, (passes, out) in enumerate(zip(syn["binary_classifier_passes"], syn["type_restricted_classifier_output"])):
        if not passes:
            pred[str(i)] = "no_relation"
        elif i in present:
            pred[str(i)] = out
    report = audit(gold, pred)
    sens = report.get("missing-policy-sensitivity").data
    for policy, anchor in (("negative", syn["anchor_score"]), ("wrong", syn["corrected_score"])):
        assert sens[policy]["precision"] == pytest.approx(anchor["precision"])
        assert sens[policy]["recall"] == pytest.approx(anchor["recall"])
        assert sens[policy]["f"] == pytest.approx(anchor["f1"])
    assert report.get("missing-predictions").examples == ["0", "2", "6"]  # detector_expectation: [0, 2, 6]
    share = report.get("missing-gold-negative-share")
    assert (share.data["gold_negative"], share.data["filled"], share.data["base_rate"]) == (3, 3, 0.5)
    assert share.severity == "error"
    assert share.data["p_value"] == pytest.approx(0.125)  # 0.5³: too few items for a test, the 100 % share decides


def test_olek_reported_counts_vector() -> None:
    """`olek_reported_counts`: the vector's P/R/F of both protocols come out of the audit exactly."""
    vec = json.loads(data_path("testvectors", "negative_class_and_leak_vectors.json").read_text())
    counts = vec["recent_loophole"]["olek_reported_counts"]
    gold = {f"p{i}": "r" for i in range(3325)} | {f"n{i}": "no_relation" for i in range(1190)}
    pred = {f"p{i}": ("r" if i < 2182 else "no_relation") for i in range(3325)} | {f"n{i}": "r" for i in range(246)}
    sens = audit(gold, pred).get("missing-policy-sensitivity").data
    for policy, key in (("negative", "recreated_original"), ("wrong", "corrected")):
        for metric, ref in (("precision", "precision"), ("recall", "recall"), ("f", "f1")):
            assert sens[policy][metric] == pytest.approx(counts[key][ref], rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["no_relation", "a", "b"]), min_size=2, max_size=40),
    st.data(),
)
def test_policy_invariants(gold_labels: list[str], data: st.DataObject) -> None:
    """Filling as wrong adds exactly one FP per filled item and changes neither TP nor FN, so F never rises."""
    n = len(gold_labels)
    preds = data.draw(st.lists(st.sampled_from(["no_relation", "a", "b"]), min_size=n, max_size=n))
    keep = data.draw(st.lists(st.booleans(), min_size=n, max_size=n).filter(lambda k: not all(k)))
    gold = {str(i): g for i, g in enumerate(gold_labels)}
    pred = {str(i): p for i, (p, k) in enumerate(zip(preds, keep)) if k}
    report = audit(gold, pred, negative="no_relation", allow_absent_negative=True)  # gold may lack it
    sens = report.get("missing-policy-sensitivity").data
    n_missing = n - sum(keep)
    assert sens["wrong"]["fp"] - sens["negative"]["fp"] == n_missing
    assert (sens["wrong"]["tp"], sens["wrong"]["fn"]) == (sens["negative"]["tp"], sens["negative"]["fn"])
    assert sens["f_difference"] >= 0
    share = report.get("missing-gold-negative-share").data
    assert share["gold_negative"] == sum(g == "no_relation" for g, k in zip(gold_labels, keep) if not k)


def _tacred_records() -> list[dict]:
    with gzip.open(shared_path(*TACRED), "rt") as handle:
        return [json.loads(line) for line in handle]


def test_tacred_coverage_counts(tmp_path: Path) -> None:
    """Real TACRED gold; a prediction file with the first 100 gold-negative ids dropped, 7 repeated lines and 3 foreign
    ids: every problem is reported (none stops the audit) with exact counts, lines and the 100 % leak share."""
    records = _tacred_records()
    dropped = [r["id"] for r in records if r["label_true"] == "no_relation"][:100]
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": r["id"], "label": r["label_true"]}) + "\n" for r in records))
    kept = [r for r in records if r["id"] not in set(dropped)]
    lines = [json.dumps({"id": r["id"], "prediction": r["label_pred"]}) for r in kept]
    repeated = [lines[10 * k] for k in range(7)]
    foreign = [json.dumps({"id": f"x{k}", "prediction": "per:title"}) for k in range(3)]
    pred = tmp_path / "pred.jsonl"
    pred.write_text("\n".join(lines + repeated + foreign) + "\n")
    report = audit(gold, pred)
    dup = report.get("duplicate-ids")
    assert (dup.severity, dup.count, dup.data["ids"]) == ("error", 7, 7)
    n = len(lines)
    assert dup.examples[0] == f"{kept[0]['id']} (line {n + 1}, first on line 1)"
    unknown = report.get("unknown-ids")
    assert unknown.count == 3 and unknown.examples == [f"x{k} (line {n + 8 + k})" for k in range(3)]
    missing = report.get("missing-predictions")
    assert missing.count == 100 and missing.examples == dropped[:5]
    share = report.get("missing-gold-negative-share")
    assert share.severity == "error" and share.data["gold_negative"] == 100
    assert share.data["base_rate"] == pytest.approx(12184 / 15509)
    # the `wrong` score must equal scikit-learn on the same items with the dropped ones predicted as a foreign label
    y_true = [r["label_true"] for r in records]
    y_pred = [("<missing>" if r["id"] in set(dropped) else r["label_pred"]) for r in records]
    positive = sorted(set(y_true) - {"no_relation"} | {"<missing>"})
    p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, labels=positive, average="micro", zero_division=0)
    wrong = report.get("missing-policy-sensitivity").data["wrong"]
    assert (wrong["precision"], wrong["recall"], wrong["f"]) == pytest.approx((p, r, f))
    assert report.exit_status == 1
    rc = main(["audit", str(gold), str(pred), "--format", "json", "--output", str(tmp_path / "a.json")])
    saved = json.loads((tmp_path / "a.json").read_text())
    assert rc == 1 and saved["summary"]["error"] == 4 and saved["exit_status"] == 1


# A TACRED-like type table: subject type from the relation prefix, object type per relation (TACRED's NER types).
_OBJ = {
    "title": "TITLE",
    "age": "NUMBER",
    "origin": "NATIONALITY",
    "charges": "CRIMINAL_CHARGE",
    "religion": "RELIGION",
    "cause_of_death": "CAUSE_OF_DEATH",
    "website": "URL",
    "number_of_employees/members": "NUMBER",
    "alternate_names": "SAME",
    "date_of_death": "DATE",
    "date_of_birth": "DATE",
    "founded": "DATE",
    "dissolved": "DATE",
    "schools_attended": "ORGANIZATION",
    "employee_of": "ORGANIZATION",
}
_PAIRS_FOR_NEGATIVE = [("PERSON", "PERSON"), ("PERSON", "ORGANIZATION"), ("ORGANIZATION", "PERSON"), ("PERSON", "DATE")]


def _types(relation: str, key: int) -> tuple[str, str]:
    if relation == "no_relation":
        return _PAIRS_FOR_NEGATIVE[key % len(_PAIRS_FOR_NEGATIVE)]
    prefix, name = relation.split(":", 1)
    subj = "PERSON" if prefix == "per" else "ORGANIZATION"
    obj = _OBJ.get(name)
    if obj == "SAME":
        obj = subj
    if obj is None:
        obj = "LOCATION" if any(w in name for w in ("city", "countr", "state")) else "PERSON"
        if prefix == "org" and name in ("members", "member_of", "parents", "subsidiaries", "shareholders"):
            obj = "ORGANIZATION"
    return subj, obj


def test_tacred_type_constraints(tmp_path: Path) -> None:
    """Gold types come from the gold relation (a TACRED-like table), the training map from a TACRED-like training set
    built from the label distribution of TACRED dev; violations and the F1 change are recomputed with pandas/sklearn."""
    records = _tacred_records()
    gold_rows = []
    for i, r in enumerate(records):
        subj, obj = _types(r["label_true"], i)
        gold_rows.append({"id": r["id"], "label": r["label_true"], "subj_type": subj, "obj_type": obj})
    dist = pd.read_csv(shared_path("data", "tacred_labels", "tacred_label_distribution.tsv"), sep="\t")
    train_rows = []
    for rel, count in zip(dist["relation"], dist["tacred_dev"]):
        if rel == "TOTAL" or rel == "org:dissolved":  # org:dissolved never seen in training: its predictions violate
            continue
        for k in range(int(count)):
            subj, obj = _types(rel, k)
            train_rows.append({"id": f"t{rel}{k}", "label": rel, "subj_type": subj, "obj_type": obj})
    gold, train, pred = tmp_path / "gold.jsonl", tmp_path / "train.jsonl", tmp_path / "pred.jsonl"
    for path, rows in ((gold, gold_rows), (train, train_rows)):
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    pred.write_text("".join(json.dumps({"id": r["id"], "prediction": r["label_pred"]}) + "\n" for r in records))
    report = audit(gold, pred, train)
    finding = report.get("type-constraints")

    g = pd.DataFrame(gold_rows).assign(pred=[r["label_pred"] for r in records])
    allowed = pd.DataFrame(train_rows)[["subj_type", "obj_type", "label"]].drop_duplicates()
    merged = g.merge(
        allowed.rename(columns={"label": "pred"}), on=["subj_type", "obj_type", "pred"], how="left", indicator=True
    )
    bad = (merged["pred"] != "no_relation") & (merged["_merge"] == "left_only")
    assert finding.severity == "warning" and finding.count == int(bad.sum()) > 0
    assert finding.data["violations_correct"] == int((bad & (merged["pred"] == merged["label"])).sum())
    positive = sorted(set(g["label"]) - {"no_relation"})
    fixed = np.where(bad, "no_relation", merged["pred"])
    before = precision_recall_fscore_support(g["label"], g["pred"], labels=positive, average="micro")[2]
    after = precision_recall_fscore_support(g["label"], fixed, labels=positive, average="micro")[2]
    assert finding.data["before"]["f"] == pytest.approx(before)
    assert finding.data["as_negative"]["f"] == pytest.approx(after)
    assert finding.data["f_change"] == pytest.approx(after - before)
    assert finding.data["type_pairs_in_train"] == len(allowed[["subj_type", "obj_type"]].drop_duplicates())
    dissolved = report.get("labels-not-in-train")
    n_dissolved = sum(r["label_pred"] == "org:dissolved" for r in records)
    if n_dissolved:
        assert dissolved.count == n_dissolved and dissolved.data["labels"] == {"org:dissolved": n_dissolved}
    else:
        assert dissolved is None


def test_semeval_label_space(tmp_path: Path) -> None:
    """SemEval's training labels as --train: a training copy without Entity-Destination(e2,e1) (its only example) makes
    perfect predictions look drawn from the test label set; unknown and test-only labels are counted exactly."""
    train_key = SEMEVAL_TRAIN_KEY  # the labels of TRAIN_FILE.TXT (same ids, same order) as `<id>\t<label>` lines
    lines = train_key.read_text(encoding="utf-8").splitlines()
    rare = "Entity-Destination(e2,e1)"
    kept = [ln for ln in lines if ln.split("\t")[1] != rare]
    assert len(lines) - len(kept) == 1
    train = tmp_path / "train.txt"
    train.write_text("\n".join(kept) + "\n")
    key = SEMEVAL_KEY
    gold_pairs = [ln.split("\t") for ln in key.read_text().splitlines() if ln.strip()]
    perfect = tmp_path / "perfect.tsv"
    perfect.write_text("".join(f"{i}\t{label}\n" for i, label in gold_pairs))
    report = audit(key, perfect, train)
    from_test = report.get("label-set-from-test")
    assert from_test.severity == "warning" and from_test.count == 19 and from_test.data["gold_not_train"] == [rare]
    assert report.get("labels-not-in-train").count == 1

    cnn = [ln.split("\t") for ln in semeval_predictions("cnn").read_text().splitlines()]
    edited = [(i, "Cause-Effekt(e1,e2)" if n % 500 == 0 else label) for n, (i, label) in enumerate(cnn)]
    pred = tmp_path / "cnn_edited.tsv"
    pred.write_text("".join(f"{i}\t{label}\n" for i, label in edited))
    report = audit(key, pred, train_key, pred_format="id-tsv")
    unknown = report.get("labels-unknown")
    assert unknown.severity == "error" and unknown.count == len(range(0, len(cnn), 500)) == 6
    assert unknown.data["labels"] == {"Cause-Effekt(e1,e2)": 6}
    assert report.get("label-set-from-test") is None and report.get("labels-not-in-train") is None
    expected_not_in_gold = Counter(label for _, label in edited if label not in {g for _, g in gold_pairs})
    assert sum(expected_not_in_gold.values()) == unknown.count
    rc = main(["audit", "run", str(key), str(pred), "--train", str(train_key), "--pred-format", "id-tsv"])
    assert rc == 1


def test_semeval_strict_format_problems_are_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A semeval-tsv prediction with a repeated id and a misspelt label: both problems reported, exit 1, not 2."""
    key = SEMEVAL_KEY
    lines = semeval_predictions("cnn").read_text().splitlines()
    pred = tmp_path / "pred.txt"
    bad = [*lines[:3], lines[0], lines[3].split("\t")[0] + "\tCause-Effekt(e1,e2)", *lines[4:]]
    pred.write_text("\n".join(bad) + "\n")
    rc = main(["audit", str(key), str(pred)])
    out = capsys.readouterr().out
    assert rc == 1
    assert "ERROR   unreadable-input [2]" in out
    assert "pred.txt:4: field 'id': id 8001 repeated (first on line 1)" in out
    assert "pred.txt:5: field 'label': 'Cause-Effekt(e1,e2)' is not a SemEval-2010 Task 8 label" in out


def test_repeated_ids_in_every_line_format(tmp_path: Path) -> None:
    """Tolerant loading finds every repeat (no cap) in id-tsv, SemEval blocks and TACRED JSON lists."""
    gold = {str(i): ("Other" if i % 3 else "Cause-Effect(e1,e2)") for i in range(8001, 8101)}
    tsv = tmp_path / "pred.tsv"
    rows = [f"{i}\t{label}" for i, label in gold.items()]
    rows += [f"{i}\tOther" for i in list(gold)[:60]]  # 60 repeats: more than the strict loader's 50-error cap
    tsv.write_text("\n".join(rows) + "\n")
    report = audit(gold, tsv)
    dup = report.get("duplicate-ids")
    assert dup.count == 60 and dup.examples[0] == "8001 (line 101, first on line 1)"
    assert report.get("missing-predictions") is None and report.get("unknown-ids") is None

    records = [{"id": f"r{i}", "relation": "no_relation" if i % 2 else "per:title"} for i in range(10)]
    tj = tmp_path / "gold.json"
    tj.write_text(json.dumps(records + [records[3], records[5]]))
    report = audit(tj, {r["id"]: r["relation"] for r in records})
    dup = report.get("duplicate-ids")
    assert (
        dup.count == 2
        and dup.data["file"] == "gold"
        and dup.examples == ["r3 (line 11, first on line 4)", "r5 (line 12, first on line 6)"]
    )
