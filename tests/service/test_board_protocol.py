"""One task path for the board (issue 32, item 6): every task of the library's registry that the board evaluates —
relation classification and end-to-end RE with the board's own storage, every other task and a plugin through
their Task — is a `BoardTask` (releval.service.board_protocol), and a benchmark of it, created from the task's
bundled example (tests/test_replicability_tasks.py's files) and given one run, stores under every default measure
the value the library's `score_files` computes for the same files here, in another process, through the public
Task API (no board code).

The board runs in a subprocess of its own (its Django settings are configured once per process) on a fresh SQLite
file: `create_benchmark`, `submit` and the queue's jobs, as `releval serve` does them, without a web server.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from tests.test_replicability_tasks import CASES

import toy_task
from releval.core.errors import OptionError
from releval.registry import TASKS, get_task, register_task, unregister_task
from releval.service.board_protocol import BoardTask
from releval.service.board_tasks import board_tasks, task_of

TESTS = Path(__file__).resolve().parents[1]
#: Settings of a task's benchmark, the same for the library's Config: SemEval's negative class named (the board
#: and `score` would both detect it), the ranked example's duplicated predictions counted as OpenNRE counts them.
SETTINGS: dict[str, dict[str, Any]] = {"rc": {"negative": "Other"}, "ranked": {"duplicates": "count"}}

#: Gold's items as the board's own-storage tasks count them from their statistics: SemEval's 2,717 test items, the
#: 30 CoNLL04 sentences (documents) of the e2e example; the library tasks' are tests/service/test_library_task.py's.
N_ITEMS = {"rc": 2717, "e2e": 30}

BOARD = """
import json, sys
from pathlib import Path

from releval.service import configure

data = Path(sys.argv[1])
configure(f"sqlite:///{data / 'board.sqlite3'}", data)

from releval.registry import get_task
from releval.service import board as ops, queue, setup
from releval.service.models import Benchmark, Cell, Submitter

setup.migrate()
ops.create_submitter("tester", admin=True)
owner = Submitter.objects.get(name="tester")
out = {}
for task, (gold, run, settings) in json.loads(sys.stdin.read()).items():
    slug = f"b-{task}"
    content, name = get_task(task).gold_upload(Path(gold))
    ops.create_benchmark(slug, task, content, name, settings, task=task, resamples=20, open_=True)
    ops.submit(owner, slug, "A", Path(run).read_bytes(), Path(run).name, quota=False)
    queue.work(burst=True)
    bench = Benchmark.objects.get(slug=slug)
    cells = Cell.objects.filter(run__entry__benchmark=bench, measure__status="active")
    out[task] = {
        "n_items": bench.n_items,
        "stats": bench.stats,
        "measures": list(bench.measures.filter(status="active").values_list("name", flat=True)),
        "cells": {c.measure.name: c.value for c in cells},
    }
print(json.dumps(out))
"""


#: The toy plugin's `score_files` gives micro alone; its weighted F averages by hand (Harbecke et al. 2022, §3:
#: Σ w_i F_i / Σ w_i) on gold `a b a c` and A `a b b c`: class a (n 2) F 2/3, b (n 1) F 2/3, c (n 1) F 1, N = 4;
#: weighted w ∝ n, dodrans w ∝ n^0.75, entropy w ∝ −n·log2(n/N) (2, 2, 2: as macro), macro w = 1.
TOY_BY_HAND = {
    "micro": 0.75,
    "weighted": (2 * 2 / 3 + 2 / 3 + 1) / 4,
    "dodrans": (2**0.75 * 2 / 3 + 2 / 3 + 1) / (2**0.75 + 2),
    "entropy": 7 / 9,
    "macro": 7 / 9,
}


def library_value(result: Any, measure: str, config: Any) -> float:
    """The value of `measure` in a library Result, read from its own fields: a `criterion:average` of end-to-end
    RE, a named measure (ranked facts' `measures`, DocRED's `measures(config, distant)`), FewRel's accuracy, or an
    F average (micro, a weighting) of the per-class results."""
    criterion, colon, average = measure.partition(":")
    if colon and hasattr(result, "results"):  # E2EResult: one ScoreResult per criterion
        return float(result[criterion].averages[average].f)
    named = getattr(result, "measures", None)
    if callable(named):
        named = named(config, False)  # DocRED without distant train facts
    if isinstance(named, Mapping):
        return float(named[measure])
    if measure == "accuracy":
        return float(result.accuracy)
    return float(result.averages[measure].f)


@pytest.fixture
def with_toy():
    register_task(toy_task.TASK)
    try:
        yield toy_task.TASK
    finally:
        unregister_task("toy")


def _examples(tmp: Path) -> dict[str, tuple[str, str]]:
    """(gold, run) per task the board evaluates: the replicability matrix's files (its system A), the toy's here."""
    files = {name: make(tmp)[:2] for name, (make, _) in CASES.items()}
    (tmp / "toy_gold.txt").write_text("a b a c\n")
    (tmp / "toy_a.txt").write_text("a b b c\n")  # 3 of 4 tokens right: micro F 0.75
    files["toy"] = (str(tmp / "toy_gold.txt"), str(tmp / "toy_a.txt"))
    return files


def test_every_board_task_is_a_board_task_and_the_tasks_without_a_comparison_are_refused(with_toy) -> None:
    tasks = board_tasks()
    assert set(tasks) == {name for name in TASKS if get_task(name).compare is not None}
    assert "toy" in tasks and set(CASES) <= set(tasks)
    for name, task in tasks.items():
        assert isinstance(task, BoardTask), name
        assert task.name == name and task.default_measures, name
        assert task_of(name) is task or type(task_of(name)) is type(task)
        assert [task.check_measure(m) for m in task.default_measures] == list(task.default_measures)
    for name in set(TASKS) - set(tasks):  # semeval-official: a column of rc benchmarks, no board of its own
        with pytest.raises(OptionError, match="no paired comparison"):
            task_of(name)


def test_a_benchmark_of_every_board_task_scores_its_example_as_the_library_does(with_toy, tmp_path: Path) -> None:
    files = _examples(tmp_path)
    tasks = board_tasks()
    assert set(files) == set(tasks)
    request = {name: (gold, run, SETTINGS.get(name, {})) for name, (gold, run) in files.items()}
    done = subprocess.run(
        [sys.executable, "-c", BOARD, str(tmp_path / "board")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=600,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("RELEVAL_")},
            "RELEVAL_TASKS": "toy=toy_task:TASK",  # the plugin, known to no file of releval
            "PYTHONPATH": str(TESTS),
            "RELEVAL_SECRET_KEY": "test-key",
        },
    )
    assert done.returncode == 0, done.stderr[-4000:]
    board = json.loads(done.stdout)
    for name, (gold, run) in files.items():
        task = get_task(name)
        config = task.make_config(**SETTINGS.get(name, {}))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (result,) = task.score_files(gold, [("A", run)], config)
        got = board[name]
        assert got["measures"] == list(tasks[name].default_measures), name
        assert tasks[name].counted(got["stats"])[0] == got["n_items"], name
        assert got["n_items"] == N_ITEMS.get(name, got["n_items"]), name
        assert set(got["cells"]) == set(got["measures"]), (name, got)
        for measure in got["measures"]:
            if name == "toy":  # the plugin's score gives micro alone (equal to the hand's): its weightings by hand
                expected = TOY_BY_HAND[measure]
                assert measure != "micro" or library_value(result, measure, config) == expected
            else:
                expected = library_value(result, measure, config)
            assert math.isclose(got["cells"][measure], expected, rel_tol=1e-12, abs_tol=1e-15), (name, measure)
