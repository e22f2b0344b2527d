"""The code base stays ruff-clean (the rules are in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from tests.conftest import REPO


def test_ruff_reports_no_problems() -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff not installed (it is in the test extra)")
    proc = subprocess.run(
        [ruff, "check", "--output-format", "concise", "src", "tests", "benchmarks"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    problems = [ln for ln in proc.stdout.splitlines() if ln.count(":") >= 3]
    assert problems == []


def test_ruff_format_is_clean() -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff not installed (it is in the test extra)")
    proc = subprocess.run(
        [ruff, "format", "--check", "src", "tests", "benchmarks"], cwd=REPO, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
