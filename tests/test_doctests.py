"""The Examples in the public API's docstrings run, and print what they show (doctest)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import warnings

import pytest

#: Modules whose docstrings must hold examples (the public API); every other module's examples run too.
MODULES = [
    "releval.api",
    "releval.core.notices",
    "releval.core.options",
    "releval.core.errors",
    "releval.metrics.missing_bounds",
    "releval.significance.paired",
    "releval.significance.config",
    "releval.tasks.base",
    "releval.tasks.classification",
    "releval.tasks.e2e",
    "releval.tasks.semeval_official",
]


def _all_modules() -> list[str]:
    import releval

    found = [m.name for m in pkgutil.walk_packages(releval.__path__, "releval.") if m.name != "releval.__main__"]
    return sorted(set(found) | set(MODULES))


@pytest.fixture(scope="module")
def service_configured(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The service's modules define Django models and views, importable once Django is configured (here on an
    SQLite file of its own)."""
    pytest.importorskip("django", reason="the service extra is not installed")
    from releval.service import configure

    data = tmp_path_factory.mktemp("board")
    configure(f"sqlite:///{data / 'board.sqlite3'}", data)


@pytest.mark.parametrize("name", _all_modules())
def test_docstring_examples(name: str, request: pytest.FixtureRequest) -> None:
    if name.startswith("releval.service."):
        request.getfixturevalue("service_configured")
    module = importlib.import_module(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an example may fill missing predictions on purpose
        failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert attempted > 0 or name not in MODULES, f"{name} has no example"
    assert failed == 0, f"{failed} of {attempted} examples of {name} failed (run: python -m doctest -v)"
