"""Resampling speed per resample: releval's joint bootstrap of every system under every average against a per-item
NumPy bootstrap of micro-F alone (issue 33 item 2: >= 20x per resample), and its peak memory for 1,000 systems.

The peer is the bootstrap a researcher writes in NumPy: per resample, n item indices drawn with replacement, and
for each system micro-F from its per-item TP/FP/FN indicators summed over the drawn items (micro only: the
weightings would need a bincount per class on top). releval draws the distinct (gold, every prediction) tuples once
per resample for all systems (releval.metrics.joint_cells) and computes micro and the four default weightings of
every system. Both run in this process on the same systems, interleaved; the medians of several runs are printed,
per resample, and their ratio against the goal. Beside them, the time of drawing the n item indices alone (in
batches, cheaper than the peer's own draw): the peer's time over it is the most any bootstrap that draws items
could reach, before it counts anything. With 5 or 10 systems that bound lies below 20x on an idle machine (SemEval
about 12x, TACRED-sized about 17x): only with many systems — issue 33's case, 49 TACRED systems and 1,176 pairs,
where the resamples are needed — does the goal lie within reach, and there it is met.

Cases: the five bundled SemEval-2010 Task 8 systems (2,717 items, 19 labels); synthetic TACRED-sized systems
(15,509 items, 42 labels; gold from `synthetic.py`, errors falling mostly on shared hard items and there mostly on
the same wrong label, as `bench_compare_many.py` makes them: ten systems give 2,677 distinct tuples where TACRED's
ten real systems give 2,597) — 10 and 49 of them by default (`--synthetic`); the ten real TACRED systems when
`../shared/data/tacred_labels/test_results` is beside the clone (or `--tacred DIR`). Then the memory case: 1,000
synthetic TACRED-sized systems, the peak of memory allocated (tracemalloc) from the label lists to every system's
F under every average for `--memory-resamples` resamples, beside the size of that output.

Run: `python benchmarks/bench_resampling.py [--resamples 2000] [--runs 5] [--synthetic 10 49] [--memory-systems
1000] [--memory-resamples 200] [--tacred DIR]`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

import bench_compare_many
from releval.data.labels import load_labels
from releval.metrics.joint_cells import joint_resampled_f
from releval.significance.compare import joint_views
from releval.tasks.classification import ClassificationConfig

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SEMEVAL = ROOT / "examples" / "semeval2010_task8"
TACRED = ROOT.parent / "shared" / "data" / "tacred_labels" / "test_results"
GOAL = 20.0
N_ITEMS = 15_509

Case = tuple[str, list[str], dict[str, list[str]], str]


def semeval_systems() -> tuple[list[str], dict[str, list[str]], str]:
    gold = load_labels(SEMEVAL / "test_key_directed.txt", role="gold")
    assert gold.ids is not None  # the key has ids
    order = {i: k for k, i in enumerate(gold.ids)}
    systems = {}
    for path in sorted(SEMEVAL.glob("onehaitao_*.txt")):
        pred = load_labels(path)
        assert pred.ids is not None
        labels = [""] * len(order)
        for i, label in zip(pred.ids, pred.labels):
            labels[order[i]] = label
        systems[path.stem] = labels
    return list(gold.labels), systems, "Other"


def synthetic_systems(k: int, seed: int = 0) -> tuple[list[str], dict[str, list[str]], str]:
    """k TACRED-sized systems: `bench_compare_many.py`'s ten patterns (the first k of them), and beyond ten,
    patterns drawn from the same ranges (error rate 0.2–0.42, negative share 0.3–0.8, follow 0.68–0.995)."""
    sys.path.insert(0, str(HERE))
    from bench_compare_many import PATTERNS, USUAL_SHARE
    from synthetic import LABELS, label_indices

    gold, _ = label_indices(N_ITEMS, seed)
    rng = np.random.default_rng(seed + 1)
    hardness = rng.random(N_ITEMS)  # shared: who errs
    usual = np.where(rng.random(N_ITEMS) < 0.5, 0, rng.integers(0, len(LABELS), N_ITEMS))  # the usual wrong label
    more = np.random.default_rng(seed + 2)
    patterns = list(PATTERNS[:k]) + [
        (more.uniform(0.2, 0.42), more.uniform(0.3, 0.8), more.uniform(0.68, 0.995)) for _ in range(k - len(PATTERNS))
    ]
    systems = {}
    for i, (rate, negative, follow) in enumerate(patterns):
        score = follow * hardness + (1 - follow) * rng.random(N_ITEMS)
        wrong = score < np.quantile(score, rate)
        own = np.where(rng.random(N_ITEMS) < negative, 0, rng.integers(0, len(LABELS), N_ITEMS))
        pred = np.where(wrong, np.where(rng.random(N_ITEMS) < USUAL_SHARE, usual, own), gold)
        systems[f"sys{i:03d}"] = [LABELS[j] for j in pred]
    return [LABELS[j] for j in gold], systems, "no_relation"


def tacred_systems(folder: Path) -> tuple[list[str], dict[str, list[str]], str]:
    """The real TACRED systems of `*_test.jsonl.gz` files (gold from the files), as bench_compare_many reads them."""
    gold, systems = bench_compare_many.tacred_systems(folder)
    return gold, systems, "no_relation"


def numpy_micro_bootstrap(gold: list[str], systems: dict[str, list[str]], negative: str, resamples: int) -> float:
    """The peer: per-item indicators, n indices per resample, micro-F of every system; seconds."""
    g = np.asarray(gold)
    indicators = []
    for pred in systems.values():
        p = np.asarray(pred)
        tp = ((p == g) & (g != negative)).astype(np.int64)
        fp = ((p != g) & (p != negative)).astype(np.int64)
        fn = ((p != g) & (g != negative)).astype(np.int64)
        indicators.append((tp, fp, fn))
    rng = np.random.default_rng(12345)
    n = len(gold)
    start = time.perf_counter()
    for _ in range(resamples):
        idx = rng.integers(0, n, n)
        for tp, fp, fn in indicators:
            t, f_p, f_n = tp[idx].sum(), fp[idx].sum(), fn[idx].sum()
            _ = 2 * t / (2 * t + f_p + f_n) if t else 0.0
    return time.perf_counter() - start


def index_draw(n: int, resamples: int) -> float:
    """What every per-item bootstrap pays before it scores anything: n item indices per resample, drawn in
    batches of 100 resamples (cheaper per index than the peer's one draw per resample); seconds."""
    rng = np.random.default_rng(12345)
    batch = 100
    start = time.perf_counter()
    for _ in range(-(-resamples // batch)):
        rng.integers(0, n, (batch, n))
    return time.perf_counter() - start


def _pairs(systems: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The first system against every other (and one pair back): every system is resampled and scored."""
    names = list(systems)
    return [(names[0], other) for other in names[1:]] + [(names[1], names[0])]


def releval_joint(gold: list[str], systems: dict[str, list[str]], negative: str, resamples: int) -> float:
    """releval: one joint draw per resample, every system under micro and the four default weightings; seconds."""
    config = ClassificationConfig(negative=negative)  # micro and the four default weightings
    cells, views, _ = joint_views(gold, systems, _pairs(systems), config, negative)
    joint_resampled_f(cells, views, 1, 0)  # the incidence is built once per comparison, not per resample
    start = time.perf_counter()
    joint_resampled_f(cells, views, resamples, 12345)
    return time.perf_counter() - start


def speed(cases: list[Case], resamples: int, runs: int) -> list[tuple[str, float, float]]:
    """Per-resample medians of both, interleaved run by run; per case (title, ratio, bound of an item bootstrap)."""
    verdicts = []
    for title, gold, systems, negative in cases:
        peer_resamples = max(20, resamples // max(1, len(systems) // 5))  # the peer's per-system loop is slow
        peer, mine, indices = [], [], []
        for _ in range(runs):
            peer.append(numpy_micro_bootstrap(gold, systems, negative, peer_resamples) / peer_resamples)
            mine.append(releval_joint(gold, systems, negative, resamples) / resamples)
            indices.append(index_draw(len(gold), resamples) / resamples)
        ratio = statistics.median(peer) / statistics.median(mine)
        bound = statistics.median(peer) / statistics.median(indices)
        verdicts.append((title, ratio, bound))
        print(
            f"{title}: per resample, NumPy per-item micro-only {1e6 * statistics.median(peer):,.0f} µs, releval "
            f"joint (all systems, micro + 4 weightings) {1e6 * statistics.median(mine):,.1f} µs: {ratio:.1f}x "
            f"(medians of {runs}; runs {', '.join(f'{1e6 * t:.0f}' for t in mine)} µs); drawing the "
            f"{len(gold):,} item indices alone takes {1e6 * statistics.median(indices):,.1f} µs, so a bootstrap "
            f"that draws items cannot pass {bound:.1f}x here"
        )
    return verdicts


def memory(k: int, resamples: int) -> None:
    """Peak memory (tracemalloc) of the joint bootstrap of k synthetic TACRED-sized systems, label lists given."""
    gold, systems, negative = synthetic_systems(k)
    config = ClassificationConfig(negative=negative)
    tracemalloc.start()
    start = time.perf_counter()
    cells, views, _ = joint_views(gold, systems, _pairs(systems), config, negative)
    setup = time.perf_counter() - start
    draws = joint_resampled_f(cells, views, resamples, 12345)
    elapsed = time.perf_counter() - start - setup
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    output = sum(a.nbytes for d in draws for a in d.values())
    print(
        f"{k:,} TACRED-sized systems, {resamples:,} resamples: peak {peak / 2**20:,.0f} MiB allocated (the F of "
        f"every system under 5 averages, the output, is {output / 2**20:,.1f} MiB of it; {cells.n_cells:,} distinct "
        f"tuples); encoding {setup:.1f} s, {1e3 * elapsed / resamples:.1f} ms per resample"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--synthetic", type=int, nargs="*", default=[10, 49], help="numbers of synthetic systems")
    parser.add_argument("--tacred", type=Path, default=TACRED, help="folder of TACRED *_test.jsonl.gz files")
    parser.add_argument("--memory-systems", type=int, default=1000, help="systems of the memory case (0: none)")
    parser.add_argument("--memory-resamples", type=int, default=200)
    args = parser.parse_args(argv)
    cases: list[Case] = [("SemEval, 5 systems", *semeval_systems())]
    for k in args.synthetic:
        cases.append((f"TACRED-sized synthetic, {k} systems", *synthetic_systems(k)))
    if args.tacred.is_dir():
        gold, systems, negative = tacred_systems(args.tacred)
        cases.append((f"TACRED, {len(systems)} real systems", gold, systems, negative))
    verdicts = speed(cases, args.resamples, args.runs)
    met = [f"{title} {ratio:.1f}x" for title, ratio, _ in verdicts if ratio >= GOAL]
    short = [
        f"{title} {ratio:.1f}x (an item bootstrap: at most {bound:.1f}x)"
        for title, ratio, bound in verdicts
        if ratio < GOAL
    ]
    print(f"goal >= {GOAL:.0f}x per resample: met in {len(met)} of {len(verdicts)} cases ({'; '.join(met) or 'none'})")
    if short:
        print(f"not met: {'; '.join(short)}")
    if args.memory_systems:
        memory(args.memory_systems, args.memory_resamples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
