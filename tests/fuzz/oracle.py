"""The oracle: releval's loader and the reference reader on the same mutated input, and what their pair means.

For each input:

- releval raises a RelevalError (InputError or InputErrors): fine when the reference says invalid — but the error
  must be located (a line or record number) when the reference could locate the problem, one line, and short; fine
  too when the reference accepts but the input has a feature releval refuses on purpose (DELIBERATE_REFUSALS);
  otherwise "refused-valid";
- releval returns: the reference must accept and read exactly the same ids and labels (documents, entities,
  relations) — "accepted-invalid" or "misread" (a silently wrong score) otherwise;
- releval raises anything else: "traceback";
- the input file must be byte-identical afterwards ("damaged-input").

A failure's class (`kind:format:detail`) is stable across seeds; KNOWN_OPEN lists the classes still open, as
fnmatch patterns with a one-line reason, so the bounded test fails only on a new class.
"""

from __future__ import annotations

import fnmatch
import random
import re
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

from tests.fuzz.mutators import mutate
from tests.fuzz.reference import (
    E2ERead,
    Invalid,
    LabelsRead,
    PValuesRead,
    TypesRead,
    read_e2e,
    read_labels,
    read_pvalues,
    read_types,
)
from tests.fuzz.seeds import Seed, all_seeds, seed_by_name

from releval.core.errors import InputError, InputErrors, RelevalError
from releval.data.e2e import load_e2e, load_types
from releval.data.labels import load_labels
from releval.data.pvalues import load_pvalues

# Valid inputs releval refuses on purpose: the reference flags the feature, and a refusal is then no failure.
DELIBERATE_REFUSALS: dict[str, str] = {
    "label-space": "a label with surrounding white space would silently be a class of its own ('Other ' vs 'Other')",
    "blank-line": "a blank line inside a JSON lines labels file usually marks a lost item",
    "deep-nesting": "JSON nested deeper than 256 levels is no record of these formats (orjson stops at 1,024)",
    "big-int": "an integer beyond 64 bits has no exact reading in orjson/msgspec: refusing beats rounding an id",
    "csv-field-limit": "a CSV/TSV field over 128 KiB (Python csv's field_size_limit) is refused, located",
    "repeated-key": "a key written twice in one JSON object is refused even where this reading does not use it "
    "(parsers keep only the last value; the reference refuses it only where it is read)",
    "number-range": "a JSON number beyond a double's range (1e400) is refused by orjson; no field here is one",
}

# Failure classes still open: fnmatch patterns over `kind:format:detail` (loader classes, and `cmd-…` classes of
# command runs), each with the root cause. A class matching none of them fails the bounded test; remove a line when
# its fix has landed (the corpus replay then passes instead of being an expected failure).
KNOWN_OPEN: dict[str, str] = {}

SLOW_SECONDS = 10.0  # for one small input, even on a loaded machine
MAX_MESSAGE = 2000  # characters of one error message: a 128 KiB field echoed back is not "one clear error"
_LOCATION = re.compile(r":\d+:|\bline \d+|\brecord \d+|\w\[\d+\]|\bsentence \d+")


def known_open(klass: str) -> str | None:
    """The KNOWN_OPEN pattern matching a failure class, if any."""
    return next((p for p in KNOWN_OPEN if fnmatch.fnmatchcase(klass, p)), None)


# ----------------------------------------------------------------------------------------------- one case


@dataclass(frozen=True)
class Case:
    """One mutated input: which seed, the mutators applied, the bytes, the file name, and whether the format is
    left to releval's detection (labels only)."""

    seed_name: str
    mutators: tuple[str, ...]
    data: bytes
    filename: str
    detect: bool = False


def loader_seeds() -> tuple[Seed, ...]:
    """The seeds with a loader and a reference reader (check-stats tables are for command runs only)."""
    return tuple(s for s in all_seeds() if s.loader != "claims")


def make_case(seed: int, index: int) -> Case:
    """Case `index` of run `seed`: a function of the two numbers only, so any case can be replayed alone."""
    rng = random.Random(f"releval-fuzz:{seed}:{index}")
    s = rng.choice(loader_seeds())
    mutated = mutate(rng, s)
    detect = s.loader == "labels" and s.format not in ("labels-lines", "csv") and rng.random() < 0.15
    name = s.role + s.suffix + (".gz" if mutated.gzipped and rng.random() < 0.5 else "")
    return Case(s.name, mutated.names, mutated.data, name, detect)


@dataclass(frozen=True)
class Verdict:
    """What happened: `outcome` is accepted / refused / traceback; `klass` is None when all is well."""

    outcome: str
    klass: str | None
    detail: str = ""


def format_label(seed: Seed) -> str:
    """The format part of a failure class: the labels or e2e format, `pvalues-csv` etc. for p-value tables."""
    return f"pvalues-{seed.format}" if seed.loader == "pvalues" else seed.format


def load_with_releval(seed: Seed, path: Path, detect: bool = False) -> Any:
    """releval's loader for the seed's kind and role (format forced unless `detect`)."""
    if seed.loader == "e2e":
        return load_e2e(path, role=seed.role)
    if seed.loader == "pvalues":
        return load_pvalues(path, format=seed.format)
    if seed.loader == "types":
        return load_types(path)
    return load_labels(
        path,
        format=None if detect else seed.format,
        role=seed.role,
        id_field=seed.id_field,
        label_field=seed.label_field,
    )


def reference_read(seed: Seed, data: bytes, name: str, fmt: str | None = None) -> Any:
    """The reference reader's verdict for these bytes read as the seed's kind (in format `fmt` if given)."""
    if seed.loader == "e2e":
        return read_e2e(data, name=name, role=seed.role)
    if seed.loader == "pvalues":
        return read_pvalues(data, seed.format)
    if seed.loader == "types":
        return read_types(data)
    return read_labels(data, fmt or seed.format, role=seed.role, id_field=seed.id_field, label_field=seed.label_field)


def _errors(exc: BaseException) -> list[BaseException]:
    return list(exc.errors) if isinstance(exc, InputErrors) else [exc]


def is_located(exc: BaseException) -> bool:
    """Every error carries a line or record: InputError.line or .record, or `:N:`, `line N`, `record N`,
    `split[N]` in its message."""
    return all(
        (isinstance(e, InputError) and (e.line is not None or getattr(e, "record", None) is not None))
        or _LOCATION.search(str(e)) is not None
        for e in _errors(exc)
    )


def _where(exc: BaseException) -> str:
    """The innermost releval frame of a traceback, `file.py:function` (the class key of a traceback)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/releval/" in f.filename.replace("\\", "/")]
    if not frames:
        return "?"
    return f"{Path(frames[-1].filename).name}:{frames[-1].name}"


def _message_key(exc: BaseException) -> str:
    first = _errors(exc)[0]
    text = first.message if isinstance(first, InputError) else str(first)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "Q", text)
    return re.sub(r"\d+", "N", text)[:50].strip()


def as_comparable(got: Any) -> Any:
    """releval's result in the reference's shape (LabelsRead / E2ERead / PValuesRead without flags)."""
    if hasattr(got, "symmetric"):
        return TypesRead(tuple(got.entities), tuple(got.relations), frozenset(got.symmetric))
    if hasattr(got, "datasets"):
        effect = None if got.effect is None else tuple(float(x) for x in got.effect)
        return PValuesRead(tuple(got.datasets), tuple(float(x) for x in got.p), effect)
    if hasattr(got, "labels"):
        return LabelsRead(None if got.ids is None else tuple(got.ids), tuple(got.labels))
    splits = tuple(
        (name, tuple(_doc(d) for d in docs)) for name, docs in got.splits.items()
    )  # releval's Document -> the reference's Doc
    return E2ERead(got.format, splits)


def _doc(d: Any) -> Any:
    from tests.fuzz.reference import Doc

    return Doc(d.id, tuple(d.tokens), tuple(tuple(e) for e in d.entities), tuple(tuple(r) for r in d.relations))


def _difference(mine: Any, ref: Any) -> str:
    """What differs between releval's reading and the reference's, in a word (the misread class detail)."""
    if isinstance(ref, TypesRead):
        for part in ("entities", "relations", "symmetric"):
            if getattr(mine, part) != getattr(ref, part):
                return part
        return ""
    if isinstance(ref, PValuesRead):
        for part in ("datasets", "p", "effect"):
            if getattr(mine, part) != getattr(ref, part):
                return part
        return ""
    if isinstance(ref, LabelsRead):
        if (mine.ids is None) != (ref.ids is None):
            return "ids-presence"
        if len(mine.labels) != len(ref.labels):
            return "count"
        if mine.ids != ref.ids:
            return "ids"
        return "labels" if mine.labels != ref.labels else ""
    if mine.format != ref.format:
        return "format"
    if [n for n, _ in mine.splits] != [n for n, _ in ref.splits]:
        return "splits"
    for (_, a), (_, b) in zip(mine.splits, ref.splits):
        if len(a) != len(b):
            return "count"
        for da, db in zip(a, b):
            for part in ("id", "tokens", "entities", "relations"):
                if getattr(da, part) != getattr(db, part):
                    return part
    return ""


def classify(seed: Seed, fmt: str, got: Any, exc: BaseException | None, ref: Any, detect: bool = False) -> Verdict:
    """The oracle proper (module docstring). With `detect` (the format left to releval's detection) a located
    refusal is always fine: the reference reads the seed's format, releval may rightly have guessed another."""
    if exc is not None and not isinstance(exc, RelevalError):
        return Verdict(
            "traceback", f"traceback:{fmt}:{type(exc).__name__}@{_where(exc)}", f"{type(exc).__name__}: {exc}"[:300]
        )
    if exc is not None:
        message = str(exc)
        longest = max(len(str(e)) for e in _errors(exc))
        if longest > MAX_MESSAGE:
            return Verdict("refused", f"huge-message:{fmt}", f"{longest} characters: {message[:200]}")
        if any("\n" in str(e) or "\r" in str(e) for e in _errors(exc)):
            return Verdict("refused", f"multiline-message:{fmt}", message[:300])
        if isinstance(ref, Invalid):
            if ref.located and not is_located(exc):
                return Verdict("refused", f"unlocated:{fmt}:{ref.rule}", f"{message[:200]} | reference: {ref.detail}")
            return Verdict("refused", None)
        if ref.flags & DELIBERATE_REFUSALS.keys() or (detect and is_located(exc)):
            return Verdict("refused", None)
        return Verdict("refused", f"refused-valid:{fmt}:{_message_key(exc)}", message[:300])
    if isinstance(ref, Invalid):
        return Verdict("accepted", f"accepted-invalid:{fmt}:{ref.rule}", ref.detail[:300])
    what = _difference(as_comparable(got), ref)
    if what:
        return Verdict("accepted", f"misread:{fmt}:{what}", _show_difference(as_comparable(got), ref))
    return Verdict("accepted", None)


def _show_difference(mine: Any, ref: Any) -> str:
    if isinstance(ref, LabelsRead):
        pairs = list(zip(mine.ids or (), ref.ids or ())) + list(zip(mine.labels, ref.labels))
        diff = next(((a, b) for a, b in pairs if a != b), (len(mine.labels), len(ref.labels)))
        return f"releval {str(diff[0])[:80]!r} vs reference {str(diff[1])[:80]!r}"
    return f"releval {str(mine)[:150]} vs reference {str(ref)[:150]}"


def run_case(case: Case, folder: Path, seed: Seed | None = None) -> Verdict:
    """Write the case's file, load it with releval and the reference, and classify (`seed` says how to read it:
    by default the case's seed input; a corpus entry gives its own)."""
    seed = seed or seed_by_name(case.seed_name)
    path = folder / case.filename
    path.write_bytes(case.data)
    got: Any = None
    exc: BaseException | None = None
    began = time.perf_counter()
    try:
        got = load_with_releval(seed, path, case.detect)
    except Exception as error:  # noqa: BLE001 - anything but a RelevalError is the finding
        exc = error
    seconds = time.perf_counter() - began
    if seconds > SLOW_SECONDS:  # a few KB (or one 128 KiB field) read in seconds: something is quadratic
        return Verdict("slow", f"slow:{format_label(seed)}", f"{seconds:.1f} s for {len(case.data)} bytes")
    if path.read_bytes() != case.data:
        return Verdict("damaged", f"damaged-input:{format_label(seed)}", "the input file changed")
    fmt = got.format if case.detect and got is not None else format_label(seed)
    try:
        ref = reference_read(seed, case.data, case.filename, fmt)
    except Exception as error:  # noqa: BLE001 - a bug of the fuzzer itself, reported as its own class
        return Verdict("reference-crash", f"reference-crash:{fmt}:{type(error).__name__}", repr(error)[:300])
    label = f"{fmt}(detect)" if case.detect and got is None else fmt  # detection itself is part of the failure
    return classify(seed, label, got, exc, ref, case.detect)


# ----------------------------------------------------------------------------------------------- many cases


@dataclass
class Failure:
    """One failing case, enough to replay it: run seed and index, the seed input, mutators, what happened."""

    klass: str
    seed: int
    index: int
    seed_name: str
    mutators: tuple[str, ...]
    detail: str


@dataclass
class Report:
    """Counts of a run and its failures by class (the first few examples of each, and how many in all)."""

    count: int = 0
    seconds: float = 0.0
    outcomes: Counter[str] = field(default_factory=Counter)
    class_counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[Failure]] = field(default_factory=dict)

    def add(self, other: Report) -> None:
        self.count += other.count
        self.outcomes.update(other.outcomes)
        self.class_counts.update(other.class_counts)
        for klass, found in other.examples.items():
            mine = self.examples.setdefault(klass, [])
            mine.extend(found[: max(0, 5 - len(mine))])

    def record(self, failure: Failure) -> None:
        self.class_counts[failure.klass] += 1
        examples = self.examples.setdefault(failure.klass, [])
        if len(examples) < 5:
            examples.append(failure)

    def new_classes(self) -> list[str]:
        """Failure classes not in KNOWN_OPEN: the ones that make the bounded test fail."""
        return sorted(k for k in self.class_counts if known_open(k) is None)

    def summary(self, limit: int = 60) -> str:
        lines = [
            f"{self.count} cases in {self.seconds:.1f} s: "
            + ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))
        ]
        for klass, n in self.class_counts.most_common(limit):
            ex = self.examples[klass][0]
            state = "known" if known_open(klass) else "NEW"
            example = f"seed {ex.seed} case {ex.index} {ex.seed_name} {list(ex.mutators)}"
            lines.append(f"  [{state}] {klass}  ×{n}  e.g. {example}: {ex.detail[:160]}")
        return "\n".join(lines)


def run_range(seed: int, start: int, stop: int) -> Report:
    """Cases start..stop-1 of run `seed`, in a private temporary folder."""
    report = Report()
    with tempfile.TemporaryDirectory(prefix="releval-fuzz-") as tmp:
        folder = Path(tmp)
        for index in range(start, stop):
            case = make_case(seed, index)
            verdict = run_case(case, folder)
            report.count += 1
            report.outcomes[verdict.outcome] += 1
            if verdict.klass is not None:
                report.record(Failure(verdict.klass, seed, index, case.seed_name, case.mutators, verdict.detail))
            for leftover in folder.iterdir():
                leftover.unlink()
    return report


def mp_context() -> BaseContext:
    """Worker processes by spawn (no fork of a possibly threaded test process) when the main module can be imported
    again (pytest, `python -m tests.fuzz`, a script), else by fork (`python -`, an interactive session)."""
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if main_file and Path(main_file).is_file():
        return get_context("spawn")
    return get_context("fork")


def _chunks(count: int, size: int) -> Iterable[tuple[int, int]]:
    for start in range(0, count, size):
        yield start, min(count, start + size)


def run_chunked(
    run_range: Callable[[int, int, int], Report], seed: int, count: int, workers: int, chunk: int
) -> Report:
    """Cases 0..count-1 of run `seed`, `chunk` at a time, over `workers` processes (the same cases whatever the
    number of workers: a case depends only on the seed and its index)."""
    began = time.perf_counter()
    total = Report()
    if workers <= 1:
        for start, stop in _chunks(count, chunk):
            total.add(run_range(seed, start, stop))
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=mp_context()) as pool:
            futures = [pool.submit(run_range, seed, a, b) for a, b in _chunks(count, chunk)]
            for future in futures:
                total.add(future.result())
    total.seconds = time.perf_counter() - began
    return total


def run(seed: int, count: int, workers: int = 2, chunk: int = 250) -> Report:
    """`count` loader cases of run `seed` over `workers` processes."""
    return run_chunked(run_range, seed, count, workers, chunk)
