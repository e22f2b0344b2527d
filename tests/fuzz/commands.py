"""Real command runs on mutated files: `releval.cli.main([...])` in-process, as a user's shell would run it.

Each case takes one scenario (score, stats, audit, score --task e2e, compare with two systems, …), mutates one of
its input files (or none, one time in ten), runs the command with `-f json -o <folder>/out/result.json` (the output
file existing beforehand half of the time) and checks the promise at the command line:

- the exit code is 0, 1 or 2, and nothing escapes `main` (an internal error is exit 3: a traceback in disguise);
- exit 2: stderr is one `error:` line — or the several-problems block InputErrors prints on purpose (its first line
  ends "N input problem(s):", the problems follow indented) — and the output file is not created, not changed,
  and no temporary file is left beside it;
- exit 0 or 1: the output file is complete (JSON that parses); and when the mutated file is invalid for the
  reference in every format the command could have read it as, exit 0 is a silently wrong score;
- the input files are byte-identical afterwards.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.fuzz.mutators import mutate
from tests.fuzz.oracle import Failure, Report, Verdict, format_label, run_chunked
from tests.fuzz.reference import Invalid, read_e2e, read_labels, read_pvalues, read_types
from tests.fuzz.seeds import seed_by_name

from releval import cli

SENTINEL = b"an earlier result that a failed run must leave alone\n"


@dataclass(frozen=True)
class Scenario:
    """A command line with placeholders {gold} {pred} {pred2} {out}, and the seed and role of each input slot."""

    name: str
    slots: tuple[tuple[str, str, str], ...]  # (slot, seed name, role)
    argv: tuple[str, ...]
    intact_exit: int = 0  # the exit code on the intact inputs (check-stats: 1, a published claim is inconsistent)


_JSON_OUT = ("-f", "json", "-o", "{out}")
KEY, RBERT, CNN = "semeval-tsv:test_key_30", "semeval-tsv:rbert_30", "semeval-tsv:cnn_30"
SCENARIOS: tuple[Scenario, ...] = (
    Scenario("score", (("gold", KEY, "gold"), ("pred", RBERT, "pred")), ("score", "{gold}", "{pred}", *_JSON_OUT)),
    Scenario(
        "score-blocks",
        (("gold", "semeval:test_full_30", "gold"), ("pred", RBERT, "pred")),
        ("score", "{gold}", "{pred}", *_JSON_OUT),
    ),
    Scenario(
        "score-jsonl",
        (("gold", "jsonl:gold", "gold"), ("pred", "jsonl:pred", "pred")),
        ("score", "{gold}", "{pred}", *_JSON_OUT),
    ),
    Scenario(
        "score-tacrev",
        (("gold", "tacrev-jsonl:gold", "gold"), ("pred", "tacrev-jsonl:pred", "pred")),
        ("score", "{gold}", "{pred}", *_JSON_OUT),
    ),
    Scenario(
        "score-csv", (("gold", "csv:gold", "gold"), ("pred", RBERT, "pred")), ("score", "{gold}", "{pred}", *_JSON_OUT)
    ),
    Scenario(
        "score-lines",
        (("gold", "labels-lines:tacred_25", "gold"), ("pred", "labels-lines:tacred_pred_25", "pred")),
        ("score", "{gold}", "{pred}", "--input-format", "labels-lines", "--by-position", *_JSON_OUT),
    ),
    Scenario(
        "score-patch",
        (
            ("gold", "tacred-json:20", "gold"),
            ("pred", "jsonl:pred_20", "pred"),
            ("patch", "tacred-json:patch_5", "gold"),
        ),
        ("score", "{gold}", "{pred}", "--patch", "{patch}", *_JSON_OUT),
    ),
    Scenario(
        "score-mixed",
        (("gold", "tsv:gold", "gold"), ("pred", "csv:pred_crlf", "pred")),
        ("score", "{gold}", "{pred}", *_JSON_OUT),
    ),
    Scenario("stats", (("gold", KEY, "gold"),), ("stats", "{gold}", *_JSON_OUT)),
    Scenario("stats-tacred", (("gold", "tacred-json:20", "gold"),), ("stats", "{gold}", *_JSON_OUT)),
    Scenario("stats-tsv", (("gold", "tsv:gold", "gold"),), ("stats", "{gold}", *_JSON_OUT)),
    Scenario(
        "audit", (("gold", KEY, "gold"), ("pred", RBERT, "pred")), ("audit", "run", "{gold}", "{pred}", *_JSON_OUT)
    ),
    Scenario(
        "audit-jsonl",
        (("gold", "jsonl:gold", "gold"), ("pred", "jsonl:pred", "pred")),
        ("audit", "run", "{gold}", "{pred}", *_JSON_OUT),
    ),
    Scenario(
        "score-e2e",
        (("gold", "spert:test_20", "gold"), ("pred", "spert:pred_20", "pred")),
        ("score", "--task", "e2e", "{gold}", "{pred}", *_JSON_OUT),
    ),
    Scenario(
        "score-e2e-dygie",
        (("gold", "dygie:gold", "gold"), ("pred", "dygie:pred", "pred")),
        ("score", "--task", "e2e", "{gold}", "{pred}", *_JSON_OUT),
    ),
    Scenario(
        "score-e2e-types",
        (("gold", "spert:test_20", "gold"), ("pred", "spert:pred_20", "pred"), ("types", "types:conll04", "gold")),
        ("score", "--task", "e2e", "{gold}", "{pred}", "--types", "{types}", *_JSON_OUT),
    ),
    Scenario("stats-e2e", (("gold", "spert:splits", "gold"),), ("stats", "{gold}", *_JSON_OUT)),
    Scenario(
        "replicability-csv",
        (("gold", "pvalues-csv:mate", "gold"),),
        ("replicability", "analyze", "{gold}", "--independent", *_JSON_OUT),
    ),
    Scenario(
        "replicability-json",
        (("gold", "pvalues-json:records", "gold"),),
        ("replicability", "analyze", "{gold}", *_JSON_OUT),
    ),
    Scenario(
        "check-stats",
        (("gold", "claims-csv:harbecke", "gold"),),
        ("check-stats", "--table", "{gold}", *_JSON_OUT),
        intact_exit=1,
    ),
    Scenario(
        "compare",
        (("gold", KEY, "gold"), ("pred", RBERT, "pred"), ("pred2", CNN, "pred")),
        ("compare", "{gold}", "-s", "a={pred}", "-s", "b={pred2}", "-t", "bootstrap", "-R", "50")
        + ("--correction", "none", *_JSON_OUT),
    ),
    Scenario(
        "compare-e2e",
        (("gold", "spert:test_20", "gold"), ("pred", "spert:pred_20", "pred"), ("pred2", "spert:test_20", "pred")),
        ("compare", "{gold}", "--task", "e2e", "-s", "a={pred}", "-s", "b={pred2}", "-R", "20")
        + ("--correction", "none", *_JSON_OUT),
    ),
)

# The formats a command may read a file of this seed format as (detection), for the "accepted but invalid" check.
PLAUSIBLE_FORMATS = {
    "semeval-tsv": ("semeval-tsv", "id-tsv"),
    "tacrev-jsonl": ("tacrev-jsonl", "jsonl"),
    "jsonl": ("jsonl", "tacrev-jsonl"),
    "tsv": ("tsv", "id-tsv"),
}


@dataclass(frozen=True)
class CommandCase:
    """One command run: the scenario, the slot mutated (None: all inputs intact), the mutators and bytes, whether
    the output file exists beforehand."""

    scenario: str
    slot: str | None
    mutators: tuple[str, ...]
    data: bytes
    gzipped: bool
    output_exists: bool


def make_case(seed: int, index: int) -> CommandCase:
    """Command case `index` of run `seed` (a function of the two numbers only)."""
    rng = random.Random(f"releval-fuzz-command:{seed}:{index}")
    scenario = rng.choice(SCENARIOS)
    if rng.random() < 0.1:
        return CommandCase(scenario.name, None, (), b"", False, rng.random() < 0.5)
    slot, seed_name, _ = rng.choice(scenario.slots)
    mutated = mutate(rng, seed_by_name(seed_name))
    return CommandCase(scenario.name, slot, mutated.names, mutated.data, mutated.gzipped, rng.random() < 0.5)


def _scenario(name: str) -> Scenario:
    return next(s for s in SCENARIOS if s.name == name)


def _reference_invalid(case: CommandCase, name: str) -> Invalid | None:
    """The reference's refusal of the mutated file in every format the command could have read it as, or None."""
    scenario = _scenario(case.scenario)
    _, seed_name, role = next(s for s in scenario.slots if s[0] == case.slot)
    seed = seed_by_name(seed_name)
    if seed.loader == "claims":
        return None  # no reference reader: the command-line checks still apply
    if seed.loader in ("e2e", "pvalues", "types"):
        verdict = {
            "e2e": lambda: read_e2e(case.data, name=name, role=role),
            "pvalues": lambda: read_pvalues(case.data, seed.format),
            "types": lambda: read_types(case.data),
        }[seed.loader]()
        return verdict if isinstance(verdict, Invalid) else None
    verdicts = [
        read_labels(case.data, fmt, role=role, id_field=seed.id_field, label_field=seed.label_field)
        for fmt in PLAUSIBLE_FORMATS.get(seed.format, (seed.format,))
    ]
    invalid = [v for v in verdicts if isinstance(v, Invalid)]
    return invalid[0] if len(invalid) == len(verdicts) else None


_INTERNAL = re.compile(r"internal error \((\w+)")


def run_command_case(case: CommandCase, folder: Path) -> tuple[Verdict, str]:
    """Write the inputs, run the command in-process, check exit code, stderr and files; (verdict, stderr)."""
    scenario = _scenario(case.scenario)
    files: dict[str, Path] = {}
    contents: dict[str, bytes] = {}
    for slot, seed_name, _ in scenario.slots:
        seed = seed_by_name(seed_name)
        mutated = slot == case.slot
        path = folder / (slot + seed.suffix + (".gz" if mutated and case.gzipped else ""))
        contents[slot] = case.data if mutated else seed.data
        path.write_bytes(contents[slot])
        files[slot] = path
    out = folder / "out" / "result.json"
    if case.output_exists:
        out.parent.mkdir()
        out.write_bytes(SENTINEL)
    argv = [a.format(**{k: str(v) for k, v in files.items()}, out=str(out)) for a in scenario.argv]
    stdout, stderr = io.StringIO(), io.StringIO()
    name = scenario.name
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = cli.main(argv)
    except BaseException as exc:  # noqa: BLE001 - nothing may escape main
        return Verdict("escaped", f"cmd-escaped:{name}:{type(exc).__name__}", repr(exc)[:300]), stderr.getvalue()
    err = stderr.getvalue()
    for slot, path in files.items():
        if path.read_bytes() != contents[slot]:
            return Verdict(f"exit {code}", f"cmd-input-damaged:{name}", f"{slot} changed"), err
    leftovers = [p.name for p in out.parent.glob("*") if p.name != out.name] if out.parent.exists() else []
    if leftovers:
        return Verdict(f"exit {code}", f"cmd-leftover-files:{name}", ", ".join(leftovers)), err
    if code not in (0, 1, 2):
        found = _INTERNAL.search(err)
        kind = found.group(1) if found else "?"
        return Verdict(f"exit {code}", f"cmd-exit-{code}:{name}:{kind}", err.strip()[:300]), err
    if "Traceback (most recent call last)" in err:
        return Verdict(f"exit {code}", f"cmd-traceback-printed:{name}", err[-300:]), err
    if code == 2:
        return _check_refusal(case, name, err, out), err
    return _check_success(case, name, code, out, files), err


def _check_refusal(case: CommandCase, name: str, err: str, out: Path) -> Verdict:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error:")]
    if len(errors) != 1 or lines[0] != errors[0]:
        return Verdict("exit 2", f"cmd-stderr-shape:{name}", err[:300])
    if len(lines) > 1 and not (
        re.search(r"\d+ input problem\(s\):$", lines[0]) and all(ln.startswith("  ") for ln in lines[1:])
    ):
        return Verdict("exit 2", f"cmd-stderr-shape:{name}", err[:300])
    if case.output_exists and out.read_bytes() != SENTINEL:
        return Verdict("exit 2", f"cmd-output-touched:{name}", "the earlier output file changed")
    if not case.output_exists and out.parent.exists():
        return Verdict("exit 2", f"cmd-output-touched:{name}", "an output file or folder was created")
    return Verdict("exit 2", None)


def _check_success(case: CommandCase, name: str, code: int, out: Path, files: dict[str, Path]) -> Verdict:
    outcome = f"exit {code}"
    if code == 0 or (out.exists() and out.read_bytes() != SENTINEL):
        try:
            json.loads(out.read_bytes())
        except (OSError, ValueError) as exc:
            return Verdict(outcome, f"cmd-output-broken:{name}", f"{type(exc).__name__}: {exc}"[:300])
    if case.slot is not None and code == 0:
        invalid = _reference_invalid(case, files[case.slot].name)
        if invalid is not None:
            fmt = format_label(seed_by_name(next(s for slot, s, _ in _scenario(name).slots if slot == case.slot)))
            return Verdict(outcome, f"cmd-accepted-invalid:{fmt}:{invalid.rule}", invalid.detail[:300])
    return Verdict(outcome, None)


def run_range(seed: int, start: int, stop: int) -> Report:
    """Command cases start..stop-1 of run `seed`, each in a fresh temporary folder."""
    report = Report()
    for index in range(start, stop):
        case = make_case(seed, index)
        with tempfile.TemporaryDirectory(prefix="releval-fuzz-cmd-") as tmp:
            verdict, _ = run_command_case(case, Path(tmp))
        report.count += 1
        report.outcomes[verdict.outcome] += 1
        if verdict.klass is not None:
            label = f"{case.scenario}/{case.slot}"
            report.record(Failure(verdict.klass, seed, index, label, case.mutators, verdict.detail))
    return report


def run(seed: int, count: int, workers: int = 2, chunk: int = 40) -> Report:
    """`count` command cases of run `seed` over `workers` processes."""
    return run_chunked(run_range, seed, count, workers, chunk)


def show_case(seed: int, index: int) -> None:
    """Replay one command case and print everything about it (`python -m tests.fuzz --command-case N`)."""
    case = make_case(seed, index)
    scenario = _scenario(case.scenario)
    print(f"command case {index} of run {seed}: {scenario.name} {' '.join(scenario.argv)}")
    print(f"mutated slot {case.slot} with {list(case.mutators)}; output existed: {case.output_exists}")
    print(f"{len(case.data)} bytes: {case.data[:600]!r}")
    with tempfile.TemporaryDirectory() as tmp:
        verdict, err = run_command_case(case, Path(tmp))
    print(f"verdict: {verdict}")
    print(f"stderr:\n{err}")
