"""Olek's corrected RECENT counts, and Harbecke's desiderata D0–D2 as properties of the weightings."""

from __future__ import annotations

import csv
import itertools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import releval
from releval.cli import main
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


def _olek_files() -> tuple[dict[str, str], dict[str, str]]:
    """Olek's RECENT counts as files: 944 gold-negative items have no prediction."""
    gold = {f"p{i}": "r" for i in range(3325)} | {f"n{i}": "no_relation" for i in range(246 + 944 + 500)}
    pred = {f"p{i}": ("r" if i < 2182 else "no_relation") for i in range(3325)}
    pred |= {f"n{i}": "r" for i in range(246)} | {f"n{i}": "no_relation" for i in range(1190, 1690)}
    return gold, pred


def test_olek_correction_reaches_every_weighting() -> None:
    """Issue 12: under `wrong`, micro is 65.16 and every class-weighted average is an interval, here the exact
    point 4364/6697 (r is the only class a fill may go to), which excludes the leaky 75.86."""
    gold, pred = _olek_files()
    with pytest.warns(releval.RelevalWarning, match="counted as wrong"):
        fixed = releval.score(gold, pred, negative="no_relation", on_missing="wrong")
    assert round(100 * fixed["micro"].f, 2) == 65.16 and "micro" not in fixed.bounds
    leaky = 2 * 2182 / (2 * 2182 + 1143 + 246)
    assert round(100 * leaky, 2) == 75.86
    for name in ("weighted", "dodrans", "entropy", "macro"):
        low, high = fixed.bounds[name]
        assert low.f == pytest.approx(4364 / 6697, abs=1e-15) and high.f == pytest.approx(4364 / 6697, abs=1e-15)
        assert low.precision == pytest.approx(2182 / 3372, abs=1e-15)
        assert fixed[name] == low  # the point shown is the worst case
        assert not low.f <= leaky <= high.f
    assert releval.ScoreResult.from_dict(fixed.to_dict()) == fixed


def _weights(name: str, support: np.ndarray, n_all: int) -> np.ndarray:
    """Harbecke et al. (2022) §2.3 weights by hand: n, n^(3/4), -n log2(n/N), 1; normalised."""
    raw = {
        "weighted": support.astype(float),
        "dodrans": support**0.75,
        "entropy": -support * np.log2(support / n_all),
        "macro": np.ones(len(support)),
    }[name]
    return raw / raw.sum()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "no_relation"]), min_size=4, max_size=9),
    st.lists(st.sampled_from(["a", "b", "c", "no_relation", None]), min_size=9, max_size=9),
)
def test_intervals_are_the_extremes_of_every_attribution(gold_labels: list[str], preds: list[str | None]) -> None:
    """Every way of giving each unpredicted item a wrong positive class with gold support, scored by scikit-learn
    (per-class P and F, weighted by hand): `releval.score`'s interval is exactly [min, max] of those averages."""
    from sklearn.metrics import precision_recall_fscore_support

    gold = {f"s{i}": g for i, g in enumerate(gold_labels)}
    pred = {f"s{i}": p for i, p in enumerate(preds[: len(gold_labels)]) if p is not None}
    missing = [k for k in gold if k not in pred]
    classes = sorted({g for g in gold_labels if g != "no_relation"})
    assume(missing and classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", releval.RelevalWarning)
        result = releval.score(gold, pred, negative="no_relation", on_missing="wrong", allow_absent_negative=True)
    choices = [[c for c in classes if c != gold[k]] for k in missing]
    assume(all(choices))  # a fill with no eligible class is left out of the intervals (test_missing_bounds)
    support = np.array([gold_labels.count(c) for c in classes])
    values: dict[str, list[tuple[float, float]]] = {n: [] for n in ("weighted", "dodrans", "entropy", "macro")}
    for attribution in itertools.product(*choices):
        filled = pred | dict(zip(missing, attribution))
        y_true, y_pred = list(gold.values()), [filled[k] for k in gold]
        p, _, f, _ = precision_recall_fscore_support(y_true, y_pred, labels=classes, zero_division=0)
        for name in values:
            w = _weights(name, support, len(gold_labels))
            values[name].append((float(w @ p), float(w @ f)))
    for name, pairs in values.items():
        low, high = result.bounds[name]
        ps, fs = zip(*pairs)
        assert low.precision == pytest.approx(min(ps), abs=1e-12) and high.precision == pytest.approx(
            max(ps), abs=1e-12
        )
        assert low.f == pytest.approx(min(fs), abs=1e-12) and high.f == pytest.approx(max(fs), abs=1e-12)


def test_olek_intervals_in_every_format(tmp_path: Path) -> None:
    """The interval reaches text and Markdown (a range column), CSV (f_low / f_high) and JSON (`bounds`)."""
    gold_path, pred_path = tmp_path / "gold.tsv", tmp_path / "pred.tsv"
    gold_path.write_text("s1\tA\ns2\tB\ns3\tno_relation\ns4\tno_relation\ns5\tno_relation\ns6\tA\n")
    pred_path.write_text("s1\tA\ns2\tB\ns6\tB\n")
    # Three filled items (s3-s5, gold no_relation) go to A or B, x of them to A. A: TP 1, FN 1 (s6); B: TP 1,
    # FP 1 (s6). F_A = 2/(3 + x), F_B = 2/(6 - x), macro-F = 1/(3 + x) + 1/(6 - x): 0.5, 0.45, 0.45, 0.5 for
    # x = 0..3, so the interval is [0.45, 0.5] and the worst case 0.45 is the value shown.
    base = ["score", str(gold_path), str(pred_path), "--on-missing", "wrong", "-w", "macro"]
    out = tmp_path / "r"
    assert main([*base, "-f", "json", "-o", f"{out}.json"]) == 0
    (result,) = json.loads(Path(f"{out}.json").read_text())["results"]
    assert result["bounds"]["macro"]["low"]["f"] == pytest.approx(0.45) and result["averages"]["macro"][
        "f"
    ] == pytest.approx(0.45)
    assert result["bounds"]["macro"]["high"]["f"] == pytest.approx(0.5)
    assert main([*base, "-f", "csv", "-o", f"{out}.csv"]) == 0
    rows = list(csv.DictReader(line for line in Path(f"{out}.csv").open() if not line.startswith("#")))
    macro = next(r for r in rows if r["label"] == "macro")
    assert (float(macro["f_low"]), float(macro["f_high"])) == pytest.approx((0.45, 0.5))
    for fmt in ("text", "markdown", "latex"):
        assert main([*base, "-f", fmt, "-o", f"{out}.{fmt}"]) == 0
        assert "[45.00, 50.00]" in Path(f"{out}.{fmt}").read_text()
