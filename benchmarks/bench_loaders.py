"""Benchmark: the label loaders (JSONL, TACRev JSONL, `<id>\\t<label>` TSV, TSV with a header) at 10^6 lines.

Run: python benchmarks/bench_loaders.py [--lines 1000000] [--repeat 5] [--baseline REV]
Prints, per format, the median wall time of `load_labels` over `--repeat` runs for today's code and, with
`--baseline`, for `src/releval/data/labels.py` as of git revision REV (imported from `git show` into a temporary
module that uses today's `releval.data.io`), and the ratio new / old (below 1 means the new reader is faster).
The two are called in turn within each repetition, so load from other processes slows both alike.

Why: the JSONL reader used to parse the whole file as one synthesised array, which let one record span two lines
or two records share one; a record is now one line. That must not cost speed (issue 11), so both are timed on the
same machine in the same process. Data: TACRED-like labels (42 classes), string ids `id<n>`.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np

from releval.data import labels as new_labels

LABELS = ["no_relation"] + [f"per:rel_{i:02d}" for i in range(41)]


def make_files(folder: Path, n: int, seed: int = 0) -> dict[str, Path]:
    """One file per benchmarked format, n records each."""
    rng = np.random.default_rng(seed)
    gold = np.array(LABELS, dtype=object)[rng.integers(0, len(LABELS), n)]
    pred = np.array(LABELS, dtype=object)[rng.integers(0, len(LABELS), n)]
    files = {
        "jsonl": "".join(f'{{"id": "id{i}", "label": "{g}"}}\n' for i, g in enumerate(gold)),
        "tacrev-jsonl": "".join(
            f'{{"id": "id{i}", "label_true": "{g}", "label_pred": "{p}"}}\n' for i, (g, p) in enumerate(zip(gold, pred))
        ),
        "id-tsv": "".join(f"id{i}\t{g}\n" for i, g in enumerate(gold)),
        "tsv": "id\tlabel\n" + "".join(f"id{i}\t{g}\n" for i, g in enumerate(gold)),
    }
    paths = {}
    for fmt, text in files.items():
        paths[fmt] = folder / f"bench.{fmt}"
        paths[fmt].write_text(text, encoding="utf-8")
    return paths


def old_module(revision: str) -> ModuleType:
    """`releval/data/labels.py` as of `revision`, imported under another name."""
    source = subprocess.run(
        ["git", "show", f"{revision}:src/releval/data/labels.py"],
        check=True,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent,
    ).stdout
    path = Path(tempfile.mkdtemp(prefix="releval-bench-")) / "releval_old_labels.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("releval_old_labels", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def median_times(repeat: int, *fns: Callable[[], object]) -> list[tuple[float, float]]:
    """(median wall time, median CPU time) of `repeat` calls of each function, the calls interleaved (new, old,
    new, old, …) so that a busy machine slows both alike; one untimed warm-up call of each first (file cache,
    imports). CPU time (all threads of the process) is the steadier measure when other processes share the cores;
    wall time shows what a user waits for (the new loader hashes the file in a second thread)."""
    for fn in fns:
        fn()
    times: list[list[tuple[float, float]]] = [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            times[k].append((time.perf_counter() - wall, time.process_time() - cpu))
    return [(statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline", default=None, help="git revision of the old labels.py to time against")
    args = parser.parse_args()
    old = old_module(args.baseline) if args.baseline else None
    with tempfile.TemporaryDirectory() as tmp:
        paths = make_files(Path(tmp), args.lines)
        print(f"{args.lines:,} lines, median of {args.repeat} runs; seconds, wall (CPU)")
        print(f"{'format':<13} {'new':>15} {'old':>15} {'new/old':>13}")
        for fmt, path in paths.items():
            role = "pred" if fmt == "tacrev-jsonl" else "gold"
            loaders = [new_labels] if old is None else [new_labels, old]
            calls = [lambda m=m, p=path, f=fmt, r=role: m.load_labels(p, format=f, role=r) for m in loaders]
            times = median_times(args.repeat, *calls)
            cells = [f"{w:6.3f} ({c:6.3f})" for w, c in times]
            if old is not None:
                cells.append(f"{times[0][0] / times[1][0]:5.2f} ({times[0][1] / times[1][1]:4.2f})")
            print(f"{fmt:<13} " + " ".join(f"{c:>15}" for c in cells))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
