"""`releval stats FILE…`: label-distribution statistics per file and in total (Harbecke et al. 2022, Table 1)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from releval.commands.base import PATH, Argument, Choice, Command
from releval.commands.common import check_choice, emit, format_option, output_option
from releval.commands.inputs import Inputs, input_options
from releval.core.options import OUTPUT_FORMATS
from releval.core.table import Column, Table
from releval.data.columns import distinct
from releval.data.decoding import read_utf8
from releval.data.formats import E2EFormat
from releval.data.labels import LabelFile, find_format, parse_labels
from releval.data.semeval_labels import DIRECTED_SET, undirected
from releval.report.render import render_as
from releval.validation import refuse_options

if TYPE_CHECKING:
    from releval.stats.label_distribution import LabelStats


def _is_semeval(f: LabelFile) -> bool:
    return all(label in DIRECTED_SET for label in f.labels[:1000])


def collect(files: list[LabelFile], negative: str | None, view: str) -> list[tuple[str, LabelStats]]:
    """Statistics per file and for all files together; SemEval files get a directed and an undirected row."""
    from releval.metrics.classification import detect_negative  # NumPy: not for `stats --help`
    from releval.stats.label_distribution import label_stats

    rows: list[tuple[str, LabelStats]] = []
    views = ["directed", "undirected"] if view == "both" else [view]
    semeval = all(_is_semeval(f) for f in files)
    for v in views if semeval else ["labels"]:
        mapped = [(f.path, [undirected(x) for x in f.labels] if v == "undirected" else list(f.labels)) for f in files]
        neg = negative if negative != "auto" else detect_negative([x for _, labels in mapped for x in labels])
        signed_view = v if semeval else None
        for name, labels in mapped:
            rows.append((v, label_stats(name, labels, neg, signed_view)))
        if len(files) > 1:
            rows.append((v, label_stats("total", [x for _, labels in mapped for x in labels], neg, signed_view)))
    return rows


def _ratio(value: float) -> str:
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


_COLUMNS = (
    Column("file"),
    Column("view", align="left"),
    Column("#rel", "count", key="relations"),
    Column("#samples", "count", key="samples"),
    Column("%neg", "number", key="negative_percent", spec=".1f"),
    Column("ppl", "number", key="perplexity", spec=".2f"),
    Column("ppl w/o neg", "number", key="perplexity_without_negative", spec=".2f"),
    Column("ratio", "number", display=_ratio),
)
_NOTES = (
    "ppl = 2^H of the label distribution (bits); ratio = most / least frequent positive class",
    "%neg counts the negative class (no_relation / Other / NA unless --negative says otherwise)",
)


def stats_tables(rows: list[tuple[str, LabelStats]]) -> list[Table]:
    """One row per (file, view): #relations, #samples, % negative, perplexity with and without it, ratio."""
    body = [
        (s.name, v, s.n_labels, s.n_samples, s.negative_percent, s.perplexity, s.perplexity_positive, s.ratio)
        for v, s in rows
    ]
    return [Table("", _COLUMNS, body, notes=_NOTES)]


def render_stats(rows: list[tuple[str, LabelStats]], format: str) -> str:
    """Text, Markdown, LaTeX, CSV or JSON (one object per row: its view, then the statistics' `to_dict`)."""
    return render_as(format, lambda: stats_tables(rows), lambda: [{"view": v, **s.to_dict()} for v, s in rows])


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
@input_options("stats", ("{gold}",), sides="gold", own=("view",))
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
    from releval.tasks.classification import AUTO, load_gold  # NumPy: not for `stats --help`
    from releval.tasks.label_mistakes import check_negative_exists

    config = inputs.config("rc")
    loaded: list[LabelFile] = []
    for f in files:
        data = read_utf8(f)
        fields = config.side_fields("gold")
        found = find_format(f, data, config.gold_read_format, fields["id_field"], fields.get("label_field"))
        if isinstance(found, E2EFormat):
            from releval.commands.e2e import run_stats_e2e

            given = {**dict.fromkeys(inputs.given_fields(), True), "--view": view != "both"}
            refuse_options(given, "not used with end-to-end RE files (they have no negative class or direction)")
            raise click.exceptions.Exit(run_stats_e2e(list(files), compare=compare, format=format, output=output))
        label_file = parse_labels(data, str(f), found.name, **fields)
        loaded.append(load_gold(label_file, config)[0])  # the patch applied as `score` applies it
    refuse_options({"--compare": compare}, "works on end-to-end RE dataset files only")
    if config.negative not in (AUTO, None) and not config.allow_absent_negative:  # a typo, refused as by `score`
        check_negative_exists(config.negative, sorted({x for f in loaded for x in distinct(f.labels)}), [])
    emit(render_stats(collect(loaded, config.negative, view), format), output)


def register(app: click.Group) -> None:
    app.add_command(stats_command)
