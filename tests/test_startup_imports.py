"""Start-up stays light: what `import releval` and `releval --version` load, checked by module, never by time.

Timing belongs to `benchmarks/bench_startup.py`; here a subprocess reports which modules it imported, so a new
eager import of NumPy (or of click, for `--version`) fails the suite on any machine, busy or not. The command line
is plain click: typer (which imports pydantic) and rich (whose Markdown support typer loaded for every help) are
imported by no start-up path; rich draws `compare`'s progress bar only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SEMEVAL = REPO / "examples" / "semeval2010_task8"
#: Loaded only by the commands and functions that compute with them.
HEAVY = ("numpy", "scipy", "statsmodels", "pandas", "matplotlib")
#: The command-line frameworks start-up must not pay for (typer and pydantic are not even dependencies any more).
FRAMEWORKS = ("typer", "pydantic", "rich")


def _imported_after(code: str) -> set[str]:
    """The top-level packages in sys.modules after running `code` in a fresh interpreter."""
    script = f"import sys\n{code}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    return set(proc.stdout.split())


def _imported_by_command(argv: list[str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """A `python -X importtime -m releval ARGV` run and the top-level packages it imported."""
    proc, modules = _modules_of_command(argv)
    return proc, {m.split(".")[0] for m in modules}


def _modules_of_command(argv: list[str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """A `python -X importtime -m releval ARGV` run and the modules it imported, by their full names."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "releval", *argv], capture_output=True, text=True, cwd=REPO
    )
    modules = {ln.rsplit("|", 1)[-1].strip() for ln in proc.stderr.splitlines() if "|" in ln}
    assert "releval" in modules  # the import log was read
    return proc, modules


def test_import_releval_loads_no_numpy() -> None:
    assert _imported_after("import releval") & set(HEAVY) == set()


def test_public_names_resolve_lazily_and_load_numpy_only_then() -> None:
    code = (
        "import sys, releval\n"
        "print('before', 'numpy' in sys.modules)\n"
        "print(releval.score.__module__, releval.ScoreResult.__name__, releval.signature.__name__)\n"
        "print('after', 'numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["before False", "releval.api ScoreResult releval.core.signature", "after True"]


def test_import_releval_cli_builds_no_app() -> None:
    """The command line's module imports no click: the group is built on first use."""
    assert _imported_after("import releval.cli") & {"click", *FRAMEWORKS, *HEAVY} == set()


def test_building_the_group_imports_no_command_module() -> None:
    """The group knows its commands by name; a command's module is imported when the command is looked up."""
    code = (
        "import sys, releval.cli\n"
        "releval.cli.app\n"
        "print(sorted(m for m in sys.modules if m.startswith('releval.commands.') and m != 'releval.commands.base'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.split() == ["[]"]


@pytest.mark.parametrize("argv", [["--version"]], ids=["--version"])
def test_version_prints_without_click_or_numpy(argv: list[str]) -> None:
    proc, imported = _imported_by_command(argv)
    assert (proc.returncode, proc.stdout) == (0, f"releval {_version()}\n")
    assert imported & {"click", *FRAMEWORKS, *HEAVY} == set()


def test_version_through_the_app_prints_the_same_line() -> None:
    """`--version` with anything after it goes through click's eager option: same line, same exit code."""
    fast = subprocess.run([sys.executable, "-m", "releval", "--version"], capture_output=True, text=True)
    app = subprocess.run([sys.executable, "-m", "releval", "--version", "score"], capture_output=True, text=True)
    expected = (0, f"releval {_version()}\n", "")
    assert (fast.returncode, fast.stdout, fast.stderr) == (app.returncode, app.stdout, app.stderr) == expected


def test_version_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    from releval.cli import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"releval {_version()}\n"


def test_score_help_loads_no_statistics_module_and_no_framework() -> None:
    """Nor the modules of the other commands: the group imports a command's module when it is looked up."""
    proc, modules = _modules_of_command(["score", "--help"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Usage: releval score" in proc.stdout
    assert {m.split(".")[0] for m in modules} & {*FRAMEWORKS, *HEAVY} == set()
    assert {m for m in modules if m.startswith("releval.commands.")} <= {
        "releval.commands.base",
        "releval.commands.common",
        "releval.commands.inputs",  # the input options every reading command shares
        "releval.commands.progress",  # the --progress option of the long commands (rich only when a bar is drawn)
        "releval.commands.score",
        "releval.commands.settings",  # the setting options every scoring command shares
    }


def test_semeval_official_run_loads_no_statistics_module_and_no_framework() -> None:
    argv = ["score", "--task", "semeval-official", str(SEMEVAL / "test_key_directed.txt")]
    proc, imported = _imported_by_command([*argv, str(SEMEVAL / "onehaitao_cnn.txt")])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "onehaitao_cnn     79.26" in proc.stdout  # the official macro-F1 of tests/data/README.md
    assert imported & {*FRAMEWORKS, "scipy", "statsmodels", "pandas", "matplotlib"} == set()


@pytest.mark.parametrize("argv", [["--help"], []], ids=["--help", "bare"])
def test_the_command_list_imports_no_command_module(argv: list[str]) -> None:
    """`releval --help` lists the commands from releval.cli's summaries, without importing their modules."""
    proc, modules = _modules_of_command(argv)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "check-stats" in proc.stdout
    assert {m for m in modules if m.startswith("releval.commands.")} <= {"releval.commands.base"}
    assert {m.split(".")[0] for m in modules} & {*FRAMEWORKS, *HEAVY} == set()


def test_the_command_list_says_what_each_command_says() -> None:
    """Each summary in releval.cli is the first paragraph of its command's help."""
    from releval import cli
    from releval.commands.base import first_paragraph

    cli.register_commands([])
    assert list(cli._SUMMARIES) == list(cli._COMMANDS)
    for name, summary in cli._SUMMARIES.items():
        assert summary == first_paragraph(cli.app.commands[name].help), name


@pytest.mark.parametrize("argv", [["--help"], ["compare", "--help"]], ids=" ".join)
def test_help_loads_no_framework(argv: list[str]) -> None:
    """Not even the help of `compare`, whose progress bar is rich's (imported when the bar is drawn)."""
    proc, imported = _imported_by_command(argv)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Usage: releval" in proc.stdout
    assert imported & set(FRAMEWORKS) == set()


def _version() -> str:
    from releval import __version__

    return __version__


def _task_modules(name: str) -> set[str]:
    """The modules under releval.tasks that define a registered task's Config and its bases."""
    from releval.registry import get_task

    return {c.__module__ for c in get_task(name).config.__mro__ if c.__module__.startswith("releval.tasks.")}


def _example_runs() -> list[tuple[str, Any, tuple[str, ...]]]:
    from tests.test_replicability_tasks import CASES

    semeval = (lambda tmp: (str(SEMEVAL / "test_key_directed.txt"), str(SEMEVAL / "onehaitao_cnn.txt"), ""), ())
    return [(name, files, args) for name, (files, args) in {**CASES, "semeval-official": semeval}.items()]


@pytest.mark.parametrize(("name", "files", "args"), _example_runs(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_one_file_score_imports_no_other_tasks_module(name: str, files: Any, args: tuple[str, ...], tmp_path) -> None:
    """Issue 32: a one-file `score --task T` imports T's own task modules (its Config's and their bases') and the
    shared ones, never the module of another registered task."""
    from releval.registry import TASKS

    gold, pred, _ = files(tmp_path)
    proc, modules = _modules_of_command(["score", "--task", name, gold, pred, *args])
    assert proc.returncode == 0, proc.stderr[-2000:]
    own = _task_modules(name)
    others = set().union(*(_task_modules(other) for other in TASKS if other != name)) - own - {"releval.tasks.base"}
    assert own <= modules, own - modules  # the import log names the task's own modules: it was read
    assert not modules & others, sorted(modules & others)
