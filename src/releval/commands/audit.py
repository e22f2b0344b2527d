"""`releval audit` and `releval claims`: check an evaluation and a comparison before they are published.

`releval audit GOLD PRED` is short for `releval audit run GOLD PRED` (a group that runs `run` when its first
argument is not a subcommand); `releval audit compare A.json B.json …` compares saved results;
`releval claims list|check` reads the registry of published results. Exit 1 when an error / incomparability is found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from releval.audit.checks import audit
from releval.audit.claims import check_dataset, check_result, claims, render_claims, render_verdicts
from releval.audit.comparability import NOT_COMPARABLE, compare_files, load_results
from releval.commands.common import check_choice, emit, output_option, resolve_negative_option
from releval.report.audit_report import render_comparisons, render_report
from releval.report.strict_json import dumps_strict
from releval.validation import check_nonempty, refuse_options

FORMATS = ("text", "json")


class _RunByDefault(TyperGroup):
    """A group whose first argument, when not a subcommand name or help, goes to the `run` subcommand."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # click's Context, typer may vendor click
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


audit_app = typer.Typer(
    cls=_RunByDefault,
    no_args_is_help=True,
    help="Audit an evaluation (GOLD PRED, or `run GOLD PRED`) or a comparison of saved results (`compare`).",
)
claims_app = typer.Typer(no_args_is_help=True, help="Published results with their evaluation settings.")


@audit_app.command("run")
def run_command(
    gold: Path = typer.Argument(..., help="Gold file (any format `releval score` reads)."),
    pred: Path = typer.Argument(..., help="Prediction file."),
    train: Path | None = typer.Option(None, "--train", help="Training data: label space and type constraints."),
    negative: str = typer.Option("auto", "--negative", help="Negative label; 'auto' detects no_relation/Other/NA."),
    no_negative: bool = typer.Option(False, "--no-negative", help="The data has no negative class."),
    gold_format: str | None = typer.Option(None, "--gold-format", help="Force the gold file's format."),
    pred_format: str | None = typer.Option(None, "--pred-format", help="Force the prediction file's format."),
    train_format: str | None = typer.Option(None, "--train-format", help="Force the training file's format."),
    id_field: str = typer.Option("id", "--id-field", help="Id field of JSONL/CSV/TSV files."),
    label_field: str | None = typer.Option(None, "--label-field", help="Label field of JSONL/CSV/TSV files."),
    format: str = typer.Option("text", "--format", "-f", help="Output: text or json."),
    output: Path | None = output_option(),
) -> None:
    """Every check on one system's predictions; exit 1 when any finding is an error (it never stops early)."""
    check_choice(format, FORMATS, "--format")
    refuse_options({"--train-format": train_format is not None and train is None}, "needs --train")
    check_nonempty(id_field, "--id-field")
    if label_field is not None:
        check_nonempty(label_field, "--label-field")
    report = audit(
        gold,
        pred,
        train,
        negative=resolve_negative_option(negative, no_negative),
        gold_format=gold_format,
        pred_format=pred_format,
        train_format=train_format,
        id_field=id_field,
        label_field=label_field,
    )
    text = (
        render_report(report)
        if format == "text"
        else dumps_strict(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
    )
    emit(text, output)
    raise typer.Exit(report.exit_status)


@audit_app.command("compare")
def compare_command(
    results: list[Path] = typer.Argument(..., help="Two or more result files (JSON output of `releval score`)."),
    dataset: str | None = typer.Option(None, "--dataset", help="Dataset name, for the expected criterion gap."),
    format: str = typer.Option("text", "--format", "-f", help="Output: text or json."),
    output: Path | None = output_option(),
) -> None:
    """May these numbers be compared? Signatures field by field; exit 1 when any pair is not comparable."""
    check_choice(format, FORMATS, "--format")
    comparisons = compare_files(results, dataset)
    emit(render_comparisons(comparisons, format), output)
    raise typer.Exit(1 if any(c.verdict == NOT_COMPARABLE for c in comparisons) else 0)


@claims_app.command("list")
def list_command(
    dataset: str | None = typer.Option(None, "--dataset", help="ace05, ace04, conll04, ade, scierc, tacred, semeval."),
    criterion: str | None = typer.Option(None, "--criterion", help="strict, boundaries or relaxed."),
    format: str = typer.Option("text", "--format", "-f", help="Output: text or json."),
    output: Path | None = output_option(),
) -> None:
    """Published results with their settings, grouped by criterion; incorrectly stated ones flagged."""
    check_choice(format, FORMATS, "--format")
    entries = claims(dataset=dataset, criterion=criterion)
    text = render_claims(entries) if format == "text" else dumps_strict(entries, indent=2, ensure_ascii=False) + "\n"
    emit(text, output)


@claims_app.command("check")
def check_command(
    result: Path = typer.Argument(..., help="A result file (JSON output of `releval score`)."),
    dataset: str | None = typer.Option(None, "--dataset", help="The result's dataset (guessed from labels if absent)."),
    format: str = typer.Option("text", "--format", "-f", help="Output: text or json."),
    output: Path | None = output_option(),
) -> None:
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
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(audit_app, name="audit")
    app.add_typer(claims_app, name="claims")
