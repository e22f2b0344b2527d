"""Kinds of evaluation (tasks): relation classification, the SemEval-2010 Task 8 official scorer, end-to-end RE.

Each module defines its frozen Config, its scoring and its `TASK` (releval.tasks.base.Task), and this registry
names it: adding a kind of evaluation is one module plus one line in `TASKS`. Tasks are imported when first asked
for, so `releval --help` loads none of them.

A task of another package (a plugin) is named in the environment: `RELEVAL_TASKS="name=module:attribute,…"` adds
it to the registry of every releval process that sees the variable — the command line, and the board's server and
workers (`releval serve`), which is how a board gets a benchmark of a task releval does not ship.

>>> sorted(TASKS)
['e2e', 'fewrel', 'rc', 'semeval-official']
>>> get_task("e2e").unit
'document'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from releval.core.errors import OptionError

if TYPE_CHECKING:
    from releval.tasks.base import Task

#: Every task: its `--task` name → "module:attribute" of its Task object.
TASKS: dict[str, str] = {
    "rc": "releval.tasks.classification:TASK",
    "semeval-official": "releval.tasks.semeval_official:OFFICIAL_TASK",
    "e2e": "releval.tasks.e2e:TASK",
    "fewrel": "releval.tasks.fewrel:TASK",
}

_LOADED: dict[str, Task] = {}


def plugin_tasks(text: str) -> dict[str, str]:
    """The tasks named by a `RELEVAL_TASKS` value: `name=module:attribute` entries separated by commas.

    >>> plugin_tasks("toy=my_pkg.toy:TASK, other=x:T")
    {'toy': 'my_pkg.toy:TASK', 'other': 'x:T'}
    """
    out = {}
    for entry in filter(None, (e.strip() for e in text.split(","))):
        name, eq, reference = (part.strip() for part in entry.partition("="))
        if not (eq and name and ":" in reference):
            raise OptionError(f"RELEVAL_TASKS: {entry!r} is not name=module:attribute", option="RELEVAL_TASKS")
        out[name] = reference
    return out


def _add_plugins(strict: bool = True) -> None:
    """The tasks of RELEVAL_TASKS added to the registry (a malformed value: an OptionError when `strict`; at
    import it waits for the name it spoils to be asked for)."""
    import os

    try:
        plugins = plugin_tasks(os.environ.get("RELEVAL_TASKS", ""))
    except OptionError:
        if strict:
            raise
        return
    for name, reference in plugins.items():
        TASKS.setdefault(name, reference)  # a plugin never replaces a task releval ships


_add_plugins(strict=False)


def get_task(name: str) -> Task:
    """The registered task called `name` (an OptionError listing the tasks for any other name)."""
    if name not in _LOADED:
        if name not in TASKS:
            _add_plugins()
        if name not in TASKS:
            raise OptionError(f"task: {name!r} is not one of {', '.join(TASKS)}", option="task")
        module, _, attribute = TASKS[name].partition(":")
        try:
            task = getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError) as exc:
            raise OptionError(f"task {name!r}: {TASKS[name]} cannot be imported ({exc})", option="task") from None
        _LOADED[name] = task
    return _LOADED[name]


def register_task(task: Task, module: str = "") -> None:
    """Register a task object under its name (a plugin's, or a test's toy task); `unregister_task` removes it."""
    TASKS[task.name] = module or f"<{task.name}>"
    _LOADED[task.name] = task


def unregister_task(name: str) -> None:
    """Remove a task registered with `register_task`."""
    TASKS.pop(name, None)
    _LOADED.pop(name, None)
