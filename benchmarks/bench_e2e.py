"""Benchmark: releval's vectorised end-to-end RE counting vs a straightforward per-sentence Python set scorer.

Run: python benchmarks/bench_e2e.py [--sentences 100000] [--relations-per-sentence 10] [--repeat 3]
Both sides start from the same lists of Documents and produce per-type TP/FP/FN for Strict and Boundaries (and
NER strict), then micro + weighted + dodrans + entropy + macro; the counts are checked to be identical.
Prints the median times over --repeat runs and their ratio, the time of a whole `score_e2e` call (alignment and token
checks included), and the time of --resamples document resamples from the per-document count matrices vs
re-scoring each resample with the set implementation (timed on two resamples, multiplied).
Data: CoNLL04-like types; predictions drop, retype and shift some gold facts, add spurious relations and
duplicates.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from releval.api import score_e2e
from releval.data.e2e import Document
from releval.metrics.averages import AveragingSpec, all_averages
from releval.metrics.counts import ClassCounts
from releval.metrics.e2e import BOUNDARIES, NER, STRICT, document_counts, reference_counts

ENT = ["Loc", "Org", "Other", "Peop"]
REL = ["Kill", "Live_In", "Located_In", "OrgBased_In", "Work_For"]


def make_data(n: int, rels: int, seed: int = 0) -> tuple[list[Document], list[Document]]:
    """n sentences of 40 tokens with 8 entities and `rels` relations each (gold), and perturbed predictions."""
    rng = np.random.default_rng(seed)
    gold, pred = [], []
    n_ent = 8
    starts = np.arange(0, 40, 5)
    for i in range(n):
        tokens = tuple(f"w{i}_{j}" for j in range(40)) if i < 0 else ("w",) * 40
        lengths = rng.integers(1, 4, n_ent)
        etypes = rng.integers(0, 4, n_ent)
        ents = tuple((int(s), int(s + ln), ENT[t]) for s, ln, t in zip(starts, lengths, etypes))
        heads, tails = rng.integers(0, n_ent, rels), rng.integers(0, n_ent, rels)
        rtypes = rng.integers(0, 5, rels)
        g_rels = tuple((int(h), int(t), REL[r]) for h, t, r in zip(heads, tails, rtypes))
        # predictions: retype entity 0, shift the end of entity 1, drop 20 % of relations, add 2 spurious, 1 dup
        p_ents = list(ents)
        p_ents[0] = (ents[0][0], ents[0][1], ENT[(ENT.index(ents[0][2]) + 1) % 4])
        p_ents[1] = (ents[1][0], ents[1][1] + 1, ents[1][2])
        keep = rng.random(rels) >= 0.2
        p_rels = [r for r, k in zip(g_rels, keep) if k]
        p_rels += [
            (int(rng.integers(0, n_ent)), int(rng.integers(0, n_ent)), REL[int(rng.integers(0, 5))]) for _ in range(2)
        ]
        if p_rels:
            p_rels.append(p_rels[0])
        gold.append(Document(str(i), tokens, ents, g_rels))
        pred.append(Document(str(i), tokens, tuple(p_ents), tuple(p_rels)))
    return gold, pred


def averages(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> dict:
    spec = AveragingSpec(np.ones(tp.shape[-1], dtype=bool))
    return all_averages(ClassCounts(tp, fp, fn), spec)[1]


def releval_run(gold: list[Document], pred: list[Document]) -> dict:
    counts = document_counts(gold, pred, (NER, STRICT, BOUNDARIES))
    return {
        c: (dc.labels, dc.total(), averages(*(getattr(dc.total(), x) for x in ("tp", "fp", "fn"))))
        for c, dc in counts.items()
    }


def naive_run(gold: list[Document], pred: list[Document]) -> dict:
    out = {}
    for c in (NER, STRICT, BOUNDARIES):
        ref = reference_counts(gold, pred, c)
        labels = sorted(ref)
        arr = np.array([ref[label] for label in labels], dtype=np.int64)
        out[c] = (labels, arr, averages(arr[:, 0], arr[:, 1], arr[:, 2]))
    return out


def median_of(fn, repeat: int) -> tuple[float, object]:
    """The median seconds of `repeat` runs of fn, and its result."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--relations-per-sentence", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    t0 = time.perf_counter()
    gold, pred = make_data(args.sentences, args.relations_per_sentence)
    n_rel = sum(len(d.relations) for d in gold)
    n_pred = sum(len(d.relations) for d in pred)
    print(
        f"data: {len(gold):,} sentences, {n_rel:,} gold / {n_pred:,} predicted relations "
        f"(generated in {time.perf_counter() - t0:.1f} s)"
    )
    t_fast, fast = median_of(lambda: releval_run(gold, pred), args.repeat)
    t_naive, naive = median_of(lambda: naive_run(gold, pred), args.repeat)
    for c in (NER, STRICT, BOUNDARIES):
        labels, total, avg = fast[c]  # type: ignore[index]
        n_labels, arr, n_avg = naive[c]  # type: ignore[index]
        order = [labels.index(x) for x in n_labels]
        same = (
            np.array_equal(total.tp[order], arr[:, 0])
            and np.array_equal(total.fp[order], arr[:, 1])
            and np.array_equal(total.fn[order], arr[:, 2])
        )
        assert same, f"{c}: counts differ from the per-sentence set implementation"
        assert all(abs(float(avg[k].f) - float(n_avg[k].f)) < 1e-12 for k in avg), c
        print(
            f"  {c:<10} micro F1 {100 * float(avg['micro'].f):6.2f}  macro F1 {100 * float(avg['macro'].f):6.2f}"
            "  (identical counts in both implementations)"
        )
    print(f"releval vectorised (NER + Strict + Boundaries, all weightings): {t_fast:7.2f} s")
    print(f"per-sentence Python sets (same output):                         {t_naive:7.2f} s")
    print(f"ratio (sets / releval): {t_naive / t_fast:.1f}x")
    t_api, _ = median_of(lambda: score_e2e(gold, pred), 1)
    print(f"whole score_e2e call (alignment by id + token check + result objects): {t_api:.2f} s")

    # Resampling documents (bootstrap / randomisation tests): releval sums its per-document count matrices,
    # the set implementation has to score every resample again.
    b = args.resamples
    rng = np.random.default_rng(1)
    n = len(gold)
    counts = document_counts(gold, pred, (STRICT, BOUNDARIES))

    def releval_boot() -> None:
        for start in range(0, b, 50):  # 50 resamples at a time keeps the (chunk, n) draw-count matrix small
            c = min(50, b - start)
            idx = rng.integers(0, n, size=(c, n))
            weights = np.bincount((np.arange(c)[:, None] * n + idx).ravel(), minlength=c * n).reshape(c, n)
            for dc in counts.values():
                tp, fp, fn = (weights @ getattr(dc, x) for x in ("tp", "fp", "fn"))
                averages(tp, fp, fn)

    t_boot, _ = median_of(releval_boot, 1)
    k = 2
    idx = rng.integers(0, n, size=(k, n))
    t0 = time.perf_counter()
    for row in idx:
        naive_run([gold[i] for i in row], [pred[i] for i in row])
    t_naive_one = (time.perf_counter() - t0) / k
    print(
        f"{b} document resamples, Strict + Boundaries, all weightings: releval {t_boot:.2f} s; set implementation "
        f"{t_naive_one:.2f} s per resample (measured on {k}) -> {b * t_naive_one:.0f} s; "
        f"ratio {b * t_naive_one / t_boot:.0f}x"
    )


if __name__ == "__main__":
    main()
