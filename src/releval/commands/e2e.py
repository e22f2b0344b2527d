"""End-to-end RE for the `score --task e2e` and `stats` commands: tables of NER strict and RE Strict /
Boundaries side by side, and dataset statistics / integrity comparisons (Taillé et al. 2020)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

import typer

from releval.commands.common import emit
from releval.core.options import OUTPUT_FORMATS
from releval.data.e2e import load_e2e
from releval.errors import OptionError
from releval.metrics.e2e import NER, RELAXED
from releval.report.strict_json import dumps_strict
from releval.report.tables import CSV_HEADER, csv_rows, latex_escape, table_cells
from releval.result import ScoreResult
from releval.stats.e2e_dataset import DatasetStats, compare_datasets, dataset_stats
from releval.tasks.e2e import E2EResult
from releval.validation import check_choice

_TITLES = {
    NER: "NER strict (span + type)",
    "strict": "Strict (argument spans and types + relation type)",
    "boundaries": "Boundaries (argument spans + relation type; argument types ignored)",
    RELAXED: "Relaxed — EXPERIMENTAL, not an end-to-end RE score",
}
_SHORT = {NER: "NER", "strict": "Strict", "boundaries": "Boundaries", RELAXED: "Relaxed(exp.)"}


def _check_format(fmt: str) -> None:
    check_choice(fmt, OUTPUT_FORMATS, "--format")


# ----------------------------------------------------------------------------------------------- score


def _blocks(result: E2EResult) -> list[tuple[str, list[ScoreResult]]]:
    """(title, results side by side): the NER table, then the relation criteria together."""
    relation = [c for c in result.results if c != NER]
    out = []
    if NER in result.results:
        out.append((f"{result.system}: {_TITLES[NER]}", [_renamed(result[NER], _SHORT[NER])]))
    titles = "; ".join(f"{_SHORT[c]} = {_TITLES[c]}" for c in relation)
    out.append((f"{result.system}: relations — {titles}", [_renamed(result[c], _SHORT[c]) for c in relation]))
    return out


def _renamed(r: ScoreResult, name: str) -> ScoreResult:
    return ScoreResult(name, r.per_class, r.averages, r.accuracy, r.n, r.negative, r.signature, r.notes, r.warnings)


def _cells(results: Sequence[ScoreResult], width: int) -> tuple[list[str], list[list[str]], int]:
    header, body, first_average = table_cells(results, width)
    header = [h if h != "support" else "gold" for h in header]
    if len(results) == 1:
        header = [header[0], *(f"{results[0].system} {h}" for h in header[1:-1]), header[-1]]
    return header, body[:-1], first_average  # no accuracy row: there is no negative class in e2e RE


def _footer(results: Sequence[ScoreResult]) -> list[str]:
    lines: list[str] = []
    for note in dict.fromkeys(n for r in results for n in r.notes):
        lines.append(f"note: {note}")
    for r in results:
        lines += [f"warning ({r.system}): {w}" for w in r.warnings]
    lines += [f"signature ({r.system}): {r.signature.format(short=True)}" for r in results]
    return lines


def render_e2e(results: Sequence[E2EResult], fmt: str = "text", width: int = 2) -> str:
    """Text, Markdown, LaTeX (percentages), CSV or JSON (fractions) for one or several systems."""
    if fmt == "json":
        data = results[0].to_dict() if len(results) == 1 else {"results": [r.to_dict() for r in results]}
        return dumps_strict(data, indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        return _render_csv(results)
    parts = []
    for result in results:
        for title, block in _blocks(result):
            header, body, first_average = _cells(block, width)
            parts.append(_table(title, header, body, first_average, fmt, _footer(block)))
    return "\n".join(parts)


def _table(title: str, header: list[str], body: list[list[str]], first: int, fmt: str, footer: list[str]) -> str:
    if fmt == "markdown":
        out = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
        for i, row in enumerate(body):
            cells = [f"**{row[0]}**" if i >= first else row[0], *row[1:]]
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        out.append("")
        out += [f"`{ln}`  " if ln.startswith("signature") else f"{ln}  " for ln in footer]
        return "\n".join(out) + "\n"
    if fmt == "latex":
        out = [f"% {title}", *(f"% {ln}" for ln in footer)]
        out += [r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\toprule"]
        out += [" & ".join(latex_escape(h) for h in header) + r" \\", r"\midrule"]
        for i, row in enumerate(body):
            if i == first:
                out.append(r"\midrule")
            out.append(" & ".join(latex_escape(c) for c in row) + r" \\")
        return "\n".join([*out, r"\bottomrule", r"\end{tabular}"]) + "\n"
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join([cells[0].rjust(widths[0]), *(c.rjust(w) for c, w in zip(cells[1:], widths[1:]))]).rstrip()

    out = [f"== {title} ==", line(header), ""]
    out += [line(r) for r in body[:first]] + [""] + [line(r) for r in body[first:]] + ["", *footer]
    return "\n".join(out) + "\n"


def _render_csv(results: Sequence[E2EResult]) -> str:
    """The classification CSV layout with a criterion column after the system."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([CSV_HEADER[0], "criterion", *CSV_HEADER[1:]])
    for result in results:
        for criterion, r in result.results.items():
            writer.writerows([row[0], criterion, *row[1:]] for row in csv_rows(r, accuracy=False))
    return buf.getvalue()


# ----------------------------------------------------------------------------------------------- stats

from releval.core.table import Column, Table  # noqa: E402
from releval.report.render import render_as  # noqa: E402

_STAT_COLUMNS = (
    ("split", "name"),
    ("sentences", "sentences"),
    ("tokens", "tokens"),
    ("entities", "entities"),
    ("relations", "relations"),
    ("nested", "nested_mentions"),
    ("crossing", "crossing_mentions"),
    ("dup. ents", "duplicate_mentions"),
    ("rels w/ overlapping args", "overlapping_argument_relations"),
    ("dup. rels", "duplicate_relations"),
    ("bijective", "bijective"),
    ("fingerprint", "fingerprint"),
)


def run_stats_e2e(files: list[Path], *, compare: bool, fmt: str, output: Path | None) -> int:
    """Statistics and integrity checks of e2e files, or (compare) the differences between two versions.

    Exit status: 0, except with `compare` when the two versions differ (1, as `diff` does).
    """
    _check_format(fmt)
    datasets = [load_e2e(f) for f in files]
    if compare:
        if len(datasets) != 2:
            raise OptionError(f"--compare needs exactly two files, got {len(files)}", option="--compare")
        differences = compare_datasets(datasets[0], datasets[1])
        emit(render_compare(datasets[0].path, datasets[1].path, differences, fmt), output)
        return 1 if differences else 0
    emit(render_stats_e2e([dataset_stats(d) for d in datasets], fmt), output)
    return 0


_E2E_NOTE = (
    "nested = pairs of mentions in one sentence where one span contains the other (identical spans with different "
    "types included); crossing = overlapping without nesting; bijective = each relation type has one (head, tail) "
    "type pair and no two relation types share one (Taillé et al. 2020, §5.4)"
)


def e2e_stats_tables(stats: Sequence[DatasetStats]) -> list[Table]:
    """Per file: per-split and total counts, mentions per entity and relation type, and the relation →
    argument-type mapping (shown only); for CSV one long table of (file, split, kind, key, value)."""
    tables = []
    data = []
    for s in stats:
        rows = [*s.splits, s.total] if len(s.splits) > 1 else s.splits
        columns = [Column("split")]
        columns += [Column(head, "count", key=attr) for head, attr in _STAT_COLUMNS[1:-2]]
        columns += [Column("bijective", align="right"), Column("fingerprint", align="right")]
        tables.append(
            Table(
                f"{s.path} ({s.format})",
                columns,
                [[getattr(r, attr) for _, attr in _STAT_COLUMNS] for r in rows],
                show="display",
            )
        )
        names = [r.name for r in rows]
        for kind, attr in (("entity type", "entity_types"), ("relation type", "relation_types")):
            types = sorted({t for r in rows for t in getattr(r, attr)})
            tables.append(
                Table(
                    f"mentions per {kind}",
                    [Column(kind), *(Column(name, "count") for name in names)],
                    [[t, *(getattr(r, attr).get(t, 0) for r in rows)] for t in types],
                    show="display",
                )
            )
        total = s.total
        verdict = "bijective" if total.bijective else "NOT bijective"
        tables.append(
            Table(
                f"relation type → (head type, tail type), all splits: {verdict}",
                [Column("relation"), Column("argument types", align="right")],
                [[r, ", ".join(f"{p} ({n:,})" for p, n in pairs.items())] for r, pairs in total.argument_types.items()],
                notes=[_E2E_NOTE, *s.notes],
                show="display",
            )
        )
        for split in [*s.splits, s.total]:
            data += [[s.path, split.name, "count", attr, getattr(split, attr)] for _, attr in _STAT_COLUMNS[1:]]
            data += [[s.path, split.name, "entity_type", t, n] for t, n in split.entity_types.items()]
            data += [[s.path, split.name, "relation_type", t, n] for t, n in split.relation_types.items()]
            for r, pairs in split.argument_types.items():
                data += [[s.path, split.name, "argument_types", f"{r}: {p}", n] for p, n in pairs.items()]
    columns = [Column("file"), Column("split"), Column("kind"), Column("key"), Column("value")]
    return [*tables, Table("", columns, data, show="data")]


def render_stats_e2e(stats: Sequence[DatasetStats], fmt: str = "text") -> str:
    """Per-split and total counts, per-type counts and the relation → argument-type mapping."""

    def data() -> object:
        return stats[0].to_dict() if len(stats) == 1 else {"files": [s.to_dict() for s in stats]}

    return render_as(fmt, lambda: e2e_stats_tables(stats), data)


def dataset_compare_tables(first: str, second: str, differences: list[str]) -> list[Table]:
    """The differences between two dataset versions as a list under a verdict line; for CSV one row each."""
    head = f"{first} vs {second}: " + ("identical content" if not differences else f"{len(differences)} difference(s)")
    items = [f"  - {d.strip()}" if d.startswith(" ") else f"- {d}" for d in differences]
    columns = [Column("first"), Column("second"), Column("difference")]
    return [
        Table(head, lead=items, show="display"),
        Table("", columns, [[first, second, d.strip()] for d in differences], show="data"),
    ]


def render_compare(first: str, second: str, differences: list[str], fmt: str = "text") -> str:
    """The list of differences between two dataset versions (empty: same content fingerprint)."""

    def data() -> object:
        return {"first": first, "second": second, "identical": not differences, "differences": differences}

    return render_as(fmt, lambda: dataset_compare_tables(first, second, differences), data)


def register(app: typer.Typer) -> None:
    """Nothing on the root: `stats` calls run_stats_e2e; `score --task e2e` renders through render_e2e."""
