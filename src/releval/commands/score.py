"""`releval score GOLD PRED…`: every weighting for one or several systems, with strict input checks."""

from __future__ import annotations

from pathlib import Path

import click

from releval.commands.base import PATH, Argument, Choice, Command
from releval.commands.common import check_choice, check_label_options, emit_result, format_option, output_option
from releval.core.options import (
    DEFAULT_WEIGHTING_NAMES,
    ENTROPY_N,
    MACRO_CLASSES,
    MISSING_POLICIES,
    OUTPUT_FORMATS,
    TASKS,
)
from releval.data.formats import LABEL_FORMATS
from releval.metrics.weightings import get_weightings, weighting_names
from releval.validation import check_beta, check_width, check_zero_division, refuse_options

#: The tasks that use each option that not every task uses: given with another task, it is refused, not ignored.
TASK_OPTIONS: dict[str, tuple[str, ...]] = {
    "--negative": ("rc",),
    "--no-negative": ("rc",),
    "--allow-absent-negative": ("rc",),
    "--entropy-n": ("rc",),
    "--strict-labels": ("rc",),
    "--view": ("rc",),
    "--patch": ("rc",),
    "--input-format": ("rc",),
    "--gold-format": ("rc",),
    "--id-field": ("rc",),
    "--label-field": ("rc",),
    "--on-missing": ("rc", "semeval-official"),
    "--weighting": ("rc", "e2e"),
    "--beta": ("rc", "e2e"),
    "--zero-division": ("rc", "e2e"),
    "--by-position": ("rc", "e2e"),
    "--width": ("rc", "e2e"),
    "--criterion": ("e2e",),
    "--types": ("e2e",),
    "--relaxed": ("e2e",),
    "--macro-classes": ("e2e",),
    "--per-class": ("rc", "e2e"),
}


@click.command("score", cls=Command)
@click.argument(
    "gold", cls=Argument, type=PATH, help="Gold file (SemEval key or blocks, TACRED JSON, TACRev JSONL, JSONL/CSV/TSV)."
)
@click.argument(
    "preds",
    cls=Argument,
    type=PATH,
    nargs=-1,
    required=True,
    help="One or more prediction files; each becomes a column block.",
)
@click.option(
    "--task",
    "task",
    type=Choice(TASKS),
    default="rc",
    help="rc (classification), semeval-official (perl v1.2 score), e2e.",
)
@click.option("--negative", "negative", default="auto", help="Negative label; 'auto' detects no_relation/Other/NA.")
@click.option("--no-negative", "no_negative", is_flag=True, default=False, help="The data has no negative class.")
@click.option(
    "--allow-absent-negative",
    "allow_absent_negative",
    is_flag=True,
    default=False,
    help="Accept a --negative label that gold does not contain (else refused: a typo makes it a positive class).",
)
@click.option(
    "--weighting",
    "-w",
    "weighting",
    multiple=True,
    default=DEFAULT_WEIGHTING_NAMES,
    help=f"Weightings besides micro: {', '.join(weighting_names())} (repeatable).",
)
@click.option("--beta", "beta", type=float, default=1.0, help="F-beta's beta.")
@click.option("--zero-division", "zero_division", type=float, default=0.0, help="Value of P, R or F when 0/0.")
@click.option(
    "--entropy-n",
    "entropy_n",
    type=Choice(ENTROPY_N),
    default="all",
    help="Entropy's N: all gold items, or positive only.",
)
@click.option(
    "--on-missing",
    "on_missing",
    type=Choice(MISSING_POLICIES),
    default="error",
    help="Missing predictions: error, negative, wrong.",
)
@click.option(
    "--strict-labels", "strict_labels", is_flag=True, default=False, help="Refuse predicted labels absent from gold."
)
@click.option(
    "--by-position", "by_position", is_flag=True, default=False, help="Align by line position instead of by id."
)
@click.option(
    "--view",
    "view",
    type=Choice(("directed", "undirected")),
    default="directed",
    help="directed, or undirected (SemEval direction dropped).",
)
@click.option("--patch", "patch", type=PATH, default=None, help="TACRev-style relabelling [{id, relation}] for gold.")
@click.option(
    "--input-format",
    "input_format",
    type=Choice(tuple(LABEL_FORMATS)),
    default=None,
    help="Force the format of gold and preds.",
)
@click.option(
    "--gold-format",
    "gold_format",
    type=Choice(tuple(LABEL_FORMATS)),
    default=None,
    help="Force the gold file's format.",
)
@click.option("--id-field", "id_field", default="id", help="Id field of JSONL/CSV/TSV files.")
@click.option("--label-field", "label_field", default=None, help="Label field of JSONL/CSV/TSV files.")
@click.option("--criterion", "criterion", default="strict,boundaries", help="e2e: strict,boundaries.")
@click.option("--types", "types", type=PATH, default=None, help="e2e: SpERT types file (symmetric relations).")
@click.option("--relaxed", "relaxed", is_flag=True, default=False, help="e2e: also the experimental Relaxed criterion.")
@click.option(
    "--macro-classes",
    "macro_classes",
    type=Choice(MACRO_CLASSES),
    default="gold",
    help="e2e: types macro-F averages over: with gold support, in gold or predictions (SpERT), declared (sincere).",
)
@click.option(
    "--per-class",
    "per_class",
    is_flag=True,
    default=False,
    help="Per-class rows of every system side by side (several systems otherwise print one line each).",
)
@format_option()
@click.option("--width", "width", type=int, default=2, help="Decimals of percentages in text/markdown/latex.")
@output_option()
def score_command(
    gold: Path,
    preds: tuple[Path, ...],
    task: str,
    negative: str,
    no_negative: bool,
    allow_absent_negative: bool,
    weighting: tuple[str, ...],
    beta: float,
    zero_division: float,
    entropy_n: str,
    on_missing: str,
    strict_labels: bool,
    by_position: bool,
    view: str,
    patch: Path | None,
    input_format: str | None,
    gold_format: str | None,
    id_field: str,
    label_field: str | None,
    criterion: str,
    types: Path | None,
    relaxed: bool,
    macro_classes: str,
    per_class: bool,
    format: str,
    width: int,
    output: Path | None,
) -> None:
    """Score predictions against gold under micro, weighted, dodrans, entropy and macro averaging.

    Predictions are matched to gold by id: a missing, duplicated or unknown id is an error (exit 2) unless
    --on-missing says otherwise. Every result carries a signature of the settings that produced it.
    """
    check_choice(task, TASKS, "--task")
    given = {
        "--negative": negative != "auto",
        "--no-negative": no_negative,
        "--allow-absent-negative": allow_absent_negative,
        "--weighting": tuple(weighting) != tuple(DEFAULT_WEIGHTING_NAMES),
        "--beta": beta != 1.0,
        "--zero-division": zero_division != 0.0,
        "--entropy-n": entropy_n != "all",
        "--on-missing": on_missing != "error",
        "--strict-labels": strict_labels,
        "--by-position": by_position,
        "--view": view != "directed",
        "--patch": patch is not None,
        "--input-format": input_format is not None,
        "--gold-format": gold_format is not None,
        "--id-field": id_field != "id",
        "--label-field": label_field is not None,
        "--criterion": criterion != "strict,boundaries",
        "--types": types is not None,
        "--relaxed": relaxed,
        "--macro-classes": macro_classes != "gold",
        "--per-class": per_class,
        "--width": width != 2,
    }
    unused = [o for o, on in given.items() if on and task not in TASK_OPTIONS[o]]
    if unused:  # named in groups of the same tasks: "--relaxed, --types: apply to --task e2e only"
        tasks = TASK_OPTIONS[unused[0]]
        refuse_options({o: TASK_OPTIONS[o] == tasks for o in unused}, f"apply to --task {' or '.join(tasks)} only")
    check_choice(format, ("text", "json") if task == "semeval-official" else OUTPUT_FORMATS, "--format")
    check_choice(on_missing, MISSING_POLICIES, "--on-missing")
    check_choice(view, ("directed", "undirected"), "--view")
    check_beta(beta)
    check_zero_division(zero_division)
    check_choice(entropy_n, ENTROPY_N, "--entropy-n")
    check_width(width)
    get_weightings(weighting)
    negative_label = check_label_options(
        negative, no_negative, id_field, label_field, {"--input-format": input_format, "--gold-format": gold_format}
    )
    if task == "semeval-official":
        from releval.commands.semeval import run_semeval_official

        code = run_semeval_official(
            gold, list(preds), allow_skipped=on_missing != "error", format=format, output=output
        )
        raise click.exceptions.Exit(code)
    if task == "e2e":
        from releval.tasks.e2e import E2EConfig, score

        e2e_config = E2EConfig(
            weightings=tuple(weighting),
            beta=beta,
            zero_division=zero_division,
            criteria=tuple(c.strip() for c in criterion.split(",") if c.strip()),
            relaxed=relaxed,
            types=types,
            by_position=by_position,
            macro_classes=macro_classes,
        )
        results_e2e = [score(gold, pred, e2e_config) for pred in preds]
        emit_result(results_e2e, format, width, output, per_class=per_class or None)
        return
    from releval.tasks.classification import (
        ClassificationConfig,
        load_gold,
        load_pred,
        prepare,
        score_prepared,
        system_name,
    )

    config = ClassificationConfig(
        weightings=tuple(weighting),
        beta=beta,
        zero_division=zero_division,
        negative=negative_label,
        entropy_n=entropy_n,
        on_missing=on_missing,
        strict_labels=strict_labels,
        by_position=by_position or None,
        view=view,
        patch=None if patch is None else str(patch),
        gold_format=gold_format,
        pred_format=input_format,
        id_field=id_field,
        label_field=label_field,
        allow_absent_negative=allow_absent_negative,
    )
    gold_file, digest = load_gold(gold, config)
    results = []
    for pred in preds:
        pred_file = load_pred(pred, config)
        results.append(score_prepared(prepare(gold_file, pred_file, config, digest), config, system_name(pred_file)))
    emit_result(results, format, width, output, per_class=per_class or None)


def register(app: click.Group) -> None:
    app.add_command(score_command)
