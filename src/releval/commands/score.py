"""`releval score GOLD PRED…`: every weighting for one or several systems, with strict input checks."""

from __future__ import annotations

import dataclasses
import glob
import os
from collections.abc import Sequence
from pathlib import Path

import click

from releval.commands.base import PATH, Argument, Choice, Command
from releval.commands.common import (
    check_choice,
    check_label_options,
    emit_result,
    format_option,
    negative_options,
    output_option,
)
from releval.core.options import (
    DEFAULT_WEIGHTING_NAMES,
    ENTROPY_N,
    MACRO_CLASSES,
    MISSING_POLICIES,
    OUTPUT_FORMATS,
    TASKS,
)
from releval.data.formats import LABEL_FORMATS
from releval.errors import OptionError
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
    "--pred-format": ("rc",),
    "--id-field": ("rc",),
    "--label-field": ("rc",),
    "--gold-id-field": ("rc",),
    "--gold-label-field": ("rc",),
    "--pred-id-field": ("rc",),
    "--pred-label-field": ("rc",),
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
    "--perl-report": ("semeval-official",),
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
    help="One or more prediction files, PATH or NAME=PATH (NAME names the system); a glob (runs/*/pred.txt, "
    "expanded by releval, quoted or not) makes one system per file, NAME[run]; - reads standard input.",
)
@click.option(
    "--task",
    "task",
    type=Choice(TASKS),
    default="rc",
    help="rc (classification), semeval-official (perl v1.2 score), e2e.",
)
@negative_options()
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
    help="Force the format of gold and preds (both sides; --gold-format/--pred-format override one side).",
)
@click.option(
    "--gold-format",
    "gold_format",
    type=Choice(tuple(LABEL_FORMATS)),
    default=None,
    help="Force the gold file's format (gold side only).",
)
@click.option(
    "--pred-format",
    "pred_format",
    type=Choice(tuple(LABEL_FORMATS)),
    default=None,
    help="Force the prediction files' format (prediction side only; gold is still detected), e.g. labels-lines.",
)
@click.option("--id-field", "id_field", default="id", help="Id field of JSONL/CSV/TSV files (both sides).")
@click.option("--label-field", "label_field", default=None, help="Label field of JSONL/CSV/TSV files (both sides).")
@click.option(
    "--gold-id-field", "gold_id_field", default=None, help="Id field of the gold file (overrides --id-field)."
)
@click.option(
    "--gold-label-field",
    "gold_label_field",
    default=None,
    help="Label field of the gold file (overrides --label-field).",
)
@click.option(
    "--pred-id-field", "pred_id_field", default=None, help="Id field of the prediction files (overrides --id-field)."
)
@click.option(
    "--pred-label-field",
    "pred_label_field",
    default=None,
    help="Label field of the prediction files (overrides --label-field).",
)
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
@click.option(
    "--perl-report",
    "perl_report",
    is_flag=True,
    default=False,
    help="semeval-official: print the perl scorer v1.2's whole report, byte for byte (text only), instead of one "
    "line per system.",
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
    pred_format: str | None,
    id_field: str,
    label_field: str | None,
    gold_id_field: str | None,
    gold_label_field: str | None,
    pred_id_field: str | None,
    pred_label_field: str | None,
    criterion: str,
    types: Path | None,
    relaxed: bool,
    macro_classes: str,
    per_class: bool,
    perl_report: bool,
    format: str,
    width: int,
    output: Path | None,
) -> None:
    """Score predictions against gold under micro, weighted, dodrans, entropy and macro averaging.

    Predictions are matched to gold by id: a missing, duplicated or unknown id is an error (exit 2) unless
    --on-missing says otherwise. Every result carries a signature of the settings that produced it.
    """
    check_choice(task, TASKS, "--task")
    systems = expand_preds(preds, gold)
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
        "--pred-format": pred_format is not None,
        "--id-field": id_field != "id",
        "--label-field": label_field is not None,
        "--gold-id-field": gold_id_field is not None,
        "--gold-label-field": gold_label_field is not None,
        "--pred-id-field": pred_id_field is not None,
        "--pred-label-field": pred_label_field is not None,
        "--criterion": criterion != "strict,boundaries",
        "--types": types is not None,
        "--relaxed": relaxed,
        "--macro-classes": macro_classes != "gold",
        "--per-class": per_class,
        "--perl-report": perl_report,
        "--width": width != 2,
    }
    unused = [o for o, on in given.items() if on and task not in TASK_OPTIONS[o]]
    if unused:  # named in groups of the same tasks: "--relaxed, --types: apply to --task e2e only"
        tasks = TASK_OPTIONS[unused[0]]
        refuse_options({o: TASK_OPTIONS[o] == tasks for o in unused}, f"apply to --task {' or '.join(tasks)} only")
    check_choice(format, OUTPUT_FORMATS, "--format")
    check_choice(on_missing, MISSING_POLICIES, "--on-missing")
    check_choice(view, ("directed", "undirected"), "--view")
    check_beta(beta)
    check_zero_division(zero_division)
    check_choice(entropy_n, ENTROPY_N, "--entropy-n")
    check_width(width)
    get_weightings(weighting)
    negative_label = check_label_options(
        negative,
        no_negative,
        id_field,
        label_field,
        {"--input-format": input_format, "--gold-format": gold_format, "--pred-format": pred_format},
        {
            "--gold-id-field": gold_id_field,
            "--gold-label-field": gold_label_field,
            "--pred-id-field": pred_id_field,
            "--pred-label-field": pred_label_field,
        },
    )
    if task == "semeval-official":
        from releval.commands.semeval import run_semeval_official

        code = run_semeval_official(
            gold,
            systems,
            on_missing=on_missing,
            format=format,
            output=output,
            report="perl" if perl_report else "table",
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
        results_e2e = []
        for name, pred in systems:
            scored = score(gold, pred, e2e_config)
            results_e2e.append(scored if name is None else dataclasses.replace(scored, system=name))
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
        # each side's format: its own option, else --input-format; a prediction-only format leaves gold detected
        gold_format=gold_format or input_format or ("auto" if pred_format else None),
        pred_format=pred_format or input_format,
        id_field=id_field,
        label_field=label_field,
        gold_id_field=gold_id_field,
        gold_label_field=gold_label_field,
        pred_id_field=pred_id_field,
        pred_label_field=pred_label_field,
        allow_absent_negative=allow_absent_negative,
    )
    gold_file, digest = load_gold(gold, config)
    results = []
    for name, pred in systems:
        pred_file = load_pred(pred, config)
        prepared = prepare(gold_file, pred_file, config, digest)
        results.append(score_prepared(prepared, config, name or system_name(pred_file)))
    emit_result(results, format, width, output, per_class=per_class or None)


GLOB_CHARACTERS = ("*", "?", "[")


def expand_preds(preds: Sequence[Path], gold: Path) -> list[tuple[str | None, Path]]:
    """(system name or None, path) of every PREDS argument, in order: PATH, NAME=PATH (as `compare --system` names
    a system; an existing file whose name holds '=' is a path, and so is a spec with a path separator before its
    '='), `-` for standard input (system `stdin`), and globs expanded here — so they work quoted and on Windows,
    whose shell expands none. A glob matching several files gives one system per file, NAME[run]: `run` is the
    part of the path the matches differ in (the run folder of `runs/*/pred.txt`), else the match's number."""
    out: list[tuple[str | None, Path]] = []
    for spec in preds:
        text = os.fspath(spec)
        name, sep, rest = text.partition("=")
        separators = [c for c in (os.sep, os.altsep, "/") if c]
        if sep and not spec.exists() and not any(c in name for c in separators):
            if not name.strip() or not rest.strip():
                raise OptionError(f"a prediction file is given as PATH or NAME=PATH, not {text!r}")
            named: str | None = name.strip()
            text = rest.strip()
        else:
            named = None
        if text == "-":
            out.append((named or "stdin", Path(text)))
        elif any(c in text for c in GLOB_CHARACTERS) and not Path(text).exists():
            out += _globbed(named, text)
        else:
            out.append((named, Path(text)))
    stdin = [path for name, path in out if os.fspath(path) == "-"]
    if len(stdin) + (os.fspath(gold) == "-") > 1:
        raise OptionError("standard input (-) can be read once: give it as gold or as one prediction file")
    return out


def _globbed(name: str | None, pattern: str) -> list[tuple[str | None, Path]]:
    """The files a glob matches, sorted, as named systems (see `expand_preds`); no match is an error."""
    matches = sorted(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
    if not matches:
        raise OptionError(f"no file matches {pattern!r}")
    if len(matches) == 1:
        return [(name, Path(matches[0]))]
    parts = [Path(m).parts for m in matches]
    depth = {len(p) for p in parts}
    runs: list[str] = [str(k) for k in range(1, len(matches) + 1)]
    if len(depth) == 1:
        differing = [i for i in range(depth.pop()) if len({p[i] for p in parts}) > 1]
        labels = ["/".join(p[i] for i in differing) for p in parts]
        if len(set(labels)) == len(labels):
            runs = labels
    if name is None:
        stem = Path(pattern).name
        for suffix in (".gz", ".jsonl", ".json", ".txt", ".tsv", ".csv"):
            stem = stem.removesuffix(suffix)
        if any(c in stem for c in GLOB_CHARACTERS):
            return [(None, Path(m)) for m in matches]  # each file's own name differs: it names its system
        name = stem
    return [(f"{name}[{run}]", Path(m)) for run, m in zip(runs, matches)]


def register(app: click.Group) -> None:
    app.add_command(score_command)
