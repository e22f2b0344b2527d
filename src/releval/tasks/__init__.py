"""Kinds of evaluation (tasks): relation classification, the SemEval-2010 Task 8 official scorer, end-to-end RE.

Each module defines its frozen Config, its scoring and its `TASK` (releval.tasks.base.Task), and this registry
names it: adding a kind of evaluation is one module plus one line in `TASKS`. Tasks are imported when first asked
for, so `releval --help` loads none of them.

>>> sorted(TASKS)
['docred', 'e2e', 'rc', 'semeval-official']
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
    "docred": "releval.tasks.docred:TASK",
}

_LOADED: dict[str, Task] = {}


def get_task(name: str) -> Task:
    """The registered task called `name` (an OptionError listing the tasks for any other name)."""
    if name not in _LOADED:
        if name not in TASKS:
            raise OptionError(f"task: {name!r} is not one of {', '.join(TASKS)}", option="task")
        module, _, attribute = TASKS[name].partition(":")
        _LOADED[name] = getattr(importlib.import_module(module), attribute)
    return _LOADED[name]


def register_task(task: Task, module: str = "") -> None:
    """Register a task object under its name (a plugin's, or a test's toy task); `unregister_task` removes it."""
    TASKS[task.name] = module or f"<{task.name}>"
    _LOADED[task.name] = task


def unregister_task(name: str) -> None:
    """Remove a task registered with `register_task`."""
    TASKS.pop(name, None)
    _LOADED.pop(name, None)
