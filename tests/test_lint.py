"""The code base stays ruff-clean and mypy-clean (the rules are in pyproject.toml).

ruff runs from the interpreter's own environment (`python -m ruff`), so the check uses the version the test
extra installed, not whatever happens to be on PATH.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from tests.conftest import REPO

PATHS = ["src", "tests", "benchmarks"]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff not installed (it is in the test extra)")
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=REPO, capture_output=True, text=True)


def test_ruff_reports_no_problems() -> None:
    proc = _ruff("check", "--output-format", "concise", *PATHS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean() -> None:
    proc = _ruff("format", "--check", *PATHS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_reports_no_problems() -> None:
    """The package type-checks (settings in pyproject.toml's [tool.mypy], Python 3.10 semantics)."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy not installed (it is in the test extra)")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", "/dev/null"], cwd=REPO, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
