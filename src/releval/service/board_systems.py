"""A benchmark's stored test runs as the library's comparison functions take them: gold, {system: run} and the
task's Config for some measures — so a board's rank intervals and its evaluation of the measures are the library's
own functions (`Task.rank_intervals`, `Task.compare`, `Task.measure_draws`) over what the board stores, and give
the numbers `releval compare` gives on the uploaded files in the same order.

* relation classification (`rc`): gold's labels and each run's labels aligned to them (by position: the same items
  in the same order as the files aligned by id, so the same draws — tests/service/test_standings.py);
* end-to-end RE (`e2e`): gold's documents and each run's validated documents;
* any other task of the registry (DocRED, FewRel, …): gold's file (or folder) and each run written back to a file
  under its uploaded name, for the length of the call (releval.service.library_task).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from releval.service import scoring


@dataclass(frozen=True)
class Systems:
    """Gold, {name: run} (one run per system, in the order given) and the Config computing `measures`."""

    gold: Any
    runs: dict[str, Any]
    config: Any


@contextmanager
def stored_systems(
    bench: Any, stored: Mapping[str, bytes], spec: scoring.BenchmarkSpec, measures: Sequence[str]
) -> Iterator[Systems]:
    """`stored` ({name: what a run stores}) as the library reads runs, with gold and the Config of `measures`;
    files written for a library task are removed when the block ends."""
    from releval.service.board_tasks import E2ETask, RcTask, e2e_gold, rc_gold, task_of, unpack_run
    from releval.service.library_task import LibraryTask, _uploads

    adapter = task_of(bench.task)
    if isinstance(adapter, RcTask):
        yield Systems(
            list(rc_gold(bench).labels),
            {name: unpack_run(data)[0] for name, data in stored.items()},
            spec.config_for(measures),
        )
    elif isinstance(adapter, E2ETask):
        yield Systems(
            e2e_gold(bench),
            {name: adapter._pred(data) for name, data in stored.items()},
            adapter._config(spec, measures),
        )
    else:
        assert isinstance(adapter, LibraryTask)
        names = list(stored)
        with _uploads(*stored.values()) as paths:
            yield Systems(adapter._gold(bench), dict(zip(names, paths)), adapter._config(spec, measures))
