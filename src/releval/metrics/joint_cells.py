"""One bootstrap draw for every pair of K systems: resample the distinct (gold, prediction 1, …, prediction K) cells.

The paired bootstrap of A against B resamples the cells (gold, A, B) by Multinomial(n, m/n) counts
(releval.metrics.cells). With K systems on the same items, group the items into joint cells
(gold, p_1, …, p_K) instead (2,597 of them for 10 TACRED systems, against 15,509 items). Every pair's cell
(gold, p_a, p_b) is a union of joint cells, and the counts of a Multinomial(n, m/n) draw over the joint cells,
summed within each pair cell, are Multinomial(n, m_pair/n): the aggregation property of the multinomial, which is
what drawing n items with replacement and then forgetting the other systems' predictions gives. So one draw of
joint counts is a paired bootstrap resample of *every* pair at once, each pair's resample distributed exactly as
the pair engine draws it. Only the dependence across pairs changes (they now share their resampled items).

A system's TP/FP/FN totals depend on (gold, its own prediction) alone, so each resample costs one sparse product
of the joint counts with every system's incidence (`releval.metrics.cells.Incidence`) and one F per system and
average, instead of two per pair; a pair's δ* is the difference of its two systems' F. Weights depend on the
resampled gold only and are computed once per resample for every system.

A pair is scored on its own classes (the gold labels, then the labels only its two systems predict, as
`releval.metrics.cells.encode_triplet` orders them), a `LabelView` of the joint classes: so every number is the
one the pair engine computes from the same counts. With two systems the joint cells *are* the pair's cells, in
the same order; only the blocks the resamples are drawn in differ (`joint_blocks`, sized for the cache), so
`releval compare` keeps the pair engine, and its numbers, for two systems.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from releval.core.options import DEFAULT_CLASS_SET
from releval.metrics.averages import AveragingSpec, average_weights, f_averages, fix_class_set
from releval.metrics.cells import LOOP_NONZEROS, Incidence, bootstrap_plan, counts_of, draw_cell_counts, f_scores

#: Upper bound on resamples × max(cells, systems × 3 × classes) per block: 8 MB of counts, which keeps the
#: product of the counts with the incidence in cache (measured fastest at 256–512 resamples on TACRED).
JOINT_BLOCK_ELEMENTS = 1 << 20
#: Integers below 2^24 are exact in float32, and so are their sums while they stay below it: cell counts of fewer
#: items than this are multiplied in float32 (`JointCells.fast_counts`).
FLOAT32_EXACT = 1 << 24
#: Non-zeros × resamples above which SciPy's float32 product saves more than its import costs (0.75 ns per term
#: saved against the loop of `Incidence`, 0.12 s of import: measured on the SemEval joint cells).
SCIPY_WORTH = 160_000_000


@dataclass(frozen=True)
class JointCells:
    """Distinct (gold, prediction of every system) tuples: items per cell, the codes of each cell, item→cell map."""

    counts: NDArray[np.int64]  # (J,)
    gold: NDArray[np.int64]  # (J,) gold code of each cell
    preds: NDArray[np.int64]  # (S, J) each system's predicted code of each cell
    n_labels: int
    inverse: NDArray[np.int64]  # (n,) cell of each item

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())

    @property
    def n_cells(self) -> int:
        return int(self.counts.shape[0])

    @property
    def n_systems(self) -> int:
        return int(self.preds.shape[0])

    @cached_property
    def _nonzeros(self) -> tuple[NDArray[np.integer[Any]], NDArray[np.integer[Any]], tuple[int, int]]:
        """Rows, cells and shape of the incidence (L + S·2L, J): the gold support of every class (rows
        0 … L − 1), then system s's FP|FN rows L + s·2L … L + (s + 1)·2L − 1, from the cells it gets wrong only
        (one non-zero for FP, one for FN). A system's TP per class is the support less its FN, so the cells a
        system gets right (most of them) add nothing per system: one row of gold supports serves them all."""
        k, n_cells, s = self.n_labels, self.n_cells, self.n_systems
        index = np.int32 if max(k + s * 2 * k, n_cells) < 2**31 else np.intp  # half the memory for 1,000 systems
        system, cell = np.nonzero(self.preds != self.gold[None, :])
        system = system.astype(index)
        cell = cell.astype(index)
        base = k + system * (2 * k)
        fp = base + self.preds[system, cell].astype(index)
        fn = base + k + self.gold[cell].astype(index)
        rows = np.concatenate([self.gold.astype(index), fp, fn])
        cols = np.concatenate([np.arange(n_cells, dtype=index), cell, cell])
        return rows, cols, (k + s * 2 * k, n_cells)

    @cached_property
    def _incidence(self) -> Incidence:
        """`_nonzeros` as an `Incidence`: float64 products, without SciPy while they are small."""
        rows, cols, shape = self._nonzeros
        return Incidence(rows, cols, np.ones(rows.shape[0]), shape)

    @cached_property
    def _incidence32(self) -> Any:
        """`_nonzeros` as a float32 SciPy CSR matrix, for counts in float32 (`fast_counts`)."""
        from scipy import sparse

        rows, cols, shape = self._nonzeros
        return sparse.csr_matrix((np.ones(rows.shape[0], dtype=np.float32), (rows, cols)), shape=shape)

    def fast_counts(self, resamples: int) -> bool:
        """Whether `resamples` draws go through the float32 product (`totals`): exact while every sum of counts is
        below 2^24 (n items are), and worth SciPy's import (0.1–0.2 s) when the products are large or SciPy is
        already loaded. float32 halves the memory the product reads: 2–7× faster than float64 products.

        >>> beyond = JointCells(np.array([2**24, 1]), np.array([0, 0]), np.array([[0, 1]]), 2, np.zeros(0, dtype=int))
        >>> beyond.fast_counts(10_000)  # 2^24 + 1 items: a sum of counts could round in float32
        False
        """
        if self.n_items >= FLOAT32_EXACT:
            return False
        nnz = self._nonzeros[0].shape[0]
        return nnz > LOOP_NONZEROS or nnz * resamples >= SCIPY_WORTH or "scipy.sparse" in sys.modules

    def totals(self, cell_counts: NDArray) -> NDArray[np.float64]:
        """TP|FP|FN totals of every system, (S, R, 3L), for cell counts of shape (R, J); (S, 3L) for shape (J,).

        One sparse product with the counts' transpose (`_nonzeros`: the gold supports and each system's FP and
        FN): the draws' (J, R)-contiguous counts (seen through a (R, J) view) are multiplied without a copy —
        in float32 when they are float32 (`fast_counts`), else in float64 (`Incidence`). TP is the support less
        FN. Counts and their sums are integers below 2^24, exact either way, so the totals are those of a product
        with every cell's TP, FP and FN. Each system's (R, 3L) totals are a view, laid out as the pair engine's
        (`PairedCells.totals`).
        """
        counts = np.asarray(cell_counts)
        if counts.dtype == np.float32 and self.n_items < FLOAT32_EXACT:  # one contiguous cast, then float64 alone
            product = (self._incidence32 @ (counts if counts.ndim == 1 else counts.T)).astype(np.float64)
        else:
            counts = counts.astype(np.float64, copy=False)
            product = self._incidence @ (counts if counts.ndim == 1 else counts.T)  # (L + S·2L, …)
        k, s = self.n_labels, self.n_systems
        support, errors = product[:k], product[k:].reshape(s, 2 * k, *product.shape[1:])
        out = np.empty((s, 3 * k, *product.shape[1:]))
        np.subtract(support, errors[:, k:], out=out[:, :k])
        out[:, k:] = errors
        return out if counts.ndim == 1 else out.transpose(0, 2, 1)

    def observed(self) -> NDArray[np.float64]:
        """(S, 3L) totals over the original items (through the product the resamples take when it is float32, so
        that a large incidence is built once)."""
        return self.totals(self.counts.astype(np.float32 if self.fast_counts(1) else np.float64))


def encode_systems(
    gold: Sequence[str], preds: Sequence[Sequence[str]]
) -> tuple[list[str], NDArray[np.int64], NDArray[np.int64]]:
    """One label list (gold labels sorted, then labels only predicted, sorted) and integer codes of the gold, (n,),
    and of every system's predictions, (S, n): `encode_triplet`'s order for any number of systems."""
    for pred in preds:
        if len(pred) != len(gold):
            raise ValueError(f"gold and predictions differ in length: {len(gold)}, {len(pred)}")
    gold_labels = sorted(set(gold))
    extra = sorted(set().union(*map(set, preds)).difference(gold_labels))
    labels = gold_labels + extra
    code = {label: i for i, label in enumerate(labels)}

    def enc(seq: Sequence[str]) -> NDArray[np.int64]:
        return np.fromiter(map(code.__getitem__, seq), dtype=np.int64, count=len(seq))

    codes = np.empty((len(preds), len(gold)), dtype=np.int64)  # filled in place: one copy for 1,000 systems
    for row, pred in zip(codes, preds):
        row[:] = enc(pred)
    return labels, enc(gold), codes


def joint_cells_from_labels(gold: ArrayLike, preds: ArrayLike, n_labels: int) -> JointCells:
    """Cells of integer-coded labels, gold (n,) and predictions (S, n), in lexicographic order of
    (gold, p_1, …, p_S) — for two systems the order of `cells_from_labels`.

    The key is built one system at a time and renumbered by ``np.unique`` after each, so it stays below n·L
    whatever the number of systems (a mixed-radix key of 11 columns of 42 labels would not fit 64 bits).
    """
    g = np.asarray(gold, dtype=np.int64)
    p = np.atleast_2d(np.asarray(preds, dtype=np.int64))
    if g.ndim != 1 or p.ndim != 2 or p.shape[1] != g.shape[0]:
        raise ValueError(f"gold must be (n,) and predictions (S, n), got {g.shape} and {p.shape}")
    k = int(n_labels)
    key = g
    for row in p:
        _, key = np.unique(key * k + row, return_inverse=True)  # ranks: lexicographic order of the prefix
    _, first, inverse, counts = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    return JointCells(counts.astype(np.int64), g[first], p[:, first], k, inverse.astype(np.int64).ravel())


@dataclass(frozen=True)
class LabelView:
    """The classes some pairs are scored on: `columns` of the joint labels, in order (None: all of them), the
    averaging spec over those classes, and the systems scored on them."""

    columns: NDArray[np.intp] | None
    spec: AveragingSpec
    systems: tuple[int, ...]

    def select(self, totals: NDArray[np.float64], n_labels: int) -> NDArray[np.float64]:
        """The view's TP|FP|FN columns of joint totals (..., 3L); all columns as a view, no copy."""
        if self.columns is None:
            return totals
        c = np.asarray(self.columns, dtype=np.intp)
        return totals[..., np.concatenate([c, n_labels + c, 2 * n_labels + c])]


def joint_blocks(resamples: int, cells: JointCells) -> list[int]:
    """The numbers of resamples drawn at once: at most JOINT_BLOCK_ELEMENTS counts of cells or totals of systems
    per block, a few hundred resamples on TACRED (they decide the order of the random stream, so a seed's
    numbers, and are part of the scheme like the seed itself)."""
    width = max(cells.n_cells, cells.n_systems * 3 * cells.n_labels, 1)
    size = max(1, min(resamples, JOINT_BLOCK_ELEMENTS // width))
    return [size] * (resamples // size) + ([resamples % size] if resamples % size else [])


def bootstrap_system_totals(cells: JointCells, resamples: int, rng: np.random.Generator) -> Iterator[NDArray]:
    """Blocks of every system's totals, (S, r, 3L), for `resamples` bootstrap resamples of the joint cells.

    Drawn as the pair engine draws (`draw_cell_counts`: multinomial over the larger cells and a pool of uniform
    slots for the smaller ones), in blocks sized to stay in cache (`joint_blocks`): with the pair engine's
    blocks of 4·10^6 counts the product of the counts with the incidence runs 3–5× slower on TACRED.
    """
    plan = bootstrap_plan(cells.counts)
    # two statements: the oldest mypy joins a conditional expression's two classes to `type[object]` (leg 2)
    dtype: type[np.floating[Any]] = np.float64
    if cells.fast_counts(resamples):
        dtype = np.float32
    for size in joint_blocks(resamples, cells):
        yield cells.totals(draw_cell_counts(cells.counts, size, rng, plan, dtype))


def joint_observed_f(cells: JointCells, views: Sequence[LabelView]) -> list[dict[str, NDArray[np.float64]]]:
    """F over the original items per view: {average: (systems of the view,)} as `f_scores` gives it per system."""
    totals = cells.observed()
    out = []
    for view in views:
        per_system = [f_scores(view.select(totals[s], cells.n_labels), view.spec) for s in view.systems]
        out.append({name: np.array([f[name] for f in per_system]) for name in per_system[0]})
    return out


def joint_resampled_f(
    cells: JointCells,
    views: Sequence[LabelView],
    resamples: int,
    seed: int | None,
    class_set: str = DEFAULT_CLASS_SET,
    progress: Callable[[int], None] | None = None,
) -> list[dict[str, NDArray[np.float64]]]:
    """F of every system of each view under every average for each of `resamples` joint bootstrap draws:
    {average: (systems of the view, resamples)} per view. All views and systems share each draw.

    Weights depend on the resampled gold supports only (the same for every system): computed once per view and
    block, as the pair engine computes them once for both systems. `class_set` as for the pair engine's
    `releval.metrics.cells.resampled_f`: "test" keeps the classes with gold support in all the items in every
    resample's class set, "resample" takes the resample's own. `progress`, when given, is called with the
    number of resamples of each block once it is scored (`joint_blocks`; they sum to `resamples`).
    """
    rng = np.random.default_rng(seed)
    return joint_f_of_totals(cells, views, bootstrap_system_totals(cells, resamples, rng), class_set, progress)


def joint_f_of_totals(
    cells: JointCells,
    views: Sequence[LabelView],
    blocks: Iterable[NDArray[np.float64]],
    class_set: str = DEFAULT_CLASS_SET,
    progress: Callable[[int], None] | None = None,
) -> list[dict[str, NDArray[np.float64]]]:
    """F of every system of each view under every average for blocks of system totals (S, r, 3L) — resamples of
    the joint bootstrap (`joint_resampled_f`), or any other weighting of the items, such as the halves of a split
    of the test set (`split_half_counts`): {average: (systems of the view, all blocks' r)} per view."""
    k = cells.n_labels
    observed = cells.observed()
    views = [
        replace(
            view,
            spec=fix_class_set(
                view.spec,
                counts_of(view.select(observed[view.systems[0]], k), view.spec.positive.shape[0]).support,
                class_set,
            ),
        )
        for view in views
    ]
    parts: list[dict[str, list[NDArray]]] = [{} for _ in views]
    everyone = tuple(range(cells.n_systems))
    for totals in blocks:
        for view, out in zip(views, parts):
            n_classes = view.spec.positive.shape[0]
            # every system of the view at once, (systems, r, 3L′); the weights depend on the shared gold alone
            mine = totals if view.systems == everyone else totals[list(view.systems)]
            counts = counts_of(view.select(mine, k), n_classes)
            weights = average_weights(counts_of(view.select(mine[0], k), n_classes).support, view.spec)
            for name, values in f_averages(counts, view.spec, weights).items():
                out.setdefault(name, []).append(values)
        if progress is not None:
            progress(int(totals.shape[1]))
    return [{name: np.concatenate(blocks_of, axis=1) for name, blocks_of in out.items()} for out in parts]


def split_half_counts(cells: JointCells, splits: int, seed: int | None) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The joint cell counts of two disjoint halves of the items, for each of `splits` random splits: (splits, J)
    each (an odd item out is left out of both), as Voorhees and Buckley (2002) split a test collection."""
    rng = np.random.default_rng(seed)
    n, j = cells.n_items, cells.n_cells
    half = n // 2
    a = np.empty((splits, j), dtype=np.int64)
    b = np.empty((splits, j), dtype=np.int64)
    for s in range(splits):
        order = rng.permutation(n)
        a[s] = np.bincount(cells.inverse[order[:half]], minlength=j)
        b[s] = np.bincount(cells.inverse[order[half : 2 * half]], minlength=j)
    return a, b
