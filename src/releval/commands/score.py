"""`releval score GOLD PRED…`: every weighting for one or several systems, with strict input checks."""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from pathlib import Path

import click

from releval.commands.base import PATH, Argument, Choice, Command
from releval.commands.common import emit_result, format_option, output_option
from releval.commands.inputs import Inputs, input_options, refuse_foreign, task_option
from releval.commands.progress import Counted, progress_bar, progress_option, progress_wanted
from releval.core.errors import OptionError
from releval.core.options import DEFAULT_WEIGHTING_NAMES, ENTROPY_N
from releval.core.validation import check_width, refuse_options
from releval.metrics.weightings import weighting_names
from releval.tasks import TASKS

#: score's own options that set a task's Config (the input options are releval.commands.inputs'): given with a task
#: whose Config lacks the setting, each is refused, not ignored.
SETTING_OPTIONS: dict[str, tuple[str, ...]] = {
    "--weighting": ("weightings",),
    "--beta": ("beta",),
    "--zero-division": ("zero_division",),
    "--entropy-n": ("entropy_n",),
    "--criterion": ("criteria",),
    "--relaxed": ("relaxed",),
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
    help="One or more prediction files, PATH or NAME=PATH (NAME names the system); a glob (runs/*/pred.txt, "
    "expanded by releval, quoted or not) makes one system per file, NAME[run]; - reads standard input. None: GOLD "
    "is a wide TSV (id, gold, one column per system) and every system column is scored.",
)
@task_option(
    "rc",
    f"The kind of evaluation: {', '.join(TASKS)} (rc: classification; semeval-official: the perl v1.2 scorer; "
    "e2e: entities and relations; ranked: scored relation facts, NYT10/OpenNRE).",
)
@input_options("score", ("{gold}", "{pred}"), tasks=("rc", "semeval-official", "e2e", "ranked", "docred"))
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
@click.option("--criterion", "criterion", default="strict,boundaries", help="e2e: strict,boundaries.")
@click.option("--relaxed", "relaxed", is_flag=True, default=False, help="e2e: also the experimental Relaxed criterion.")
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
    weighting: tuple[str, ...],
    beta: float,
    zero_division: float,
    entropy_n: str,
    criterion: str,
    relaxed: bool,
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
    from releval.tasks import get_task

    the_task = get_task(task)
    systems = expand_preds(preds, gold)
    if not systems:  # a wide TSV alone: one system per column (releval.commands.wide)
        from releval.commands.wide import wide_systems

        gold, systems = wide_systems(gold, inputs, "score", task)
    check_width(width)
    own = {
        "weightings": tuple(weighting),
        "beta": beta,
        "zero_division": zero_division,
        "entropy_n": entropy_n,
        "criteria": tuple(c.strip() for c in criterion.split(",") if c.strip()),
        "relaxed": relaxed,
    }
    given = {flag: sets for flag, sets in SETTING_OPTIONS.items() if own[sets[0]] != _DEFAULTS[sets[0]]}
    refuse_foreign(the_task, {**inputs.given_fields(), **given})
    settings = {**inputs.settings_for(the_task), **{k: v for k, v in own.items() if k in the_task.settings}}
    config = the_task.make_config(**settings)
    refuse_options(
        {"--perl-report": perl_report and task != "semeval-official"}, "applies to --task semeval-official only"
    )
    if task == "semeval-official":  # the scorer prints two decimals and no per-class rows beside other systems'
        refuse_options({"--per-class": per_class, "--width": width != 2}, "apply to --task rc or e2e only")
        if perl_report:
            from releval.commands.semeval import perl_report as print_perl_report

            print_perl_report(gold, systems, config, format, output)
            return
    many = len(systems) if len(systems) >= SCORE_BAR_SYSTEMS else 0  # one system: nothing to count
    with progress_bar(many, "scoring", progress_wanted(progress)) as advance:
        results = the_task.score_files(gold, Counted(systems, advance), config)
    emit_result(results, format, width, output, per_class=per_class or None)


#: From this many systems on, `score` moves a bar on a terminal, one step per system scored.
SCORE_BAR_SYSTEMS = 2


#: The default of each setting score's own options set (an option at its default was not given).
_DEFAULTS: dict[str, object] = {
    "weightings": tuple(DEFAULT_WEIGHTING_NAMES),
    "beta": 1.0,
    "zero_division": 0.0,
    "entropy_n": "all",
    "criteria": ("strict", "boundaries"),
    "relaxed": False,
}


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
