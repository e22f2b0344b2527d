"""The worked examples of docs/contributing.md run as written, and the registries they extend hold together.

Each example is registered the way the page says (its code plus the registry line), for the length of one test,
and the test the page tells a contributor to add is run against it. The paired test's example cannot be wired into
`compare` without the edits the page lists, so its function is checked on its own.
"""

from __future__ import annotations

import inspect
import re
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.conftest import REPO

from releval.core import options
from releval.core.options import DEFAULT_WEIGHTING_NAMES
from releval.data import formats
from releval.data.formats import LABEL_FORMATS
from releval.metrics import weightings
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, FAMILIES, WEIGHTINGS, get_weighting, weighting_names
from releval.significance import compare, config, paired

PAGE = REPO / "docs" / "contributing.md"


def _blocks(heading: str) -> list[str]:
    """The ```python blocks of the section of docs/contributing.md that starts at `heading` (up to the next ##)."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index(f"\n{heading}\n") :]
    end = section.find("\n## ", 1)
    return re.findall(r"```python\n(.*?)```", section[: end if end > 0 else None], re.DOTALL)


def _run_tests(source: str, name: str, tmp_path: Path) -> list[str]:
    """Run every test_* function of `source` (a test module from the page); their names, in order."""
    namespace: dict[str, Any] = {"__name__": name}
    exec(compile(source, f"docs/contributing.md ({name})", "exec"), namespace)
    ran = []
    for test_name, function in namespace.items():
        if test_name.startswith("test_") and callable(function):
            wanted = inspect.signature(function).parameters
            function(**({"tmp_path": tmp_path} if "tmp_path" in wanted else {}))
            ran.append(test_name)
    return ran


# ----------------------------------------------------------------------------------------------- weightings


def test_every_registered_weighting_answers_to_its_name() -> None:
    assert all(w.name == name for name, w in WEIGHTINGS.items())
    assert [get_weighting(name) for name in WEIGHTINGS] == list(WEIGHTINGS.values())
    for family, make in FAMILIES.items():
        made = make(0.25)
        assert made.name == f"{family}:0.25" and get_weighting(f"{family}:0.250").name == made.name
    assert tuple(w.name for w in DEFAULT_WEIGHTINGS) == DEFAULT_WEIGHTING_NAMES
    assert (
        weighting_names() == [*WEIGHTINGS, *(f"{family}:A" for family in FAMILIES)] and "power:A" in weighting_names()
    )


def test_the_weighting_example_works_with_one_registry_line_each(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    code, registry, tests = _blocks("## Adding a class weighting")
    assert '"log": LOG,' in registry and '"smoothed": smoothed,' in registry
    namespace = dict(vars(weightings))  # the code goes into weightings.py, above the registry
    exec(compile(code, "docs/contributing.md (weighting)", "exec"), namespace)
    monkeypatch.setitem(WEIGHTINGS, "log", namespace["LOG"])  # the registry lines
    monkeypatch.setitem(FAMILIES, "smoothed", namespace["smoothed"])
    assert _run_tests(tests, "test_weighting_log", tmp_path) == [
        "test_log_weights_are_log2_of_one_plus_the_support",
        "test_log_average_by_hand",
        "test_smoothed_is_weighted_at_zero_and_refuses_a_negative_number",
    ]
    assert weighting_names()[-3:] == ["log", "power:A", "smoothed:A"]


def test_the_weighting_example_runs_on_the_command_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from releval import cli

    namespace = dict(vars(weightings))
    exec(compile(_blocks("## Adding a class weighting")[0], "docs/contributing.md", "exec"), namespace)
    monkeypatch.setitem(WEIGHTINGS, "log", namespace["LOG"])
    monkeypatch.setitem(FAMILIES, "smoothed", namespace["smoothed"])
    gold, pred, out = tmp_path / "gold.tsv", tmp_path / "pred.tsv", tmp_path / "out.json"
    gold.write_text("1\tA\n2\tA\n3\tA\n4\tB\n5\tno_relation\n", encoding="utf-8")
    pred.write_text("1\tA\n2\tA\n3\tB\n4\tB\n5\tno_relation\n", encoding="utf-8")
    assert cli.main(["score", str(gold), str(pred), "-w", "log", "-w", "smoothed:2", "-f", "json", "-o", str(out)]) == 0
    assert "|average:micro,log,smoothed:2|" in out.read_text(encoding="utf-8")


# ----------------------------------------------------------------------------------------------- input formats


@pytest.fixture
def scored_tsv(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The page's format module, registered with the page's one registry line for the length of a test."""
    code, registry, _tables, _tests = _blocks("## Adding an input format")
    assert '"scored-tsv": "scored_tsv.ScoredTsv",' in registry
    module = types.ModuleType("releval.data.formats.scored_tsv")
    exec(compile(code, "docs/contributing.md (format)", "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(formats, "_instances", {})
    monkeypatch.setitem(LABEL_FORMATS, "scored-tsv", "scored_tsv.ScoredTsv")  # after "tsv", as the page says
    return module


def test_the_format_example_works_with_one_registry_line(scored_tsv: types.ModuleType, tmp_path: Path) -> None:
    tests = _blocks("## Adding an input format")[3]
    assert _run_tests(tests, "test_format_scored_tsv", tmp_path) == [
        "test_scored_tsv_reads_the_label_and_keeps_the_score",
        "test_scored_tsv_refuses_shifted_columns",
    ]


def test_the_format_examples_table_entries_hold(scored_tsv: types.ModuleType) -> None:
    """The entries the page adds to tests/test_formats_registry.py agree with the example format, and a TSV with
    a header row stays with `tsv`, as the page says."""
    tables = _blocks("## Adding an input format")[2]
    entries: dict[str, Any] = {}
    exec(tables.replace(", ...}", "}"), {"Evidence": formats.Evidence}, entries)
    path, data = entries["EXAMPLES"]["scored-tsv"]
    head = formats.Head(data, path)
    answers = {f.name: f.sniff(head) for f in formats.label_formats()}
    assert {name: evidence for name, evidence in answers.items() if evidence is not None} == entries["MATRIX"][
        "scored-tsv"
    ]
    assert formats.detect(data, path).name == "scored-tsv"
    parsed = formats.label_format("scored-tsv").parse(data, path, formats.base.Fields())
    assert (parsed.ids, parsed.labels, list(parsed.lines)) == entries["PARSED"]["scored-tsv"]
    span_path, span_data, spans = entries["SPANS"]["scored-tsv"]
    assert formats.label_format("scored-tsv").record_spans(span_data, span_path, formats.base.Fields()) == spans
    assert formats.detect(b"id\tlabel\tscore\na1\tx\t0.5\na2\ty\t0.25\n", "preds.tsv").name == "tsv"


# ----------------------------------------------------------------------------------------------- paired tests


def test_the_paired_test_example_gives_the_hand_worked_p_values(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    code, line, tests = _blocks("## Adding a paired significance test")
    namespace = dict(vars(paired))  # the function goes into significance/paired.py
    exec(compile(code, "docs/contributing.md (paired test)", "exec"), namespace)
    midp: Callable[..., paired.DiscordantTest] = namespace["mcnemar_midp"]
    monkeypatch.setattr(paired, "mcnemar_midp", midp, raising=False)
    # the two registry lines: the name in PAIRED_TESTS (read by name where settings are checked) and the page's
    # line in CORRECTNESS_TESTS (the same dict object wherever it was imported)
    name, spec = next(iter(eval("{" + line.strip().rstrip(",") + "}", namespace).items()))
    monkeypatch.setitem(paired.CORRECTNESS_TESTS, name, spec)
    for module in (options, config, paired, compare):
        monkeypatch.setattr(module, "PAIRED_TESTS", (*options.PAIRED_TESTS, name), raising=False)
    assert _run_tests(tests, "test_paired_midp", tmp_path) == ["test_midp_by_hand"]
    gold, a, b = ["r"] * 15, ["r"] * 2 + ["x"] * 8 + ["r"] * 5, ["x"] * 2 + ["r"] * 8 + ["r"] * 5
    assert midp(gold, a, b, alternative="greater").p_value == pytest.approx(1 - 33.5 / 1024)
    assert midp(gold, gold, gold).p_value == 1.0
    np.testing.assert_allclose(midp(gold, a, b).p_value, paired.mcnemar(gold, a, b).p_value - 45 / 1024)
