"""Benchmark: `--task ranked` scoring of 10^6 scored predictions vs the reference loop (OpenNRE's
`BagREDataset.eval`, restated: sorted by score, then one Python iteration per prediction with its per-entity-pair
bookkeeping, then sklearn.metrics.auc).

Run: python benchmarks/bench_ranked.py [--bags 20000] [--relations 50] [--repeat 3]

Data: NYT10-like — `--bags` entity pairs (60 % NA bags), one prediction per (bag, relation) as OpenNRE's
`BagRE.eval_model` writes them (bags × relations = 10^6 by default), scores rounded to 3 decimals (ties). Timed,
median over --repeat runs, in the same process:

* releval, whole: `releval.tasks.ranked.score` from the files (read, parse, encode, rank, AUC, P@N, max F1,
  per-relation AUC and the weightings), once from TSV and once from JSON lines;
* releval, ranking only: the curve and its measures from arrays already in memory;
* the reference loop on the predictions already in memory as a list of dicts (its input), reading not counted.

The AUC and P@N of both sides are checked to be equal. Goal (issue 26): the whole file scored in < 2 s and >= 20x
faster than the reference loop.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import sklearn.metrics

from releval.metrics.ranked import ranked_curve
from releval.tasks.ranked import RankedConfig, score


def make_files(directory: Path, bags: int, relations: int, seed: int = 0) -> tuple[Path, Path, Path, list[dict]]:
    rng = np.random.default_rng(seed)
    names = [f"/rel/r{i}" for i in range(relations)]
    gold_lines, facts = [], set()
    for b in range(bags):
        h, t = f"m.h{b}", f"m.t{b}"
        rel = "NA" if rng.random() < 0.6 else names[int(rng.integers(0, relations))]
        if rel != "NA":
            facts.add((h, t, rel))
        gold_lines.append(
            json.dumps({"text": "x", "h": {"id": h, "name": "h"}, "t": {"id": t, "name": "t"}, "relation": rel})
        )
    gold = directory / "gold.jsonl"
    gold.write_text("\n".join(gold_lines) + "\n")
    scores = np.round(rng.random((bags, relations)) ** 3, 3)
    preds = []
    tsv, jsonl = [], []
    for b in range(bags):
        h, t = f"m.h{b}", f"m.t{b}"
        for r, name in enumerate(names):
            s = float(scores[b, r] + (0.5 if (h, t, name) in facts and rng.random() < 0.7 else 0.0))
            preds.append({"entpair": (h, t), "relation": name, "score": s})
            tsv.append(f"{h}\t{t}\t{name}\t{s!r}")
            jsonl.append(json.dumps({"h": h, "t": t, "relation": name, "score": s}))
    (directory / "pred.tsv").write_text("\n".join(tsv) + "\n")
    (directory / "pred.jsonl").write_text("\n".join(jsonl) + "\n")
    return gold, directory / "pred.tsv", directory / "pred.jsonl", preds


def reference_eval(facts: set, rel2id: dict[str, int], pred_result: list[dict[str, Any]]) -> dict[str, float]:
    """OpenNRE BagREDataset.eval's loop, restated (its per-entity-pair arrays included; its sklearn micro/macro F1
    over those arrays left out, which only makes the reference faster)."""
    sorted_pred = sorted(pred_result, key=lambda x: x["score"], reverse=True)
    prec, rec, correct, total = [], [], 0, len(facts)
    entpair: dict[str, dict[str, np.ndarray]] = {}
    for i, item in enumerate(sorted_pred):
        key = item["entpair"][0] + "#" + item["entpair"][1]
        if key not in entpair:
            entpair[key] = {
                "label": np.zeros(len(rel2id), dtype=int),
                "pred": np.zeros(len(rel2id), dtype=int),
                "score": np.zeros(len(rel2id), dtype=float),
            }
        if (item["entpair"][0], item["entpair"][1], item["relation"]) in facts:
            correct += 1
            entpair[key]["label"][rel2id[item["relation"]]] = 1
        if item["score"] >= 0.5:
            entpair[key]["pred"][rel2id[item["relation"]]] = 1
        entpair[key]["score"][rel2id[item["relation"]]] = item["score"]
        prec.append(float(correct) / float(i + 1))
        rec.append(float(correct) / float(total))
    auc = sklearn.metrics.auc(x=rec, y=prec)
    p, r = np.array(prec), np.array(rec)
    return {"auc": auc, "p@100": p[99], "p@200": p[199], "p@300": p[299], "max_f1": (2 * p * r / (p + r + 1e-20)).max()}


CPU: dict[str, float] = {}


def median_time(fn: Any, repeat: int, name: str = "") -> tuple[float, Any]:
    """Median wall time over `repeat` runs (and, in CPU[name], the median CPU time of this process: on a loaded
    machine the wall time counts the other processes' turns too)."""
    times, cpu, out = [], [], None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    CPU[name] = statistics.median(cpu)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bags", type=int, default=20_000)
    parser.add_argument("--relations", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gold, tsv, jsonl, preds = make_files(Path(tmp), args.bags, args.relations)
        facts = set()
        for line in gold.read_text().splitlines():
            g = json.loads(line)
            if g["relation"] != "NA":
                facts.add((g["h"]["id"], g["t"]["id"], g["relation"]))
        rel2id = {"NA": 0, **{f"/rel/r{i}": i + 1 for i in range(args.relations)}}
        config = RankedConfig()
        t_tsv, r_tsv = median_time(lambda: score(gold, tsv, config), args.repeat, "tsv")
        t_jsonl, r_jsonl = median_time(lambda: score(gold, jsonl, config), args.repeat, "jsonl")
        scores = np.array([p["score"] for p in preds])
        hits = np.array([(p["entpair"][0], p["entpair"][1], p["relation"]) in facts for p in preds])

        def kernel() -> tuple[float, float]:
            curve = ranked_curve(scores, hits, len(facts))
            return curve.auc(), curve.precision_at(100)

        t_kernel, _ = median_time(kernel, args.repeat, "kernel")
        t_ref, ref = median_time(lambda: reference_eval(facts, rel2id, preds), args.repeat, "ref")
    for key in ("auc", "p@100", "p@200", "p@300", "max_f1"):
        assert r_tsv.measures[key] == r_jsonl.measures[key] == ref[key], (key, r_tsv.measures[key], ref[key])
    n = len(preds)
    print(f"{n:,} predictions, {len(facts):,} facts, {args.bags:,} bags; medians of {args.repeat} runs")
    rows = (
        ("reference loop (in memory, reading not counted)", t_ref, "ref"),
        ("releval score from TSV (whole)", t_tsv, "tsv"),
        ("releval score from JSON lines (whole)", t_jsonl, "jsonl"),
        ("releval ranking only (arrays in memory)", t_kernel, "kernel"),
    )
    for label, wall, key in rows:
        ratio = "" if key == "ref" else f"   ratio {t_ref / wall:5.1f}x wall, {CPU['ref'] / CPU[key]:5.1f}x CPU"
        print(f"{label:<50} {wall:7.3f} s wall, {CPU[key]:7.3f} s CPU{ratio}")
    print(f"equal: auc={ref['auc']!r} p@100={ref['p@100']!r} p@300={ref['p@300']!r}")


if __name__ == "__main__":
    main()
