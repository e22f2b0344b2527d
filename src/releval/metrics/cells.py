"""The fast paired resampling algorithm: resample distinct cells, not items.

Corpus-level scores depend on the items only through summed sufficient statistics (per-class TP/FP/FN). Items
with the same (gold, prediction A, prediction B) — or, for end-to-end RE, documents with the same per-type
count vectors of both systems — are interchangeable, so we group them into C distinct cells with counts m_c.

* A bootstrap resample of n items draws each item with probability 1/n; the number of draws landing in each
  cell is then Multinomial(n, m/n) — exactly the same distribution as resampling items, drawn in two exact
  stages (``Generator.multinomial`` over the larger cells and a pool, then uniform pool slots from random bits).
* Approximate randomization swaps A and B on each item with probability ½; in a cell of m_c items the number
  swapped is Binomial(m_c, ½), the popcount of m_c random bits (only cells where A and B differ matter).
* The totals of each resample are one matrix product of the (R, C) cell counts with the (C, D) per-cell
  statistics (`Incidence`, sparse); every average is then computed for all resamples at once by ``f_averages``
  (batch dims).

The cost is O(R·C·D) instead of O(R·n); C is a few hundred on TACRED (15,509 items).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from releval.core.options import DEFAULT_CLASS_SET
from releval.metrics.averages import AveragingSpec, average_weights, f_averages, fix_class_set
from releval.metrics.counts import ClassCounts

#: Upper bound on resamples × cells per block, to keep memory near 100 MB whatever R and C are.
BLOCK_ELEMENTS = 4_000_000
#: Cost of one binomial inside ``Generator.multinomial`` in pooled draws (measured ~25 on TACRED-like cells).
BINOMIAL_COST = 25
#: Largest pool: 2**24 slots.
MAX_POOL_BITS = 24
#: Bins per bincount block in the pooled draw (resamples × cells), small enough to stay in cache.
POOL_BLOCK_BINS = 32_768
#: Most non-zeros an `Incidence` multiplies with NumPy alone, one vector addition per non-zero (a pair of label
#: systems has at most six per cell: about 1,500 on TACRED). Above it SciPy's sparse product, faster for the joint
#: cells of many systems or wide end-to-end statistics, is worth its import (0.1–0.2 s, as long as the bootstrap of
#: a TACRED pair).
LOOP_NONZEROS = 8192


class Incidence:
    """A sparse (rows, C) matrix of per-cell statistics, multiplied by cell counts: `incidence @ x` for x of shape
    (C,) or (C, R) gives (rows,) or (rows, R).

    Each output row is 0.0 plus its non-zeros' terms value × x[cell], added in the order of their cells: the
    arithmetic of SciPy's CSR product, term for term, so either way gives the same floats (exact integers for
    counts). Up to LOOP_NONZEROS non-zeros it loops over them in NumPy, one addition over all resamples each, without
    importing SciPy (most of a one-pair `releval compare` run would be that import); beyond, it uses SciPy.
    """

    def __init__(self, rows: ArrayLike, cols: ArrayLike, values: ArrayLike, shape: tuple[int, int]) -> None:
        r, c = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
        v = np.asarray(values, dtype=np.float64)
        keep = v != 0.0
        order = np.lexsort((c[keep], r[keep]))  # row by row, cells ascending within a row: CSR's order
        self.rows, self.cols, self.values = r[keep][order], c[keep][order], v[keep][order]
        self.shape = (int(shape[0]), int(shape[1]))
        self._sparse: Any = None
        self._terms: list[tuple[int, list[tuple[int, float]]]] = []  # (row, its (cell, value) terms) for the loop
        if self.rows.shape[0] > LOOP_NONZEROS:
            from scipy import sparse  # only for products too large for the loop

            self._sparse = sparse.csr_matrix((self.values, (self.rows, self.cols)), shape=self.shape)
            return
        starts = np.flatnonzero(np.diff(self.rows, prepend=-1))
        ends = [*starts[1:].tolist(), self.rows.shape[0]]
        self._terms = [
            (int(self.rows[a]), [(int(j), float(w)) for j, w in zip(self.cols[a:b], self.values[a:b])])
            for a, b in zip(starts.tolist(), ends)
        ]

    @classmethod
    def of(cls, matrix: ArrayLike) -> Incidence:
        """The incidence of a dense (rows, C) matrix (its non-zeros)."""
        m = np.asarray(matrix, dtype=np.float64)
        rows, cols = np.nonzero(m)
        return cls(rows, cols, m[rows, cols], (m.shape[0], m.shape[1]))

    @property
    def nnz(self) -> int:
        return int(self.rows.shape[0])

    def __matmul__(self, x: ArrayLike) -> NDArray[np.float64]:
        counts = np.asarray(x, dtype=np.float64)
        if counts.shape[0] != self.shape[1] or counts.ndim not in (1, 2):
            raise ValueError(f"cannot multiply a {self.shape} incidence by an array of shape {counts.shape}")
        if self._sparse is not None:
            return np.asarray(self._sparse @ counts, dtype=np.float64)
        if counts.ndim == 1:
            out = np.zeros(self.shape[0])
            np.add.at(out, self.rows, self.values * counts[self.cols])  # in order, as the loop below adds
            return out
        counts = np.ascontiguousarray(counts)  # rows of the cells, each contiguous over the resamples
        out = np.zeros((self.shape[0], counts.shape[1]))
        term = np.empty(counts.shape[1])
        for row, nonzeros in self._terms:
            total = out[row]
            for cell, value in nonzeros:
                if value == 1.0:
                    np.add(total, counts[cell], out=total)
                else:
                    np.add(total, np.multiply(counts[cell], value, out=term), out=total)
        return out


@dataclass(frozen=True)
class PairedCells:
    """Distinct cells: item count per cell, each system's summed statistics per item of the cell, item→cell map."""

    counts: NDArray[np.int64]  # (C,)
    stats_a: NDArray[np.float64]  # (C, D)
    stats_b: NDArray[np.float64]  # (C, D)
    inverse: NDArray[np.int64]  # (n,) cell of each item

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())

    @property
    def n_cells(self) -> int:
        return int(self.counts.shape[0])

    @cached_property
    def _incidence_t(self) -> Incidence:
        """(2D, C) statistics of A then B per cell, transposed: ≤ 6 non-zeros per column for labels."""
        return Incidence.of(np.hstack([self.stats_a, self.stats_b]).T)

    def totals(self, cell_counts: NDArray) -> tuple[NDArray, NDArray]:
        """Summed statistics of A and B, (R, D) each, for cell counts of shape (R, C) or (C,).

        One sparse product with the counts' transpose, so the resamplers' (C, R)-contiguous float counts (seen
        through a (R, C) transposed view) are multiplied without a copy; the totals come back as views too.
        """
        counts = np.asarray(cell_counts, dtype=np.float64)
        both = self._incidence_t @ counts if counts.ndim == 1 else (self._incidence_t @ counts.T).T
        d = self.stats_a.shape[1]
        return both[..., :d], both[..., d:]

    def observed(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Totals over the original items."""
        return self.totals(self.counts)


def _label_rows(gold: NDArray[np.int64], pred: NDArray[np.int64], k: int) -> NDArray[np.float64]:
    """Per-item TP|FP|FN one-hot rows (length 3K): right → TP[g]; wrong → FP[p] and FN[g]."""
    rows = np.zeros((gold.shape[0], 3 * k), dtype=np.float64)
    idx = np.arange(gold.shape[0])
    right = gold == pred
    rows[idx[right], gold[right]] = 1.0
    rows[idx[~right], k + pred[~right]] = 1.0
    rows[idx[~right], 2 * k + gold[~right]] = 1.0
    return rows


def cells_from_labels(gold: ArrayLike, pred_a: ArrayLike, pred_b: ArrayLike, n_labels: int) -> PairedCells:
    """Cells of integer-coded labels: one key g·K² + a·K + b per item, grouped by ``np.unique``."""
    g = np.asarray(gold, dtype=np.int64)
    a = np.asarray(pred_a, dtype=np.int64)
    b = np.asarray(pred_b, dtype=np.int64)
    if not (g.shape == a.shape == b.shape) or g.ndim != 1:
        raise ValueError(f"gold and predictions must be aligned 1-d arrays, got {g.shape}, {a.shape}, {b.shape}")
    k = int(n_labels)
    keys, first, inverse, counts = np.unique(
        (g * k + a) * k + b, return_index=True, return_inverse=True, return_counts=True
    )
    del keys
    return PairedCells(
        counts=counts.astype(np.int64),
        stats_a=_label_rows(g[first], a[first], k),
        stats_b=_label_rows(g[first], b[first], k),
        inverse=inverse.astype(np.int64).ravel(),
    )


def cells_from_rows(rows_a: ArrayLike, rows_b: ArrayLike) -> PairedCells:
    """Cells of per-item statistic rows (n, D) of both systems (e.g. per-document TP|FP|FN per type)."""
    ra = np.asarray(rows_a, dtype=np.float64)
    rb = np.asarray(rows_b, dtype=np.float64)
    if ra.ndim == 1:
        ra, rb = ra[:, None], rb[:, None]
    if ra.shape != rb.shape or ra.ndim != 2:
        raise ValueError(f"per-item statistics of A and B must have equal (n, D) shapes, got {ra.shape}, {rb.shape}")
    d = ra.shape[1]
    uniq, inverse, counts = np.unique(np.hstack([ra, rb]), axis=0, return_inverse=True, return_counts=True)
    return PairedCells(
        counts.astype(np.int64), uniq[:, :d].copy(), uniq[:, d:].copy(), inverse.astype(np.int64).ravel()
    )


def cells_from_counts(
    tp_a: ArrayLike, fp_a: ArrayLike, fn_a: ArrayLike, tp_b: ArrayLike, fp_b: ArrayLike, fn_b: ArrayLike
) -> PairedCells:
    """Cells of per-item (or per-document) count arrays of shape (n, K) for TP, FP and FN of A and of B."""
    parts = [np.atleast_2d(np.asarray(x, dtype=np.float64)) for x in (tp_a, fp_a, fn_a, tp_b, fp_b, fn_b)]
    shapes = {p.shape for p in parts}
    if len(shapes) != 1:
        raise ValueError(f"TP/FP/FN arrays of both systems must share one (n, K) shape, got {sorted(shapes)}")
    return cells_from_rows(np.hstack(parts[:3]), np.hstack(parts[3:]))


def _blocks(resamples: int, n_cells: int) -> Iterator[int]:
    size = max(1, min(resamples, BLOCK_ELEMENTS // max(n_cells, 1)))
    done = 0
    while done < resamples:
        step = min(size, resamples - done)
        yield step
        done += step


@dataclass(frozen=True)
class BootstrapPlan:
    """How `bootstrap_cell_counts` splits the n items: 2**bits pooled slots plus multinomial categories.

    ``slot_cell[s]`` is the cell of pooled slot s; ``big_cells`` / ``big_counts`` are the cells (and their
    numbers of items) left outside the pool. A cell may be split, some items pooled and the rest not.
    """

    bits: int
    slot_cell: NDArray[np.intp]
    big_cells: NDArray[np.intp]
    big_counts: NDArray[np.int64]


def bootstrap_plan(counts: NDArray[np.int64], bits: int | None = None) -> BootstrapPlan:
    """Pool the items of the smallest cells into 2**bits slots; `bits` minimises the modelled cost if not given.

    Modelled cost per resample: BINOMIAL_COST per multinomial category + 1 per pooled draw (2**bits expected).
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    order = np.argsort(counts, kind="stable")
    cum = np.cumsum(counts[order])
    max_bits = min(MAX_POOL_BITS, n.bit_length() - 1)

    def cost(b: int) -> float:
        outside = counts.shape[0] - int(np.searchsorted(cum, 1 << b, side="right"))
        return BINOMIAL_COST * (outside + 1) + (1 << b)

    if bits is None:
        bits = min(range(max_bits + 1), key=cost)
    if not 0 <= bits <= max_bits:
        raise ValueError(f"pool bits must lie in [0, {max_bits}] for {n} items, got {bits}")
    slots = 1 << bits
    full = int(np.searchsorted(cum, slots, side="right"))  # cells order[:full] fit into the pool entirely
    pooled = np.zeros_like(counts)
    pooled[order[:full]] = counts[order[:full]]
    if full < counts.shape[0]:
        pooled[order[full]] = slots - (int(cum[full - 1]) if full else 0)
    rest = counts - pooled
    big = np.flatnonzero(rest > 0)
    return BootstrapPlan(bits, np.repeat(np.arange(counts.shape[0], dtype=np.intp), pooled), big, rest[big])


def _pool_slots(rng: np.random.Generator, total: int, bits: int) -> NDArray[np.intp]:
    """`total` independent uniform slot numbers in [0, 2**bits), cut from full-range 64-bit draws."""
    width = 8 if bits <= 8 else 16 if bits <= 16 else 32
    per_word = 64 // width
    words = rng.integers(0, 1 << 64, size=-(-total // per_word), dtype=np.uint64)
    return np.right_shift(words.view(f"u{width // 8}")[:total], width - bits, dtype=np.intp)  # intp: no index cast


def bootstrap_cell_counts(
    cells: PairedCells, size: int, rng: np.random.Generator, plan: BootstrapPlan | None = None
) -> NDArray[np.float64]:
    """(size, C) cell counts of `size` bootstrap resamples of the n items, i.e. rows ~ Multinomial(n, m/n).

    The counts are exact integers held as float64 in a (C, size)-contiguous array seen through its transpose.

    Drawn in two exact stages: ``Generator.multinomial`` over the items outside the pool (per cell) plus one
    category for the 2**bits pooled items; then each resample's pool draws go to uniformly drawn slots, cut
    from random bits, and so to their cells with probability (pooled items of the cell) / 2**bits. Conditional
    on the pool's total this is multinomial, so the cell totals are Multinomial(n, m/n). The split only saves
    time: a binomial inside the multinomial costs ~25 pooled draws, and most cells hold a few items.
    """
    return draw_cell_counts(cells.counts, size, rng, plan)


def draw_cell_counts(
    cell_sizes: NDArray[np.int64],
    size: int,
    rng: np.random.Generator,
    plan: BootstrapPlan | None = None,
    dtype: type[np.floating[Any]] = np.float64,
) -> NDArray[Any]:
    """`bootstrap_cell_counts` for cells given by their numbers of items alone (any kind of cells: the pairs'
    here, the joint cells of many systems in `releval.metrics.joint_cells`). `dtype` float32 holds the counts
    exactly below 2^24 items (the same draws, half the memory for the product that follows)."""
    n = int(cell_sizes.sum())
    n_cells = cell_sizes.shape[0]
    plan = plan or bootstrap_plan(cell_sizes)
    draws = rng.multinomial(n, np.append(plan.big_counts, 1 << plan.bits) / n, size=size)
    out = np.zeros((n_cells, size), dtype=dtype)  # cells × resamples: the layout `totals` multiplies fastest
    rows = max(1, POOL_BLOCK_BINS // n_cells)  # keep each bincount's bins in cache
    for start in range(0, size, rows):
        per_row = draws[start : start + rows, -1]
        r = per_row.shape[0]
        key = np.repeat(np.arange(r, dtype=np.intp), per_row)
        key += (plan.slot_cell * r)[_pool_slots(rng, int(per_row.sum()), plan.bits)]
        out[:, start : start + r] = np.bincount(key, minlength=n_cells * r).reshape(n_cells, r)
    out[plan.big_cells] += draws[:, :-1].T
    return out.T


def bootstrap_totals(
    cells: PairedCells, resamples: int, rng: np.random.Generator
) -> Iterator[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Blocks of (totals A, totals B), each (r, D), for `resamples` paired bootstrap resamples."""
    plan = bootstrap_plan(cells.counts)
    for size in _blocks(resamples, cells.n_cells):
        yield cells.totals(bootstrap_cell_counts(cells, size, rng, plan))


def _popcount(words: NDArray[np.uint64]) -> NDArray[np.uint8]:
    """Number of set bits of each 64-bit word (``np.bitwise_count`` on NumPy ≥ 2, a byte table before)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    return table[words.view(np.uint8)].reshape(*words.shape, 8).sum(axis=-1, dtype=np.uint8)


def randomization_totals(
    cells: PairedCells, resamples: int, rng: np.random.Generator
) -> Iterator[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Blocks of (totals A, totals B) after swapping a Binomial(m_c, ½) share of each cell between A and B.

    Each item's coin is one random bit, so a cell's number of swaps is the popcount of m_c uniform bits, held in
    ⌈m_c/64⌉ 64-bit words (the last one masked): exactly Binomial(m_c, ½), at the cost of a word per 64 items.
    """
    base_a, base_b = cells.observed()
    diff = cells.stats_b - cells.stats_a
    active = np.flatnonzero(np.any(diff != 0, axis=1))  # cells where a swap changes something
    if active.shape[0] == 0:
        for size in _blocks(resamples, 1):
            yield np.broadcast_to(base_a, (size, base_a.shape[0])), np.broadcast_to(base_b, (size, base_b.shape[0]))
        return
    diff_t = Incidence.of(diff[active].T)
    counts = cells.counts[active]
    n_words = -(-counts // 64)
    starts = np.concatenate([[0], np.cumsum(n_words)[:-1]])
    last_bits = counts - 64 * (n_words - 1)
    ones = np.uint64(np.iinfo(np.uint64).max)
    masks = np.full(int(n_words.sum()), ones, dtype=np.uint64)
    masks[starts + n_words - 1] = ones >> (64 - last_bits).astype(np.uint64)  # the low last_bits bits (1…64)
    for size in _blocks(resamples, masks.shape[0]):
        words = rng.integers(0, 1 << 64, size=(masks.shape[0], size), dtype=np.uint64)
        words &= masks[:, None]
        swaps = _popcount(words)
        swaps = (
            swaps.astype(np.float64)
            if swaps.shape[0] == counts.shape[0]
            else np.add.reduceat(swaps, starts, axis=0, dtype=np.float64)
        )
        shift = (diff_t @ swaps).T
        yield base_a + shift, base_b - shift


def counts_of(totals: NDArray[np.float64], n_classes: int) -> ClassCounts:
    """Split TP|FP|FN totals (..., 3K) into ClassCounts (float arrays holding exact integers)."""
    k = n_classes
    return ClassCounts(tp=totals[..., :k], fp=totals[..., k : 2 * k], fn=totals[..., 2 * k :])  # type: ignore[arg-type]


def f_scores(
    totals: NDArray[np.float64], spec: AveragingSpec, weights: dict[str, NDArray[np.float64]] | None = None
) -> dict[str, NDArray[np.float64]]:
    """F of every average (micro, then the weightings) for totals of shape (..., 3K); see `f_averages`."""
    return f_averages(counts_of(totals, spec.positive.shape[0]), spec, weights)


def shares_gold(cells: PairedCells, n_classes: int) -> bool:
    """True when every cell has the same gold counts (TP + FN per class) for A and B — so does every resample."""
    k = n_classes
    a, b = cells.stats_a, cells.stats_b
    return a.shape[1] == 3 * k and np.array_equal(a[:, :k] + a[:, 2 * k :], b[:, :k] + b[:, 2 * k :])


def resampled_f(
    cells: PairedCells,
    spec: AveragingSpec,
    resamples: int,
    seed: int | None,
    method: str = "bootstrap",
    on_block: Callable[[NDArray, NDArray], None] | None = None,
    class_set: str = DEFAULT_CLASS_SET,
) -> dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """F of A and of B under every average for each of `resamples` paired bootstrap or randomization draws.

    Weights depend on the gold supports only; when both systems share the gold (always, for labels) they are
    computed once per resample for both. `on_block` is given each block of resampled totals of A and B (per-class
    TP, FP, FN), so a caller can keep more of the same draws (per-class F: releval.significance.per_class).

    `class_set`: the classes a resample's class-weighted averages run over — "test", the classes with gold support
    in all the cells' items, fixed in every resample; or "resample", those with gold support in the resample
    (`releval.metrics.averages.fix_class_set`, which says how a fixed class without gold items in a resample is
    scored). A randomization draw keeps every item's gold, so both give it the same numbers.
    """
    rng = np.random.default_rng(seed)
    draw = {"bootstrap": bootstrap_totals, "randomization": randomization_totals}[method]
    k = spec.positive.shape[0]
    spec = fix_class_set(spec, counts_of(cells.observed()[0], k).support, class_set)
    shared = shares_gold(cells, k)
    parts_a: dict[str, list[NDArray]] = {}
    parts_b: dict[str, list[NDArray]] = {}
    for tot_a, tot_b in draw(cells, resamples, rng):
        counts_a = counts_of(tot_a, k)
        weights = average_weights(counts_a.support, spec) if shared else None
        for parts, f in ((parts_a, f_averages(counts_a, spec, weights)), (parts_b, f_scores(tot_b, spec, weights))):
            for name, values in f.items():
                parts.setdefault(name, []).append(values)
        if on_block is not None:
            on_block(tot_a, tot_b)
    return {name: (np.concatenate(parts_a[name]), np.concatenate(parts_b[name])) for name in parts_a}


def encode_triplet(
    gold: Sequence[str], pred_a: Sequence[str], pred_b: Sequence[str]
) -> tuple[list[str], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """One label list (gold labels sorted, then predicted-only ones) and integer codes of all three sequences."""
    if not (len(gold) == len(pred_a) == len(pred_b)):
        raise ValueError(f"gold and predictions differ in length: {len(gold)}, {len(pred_a)}, {len(pred_b)}")
    gold_labels = sorted(set(gold))
    extra = sorted((set(pred_a) | set(pred_b)).difference(gold_labels))
    labels = gold_labels + extra
    code = {label: i for i, label in enumerate(labels)}

    def enc(seq: Sequence[str]) -> NDArray[np.int64]:
        return np.fromiter(map(code.__getitem__, seq), dtype=np.int64, count=len(seq))

    return labels, enc(gold), enc(pred_a), enc(pred_b)
