"""The corpus: every input that ever made the fuzzer fail, minimised, with a sidecar stating the expected outcome.

`tests/fuzz/corpus/<class>-<hash>.<ext>` holds the input bytes (verbatim: .gitattributes keeps git's hands off
them) and `<same>.json` says how to read it and what must happen:

- loader entries: the seed input's kind, format, role and fields, the file name to use (names matter: `.csv`,
  the split name of a SpERT list), the failure class found, who found it (run seed, case, mutators), and
  `expected`, the reference's verdict — `{"outcome": "refused", "rule", "located"}` or
  `{"outcome": "reads", "items", "sha256"}` (a digest of the exact ids and labels, or documents);
- command entries: the scenario, the slot whose file this is, and `expected: {"failure": null}`.

tests/test_fuzz.py replays every entry: the reference must still give the recorded verdict, and releval must
now behave (no failure class), unless the class is still in KNOWN_OPEN (then the test is an expected failure).
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.fuzz import commands, oracle
from tests.fuzz.reference import E2ERead, Invalid, LabelsRead, PValuesRead, TypesRead
from tests.fuzz.seeds import Seed, seed_by_name

CORPUS = Path(__file__).resolve().parent / "corpus"
MAX_BYTES = 400_000  # a failure needing more input than this is described in the README, not stored


def _slug(klass: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", klass).strip("_")[:90]


def expected_outcome(verdict: Any) -> dict[str, Any]:
    """The reference's verdict as stored in a sidecar (a digest stands for the items read)."""
    if isinstance(verdict, Invalid):
        return {"outcome": "refused", "rule": verdict.rule, "located": verdict.located, "detail": verdict.detail}
    if isinstance(verdict, LabelsRead):
        body = json.dumps([verdict.ids, verdict.labels], ensure_ascii=False)
        items = len(verdict.labels)
    elif isinstance(verdict, TypesRead):
        body = repr((verdict.entities, verdict.relations, sorted(verdict.symmetric)))
        items = len(verdict.entities) + len(verdict.relations)
    elif isinstance(verdict, PValuesRead):
        body = repr((verdict.datasets, verdict.p, verdict.effect))
        items = len(verdict.datasets)
    else:
        assert isinstance(verdict, E2ERead)
        body = repr((verdict.format, verdict.splits))
        items = sum(len(docs) for _, docs in verdict.splits)
    return {
        "outcome": "reads",
        "items": items,
        "sha256": hashlib.sha256(body.encode("utf-8", errors="surrogatepass")).hexdigest(),
        "flags": sorted(verdict.flags),
    }


def _known_classes() -> set[str]:
    return {json.loads(p.read_text(encoding="utf-8"))["class"] for p in CORPUS.glob("*.json")}


def shrink(data: bytes, same: Callable[[bytes], bool], budget: int) -> bytes:
    """Drop lines (halves, quarters, … single lines), then halve long runs of one byte, while `same(candidate)`
    (the failure class is unchanged); gzipped data is kept as it is."""
    if data[:2] == b"\x1f\x8b":
        return data
    lines = data.split(b"\n")
    size = max(1, len(lines) // 2)
    while size >= 1 and budget > 0:
        start = 0
        while start < len(lines) and budget > 0:
            candidate = lines[:start] + lines[start + size :]
            budget -= 1
            if candidate and same(b"\n".join(candidate)):
                lines = candidate
            else:
                start += size
        size //= 2
    for k, line in enumerate(lines):  # a 128 KiB run of one byte: halve it while the class stays
        for run in sorted({m.group() for m in re.finditer(rb"(.)\1{255,}", line, flags=re.S)}, key=len):
            while len(run) >= 256 and budget > 0:
                budget -= 1
                shorter = lines[:k] + [lines[k].replace(run, run[: len(run) // 2], 1)] + lines[k + 1 :]
                if not same(b"\n".join(shorter)):
                    break
                lines, run = shorter, run[: len(run) // 2]
    return b"\n".join(lines)


def minimise(case: oracle.Case, klass: str, budget: int = 400) -> oracle.Case:
    """The smallest input `shrink` finds that still fails the loader with the same class."""
    with tempfile.TemporaryDirectory(prefix="releval-fuzz-min-") as tmp:
        folder = Path(tmp)

        def same(data: bytes) -> bool:
            trial = oracle.Case(case.seed_name, case.mutators, data, case.filename, case.detect)
            verdict = oracle.run_case(trial, folder)
            for leftover in folder.iterdir():
                leftover.unlink()
            return verdict.klass == klass

        data = shrink(case.data, same, budget)
    return oracle.Case(case.seed_name, case.mutators, data, case.filename, case.detect)


def minimise_command(case: commands.CommandCase, klass: str, budget: int = 60) -> commands.CommandCase:
    """The smallest mutated file `shrink` finds that still fails the command with the same class."""

    def same(data: bytes) -> bool:
        with tempfile.TemporaryDirectory(prefix="releval-fuzz-min-") as tmp:
            verdict, _ = commands.run_command_case(replace(case, data=data), Path(tmp))
        return verdict.klass == klass

    return replace(case, data=shrink(case.data, same, budget))


def save_loader_case(failure: oracle.Failure, folder: Path = CORPUS) -> Path | None:
    """Replay, minimise and store one loader failure with its sidecar; None when too big to store."""
    case = minimise(oracle.make_case(failure.seed, failure.index), failure.klass)
    if len(case.data) > MAX_BYTES:
        return None
    seed = seed_by_name(case.seed_name)
    stem = f"{_slug(failure.klass)}-{hashlib.sha256(case.data).hexdigest()[:10]}"
    data_path = folder / f"{stem}.bin"
    data_path.write_bytes(case.data)
    sidecar = {
        "kind": "loader",
        "class": failure.klass,
        "seed_input": case.seed_name,
        "loader": seed.loader,
        "format": seed.format,
        "detect_format": case.detect,
        "role": seed.role,
        "id_field": seed.id_field,
        "label_field": seed.label_field,
        "filename": case.filename,
        "found_by": {"run_seed": failure.seed, "case": failure.index, "mutators": list(failure.mutators)},
        "releval_said": failure.detail,
        "expected": expected_outcome(oracle.reference_read(seed, case.data, case.filename)),
    }
    (folder / f"{stem}.json").write_text(json.dumps(sidecar, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return data_path


def save_command_case(failure: oracle.Failure, folder: Path = CORPUS) -> Path | None:
    """Store one command failure: the mutated file and a sidecar naming the scenario and slot."""
    case = minimise_command(commands.make_case(failure.seed, failure.index), failure.klass)
    if len(case.data) > MAX_BYTES:
        return None
    stem = f"{_slug(failure.klass)}-{hashlib.sha256(case.data + case.scenario.encode()).hexdigest()[:10]}"
    data_path = folder / f"{stem}.bin"
    data_path.write_bytes(case.data)
    sidecar = {
        "kind": "command",
        "class": failure.klass,
        "scenario": case.scenario,
        "slot": case.slot,
        "gzipped": case.gzipped,
        "output_exists": case.output_exists,
        "found_by": {"run_seed": failure.seed, "case": failure.index, "mutators": list(failure.mutators)},
        "releval_said": failure.detail,
        "expected": {"failure": None},
    }
    (folder / f"{stem}.json").write_text(json.dumps(sidecar, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return data_path


def save_report(report: oracle.Report) -> list[Path]:
    """One corpus entry for each loader failure class the corpus does not hold yet."""
    known = _known_classes()
    saved = []
    for klass, examples in report.examples.items():
        if klass not in known and (path := save_loader_case(examples[0])) is not None:
            saved.append(path)
    return saved


def save_command_report(report: oracle.Report) -> list[Path]:
    """One corpus entry for each command failure class the corpus does not hold yet."""
    known = _known_classes()
    saved = []
    for klass, examples in report.examples.items():
        if klass not in known and (path := save_command_case(examples[0])) is not None:
            saved.append(path)
    return saved


def entries() -> list[Path]:
    """Every sidecar of the corpus, sorted."""
    return sorted(CORPUS.glob("*.json"))


def replay(sidecar_path: Path) -> tuple[str | None, str, dict[str, Any] | None]:
    """Run a corpus entry again: (failure class now or None, detail, the reference's verdict now — None for
    command entries), so the test can compare it with the stored expectation."""
    meta = json.loads(sidecar_path.read_text(encoding="utf-8"))
    data = sidecar_path.with_suffix(".bin").read_bytes()
    with tempfile.TemporaryDirectory(prefix="releval-fuzz-replay-") as tmp:
        if meta["kind"] == "command":
            command_case = commands.CommandCase(
                meta["scenario"], meta["slot"], tuple(meta["found_by"]["mutators"]), data, meta["gzipped"],
                meta["output_exists"],
            )  # fmt: skip
            verdict, _ = commands.run_command_case(command_case, Path(tmp))
            return verdict.klass, verdict.detail, None
        seed = Seed(
            meta["seed_input"], meta["loader"], meta["format"], meta["role"], b"", "",
            id_field=meta["id_field"], label_field=meta["label_field"],
        )  # fmt: skip
        mutators = tuple(meta["found_by"]["mutators"])
        case = oracle.Case(meta["seed_input"], mutators, data, meta["filename"], meta["detect_format"])
        verdict = oracle.run_case(case, Path(tmp), seed)
        now = expected_outcome(oracle.reference_read(seed, data, meta["filename"]))
        return verdict.klass, verdict.detail, now
