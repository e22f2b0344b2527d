"""Benchmark: a whole `releval score --task e2e` process vs a 40-line stdlib set-based scorer, on SpERT files.

Run: python benchmarks/bench_e2e_process.py [--sentences 100000] [--relations-per-sentence 10] [--repeat 5]
Writes a synthetic SpERT gold file and a prediction file (40 tokens, 8 entity mentions and
--relations-per-sentence relations per sentence, the perturbations of bench_e2e.py's generator; tokens drawn from a
2,000-word vocabulary), then runs, alternately and --repeat times each:

* releval: `python -m releval score --task e2e GOLD PRED -f json -o OUT` (NER, Strict and Boundaries, every
  default weighting, alignment by id with the token check);
* the peer: `python -c PEER GOLD PRED` — `json.load` both files, per sentence sets of (head span, head type, tail
  span, tail type, relation) for Strict and (head span, tail span, relation) for Boundaries, TP/FP/FN per relation
  type, micro and macro F printed as JSON.

Each run is a child of a fresh probe process, which reports the child's wall time, CPU time (user + system, from
getrusage(RUSAGE_CHILDREN)) and peak RSS (ru_maxrss), so only that run counts. Printed: the medians per side and the
ratios peer / releval (time: > 1 means releval is faster; memory: releval / peer). Both sides' Strict and Boundaries
micro F must agree (releval's read from its JSON output), otherwise the comparison is void and the script exits 1.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

from bench_e2e import make_data

PEER = textwrap.dedent(
    """
    import json, sys
    from collections import Counter
    gold, pred = (json.load(open(path, encoding="utf-8")) for path in sys.argv[1:3])
    criteria = ("strict", "boundaries")
    counts = {c: (Counter(), Counter(), Counter()) for c in criteria}
    def facts(sentence):
        ents = [(e["start"], e["end"], e["type"]) for e in sentence["entities"]]
        strict, boundaries = set(), set()
        for r in sentence.get("relations") or ():
            head, tail = ents[r["head"]], ents[r["tail"]]
            strict.add((head, tail, r["type"]))
            boundaries.add((head[:2], tail[:2], r["type"]))
        return strict, boundaries
    for g, p in zip(gold, pred):
        for c, g_facts, p_facts in zip(criteria, facts(g), facts(p)):
            tp, fp, fn = counts[c]
            tp.update(f[2] for f in g_facts & p_facts)
            fp.update(f[2] for f in p_facts - g_facts)
            fn.update(f[2] for f in g_facts - p_facts)
    def f1(tp, fp, fn):
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0
    out = {}
    for c, (tp, fp, fn) in counts.items():
        types = [t for t in set(tp) | set(fn) if tp[t] + fn[t]]
        micro = f1(sum(tp.values()), sum(fp.values()), sum(fn.values()))
        out[c] = {"micro": micro, "macro": sum(f1(tp[t], fp[t], fn[t]) for t in types) / len(types)}
    print(json.dumps(out))
    """
)

# Runs the command given as arguments; prints [exit code, wall s, CPU s, peak RSS bytes] of that child alone.
PROBE = textwrap.dedent(
    """
    import json, resource, subprocess, sys, time
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    open(sys.argv[1], "wb").write(done.stdout)
    if done.returncode:
        sys.stderr.write(done.stderr.decode(errors="replace")[-2000:])
    print(json.dumps([done.returncode, wall, cpu, after.ru_maxrss * 1024]))
    """
)

VOCABULARY = [f"tok{k}" for k in range(2000)]


def write_files(folder: Path, n: int, rels: int) -> tuple[Path, Path]:
    """SpERT gold and prediction files of `n` sentences (bench_e2e.make_data's facts, varied tokens)."""
    gold, pred = make_data(n, rels)
    rng = np.random.default_rng(7)
    words = rng.integers(0, len(VOCABULARY), size=(n, 40))
    paths = folder / "gold.json", folder / "pred.json"
    for path, docs in zip(paths, (gold, pred)):
        records = [
            {
                "tokens": [VOCABULARY[w] for w in words[i]],
                "entities": [{"type": t, "start": s, "end": e} for s, e, t in doc.entities],
                "relations": [{"type": t, "head": h, "tail": tl} for h, tl, t in doc.relations],
                "orig_id": doc.id,
            }
            for i, doc in enumerate(docs)
        ]
        path.write_text(json.dumps(records), encoding="utf-8")
    return paths


def run(command: list[str], stdout: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS bytes) of one run of `command`, measured by a fresh probe process."""
    probe = subprocess.run([sys.executable, "-c", PROBE, str(stdout), *command], capture_output=True, text=True)
    if probe.returncode:
        sys.exit(f"probe failed: {probe.stderr}")
    code, wall, cpu, rss = json.loads(probe.stdout.strip().splitlines()[-1])
    if code:
        sys.exit(f"{command[:4]} exited with {code}: {probe.stderr}")
    return wall, cpu, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--relations-per-sentence", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5, help="runs of each side, alternating (medians printed)")
    parser.add_argument("--keep", type=Path, help="write the files into this folder and keep them (for profiling)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        gold, pred = write_files(folder, args.sentences, args.relations_per_sentence)
        size = (gold.stat().st_size + pred.stat().st_size) / 2**20
        print(
            f"data: {args.sentences:,} sentences, {args.relations_per_sentence} gold relations each; "
            f"gold + pred {size:.0f} MiB (written in {time.perf_counter() - t0:.1f} s)"
        )
        out = folder / "out.json"
        commands = {
            "releval": [sys.executable, "-m", "releval", "score", "--task", "e2e", str(gold), str(pred)]
            + ["-f", "json", "-o", str(out)],
            "peer": [sys.executable, "-c", PEER, str(gold), str(pred)],
        }
        runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
        for k in range(args.repeat):
            for name, command in commands.items():
                runs[name].append(run(command, folder / f"{name}.stdout"))
                wall, cpu, rss = runs[name][-1]
                print(f"  run {k + 1} {name:<8} wall {wall:6.2f} s  CPU {cpu:6.2f} s  peak RSS {rss / 2**30:5.2f} GiB")
        peer_f = json.loads((folder / "peer.stdout").read_text())
        mine = json.loads(out.read_text())["results"][0]["criteria"]
        void = False
        for criterion in ("strict", "boundaries"):
            ours, theirs = mine[criterion]["averages"]["micro"]["f"], peer_f[criterion]["micro"]
            macro_ours, macro_theirs = mine[criterion]["averages"]["macro"]["f"], peer_f[criterion]["macro"]
            same = abs(ours - theirs) < 1e-12 and abs(macro_ours - macro_theirs) < 1e-12
            void |= not same
            print(
                f"  {criterion:<10} micro F releval {ours:.6f} peer {theirs:.6f}; macro F releval {macro_ours:.6f} "
                f"peer {macro_theirs:.6f}: {'same' if same else 'DIFFERENT'}"
            )
        med = {name: [statistics.median(col) for col in zip(*r)] for name, r in runs.items()}
        print(f"medians of {args.repeat} alternating runs:")
        for name, (wall, cpu, rss) in med.items():
            print(f"  {name:<8} wall {wall:6.2f} s  CPU {cpu:6.2f} s  peak RSS {rss / 2**30:5.2f} GiB")
        (rw, rc, rr), (pw, pc, pr) = med["releval"], med["peer"]
        print(
            f"ratios: wall peer/releval {pw / rw:.2f}x, CPU peer/releval {pc / rc:.2f}x, "
            f"peak RSS releval/peer {rr / pr:.2f}"
        )
        if void:
            sys.exit("the two scorers disagree: the comparison is void")


if __name__ == "__main__":
    main()
