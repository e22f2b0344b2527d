"""`releval replicability analyze|simulate`: counting and identifying datasets with an effect (Dror et al. 2017)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import typer

from releval.commands.common import (
    check_choice,
    check_output_target,
    emit,
    format_option,
    output_option,
    resolve_negative_option,
)
from releval.core.notices import as_notices
from releval.core.options import (
    DEFAULT_ALPHA,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MISSING_POLICIES,
    PAIRED_TESTS,
    RESAMPLING_TESTS,
)
from releval.data.labels import FORMATS as LABEL_FORMATS
from releval.data.pvalues import TABLE_FORMATS, load_pvalues
from releval.errors import OptionError
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
from releval.validation import check_resamples, check_seed, refuse_options

replicability_app = typer.Typer(
    name="replicability",
    help="Replicability analysis across datasets: on how many datasets is A better than B, and which ones.",
    no_args_is_help=True,
)


def _figure_callback(value: Path | None) -> Path | None:
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
        typer.echo(f"warning: {w}", err=True)
    emit(render_analysis(result, format, per_u=per_u), output)


@replicability_app.command("analyze")
def analyze_command(
    pvalues: Path = typer.Argument(
        ...,
        help="Table of per-dataset one-sided p-values: CSV/TSV/JSON with "
        "columns dataset, p and optionally effect (A - B).",
    ),
    alpha: float = typer.Option(DEFAULT_ALPHA, "--alpha", "-a", help="Bound on P(k_hat > k) and on the FWER."),
    dependent: bool = typer.Option(
        True,
        "--dependent/--independent",
        help="Dependence between datasets: --dependent (default; any dependence, Bonferroni/Holm) or "
        "--independent (Fisher's k is the recommended count).",
    ),
    positive: bool = typer.Option(
        False,
        "--positive-dependence",
        help="Assume positively dependent (PRDS) test statistics: Simes' k is the recommended count.",
    ),
    method: str = typer.Option(
        "holm",
        "--method",
        "-m",
        help="Identification: holm, bonferroni, hochberg, hommel, fdr_bh (also fdr_by, sidak, holm_sidak, fdr_tsbh).",
    ),
    estimators: str = typer.Option(
        ",".join(DEFAULT_PC_METHODS),
        "--estimators",
        help=f"Partial-conjunction estimators to report ({', '.join(PC_METHODS)}).",
    ),
    per_u: bool = typer.Option(False, "--per-u", help="Also show the partial-conjunction p-values for every u."),
    input_format: str | None = typer.Option(
        None, "--table-format", help=f"Input format ({', '.join(TABLE_FORMATS)}); default: from the extension."
    ),
    format: str = format_option(FORMATS),
    output: Path | None = output_option(),
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
def from_predictions_command(
    dataset: list[str] = typer.Option(
        ..., "--dataset", "-d", help="NAME=GOLD,PRED_A,PRED_B (repeatable; one per dataset)."
    ),
    test: str = typer.Option("bootstrap", "--test", "-t", help=f"One-sided paired test: {', '.join(PAIRED_TESTS)}."),
    metric: str = typer.Option(
        "micro",
        "--metric",
        help=f"F average tested by {' or '.join(RESAMPLING_TESTS)}: micro, {', '.join(weighting_names())}.",
    ),
    resamples: int = typer.Option(
        DEFAULT_RESAMPLES, "--resamples", "-R", min=1, help="Bootstrap resamples / AR trials."
    ),
    seed: int = typer.Option(
        DEFAULT_SEED, "--seed", help="Random seed of the resampling tests (same for every dataset)."
    ),
    input_format: str | None = typer.Option(
        None, "--input-format", help="Force the format of gold and prediction files (e.g. labels-lines)."
    ),
    on_missing: str = typer.Option(
        "error", "--on-missing", help=f"Missing predictions: {', '.join(MISSING_POLICIES)}."
    ),
    negative: str = typer.Option("auto", "--negative", help="Negative label; 'auto' detects no_relation/Other/NA."),
    no_negative: bool = typer.Option(False, "--no-negative", help="The data has no negative class."),
    alpha: float = typer.Option(DEFAULT_ALPHA, "--alpha", "-a", help="Bound on P(k_hat > k) and on the FWER."),
    dependent: bool = typer.Option(
        True, "--dependent/--independent", help="Dependence between datasets (see `analyze`)."
    ),
    positive: bool = typer.Option(False, "--positive-dependence", help="Assume PRDS: Simes' k is recommended."),
    method: str = typer.Option("holm", "--method", "-m", help="Identification procedure (see `analyze`)."),
    estimators: str = typer.Option(",".join(DEFAULT_PC_METHODS), "--estimators", help="Estimators to report."),
    per_u: bool = typer.Option(False, "--per-u", help="Also show the partial-conjunction p-values for every u."),
    format: str = format_option(FORMATS),
    output: Path | None = output_option(),
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
    negative_label = resolve_negative_option(negative, no_negative)
    if input_format is not None:
        check_choice(input_format, LABEL_FORMATS, "--input-format")
    specs = [_parse_dataset(d) for d in dataset]
    names = [s[0] for s in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise OptionError(f"--dataset: name(s) used twice: {', '.join(dupes)}", option="--dataset")
    check_choice(on_missing, MISSING_POLICIES, "--on-missing")
    from releval.tasks.classification import ClassificationConfig

    config = ClassificationConfig(negative=negative_label, on_missing=on_missing, pred_format=input_format)
    tests = dataset_tests(specs, test=test, metric=metric, config=config, resamples=resamples, seed=seed)
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
def simulate_command(
    reps: int = typer.Option(1000, "--reps", "-r", min=1, help="Repetitions per scenario."),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", help="Seed of numpy's default generator (PCG64)."),
    n: int = typer.Option(100, "--n", min=1, help="Datasets per repetition (the dependent scenario needs 100)."),
    alpha: float = typer.Option(DEFAULT_ALPHA, "--alpha", "-a"),
    scenario: str = typer.Option("both", "--scenario", help="independent, dependent or both."),
    estimators: str = typer.Option(
        ",".join(DEFAULT_PC_METHODS), "--estimators", help=f"Partial-conjunction estimators ({', '.join(PC_METHODS)})."
    ),
    figure: Path | None = typer.Option(
        None,
        "--figure",
        help="Write a k_hat histogram (PNG/PDF/SVG; needs matplotlib).",
        callback=_figure_callback,
    ),
    format: str = format_option(FORMATS),
    output: Path | None = output_option(),
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
    sim = simulate(reps, seed, n=n, alpha=alpha, scenarios=scenarios, methods=pc)
    text = render_simulation(sim, format)
    image = simulation_figure(sim, fig_format) if figure is not None and fig_format else None
    emit(text, output)
    if figure is not None and image is not None:
        write_bytes_atomic(figure, image, what="--figure")
        typer.echo(f"wrote {figure}", err=True)


def register(app: typer.Typer) -> None:
    """Add the `replicability` command group."""
    app.add_typer(replicability_app, name="replicability")
