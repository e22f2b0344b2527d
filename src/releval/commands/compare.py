"""`releval compare` (paired tests or seed comparisons of several systems) and `releval check-stats` (audit)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TypeVar

import typer

from releval.commands.common import check_choice, check_label_options, emit, emit_result, format_option, output_option
from releval.core.options import (
    ALTERNATIVES,
    CORRECTIONS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    DEFAULT_WEIGHTING_NAMES,
    MCNEMAR_VARIANTS,
    MISSING_POLICIES,
    OUTPUT_FORMATS,
    PAIRED_TESTS,
    READINGS,
    RESAMPLING_TESTS,
)
from releval.data.claim_tables import load_check_table
from releval.errors import InputError, OptionError, raise_all
from releval.metrics.weightings import get_weightings, weighting_names
from releval.validation import (
    check_choices,
    check_confidence,
    check_int,
    check_resamples,
    check_seed,
    check_width,
    refuse_options,
)

#: The tasks `compare` can test (the SemEval official scorer has no per-item statistics to resample).
COMPARE_TASKS = ("rc", "e2e")


def parse_system(spec: str) -> tuple[str, list[Path]]:
    """NAME=PRED[,PRED…] → (name, files)."""
    name, sep, files = spec.partition("=")
    paths = [Path(f.strip()) for f in files.split(",") if f.strip()]
    if not sep or not name.strip() or not paths:
        raise OptionError(f"--system expects NAME=PRED[,PRED…], got {spec!r}", option="--system")
    return name.strip(), paths


def compare_command(
    gold: Path = typer.Argument(
        ..., help="Gold file (SemEval key, TACRED JSON, TACRev JSONL, JSONL/CSV/TSV; --task e2e: SpERT/PURE JSON)."
    ),
    system: list[str] = typer.Option(
        ..., "--system", "-s", help="NAME=PRED[,PRED…]; several files = runs over seeds (repeatable)."
    ),
    task: str = typer.Option("rc", "--task", help="rc (labels per item) or e2e (entities and relations)."),
    test: str = typer.Option(
        "bootstrap", "--test", "-t", help=f"Paired tests, comma-separated: {', '.join(PAIRED_TESTS)}."
    ),
    mcnemar_variant: str = typer.Option(
        "exact", "--mcnemar", help="McNemar: exact (binomial), chi2, or chi2-corrected (Edwards)."
    ),
    criterion: str = typer.Option("strict,boundaries", "--criterion", help="e2e: strict,boundaries."),
    ner: bool = typer.Option(False, "--ner", help="e2e: also compare NER strict."),
    types: Path | None = typer.Option(None, "--types", help="e2e: SpERT types file (symmetric relations)."),
    weighting: list[str] = typer.Option(
        list(DEFAULT_WEIGHTING_NAMES),
        "--weighting",
        "-w",
        help=f"Weightings besides micro: {', '.join(weighting_names())} (repeatable).",
    ),
    resamples: int = typer.Option(DEFAULT_RESAMPLES, "--resamples", "-R", help="Bootstrap resamples / AR trials."),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", help="Random seed (recorded in the signature)."),
    alternative: str = typer.Option("two-sided", "--alternative", help="two-sided, greater (A > B) or less."),
    confidence: float = typer.Option(0.95, "--confidence", help="Level of the bootstrap percentile intervals."),
    baseline: str | None = typer.Option(None, "--baseline", help="Compare every system with this one only."),
    correction: str = typer.Option("holm", "--correction", help="Across pairs: holm, bonferroni, none."),
    negative: str = typer.Option("auto", "--negative", help="Negative label; 'auto' detects no_relation/Other/NA."),
    no_negative: bool = typer.Option(False, "--no-negative", help="The data has no negative class."),
    on_missing: str = typer.Option("error", "--on-missing", help="Missing predictions: error, negative, wrong."),
    by_position: bool = typer.Option(False, "--by-position", help="Align by line position instead of by id."),
    input_format: str | None = typer.Option(None, "--input-format", help="Force the format of the prediction files."),
    gold_format: str | None = typer.Option(None, "--gold-format", help="Force the gold file's format."),
    id_field: str = typer.Option("id", "--id-field", help="Id field of JSONL/CSV/TSV files."),
    label_field: str | None = typer.Option(None, "--label-field", help="Label field of JSONL/CSV/TSV files."),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help="Progress bar on stderr."),
    format: str = format_option(),
    width: int = typer.Option(2, "--width", help="Decimals of percentages."),
    output: Path | None = output_option(),
) -> None:
    """Compare systems on one test set: paired tests (one file per system) or Welch/Cohen over seeds (several).

    Every pair (or every system against --baseline) is tested under micro and each weighting; p-values are
    adjusted across pairs (Holm by default). Resampling tests use a fixed seed, recorded in the signature.
    With --task e2e, end-to-end RE systems are compared per criterion, resampling sentences.
    """
    check_choice(format, OUTPUT_FORMATS, "--format")
    check_choice(task, COMPARE_TASKS, "--task")
    check_choice(on_missing, MISSING_POLICIES, "--on-missing")
    check_choice(alternative, ALTERNATIVES, "--alternative")
    check_choice(correction, CORRECTIONS, "--correction")
    check_choice(mcnemar_variant, MCNEMAR_VARIANTS, "--mcnemar")
    tests = [t.strip() for t in test.split(",") if t.strip()]
    check_choices(tests, PAIRED_TESTS if task == "rc" else RESAMPLING_TESTS, "--test")
    check_resamples(resamples)
    check_seed(seed)
    check_confidence(confidence)
    check_width(width)
    get_weightings(weighting)
    specs = [parse_system(s) for s in system]
    names = [n for n, _ in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise OptionError(f"--system: name(s) used twice: {', '.join(dupes)}", option="--system")
    if baseline is not None and baseline not in names:  # refused before any file is read
        raise OptionError(f"--baseline {baseline!r} is not among the systems: {', '.join(names)}", option="--baseline")
    show = progress if progress is not None else sys.stderr.isatty()
    from releval.significance.config import SignificanceConfig

    test_config = SignificanceConfig(
        tuple(tests), alternative, resamples, seed, confidence, correction, mcnemar_variant
    )
    if task == "e2e":
        rc_only = {
            "--on-missing": on_missing != "error",
            "--negative": negative != "auto",
            "--no-negative": no_negative,
            "--input-format": input_format is not None,
            "--gold-format": gold_format is not None,
            "--id-field": id_field != "id",
            "--label-field": label_field is not None,
            "--mcnemar": mcnemar_variant != "exact",
        }
        refuse_options(rc_only, "apply to --task rc only")
        from releval.tasks.e2e import E2EConfig

        e2e_config = E2EConfig(
            weightings=tuple(weighting),
            criteria=tuple(c.strip() for c in criterion.split(",") if c.strip()),
            ner=ner,
            types=types,
            by_position=by_position,
        )
        _compare_e2e(gold, specs, e2e_config, test_config, baseline, show, format, width, output)
        return
    e2e_only = {"--criterion": criterion != "strict,boundaries", "--ner": ner, "--types": types is not None}
    refuse_options(e2e_only, "apply to --task e2e only")
    negative_label = check_label_options(
        negative, no_negative, id_field, label_field, {"--input-format": input_format, "--gold-format": gold_format}
    )
    from releval.significance.compare import PairedTable, SeedTable, align_systems, paired_table, seed_runs_table
    from releval.tasks.classification import ClassificationConfig

    config = ClassificationConfig(
        weightings=tuple(weighting),
        negative=negative_label,
        on_missing=on_missing,
        by_position=by_position or None,
        gold_format=gold_format,
        pred_format=input_format,
        id_field=id_field,
        label_field=label_field,
    )
    gold_labels, runs, facts = align_systems(gold, dict(specs), config)
    counts = {len(v) for v in runs.values()}
    table: PairedTable | SeedTable
    if counts == {1}:
        table = paired_table(
            gold_labels,
            {k: v[0] for k, v in runs.items()},
            config,
            test_config,
            baseline=baseline,
            progress=show,
            facts=facts,
        )
    else:
        _check_not_mixed({k: len(v) for k, v in runs.items()})
        table = seed_runs_table(gold_labels, runs, config, test_config, baseline=baseline, facts=facts)
    emit_result(table, format, width, output)


def _check_not_mixed(run_counts: dict[str, int]) -> None:
    if len(set(run_counts.values())) > 1 and 1 in run_counts.values():
        single = [k for k, v in run_counts.items() if v == 1]
        raise InputError(
            f"mixing single-file systems ({', '.join(single)}) with multi-run systems: give every system one file "
            "(paired tests) or several runs (seed comparison)",
            field="system",
        )


def _compare_e2e(
    gold: Path,
    specs: list[tuple[str, list[Path]]],
    config: Any,
    test: Any,
    baseline: str | None,
    progress: bool,
    format: str,
    width: int,
    output: Path | None,
) -> None:
    """`compare --task e2e`: paired tests over documents (one file per system) or seeds (several)."""
    from releval.significance.compare import paired_table, seed_runs_table

    run_counts = {name: len(paths) for name, paths in specs}
    if set(run_counts.values()) == {1}:
        table: Any = paired_table(
            gold, {name: paths[0] for name, paths in specs}, config, test, baseline=baseline, progress=progress
        )
    else:
        _check_not_mixed(run_counts)
        table = seed_runs_table(gold, dict(specs), config, test, baseline=baseline)
    emit_result(table, format, width, output)


#: check_stats names a bad value by its table column; on the command line it is this option.
_FIELD_OPTIONS = {"a": "--a", "b": "--b", "claimed_p": "--claimed-p", "claimed_d": "--claimed-d"}


def check_stats_command(
    a: str | None = typer.Option(None, "--a", help="System A as printed: 'MEAN±SD', e.g. 72.5±0.3."),
    b: str | None = typer.Option(None, "--b", help="System B as printed, e.g. 71.5±0.4."),
    n: int = typer.Option(5, "--n", help="Runs per system (seeds)."),
    n_b: int | None = typer.Option(None, "--n-b", help="Runs of B when they differ from A's."),
    claimed_p: str | None = typer.Option(None, "--claimed-p", help="Published p as printed (0.005, 3e-3, 3·10^-3)."),
    claimed_d: str | None = typer.Option(None, "--claimed-d", help="Published Cohen's d (A − B) as printed."),
    table: Path | None = typer.Option(None, "--table", help="CSV/JSON of comparisons: name,a,b,n,claimed_p,claimed_d."),
    alternative: str = typer.Option("two-sided", "--alternative", help="two-sided, greater or less."),
    reading: list[str] = typer.Option(list(READINGS), "--reading", help="Readings of ±: sample, population."),
    format: str = format_option(),
    output: Path | None = output_option(),
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
    raise typer.Exit(1 if bad else 0)


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


def register(app: typer.Typer) -> None:
    app.command("compare")(compare_command)
    app.command("check-stats")(check_stats_command)
