"""The task registry and the extension API: every kind of evaluation by its `--task` name, and what a task of
another package (a plugin) is written against.

The extension API, all here: `Task` (the contract: releval.tasks.base) and its `BoardExample`, `ScoringConfig`
(the Config base of an F-based task), `Result` and `Rendered` (what a task's results and statistics provide),
`build_signature`, `rows_per_class`, `register_task` / `unregister_task`, `get_task`, `tasks_with`. A plugin module
defines a frozen Config and a `Task`, and is registered by `register_task(TASK)` or named in the environment:
`RELEVAL_TASKS="name=module:attribute,…"` adds it to the registry of every releval process that sees the variable —
the command line, and the board's server and workers (`releval serve`), which is how a board gets a benchmark of a
task releval does not ship.

releval's own tasks are assembled here from their module's `TASK` (releval.tasks.*) and the functions of the layers
above the tasks that they use (their comparison in releval.significance, their dataset statistics in
releval.dataset_stats, their audit in releval.audit, the SemEval perl report in releval.report), each imported
when first called: `releval score` on one file imports its own task's modules only, and no module of
releval.tasks names a layer above it. A task is loaded when first asked for, so `releval --help` loads none.

>>> sorted(TASKS)
['chemprot-blue', 'chemprot-scibert', 'docred', 'drugprot', 'e2e', 'fewrel', 'ranked', 'rc', 'semeval-official']
>>> get_task("e2e").unit
'document'
>>> tasks_with("audit")
['rc', 'e2e', 'docred']
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from releval.core.errors import OptionError
from releval.tasks.base import BoardExample, Rendered, Result, ScoringConfig, Task, build_signature, rows_per_class

if TYPE_CHECKING:
    from releval.tasks.vocabulary import Vocabulary

__all__ = [
    "DEFAULT_TASK",
    "TASKS",
    "BoardExample",
    "Rendered",
    "Result",
    "ScoringConfig",
    "Task",
    "Vocabulary",
    "build_signature",
    "get_task",
    "plugin_tasks",
    "register_task",
    "rows_per_class",
    "tasks_with",
    "unregister_task",
]


def __getattr__(name: str) -> Any:
    """`Vocabulary` (releval.tasks.vocabulary), imported when a plugin asks for it: a command's start-up does not
    load the label checks of a task that declares none."""
    if name == "Vocabulary":
        from releval.tasks.vocabulary import Vocabulary

        return Vocabulary
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The task of a command given no --task: relation classification, one label per item.
DEFAULT_TASK = "rc"

# ------------------------------------------------------------------------ the functions of the layers above tasks


def _compare_labels(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: Any,
    test: Any,
    /,
    *,
    baseline: Any = None,
    progress: Any = None,
) -> Any:
    from releval.significance.compare import compare_files

    return compare_files(gold, systems, config, test, baseline=baseline, progress=progress)


def _compare_chemprot(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: Any,
    test: Any,
    /,
    *,
    baseline: Any = None,
    progress: Any = None,
) -> Any:
    from releval.significance.compare import compare_files
    from releval.tasks.chemprot import compare

    return compare(gold, systems, config, test, baseline=baseline, progress=progress, compare_files=compare_files)


def _compare_fewrel(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: Any,
    test: Any,
    /,
    *,
    baseline: Any = None,
    progress: Any = None,
) -> Any:
    from releval.significance.fewrel import compare_files

    return compare_files(gold, systems, config, test, baseline=baseline, progress=progress)


def _compare_drugprot(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: Any,
    test: Any,
    /,
    *,
    baseline: Any = None,
    progress: Any = None,
) -> Any:
    from releval.significance.drugprot import compare_files

    return compare_files(gold, systems, config, test, baseline=baseline, progress=progress)


def _compare_ranked(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: Any,
    test: Any,
    /,
    *,
    baseline: Any = None,
    progress: Any = None,
) -> Any:
    from releval.significance.ranked import compare_files

    return compare_files(gold, systems, config, test, baseline=baseline, progress=progress)


def _compare_docred(
    gold: Any,
    systems: Mapping[str, Sequence[Any]],
    config: Any,
    test: Any,
    /,
    *,
    baseline: Any = None,
    progress: Any = None,
) -> Any:
    from releval.significance.docred import compare_files

    return compare_files(gold, systems, config, test, baseline=baseline, progress=progress)


def _rank_intervals(gold: Any, systems: Mapping[str, Sequence[Any]], config: Any, test: Any) -> Any:
    from releval.significance.ranks import rank_intervals

    return rank_intervals(gold, systems, config, test)


def _chemprot_rank_intervals(gold: Any, systems: Mapping[str, Sequence[Any]], config: Any, test: Any) -> Any:
    from releval.significance.ranks import rank_intervals
    from releval.tasks.chemprot import rank_intervals as preset_rank_intervals

    return preset_rank_intervals(gold, systems, config, test, rank_intervals=rank_intervals)


def _ranked_rank_intervals(gold: Any, systems: Mapping[str, Sequence[Any]], config: Any, test: Any) -> Any:
    from releval.significance.ranked import rank_intervals

    return rank_intervals(gold, systems, config, test)


def _e2e_rank_intervals(gold: Any, systems: Mapping[str, Sequence[Any]], config: Any, test: Any) -> Any:
    from releval.significance.compare import e2e_rank_intervals

    return e2e_rank_intervals(gold, systems, config, test)


def _fewrel_rank_intervals(gold: Any, systems: Mapping[str, Sequence[Any]], config: Any, test: Any) -> Any:
    from releval.significance.fewrel import rank_intervals

    return rank_intervals(gold, systems, config, test)


def _drugprot_rank_intervals(gold: Any, systems: Mapping[str, Sequence[Any]], config: Any, test: Any) -> Any:
    from releval.significance.drugprot import rank_intervals

    return rank_intervals(gold, systems, config, test)


def _docred_rank_intervals(gold: Any, systems: Mapping[str, Sequence[Any]], config: Any, test: Any) -> Any:
    from releval.significance.docred import rank_intervals

    return rank_intervals(gold, systems, config, test)


def _measure_draws(gold: Any, systems: Mapping[str, Sequence[Any]], config: Any, test: Any, splits: int) -> Any:
    """Relation classification's joint bootstrap draws and split halves of every system (releval.significance.ranks),
    for the agreement interval and the swap rates of `compare --evaluate-measures`."""
    from releval.significance.ranks import joint_system_draws, joint_system_halves

    _, draws = joint_system_draws(gold, systems, config, test)
    return draws, joint_system_halves(gold, systems, config, splits, test.seed)


def _dataset_tests(datasets: Sequence[tuple[str, Any, Any, Any]], **options: Any) -> Any:
    from releval.replicability.analysis import dataset_tests

    return dataset_tests(datasets, **options)


def _label_statistics(paths: Sequence[Any], config: Any, view: str = "both") -> Rendered:
    from releval.dataset_stats.label_distribution import statistics

    return statistics(paths, config, view)


def _e2e_statistics(paths: Sequence[Any], config: Any = None) -> Rendered:
    from releval.dataset_stats.e2e_dataset import statistics

    return statistics(paths, config)


def _fewrel_statistics(paths: Sequence[Any], config: Any = None) -> Rendered:
    from releval.dataset_stats.fewrel import statistics

    return statistics(paths, config)


def _chemprot_statistics(paths: Sequence[Any], config: Any, **options: Any) -> Rendered:
    from releval.dataset_stats.biomedical import chemprot_statistics

    return chemprot_statistics(paths, config, **options)


def _drugprot_statistics(paths: Sequence[Any], config: Any, **options: Any) -> Rendered:
    from releval.dataset_stats.biomedical import drugprot_statistics

    return drugprot_statistics(paths, config, **options)


def _ranked_statistics(paths: Sequence[Any], config: Any = None, **options: Any) -> Rendered:
    from releval.dataset_stats.ranked import statistics

    return statistics(paths, config, **options)


def _docred_statistics(paths: Sequence[Any], config: Any = None, **options: Any) -> Rendered:
    from releval.dataset_stats.docred import statistics

    return statistics(paths, config, **options)


def _audit_labels(gold: Any, pred: Any, config: Any, /, *, train: Any = None, train_format: str | None = None) -> Any:
    """The audit of label files, or of end-to-end RE files when gold or predictions are (releval.audit.checks)."""
    from releval.audit.checks import audit
    from releval.tasks.classification import ClassificationConfig

    if not isinstance(config, ClassificationConfig):  # e2e: the files say what they are; read as labels are
        config = None
    return audit(gold, pred, train, config=config, train_format=train_format)


def _audit_e2e(gold: Any, pred: Any, config: Any, /, *, train: Any = None, train_format: str | None = None) -> Any:
    """End-to-end RE's audit (releval.audit.e2e_checks): the files' label checks as error findings, the training
    file's overlap; --macro-classes and --train-format do not apply."""
    from releval.audit.e2e_checks import audit_e2e
    from releval.core.validation import refuse_options

    refuse_options({"--macro-classes": config.macro_classes != "gold"}, "does not apply to an audit")
    refuse_options({"--train-format": train_format is not None}, "does not apply to --task e2e")
    return audit_e2e(gold, pred, train, by_position=config.by_position, types=config.types)


def _audit_docred(gold: Any, pred: Any, config: Any, /, *, train: Any = None, train_format: str | None = None) -> Any:
    """DocRED's audit (releval.audit.docred_checks): its train facts are a setting (--train-facts), not --train."""
    from releval.audit.docred_checks import audit_docred
    from releval.core.validation import refuse_options

    refuse_options({"--train": train is not None}, "not used by --task docred: give the train facts (--train-facts)")
    refuse_options({"--relation-names": config.relation_names is not None}, "not used by audit (no per-relation table)")
    return audit_docred(gold, pred, config)


def _semeval_perl_report(gold: Any, systems: Sequence[tuple[str | None, Any]], config: Any, /) -> tuple[Any, str]:
    """The SemEval perl scorer v1.2's whole report of every system, byte for byte (releval.report.semeval_report)."""
    from releval.report.semeval_report import render_perl
    from releval.tasks.semeval_official import score

    results = [score(gold, path, config, name) for name, path in systems]
    return results, render_perl(results)


# ------------------------------------------------------------------- the pipeline's checks of declared labels


def _with_checks(task: Task[Any, Any]) -> Task[Any, Any]:
    """`task` with the pipeline's checks of its predictions (releval.tasks.vocabulary.prediction_checks) before
    each of its functions that reads them — `score_files` (score, plot per-class), `compare` (compare,
    replicability), `audit` (audit run) — when it declares its labelled fields (`vocabularies`); otherwise as it is.
    A refusal is an InputError naming the file (in an audit: an error finding); a warning joins the result's, the
    table's or the audit's."""
    vocabularies = task.vocabularies
    if vocabularies is None or getattr(task.score_files, "pipeline_checked", False):
        return task
    from releval.core.errors import InputError, raise_all
    from releval.core.notices import Notice
    from releval.tasks.vocabulary import prediction_checks

    def checks(gold: Any, pred: Any, config: Any) -> list[Notice]:
        return prediction_checks(gold, pred, vocabularies(gold, pred, config))

    def every(gold: Any, preds: Sequence[tuple[str | None, Any]], config: Any) -> list[list[Notice]]:
        found, errors = [], []
        for _, pred in preds:
            try:
                found.append(checks(gold, pred, config))
            except InputError as exc:
                errors.append(exc)
        raise_all(errors)
        return found

    def score_files(gold: Any, systems: Sequence[tuple[str | None, Any]], config: Any) -> Sequence[Any]:
        systems = list(systems)
        found = every(gold, systems, config)
        results = task.score_files(gold, systems, config)
        for result, notices in zip(results, found):
            result.warnings.extend(notices)
        return results

    score_files.pipeline_checked = True  # type: ignore[attr-defined]
    changes: dict[str, Any] = {"score_files": score_files}
    own_compare, own_audit = task.compare, task.audit
    if own_compare is not None:

        def compare(
            gold: Any, systems: Mapping[str, Sequence[Any]], config: Any, test: Any, /, *, baseline: Any = None,
            progress: Any = None,
        ) -> Any:  # fmt: skip
            runs = [(name, run) for name, paths in systems.items() for run in paths]
            found = every(gold, runs, config)
            table = own_compare(gold, systems, config, test, baseline=baseline, progress=progress)
            table.warnings.extend(Notice(f"{name}: {n}", n.code) for (name, _), ns in zip(runs, found) for n in ns)
            return table

        changes["compare"] = compare
    if own_audit is not None:

        def audit(gold: Any, pred: Any, config: Any, /, *, train: Any = None, train_format: str | None = None) -> Any:
            from releval.audit.findings import Finding

            try:
                findings = [Finding(n.code or "label-check", "warning", str(n)) for n in checks(gold, pred, config)]
            except InputError as exc:
                findings = [Finding("label-mistake", "error", exc.message)]
            report = own_audit(gold, pred, config, train=train, train_format=train_format)
            report.findings[:0] = findings
            return report

        changes["audit"] = audit
    return replace(task, **changes)


# ------------------------------------------------------------------------------------- releval's own tasks


def _rc() -> Task[Any, Any]:
    from releval.tasks.classification import TASK

    return replace(
        TASK,
        compare=_compare_labels,
        statistics=_label_statistics,
        audit=_audit_labels,
        rank_intervals=_rank_intervals,
        measure_draws=_measure_draws,
        dataset_tests=_dataset_tests,
    )


def _semeval_official() -> Task[Any, Any]:
    from releval.tasks.semeval_official import OFFICIAL_TASK

    return replace(OFFICIAL_TASK, full_report=_semeval_perl_report)


def _e2e() -> Task[Any, Any]:
    from releval.tasks.e2e import TASK

    return replace(
        TASK,
        compare=_compare_labels,
        statistics=_e2e_statistics,
        audit=_audit_e2e,
        rank_intervals=_e2e_rank_intervals,
    )


def _fewrel() -> Task[Any, Any]:
    from releval.tasks.fewrel import TASK

    return replace(TASK, compare=_compare_fewrel, statistics=_fewrel_statistics, rank_intervals=_fewrel_rank_intervals)


def _chemprot_blue() -> Task[Any, Any]:
    from releval.tasks.chemprot import BLUE_TASK

    return replace(
        BLUE_TASK,
        compare=_compare_chemprot,
        statistics=_chemprot_statistics,
        rank_intervals=_chemprot_rank_intervals,
    )


def _chemprot_scibert() -> Task[Any, Any]:
    from releval.tasks.chemprot import SCIBERT_TASK

    return replace(
        SCIBERT_TASK,
        compare=_compare_chemprot,
        statistics=_chemprot_statistics,
        rank_intervals=_chemprot_rank_intervals,
    )


def _drugprot() -> Task[Any, Any]:
    from releval.tasks.drugprot import TASK

    return replace(
        TASK, compare=_compare_drugprot, statistics=_drugprot_statistics, rank_intervals=_drugprot_rank_intervals
    )


def _ranked() -> Task[Any, Any]:
    from releval.tasks.ranked import TASK

    return replace(TASK, compare=_compare_ranked, statistics=_ranked_statistics, rank_intervals=_ranked_rank_intervals)


def _docred() -> Task[Any, Any]:
    from releval.tasks.docred import TASK

    return replace(
        TASK,
        compare=_compare_docred,
        statistics=_docred_statistics,
        audit=_audit_docred,
        rank_intervals=_docred_rank_intervals,
    )


_OWN: dict[str, Callable[[], Task[Any, Any]]] = {
    "rc": _rc,
    "semeval-official": _semeval_official,
    "e2e": _e2e,
    "fewrel": _fewrel,
    "chemprot-blue": _chemprot_blue,
    "chemprot-scibert": _chemprot_scibert,
    "drugprot": _drugprot,
    "ranked": _ranked,
    "docred": _docred,
}

#: Every task: its `--task` name → where its Task comes from ("module:attribute" of a Task, or of a function that
#: returns one; releval's own are assembled by this module's functions).
TASKS: dict[str, str] = {name: f"{__name__}:{make.__name__}" for name, make in _OWN.items()}

_LOADED: dict[str, Task[Any, Any]] = {}


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


def _load(name: str) -> Task[Any, Any]:
    if name in _OWN and TASKS[name] == f"{__name__}:{_OWN[name].__name__}":
        return _OWN[name]()
    module, _, attribute = TASKS[name].partition(":")
    try:
        found = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as exc:
        raise OptionError(f"task {name!r}: {TASKS[name]} cannot be imported ({exc})", option="task") from None
    task = found if isinstance(found, Task) else found() if callable(found) else found
    if not isinstance(task, Task):
        raise OptionError(f"task {name!r}: {TASKS[name]} is not a releval Task", option="task")
    return task


def get_task(name: str) -> Task[Any, Any]:
    """The registered task called `name` (an OptionError listing the tasks for any other name)."""
    if name not in _LOADED:
        if name not in TASKS:
            _add_plugins()
        if name not in TASKS:
            raise OptionError(f"task: {name!r} is not one of {', '.join(TASKS)}", option="task")
        _LOADED[name] = _with_checks(_load(name))
    return _LOADED[name]


def tasks_with(capability: str) -> list[str]:
    """The registered tasks (loaded now) that have `capability`, a field of Task that is set (`compare`,
    `statistics`, `per_class`, `audit`, `full_report`, `rank_intervals`, `compare_per_class`, …): what a command
    offers, and names when it refuses a task."""
    _add_plugins(strict=False)
    return [name for name in TASKS if getattr(get_task(name), capability) not in (None, False)]


def register_task(task: Task[Any, Any], module: str = "") -> None:
    """Register a task object under its name (a plugin's, or a test's toy task); `unregister_task` removes it."""
    TASKS[task.name] = module or f"<{task.name}>"
    _LOADED[task.name] = _with_checks(task)


def unregister_task(name: str) -> None:
    """Remove a task registered with `register_task`."""
    TASKS.pop(name, None)
    _LOADED.pop(name, None)
