"""Every output format of `score` and `compare` for every registered task with a comparison (the matrix of
tests/test_replicability_tasks.py: each task on its bundled example, systems A and B).

The reference value is each system's headline measure as `releval compare --task NAME -f json` reports it (checked
against the benchmarks' own scorers in each family's tests). What must hold, in every format of both commands:

* text, markdown and LaTeX show it as a percentage with two decimals (``100 v`` rounded), for A and for B;
* CSV and JSON carry the exact float (to 1e-12), for A and for B;

so `score` and `compare` agree on the point estimate of each system, and no renderer drops or rounds away a task's
headline number. Small files and few resamples keep each case fast.
"""

from __future__ import annotations

import csv
import functools
import json
from pathlib import Path
from typing import Any

import pytest
from tests.test_replicability_tasks import CASES, run

from releval.core.options import OUTPUT_FORMATS
from releval.registry import get_task

R = "30"


@functools.cache
def _files(task: str, tmp: str) -> tuple[str, str, str]:
    files, _ = CASES[task]
    return tuple(files(Path(tmp)))  # type: ignore[no-any-return]


@functools.cache
def _reference(task: str, tmp: str) -> tuple[str, float, float]:
    """(headline measure, A's value, B's value) from compare's JSON."""
    gold, a, b = _files(task, tmp)
    code, out, err = run(["compare", "--task", task, gold, "-s", f"A={a}", "-s", f"B={b}", "-R", R, "-f", "json",
                          *CASES[task][1]])  # fmt: skip
    assert code == 0, err
    table = json.loads(out)["results"][0]
    metric = (get_task(task).measures or table["metrics"])[0]
    return metric, table["scores"]["A"][metric], table["scores"]["B"][metric]


def _numbers(value: Any) -> list[float]:
    """Every number in a JSON document."""
    if isinstance(value, dict):
        return [x for v in value.values() for x in _numbers(v)]
    if isinstance(value, list):
        return [x for v in value for x in _numbers(v)]
    return [float(value)] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


def _csv_numbers(text: str) -> list[float]:
    out = []
    for row in csv.reader(line for line in text.splitlines() if not line.startswith("#")):
        for cell in row:
            try:
                out.append(float(cell))
            except ValueError:
                pass
    return out


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("formats"))


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
@pytest.mark.parametrize("command", ["score", "compare"])
@pytest.mark.parametrize("task", sorted(CASES))
def test_every_format_shows_each_system_s_headline_value(task: str, command: str, fmt: str, scratch: str) -> None:
    metric, *values = _reference(task, scratch)
    gold, a, b = _files(task, scratch)
    systems = [a, b] if command == "score" else ["-s", f"A={a}", "-s", f"B={b}", "-R", R]
    code, out, err = run([command, "--task", task, gold, *systems, "-f", fmt, *CASES[task][1]])
    assert code == 0, err
    if fmt in ("json", "csv"):
        found = _numbers(json.loads(out)) if fmt == "json" else _csv_numbers(out)
        missing = [v for v in values if not any(abs(x - v) < 1e-12 for x in found)]
    else:
        missing = [v for v in values if f"{100 * v:.2f}" not in out]
    assert missing == [], f"{task} {command} -f {fmt}: {metric} {missing} not shown"
