"""Benchmark: `compare --task ranked` (the paired bootstrap over entity pairs) at NYT10 size — 10^6 scored
predictions per system, 20,000 bags — against the straightforward path that writes each resample out and ranks
the expanded list again (`expanded_measures`, what releval did before the ranking was arranged once).

Run: python benchmarks/bench_ranked_compare.py [--bags 20000] [--relations 50] [--resamples 1000] [--slow 5]

Data: bench_ranked.make_files's NYT10-like set (60 % NA bags, one prediction per (bag, relation), scores rounded to
3 decimals: ties); system B is A's scores mixed with noise. Timed in the same process:

* releval compare, whole: `releval.significance.ranked.compare_files` with --resamples bootstrap resamples (read,
  encode, score, every resample of both systems, the table);
* the draws alone, per resample, by the fast path (`weighted_measures`) and by the straightforward one
  (`expanded_measures`, --slow resamples: it is ~20x slower), from the same seed; the first --slow resamples of
  both are checked to be equal to 1e-12 on every measure.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ranked import make_files  # noqa: E402
from releval.significance import ranked as sr  # noqa: E402
from releval.significance.config import SignificanceConfig  # noqa: E402
from releval.tasks.ranked import RankedConfig  # noqa: E402


def second_system(tsv: Path, out: Path, seed: int = 1) -> Path:
    """System B: each of A's scores mixed with uniform noise (9:1), rounded to 3 decimals."""
    rng = np.random.default_rng(seed)
    lines = []
    for line in tsv.read_text().splitlines():
        h, t, r, s = line.split("\t")
        lines.append(f"{h}\t{t}\t{r}\t{round(float(s) * 0.9 + 0.1 * rng.random(), 3)!r}")
    out.write_text("\n".join(lines) + "\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bags", type=int, default=20_000)
    parser.add_argument("--relations", type=int, default=50)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--slow", type=int, default=5, help="resamples timed on the straightforward path")
    args = parser.parse_args()
    config = RankedConfig()
    with tempfile.TemporaryDirectory() as tmp:
        gold, tsv, _, preds = make_files(Path(tmp), args.bags, args.relations)
        b = second_system(tsv, Path(tmp) / "b.tsv")
        systems = {"a": [tsv], "b": [b]}
        test = SignificanceConfig(("bootstrap",), resamples=args.resamples)
        start = time.perf_counter()
        table = sr.compare_files(gold, systems, config, test)
        t_whole = time.perf_counter() - start
        prepared = sr.prepare(gold, {"a": tsv, "b": b}, config)
    draws = {}
    per_resample = {}
    for name, fn, n in (("fast", sr.weighted_measures, args.resamples), ("slow", sr.expanded_measures, args.slow)):
        small = SignificanceConfig(("bootstrap",), resamples=n)
        start = time.perf_counter()
        draws[name] = sr.bootstrap_draws(prepared, config, small, np.random.default_rng(7), measures=fn)
        per_resample[name] = (time.perf_counter() - start) / n
    for system in ("a", "b"):
        for m, slow in draws["slow"][system].items():
            fast = draws["fast"][system][m][: args.slow]
            assert np.allclose(fast, slow, rtol=0, atol=1e-12), (system, m, fast, slow)
    print(
        f"{len(preds):,} predictions per system, 2 systems, {args.bags:,} bags, "
        f"AUC a={table.scores['a']['auc']:.4f} b={table.scores['b']['auc']:.4f}"
    )
    print(f"releval compare --task ranked, {args.resamples:,} bootstrap resamples (whole)  {t_whole:8.2f} s wall")
    print(f"per resample (both systems), fast path                  {1000 * per_resample['fast']:8.1f} ms")
    print(
        f"per resample (both systems), expanded list re-ranked    {1000 * per_resample['slow']:8.1f} ms   "
        f"ratio {per_resample['slow'] / per_resample['fast']:5.1f}x  "
        f"(extrapolated: {args.resamples:,} resamples in {args.resamples * per_resample['slow']:.0f} s)"
    )
    print(f"equal: the first {args.slow} resamples of both paths, every measure, to 1e-12")


if __name__ == "__main__":
    main()
