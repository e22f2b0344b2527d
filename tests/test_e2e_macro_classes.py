"""End-to-end macro conventions (issue 14): over types with gold support (releval), over types in gold or
predictions (SpERT's evaluator: scikit-learn over the union), over every declared type (sincere). Expected values
by hand and from scikit-learn; the bundled CoNLL04 slice has no gold `Kill`, where the conventions part."""

from __future__ import annotations

from pathlib import Path

import pytest
from sklearn.metrics import f1_score

import releval
from releval.data.e2e import Document, TypeInventory
from releval.tasks.e2e import E2EConfig

ROOT = Path(__file__).resolve().parents[1]
CONLL = ROOT / "examples" / "conll04" / "conll04_test_first30.json"
TYPES = ROOT / "examples" / "conll04" / "conll04_types.json"
INVENTORY = TypeInventory(
    ("Peop", "Loc", "Org"), ("Live_In", "Work_For", "Kill", "Located_In", "OrgBased_In"), frozenset()
)

ENTITIES = ((0, 1, "Peop"), (2, 3, "Loc"), (4, 5, "Org"))
GOLD = [Document("d1", ("A", "in", "B", "at", "C"), ENTITIES, ((0, 1, "Live_In"),))]
# Live_In right; a Kill between the same arguments that gold does not have
PRED = [Document("d1", ("A", "in", "B", "at", "C"), ENTITIES, ((0, 1, "Live_In"), (0, 2, "Kill")))]


@pytest.mark.parametrize(
    "classes, macro, signed",
    [("gold", 1.0, "support>0"), ("gold+pred", 0.5, "support>0|pred>0"), ("declared", 1 / 5, "declared")],
)
def test_each_convention_averages_over_its_types(classes: str, macro: float, signed: str) -> None:
    r = releval.score_e2e(GOLD, PRED, types=INVENTORY, macro_classes=classes, ner=False)["strict"]
    assert r["macro"].f == pytest.approx(macro, abs=1e-15)
    assert r.signature["weighted_classes"] == signed
    # every other weighting gives a type without gold support the weight 0: unchanged by the convention
    assert (r["weighted"].f, r["dodrans"].f, r["entropy"].f) == (1.0, 1.0, 1.0)
    assert r["micro"].f == pytest.approx(2 / 3)


def test_spert_convention_is_scikit_learn_over_the_union_of_types() -> None:
    # SpERT scores the union of gold and predicted relations, "None" where a side has none
    y_true, y_pred = ["Live_In", "None"], ["Live_In", "Kill"]
    expected = f1_score(y_true, y_pred, labels=["Live_In", "Kill"], average="macro", zero_division=0)
    r = releval.score_e2e(GOLD, PRED, macro_classes="gold+pred", ner=False)["strict"]
    assert r["macro"].f == pytest.approx(expected, abs=1e-15) == 0.5


def test_on_the_conll04_slice_without_gold_kill_the_conventions_differ_by_a_fifth() -> None:
    gold = releval.score_e2e(CONLL, CONLL, types=TYPES, macro_classes="gold")["strict"]
    declared = releval.score_e2e(CONLL, CONLL, types=TYPES, macro_classes="declared")["strict"]
    kill = next(row for row in declared.per_class if row.label == "Kill")
    assert kill.support == 0 and kill.tp + kill.fp == 0
    assert gold["macro"].f == 1.0 and declared["macro"].f == pytest.approx(0.8, abs=1e-15)  # 4 of 5 types perfect


def test_declared_needs_a_types_file_and_paired_tests_refuse_gold_plus_pred() -> None:
    with pytest.raises(releval.OptionError, match="types file") as caught:
        E2EConfig(macro_classes="declared")
    assert caught.value.option == "macro_classes"
    with pytest.raises(releval.OptionError, match="macro_classes"):
        E2EConfig(macro_classes="union")
    a = releval.score_e2e(GOLD, PRED, macro_classes="gold+pred", ner=False)
    from releval.tasks.e2e import paired_cells

    with pytest.raises(releval.OptionError, match="unlike averages"):
        paired_cells(a, a, "strict", E2EConfig(macro_classes="gold+pred"))
