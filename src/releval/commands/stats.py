"""`releval stats FILE…`: label-distribution statistics per file and in total (Harbecke et al. 2022, Table 1)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from releval.commands.base import PATH, Argument, Choice, Command
from releval.commands.common import check_choice, emit, format_option, output_option
from releval.commands.inputs import Inputs, input_options, refuse_foreign, task_option
from releval.core.options import OUTPUT_FORMATS
from releval.core.validation import refuse_options
from releval.data.decoding import read_utf8
from releval.data.formats import E2EFormat
from releval.data.labels import LabelFile, find_format, parse_labels, refuse_early
from releval.report.render import render_as

if TYPE_CHECKING:
    pass


@click.command("stats", cls=Command)
@click.argument(
    "files",
    cls=Argument,
    type=PATH,
    nargs=-1,
    required=True,
    help="Dataset files (classification, or end-to-end RE: SpERT/PURE).",
)
@click.option(
    "--view",
    "view",
    type=Choice(("directed", "undirected", "both")),
    default="both",
    help="SemEval: directed, undirected or both (a row each).",
)
@task_option(
    "auto",
    "The kind of evaluation whose dataset statistics to show: auto (rc for label files, e2e for end-to-end RE "
    "files) or a registered task's name.",
    needs="statistics",
)
@input_options("stats", ("{gold}",), sides="gold", own=("view",), needs="statistics", groups=("docred-files",))
@click.option(
    "--compare",
    "compare",
    is_flag=True,
    default=False,
    help="e2e: list the differences between two dataset versions (exit 1 if any).",
)
@format_option()
@output_option()
def stats_command(
    files: tuple[Path, ...],
    view: str,
    task: str,
    inputs: Inputs,
    compare: bool,
    format: str,
    output: Path | None,
) -> None:
    """Dataset statistics: #relations, #samples, % negative, perplexity with/without negative, ratio.

    End-to-end RE files get sentence/entity/relation counts, overlap checks, the relation → argument-type
    mapping and a content fingerprint instead.
    """
    check_choice(format, OUTPUT_FORMATS, "--format")
    check_choice(view, ("directed", "undirected", "both"), "--view")
    from releval.commands.inputs import INPUT_OPTIONS
    from releval.registry import DEFAULT_TASK, get_task

    if task != "auto":  # a named task reads its files itself, with the options its Config has
        the_task = get_task(task)
        refuse_options({"--compare": compare, "--view": view != "both"}, "apply to --task auto only")
        refuse_foreign(the_task, inputs.given_fields())
        assert the_task.statistics is not None  # task_option(needs="statistics") refused a task without them
        result = the_task.statistics(list(files), inputs.config(the_task))
        emit(render_as(format, result.to_tables, result.to_dict), output)
        return
    rc = get_task(DEFAULT_TASK)  # auto: label files are the default task's, end-to-end files their format's task
    grouped = {o.flag for o in INPUT_OPTIONS if o.group}  # the options of other kinds of file (--train-facts …)
    refuse_foreign(rc, {flag: sets for flag, sets in inputs.given_fields().items() if flag in grouped})
    config = inputs.config(rc)
    fields = config.side_fields("gold")
    loaded: list[LabelFile] = []
    for f in files:  # each file read once: its format detected (unless named), then parsed from the same bytes
        refuse_early(f, config.gold_read_format, **fields)  # a huge file with a fatal first line: refused at once
        data = read_utf8(f)
        found = find_format(f, data, config.gold_read_format, fields["id_field"], fields.get("label_field"))
        if isinstance(found, E2EFormat):
            given = {**dict.fromkeys(inputs.given_fields(), True), "--view": view != "both"}
            refuse_options(given, "not used with end-to-end RE files (they have no negative class or direction)")
            if compare:
                from releval.commands.e2e import compare_versions

                raise click.exceptions.Exit(compare_versions(list(files), format, output))
            statistics = get_task(found.task).statistics
            assert statistics is not None
            result = statistics(list(files), None)
            emit(render_as(format, result.to_tables, result.to_dict), output)
            return
        loaded.append(parse_labels(data, str(f), found.name, **fields))
    refuse_options({"--compare": compare}, "works on end-to-end RE dataset files only")
    assert rc.statistics is not None
    result = rc.statistics(loaded, config, view)  # the patch applied as `score` applies it
    emit(render_as(format, result.to_tables, result.to_dict), output)


def register(app: click.Group) -> None:
    app.add_command(stats_command)
