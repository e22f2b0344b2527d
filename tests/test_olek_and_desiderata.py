"""Olek's corrected RECENT counts, and Harbecke's desiderata D0–D2 as properties of the weightings."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import releval
from releval.metrics.averages import prf_from_counts
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, ENTROPY, get_weighting


def _truncated(x: float) -> float:
    """Olek's tables truncate to two decimals (P = 89.868… is printed 89.86)."""
    return math.floor(10_000 * float(x)) / 100


def test_olek_counts() -> None:
    """olek-recent-f1.txt: TP 2182 / FP 246 / FN 1143 → 89.86 / 65.62 / 75.85; FP 1190 → 64.70 / 65.62 / 65.16."""
    leaky = prf_from_counts(2182, 246, 1143)
    fixed = prf_from_counts(2182, 1190, 1143)
    assert [_truncated(x) for x in (leaky.precision, leaky.recall, leaky.f)] == [89.86, 65.62, 75.85]
    assert [_truncated(x) for x in (fixed.precision, fixed.recall, fixed.f)] == [64.70, 65.62, 65.16]
    assert float(leaky.precision) == pytest.approx(2182 / 2428) and float(fixed.f) == pytest.approx(4364 / 6697)


def test_olek_case_through_missing_policies() -> None:
    """A prediction file missing 944 gold-negative items reproduces both protocols by policy alone."""
    gold = {f"p{i}": "r" for i in range(3325)} | {f"n{i}": "no_relation" for i in range(246 + 944 + 500)}
    pred = {f"p{i}": ("r" if i < 2182 else "no_relation") for i in range(3325)}
    pred |= {f"n{i}": "r" for i in range(246)} | {f"n{i}": "no_relation" for i in range(1190, 1690)}
    leaky = releval.score(gold, pred, negative="no_relation", on_missing="negative")
    fixed = releval.score(gold, pred, negative="no_relation", on_missing="wrong")
    assert _truncated(leaky["micro"].f) == 75.85 and _truncated(leaky["micro"].precision) == 89.86
    assert _truncated(fixed["micro"].f) == 65.16 and _truncated(fixed["micro"].precision) == 64.70
    assert leaky.extra["missing"] == {"policy": "negative", "count": 944, "gold_negative": 944}
    assert "100.0 % of them are gold-negative" in leaky.warnings[0]
    assert leaky.signature["missing"] == "negative" and fixed.signature["missing"] == "wrong"
    missing_row = next(r for r in fixed.per_class if r.label == "<missing>")
    assert (missing_row.fp, missing_row.support) == (944, 0)
    with pytest.raises(releval.InputError, match="944 gold item"):
        releval.score(gold, pred, negative="no_relation")


supports = st.lists(st.integers(min_value=1, max_value=10_000), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(supports, st.integers(min_value=0, max_value=50_000), st.floats(min_value=0.0, max_value=1.0))
def test_desiderata(n: list[int], n_negative: int, a: float) -> None:
    """D0 for every scheme; D1 and D2 for weighted/dodrans/macro/power; entropy violates D1 only past N/e."""
    support = np.array(n, dtype=float)
    mask = np.ones(len(n), dtype=bool)
    big_n = support.sum() + n_negative
    for scheme in (*DEFAULT_WEIGHTINGS, get_weighting(f"power:{a}")):
        w = scheme.weights(support, mask, big_n)
        assert w.sum() == pytest.approx(1.0)  # D0
        order = np.argsort(support, kind="stable")
        s, ws = support[order], w[order]
        ratio = ws / s
        same = np.isclose(s[1:], s[:-1])
        d1 = bool(np.all((ws[1:] >= ws[:-1] - 1e-12) | same))
        d2 = bool(np.all((ratio[1:] <= ratio[:-1] + 1e-12) | same))
        assert d2, scheme.name  # D2 holds for all five (entropy's w/n = -log(n/N) decreases in n)
        if scheme is ENTROPY:
            # −n log(n/N) increases in n below N/e and decreases above: D1 can fail only past N/e.
            if not d1:
                assert support.max() > big_n / math.e
        else:
            assert d1, scheme.name


def test_entropy_violates_d1_past_n_over_e() -> None:
    """Two classes holding 60 % and 30 % of N: the larger gets the smaller entropy weight."""
    w = ENTROPY.weights(np.array([60.0, 30.0]), np.array([True, True]), 100.0)
    assert w[0] < w[1]
    assert w[0] == pytest.approx(-0.6 * math.log(0.6) / (-0.6 * math.log(0.6) - 0.3 * math.log(0.3)))
