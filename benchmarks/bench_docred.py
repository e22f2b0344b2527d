"""Benchmark: `releval score --task docred` (every default weighting, Ign F1, Ign-distant, Evi, subsets) as a whole
process against the official CodaLab scorer (thunlp/DocRED `code/evaluation.py`) as a whole process; and the paired
bootstrap of two submissions over documents.

The reference scorer is NOT part of releval. Fetch it yourself (e.g. `git clone https://github.com/thunlp/DocRED`)
and give the path of `code/evaluation.py` with `--codalab PATH` or $DOCRED_CODALAB.

Run: python benchmarks/bench_docred.py --codalab /path/to/DocRED/code/evaluation.py [--documents 500]
     [--predictions 20000] [--repeat 5] [--resamples 10000]

Data: the Re-DocRED dev split of ../shared/data/docred (its first --documents documents) and original DocRED's
train facts, written twice, as the CodaLab layout has them (`train_annotated.fact` and `train_distant.fact`, the same
content): both scorers are given both files (releval parses one content once); a submission of --predictions
facts made from gold (drops, relabels, evidence changes, false facts; deterministic). Each side runs --repeat times,
alternately, as a child process from compiled bytecode; printed: the median wall and CPU time per side, of a floor
process (start-up, `import numpy`, the three inputs decoded: what any NumPy-based scorer pays) and the ratio
CodaLab / releval (> 1: releval is faster). Both sides' F1, Ign F1, Ign-distant F1 and Evi F1 must agree to
1e-12, else exit 1. Then: a paired bootstrap of --resamples resamples over the documents, every measure at once
(median of --repeat).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "docred"


def submission(gold: list[dict], n: int, seed: int) -> list[dict]:
    """About `n` predictions: gold facts kept (85 %) or relabelled, evidence perturbed, then false facts."""
    rng = random.Random(seed)
    types = sorted({lab["r"] for d in gold for lab in d["labels"]})
    out = []
    for d in gold:
        for lab in d["labels"]:
            if rng.random() < 0.15:
                continue
            r = lab["r"] if rng.random() < 0.9 else rng.choice(types)
            ev = sorted(set(lab["evidence"]) | ({rng.randrange(len(d["sents"]))} if rng.random() < 0.3 else set()))
            out.append({"title": d["title"], "h_idx": lab["h"], "t_idx": lab["t"], "r": r, "evidence": ev})
    while len(out) < n:
        d = gold[rng.randrange(len(gold))]
        h, t = rng.sample(range(len(d["vertexSet"])), 2)
        out.append({"title": d["title"], "h_idx": h, "t_idx": t, "r": rng.choice(types), "evidence": [0]})
    rng.shuffle(out)
    return out[:n]


#: The floor of any Python scorer that uses NumPy: start-up, `import numpy`, the three inputs decoded (msgspec, in C)
#: and the train facts made a set; nothing scored.
FLOOR = (
    "import sys, numpy, msgspec\n"
    "for p in sys.argv[1:3]: msgspec.json.decode(open(p, 'rb').read())\n"
    "frozenset(msgspec.json.decode(open(sys.argv[3], 'rb').read(), type=list[tuple[str, str, str]]))"
)


def timed(argv: list[str], cwd: str, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"{argv[:3]} failed: {done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--codalab", default=os.environ.get("DOCRED_CODALAB"), help="path of code/evaluation.py")
    parser.add_argument("--documents", type=int, default=500)
    parser.add_argument("--predictions", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=10000)
    args = parser.parse_args()
    if not args.codalab or not Path(args.codalab).is_file():
        sys.exit(
            "give the CodaLab scorer: --codalab PATH/code/evaluation.py (git clone thunlp/DocRED), or $DOCRED_CODALAB"
        )
    if not SHARED.is_dir():
        sys.exit(f"{SHARED} is absent: the benchmark reads Re-DocRED dev and DocRED's train facts from it")
    gold = json.loads(gzip.decompress((SHARED / "redocred_dev_revised.json.gz").read_bytes()))[: args.documents]
    facts = gzip.decompress((SHARED / "docred_train_annotated.fact.gz").read_bytes())
    tmp = Path(tempfile.mkdtemp(prefix="bench_docred_"))
    (tmp / "in" / "ref").mkdir(parents=True)
    (tmp / "in" / "res").mkdir()
    gold_path, pred_path = tmp / "in" / "ref" / "dev_test.json", tmp / "in" / "res" / "result.json"
    gold_path.write_text(json.dumps(gold))
    pred_path.write_text(json.dumps(submission(gold, args.predictions, 0)))
    for name in ("train_annotated.fact", "train_distant.fact"):
        (tmp / "in" / "ref" / name).write_bytes(facts)
    fact_path = str(tmp / "in" / "ref" / "train_annotated.fact")
    distant_path = str(tmp / "in" / "ref" / "train_distant.fact")  # a copy: both scorers read two files
    codalab = [sys.executable, args.codalab, str(tmp / "in"), str(tmp / "out")]
    out_json = tmp / "releval.json"
    releval = [sys.executable, "-m", "releval", "score", "--task", "docred", str(gold_path), str(pred_path),
               "--train-facts", fact_path, "--distant-facts", distant_path,
               "-f", "json", "-o", str(out_json)]  # fmt: skip
    # Both sides run as installed code runs: from compiled bytecode (PYTHONDONTWRITEBYTECODE, which some shells and
    # CI set, would make every releval run compile its modules again; the caches go to a temporary folder, not into
    # the source tree). One untimed warm-up run each fills the caches.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    times: dict[str, list[tuple[float, float]]] = {"codalab": [], "releval": [], "floor": []}
    floor = [sys.executable, "-c", FLOOR, str(gold_path), str(pred_path), fact_path]
    for argv in (codalab, releval, floor):
        timed(argv, str(tmp), env)
    ref_out = ""
    for _ in range(args.repeat):
        wall, cpu, ref_out = timed(codalab, str(tmp), env)
        times["codalab"].append((wall, cpu))
        wall, cpu, _ = timed(releval, str(tmp), env)
        times["releval"].append((wall, cpu))
        times["floor"].append(timed(floor, str(tmp), env)[:2])
    ref = {line.split(":")[0]: float(line.split(":")[1]) for line in ref_out.splitlines() if ":" in line}
    ours = json.loads(out_json.read_text())["results"][0]["official"]
    pairs = {"RE_F1": "f1", "RE_ignore_annotated_F1": "ign_f1", "RE_ignore_distant_F1": "ign_distant_f1",
             "Evi_F1": "evi_f1"}  # fmt: skip
    bad = [k for k, v in pairs.items() if abs(ref[k] - ours[v]) > 1e-12]
    print(f"{len(gold)} documents, {args.predictions} predictions; medians of {args.repeat} runs (wall / CPU s)")
    med = {side: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for side, t in times.items()}
    for side, (w, c) in med.items():
        print(f"  {side:8s} {w:7.3f} {c:7.3f}")
    print(f"  (floor: Python start-up, `import numpy` and decoding the three JSON inputs; 10x CodaLab would be "
          f"{med['codalab'][0] / 10:.3f} s wall)")  # fmt: skip
    print(f"  ratio CodaLab / releval: wall {med['codalab'][0] / med['releval'][0]:.2f}x, "
          f"CPU {med['codalab'][1] / med['releval'][1]:.2f}x (> 1: releval faster)")  # fmt: skip
    print(f"  agreement: {'all four official F1 equal to 1e-12' if not bad else 'DIFFER: ' + ', '.join(bad)}")

    from releval.significance.config import SignificanceConfig
    from releval.significance.docred import paired_rows
    from releval.tasks import docred

    config = docred.DocredConfig(train_facts=(fact_path,), distant_facts=(fact_path,))
    g = docred.load_gold(gold_path)
    facts_ = docred.Facts.of(config)
    other = tmp / "other.json"
    other.write_text(json.dumps(submission(gold, args.predictions, 1)))
    a = docred.count(g, docred.load_submission(pred_path, g), facts_, config)
    b = docred.count(g, docred.load_submission(other, g), facts_, config)
    labels = sorted(set(a.labels) | set(b.labels))
    units = list(dict.fromkeys([*a.units, *b.units]))
    wa, wb = a.widen(labels, units), b.widen(labels, units)
    test = SignificanceConfig(("bootstrap",), resamples=args.resamples)
    spent = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        rows = paired_rows(wa, wb, labels, config, True, None, "bootstrap", test)
        spent.append(time.perf_counter() - start)
    print(f"paired bootstrap, {args.resamples} resamples over {len(units)} documents, {len(rows)} measures at once: "
          f"median {statistics.median(spent):.3f} s")  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
