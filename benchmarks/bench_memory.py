"""Benchmark: peak memory (RSS) of a whole `releval score` run per task family, against the input's size.

Run: python benchmarks/bench_memory.py [--families all|rc,e2e,...] [--items 1e6,1e7] [--repeat 1] [--shuffle]
                                       [--limit 4]

Issue 34 asks every reader to stay within 4 times the decompressed input in peak RSS. For each family and each
number of items N, the script writes a valid synthetic gold + prediction pair of N items in a temporary folder,
runs `python -m releval score --task FAMILY GOLD PRED -f json -o OUT` as the child of a fresh probe process (so
getrusage(RUSAGE_CHILDREN).ru_maxrss, KiB on Linux, is that run's peak and nothing else) and prints: the input
bytes (every gold and prediction file, as read), the peak RSS, the peak minus the start-up baseline, the bytes per
item above the baseline and the ratio (peak − baseline) / input bytes. **The baseline is the peak RSS of an empty
`python -m releval --version` run** (the interpreter and releval's entry point, 11.8 MiB here), subtracted from
every peak; the modules a family imports (NumPy, msgspec, orjson: about 30 MiB more) are counted against the input,
which makes small inputs look worse than large ones. The script exits 1 when the ratio of any family exceeds
--limit (default 4) at the largest size it ran.

An item is one unit of the family's gold and predictions; the generated data (seeded, so every run writes the same
files) is:

| family | item | gold / predictions |
|---|---|---|
| `rc` | one line per side | `id<TAB>label` (id-tsv), ids `id0…`, 42 TACRED-like labels (synthetic.py) |
| `rc-jsonl` | one line per side | `{"id": …, "label": …}` JSON lines, same data |
| `semeval-official` | one line per side | SemEval-2010 Task 8 key lines `8001<TAB>Cause-Effect(e1,e2)`, 19 labels |
| `e2e` | one sentence | SpERT JSON: 12 tokens, 3 entities, 1 relation (predictions: some types changed) |
| `docred` | one document | 6 sentences of 20 tokens, 6 entities (9 mentions), 3 facts; 3 predictions |
| `ranked` | one gold line / one prediction | gold JSON lines `{text, h, t, relation}` (60 % NA); `h t rel score` TSV |
| `fewrel` | one episode (5-way 1-shot, one query) | gold episodes with `answer`; predictions a JSON list of ints |
| `chemprot` | one line per side | ChemProt BLUE TSV `index<TAB>sentence<TAB>label` (`--task chemprot-blue`) |
| `drugprot` | one gold relation | an abstract per 2 relations (4 entities), `pmids.txt`; predictions relation lines |

With --shuffle the rc and semeval-official predictions are written in a random order (alignment then matches every
id by hash instead of finding the two files' ids equal).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from releval.data.semeval_labels import DIRECTED, OTHER
from synthetic import LABELS, label_indices

MIB = 1 << 20
#: Items written per block (a block's strings are built and written at once).
BLOCK = 200_000

# Runs the command given as arguments and prints [exit code, peak RSS of the child in bytes, stderr's tail].
PROBE = textwrap.dedent(
    """
    import json, resource, subprocess, sys
    done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print(json.dumps([done.returncode, peak, done.stderr[-600:]]))
    """
)

SEMEVAL = [OTHER, *(label for label in DIRECTED if label != OTHER)]  # Other first, as the files order them
CHEMPROT = ["false", "CPR:3", "CPR:4", "CPR:5", "CPR:6", "CPR:9"]
DRUGPROT = ["INHIBITOR", "DIRECT-REGULATOR", "SUBSTRATE", "ACTIVATOR", "INDIRECT-UPREGULATOR", "PRODUCT-OF"]


def blocks(n: int) -> Iterator[np.ndarray]:
    """The item numbers 0..n-1 in blocks of BLOCK."""
    for start in range(0, n, BLOCK):
        yield np.arange(start, min(n, start + BLOCK))


def write_lines(path: Path, n: int, line: Callable[[np.ndarray], list[str]], head: str = "") -> None:
    """`head`, then the lines `line(block)` gives for each block of item numbers."""
    with path.open("w", encoding="utf-8") as out:
        out.write(head)
        for items in blocks(n):
            out.write("".join(line(items)))


def write_json_list(path: Path, n: int, record: Callable[[np.ndarray], list[str]]) -> None:
    """A JSON list of the records `record(block)` gives, one per line."""
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for items in blocks(n):
            out.write(("," if items[0] else "") + ",\n".join(record(items)))
        out.write("]\n")


def rc_pair(folder: Path, n: int, shuffle: bool, jsonl: bool) -> list[str]:
    """Gold and predictions as `id<TAB>label` lines (or JSON lines) with the synthetic TACRED-like labels."""
    gold, pred = label_indices(n)
    order = np.random.default_rng(1).permutation(n) if shuffle else np.arange(n)
    paths = [folder / f"gold.{'jsonl' if jsonl else 'txt'}", folder / f"pred.{'jsonl' if jsonl else 'txt'}"]
    for path, codes, ordering in ((paths[0], gold, np.arange(n)), (paths[1], pred, order)):
        if jsonl:
            write_lines(
                path,
                n,
                lambda b, c=codes, o=ordering: [f'{{"id": "id{i}", "label": "{LABELS[c[i]]}"}}\n' for i in o[b]],
            )
        else:
            write_lines(path, n, lambda b, c=codes, o=ordering: [f"id{i}\t{LABELS[c[i]]}\n" for i in o[b]])
    return [str(p) for p in paths]


def semeval_pair(folder: Path, n: int, shuffle: bool) -> list[str]:
    gold, pred = label_indices(n)
    gold, pred = gold % len(SEMEVAL), pred % len(SEMEVAL)
    order = np.random.default_rng(1).permutation(n) if shuffle else np.arange(n)
    paths = [folder / "key.txt", folder / "answer.txt"]
    write_lines(paths[0], n, lambda b: [f"{8001 + i}\t{SEMEVAL[gold[i]]}\n" for i in b])
    write_lines(paths[1], n, lambda b: [f"{8001 + i}\t{SEMEVAL[pred[i]]}\n" for i in order[b]])
    return ["--task", "semeval-official", *map(str, paths)]


def e2e_pair(folder: Path, n: int, shuffle: bool) -> list[str]:
    types, relations = ("Peop", "Org", "Loc"), ("Work_For", "Live_In", "Located_In")
    rng = np.random.default_rng(0)
    flip = rng.random(n) < 0.2

    def sentence(i: int, pred: bool) -> str:
        rel = relations[(i + 1) % 3] if pred and flip[i] else relations[i % 3]
        ents = ",".join(f'{{"type": "{types[(i + k) % 3]}", "start": {3 * k}, "end": {3 * k + 2}}}' for k in range(3))
        words = ",".join(f'"w{(i * 7 + k) % 2000}"' for k in range(12))
        return (
            f'{{"tokens": [{words}], "entities": [{ents}], '
            f'"relations": [{{"type": "{rel}", "head": 0, "tail": 2}}], "orig_id": {i}}}'
        )

    paths = [folder / "gold.json", folder / "pred.json"]
    write_json_list(paths[0], n, lambda b: [sentence(int(i), False) for i in b])
    write_json_list(paths[1], n, lambda b: [sentence(int(i), True) for i in b])
    return ["--task", "e2e", *map(str, paths)]


def docred_pair(folder: Path, n: int, shuffle: bool) -> list[str]:
    """n documents shaped like DocRED's (smaller): 6 sentences of 20 tokens, 6 entities of one or two mentions, 3
    facts; the predictions hold the 3 facts, 30 % with the wrong relation."""
    rng = np.random.default_rng(0)
    wrong = rng.random((n, 3)) < 0.3
    kinds = ("PER", "ORG", "LOC", "TIME", "NUM", "MISC")

    def document(i: int) -> str:
        mention = '{{"name": "e{k}", "pos": [{p}, {q}], "sent_id": {s}, "type": "{t}"}}'
        vertices = ",".join(
            "["
            + ",".join(mention.format(k=k, p=m, q=m + 2, s=(k + 3 * m) % 6, t=kinds[k]) for m in range(1 + k % 2))
            + "]"
            for k in range(6)
        )
        sents = ",".join("[" + ",".join(f'"w{(i + 7 * s + t) % 5000}"' for t in range(20)) + "]" for s in range(6))
        labels = ",".join(
            f'{{"r": "P{17 + (i + f) % 20}", "h": {f}, "t": {f + 3}, "evidence": [{f}, {f + 1}]}}' for f in range(3)
        )
        return f'{{"title": "doc{i}", "vertexSet": [{vertices}], "labels": [{labels}], "sents": [{sents}]}}'

    def predictions(i: int) -> str:
        return ",".join(
            f'{{"title": "doc{i}", "h_idx": {f}, "t_idx": {f + 3}, "r": "P{17 + (i + f + wrong[i, f]) % 20}", '
            f'"evidence": [{f}]}}'
            for f in range(3)
        )

    paths = [folder / "gold.json", folder / "result.json"]
    write_json_list(paths[0], n, lambda b: [document(int(i)) for i in b])
    write_json_list(paths[1], n, lambda b: [predictions(int(i)) for i in b])
    return ["--task", "docred", *map(str, paths)]


def ranked_pair(folder: Path, n: int, shuffle: bool) -> list[str]:
    rng = np.random.default_rng(0)
    rels = rng.integers(0, 50, n)
    na = rng.random(n) < 0.6
    scores = np.round(rng.random(n), 4)

    def gold(i: int) -> str:
        rel = "NA" if na[i] else f"/rel/r{rels[i]}"
        return (
            f'{{"text": "m.h{i} about m.t{i}", "h": {{"id": "m.h{i}", "name": "h{i}"}}, '
            f'"t": {{"id": "m.t{i}", "name": "t{i}"}}, "relation": "{rel}"}}\n'
        )

    paths = [folder / "gold.jsonl", folder / "pred.tsv"]
    write_lines(paths[0], n, lambda b: [gold(int(i)) for i in b])
    write_lines(
        paths[1],
        n,
        lambda b: [f"m.h{i}\tm.t{i}\t/rel/r{(rels[i] + (i % 3 == 0)) % 50}\t{scores[i]}\n" for i in b],
        head="h\tt\trelation\tscore\n",
    )
    return ["--task", "ranked", *map(str, paths)]


def fewrel_pair(folder: Path, n: int, shuffle: bool) -> list[str]:
    rng = np.random.default_rng(0)
    answers = rng.integers(0, 5, n)
    guesses = np.where(rng.random(n) < 0.7, answers, rng.integers(0, 5, n))

    def instance(i: int, k: int) -> str:
        return f'{{"tokens": ["a{k}", "b", "c{i % 97}"], "h": ["a", "Q{k}", [[0]]], "t": ["c", "Q9", [[2]]]}}'

    def episode(i: int) -> str:
        support = ",".join(f"[{instance(i, k)}]" for k in range(5))
        names = ",".join(f'"P{(i + k) % 40}"' for k in range(5))
        test = instance(i, 7)
        return f'{{"meta_train": [{support}], "meta_test": {test}, "relation": [{names}], "answer": {answers[i]}}}'

    paths = [folder / "gold.json", folder / "pred.json"]
    write_json_list(paths[0], n, lambda b: [episode(int(i)) for i in b])
    write_json_list(paths[1], n, lambda b: [str(guesses[i]) for i in b])
    return ["--task", "fewrel", *map(str, paths)]


def chemprot_pair(folder: Path, n: int, shuffle: bool) -> list[str]:
    gold, pred = label_indices(n)
    gold, pred = gold % len(CHEMPROT), pred % len(CHEMPROT)
    paths = [folder / "gold.tsv", folder / "pred.tsv"]
    for path, codes in zip(paths, (gold, pred)):
        write_lines(
            path,
            n,
            lambda b, c=codes: [
                f"{10000000 + i // 4}.T{i % 4}.T{20 + i % 4}\t@CHEMICAL$ binds @GENE$ .\t{CHEMPROT[c[i]]}\n" for i in b
            ],
            head="index\tsentence\tlabel\n",
        )
    return ["--task", "chemprot-blue", *map(str, paths)]


def drugprot_pair(folder: Path, n: int, shuffle: bool) -> list[str]:
    """n gold relations: abstract a holds chemicals T1, T2 and genes T3, T4, related (T1, T3) and (T2, T4)."""
    rng = np.random.default_rng(0)
    types = rng.integers(0, len(DRUGPROT), n)
    wrong = rng.random(n) < 0.3
    gold_folder = folder / "gold"
    gold_folder.mkdir()
    abstracts = (n + 1) // 2
    write_lines(gold_folder / "pmids.txt", abstracts, lambda b: [f"{1000000 + a}\n" for a in b])
    write_lines(
        gold_folder / "entities.tsv",
        abstracts,
        lambda b: [
            f"{1000000 + a}\tT{k}\t{'CHEMICAL' if k < 3 else 'GENE'}\t{10 * k}\t{10 * k + 5}\tname{k}\n"
            for a in b
            for k in range(1, 5)
        ],
    )

    def relation(i: int, pred: bool) -> str:
        kind = DRUGPROT[(types[i] + (pred and wrong[i])) % len(DRUGPROT)]
        chem, gene = (1, 3) if i % 2 == 0 else (2, 4)
        return f"{1000000 + i // 2}\t{kind}\tArg1:T{chem}\tArg2:T{gene}\n"

    write_lines(gold_folder / "relations.tsv", n, lambda b: [relation(int(i), False) for i in b])
    pred = folder / "pred_relations.tsv"
    write_lines(pred, n, lambda b: [relation(int(i), True) for i in b])
    return ["--task", "drugprot", str(gold_folder), str(pred)]


FAMILIES: dict[str, Callable[[Path, int, bool], list[str]]] = {
    "rc": lambda folder, n, shuffle: rc_pair(folder, n, shuffle, False),
    "rc-jsonl": lambda folder, n, shuffle: rc_pair(folder, n, shuffle, True),
    "semeval-official": semeval_pair,
    "e2e": e2e_pair,
    "docred": docred_pair,
    "ranked": ranked_pair,
    "fewrel": fewrel_pair,
    "chemprot": chemprot_pair,
    "drugprot": drugprot_pair,
}


def input_bytes(words: list[str]) -> int:
    """Bytes of every file (or every file of a folder) named in the command's arguments."""
    total = 0
    for word in words:
        path = Path(word)
        if path.is_dir():
            total += sum(p.stat().st_size for p in path.iterdir() if p.is_file())
        elif path.is_file():
            total += path.stat().st_size
    return total


def peak_rss(command: list[str], repeat: int) -> int:
    """Median peak RSS (bytes) of `command` over `repeat` runs in a fresh probe process; each must exit 0."""
    peaks = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", PROBE, *command], capture_output=True, text=True, check=True)
        code, peak, stderr = json.loads(done.stdout)
        if code != 0:
            raise SystemExit(f"exit {code} from {' '.join(command)}:\n{stderr}")
        peaks.append(peak)
    return int(statistics.median(peaks))


def sizes(text: str) -> list[int]:
    """'1e6,1e7' → [1000000, 10000000]."""
    return [int(float(word)) for word in text.split(",") if word.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default="all", help=f"all, or some of: {', '.join(FAMILIES)}")
    parser.add_argument("--items", type=sizes, default=sizes("1e6"), help="numbers of items, e.g. 1e6,1e7")
    parser.add_argument("--repeat", type=int, default=1, help="runs per size (the median peak is printed)")
    parser.add_argument("--shuffle", action="store_true", help="rc, semeval-official: predictions in random order")
    parser.add_argument("--limit", type=float, default=4.0, help="largest accepted (peak - baseline) / input bytes")
    parser.add_argument("--keep", type=Path, default=None, help="write the files here (kept) instead of a temp dir")
    args = parser.parse_args()
    names = list(FAMILIES) if args.families == "all" else [f.strip() for f in args.families.split(",")]
    unknown = [f for f in names if f not in FAMILIES]
    if unknown:
        parser.error(f"unknown families {unknown}; choose from {', '.join(FAMILIES)}")
    base = peak_rss([sys.executable, "-m", "releval", "--version"], max(3, args.repeat))
    print(f"baseline: peak RSS of `python -m releval --version` = {base / MIB:.1f} MiB, subtracted below")
    print(
        f"{'family':<16} {'items':>10} {'input MiB':>10} {'peak MiB':>9} {'above MiB':>10} {'B/item':>8} {'ratio':>6}"
    )
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        for family in names:
            ratio = 0.0
            for n in sorted(args.items):
                folder = root / f"{family}-{n}"
                folder.mkdir(parents=True, exist_ok=True)
                words = FAMILIES[family](folder, n, args.shuffle)
                size = input_bytes(words)
                out = folder / "out.json"
                peak = peak_rss(
                    [sys.executable, "-m", "releval", "score", *words, "-f", "json", "-o", str(out)], args.repeat
                )
                above = peak - base
                ratio = above / size
                print(
                    f"{family:<16} {n:>10,} {size / MIB:>10.1f} {peak / MIB:>9.1f} {above / MIB:>10.1f} "
                    f"{above / n:>8.1f} {ratio:>6.2f}",
                    flush=True,
                )
                if args.keep is None:
                    for path in sorted(folder.rglob("*"), reverse=True):
                        path.rmdir() if path.is_dir() else path.unlink()
            if ratio > args.limit:
                failed.append(family)
    if failed:
        print(f"over {args.limit:g}x the input at the largest size: {', '.join(failed)}")
        return 1
    print(f"every family within {args.limit:g}x its input at its largest size")
    return 0


if __name__ == "__main__":
    sys.exit(main())
