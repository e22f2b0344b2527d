"""The fuzzer (tests/fuzz) in the suite: a bounded run, the corpus replayed, and the harness's own checks.

The promise tested: bad input gives one clear, located error and exit 2 — never a traceback, never a silently
wrong score, never a damaged file. The bounded run puts 35,000 mutated inputs through the loaders and 500 through
real commands, part with a fixed seed and part with a random one; a failure names its seed and the command
that replays it (`python -m tests.fuzz --seed N --count M`; `--case I` shows one case). It fails only on a failure
class that is not in KNOWN_OPEN (tests/fuzz/oracle.py), so the open classes are listed, not hidden, and a new one
stops the suite.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
from pathlib import Path
from typing import Any

import pytest
from tests.fuzz import commands, corpus_io, oracle
from tests.fuzz.reference import LabelsRead, read_e2e, read_labels

FIXED_SEED = 11
LOADER_CASES = {"fixed": 20_000, "random": 15_000}
COMMAND_CASES = {"fixed": 300, "random": 200}
WORKERS = max(1, min(2, os.cpu_count() or 1))


def _seed(which: str) -> int:
    """The fixed seed, or a random one ($RELEVAL_FUZZ_SEED replays a given one)."""
    if which == "fixed":
        return FIXED_SEED
    return int(os.environ.get("RELEVAL_FUZZ_SEED") or secrets.randbelow(2**31))


def _failure_message(kind: str, seed: int, count: int, report: oracle.Report) -> str:
    option = "--count" if kind == "loaders" else "--count 0 --commands"
    return (
        f"{kind}: failure classes not in KNOWN_OPEN: {report.new_classes()}\n"
        f"seed {seed}; replay: python -m tests.fuzz --seed {seed} {option} {count} (one case: --case I / "
        f"--command-case I; --save adds them to tests/fuzz/corpus/)\n{report.summary()}"
    )


@pytest.mark.slow
@pytest.mark.parametrize("which", ["fixed", "random"])
def test_loaders_fuzz(which: str) -> None:
    """Mutated inputs through every loader and the reference: no failure class outside KNOWN_OPEN."""
    seed, count = _seed(which), LOADER_CASES[which]
    print(f"loader fuzzing: seed {seed}, {count} cases")
    report = oracle.run(seed, count, workers=WORKERS)
    assert report.count == count
    assert not report.new_classes(), _failure_message("loaders", seed, count, report)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["fixed", "random"])
def test_commands_fuzz(which: str) -> None:
    """Real `releval` commands on mutated files: exit codes, stderr, output and input files as promised."""
    seed, count = _seed(which), COMMAND_CASES[which]
    print(f"command fuzzing: seed {seed}, {count} cases")
    report = commands.run(seed, count, workers=WORKERS)
    assert report.count == count
    assert not report.new_classes(), _failure_message("commands", seed, count, report)


@pytest.mark.parametrize("sidecar", corpus_io.entries(), ids=lambda p: p.stem)
def test_corpus_entry(sidecar: Path) -> None:
    """Every input that ever failed: the reference still says what the sidecar records, and releval now behaves —
    or its class is still in KNOWN_OPEN (an expected failure until the fix lands)."""
    meta = json.loads(sidecar.read_text(encoding="utf-8"))
    klass, detail, reference_now = corpus_io.replay(sidecar)
    if reference_now is not None:
        assert reference_now == meta["expected"], f"the reference's verdict changed for {sidecar.name}"
    if klass is None:
        return
    pattern = oracle.known_open(klass)
    if pattern is not None:
        pytest.xfail(f"known open: {oracle.KNOWN_OPEN[pattern]} ({klass})")
    pytest.fail(f"{sidecar.name}: {klass}: {detail}")


def test_corpus_files_come_in_pairs() -> None:
    """Each sidecar has its input file and each input its sidecar, and every sidecar says what it expects."""
    inputs = {p.stem for p in corpus_io.CORPUS.glob("*.bin")}
    sidecars = {p.stem for p in corpus_io.CORPUS.glob("*.json")}
    assert inputs == sidecars
    for path in corpus_io.entries():
        meta = json.loads(path.read_text(encoding="utf-8"))
        assert meta["kind"] in ("loader", "command") and "expected" in meta and meta["class"]


@pytest.mark.parametrize("seed", oracle.loader_seeds(), ids=lambda s: s.name)
def test_seed_inputs_read_identically(seed: Any) -> None:
    """Unmutated, every seed is valid for the reference and releval reads exactly what the reference reads."""
    with tempfile.TemporaryDirectory() as tmp:
        case = oracle.Case(seed.name, (), seed.data, seed.role + seed.suffix)
        verdict = oracle.run_case(case, Path(tmp))
    assert verdict == oracle.Verdict("accepted", None), verdict


@pytest.mark.parametrize("scenario", commands.SCENARIOS, ids=lambda s: s.name)
def test_command_scenarios_pass_on_intact_inputs(scenario: commands.Scenario) -> None:
    """Each command scenario exits as expected (0; check-stats 1) with a complete output on its intact inputs: the
    mutations are what fails."""
    case = commands.CommandCase(scenario.name, None, (), b"", False, True)
    with tempfile.TemporaryDirectory() as tmp:
        verdict, stderr = commands.run_command_case(case, Path(tmp))
    assert verdict == oracle.Verdict(f"exit {scenario.intact_exit}", None), stderr


def test_cases_are_a_function_of_seed_and_index() -> None:
    """Replaying needs nothing but the run seed and the case index."""
    for index in range(200):
        assert oracle.make_case(5, index) == oracle.make_case(5, index)
    assert [commands.make_case(5, i) for i in range(50)] == [commands.make_case(5, i) for i in range(50)]
    assert {oracle.make_case(5, i).data for i in range(50)} != {oracle.make_case(6, i).data for i in range(50)}


def test_tables_give_their_reasons() -> None:
    """KNOWN_OPEN and DELIBERATE_REFUSALS each give a reason per entry."""
    for table in (oracle.KNOWN_OPEN, oracle.DELIBERATE_REFUSALS):
        assert all(isinstance(reason, str) and len(reason) > 20 for reason in table.values())


# ----------------------------------------------------------------------------------------------- the reference


def _ids(verdict: Any) -> tuple[str, ...] | None:
    assert isinstance(verdict, LabelsRead), verdict
    return verdict.ids


@pytest.mark.parametrize(
    ("data", "rule"),
    [
        (b'{"id": "a", "id": "b", "label": "x"}\n', "json-duplicate-key"),
        (b'{"id": "a", "label": NaN}\n', "json-constant"),
        (b'{"id": "a", "label": "\\ud800"}\n', "json-lone-surrogate"),
        (b'{"id": "a", "label": "x"} {"id": "b", "label": "y"}\n', "json-syntax"),
        (b'{"id": "a",\n "label": "x"}\n', "json-syntax"),
        (b'{"id": 1.0, "label": "x"}\n', "id-type"),
        (b'{"id": "", "label": "x"}\n', "id-empty"),
        (b'{"id": " a", "label": "x"}\n', "id-space"),
        (b'{"id": "a", "label": "x\\u0000"}\n', "label-control"),
        (b'{"id": "a", "label": "x"}\n{"id": "a", "label": "y"}\n', "id-duplicate"),
        (b'{"id": "a", "label": "x"}\n\x00', "nul"),
        (b"\x1f\x8b\x08\x00garbage", "gzip"),
        (b"\xff\xfe{\x00a", "utf8"),
        (b"[]\n", "record-type"),
    ],
)
def test_reference_refuses(data: bytes, rule: str) -> None:
    """The reference's JSON lines refusals, each with its rule."""
    verdict = read_labels(data, "jsonl")
    assert getattr(verdict, "rule", None) == rule, verdict


def test_reference_reads_exactly() -> None:
    """Big integers stay exact, a BOM (UTF-8 or UTF-16) and CRLF are read through, gzip is transparent, and
    white space around a label is read but flagged."""
    import gzip

    assert _ids(read_labels(b'{"id": 18446744073709551616, "label": "x"}\n', "jsonl")) == ("18446744073709551616",)
    text = "8001\tOther\r\n8002\tCause-Effect(e1,e2)\r\n"
    for data in (text.encode(), b"\xef\xbb\xbf" + text.encode(), text.encode("utf-16"), gzip.compress(text.encode())):
        assert read_labels(data, "semeval-tsv") == LabelsRead(("8001", "8002"), ("Other", "Cause-Effect(e1,e2)"))
    spaced = read_labels(b"a\t x\n", "id-tsv")
    assert isinstance(spaced, LabelsRead) and spaced.labels == (" x",) and spaced.flags == {"label-space"}
    assert getattr(read_labels(b"a\tx\rb\ty\n", "id-tsv"), "rule", None) == "lone-cr"


def test_reference_csv() -> None:
    """RFC 4180: quoted fields hold delimiters, doubled quotes and line breaks; text after a closing quote is not
    CSV; the label column is picked by role."""
    data = b'id,prediction,text\n1,"a,b","say ""hi""\nthere"\n2,c,d\n'
    assert read_labels(data, "csv", role="pred") == LabelsRead(("1", "2"), ("a,b", "c"))
    assert getattr(read_labels(b'id,label\n1,"a"b\n', "csv"), "rule", None) == "csv-quote"
    assert getattr(read_labels(b"id,label\n1,a,b\n", "csv"), "rule", None) == "csv-columns"


def test_reference_e2e() -> None:
    """SpERT spans are end-exclusive and relations index entities; PURE/DyGIE++ offsets are inclusive and
    document-level, and become sentence-level end-exclusive ones."""
    spert = b'[{"tokens": ["a", "b"], "entities": [{"type": "T", "start": 0, "end": 2}], "orig_id": 7}]'
    read = read_e2e(spert, name="x.json")
    assert getattr(read, "splits", None) is not None
    assert read.splits[0][1][0].entities == ((0, 2, "T"),) and read.splits[0][1][0].id == "7"  # type: ignore[union-attr]
    bad = b'[{"tokens": ["a"], "entities": [{"type": "T", "start": 0, "end": 2}]}]'
    assert getattr(read_e2e(bad, name="x.json"), "rule", None) == "e2e-span"
    dygie = b'{"doc_key": "d", "sentences": [["a"], ["b", "c"]], "ner": [[], [[1, 2, "T"]]], "relations": [[], []]}\n'
    read = read_e2e(dygie + dygie.replace(b'"d"', b'"e"'), name="x.jsonl")
    docs = read.splits[0][1]  # type: ignore[union-attr]
    assert [d.id for d in docs] == ["d#0", "d#1", "e#0", "e#1"] and docs[1].entities == ((0, 2, "T"),)
    assert getattr(read_e2e(b'[{"tokens": [], "entities": [], "relations": 5}]', name="x"), "rule", None)


def test_oracle_catches_a_misreading_loader() -> None:
    """Planted bugs: a loader that drops an item, or rounds an id, is a misread; one that raises a bare
    exception is a traceback; one that refuses without a location where one exists is unlocated."""
    seed = next(s for s in oracle.loader_seeds() if s.format == "jsonl")
    ref = read_labels(seed.data, seed.format, role=seed.role)
    assert isinstance(ref, LabelsRead) and ref.ids is not None

    class Fake:
        format = "jsonl"

        def __init__(self, ids: list[str], labels: list[str]) -> None:
            self.ids, self.labels = ids, labels

    ids, labels = list(ref.ids), list(ref.labels)
    assert oracle.classify(seed, "jsonl", Fake(ids, labels), None, ref).klass is None
    assert oracle.classify(seed, "jsonl", Fake(ids[1:], labels[1:]), None, ref).klass == "misread:jsonl:count"
    assert oracle.classify(seed, "jsonl", Fake(["x", *ids[1:]], labels), None, ref).klass == "misread:jsonl:ids"
    crash = oracle.classify(seed, "jsonl", None, KeyError("id"), ref).klass
    assert crash is not None and crash.startswith("traceback:jsonl:KeyError")
    invalid = read_labels(b'{"id": "a", "label": 5}\n', "jsonl")
    from releval.core.errors import InputError

    assert (
        oracle.classify(seed, "jsonl", None, InputError("bad", file="f"), invalid).klass == "unlocated:jsonl:label-type"
    )
    assert oracle.classify(seed, "jsonl", None, InputError("bad", file="f", line=1), invalid).klass is None
