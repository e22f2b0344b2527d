"""`releval compare` (paired tests or seed comparisons of several systems) and `releval check-stats` (audit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import click

from releval.commands.base import PATH, Argument, Choice, Command
from releval.commands.common import check_choice, emit, emit_result, format_option, output_option
from releval.commands.inputs import GROUPS, Inputs, input_options, task_option
from releval.commands.progress import progress_bar, progress_option, progress_wanted
from releval.commands.settings import Settings, config_of, setting_options
from releval.core.errors import InputError, OptionError, raise_all
from releval.core.options import (
    ALTERNATIVES,
    CLASS_SETS,
    CORRECTIONS,
    DEFAULT_CLASS_SET,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MCNEMAR_VARIANTS,
    OUTPUT_FORMATS,
    PAIRED_TESTS,
    READINGS,
    RESAMPLING_TESTS,
)
from releval.core.validation import (
    check_choices,
    check_int,
    check_width,
    refuse_options,
)
from releval.data.claim_tables import load_check_table


def comparable() -> list[str]:
    """The registered tasks with a comparison (Task.compare): the ones an option refused by `compare` is named for."""
    from releval.registry import tasks_with

    return tasks_with("compare")


#: compare's arguments for one gold and two prediction files (the input and settings stages' matrix tests).
_EXAMPLE = ("{gold}", "-s", "a={pred}", "-s", "b={pred2}", "-R", "50")


def parse_system(spec: str) -> tuple[str, list[Path]]:
    """NAME=PRED[,PRED…] → (name, files); a PRED with `*`, `?` or `[` is a pattern for several runs
    (`A=runs/*/pred.txt`), expanded here in sorted order so that it works quoted and on any shell.

    >>> parse_system("A=a1.txt,a2.txt")
    ('A', [PosixPath('a1.txt'), PosixPath('a2.txt')])
    """
    import glob

    name, sep, files = spec.partition("=")
    parts = [f.strip() for f in files.split(",") if f.strip()]
    if not sep or not name.strip() or not parts:
        raise OptionError(f"--system expects NAME=PRED[,PRED…], got {spec!r}", option="--system")
    paths: list[Path] = []
    for part in parts:
        if glob.has_magic(part):  # type: ignore[attr-defined]
            matches = sorted(glob.glob(part))
            if not matches:
                raise OptionError(f"--system {name.strip()}: no file matches {part!r}", option="--system")
            paths += map(Path, matches)
        else:
            paths.append(Path(part))
    return name.strip(), paths


@click.command("compare", cls=Command)
@click.argument(
    "gold",
    cls=Argument,
    type=PATH,
    help="Gold file (SemEval key, TACRED JSON, TACRev JSONL, JSONL/CSV/TSV; --task e2e: SpERT/PURE JSON).",
)
@click.argument(
    "preds",
    cls=Argument,
    type=PATH,
    nargs=-1,
    help="Prediction files, one system each: PATH or NAME=PATH, as `releval score` takes them (or --system); "
    "none and no --system: GOLD is a wide TSV whose system columns are compared.",
)
@click.option(
    "--system",
    "-s",
    "system",
    multiple=True,
    help="NAME=PRED[,PRED…]; several files = runs over seeds (repeatable).",
)
@task_option("rc", "rc (labels per item), e2e (entities and relations), or another registered task.", needs="compare")
@click.option(
    "--test", "-t", "test", default="bootstrap", help=f"Paired tests, comma-separated: {', '.join(PAIRED_TESTS)}."
)
@click.option(
    "--mcnemar",
    "mcnemar_variant",
    type=Choice(MCNEMAR_VARIANTS),
    default="exact",
    help="McNemar: exact (binomial), chi2, or chi2-corrected (Edwards).",
)
@click.option("--ner", "ner", is_flag=True, default=False, help="e2e: also compare NER strict.")
@input_options("compare", _EXAMPLE, needs="compare", groups=GROUPS)
@setting_options("compare", _EXAMPLE, needs="compare", groups=GROUPS)
@click.option(
    "--resamples", "-R", "resamples", type=int, default=DEFAULT_RESAMPLES, help="Bootstrap resamples / AR trials."
)
@click.option("--seed", "seed", type=int, default=DEFAULT_SEED, help="Random seed (recorded in the signature).")
@click.option(
    "--alternative",
    "alternative",
    type=Choice(ALTERNATIVES),
    default="two-sided",
    help="two-sided, greater (A > B) or less.",
)
@click.option(
    "--confidence", "confidence", type=float, default=0.95, help="Level of the bootstrap percentile intervals."
)
@click.option(
    "--class-set",
    "class_set",
    type=Choice(CLASS_SETS),
    default=DEFAULT_CLASS_SET,
    help="Classes each bootstrap resample's macro-F averages over: test (the test set's, fixed in every resample, "
    "as the score) or resample (those with gold items in the resample; releval 0.3.0).",
)
@click.option("--baseline", "baseline", default=None, help="Compare every system with this one only.")
@click.option(
    "--correction", "correction", type=Choice(CORRECTIONS), default="holm", help="Across pairs: holm, bonferroni, none."
)
@click.option(
    "--per-class",
    "per_class",
    is_flag=True,
    default=False,
    help="Two systems: which classes drive the difference (per-class Δ, CI, p adjusted across classes).",
)
@click.option(
    "--all-pairs/--compact",
    "all_pairs",
    default=None,
    help="Text/markdown/latex: every pair's rows, or the compact view (a matrix of Δ and of adjusted p, and tie "
    "groups; the default above 4 systems). CSV and JSON always hold every pair.",
)
@click.option(
    "--rank-intervals",
    "rank_intervals",
    is_flag=True,
    default=False,
    help="Each system's rank and bootstrap rank interval (the range of its ranks in the central --confidence share "
    "of resamples of one joint draw of the units for every system; a system with several files is ranked by the mean "
    "of its runs in each resample; every task declaring rank_intervals: all with a comparison but ranked).",
)
@click.option(
    "--evaluate-measures",
    "evaluate_measures",
    is_flag=True,
    default=False,
    help="Also evaluate the measures from these systems: each measure's discriminative power (share of pairs "
    "significant), Kendall's τ between the measures' rankings, the pairs they order differently and (rc) the swap "
    "rate between halves of the test set (releval.significance.meta; all pairs, one file per system).",
)
@click.option("--splits", "splits", type=int, default=1000, help="--evaluate-measures: random splits into halves (rc).")
@progress_option()
@format_option()
@click.option("--width", "width", type=int, default=2, help="Decimals of percentages.")
@output_option()
def compare_command(
    gold: Path,
    preds: tuple[Path, ...],
    system: tuple[str, ...],
    task: str,
    test: str,
    mcnemar_variant: str,
    ner: bool,
    inputs: Inputs,
    settings: Settings,
    resamples: int,
    seed: int,
    alternative: str,
    confidence: float,
    class_set: str,
    baseline: str | None,
    correction: str,
    per_class: bool,
    all_pairs: bool | None,
    rank_intervals: bool,
    evaluate_measures: bool,
    splits: int,
    progress: bool | None,
    format: str,
    width: int,
    output: Path | None,
) -> None:
    """Compare systems on one test set: paired tests (one file per system) or Welch/Cohen over seeds (several).

    Every pair (or every system against --baseline) is tested under micro and each weighting; p-values are
    adjusted across pairs (Holm by default). Resampling tests use a fixed seed, recorded in the signature.
    With --task e2e, end-to-end RE systems are compared per criterion, resampling sentences.
    """
    from releval.registry import get_task

    the_task = get_task(task)
    tests = [t.strip() for t in test.split(",") if t.strip()]
    # McNemar and the sign test count items one system got right and the other wrong: only item-level tasks have them
    check_choices(tests, PAIRED_TESTS if the_task.unit == "item" else RESAMPLING_TESTS, "--test")
    check_width(width)
    from releval.significance.config import SignificanceConfig  # it checks every setting of the test

    test_config = SignificanceConfig(
        tuple(tests), alternative, resamples, seed, confidence, correction, mcnemar_variant, class_set
    )
    specs = _systems(gold, preds, system, inputs, the_task, baseline)
    names = [n for n, _ in specs]
    show = progress_wanted(progress)
    refuse_options({"--mcnemar": the_task.unit != "item" and mcnemar_variant != "exact"}, "applies to --task rc only")
    refuse_options(
        {"--per-class": per_class and not the_task.compare_per_class},
        f"not for --task {task} (its comparison has no per-class test; `score` shows each class)",
    )
    # e2e compares NER only when asked (score always shows it)
    ner_setting = {"ner": ner} if "ner" in the_task.settings else {}
    own = {"--ner": ("ner",)} if ner else {}
    config = config_of(the_task, inputs, settings, among=comparable, own=own, **ner_setting)
    if per_class:
        _per_class(gold, specs, config, test_config, tests, format, width, output)
        return
    from releval.significance.compare import paired_steps, system_pairs

    compare = the_task.compare
    assert compare is not None  # task_option(needs="compare") refused a task without one
    paired = all(len(paths) == 1 for _, paths in specs)
    criteria = len(getattr(config, "all_criteria", ())) or 1  # e2e resamples each criterion on its own
    total = paired_steps(len(system_pairs(names, baseline)), test_config, criteria) if paired else 0
    refuse_options(
        {"--evaluate-measures": evaluate_measures and (baseline is not None or not paired)},
        "needs every pair (no --baseline) of one prediction file per system",
    )
    if splits < 1:
        raise OptionError(f"--splits: at least 1, got {splits}", option="--splits")
    if rank_intervals and the_task.rank_intervals is None:
        from releval.registry import tasks_with

        raise OptionError(
            f"--rank-intervals: --task {' or '.join(tasks_with('rank_intervals'))}", option="--rank-intervals"
        )
    with progress_bar(total, "comparing", show and paired) as advance:
        table = compare(gold, dict(specs), config, test_config, baseline=baseline, progress=advance)
    if rank_intervals and the_task.rank_intervals is not None:
        from dataclasses import replace

        ranks = the_task.rank_intervals(gold, dict(specs), config, test_config)  # seeds: ranked by their mean
        if paired:
            table = replace(table, ranks=ranks)
        else:  # the seed tests draw nothing: the signature gains the rank draw's settings
            table = replace(
                table, ranks=ranks, confidence=test_config.confidence, signature=_rank_signed(table, test_config)
            )
    if evaluate_measures:
        table = _with_measures(table, the_task, gold, specs, config, test_config, splits)
    emit_result(table, format, width, output, all_pairs=all_pairs)


def _rank_signed(table: Any, test: Any) -> Any:
    """A seed table's signature with what its rank intervals were drawn with: resamples, seed, level, class set."""
    from releval.core.signature import Signature

    seed = test.seed if test.seed is not None else "none"
    drawn = {
        "resamples": test.resamples,
        "seed": seed,
        "confidence": float(test.confidence),
        "class_set": test.class_set,
    }
    return Signature.build(**{**table.signature.fields, **drawn})


def _with_measures(table: Any, the_task: Any, gold: Path, specs: Any, config: Any, test: Any, splits: int) -> Any:
    """The table with the meta-evaluation of its measures (`--evaluate-measures`): the task's joint draws and
    split halves when it has them (releval.tasks.base.Task.measure_draws)."""
    from dataclasses import replace

    from releval.significance.meta import evaluate_measures

    draws = halves = None
    if the_task.measure_draws is not None and "bootstrap" in test.tests:
        draws, halves = the_task.measure_draws(gold, dict(specs), config, test, splits)
    return replace(table, measures=evaluate_measures(table, draws, halves=halves))


def _systems(
    gold: Path, preds: tuple[Path, ...], system: tuple[str, ...], inputs: Inputs, task: Any, baseline: str | None
) -> list[tuple[str, list[Path]]]:
    """The systems compared, [(name, runs)]: --system specs, then PRED arguments, else a wide TSV's columns; fewer
    than two, a name used twice or a --baseline that is none of them is refused before any prediction is read."""
    specs = [parse_system(s) for s in system] + _positional_systems(preds, gold)
    if not specs:  # a wide TSV alone: one system per column (releval.commands.wide; gold is read again as gold)
        from releval.commands.wide import wide_systems

        specs = [(name, [one]) for name, one in wide_systems(gold, inputs, "compare", task)[1]]
    if len(specs) < 2:
        raise OptionError("compare needs two or more systems: PRED files or --system NAME=PRED", option="--system")
    names = [n for n, _ in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise OptionError(f"--system: name(s) used twice: {', '.join(dupes)}", option="--system")
    if baseline is not None and baseline not in names:
        raise OptionError(f"--baseline {baseline!r} is not among the systems: {', '.join(names)}", option="--baseline")
    return specs


def _positional_systems(preds: tuple[Path, ...], gold: Path) -> list[tuple[str, list[Path]]]:
    """The PRED arguments as systems of one file each, named by NAME= or by the file (score's rules)."""
    from releval.commands.score import expand_preds

    out = []
    for name, path in expand_preds(preds, gold):
        stem = path.name
        for suffix in (".gz", ".jsonl", ".json", ".txt", ".tsv", ".csv"):
            stem = stem.removesuffix(suffix)
        out.append((name or stem, [path]))
    return out


def _per_class(
    gold: Path,
    specs: list[tuple[str, list[Path]]],
    config: Any,
    test: Any,
    tests: list[str],
    format: str,
    width: int,
    output: Path | None,
) -> None:
    """`compare --per-class`: for two systems of one file each, which classes drive their difference."""
    if len(specs) != 2 or any(len(paths) != 1 for _, paths in specs):
        raise OptionError("--per-class compares two systems of one prediction file each", option="--per-class")
    unsupported = [t for t in tests if t not in RESAMPLING_TESTS]
    if unsupported:
        raise OptionError(
            f"--test: {', '.join(unsupported)} has no per-class statistic (--per-class: bootstrap, randomization)",
            option="--test",
        )
    from releval.report.compare_report import render_per_class
    from releval.significance.per_class import per_class_table

    (a, (path_a,)), (b, (path_b,)) = specs
    result = per_class_table(gold, path_a, path_b, config, test, names=(a, b))
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    emit(render_per_class(result, format, width), output)


#: check_stats names a bad value by its table column; on the command line it is this option.
_FIELD_OPTIONS = {"a": "--a", "b": "--b", "claimed_p": "--claimed-p", "claimed_d": "--claimed-d"}


@click.command("check-stats", cls=Command)
@click.option("--a", "a", default=None, help="System A as printed: 'MEAN±SD', e.g. 72.5±0.3.")
@click.option("--b", "b", default=None, help="System B as printed, e.g. 71.5±0.4.")
@click.option("--n", "n", type=int, default=5, help="Runs per system (seeds).")
@click.option("--n-b", "n_b", type=int, default=None, help="Runs of B when they differ from A's.")
@click.option("--claimed-p", "claimed_p", default=None, help="Published p as printed (0.005, 3e-3, 3·10^-3).")
@click.option("--claimed-d", "claimed_d", default=None, help="Published Cohen's d (A − B) as printed.")
@click.option(
    "--table", "table", type=PATH, default=None, help="CSV/JSON of comparisons: name,a,b,n,claimed_p,claimed_d."
)
@click.option(
    "--alternative", "alternative", type=Choice(ALTERNATIVES), default="two-sided", help="two-sided, greater or less."
)
@click.option(
    "--reading",
    "reading",
    type=Choice(READINGS),
    multiple=True,
    default=READINGS,
    help="Readings of ±: sample, population.",
)
@format_option()
@output_option()
def check_stats_command(
    a: str | None,
    b: str | None,
    n: int,
    n_b: int | None,
    claimed_p: str | None,
    claimed_d: str | None,
    table: Path | None,
    alternative: str,
    reading: tuple[str, ...],
    format: str,
    output: Path | None,
) -> None:
    """Check published mean ± sd comparisons: the Welch t, p and Cohen's d compatible with the rounding.

    Exit code 1 when a claimed p or d is inconsistent under every reading of ±, 0 otherwise.
    """
    from releval.audit.published import StatsCheck, check_stats
    from releval.report.compare_report import render_checks

    check_choice(format, OUTPUT_FORMATS, "--format")
    check_choice(alternative, ALTERNATIVES, "--alternative")
    check_choices(reading, READINGS, "--reading")
    check_int(n, "--n", low=2)
    if n_b is not None:
        check_int(n_b, "--n-b", low=2)
    checks: list[StatsCheck] = []
    if table is not None:
        given = {"--a": a is not None, "--b": b is not None, "--claimed-p": claimed_p is not None}
        refuse_options({**given, "--claimed-d": claimed_d is not None}, "not used with --table (its rows give them)")
        errors = []
        for row in load_check_table(table):
            line = int(row["_line"]) if "_line" in row else None  # a CSV line, or a JSON list's record
            record = int(row["_record"]) if "_record" in row else None
            try:
                checks.append(
                    check_stats(
                        row["a"],
                        row["b"],
                        _int(row.get("n"), n, table, line, "n", record),
                        n_b=_int(row.get("n_b"), n_b, table, line, "n_b", record),
                        claimed_p=row.get("claimed_p") or None,
                        claimed_d=row.get("claimed_d") or None,
                        alternative=alternative,
                        readings=reading,
                        name=row.get("name", ""),
                    )
                )
            except InputError as exc:
                errors.append(InputError(exc.message, file=str(table), line=line, field=exc.field, record=record))
        raise_all(errors)
    else:
        if not a or not b:
            raise OptionError("--a and --b are both needed (or --table)", option="--a")
        try:
            checks.append(
                check_stats(
                    a,
                    b,
                    n,
                    n_b=n_b,
                    claimed_p=claimed_p,
                    claimed_d=claimed_d,
                    alternative=alternative,
                    readings=reading,
                )
            )
        except InputError as exc:
            if exc.field not in _FIELD_OPTIONS:
                raise
            option = _FIELD_OPTIONS[exc.field]
            raise OptionError(f"{option}: {exc.message}", option=option) from None
    emit(render_checks(checks, format), output)
    bad = any(c.p_consistent is False or c.d_consistent is False for c in checks)
    raise click.exceptions.Exit(1 if bad else 0)


_D = TypeVar("_D")  # the default's type: int stays int, int | None stays optional


def _int(value: str | None, default: _D, path: Path, line: int | None, fld: str, record: int | None = None) -> int | _D:
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise InputError(
            f"expected an integer, got {value!r}", file=str(path), line=line, field=fld, record=record
        ) from None


def register(app: click.Group) -> None:
    app.add_command(compare_command)
    app.add_command(check_stats_command)
