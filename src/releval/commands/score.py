"""`releval score GOLD PRED…`: every weighting for one or several systems, with strict input checks."""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from pathlib import Path

import click

from releval.commands.base import PATH, Argument, Command
from releval.commands.common import emit_result, format_option, output_option
from releval.commands.inputs import Inputs, input_options, task_option
from releval.commands.progress import Counted, progress_bar, progress_option, progress_wanted
from releval.commands.settings import Settings, config_of, setting_options
from releval.core.errors import OptionError
from releval.core.validation import check_width, refuse_options
from releval.registry import TASKS

#: The input groups `score` offers: every one a task may read (its options are refused for the tasks without).
_GROUPS = ("e2e-files", "ranked-facts", "docred-files")


@click.command("score", cls=Command)
@click.argument(
    "gold", cls=Argument, type=PATH, help="Gold file (SemEval key or blocks, TACRED JSON, TACRev JSONL, JSONL/CSV/TSV)."
)
@click.argument(
    "preds",
    cls=Argument,
    type=PATH,
    nargs=-1,
    help="One or more prediction files, PATH or NAME=PATH (NAME names the system); a glob (runs/*/pred.txt, "
    "expanded by releval, quoted or not) makes one system per file, NAME[run]; - reads standard input. None: GOLD "
    "is a wide TSV (id, gold, one column per system) and every system column is scored.",
)
@task_option(
    "rc",
    f"The kind of evaluation: {', '.join(TASKS)} (rc: classification; semeval-official: the perl v1.2 scorer; "
    "e2e: entities and relations; ranked: scored relation facts, NYT10/OpenNRE).",
)
@input_options("score", ("{gold}", "{pred}"), needs="score_files", groups=_GROUPS)
@setting_options("score", ("{gold}", "{pred}"), needs="score_files", groups=_GROUPS)
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
@progress_option()
@format_option()
@click.option("--width", "width", type=int, default=2, help="Decimals of percentages in text/markdown/latex.")
@output_option()
def score_command(
    gold: Path,
    preds: tuple[Path, ...],
    task: str,
    inputs: Inputs,
    settings: Settings,
    per_class: bool,
    perl_report: bool,
    progress: bool | None,
    format: str,
    width: int,
    output: Path | None,
) -> None:
    """Score predictions against gold under micro, weighted, dodrans, entropy and macro averaging.

    Predictions are matched to gold by id: a missing, duplicated or unknown id is an error (exit 2) unless
    --on-missing says otherwise. Every result carries a signature of the settings that produced it.
    """
    from releval.registry import get_task

    the_task = get_task(task)
    systems = expand_preds(preds, gold)
    if not systems:  # a wide TSV alone: one system per column (releval.commands.wide)
        from releval.commands.wide import wide_systems

        gold, systems = wide_systems(gold, inputs, "score", the_task)
    check_width(width)
    config = config_of(the_task, inputs, settings)
    if perl_report and the_task.full_report is None:
        from releval.registry import tasks_with

        refuse_options({"--perl-report": True}, f"applies to --task {' or '.join(tasks_with('full_report'))} only")
    if the_task.fixed_width is not None:  # e.g. the SemEval scorer: its decimals, no per-class rows beside others'
        refuse_options(
            {"--per-class": per_class, "--width": width != the_task.fixed_width},
            f"do not apply to --task {task} (its results have their own layout)",
        )
    if perl_report and the_task.full_report is not None:
        from releval.commands.semeval import perl_report as print_perl_report

        print_perl_report(gold, systems, config, format, output, the_task.full_report)
        return
    many = len(systems) if len(systems) >= SCORE_BAR_SYSTEMS else 0  # one system: nothing to count
    with progress_bar(many, "scoring", progress_wanted(progress)) as advance:
        results = the_task.score_files(gold, Counted(systems, advance), config)
    emit_result(results, format, width, output, per_class=per_class or None)


#: From this many systems on, `score` moves a bar on a terminal, one step per system scored.
SCORE_BAR_SYSTEMS = 2


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
        labels = ["/".join(_stem(p[i]) if i == len(p) - 1 else p[i] for i in differing) for p in parts]
        if len(set(labels)) == len(labels):
            runs = labels
    if name is None:
        stem = _stem(Path(pattern).name)
        if any(c in stem for c in GLOB_CHARACTERS):
            return [(None, Path(m)) for m in matches]  # each file's own name differs: it names its system
        name = stem
    return [(f"{name}[{run}]", Path(m)) for run, m in zip(runs, matches)]


def _stem(file_name: str) -> str:
    """A file name without its format suffixes: a run's name (`cnn_seed1.txt.gz` → `cnn_seed1`).

    >>> _stem("cnn_seed1.txt.gz"), _stem("seed-2.jsonl")
    ('cnn_seed1', 'seed-2')
    """
    for suffix in (".gz", ".jsonl", ".json", ".txt", ".tsv", ".csv"):
        file_name = file_name.removesuffix(suffix)
    return file_name


def register(app: click.Group) -> None:
    app.add_command(score_command)
