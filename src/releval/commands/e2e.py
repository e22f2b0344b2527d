"""End-to-end RE dataset statistics for the `stats` command: per-split counts, integrity checks and the
differences between two versions of a dataset (Taillé et al. 2020). Scores render through `E2EResult.to_tables`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from releval.commands.common import emit
from releval.core.options import OUTPUT_FORMATS
from releval.core.table import Column, Table
from releval.data.e2e import load_e2e
from releval.errors import OptionError
from releval.report.render import render_as
from releval.stats.e2e_dataset import DatasetStats, compare_datasets, dataset_stats, files_stats
from releval.validation import check_choice


def _check_format(format: str) -> None:
    check_choice(format, OUTPUT_FORMATS, "--format")


# ----------------------------------------------------------------------------------------------- stats

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


def run_stats_e2e(files: list[Path], *, compare: bool, format: str, output: Path | None) -> int:
    """Statistics and integrity checks of e2e files, or (compare) the differences between two versions.

    Exit status: 0, except with `compare` when the two versions differ (1, as `diff` does).
    """
    _check_format(format)
    datasets = [load_e2e(f) for f in files]
    if compare:
        if len(datasets) != 2:
            raise OptionError(f"--compare needs exactly two files, got {len(files)}", option="--compare")
        differences = compare_datasets(datasets[0], datasets[1])
        emit(render_compare(datasets[0].path, datasets[1].path, differences, format), output)
        return 1 if differences else 0
    stats = [dataset_stats(d) for d in datasets]
    if len(datasets) > 1:  # the files together: a total row and the sentences two files share
        stats.append(files_stats(datasets))
    emit(render_stats_e2e(stats, format), output)
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


def render_stats_e2e(stats: Sequence[DatasetStats], format: str = "text") -> str:
    """Per-split and total counts, per-type counts and the relation → argument-type mapping."""

    def data() -> object:
        return stats[0].to_dict() if len(stats) == 1 else {"files": [s.to_dict() for s in stats]}

    return render_as(format, lambda: e2e_stats_tables(stats), data)


def dataset_compare_tables(first: str, second: str, differences: list[str]) -> list[Table]:
    """The differences between two dataset versions as a list under a verdict line; for CSV one row each."""
    head = f"{first} vs {second}: " + ("identical content" if not differences else f"{len(differences)} difference(s)")
    items = [f"  - {d.strip()}" if d.startswith(" ") else f"- {d}" for d in differences]
    columns = [Column("first"), Column("second"), Column("difference")]
    return [
        Table(head, lead=items, show="display"),
        Table("", columns, [[first, second, d.strip()] for d in differences], show="data"),
    ]


def render_compare(first: str, second: str, differences: list[str], format: str = "text") -> str:
    """The list of differences between two dataset versions (empty: same content fingerprint)."""

    def data() -> object:
        return {"first": first, "second": second, "identical": not differences, "differences": differences}

    return render_as(format, lambda: dataset_compare_tables(first, second, differences), data)


def register(app: Any) -> None:
    """Nothing on the root: `stats` calls run_stats_e2e."""
