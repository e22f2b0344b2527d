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
from collections.abc import Callable
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
    options every command is given with it (after `--task`)."""

    task: str
    name: str
    make: Callable[[Path], Files]
    phrase: str
    refused: bool = True
    options: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.task}: {self.name}"


def all_cases() -> list[Mistake]:
    """The cases of every module in this package."""
    out: list[Mistake] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        out.extend(getattr(module, "CASES", ()))
    return out
