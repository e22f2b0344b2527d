"""`python -m tests.fuzz`: a long fuzzing run, or one case replayed in detail.

    python -m tests.fuzz --seed 7 --count 200000            # loaders: 200,000 mutated inputs of run 7
    python -m tests.fuzz --seed 7 --count 0 --commands 2000  # commands only
    python -m tests.fuzz --seed 7 --case 1234                # replay case 1234 of run 7 and show everything
    python -m tests.fuzz --seed 7 --count 50000 --save       # also save new failures into tests/fuzz/corpus/

Run from the repository root (the `tests` folder must be importable). Exit status 1 when a failure class outside
KNOWN_OPEN was found.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from tests.fuzz import commands, corpus_io, oracle
from tests.fuzz.seeds import seed_by_name


def _show_case(seed: int, index: int) -> None:
    case = oracle.make_case(seed, index)
    s = seed_by_name(case.seed_name)
    print(f"case {index} of run {seed}: seed input {case.seed_name} ({s.loader}, {s.format}, role {s.role})")
    print(f"mutators: {list(case.mutators)}; file name {case.filename}; detect format: {case.detect}")
    print(f"{len(case.data)} bytes: {case.data[:600]!r}{' …' if len(case.data) > 600 else ''}")
    with tempfile.TemporaryDirectory() as tmp:
        verdict = oracle.run_case(case, Path(tmp))
        print(f"releval: {verdict.outcome}; class: {verdict.klass}")
        print(f"detail: {verdict.detail}")
        ref = oracle.reference_read(s, case.data, case.filename)
        print(f"reference: {str(ref)[:600]}")


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run, print the summary; 1 when a failure class outside KNOWN_OPEN appeared."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="run seed (cases are a function of seed and index)")
    parser.add_argument("--count", type=int, default=20000, help="mutated inputs through the loaders")
    parser.add_argument("--commands", type=int, default=0, help="CLI runs on mutated files")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--case", type=int, default=None, help="replay this loader case and show it")
    parser.add_argument("--command-case", type=int, default=None, help="replay this command case and show it")
    parser.add_argument("--save", action="store_true", help="save one example of each failure class to the corpus")
    args = parser.parse_args(argv)
    if args.case is not None:
        _show_case(args.seed, args.case)
        return 0
    if args.command_case is not None:
        commands.show_case(args.seed, args.command_case)
        return 0
    new: list[str] = []
    if args.count:
        report = oracle.run(args.seed, args.count, workers=args.workers)
        print(f"loaders, seed {args.seed}: {report.summary()}")
        new += report.new_classes()
        if args.save:
            for path in corpus_io.save_report(report):
                print(f"saved {path}")
    if args.commands:
        creport = commands.run(args.seed, args.commands, workers=args.workers)
        print(f"commands, seed {args.seed}: {creport.summary()}")
        new += creport.new_classes()
        if args.save:
            for path in corpus_io.save_command_report(creport):
                print(f"saved {path}")
    if new:
        print(f"{len(new)} failure class(es) not in KNOWN_OPEN: {', '.join(new)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
