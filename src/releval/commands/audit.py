"""`releval audit` and `releval claims`: check an evaluation and a comparison before they are published.

`releval audit GOLD PRED` is short for `releval audit run GOLD PRED` (a group that runs `run` when its first
argument is not a subcommand); `releval audit compare A.json B.json …` compares saved results;
`releval claims list|check` reads the registry of published results. Exit 1 when an error / incomparability is found.
"""

from __future__ import annotations

from pathlib import Path

import click

from releval.audit.claims import check_dataset, check_result, claims, render_claims, render_verdicts
from releval.audit.comparability import NOT_COMPARABLE, compare_files, load_results
from releval.commands.base import PATH, Argument, Choice, Group
from releval.commands.common import (
    check_choice,
    emit,
    format_option,
    output_option,
)
from releval.commands.inputs import Inputs, input_options, refuse_foreign, task_option
from releval.core.validation import refuse_options
from releval.data.formats import LABEL_FORMATS as _LABEL_FORMATS
from releval.report.audit_report import render_comparisons, render_report
from releval.report.strict_json import dumps_strict

FORMATS = ("text", "json")
LABEL_FORMATS = tuple(_LABEL_FORMATS)


class _RunByDefault(Group):
    """A group whose first argument, when not a subcommand name or help, goes to the `run` subcommand."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["run", *args]
        return super().parse_args(ctx, args)


audit_app = _RunByDefault(
    "audit",
    no_args_is_help=True,
    help="Audit an evaluation (GOLD PRED, or `run GOLD PRED`) or a comparison of saved results (`compare`).",
)
claims_app = Group("claims", no_args_is_help=True, help="Published results with their evaluation settings.")

#: The `-f/--format` help of every audit and claims command.
_FORMAT_HELP = "Output: text or json."


@audit_app.command("run")
@click.argument("gold", cls=Argument, type=PATH, help="Gold file (any format `releval score` reads).")
@click.argument("pred", cls=Argument, type=PATH, help="Prediction file.")
@click.option("--train", "train", type=PATH, default=None, help="Training data: label space and type constraints.")
@click.option(
    "--train-format", "train_format", type=Choice(LABEL_FORMATS), default=None, help="Force the training file's format."
)
@task_option(
    "auto",
    "auto (relation classification labels, or end-to-end RE files when gold or predictions are), rc, e2e, docred "
    "(DocRED gold and a CodaLab result.json: leak check with --train-facts, evidence, titles, duplicates), or "
    "another registered task with an audit.",
    needs="audit",
)
@input_options("audit run", ("{gold}", "{pred}"), needs="audit", groups=("docred-files", "e2e-files"))
@format_option(FORMATS, _FORMAT_HELP)
@output_option()
def run_command(
    gold: Path,
    pred: Path,
    train: Path | None,
    train_format: str | None,
    task: str,
    inputs: Inputs,
    format: str,
    output: Path | None,
) -> None:
    """Every check on one system's predictions; exit 1 when any finding is an error (it never stops early).

    The files are read as `releval score` reads them (the same input options); the audit reports what every
    missing-prediction policy does and every label gold lacks, so --on-missing and --strict-labels do not apply.
    With --task docred: DocRED gold and a CodaLab submission, the train facts given as `score` takes them.
    """
    check_choice(format, FORMATS, "--format")
    refuse_options({"--train-format": train_format is not None and train is None}, "needs --train")
    refuse_options(
        {"--on-missing": inputs.on_missing != "error", "--strict-labels": inputs.strict_labels},
        "do not apply to an audit: it reports what every missing-prediction policy does and every label gold lacks",
    )
    from releval.registry import DEFAULT_TASK, get_task, tasks_with

    the_task = get_task(DEFAULT_TASK if task == "auto" else task)  # auto: the default task's audit reads e2e files too
    assert the_task.audit is not None  # task_option(needs="audit") refused a task without one
    refuse_foreign(the_task, inputs.given_fields(), lambda: tasks_with("audit"))
    report = the_task.audit(gold, pred, inputs.config(the_task), train=train, train_format=train_format)
    text = (
        render_report(report)
        if format == "text"
        else dumps_strict(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
    )
    emit(text, output)
    raise click.exceptions.Exit(report.exit_status)


@audit_app.command("compare")
@click.argument(
    "results",
    cls=Argument,
    type=PATH,
    nargs=-1,
    required=True,
    help="Two or more result files (JSON output of `releval score`).",
)
@click.option("--dataset", "dataset", default=None, help="Dataset name, for the expected criterion gap.")
@format_option(FORMATS, _FORMAT_HELP)
@output_option()
def compare_command(results: tuple[Path, ...], dataset: str | None, format: str, output: Path | None) -> None:
    """May these numbers be compared? Signatures field by field; exit 1 when any pair is not comparable."""
    check_choice(format, FORMATS, "--format")
    comparisons = compare_files(results, dataset)
    emit(render_comparisons(comparisons, format), output)
    raise click.exceptions.Exit(1 if any(c.verdict == NOT_COMPARABLE for c in comparisons) else 0)


@claims_app.command("list")
@click.option("--dataset", "dataset", default=None, help="ace05, ace04, conll04, ade, scierc, tacred, semeval.")
@click.option("--criterion", "criterion", default=None, help="strict, boundaries or relaxed.")
@format_option(FORMATS, _FORMAT_HELP)
@output_option()
def list_command(dataset: str | None, criterion: str | None, format: str, output: Path | None) -> None:
    """Published results with their settings, grouped by criterion; incorrectly stated ones flagged."""
    check_choice(format, FORMATS, "--format")
    entries = claims(dataset=dataset, criterion=criterion)
    text = render_claims(entries) if format == "text" else dumps_strict(entries, indent=2, ensure_ascii=False) + "\n"
    emit(text, output)


@claims_app.command("check")
@click.argument("result", cls=Argument, type=PATH, help="A result file (JSON output of `releval score`).")
@click.option("--dataset", "dataset", default=None, help="The result's dataset (guessed from labels if absent).")
@format_option(FORMATS, _FORMAT_HELP)
@output_option()
def check_command(result: Path, dataset: str | None, format: str, output: Path | None) -> None:
    """Which published numbers the result may be compared with, which not, and why."""
    check_choice(format, FORMATS, "--format")
    if dataset is not None:
        check_dataset(dataset)
    checked = check_result(load_results(result), dataset)
    if format == "text":
        text = render_verdicts(checked.dataset, checked.verdicts)
    else:
        text = dumps_strict(checked.to_dict(), indent=2, ensure_ascii=False) + "\n"
    emit(text, output)
    if checked.dataset is None:
        raise click.exceptions.Exit(1)


def register(app: click.Group) -> None:
    app.add_command(audit_app)
    app.add_command(claims_app)
