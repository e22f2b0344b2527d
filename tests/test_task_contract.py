"""The task contract (releval.tasks.base.Task, exported by releval.registry) holds for every registered task, the
commands ask it instead of naming tasks, and no string reference hides an import circle.

(a) no task-name literal (compared, in a literal list of tasks, or a dict key) and no isinstance on a task's
    Config in src/releval outside `tasks/` and the registry — save the format names that coincide with task names;
(b) every "releval.module:attribute" string in src/releval counts as an import edge: none closes a circle of
    imports and none points to a higher layer (pyproject.toml's [tool.importlinter]);
(c) every registered task, plugins included (tests/toy_task.py), is a Task whose declared capabilities the commands
    honour, and whose result on its bundled example survives `from_dict(to_dict(r))`;
(d) a plugin written against the extension API alone gets score, compare, stats, replicability, audit run and
    plot per-class, with values computed here by hand.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib
import io
import json
import re
import warnings
from collections import Counter
from pathlib import Path

import pytest
from tests.conftest import REPO

import toy_task
from releval.cli import main
from releval.commands.inputs import GROUPS, INPUT_OPTIONS, READERS
from releval.registry import TASKS, Task, get_task, register_task, tasks_with, unregister_task
from releval.tasks.base import INPUT_GROUPS, Result, ScoringConfig

SRC = REPO / "src" / "releval"

#: Task-name literals and Config isinstance checks left outside tasks/, by file (keywords and parameter defaults
#: counted too). significance/ asks a Config's Task and the board its BoardTask protocol; the board's example
#: benchmarks are declared by their tasks (`Task.example`, read by service/bundled.py): no branch left anywhere.
#: A new one fails this test: ask the Task instead.
DEBTS: dict[str, int] = {}


def _task_names() -> set[str]:
    return set(TASKS)


def _config_names() -> set[str]:
    """The class names of every registered task's Config and of its bases down to ScoringConfig."""
    names = {"ScoringConfig"}
    for name in TASKS:
        for cls in get_task(name).config.__mro__:
            if cls.__module__.startswith("releval.tasks"):
                names.add(cls.__name__)
    return names


def _task_list(elements: list[ast.expr], tasks: set[str]) -> bool:
    """A literal list of tasks: two or more task names, and no other string (a list of formats that shares a
    name with a task, or a (task, folder, …) record, is not one)."""
    words = [e.value for e in elements if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return len(set(words)) >= 2 and set(words) <= tasks


def _task_keyword(name: str | None) -> bool:
    """A keyword that passes a task: `task`, `task__in`, `default_task`, … or a `default`."""
    return name is not None and ("task" in name or name == "default")


def _findings(tree: ast.AST, tasks: set[str], configs: set[str]) -> list[str]:
    """Where a module names a task: a task-name constant compared (==, !=, in) or in a literal list/tuple/set of
    two or more task names, a dict key, a keyword argument of a task (`filter(task="rc")`, `task__in=…`) or a
    default (`default="rc"`, `def f(task="rc")`); an isinstance() on a task's Config class. Other keywords whose
    value happens to be a task's name (`folder="docred"`, a slug) are not counted."""

    def is_task(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in tasks

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                elements = operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else [operand]
                found += [f"line {node.lineno}: compared with {e.value!r}" for e in elements if is_task(e)]  # type: ignore[attr-defined]
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and _task_list(node.elts, tasks):
            found.append(f"line {node.lineno}: a list of tasks")
        elif isinstance(node, ast.keyword) and is_task(node.value) and _task_keyword(node.arg):
            found.append(f"line {node.value.lineno}: keyword {node.arg}={node.value.value!r}")  # type: ignore[attr-defined]
        elif isinstance(node, ast.arguments):
            defaults = [*node.defaults, *(d for d in node.kw_defaults if d is not None)]
            found += [f"line {d.lineno}: default {d.value!r}" for d in defaults if is_task(d)]  # type: ignore[attr-defined]
        elif isinstance(node, ast.Dict):
            found += [f"line {node.lineno}: dict key {k.value!r}" for k in node.keys if k is not None and is_task(k)]  # type: ignore[attr-defined]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            kinds = node.args[1:] and node.args[1]
            names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds] if kinds else []
            for k in names:
                name = k.attr if isinstance(k, ast.Attribute) else k.id if isinstance(k, ast.Name) else ""
                if name in configs:
                    found.append(f"line {node.lineno}: isinstance on {name}")
    # a Compare's tuple is also walked as a Tuple: count it once
    return list(dict.fromkeys(found))


def _scan() -> dict[str, list[str]]:
    tasks, configs = _task_names(), _config_names()
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        # Django's migrations are the schema's frozen history (a field's default as it was): never edited
        if rel.startswith("tasks/") or rel == "registry.py" or "/migrations/" in rel:
            continue
        found = _findings(ast.parse(path.read_text(encoding="utf-8")), tasks, configs)
        if found:
            out[rel] = found
    return out


def test_the_scan_finds_a_task_name_branch_and_a_config_isinstance() -> None:
    code = (
        'if task == "docred": pass\nX = ("rc", "e2e")\nD = {"ranked": 1}\nisinstance(c, rc.ClassificationConfig)\n'
        'B.objects.filter(task="rc")\ndef f(task="e2e", *, other="docred"): pass\n'
    )
    found = _findings(ast.parse(code), {"docred", "rc", "e2e", "ranked"}, {"ClassificationConfig"})
    lines = sorted(f.split(":")[0] for f in found)
    assert lines == ["line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 6"], found
    assert _findings(ast.parse('Family(slug="docred", folder="docred")\n'), {"docred"}, set()) == []
    assert _findings(ast.parse('get_task("rc")\nhelp = "rc or e2e"\n'), {"rc", "e2e"}, set()) == []


def test_no_task_is_named_outside_tasks_but_the_recorded_debts() -> None:
    counts = {rel: len(found) for rel, found in _scan().items()}
    new = {rel: _scan()[rel] for rel, n in counts.items() if n > DEBTS.get(rel, 0)}
    assert not new, f"ask the Task (a declared capability) instead of naming it: {new}"
    assert counts == DEBTS, f"a debt was paid: lower DEBTS to {counts}"


# --------------------------------------------------------------------------------------------- (b) string edges

_REFERENCE = re.compile(r"^(releval(?:\.\w+)+):\w+$")


def _module_of(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> tuple[dict[str, set[str]], set[tuple[str, str]]]:
    """Every module's imports (at any depth of its code, as import-linter counts them) plus its string references
    ("releval.x:y"), and the string edges on their own."""
    modules = {_module_of(p): p for p in SRC.rglob("*.py")}
    edges: dict[str, set[str]] = {m: set() for m in modules}
    strings: set[tuple[str, str]] = set()

    def target(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _REFERENCE.match(node.value):
                found = target(_REFERENCE.match(node.value).group(1))  # type: ignore[union-attr]
                if found and found != module:
                    strings.add((module, found))
                    edges[module].add(found)
            for name in names:
                found = target(name)
                if found and found != module:
                    edges[module].add(found)
    return edges, strings


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges[todo.pop()]:
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def _layer(module: str, layers: list[str]) -> int | None:
    return next((i for i, layer in enumerate(layers) if module == layer or module.startswith(layer + ".")), None)


def test_no_string_reference_closes_an_import_circle_or_points_up() -> None:
    edges, strings = _graph()
    circles = [(a, b) for a, b in sorted(strings) if _reaches(edges, b, a)]
    assert circles == [], f"'module:attribute' strings that close an import circle: {circles}"
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    block = text.split('type = "layers"', 1)[1].split("]", 1)[0]  # the layers contract, highest first
    layers = re.findall(r'"(releval[\w.]*)"', block)
    assert layers[:2] == ["releval.cli", "releval.commands"] and "releval.registry" in layers
    upward = [
        (a, b)
        for a, b in sorted(strings)
        if None not in (_layer(a, layers), _layer(b, layers)) and _layer(b, layers) < _layer(a, layers)  # type: ignore[operator]
    ]
    assert upward == [], f"'module:attribute' strings naming a higher layer: {upward}"


def test_the_graph_sees_a_string_edge() -> None:
    """The check can fail: a reference from releval.tasks to releval.significance is a string edge that closes a
    circle (significance imports tasks)."""
    edges, _ = _graph()
    assert _reaches(edges, "releval.significance.compare", "releval.tasks.classification")
    assert _REFERENCE.match("releval.significance.compare:compare_files")


# ------------------------------------------------------------------------------------------ (c) every task


@pytest.fixture
def with_toy():
    register_task(toy_task.TASK)
    try:
        yield toy_task.TASK
    finally:
        unregister_task("toy")


#: The commands that score a task's predictions under its Config: they offer every input group their tasks read
#: (`stats` and `audit run` read what their statistics and audits use: DocRED's train facts).
SCORING = ("score", "compare", "replicability from-predictions", "plot per-class")


def test_every_registered_task_is_a_task_and_the_commands_honour_its_capabilities(with_toy: Task) -> None:
    for module in ("score", "compare", "plot", "audit", "stats", "replicability"):  # each joins READERS
        importlib.import_module(f"releval.commands.{module}")
    assert set(GROUPS) == set(INPUT_GROUPS) == {o.group for o in INPUT_OPTIONS if o.group}
    offered = {
        words: {o.group for o in INPUT_OPTIONS if o.flag in r.options and o.group} for words, r in READERS.items()
    }
    for name in TASKS:
        task = get_task(name)
        assert isinstance(task, Task) and task.name == name
        assert issubclass(task.config, object) and dataclasses.is_dataclass(task.config)
        assert task.make_config().__class__ is task.config
        for words, reader in READERS.items():
            if reader.needs is None:
                continue
            has = getattr(task, reader.needs) not in (None, False)
            assert (name in reader.tasks) == has, (words, name)
            if has and words in SCORING:  # it offers the options of every kind of file its tasks score
                assert task.inputs <= offered[words], (words, name, task.inputs - offered[words])
    assert "toy" in READERS["plot per-class"].tasks and "toy" in READERS["audit run"].tasks
    assert set(tasks_with("per_class")) >= {"rc", "docred", "chemprot-blue", "chemprot-scibert", "drugprot", "toy"}


def test_a_task_declaring_an_unknown_input_group_is_refused() -> None:
    with pytest.raises(ValueError, match="spreadsheets"):
        dataclasses.replace(toy_task.TASK, inputs=frozenset({"spreadsheets"}))


def _cases() -> dict[str, object]:
    """Every task's bundled example: the comparison matrix's, and semeval-official (which has no comparison) on the
    same SemEval files as rc."""
    from tests.test_replicability_tasks import CASES

    return {**CASES, "semeval-official": (CASES["rc"][0], ())}


def _toy_files(tmp: Path) -> tuple[str, str, str]:
    for name, text in (("gold", "a b a c"), ("a", "a b b c"), ("b", "a a a a")):
        (tmp / f"{name}.txt").write_text(text)
    return str(tmp / "gold.txt"), str(tmp / "a.txt"), str(tmp / "b.txt")


@pytest.mark.parametrize("name", [*sorted(TASKS), "toy"])
def test_each_task_result_on_its_example_is_a_result_that_round_trips(name: str, tmp_path: Path) -> None:
    # the plugin's Task object as `register_task` would take it (the registry is left as it is)
    task = toy_task.TASK if name == "toy" else get_task(name)
    files, args = (_toy_files, ()) if name == "toy" else _cases()[name]  # type: ignore[misc]
    gold, a, _ = files(tmp_path)
    settings = {flag.removeprefix("--").replace("-", "_"): value for flag, value in zip(args[::2], args[1::2])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (result,) = task.score_files(gold, [("A", a)], task.make_config(**settings))
    assert isinstance(result, Result)
    assert result.signature.get("task") == name
    from_dict = getattr(type(result), "from_dict", None)
    assert from_dict is not None, f"{type(result).__name__} has no from_dict"
    again = from_dict(json.loads(json.dumps(result.to_dict())))
    assert type(again) is type(result) and again.signature == result.signature
    assert json.dumps(again.to_dict(), sort_keys=True) == json.dumps(result.to_dict(), sort_keys=True)  # NaN ≠ NaN


def test_the_extension_api_is_one_module() -> None:
    import releval.registry as api

    for name in ("Task", "ScoringConfig", "Result", "register_task", "unregister_task", "get_task", "build_signature"):
        assert name in api.__all__ and hasattr(api, name)
    assert api.ScoringConfig is ScoringConfig


# ------------------------------------------------------------------------------- (d) a plugin gets every command


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def toy_files(tmp_path: Path) -> tuple[str, str, str]:
    """gold `a b a c`; A `a b b c` (3 of 4 right); B `a a a a` (2 of 4)."""
    files = []
    for name, text in (("gold", "a b a c"), ("A", "a b b c"), ("B", "a a a a")):
        (tmp_path / f"{name}.txt").write_text(text + "\n")
        files.append(str(tmp_path / f"{name}.txt"))
    return files[0], files[1], files[2]


def test_a_plugin_task_gets_score_compare_stats_replicability_audit_and_per_class(
    with_toy: Task, toy_files: tuple[str, str, str], tmp_path: Path
) -> None:
    gold, a, b = toy_files
    code, out, err = _run(["score", gold, a, b, "--task", "toy", "-f", "json"])
    assert code == 0, err
    micro = [r["averages"]["micro"]["f"] for r in json.loads(out)["results"]]
    assert micro == [0.75, 0.5]

    code, out, err = _run(["compare", gold, a, b, "--task", "toy", "-R", "50", "-f", "json"])
    assert code == 0, err
    scores = json.loads(out)["results"][0]["scores"]
    assert [scores[s]["micro"] for s in ("A", "B")] == [0.75, 0.5]

    code, out, err = _run(["stats", gold, "--task", "toy", "-f", "json"])
    assert code == 0, err
    assert '"lines": 4' in out and '"distinct": 3' in out

    code, out, err = _run(
        ["replicability", "from-predictions", "--task", "toy", "-d", f"x={gold},{a},{b}", "-d", f"y={gold},{a},{b}",
         "-R", "50", "-f", "json"]
    )  # fmt: skip
    assert code == 0, err
    assert "x" in out and "y" in out

    code, out, err = _run(["audit", "run", gold, b, "--task", "toy", "-f", "json"])
    assert code == 0, err  # a warning, no error
    (finding,) = json.loads(out)["findings"]
    assert (finding["code"], finding["count"]) == ("toy-differ", 2)  # tokens 2 and 4 of B differ from gold

    pytest.importorskip("matplotlib")
    data = tmp_path / "data.json"
    code, out, err = _run(["plot", "per-class", gold, f"A={a}", f"B={b}", "--task", "toy", "-o",
                           str(tmp_path / "f.png"), "--data-json", str(data)])  # fmt: skip
    assert code == 0, err
    plotted = json.loads(data.read_text())
    plotted = plotted.get("data", plotted)
    assert "classes" in plotted, plotted
    assert plotted["classes"] == ["a", "b", "c"] and plotted["support"] == [2, 1, 1]
    # A: a P 1 R 1/2, b P 1/2 R 1, c exact → F 2/3, 2/3, 1; B: a P 2/4 R 1 → 2/3, b and c never predicted → 0
    assert plotted["values"][0] == pytest.approx([2 / 3, 2 / 3, 1.0])
    assert plotted["values"][1] == pytest.approx([2 / 3, 0.0, 0.0])
    assert plotted["averages"]["micro"] == [0.75, 0.5]


def test_a_plugin_without_per_class_results_or_audit_is_refused_naming_the_tasks_that_have_them(
    toy_files: tuple[str, str, str], tmp_path: Path
) -> None:
    gold, a, _ = toy_files
    plain = dataclasses.replace(toy_task.TASK, name="toy-plain", per_class=None, audit=None)
    register_task(plain)
    try:
        code, _, err = _run(["plot", "per-class", gold, a, "--task", "toy-plain", "-o", str(tmp_path / "f.png")])
        assert code == 2 and "--task 'toy-plain' has no per-class results (tasks with one: rc, " in err
        code, _, err = _run(["audit", "run", gold, a, "--task", "toy-plain"])
        assert code == 2 and "--task 'toy-plain' has no audit (tasks with one: rc, e2e, docred)" in err
    finally:
        unregister_task("toy-plain")


def test_debts_name_files_that_exist() -> None:
    assert all((SRC / rel).is_file() for rel in DEBTS)
    assert Counter(DEBTS).total() < 20


def test_the_tasks_declare_the_board_examples() -> None:
    """The example benchmarks `releval serve --examples` creates (releval.service.bundled) are declared by their
    tasks (`Task.example`): the six listed here by hand, in this order, each file bundled under `examples/` and
    each setting one of its task's Config."""
    declared = sorted(
        ((task.example.position, name, task.example) for name in TASKS if (task := get_task(name)).example is not None),
        key=lambda row: row[0],
    )
    assert [(name, ex.slug) for _, name, ex in declared] == [
        ("e2e", "conll04"),
        ("chemprot-scibert", "chemprot-scibert"),
        ("docred", "redocred-dev"),
        ("fewrel", "fewrel-wiki-5-1"),
        ("ranked", "nyt-style-ranked"),
        ("drugprot", "drugprot-sample"),
    ]
    assert tasks_with("example") == [name for name in TASKS if name in {name for _, name, _ in declared}]
    assert len({position for position, _, _ in declared}) == len(declared)
    for _, name, ex in declared:
        assert (REPO / "examples" / ex.folder / ex.gold).exists(), ex
        get_task(name).make_config(**ex.settings)  # a setting the Config lacks raises
    settings = {ex.slug: dict(ex.settings) for _, _, ex in declared}
    assert settings["nyt-style-ranked"] == {"duplicates": "count"}
    assert sum(bool(s) for s in settings.values()) == 1
    conll = next(ex for _, name, ex in declared if name == "e2e")
    assert (conll.part, conll.stored_name) == ("test", "conll04_test.json")
    split = json.loads((REPO / "examples" / conll.folder / conll.gold).read_bytes())
    assert len(split[conll.part]) == 288  # the title's count of test sentences
