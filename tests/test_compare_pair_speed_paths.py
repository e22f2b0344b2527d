"""The fast paths of a one-pair `releval compare` give the numbers the slower ones gave, and load no SciPy.

`releval.metrics.cells.Incidence` multiplies cell counts by the per-cell statistics with NumPy alone up to
LOOP_NONZEROS non-zeros (SciPy's sparse product above): its totals are checked against counts made item by item
in Python, and against SciPy's product float for float (the bootstrap's numbers for a seed must not change).
Timing belongs to `benchmarks/bench_compare_pair.py`; here only what is computed and what is imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from releval.metrics import cells as cells_module
from releval.metrics.averages import AveragingSpec
from releval.metrics.cells import Incidence, cells_from_labels, cells_from_rows, encode_triplet, resampled_f
from releval.metrics.joint_cells import joint_cells_from_labels, joint_resampled_f
from releval.significance.compare import joint_views
from releval.significance.paired import approximate_randomization_scores, paired_bootstrap_scores
from releval.tasks.classification import ClassificationConfig

REPO = Path(__file__).resolve().parents[1]
SEMEVAL = REPO / "examples" / "semeval2010_task8"
GOLD = ["N", "A", "B", "A", "N", "C", "B", "A", "N", "N", "C", "A"]
PRED_A = ["N", "A", "A", "A", "B", "C", "B", "N", "N", "A", "C", "A"]
PRED_B = ["A", "A", "B", "N", "N", "C", "C", "A", "N", "N", "B", "B"]


def _counts_by_hand(labels: list[str], gold: list[str], pred: list[str], weights: list[int]) -> list[float]:
    """TP|FP|FN per label of one system when item i is drawn weights[i] times: Python counting, no cells."""
    tp, fp, fn = ([0] * len(labels) for _ in range(3))
    for g, p, w in zip(gold, pred, weights):
        if g == p:
            tp[labels.index(g)] += w
        else:
            fp[labels.index(p)] += w
            fn[labels.index(g)] += w
    return [float(x) for x in tp + fp + fn]


def test_label_cell_totals_equal_item_counts_by_hand() -> None:
    labels, g, a, b = encode_triplet(GOLD, PRED_A, PRED_B)
    cells = cells_from_labels(g, a, b, len(labels))
    rng = np.random.default_rng(3)
    weights = rng.integers(0, 4, size=(25, len(GOLD)))  # 25 "resamples": how often each item is drawn
    cell_counts = np.stack([np.bincount(cells.inverse, weights=w, minlength=cells.n_cells) for w in weights])
    tot_a, tot_b = cells.totals(np.ascontiguousarray(cell_counts.T).T)  # the resamplers' (C, R) layout
    for r, w in enumerate(weights.tolist()):
        assert tot_a[r].tolist() == _counts_by_hand(labels, GOLD, PRED_A, w)
        assert tot_b[r].tolist() == _counts_by_hand(labels, GOLD, PRED_B, w)
    obs_a, obs_b = cells.observed()
    assert obs_a.tolist() == _counts_by_hand(labels, GOLD, PRED_A, [1] * len(GOLD))
    assert obs_b.tolist() == _counts_by_hand(labels, GOLD, PRED_B, [1] * len(GOLD))


def test_joint_cell_totals_equal_item_counts_by_hand() -> None:
    labels, g, a, b = encode_triplet(GOLD, PRED_A, PRED_B)
    third = ["N", "N", "B", "A", "N", "C", "B", "A", "A", "N", "C", "N"]
    p3 = np.array([labels.index(x) for x in third])
    joint = joint_cells_from_labels(g, np.stack([a, b, p3]), len(labels))
    weights = np.random.default_rng(4).integers(0, 3, size=(10, len(GOLD)))
    counts = np.stack([np.bincount(joint.inverse, weights=w, minlength=joint.n_cells) for w in weights])
    totals = joint.totals(counts)  # (systems, resamples, 3L)
    for s, pred in enumerate((PRED_A, PRED_B, third)):
        for r, w in enumerate(weights.tolist()):
            assert totals[s, r].tolist() == _counts_by_hand(labels, GOLD, pred, w)


def _sum_in_order(matrix: np.ndarray, x: np.ndarray) -> np.ndarray:
    """matrix @ x as SciPy's CSR product adds it: per output, 0.0 then value × x[cell] for each non-zero by cell."""
    out = np.zeros((matrix.shape[0], *x.shape[1:]))
    for row in range(matrix.shape[0]):
        for cell in range(matrix.shape[1]):
            if matrix[row, cell] != 0.0:
                out[row] = out[row] + matrix[row, cell] * x[cell]
    return out


@pytest.mark.parametrize("loop", [True, False], ids=["numpy-loop", "scipy"])
def test_incidence_adds_real_terms_in_scipys_order(loop: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Real statistics (per-item scores) are not summed exactly, so the order of the terms must be SciPy's."""
    if not loop:
        monkeypatch.setattr(cells_module, "LOOP_NONZEROS", 0)
    rng = np.random.default_rng(5)
    matrix = np.where(rng.random((7, 40)) < 0.6, rng.normal(size=(7, 40)), 0.0)
    matrix[3] = 0.0  # a row without any non-zero
    incidence = Incidence.of(matrix)
    assert incidence.nnz == np.count_nonzero(matrix)
    for x in (rng.random(40) * 1e3, rng.random((40, 9)) * 1e3, np.ascontiguousarray(rng.random((9, 40)).T)):
        got = incidence @ x
        assert got.shape == (7, *x.shape[1:]) and got.dtype == np.float64
        assert np.array_equal(got, _sum_in_order(matrix, x))


def test_incidence_refuses_a_wrong_shape() -> None:
    with pytest.raises(ValueError, match="incidence"):
        Incidence.of(np.eye(3)) @ np.ones((4, 2))


def test_numpy_and_scipy_products_give_the_same_resampled_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    """A seed's bootstrap and randomization draws score the same whichever product computes the totals."""
    rng = np.random.default_rng(8)
    k = 6
    g = rng.integers(0, k, 400)
    a = np.where(rng.random(400) < 0.7, g, rng.integers(0, k, 400))
    b = np.where(rng.random(400) < 0.6, g, rng.integers(0, k, 400))
    label_cells = cells_from_labels(g, a, b, k)
    spec = AveragingSpec(np.arange(k) > 0)
    x, y = rng.random(300), rng.random(300)  # per-item scores: real statistics, 300 distinct cells
    assert cells_from_rows(x, y).n_cells == 300

    def run() -> tuple[list[np.ndarray], list[dict[str, object]]]:
        draws = []
        for method in ("bootstrap", "randomization"):
            for fa, fb in resampled_f(label_cells, spec, 700, 21, method).values():
                draws += [fa, fb]
        means = [paired_bootstrap_scores(x, y, resamples=300, seed=22).to_dict()]
        means.append(approximate_randomization_scores(x, y, resamples=300, seed=22).to_dict())
        return draws, means

    fast, fast_means = run()
    monkeypatch.setattr(cells_module, "LOOP_NONZEROS", 0)
    assert Incidence.of(np.eye(2))._sparse is not None  # the patch does select SciPy
    slow, slow_means = run()
    assert len(fast) == len(slow) == 2 * 2 * 5
    for one, other in zip(fast, slow):
        assert np.array_equal(one, other)
    assert fast_means == slow_means  # every float of the p-values, scores and intervals


def test_joint_draw_is_the_same_with_either_product(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(9)
    labels = ["N", "A", "B", "C", "D"]
    gold = [labels[i] for i in rng.integers(0, 5, 300)]
    systems = {
        name: [x if rng.random() < keep else labels[rng.integers(0, 5)] for x in gold]
        for name, keep in (("s1", 0.8), ("s2", 0.7), ("s3", 0.6))
    }
    pairs = [("s1", "s2"), ("s1", "s3"), ("s2", "s3")]
    config = ClassificationConfig(negative="N")

    def draw() -> list[dict[str, np.ndarray]]:
        cells, views, _ = joint_views(gold, systems, pairs, config, "N")
        return joint_resampled_f(cells, views, 600, 13)

    fast = draw()
    monkeypatch.setattr(cells_module, "LOOP_NONZEROS", 0)
    slow = draw()
    assert [sorted(v) for v in fast] == [sorted(v) for v in slow]
    for one, other in zip(fast, slow):
        for name in one:
            assert np.array_equal(one[name], other[name])


def test_one_pair_compare_loads_no_scipy_and_no_e2e_modules() -> None:
    """`releval compare` of two systems (bootstrap and randomization) runs on NumPy alone, without end-to-end RE's
    modules; its JSON is complete."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "releval", "compare", str(SEMEVAL / "test_key_directed.txt")]
        + ["-s", f"cnn={SEMEVAL / 'onehaitao_cnn.txt'}", "-s", f"attcnn={SEMEVAL / 'onehaitao_attcnn.txt'}"]
        + ["-t", "bootstrap,randomization", "-R", "300", "-f", "json"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    modules = {ln.rsplit("|", 1)[-1].strip() for ln in proc.stderr.splitlines() if "|" in ln}
    imported = {m.split(".")[0] for m in modules}
    assert "numpy" in imported and "releval.significance.compare" in modules  # the import log was read
    assert "scipy" not in imported
    assert "releval.tasks.e2e" not in modules  # end-to-end RE's modules load for its comparisons only
    rows = json.loads(proc.stdout)["results"][0]["pairs"]
    assert sorted({(r["test"], r["metric"]) for r in rows}) == sorted(
        (t, m) for t in ("bootstrap", "randomization") for m in ("micro", "weighted", "dodrans", "entropy", "macro")
    )
