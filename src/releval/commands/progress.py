"""The progress bar of the long commands (`score` of several systems, `compare`, `replicability from-predictions`,
`replicability simulate`).

The library computes and never draws: its long functions take `progress`, a callable that they call with the
number of steps just done (`advance(n)`). This module is the command line's side: `progress_bar` yields such a
callable that moves a bar on stderr with the elapsed time and the estimated time left (rich, imported only when
a bar is drawn), or None when no bar is wanted. A bar is drawn only on a terminal: a run whose stderr is a file or
a pipe (CI logs, `2> log`) gets none, and its stderr is byte for byte that of a run with `--no-progress`. The bar
is transient: it is erased when the run ends, so the terminal keeps the result and the warnings only.

Whether to draw: `--no-progress` never does, `--progress` does whenever stderr is a terminal, and without either
`RELEVAL_NO_PROGRESS=1` (any value but empty or 0) turns the bar off.

>>> with progress_bar(3, "testing", show=False) as advance:
...     advance is None
True
>>> progress_wanted(False), progress_wanted(None, environ={NO_PROGRESS_VARIABLE: "1"})
(False, False)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TextIO, TypeVar, overload

import click

#: Set to anything but empty or 0, it turns the bar off unless `--progress` is given.
NO_PROGRESS_VARIABLE = "RELEVAL_NO_PROGRESS"

#: What the library's long functions call with the number of steps just done.
Advance = Callable[[int], None]


def progress_option() -> Callable[[Any], Any]:
    """The `--progress/--no-progress` option of every long command (None when neither is given)."""
    return click.option(
        "--progress/--no-progress",
        "progress",
        default=None,
        help=f"Progress bar with ETA on stderr (default: when stderr is a terminal and {NO_PROGRESS_VARIABLE} "
        "is not set).",
    )


def progress_wanted(flag: bool | None, stream: TextIO | None = None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to draw: the flag when given, else not under RELEVAL_NO_PROGRESS, else when `stream` (stderr) is a
    terminal. Even when wanted, nothing is drawn on a stream that is not a terminal (`progress_bar`)."""
    if flag is not None:
        return flag
    env = os.environ if environ is None else environ
    if env.get(NO_PROGRESS_VARIABLE, "").strip() not in ("", "0"):
        return False
    out = sys.stderr if stream is None else stream
    return bool(out.isatty())


@contextmanager
def progress_bar(total: int, description: str, show: bool) -> Iterator[Advance | None]:
    """A bar of `total` steps on stderr while the block runs, yielding `advance(n=1)`; None when `show` is false,
    `total` is not positive or stderr is not a terminal (then nothing at all is written)."""
    if not show or total <= 0 or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task(description, total=total)

    def advance(n: int = 1) -> None:
        bar.advance(task, n)

    bar.start()
    try:
        yield advance
    finally:
        bar.stop()


_T = TypeVar("_T")


class Counted(Sequence[_T]):
    """A sequence that calls `advance(1)` each time the loop over it is done with an item (when it asks for the
    next one, or ends): the bar of a library function that takes a sequence of inputs and reports nothing, such
    as a task's `score_files` over the systems of `releval score`. Indexing and len() are the items' own.

    >>> steps = []
    >>> [x * 10 for x in Counted([1, 2, 3], steps.append)], steps
    ([10, 20, 30], [1, 1, 1])
    """

    def __init__(self, items: Sequence[_T], advance: Advance | None) -> None:
        self._items = list(items)
        self._advance = advance

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> _T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[_T]: ...

    def __getitem__(self, index: int | slice) -> _T | Sequence[_T]:
        return self._items[index]

    def __iter__(self) -> Iterator[_T]:
        for item in self._items:
            yield item
            if self._advance is not None:
                self._advance(1)
