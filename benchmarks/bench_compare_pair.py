"""Benchmark: a whole `releval compare` process on one TACRED pair against a 50-line per-item NumPy bootstrap script.

Run: python benchmarks/bench_compare_pair.py [--repeat 7] [--a cnn] [--b lstm] [--resamples 10000] [--data DIR]
Both sides read the same three TACRev JSONL files (gold: `label_true` of A's file; A and B: `label_pred`) from
`../shared/data/tacred_labels/test_results` (not bundled: the benchmark says so and stops when it is absent) and
test A against B with a paired bootstrap of 10^4 resamples under micro F1 over the positive relations and the four
weightings releval reports by default (weighted, dodrans, entropy, macro):

* releval: `python -m releval compare GOLD -s A=PRED_A -s B=PRED_B --resamples 10000 --seed 12345 --correction holm
  -f json` (scores, Δ, its percentile interval, p, Holm across the pairs: one pair here, so p (Holm) = p);
* the peer: `python PEER GOLD PRED_A PRED_B 10000 12345`, what a researcher writes today (`PEER` below): it loads the
  files, codes the labels, and for each resample draws n item indices (`rng.integers(0, n, n)`), takes both systems'
  confusion counts (`np.bincount` of gold·K + prediction, precomputed per item) and their per-class TP/FP/FN; the
  five averages of both systems are computed from those counts for all resamples at once, then the p-value of each
  difference (releval's rule: shifted, ties extreme, (c + 1)/(R + 1)), its 95% interval and Holm over the averages.

Measured: wall time of each whole process (spawn to exit, `subprocess.run`) and its CPU time (user + system, the
difference of `getrusage(RUSAGE_CHILDREN)` around the run); medians of --repeat runs, the sides interleaved (their
order alternating) so that a busy machine hits both alike. The children cache their bytecode in a temporary
PYTHONPYCACHEPREFIX, whatever PYTHONDONTWRITEBYTECODE says, as an installed package has its modules compiled.
`python -m releval compare --help` is timed with them: the command line's start-up (interpreter, CLI framework,
command modules), the floor under any releval run.
Printed: every median, the ratios peer / releval (> 1: releval is faster) and whether issue 13's target
(releval >= 10x faster, whole process) holds. Before timing, both sides' point estimates of every average must
equal to 1e-12 and their p-values agree within resampling noise, otherwise the script exits 1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "tacred_labels" / "test_results"
AVERAGES = ("micro", "weighted", "dodrans", "entropy", "macro")
TARGET = 10.0

PEER = textwrap.dedent(
    """
    import gzip, json, sys
    import numpy as np

    def read(path):  # TACRev JSON lines: {"id", "label_true", "label_pred"}
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]

    gold_rows, *system_rows = (read(path) for path in sys.argv[1:4])
    resamples, seed = int(sys.argv[4]), int(sys.argv[5])
    ids = [r["id"] for r in gold_rows]
    assert all([r["id"] for r in rows] == ids for rows in system_rows), "the files list the items in another order"
    gold = [r["label_true"] for r in gold_rows]
    preds = [[r["label_pred"] for r in rows] for rows in system_rows]
    labels = sorted(set(gold).union(*preds))
    code, k, n = {x: i for i, x in enumerate(labels)}, len(labels), len(gold)
    g = np.array([code[x] for x in gold])
    keys = [g * k + np.array([code[x] for x in p]) for p in preds]  # each item's cell of the confusion matrix
    positive = np.array([x != "no_relation" for x in labels])

    def tp_fp_fn(key):
        c = np.bincount(key, minlength=k * k).reshape(k, k)  # gold x predicted
        tp = c.diagonal()
        return tp, c.sum(0) - tp, c.sum(1) - tp

    def f1(tp, fp, fn):
        den = 2 * tp + fp + fn
        return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0)

    def averages(tp, fp, fn):  # (..., K) counts -> (5, ...): micro, weighted, dodrans, entropy, macro
        support, out = tp + fn, [f1(tp @ positive, fp @ positive, fn @ positive)]
        mask = positive & (support > 0)
        s, per_class = np.where(mask, support, 1.0), f1(tp, fp, fn)
        for w in (s, s**0.75, -s * np.log2(s / support.sum(-1, keepdims=True)), np.ones_like(s)):
            w = np.where(mask, w, 0.0)
            out.append((w * per_class).sum(-1) / w.sum(-1))
        return np.stack(out)

    observed = [averages(*tp_fp_fn(key)) for key in keys]
    rng, counts = np.random.default_rng(seed), np.empty((2, 3, resamples, k))
    for r in range(resamples):
        idx = rng.integers(0, n, n)
        for s, key in enumerate(keys):
            counts[s, :, r] = tp_fp_fn(key[idx])
    delta = (observed[0] - observed[1])[:, None]
    delta_star = averages(*counts[0]) - averages(*counts[1])
    extreme = np.abs(delta_star - delta) >= np.abs(delta) - 1e-12
    p = (np.count_nonzero(extreme, axis=1) + 1) / (resamples + 1)
    order = np.argsort(p, kind="stable")  # Holm over the five averages
    holm = np.empty_like(p)
    holm[order] = np.minimum(np.maximum.accumulate(p[order] * (p.size - np.arange(p.size))), 1.0)
    ci = np.quantile(delta_star, [0.025, 0.975], axis=1).T
    names = ("micro", "weighted", "dodrans", "entropy", "macro")
    print(json.dumps({m: {"score_a": observed[0][i], "score_b": observed[1][i], "p": p[i], "p_holm": holm[i],
                          "ci_effect": ci[i].tolist()} for i, m in enumerate(names)}))
    """
)


def child_environment(pycache: Path) -> dict[str, str]:
    """This process's environment with bytecode cached under `pycache`, even if PYTHONDONTWRITEBYTECODE is set: an
    installed package runs from its compiled modules, and compiling releval's on every run costs ~0.1 s."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """(wall s, CPU s, stdout) of one whole process; CPU is user + system of that child alone."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"{' '.join(argv[:4])} … exited with {done.returncode}:\n{done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def load() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def agree(releval_out: bytes, peer_out: bytes, resamples: int) -> bool:
    """Print both sides' numbers per average; True when the point estimates are equal to 1e-12 and every p-value
    pair is within resampling noise (4 standard errors of a difference of two independent estimates, + 2/R)."""
    rows = {r["metric"]: r for r in json.loads(releval_out)["results"][0]["pairs"] if r["test"] == "bootstrap"}
    peer = json.loads(peer_out)
    ok = True
    print(
        f"{'average':<9} {'F(A) releval':>13} {'F(A) peer':>10} {'F(B) releval':>13} {'F(B) peer':>10}  "
        f"{'p releval':>9} {'p peer':>7} {'p Holm*':>7}  {'95% CI of Δ, releval':>21}  {'peer':>17}"
    )
    for m in AVERAGES:
        r, q = rows[m], peer[m]
        same = abs(r["score_a"] - q["score_a"]) <= 1e-12 and abs(r["score_b"] - q["score_b"]) <= 1e-12
        p_mean = (r["p_value"] + q["p"]) / 2
        noise = 4 * math.sqrt(2 * p_mean * (1 - p_mean) / resamples) + 2 / resamples
        close = abs(r["p_value"] - q["p"]) <= noise
        ok &= same and close
        print(
            f"{m:<9} {r['score_a']:>13.10f} {q['score_a']:>10.8f} {r['score_b']:>13.10f} {q['score_b']:>10.8f}  "
            f"{r['p_value']:>9.4f} {q['p']:>7.4f} {q['p_holm']:>7.4f}  "
            f"[{r['ci_effect'][0]:+.4f}, {r['ci_effect'][1]:+.4f}]  "
            f"[{q['ci_effect'][0]:+.4f}, {q['ci_effect'][1]:+.4f}]"
            + ("" if same else "  POINT ESTIMATES DIFFER")
            + ("" if close else f"  p-values differ by more than {noise:.4f}")
        )
    print("* the peer's Holm is over the five averages; releval's is across pairs (one pair: p (Holm) = p)")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs of each side, interleaved (medians)")
    parser.add_argument("--a", default="cnn", help="system A: DATA/<A>_test.jsonl.gz (its label_true is the gold)")
    parser.add_argument("--b", default="lstm", help="system B: DATA/<B>_test.jsonl.gz")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--data", type=Path, default=DATA, help="folder of the TACRev *_test.jsonl.gz files")
    args = parser.parse_args()
    files = [args.data / f"{name}_test.jsonl.gz" for name in (args.a, args.b)]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print(
            f"skipped: {', '.join(missing)} not found. The TACRED label files are not bundled with releval; they are "
            "read from ../shared/data/tacred_labels/test_results (or pass --data DIR)"
        )
        return
    gold, pred_a, pred_b = files[0], files[0], files[1]
    with tempfile.TemporaryDirectory() as tmp:
        peer = Path(tmp) / "peer_bootstrap.py"
        peer.write_text(PEER, encoding="utf-8")
        py = [sys.executable]
        commands = {
            "releval": [*py, "-m", "releval", "compare", str(gold), "-s", f"{args.a}={pred_a}", "-s"]
            + [f"{args.b}={pred_b}", "--resamples", str(args.resamples), "--seed", str(args.seed)]
            + ["--correction", "holm", "-f", "json"],
            "peer": [*py, str(peer), str(gold), str(pred_a), str(pred_b), str(args.resamples), str(args.seed)],
            "start-up": [*py, "-m", "releval", "compare", "--help"],
        }
        print(f"python {sys.version.split()[0]}; before: {load()}")
        print(f"{args.a} vs {args.b}: {args.resamples:,} resamples, five averages; commands:")
        for name in ("releval", "peer"):
            print(f"  {name}: {' '.join(commands[name])}")
        env = child_environment(Path(tmp) / "pycache")
        out = {name: timed(argv, env)[2] for name, argv in commands.items()}  # warm-up: file cache, bytecode; checked
        if not agree(out["releval"], out["peer"], args.resamples):
            sys.exit("the two sides disagree: the comparison is void")
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for k in range(args.repeat):
            order = list(commands) if k % 2 == 0 else list(reversed(commands))
            for name in order:
                runs[name].append(timed(commands[name], env)[:2])
            line = "  ".join(f"{n} {runs[n][-1][0]:5.2f} s / CPU {runs[n][-1][1]:5.2f} s" for n in commands)
            print(f"  run {k + 1}: {line}")
    med = {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r)) for name, r in runs.items()}
    print(f"after: {load()}; medians of {args.repeat} interleaved runs:")
    for name, (wall, cpu) in med.items():
        print(f"  {name:<9} wall {wall:6.3f} s  CPU {cpu:6.3f} s")
    (rw, rc), (pw, pc), (sw, sc) = med["releval"], med["peer"], med["start-up"]
    print(f"start-up share of releval's run: {sw / rw:.0%} of wall, {sc / rc:.0%} of CPU")
    print(f"ratios peer / releval: wall {pw / rw:.1f}x, CPU {pc / rc:.1f}x")
    print(f"target >= {TARGET:.0f}x (whole process, wall): {'holds' if pw / rw >= TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
