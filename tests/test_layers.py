"""The import layers hold: no package of src/releval imports one above it, and no package's modules import each other
in a cycle (both contracts are in pyproject.toml).

`lint-imports` (import-linter, in the test extra) runs from the interpreter's own environment, so the check uses
the version the test extra installed. The layers, highest first, and why they are ordered so are described in
docs/contributing.md.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from tests.conftest import REPO

CONFIG = REPO / "pyproject.toml"
PACKAGE = REPO / "src" / "releval"
# The console script's own entry point, for an environment whose scripts are elsewhere (a --user install).
_ENTRY_POINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def _lint_imports() -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec("importlinter") is None:
        pytest.skip("import-linter not installed (it is in the test extra)")
    script = Path(sysconfig.get_path("scripts")) / "lint-imports"
    command = [str(script)] if script.exists() else [sys.executable, "-c", _ENTRY_POINT]
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(NO_COLOR="1", TERM="dumb", COLUMNS="200")
    return subprocess.run(
        [*command, "--config", str(CONFIG), "--no-cache"], cwd=REPO, capture_output=True, text=True, env=env
    )


def _violations(output: str) -> list[str]:
    """The broken imports lint-imports lists ('- a.b -> c.d (l.12)', and each further link of an indirect chain),
    and its one-line errors (a stale ignore_imports line: 'No matches for ignored import ...')."""
    lines = [ln.strip() for ln in re.sub(r"\x1b\[[0-9;]*m", "", output).splitlines()]
    keep = re.compile(r"releval\S* -> releval|is not allowed to import|No matches")
    return [ln for ln in lines if keep.search(ln)]


def test_no_package_imports_a_layer_above_it() -> None:
    proc = _lint_imports()
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        found = "\n".join(_violations(output)) or output[-4000:]
        pytest.fail(
            "the import layers of pyproject.toml ([tool.importlinter]) are broken:\n"
            f"{found}\n"
            "Move what is imported down to a lower layer, or let the higher layer pass it in (docs/contributing.md). "
            "'No matches for ignored import' means an upward import was fixed: delete its ignore_imports line.",
            pytrace=False,
        )
    plain = re.sub(r"\x1b\[[0-9;]*m", "", output)  # import-linter 2.6 colours its output whatever NO_COLOR says
    assert "2 kept, 0 broken" in plain, plain[-4000:]
    assert "no import cycles between sibling modules KEPT" in plain  # every package's modules form no cycle


def test_every_package_is_seen_by_the_contract() -> None:
    """A directory of modules without an __init__.py (a namespace package) is invisible to import-linter: its
    imports would go unchecked."""
    directories = {p.parent for p in PACKAGE.rglob("*.py")}
    assert sorted(str(d.relative_to(REPO)) for d in directories if not (d / "__init__.py").exists()) == []


def test_the_contract_names_every_package() -> None:
    """Every subpackage and module of releval (but the package's own __init__, __main__ and _version) is in a
    layer, so a new package cannot escape the contract by not being listed."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        tomllib = pytest.importorskip("tomli")
    contract = tomllib.loads(CONFIG.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"][0]
    listed = {name.strip() for layer in contract["layers"] for name in layer.split("|")}
    present = {f"releval.{p.parent.name}" for p in PACKAGE.glob("*/*.py")}
    present |= {f"releval.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__", "_version")}
    assert present == listed
