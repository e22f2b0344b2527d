"""Paired bootstrap, 10^4 resamples, TACRED-size test set (15,509 items, 42 labels, micro + four weightings).

releval (distinct cells, multinomial draws) vs a vectorised per-item numpy bootstrap vs scipy.stats.bootstrap
(paired=True); then approximate randomization (releval's bit-count swaps vs per-item coins in numpy).
Run: `python benchmarks/bench_significance.py [--resamples 10000] [--scipy-resamples 1000]`. SciPy and the per-item
randomization run fewer resamples and are extrapolated linearly (their cost is linear in the resamples).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from scipy import stats

from releval.metrics.averages import AveragingSpec, all_averages
from releval.metrics.counts import counts_from_confusion
from releval.significance.paired import approximate_randomization, paired_bootstrap

N_ITEMS, N_LABELS = 15_509, 42


def make_data(seed: int = 0) -> tuple[list[str], list[str], list[str]]:
    """TACRED-like: 'no_relation' ~ 79.5 %, 41 Zipf-distributed relations, two systems with different errors."""
    rng = np.random.default_rng(seed)
    labels = ["no_relation"] + [f"rel_{i:02d}" for i in range(1, N_LABELS)]
    zipf = 1.0 / np.arange(1, N_LABELS) ** 1.1
    probs = np.concatenate([[0.795], 0.205 * zipf / zipf.sum()])
    gold = rng.choice(N_LABELS, N_ITEMS, p=probs)

    def system(keep: float) -> np.ndarray:
        wrong = rng.random(N_ITEMS) > keep
        noise = np.where(rng.random(N_ITEMS) < 0.6, 0, rng.integers(0, N_LABELS, N_ITEMS))
        return np.where(wrong, noise, gold)

    a, b = system(0.90), system(0.88)
    return [labels[i] for i in gold], [labels[i] for i in a], [labels[i] for i in b]


def encode(gold: list[str], a: list[str], b: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, AveragingSpec]:
    names = sorted(set(gold) | set(a) | set(b))
    code = {x: i for i, x in enumerate(names)}
    arr = [np.array([code[x] for x in seq]) for seq in (gold, a, b)]
    return arr[0], arr[1], arr[2], AveragingSpec(np.array([x != "no_relation" for x in names]))


def deltas_from_confusions(g: np.ndarray, p: np.ndarray, q: np.ndarray, k: int, spec: AveragingSpec) -> np.ndarray:
    """(5, B) differences of micro + four weightings for resampled code arrays of shape (B, n)."""
    rows = np.arange(g.shape[0])[:, None] * k * k
    out = []
    for pred in (p, q):
        flat = np.bincount((rows + g * k + pred).ravel(), minlength=g.shape[0] * k * k)
        _, av = all_averages(counts_from_confusion(flat.reshape(g.shape[0], k, k)), spec)
        out.append(np.stack([np.asarray(v.f) for v in av.values()]))
    return out[0] - out[1]


def _chunked(draw, spec, resamples: int, seed: int, chunk: int = 250) -> np.ndarray:  # noqa: ANN001
    """(5, R) differences; `draw(rng, size)` returns resampled (gold, A, B) code arrays of shape (size, n)."""
    rng = np.random.default_rng(seed)
    k = spec.positive.shape[0]
    parts = []
    for start in range(0, resamples, chunk):
        parts.append(deltas_from_confusions(*draw(rng, min(chunk, resamples - start)), k, spec))
    return np.concatenate(parts, axis=1)


def per_item_numpy(g, a, b, spec, resamples: int, seed: int = 1) -> np.ndarray:  # noqa: ANN001
    """Reference bootstrap: draw item indices (R, n), one bincount per system and resample, averages batched."""

    def draw(rng: np.random.Generator, size: int) -> tuple[np.ndarray, ...]:
        idx = rng.integers(0, g.shape[0], size=(size, g.shape[0]))
        return g[idx], a[idx], b[idx]

    return _chunked(draw, spec, resamples, seed)


def per_item_randomization(g, a, b, spec, trials: int, seed: int = 3) -> np.ndarray:  # noqa: ANN001
    """Reference randomization: one coin per item and trial (R, n), swap A and B where it shows heads."""

    def draw(rng: np.random.Generator, size: int) -> tuple[np.ndarray, ...]:
        swap = rng.random((size, g.shape[0])) < 0.5
        return np.broadcast_to(g, swap.shape), np.where(swap, b, a), np.where(swap, a, b)

    return _chunked(draw, spec, trials, seed)


def scipy_bootstrap(g, a, b, spec, resamples: int) -> object:  # noqa: ANN001
    k = spec.positive.shape[0]

    def statistic(gg: np.ndarray, aa: np.ndarray, bb: np.ndarray, axis: int = -1) -> np.ndarray:
        gg, aa, bb = (np.atleast_2d(np.moveaxis(x, axis, -1)) for x in (gg, aa, bb))
        return deltas_from_confusions(gg, aa, bb, k, spec)

    return stats.bootstrap(
        (g, a, b),
        statistic,
        paired=True,
        vectorized=True,
        n_resamples=resamples,
        batch=250,
        method="percentile",
        random_state=np.random.default_rng(2),
    )


def timed(fn, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN201
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--numpy-resamples", type=int, default=10_000)
    parser.add_argument("--scipy-resamples", type=int, default=1_000)
    parser.add_argument("--ar-numpy-trials", type=int, default=2_000, help="per-item randomization reference")
    parser.add_argument("--repeat", type=int, default=3, help="releval timing: median of N runs")
    args = parser.parse_args()
    gold, a, b = make_data()
    g, ca, cb, spec = encode(gold, a, b)
    r = args.resamples
    paired_bootstrap(gold[:100], a[:100], b[:100], resamples=10)  # warm-up imports
    runs = [timed(paired_bootstrap, gold, a, b, resamples=r) for _ in range(args.repeat)]
    t_rel, res = statistics.median(t for t, _ in runs), runs[0][1]
    print(
        f"data: {N_ITEMS} items, {N_LABELS} labels, {res.extra['cells']} distinct cells; {r} resamples; "
        "averages: micro, weighted, dodrans, entropy, macro"
    )
    print(f"releval paired_bootstrap (labels in, all five averages, p and CIs): {t_rel:.3f} s (median, {args.repeat})")
    t_np, deltas = timed(per_item_numpy, g, ca, cb, spec, args.numpy_resamples)
    t_np_full = t_np * r / args.numpy_resamples
    note = "" if args.numpy_resamples == r else f" (measured {args.numpy_resamples}, extrapolated)"
    print(f"per-item numpy (vectorised bincount):                         {t_np_full:.3f} s{note}")
    t_sp, sp = timed(scipy_bootstrap, g, ca, cb, spec, args.scipy_resamples)
    t_sp_full = t_sp * r / args.scipy_resamples
    note = "" if args.scipy_resamples == r else f" (measured {args.scipy_resamples}: {t_sp:.2f} s, extrapolated)"
    print(f"scipy.stats.bootstrap(paired=True, percentile):              {t_sp_full:.3f} s{note}")
    print(f"ratios: per-item numpy / releval = {t_np_full / t_rel:.1f}x; scipy / releval = {t_sp_full / t_rel:.1f}x")
    print(
        f"targets: releval <= 0.2 s: {'met' if t_rel <= 0.2 else 'NOT met'}; "
        f">= 20x per-item numpy: {'met' if t_np_full / t_rel >= 20 else 'NOT met'}"
    )
    ar_runs = [timed(approximate_randomization, gold, a, b, resamples=r) for _ in range(args.repeat)]
    t_ar, ar = statistics.median(t for t, _ in ar_runs), ar_runs[0][1]
    t_ar_np, ar_np = timed(per_item_randomization, g, ca, cb, spec, args.ar_numpy_trials)
    t_ar_np_full = t_ar_np * r / args.ar_numpy_trials
    p_np = (np.count_nonzero(np.abs(ar_np[0]) >= abs(ar.rows["micro"].effect) - 1e-12) + 1) / (ar_np.shape[1] + 1)
    print(
        f"approximate randomization, {r} trials: releval {t_ar:.3f} s (median of {args.repeat}); per-item numpy "
        f"{t_ar_np_full:.3f} s (measured {args.ar_numpy_trials}, extrapolated); ratio {t_ar_np_full / t_ar:.1f}x; "
        f"micro p: releval {ar.rows['micro'].p_value:.4f}, per-item {p_np:.4f}"
    )
    # sanity: the three agree on the distribution of the micro difference (spread of delta*)
    rel_sd = float(np.diff(res.rows["micro"].ci_effect)[0])
    np_sd = float(np.diff(np.quantile(deltas[0], [0.025, 0.975]))[0])
    sp_ci = sp.confidence_interval
    print(
        f"95% CI width of the micro difference: releval {rel_sd:.4f}, per-item numpy {np_sd:.4f}, "
        f"scipy {float(sp_ci.high[0] - sp_ci.low[0]):.4f}"
    )


if __name__ == "__main__":
    main()
