"""Per-dataset one-sided p-values of any registered task: its own paired test of A vs B on each dataset.

`releval.replicability.analysis.dataset_tests` tests classification label files. Every other task with a
comparison (releval.tasks: DocRED, ranked facts, FewRel episodes, end-to-end RE, ChemProt, DrugProt, a plugin's)
already knows how to test two systems on one test set: its `compare` (`releval compare --task NAME`) resamples its
own unit (documents, bags, episodes, items) and reports every measure. Here that comparison runs once per dataset
with the alternative "greater" (H1: A is better than B on the measure), and the row of the chosen measure gives the
dataset's p-value and effect:

    p_i = P*(δ* − δ ≥ δ) as the task's test defines it,   effect_i = M(A) − M(B)   (M: the measure, e.g. Ign F1)

— the inputs of the replicability analysis (Dror et al. 2017; releval.replicability.analysis.analyze). One task
and one measure for every dataset, so the p-values test the same hypothesis; the task's Config may differ per
dataset (DocRED: each test set its own train facts).

>>> from releval.replicability.task_tests import test_label
>>> test_label("docred", "bootstrap", "ign_f1")
'docred:bootstrap:greater:ign_f1'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from releval.core.errors import InputError, InputErrors, OptionError, raise_all
from releval.core.notices import Notice
from releval.core.options import DEFAULT_RESAMPLES, DEFAULT_SEED, PAIRED_TESTS, RESAMPLING_TESTS
from releval.core.validation import check_choice
from releval.replicability.analysis import DatasetTests, in_dataset, per_dataset
from releval.tasks.base import Task, resolve

#: The two systems as every dataset's comparison names them (their warnings read "A: …", "B: …").
SYSTEMS = ("A", "B")
#: Signature fields of a dataset's comparison that the analysis states itself: left out of its settings (the
#: analysis' own `n` is the number of datasets, its `test` is `test_label`'s). The gold digest stays: the analysis
#: names each dataset's gold as `score` names one.
_DATA_FIELDS = ("task", "n", "test", "methods", "version")


def test_label(task: str, test: str, metric: str) -> str:
    """The `test` of the analysis' signature: the task, the paired test, its direction and the measure."""
    return f"{task}:{test}:greater:{metric}"


def _measure_row(table: Any, metric: str | None, task: Task) -> Any:
    """The row of `metric` (default: the task's headline measure) in a comparison of A and B; a measure the task
    does not report is an OptionError listing those it does."""
    rows = {r.metric: r for r in table.rows if (r.a, r.b) == SYSTEMS}
    if metric is None:
        metric = next((m for m in (*task.measures, *table.metrics, *rows) if m in rows), None)
    if metric not in rows:
        known = ", ".join(rows) or "none"
        raise OptionError(f"--metric {metric!r} is not a measure of --task {task.name}: {known}", option="--metric")
    return rows[metric]


def task_dataset_tests(
    datasets: Sequence[tuple[str, Any, Any, Any]],
    task: Task,
    configs: Mapping[str, Any],
    *,
    test: str = "bootstrap",
    metric: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    progress: Callable[[int], None] | None = None,
) -> DatasetTests:
    """The task's paired test of A against B (alternative "greater") on each (name, gold, A, B) dataset.

    Parameters
    ----------
    datasets
        (name, gold, prediction of A, prediction of B), as the task's `compare` reads them (files, folders).
    task
        A registered task with a comparison (releval.registry.get_task); one for every dataset.
    configs
        {dataset name: the task's Config for it} — the same Config for all, or one per dataset (DocRED: its
        train facts).
    test
        bootstrap or randomization (McNemar and the sign test too for a task whose unit is the item).
    metric
        One of the measures the task's comparison reports (`releval compare --task NAME` lists them); default
        the task's headline measure (its first `measures`, else the comparison's first).
    progress
        Called with 1 after each dataset is tested (no number depends on it).

    Every dataset's input problems are reported together, each named by its dataset (DatasetInputError). The
    settings are the signature fields the datasets' comparisons share (resamples, seed, the Config's settings);
    a field that differs between datasets (e.g. DocRED's train facts digest) is recorded per dataset,
    `name=value,…`. The warnings of each comparison are kept, named by dataset.

    >>> from releval.registry import get_task
    >>> task_dataset_tests([], get_task("docred"), {})
    Traceback (most recent call last):
    ...
    releval.core.errors.InputError: field 'dataset': no datasets given
    """
    from releval.significance.config import SignificanceConfig

    if task.compare is None:
        raise OptionError(f"--task {task.name!r} has no comparison", option="--task")
    check_choice(test, PAIRED_TESTS if task.unit == "item" else RESAMPLING_TESTS, "--test")
    if not datasets:
        raise InputError("no datasets given", field="dataset")
    significance = SignificanceConfig((test,), "greater", resamples, seed)
    compare = resolve(task.compare)
    errors: list[InputError] = []
    found: list[tuple[str, Any, Any]] = []
    for name, gold, pred_a, pred_b in datasets:
        try:
            systems = {SYSTEMS[0]: [pred_a], SYSTEMS[1]: [pred_b]}
            table = compare(gold, systems, configs[name], significance, baseline=None, progress=None)
        except (InputError, InputErrors) as exc:
            located = in_dataset(name, exc)
            options = [e for e in located if isinstance(e, OptionError)]
            if options:  # a setting that cannot be used: no point reading the other datasets
                raise options[0] from None
            errors += located
            continue
        finally:
            if progress is not None:
                progress(1)
        found.append((name, table, _measure_row(table, metric, task)))
    raise_all(errors)
    metrics = {row.metric for _, _, row in found}
    measure = metrics.pop() if len(metrics) == 1 else str(metric)
    details: list[dict[str, object]] = [
        {
            "dataset": name,
            "n": table.n,
            "unit": table.unit,
            "p": float(row.p_value),
            "effect": float(row.effect),
            "score_a": float(row.score_a),
            "score_b": float(row.score_b),
            "signature": str(table.signature),
        }
        for name, table, row in found
    ]
    warnings = [Notice(f"{name}: {w}", w.code) for name, table, _ in found for w in table.warnings]
    return DatasetTests(
        [name for name, _, _ in found],
        np.asarray([row.p_value for _, _, row in found], dtype=float),
        np.asarray([row.effect for _, _, row in found], dtype=float),
        test_label(task.name, significance.test_name(test), measure),
        details,
        shared_settings([(name, table.signature.fields) for name, table, _ in found]),
        warnings,
    )


def shared_settings(signatures: Sequence[tuple[str, Mapping[str, str]]]) -> dict[str, object]:
    """The settings of the datasets' signatures for the analysis' signature: a field every dataset has with one
    value is kept as it is; one whose value differs (or that some lack) becomes `name=value,…` over the datasets
    (`releval.replicability.analysis.per_dataset`); the fields the analysis states itself are left out.

    >>> shared_settings([("x", {"train": "ab", "seed": "1", "n": "5"}), ("y", {"train": "cd", "seed": "1"})])
    {'train': 'x=ab,y=cd', 'seed': '1'}
    """
    kept = [(name, {k: v for k, v in fields.items() if k not in _DATA_FIELDS}) for name, fields in signatures]
    return per_dataset(kept)
