"""Mistaken inputs of every task family, as data: each module of this package lists its family's cases in `CASES`,
and tests/test_task_mistakes.py runs every case through every command that reads predictions for that task
(releval.commands.inputs.READERS), so a new family — or a new command — is in the matrix without editing the runner.

A case writes its files into a temporary folder and says what every command must do with them: refuse (exit 2,
nothing on standard output, `phrase` in the error) or warn (a number shown, exit 0, `phrase` in the warning). The
phrase is the name of the mistake, never a generic word, so a wrong diagnosis fails the test.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Files:
    """A case's inputs: gold (a file or a folder), the mistaken prediction, and a second prediction for the
    commands that need two systems (compare, replicability) — mistaken the same way, or a valid one."""

    gold: Path
    pred: Path
    pred2: Path


@dataclass(frozen=True)
class Mistake:
    """One mistaken input of one task: `make(folder)` writes its files; `refused` says whether every command
    refuses it (else it warns); `phrase` is what the refusal or warning must say; `options` are extra command-line
    options every command is given with it (after `--task`); `plugin` the task it registers, if any."""

    task: str
    name: str
    make: Callable[[Path], Files]
    phrase: str
    refused: bool = True
    options: tuple[str, ...] = ()
    #: A plugin task (written against the extension API alone) that the case registers while it runs, and while
    #: the matrix asks which commands read it; None: a task releval ships.
    plugin: object | None = None

    @property
    def id(self) -> str:
        return f"{self.task}: {self.name}"


@contextmanager
def registered(plugin: object | None) -> Iterator[None]:
    """The case's plugin task registered for the block (nothing for a task releval ships)."""
    if plugin is None:
        yield
        return
    from releval.registry import register_task, unregister_task

    register_task(plugin)  # type: ignore[arg-type]
    try:
        yield
    finally:
        unregister_task(plugin.name)  # type: ignore[attr-defined]


def all_cases() -> list[Mistake]:
    """The cases of every module in this package."""
    out: list[Mistake] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        out.extend(getattr(module, "CASES", ()))
    return out
