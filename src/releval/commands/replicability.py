"""`releval replicability analyze|simulate`: counting and identifying datasets with an effect (Dror et al. 2017)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from releval.commands.base import PATH, Argument, Choice, Group
from releval.commands.common import (
    check_choice,
    check_output_target,
    emit,
    format_option,
    output_option,
)
from releval.commands.compare import comparable
from releval.commands.inputs import GROUPS, Inputs, input_options, refuse_foreign, task_option
from releval.commands.progress import progress_bar, progress_option, progress_wanted
from releval.commands.settings import Settings, config_of, setting_options
from releval.core.errors import OptionError
from releval.core.notices import as_notices
from releval.core.options import (
    DEFAULT_ALPHA,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    PAIRED_TESTS,
    RESAMPLING_TESTS,
)
from releval.core.validation import check_resamples, check_seed, refuse_options
from releval.data.pvalues import TABLE_FORMATS, load_pvalues
from releval.metrics.weightings import weighting_names
from releval.replicability.analysis import (
    DEFAULT_PC_METHODS,
    PC_METHODS,
    analyze,
    check_alpha,
    check_metric,
    normalise_id_method,
)
from releval.replicability.simulation import SCENARIOS, simulate
from releval.report.replicability_report import (
    FORMATS,
    render_analysis,
    render_simulation,
    require_matplotlib,
    simulation_figure,
    write_bytes_atomic,
)
from releval.significance.paired import CORRECTNESS_TITLES

replicability_app = Group(
    "replicability",
    help="Replicability analysis across datasets: on how many datasets is A better than B, and which ones.",
    no_args_is_help=True,
)


def _figure_callback(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """Refuse a bad --figure path (a directory, below a file, a link or device) while parsing, before the run."""
    return check_output_target(value, "--figure")


def _methods(value: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(m.strip().lower() for m in value.split(",") if m.strip()))
    for m in names:
        check_choice(m, PC_METHODS, "--estimators")
    return names


def _dependence(dependent: bool, positive: bool) -> str:
    refuse_options({"--independent": positive and not dependent}, "give either --independent or --positive-dependence")
    return "positive" if positive else ("dependent" if dependent else "independent")


def _analyze_and_emit(
    p,
    names,
    effects,
    alpha: float,
    dependence: str,
    method: str,
    pc: tuple[str, ...],
    format: str,
    per_u: bool,
    output: Path | None,
    test: str | None = None,
    settings: dict[str, object] | None = None,
    notices: Sequence[str] | None = None,
) -> None:
    """Run the analysis, send its warnings to stderr and write the rendered result; `test`, `settings` and
    `notices` record how from-predictions made the p-values."""
    result = analyze(
        p,
        alpha,
        names=names,
        effects=effects,
        dependence=dependence,
        method=method,
        pc_methods=pc,
        one_sided=test is not None,
    )
    if test is not None or settings or notices:
        result = replace(
            result, test=test, settings=dict(settings or {}), warnings=[*as_notices(notices or []), *result.warnings]
        )
    for w in result.warnings:
        click.echo(f"warning: {w}", err=True)
    emit(render_analysis(result, format, per_u=per_u), output)


@replicability_app.command("analyze")
@click.argument(
    "pvalues",
    cls=Argument,
    type=PATH,
    help="Table of per-dataset one-sided p-values: CSV/TSV/JSON with columns dataset, p and optionally effect (A - B).",
)
@click.option(
    "--alpha", "-a", "alpha", type=float, default=DEFAULT_ALPHA, help="Bound on P(k_hat > k) and on the FWER."
)
@click.option(
    "--dependent/--independent",
    "dependent",
    default=True,
    help="Dependence between datasets: --dependent (default; any dependence, Bonferroni/Holm) or "
    "--independent (Fisher's k is the recommended count).",
)
@click.option(
    "--positive-dependence",
    "positive",
    is_flag=True,
    default=False,
    help="Assume positively dependent (PRDS) test statistics: Simes' k is the recommended count.",
)
@click.option(
    "--method",
    "-m",
    "method",
    default="holm",
    help="Identification: holm, bonferroni, hochberg, hommel, fdr_bh (also fdr_by, sidak, holm_sidak, fdr_tsbh).",
)
@click.option(
    "--estimators",
    "estimators",
    default=",".join(DEFAULT_PC_METHODS),
    help=f"Partial-conjunction estimators to report ({', '.join(PC_METHODS)}).",
)
@click.option(
    "--per-u", "per_u", is_flag=True, default=False, help="Also show the partial-conjunction p-values for every u."
)
@click.option(
    "--table-format",
    "input_format",
    default=None,
    help=f"Input format ({', '.join(TABLE_FORMATS)}); default: from the extension.",
)
@format_option(FORMATS)
@output_option()
def analyze_command(
    pvalues: Path,
    alpha: float,
    dependent: bool,
    positive: bool,
    method: str,
    estimators: str,
    per_u: bool,
    input_format: str | None,
    format: str,
    output: Path | None,
) -> None:
    """Count (k_hat) and identify the datasets on which system A is better than system B."""
    check_choice(format, FORMATS, "--format")
    check_alpha(alpha)
    normalise_id_method(method)
    pc = _methods(estimators)
    dependence = _dependence(dependent, positive)
    if input_format is not None:
        check_choice(input_format.lower(), TABLE_FORMATS, "--table-format")
    table = load_pvalues(pvalues, format=input_format)
    _analyze_and_emit(table.p, table.datasets, table.effect, alpha, dependence, method, pc, format, per_u, output)


#: from-predictions' arguments for one gold and two prediction files (the input and settings stages' matrix tests).
_EXAMPLE = ("-d", "x={gold},{pred},{pred2}", "-R", "50")


def _parse_dataset(spec: str) -> tuple[str, Path, Path, Path]:
    """NAME=GOLD,PRED_A,PRED_B -> (name, gold, a, b)."""
    name, sep, files = spec.partition("=")
    paths = [Path(f.strip()) for f in files.split(",") if f.strip()]
    if not sep or not name.strip() or len(paths) != 3:
        raise OptionError(f"--dataset expects NAME=GOLD,PRED_A,PRED_B, got {spec!r}", option="--dataset")
    return name.strip(), paths[0], paths[1], paths[2]


@replicability_app.command("from-predictions")
@click.option(
    "--dataset",
    "-d",
    "dataset",
    multiple=True,
    required=True,
    help="NAME=GOLD,PRED_A,PRED_B (repeatable; one per dataset). GOLD and PRED as `releval compare --task` reads "
    "them (DocRED JSON, a DrugProt gold folder, …).",
)
@task_option(
    "rc",
    "The task of every dataset (one for all, so that every p-value tests the same measure): rc (labels per item, "
    "default), or any registered task with a comparison (docred, ranked, fewrel, e2e, chemprot-blue, …); the "
    "dataset's paired test is the one `releval compare --task NAME` runs, over the task's unit.",
    needs="compare",
)
@click.option(
    "--test",
    "-t",
    "test",
    type=Choice(PAIRED_TESTS),
    default="bootstrap",
    help=f"One-sided paired test: {', '.join(PAIRED_TESTS)} (McNemar and sign: tasks whose unit is the item).",
)
@click.option(
    "--metric",
    "metric",
    default=None,
    help=f"The measure tested. --task rc: the F average of {' or '.join(RESAMPLING_TESTS)} (micro, default; "
    f"{', '.join(weighting_names())}). Other tasks: one of the measures `releval compare --task NAME` reports "
    "(default its headline: docred f1, ranked auc, fewrel accuracy, e2e strict:micro, …); others are refused, "
    "listing them.",
)
@click.option(
    "--dataset-setting",
    "dataset_settings",
    multiple=True,
    metavar="NAME:KEY=VALUE",
    help="A setting of the task's Config for dataset NAME only, replacing the option's value there (repeatable; "
    "VALUE read as JSON when it parses, else as text), e.g. redocred:train_facts=re_train.fact. The input options "
    "(--train-facts, --duplicates, …) apply to every dataset. Not for --task rc.",
)
@click.option(
    "--resamples",
    "-R",
    "resamples",
    type=click.IntRange(min=1),
    default=DEFAULT_RESAMPLES,
    help="Bootstrap resamples / AR trials.",
)
@click.option(
    "--seed",
    "seed",
    type=int,
    default=DEFAULT_SEED,
    help="Random seed of the resampling tests (same for every dataset).",
)
@input_options("replicability from-predictions", _EXAMPLE, needs="compare", groups=GROUPS)
@setting_options(
    "replicability from-predictions",
    _EXAMPLE,
    needs="compare",
    groups=GROUPS,
    unused={
        "--weighting": "--metric names the one average tested",
        "--criterion": "--metric names the criterion tested (strict:micro)",
        "--relaxed": "--metric names the criterion tested; Relaxed is not among them",
    },
)
@click.option(
    "--alpha", "-a", "alpha", type=float, default=DEFAULT_ALPHA, help="Bound on P(k_hat > k) and on the FWER."
)
@click.option(
    "--dependent/--independent", "dependent", default=True, help="Dependence between datasets (see `analyze`)."
)
@click.option(
    "--positive-dependence",
    "positive",
    is_flag=True,
    default=False,
    help="Assume PRDS: Simes' k is recommended.",
)
@click.option("--method", "-m", "method", default="holm", help="Identification procedure (see `analyze`).")
@click.option("--estimators", "estimators", default=",".join(DEFAULT_PC_METHODS), help="Estimators to report.")
@click.option(
    "--per-u", "per_u", is_flag=True, default=False, help="Also show the partial-conjunction p-values for every u."
)
@progress_option()
@format_option(FORMATS)
@output_option()
def from_predictions_command(
    dataset: tuple[str, ...],
    task: str,
    test: str,
    metric: str | None,
    dataset_settings: tuple[str, ...],
    resamples: int,
    seed: int,
    inputs: Inputs,
    settings: Settings,
    alpha: float,
    dependent: bool,
    positive: bool,
    method: str,
    estimators: str,
    per_u: bool,
    progress: bool | None,
    format: str,
    output: Path | None,
) -> None:
    """Run a one-sided paired test (A better than B) on every dataset, then the replicability analysis.

    With --task NAME every dataset is tested as `releval compare --task NAME` tests two systems (its unit, its
    measures) with the alternative "greater"; the task's input options apply to every dataset, --dataset-setting
    changes one dataset's.
    """
    from releval.registry import get_task

    check_choice(format, FORMATS, "--format")
    the_task = get_task(task)
    check_choice(test, PAIRED_TESTS, "--test")
    refuse_options(
        {"--test": the_task.unit != "item" and test not in RESAMPLING_TESTS},
        f"{CORRECTNESS_TITLES} need per-item correctness, which --task {the_task.name} does not have (its unit: "
        f"{the_task.unit}); use {' or '.join(RESAMPLING_TESTS)}",
    )
    check_resamples(resamples)
    check_seed(seed)
    check_alpha(alpha)
    normalise_id_method(method)
    pc = _methods(estimators)
    dependence = _dependence(dependent, positive)
    specs = [_parse_dataset(d) for d in dataset]
    names = [s[0] for s in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise OptionError(f"--dataset: name(s) used twice: {', '.join(dupes)}", option="--dataset")
    refuse_foreign(the_task, {**inputs.given_fields(), **settings.given_fields()}, comparable)
    refuse_options(
        {"--relation-names": inputs.relation_names is not None},
        "not used by replicability (no per-relation table; `score` and `plot per-class` show the names)",
    )
    if the_task.dataset_tests is not None:  # the task's own path (relation classification: per-item tests)
        refuse_options(
            {"--dataset-setting": bool(dataset_settings)},
            f"not for --task {task}: its input options apply to every dataset",
        )
        refuse_options(
            {"--metric": metric not in (None, "micro") and test not in RESAMPLING_TESTS},
            f"applies to --test {' or '.join(RESAMPLING_TESTS)} only ({CORRECTNESS_TITLES} use accuracy)",
        )
        config = config_of(the_task, inputs, settings, among=comparable)
        with progress_bar(2 * len(specs), "testing datasets", progress_wanted(progress)) as advance:
            tests = the_task.dataset_tests(
                specs,
                test=test,
                metric=check_metric(metric or "micro"),
                config=config,
                resamples=resamples,
                seed=seed,
                progress=advance,
            )
    else:
        from releval.replicability.task_tests import task_dataset_tests

        configs = _task_configs(the_task, inputs, settings, names, dataset_settings, metric)
        with progress_bar(len(specs), "testing datasets", progress_wanted(progress)) as advance:
            tests = task_dataset_tests(
                specs, the_task, configs, test=test, metric=metric, resamples=resamples, seed=seed, progress=advance
            )
    _analyze_and_emit(
        tests.pvalues,
        tests.names,
        tests.effects,
        alpha,
        dependence,
        method,
        pc,
        format,
        per_u,
        output,
        tests.test,
        dict(tests.settings),
        list(tests.warnings),
    )


def _dataset_settings(items: Sequence[str], names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """--dataset-setting NAME:KEY=VALUE items as {dataset: {key: value}}, VALUE read as JSON when it parses (3,
    true, ["a.fact", "b.fact"]), else as text.

    >>> _dataset_settings(["x:train_facts=t.fact", "x:evidence=false"], ["x", "y"])
    {'x': {'train_facts': 't.fact', 'evidence': False}}
    """
    import json

    out: dict[str, dict[str, Any]] = {}
    for item in items:
        head, eq, value = item.partition("=")
        name, colon, key = head.rpartition(":")
        if not (eq and colon and name.strip() and key.strip()):
            raise OptionError(f"--dataset-setting expects NAME:KEY=VALUE, got {item!r}", option="--dataset-setting")
        name, key = name.strip(), key.strip()
        if name not in names:
            raise OptionError(
                f"--dataset-setting {item!r}: no dataset {name!r} (datasets: {', '.join(names)})",
                option="--dataset-setting",
            )
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        out.setdefault(name, {})[key] = parsed
    return out


#: The criteria of end-to-end RE's measures (`strict:micro`), as `releval compare --task e2e` names them.
_E2E_CRITERIA = ("strict", "boundaries", "ner")


def _task_configs(
    task: Any, inputs: Inputs, settings: Settings, names: Sequence[str], items: Sequence[str], metric: str | None
) -> dict[str, Any]:
    """Each dataset's Config of `task`: the input and setting options (every dataset) with its --dataset-setting
    values over them. The class weightings are compare's defaults, plus the one --metric names when it is another
    (power:0.5); end-to-end RE compares strict and boundaries as compare does (NER when --metric asks for it)."""
    from releval.core.options import DEFAULT_WEIGHTING_NAMES
    from releval.metrics.weightings import get_weighting

    base: dict[str, Any] = {}
    criterion, _, average = (metric or "").partition(":")
    if criterion not in _E2E_CRITERIA:  # a weighting's own colon: power:0.5
        average = metric or ""
    if "weightings" in task.settings:
        weightings = [get_weighting(w).name for w in DEFAULT_WEIGHTING_NAMES]
        try:
            extra = get_weighting(average).name if average else None
        except OptionError:  # not a weighting (ign_f1, auc, …): the task's comparison checks it
            extra = None
        base["weightings"] = (*weightings, *([extra] if extra and extra not in weightings else []))
    if "criteria" in task.settings:
        base |= {"criteria": ("strict", "boundaries"), "ner": criterion == "ner"}
    overrides = _dataset_settings(items, names)
    configs = {}
    for name in names:
        own = overrides.get(name, {})
        try:
            configs[name] = config_of(task, inputs, settings, among=comparable, **{**base, **own})
        except OptionError as exc:
            if not own:
                raise
            raise OptionError(f"--dataset-setting {name}: {exc.message}", option="--dataset-setting") from None
    return configs


@replicability_app.command("simulate")
@click.option("--reps", "-r", "reps", type=click.IntRange(min=1), default=1000, help="Repetitions per scenario.")
@click.option("--seed", "seed", type=int, default=DEFAULT_SEED, help="Seed of numpy's default generator (PCG64).")
@click.option(
    "--n",
    "n",
    type=click.IntRange(min=1),
    default=100,
    help="Datasets per repetition (the dependent scenario needs 100).",
)
@click.option("--alpha", "-a", "alpha", type=float, default=DEFAULT_ALPHA)
@click.option(
    "--scenario",
    "scenario",
    type=Choice(("both", *SCENARIOS)),
    default="both",
    help="independent, dependent or both.",
)
@click.option(
    "--estimators",
    "estimators",
    default=",".join(DEFAULT_PC_METHODS),
    help=f"Partial-conjunction estimators ({', '.join(PC_METHODS)}).",
)
@click.option(
    "--figure",
    "figure",
    type=PATH,
    default=None,
    help="Write a k_hat histogram (PNG/PDF/SVG; needs matplotlib).",
    callback=_figure_callback,
)
@progress_option()
@format_option(FORMATS)
@output_option()
def simulate_command(
    reps: int,
    seed: int,
    n: int,
    alpha: float,
    scenario: str,
    estimators: str,
    figure: Path | None,
    progress: bool | None,
    format: str,
    output: Path | None,
) -> None:
    """Dror et al. §5: how often each k_hat overclaims when all N nulls are true."""
    check_choice(format, FORMATS, "--format")
    check_choice(scenario, ("both", *SCENARIOS), "--scenario")
    check_alpha(alpha)
    check_seed(seed)
    pc = _methods(estimators)
    fig_format = None
    if figure is not None:
        refuse_options(
            {"--figure": output is not None and os.path.abspath(figure) == os.path.abspath(output)},
            "names the same file as --output",
        )
        fig_format = figure.suffix.lower().lstrip(".") or "png"
        check_choice(fig_format, ("png", "pdf", "svg"), "--figure")
        require_matplotlib()
    scenarios = SCENARIOS if scenario == "both" else (scenario,)
    with progress_bar(reps * len(scenarios), "simulating", progress_wanted(progress)) as advance:
        sim = simulate(reps, seed, n=n, alpha=alpha, scenarios=scenarios, methods=pc, progress=advance)
    text = render_simulation(sim, format)
    image = simulation_figure(sim, fig_format) if figure is not None and fig_format else None
    emit(text, output)
    if figure is not None and image is not None:
        write_bytes_atomic(figure, image, what="--figure")
        click.echo(f"wrote {figure}", err=True)


def register(app: click.Group) -> None:
    """Add the `replicability` command group."""
    app.add_command(replicability_app)
