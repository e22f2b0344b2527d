"""Every third-party import in src/ is declared, and the heavy ones load only when a command needs them.

The declared requirements are read from the installed package's metadata (built from pyproject.toml), the
imports from the source with `ast`, and the import-to-distribution map from `importlib.metadata` — so an
import that works only because the machine happens to have a package (a module imported from a distribution
that only another dependency happens to install) fails here, not in a user's fresh virtualenv.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata as md
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import EXAMPLES, REPO

SRC = REPO / "src" / "releval"
HEAVY = ("scipy", "statsmodels", "pandas", "matplotlib")
SEMEVAL = EXAMPLES / "semeval2010_task8"
SERVICE = "src/releval/service/"


def _normalise(name: str) -> str:
    """PEP 503 name normalisation: case and runs of -_. do not distinguish distributions."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> tuple[set[str], dict[str, set[str]]]:
    """(core requirements, {extra: requirements}) of the installed releval, as normalised names."""
    core: set[str] = set()
    extras: dict[str, set[str]] = {}
    for req in md.requires("releval") or []:
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        assert match, req
        name = _normalise(match.group(1))
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", req)
        if extra:
            extras.setdefault(extra.group(1), set()).add(name)
        else:
            core.add(name)
    return core, extras


class _Imports(ast.NodeVisitor):
    """Top-level names of absolute imports, each marked as run at import time or only inside a function."""

    def __init__(self) -> None:
        self.found: list[tuple[str, int, bool]] = []  # (module, line, at import time)
        self.depth = 0

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return  # read by type checkers only
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.found.append((alias.name.split(".")[0], node.lineno, self.depth == 0))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            self.found.append((node.module.split(".")[0], node.lineno, self.depth == 0))


def third_party_imports() -> list[tuple[str, str, bool]]:
    """(module, 'file:line', at import time) for every import of a module outside the stdlib and releval."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        visitor = _Imports()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        for module, line, eager in visitor.found:
            if module in sys.stdlib_module_names or module in ("releval", "__future__"):
                continue
            out.append((module, f"{path.relative_to(REPO)}:{line}", eager))
    return out


@functools.cache
def _module_map() -> dict[str, set[str]]:
    """Top-level module -> distributions, from each distribution's list of installed files.

    (`importlib.metadata.packages_distributions` reads only `top_level.txt` on Python 3.10, which wheels built
    by meson or maturin — NumPy, SciPy, orjson — do not have.)
    """
    out: dict[str, set[str]] = {}
    for dist in md.distributions():
        dist_name = dist.metadata["Name"]  # METADATA is parsed again on every access: once per distribution
        for file in dist.files or []:
            top = file.parts[0]
            if top.endswith((".dist-info", ".egg-info", ".data")) or top in ("..", "__pycache__"):
                continue
            name = top.removesuffix(".py") if len(file.parts) == 1 else top
            if len(file.parts) == 1 and not top.endswith((".py", ".so", ".pth")):
                continue
            out.setdefault(name.split(".")[0], set()).add(dist_name)
    return out


def distributions_of(module: str) -> set[str]:
    """The normalised names of the installed distributions that provide a top-level module."""
    return {_normalise(d) for d in _module_map().get(module, [])}


def test_the_source_imports_third_party_packages() -> None:
    """The scan itself finds the imports it must (so an empty scan cannot pass the checks below)."""
    modules = {m for m, _, _ in third_party_imports()}
    assert {"numpy", "scipy", "click", "rich", "orjson", "msgspec", "matplotlib", "pandas"} <= modules


def test_every_import_is_declared() -> None:
    core, extras = declared()
    optional = set().union(*(names for extra, names in extras.items() if extra != "test"))
    problems = []
    for module, where, eager in third_party_imports():
        dists = distributions_of(module)
        # releval.service is the `service` extra's own package: only its commands import it, inside a function
        # (test_the_service_package_loads_only_for_its_commands), so its modules may import Django at the top.
        eager = eager and not (where.startswith(SERVICE) and dists & extras["service"])
        if not dists:
            problems.append(f"{where}: {module} is imported but no installed distribution provides it")
        elif eager and not dists & core:
            problems.append(f"{where}: {module} is imported at module level but {sorted(dists)} is not a dependency")
        elif not dists & (core | optional):
            problems.append(f"{where}: {module} ({sorted(dists)}) is neither a dependency nor in an optional extra")
    assert problems == []


def test_every_declared_dependency_is_used() -> None:
    core, extras = declared()
    used = set().union(*(distributions_of(m) for m, _, _ in third_party_imports()))
    assert core - used == set()
    assert extras["plot"] | extras["frame"] <= used


def test_optional_packages_are_imported_lazily() -> None:
    core, extras = declared()
    eager_optional = [
        (m, where)
        for m, where, eager in third_party_imports()
        if eager and distributions_of(m) & (extras["plot"] | extras["frame"]) - core
    ]
    assert eager_optional == []


def test_no_typer_and_rich_only_when_drawing() -> None:
    """The command line is plain click: typer (0.29 imports pydantic, and rich's Markdown for every help) is gone,
    and rich, which draws `compare`'s progress bar, is imported inside the function that draws it."""
    assert [where for m, where, _ in third_party_imports() if m in ("typer", "pydantic")] == []
    assert [where for m, where, eager in third_party_imports() if m == "rich" and eager] == []


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        ["audit", "--help"],
        ["claims", "list"],
        ["compare", "--help"],
        ["score", str(SEMEVAL / "test_key_directed.txt"), str(SEMEVAL / "onehaitao_cnn.txt")],
        ["stats", str(SEMEVAL / "test_key_directed.txt")],
    ],
    ids=lambda argv: " ".join(Path(a).name for a in argv),
)
def test_commands_start_without_heavy_imports(argv: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "releval", *argv], capture_output=True, text=True, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {ln.rsplit("|", 1)[-1].strip().split(".")[0] for ln in proc.stderr.splitlines() if "|" in ln}
    assert "releval" in imported  # the import log was read
    assert imported & set(HEAVY) == set()


def test_the_service_package_loads_only_for_its_commands() -> None:
    """Outside src/releval/service, nothing imports releval.service or Django at module level, and the service
    commands' help loads neither (a user without the `service` extra gets every other command)."""
    eager = [
        where
        for m, where, is_eager in third_party_imports()
        if is_eager and m in ("django", "waitress", "psycopg") and not where.startswith(SERVICE)
    ]
    assert eager == []
    script = (
        "import contextlib, io, sys; from releval import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()): code = cli.main(sys.argv[1:])\n"
        "print(code, *sorted(sys.modules))"
    )
    for argv in (["serve", "--help"], ["submit", "--help"], ["--help"]):
        proc = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, cwd=REPO)
        code, *imported = proc.stdout.split()
        assert code == "0", proc.stderr[-2000:]
        assert ("releval.commands.service" in imported) == (argv != ["--help"])
        assert [
            m for m in imported if m.split(".")[0] in ("django", "waitress") or m.startswith("releval.service")
        ] == []


@pytest.mark.parametrize("argv", [[], ["audit"], ["claims"], ["replicability"]], ids=lambda a: " ".join(a) or "bare")
def test_a_group_without_arguments_prints_its_help(argv: list[str]) -> None:
    """click >= 8.2 raises for a group called without a command (NoArgsIsHelpError) where older click printed the
    help and exited 0: both print the help, exit 0."""
    proc = subprocess.run([sys.executable, "-m", "releval", *argv], capture_output=True, text=True, cwd=REPO)
    assert (proc.returncode, "Traceback" in proc.stderr) == (0, False), proc.stderr[-2000:]
    assert "Usage: releval" in proc.stdout
