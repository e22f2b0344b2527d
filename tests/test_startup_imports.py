"""Start-up stays light: what `import releval` and `releval --version` load, checked by module, never by time.

Timing belongs to `benchmarks/bench_startup.py`; here a subprocess reports which modules it imported, so a new
eager import of NumPy (or of typer, for `--version`) fails the suite on any machine, busy or not.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SEMEVAL = REPO / "examples" / "semeval2010_task8"
#: Loaded only by the commands and functions that compute with them.
HEAVY = ("numpy", "scipy", "statsmodels", "pandas", "matplotlib")


def _imported_after(code: str) -> set[str]:
    """The top-level packages in sys.modules after running `code` in a fresh interpreter."""
    script = f"import sys\n{code}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    return set(proc.stdout.split())


def _imported_by_command(argv: list[str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """A `python -X importtime -m releval ARGV` run and the top-level packages it imported."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "releval", *argv], capture_output=True, text=True, cwd=REPO
    )
    imported = {ln.rsplit("|", 1)[-1].strip().split(".")[0] for ln in proc.stderr.splitlines() if "|" in ln}
    assert "releval" in imported  # the import log was read
    return proc, imported


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
    """The command line's module imports neither typer nor rich: the app is built on first use."""
    assert _imported_after("import releval.cli") & {"typer", "rich", "click", "pydantic", *HEAVY} == set()


@pytest.mark.parametrize("argv", [["--version"]], ids=["--version"])
def test_version_prints_without_typer_or_numpy(argv: list[str]) -> None:
    proc, imported = _imported_by_command(argv)
    assert (proc.returncode, proc.stdout) == (0, f"releval {_version()}\n")
    assert imported & {"typer", "rich", "click", "pydantic", *HEAVY} == set()


def test_version_through_the_app_prints_the_same_line() -> None:
    """`--version` with anything after it goes through typer's eager option: same line, same exit code."""
    fast = subprocess.run([sys.executable, "-m", "releval", "--version"], capture_output=True, text=True)
    app = subprocess.run([sys.executable, "-m", "releval", "--version", "score"], capture_output=True, text=True)
    expected = (0, f"releval {_version()}\n", "")
    assert (fast.returncode, fast.stdout, fast.stderr) == (app.returncode, app.stdout, app.stderr) == expected


def test_version_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    from releval.cli import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"releval {_version()}\n"


def test_score_help_loads_no_statistics_module() -> None:
    proc, imported = _imported_by_command(["score", "--help"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Usage: releval score" in proc.stdout
    assert imported & {"scipy", "statsmodels", "pandas", "matplotlib"} == set()


def test_semeval_official_run_loads_no_statistics_module() -> None:
    argv = ["score", "--task", "semeval-official", str(SEMEVAL / "test_key_directed.txt")]
    proc, imported = _imported_by_command([*argv, str(SEMEVAL / "onehaitao_cnn.txt")])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "macro-averaged F1" in proc.stdout
    assert imported & {"scipy", "statsmodels", "pandas", "matplotlib"} == set()


def _version() -> str:
    from releval import __version__

    return __version__
