"""Options and helpers shared by the command modules (one definition of each flag)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from releval.commands.base import PATH, Choice
from releval.core.options import OUTPUT_FORMATS
from releval.core.validation import check_choice as _check_choice
from releval.core.validation import check_nonempty, check_output_path, refuse_options
from releval.data.io import inputs_read

#: Parameters (by their Python names) that name files a command writes; every other path parameter is an input.
OUTPUT_PARAMETERS = ("output", "figure")


def check_output_target(value: Path | None, option: str) -> Path | None:
    """Refuse a bad output path while parsing, before any input is read (None passes through).

    Refused: a directory, a path below a file, a folder that is not writable (check_output_path), and a target
    that the atomic rename would replace instead of writing to: a symbolic link, a FIFO, a device node such as
    /dev/null, a socket (check_target).
    """
    target = check_output_path(value, option)
    if target is None:
        return None
    from releval.report.output import check_target  # tempfile & co.: only a run that writes a file loads them

    return check_target(target, option)


def _output_callback(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    return check_output_target(value, "--output")


def _given_paths() -> list[Path]:
    """The input paths among the parameters of the running command (all but its outputs), read or not yet."""
    ctx = click_context()
    if ctx is None:
        return []
    found: list[Path] = []
    for name, value in ctx.params.items():
        if name in OUTPUT_PARAMETERS:
            continue
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, os.PathLike):
                found.append(Path(item))
    return found


def click_context() -> click.Context | None:
    """The click context of the running command, or None outside one."""
    return click.get_current_context(silent=True)


def format_option(formats: Sequence[str] = OUTPUT_FORMATS, help: str | None = None) -> Callable[[Any], Any]:
    """The `-f/--format` option of a command writing `formats` (default: every output format)."""
    text = help or f"Output: {', '.join(formats)}."
    return click.option("--format", "-f", "format", type=Choice(tuple(formats)), default="text", help=text)


def negative_options(allow_absent: bool = True) -> Callable[[Any], Any]:
    """--negative and --no-negative (and --allow-absent-negative, for the commands that refuse a negative label
    gold lacks), spelt and explained once for every command that reads labels."""
    options = [
        click.option(
            "--negative", "negative", default="auto", help="Negative label; 'auto' detects no_relation/Other/NA."
        ),
        click.option(
            "--no-negative", "no_negative", is_flag=True, default=False, help="The data has no negative class."
        ),
    ]
    if allow_absent:
        options.append(
            click.option(
                "--allow-absent-negative",
                "allow_absent_negative",
                is_flag=True,
                default=False,
                help="Accept a --negative label that gold does not contain (else refused: a typo makes it a "
                "positive class).",
            )
        )

    def decorate(command: Any) -> Any:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def output_option() -> Callable[[Any], Any]:
    """The `-o/--output` option of every command: checked at once, written atomically by `emit`."""
    return click.option(
        "--output",
        "-o",
        "output",
        type=PATH,
        default=None,
        help="Write here (atomically) instead of stdout.",
        callback=_output_callback,
    )


def emit(text: str, output: Path | None, inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Write to --output atomically, or print to stdout; a failed write is one OutputError naming --output.

    --output is refused when it is an input of this run (same path or inode): one of `inputs`, a path parameter
    of the running command, or a file the run has read (releval.data.io.inputs_read, recorded by the CLI).
    """
    if output is None:
        click.echo(text, nl=False)
    else:
        from releval.report.output import write_atomic

        made = [p for p in reversed(Path(output).absolute().parents) if not p.exists()]
        write_atomic(output, text, what="--output", inputs=[*inputs, *_given_paths(), *inputs_read()])
        note = ""
        if made:  # a missing folder is made, and said: a typo in the path shows
            note = f" (made the folder {made[0]}" + (", and the ones in it)" if len(made) > 1 else ")")
        click.echo(f"wrote {output}{note}", err=True)


def check_choice(value: str, choices: tuple[str, ...], option: str) -> str:
    """An enum check with a message listing the choices (releval.core.validation.check_choice)."""
    return _check_choice(value, choices, option)


def resolve_negative_option(negative: str, no_negative: bool) -> str | None:
    """None for --no-negative, else the label given or 'auto'; both at once, or an empty label, are refused."""
    check_nonempty(negative, "--negative")
    refuse_options({"--negative": no_negative and negative != "auto"}, "give a label or --no-negative, not both")
    return None if no_negative else negative


def check_label_options(
    negative: str,
    no_negative: bool,
    id_field: str,
    label_field: str | None,
    formats: dict[str, str | None],
    side_fields: dict[str, str | None] | None = None,
) -> str | None:
    """The label-file options `score` and `compare` share, checked before any file is read: the negative class
    (as `resolve_negative_option` returns it), non-empty field names (also one side's, {option: name}), known
    format names ({option: name})."""
    from releval.data.labels import FORMATS

    negative_label = resolve_negative_option(negative, no_negative)
    check_nonempty(id_field, "--id-field")
    for option, value in {"--label-field": label_field, **(side_fields or {})}.items():
        if value is not None:
            check_nonempty(value, option)
    for option, name in formats.items():
        if name is not None:
            check_choice(name, FORMATS, option)
    return negative_label


def _grouped_by_system(result: Any) -> list[str]:
    """A comparison's warnings ("system: text" each), the same text of several systems said once, naming them
    ("3 systems (a, b, c): text"), or without names when every system has it; other results' warnings as they are.

    >>> from types import SimpleNamespace
    >>> table = SimpleNamespace(scores={"a": {}, "b": {}, "c": {}}, warnings=["a: X", "c: X", "b: Y", "gold: Z"])
    >>> _grouped_by_system(table)
    ['2 systems (a, c): X', 'b: Y', 'gold: Z']
    >>> _grouped_by_system(SimpleNamespace(scores={"a": {}, "b": {}}, warnings=["a: X", "b: X"]))
    ['X']
    """
    scores = getattr(result, "scores", None)  # a comparison's {system: {measure: value}}
    names = set(scores) if isinstance(scores, Mapping) else set()
    if not names:
        return [str(w) for w in result.warnings]
    by_text: dict[str, list[str]] = {}
    alone: dict[str, None] = {}
    order: list[tuple[str, str]] = []  # ("text", key) or ("alone", line), first-seen order
    for w in result.warnings:
        name, sep, text = str(w).partition(": ")
        if sep and name in names:
            if text not in by_text:
                order.append(("text", text))
            by_text.setdefault(text, []).append(name)
        elif str(w) not in alone:
            alone[str(w)] = None
            order.append(("alone", str(w)))
    lines = []
    for kind, key in order:
        if kind == "alone":
            lines.append(key)
            continue
        who = list(dict.fromkeys(by_text[key]))
        if len(who) == len(names) > 1:  # every system: said once, as `score` says a warning every system has
            lines.append(key)
        elif len(who) == 1:
            lines.append(f"{who[0]}: {key}")
        else:
            shown = ", ".join(who[:8]) + (f", … ({len(who) - 8} more)" if len(who) > 8 else "")
            lines.append(f"{len(who)} systems ({shown}): {key}")
    return lines


def result_warnings(results: Iterable[Any]) -> list[str]:
    """Every warning of the results, one line each for stderr: named by its system, or once without a name when
    every one of several systems has it (a warning about gold, such as rare classes, is not said N times)."""
    results = list(results)
    systems: dict[str, list[str | None]] = {}
    for r in results:
        for w in _grouped_by_system(r):
            systems.setdefault(str(w), []).append(getattr(r, "system", None))
    lines = []
    for text, names in systems.items():
        if len(results) > 1 and len(names) == len(results):
            lines.append(f"warning: {text}")
            continue
        for system in dict.fromkeys(names):
            named = system and not text.startswith(f"{system}:")
            lines.append(f"warning ({system}): {text}" if named else f"warning: {text}")
    return lines


def emit_result(
    result: Any,
    format: str,
    width: int,
    output: Path | None,
    *,
    per_class: bool | None = None,
    all_pairs: bool | None = None,
) -> None:
    """Render a result (or a list of results) in `format`, send its warnings to stderr — whatever the format and
    wherever the output goes, so a fill or a shortcut is never silent — and write it (emit). `per_class` and
    `all_pairs`: see `releval.report.results.render_results`."""
    from releval.report.results import render_results

    results = list(result) if isinstance(result, (list, tuple)) else [result]
    for line in result_warnings(results):
        click.echo(line, err=True)
    emit(render_results(results, format, width, per_class=per_class, all_pairs=all_pairs), output)
