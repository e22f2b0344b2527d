"""Every ```console block of README.md and docs/*.md runs, and prints what the docs show.

Worked examples go stale silently: a changed resampler or hash leaves the old numbers in the docs, and nothing
fails. Here each ``$ `` line of a ```console block is one test (id ``file:line``). A command continues on the
next line after a trailing backslash or inside an open quote; the lines after it, up to the next ``$ `` line or
the end of the block, are its expected output.

How a command runs. Each test gets a scratch copy of the repository root made of symlinks (``../shared`` too),
so the docs' relative paths work and files the examples write (``-o leaky.json``) land in a temporary directory,
never in the repository. The command runs under ``bash`` with ``releval`` and ``python`` on PATH meaning this
interpreter (``sys.executable -m releval`` and ``sys.executable``). A block's commands run in order in one shell
(once per test process; each command's test reads its own output), so a block is a shell session: variables, files
written and ``$?`` carry over. stderr
is merged into stdout (the notes and signatures the docs show are partly on stderr) and Python runs unbuffered,
so the interleaving is the order of the writes, as on a terminal.

What must hold:

* the exit status is 0 or 1 (releval's "findings" status: audit errors, differing datasets, inconsistent
  claims); 2 only when the expected output shows an error message (a line starting with ``error:``);
* the output matches after this normalisation: trailing whitespace is stripped from every line and trailing
  empty lines are dropped, on both sides; a line that is exactly ``...`` (indentation allowed) in the expected
  output matches any number of lines, none included. Everything else is exact, the version in signatures too.

A command that reads a path under ``../shared/`` that does not exist is skipped, with the path in the reason, so
a checkout without the shared data runs the bundled examples only.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHARED_PATH = re.compile(r"\.\./shared/[^\s,;:'\"$)`]*")
TIMEOUT_S = 120


@dataclass(frozen=True)
class Example:
    """One command of a console block: where it is, what runs before it in the block, and what it should print."""

    doc: str
    line: int
    command: str
    setup: tuple[str, ...]
    expected: tuple[str, ...]
    block: int = 0  # the line of the block's first command

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def _incomplete(command: str) -> bool:
    """A command goes on after a trailing backslash or while a quote is open (multi-line `python -c "…"`)."""
    if command.endswith("\\"):
        return True
    try:
        shlex.split(command)
    except ValueError:
        return True
    return False


def _block_examples(doc: str, body: list[tuple[int, str]]) -> list[Example]:
    """Split one console block (numbered lines) into commands and their expected output."""
    examples: list[Example] = []
    setup: list[str] = []
    i = 0
    while i < len(body):
        lineno, text = body[i]
        if not text.startswith("$ "):
            raise ValueError(f"{doc}:{lineno}: console block line outside a command: {text!r}")
        command = text[2:]
        i += 1
        while _incomplete(command) and i < len(body):
            command += "\n" + body[i][1]
            i += 1
        expected: list[str] = []
        while i < len(body) and not body[i][1].startswith("$ "):
            expected.append(body[i][1])
            i += 1
        block = examples[0].line if examples else lineno
        examples.append(Example(doc, lineno, command, tuple(setup), tuple(expected), block))
        setup.append(command)
    return examples


def collect(paths: list[Path] = DOC_FILES) -> list[Example]:
    """Every command of every ```console block in `paths`, in document order."""
    examples: list[Example] = []
    for path in paths:
        doc = path.relative_to(ROOT).as_posix()
        body: list[tuple[int, str]] | None = None
        for lineno, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if body is None:
                if text.strip() == "```console":
                    body = []
            elif text.strip() == "```":
                examples += _block_examples(doc, body)
                body = None
            else:
                body.append((lineno, text))
        if body is not None:
            raise ValueError(f"{doc}: unterminated console block")
    return examples


def _normalise(text: str) -> list[str]:
    """Trailing whitespace off every line, trailing empty lines off the end."""
    lines = [ln.rstrip() for ln in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(expected: list[str], actual: list[str]) -> bool:
    """`expected` equals `actual`, a line that is exactly `...` standing for any number of lines (0 included)."""
    parts = [r"(?:[^\n]*\n)*?" if ln.strip() == "..." else re.escape(ln) + r"\n" for ln in expected]
    return re.fullmatch("".join(parts), "".join(ln + "\n" for ln in actual)) is not None


def _missing_shared(example: Example) -> str | None:
    """The first `../shared/…` path the command (or its block's earlier commands) names that does not exist."""
    for text in (*example.setup, example.command):
        for path in SHARED_PATH.findall(text):
            if not (ROOT / path).exists():
                return path
    return None


def _scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A symlinked copy of the repository root (and of ../shared) to run in, and an environment whose PATH has
    `releval` and `python` shims for this interpreter."""
    work = tmp_path / "repo"
    work.mkdir()
    for entry in ROOT.iterdir():
        if entry.name != ".git":
            (work / entry.name).symlink_to(entry)
    shared = ROOT.parent / "shared"
    if shared.exists():
        (tmp_path / "shared").symlink_to(shared.resolve())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = shlex.quote(sys.executable)
    for name, body in (("releval", f'exec {python} -m releval "$@"'), ("python", f'exec {python} "$@"')):
        shim = bin_dir / name
        shim.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        shim.chmod(0o755)
    env = dict(os.environ)
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8")
    return work, env


EXAMPLES = collect()


def test_examples_are_collected() -> None:
    """The collector finds the worked examples (an empty parametrisation would pass silently)."""
    assert len(EXAMPLES) >= 10
    assert {e.doc for e in EXAMPLES} >= {"README.md", "docs/e2e.md", "docs/replicability.md"}


def test_only_tacred_examples_need_shared_data() -> None:
    """Every other worked example runs on files the repository ships, so a user's clone can run it."""
    named = {m.group(0) for e in EXAMPLES for m in SHARED_PATH.finditer(e.command)}
    assert named, "the TACRED examples name ../shared/data/tacred_labels"
    assert {p for p in named if not p.startswith("../shared/data/tacred_labels")} == set()


def test_matching_rules() -> None:
    """`...` matches zero or more lines; everything else is exact after trailing whitespace is stripped."""
    assert matches(["a", "...", "b"], ["a", "b"])
    assert matches(["a", "...", "b"], ["a", "x", "y", "b"])
    assert matches(["  ...", "b"], ["b"])
    assert not matches(["a", "...", "b"], ["a", "x"])
    assert not matches(["a", "b"], ["a", "b", "c"])
    assert not matches(["a.b"], ["axb"])
    assert _normalise("a  \nb\t\n\n\n") == ["a", "b"]


def test_block_parsing() -> None:
    """A trailing backslash or an open quote continues a command; a block's earlier commands are the setup."""
    body = list(enumerate(["$ a \\", "  b", "out", '$ python -c "', 'print(1)"', "1", "$ c"], start=1))
    first, second, third = _block_examples("x.md", body)
    assert (first.line, first.command, first.setup, first.expected) == (1, "a \\\n  b", (), ("out",))
    assert (second.line, second.command, second.expected) == (4, 'python -c "\nprint(1)"', ("1",))
    assert (third.setup, third.expected) == ((first.command, second.command), ())


def run_block(commands: tuple[str, ...], tmp_path: Path) -> list[tuple[int, str]]:
    """Run a block's commands in order in one shell, in a scratch copy under `tmp_path`: each one's (exit status,
    output). Each command's stdout and stderr go to its own file, in the order of the writes; `$?` after a command
    is its status, as in an interactive session."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash not installed")
    work, env = _scratch(tmp_path)
    outs = tmp_path / "outputs"
    outs.mkdir()
    script = "".join(
        f"{{\n{cmd}\n}} >{outs}/{i}.out 2>&1\nstatus=$?\necho $status >{outs}/{i}.status\n(exit $status)\n"
        for i, cmd in enumerate(commands)
    )
    subprocess.run([bash, "-c", script], cwd=work, env=env, stdin=subprocess.DEVNULL, timeout=TIMEOUT_S, check=False)
    ran = []
    for i, cmd in enumerate(commands):
        status = outs / f"{i}.status"
        assert status.exists(), f"the block stopped before this command: {cmd}"
        ran.append((int(status.read_text()), (outs / f"{i}.out").read_text(encoding="utf-8")))
    return ran


#: Each block's outputs, run once per test process when the first of its commands is tested: a block of n commands
#: runs n commands, not the n(n+1)/2 of running every command after its block's earlier ones.
_BLOCK_RUNS: dict[tuple[str, int], list[tuple[int, str]]] = {}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_console_example(example: Example, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The command exits 0 or 1 (2 only when an error is shown) and prints the documented output."""
    missing = _missing_shared(example)
    if missing is not None:
        pytest.skip(f"{missing} not available")
    key = (example.doc, example.block)
    if key not in _BLOCK_RUNS:
        block = [e for e in EXAMPLES if (e.doc, e.block) == key]
        _BLOCK_RUNS[key] = run_block((*block[-1].setup, block[-1].command), tmp_path_factory.mktemp("block"))
    status, output = _BLOCK_RUNS[key][len(example.setup)]
    expected, actual = _normalise("\n".join(example.expected)), _normalise(output)
    shows_error = any(ln.lstrip().startswith("error:") for ln in expected)
    if status not in ({0, 1, 2} if shows_error else {0, 1}):
        pytest.fail(f"{example.id}: exit status {status}\n$ {example.command}\n{output}", pytrace=False)
    if not matches(expected, actual):
        diff = "\n".join(difflib.unified_diff(expected, actual, "documented", "printed", lineterm=""))
        pytest.fail(f"{example.id}: the output differs from the docs\n$ {example.command}\n{diff}", pytrace=False)
