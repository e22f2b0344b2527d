"""`releval replicability analyze|simulate`: counting and identifying datasets with an effect (Dror et al. 2017)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import click

from releval.commands.base import PATH, Argument, Choice, Group
from releval.commands.common import (
    check_choice,
    check_output_target,
    emit,
    format_option,
    output_option,
)
from releval.commands.inputs import Inputs, input_options
from releval.commands.progress import progress_bar, progress_option, progress_wanted
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
    dataset_tests,
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
    result = analyze(p, alpha, names=names, effects=effects, dependence=dependence, method=method, pc_methods=pc)
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
    help="NAME=GOLD,PRED_A,PRED_B (repeatable; one per dataset).",
)
@click.option(
    "--test",
    "-t",
    "test",
    type=Choice(PAIRED_TESTS),
    default="bootstrap",
    help=f"One-sided paired test: {', '.join(PAIRED_TESTS)}.",
)
@click.option(
    "--metric",
    "metric",
    default="micro",
    help=f"F average tested by {' or '.join(RESAMPLING_TESTS)}: micro, {', '.join(weighting_names())}.",
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
@input_options("replicability from-predictions", ("-d", "x={gold},{pred},{pred2}", "-R", "50"))
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
    test: str,
    metric: str,
    resamples: int,
    seed: int,
    inputs: Inputs,
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
    """Run a one-sided paired test (A better than B) on every dataset, then the replicability analysis."""
    check_choice(format, FORMATS, "--format")
    check_choice(test, PAIRED_TESTS, "--test")
    refuse_options(
        {"--metric": metric != "micro" and test not in RESAMPLING_TESTS},
        f"applies to --test {' or '.join(RESAMPLING_TESTS)} only ({CORRECTNESS_TITLES} use accuracy)",
    )
    metric = check_metric(metric)
    check_resamples(resamples)
    check_seed(seed)
    check_alpha(alpha)
    normalise_id_method(method)
    pc = _methods(estimators)
    dependence = _dependence(dependent, positive)
    config = inputs.config()
    specs = [_parse_dataset(d) for d in dataset]
    names = [s[0] for s in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise OptionError(f"--dataset: name(s) used twice: {', '.join(dupes)}", option="--dataset")
    with progress_bar(2 * len(specs), "testing datasets", progress_wanted(progress)) as advance:
        tests = dataset_tests(
            specs, test=test, metric=metric, config=config, resamples=resamples, seed=seed, progress=advance
        )
    settings = dict(tests.settings)
    notices = list(tests.warnings)
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
        settings,
        notices,
    )


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
