"""`releval stats --compare`: the differences between two versions of an end-to-end RE dataset (Taillé et al.
2020). The statistics themselves are the e2e task's (releval.dataset_stats.e2e_dataset.statistics)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from releval.commands.common import emit
from releval.core.errors import OptionError
from releval.core.options import OUTPUT_FORMATS
from releval.core.table import Column, Table
from releval.core.validation import check_choice
from releval.data.e2e import load_e2e
from releval.dataset_stats.e2e_dataset import compare_datasets
from releval.report.render import render_as


def _check_format(format: str) -> None:
    check_choice(format, OUTPUT_FORMATS, "--format")


def compare_versions(files: list[Path], format: str, output: Path | None) -> int:
    """`stats --compare`: the differences between two versions of an end-to-end dataset; exit status 1 when they
    differ (as `diff`), else 0."""
    _check_format(format)
    if len(files) != 2:
        raise OptionError(f"--compare needs exactly two files, got {len(files)}", option="--compare")
    first, second = (load_e2e(f) for f in files)
    differences = compare_datasets(first, second)
    emit(render_compare(first.path, second.path, differences, format), output)
    return 1 if differences else 0


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
    """Nothing on the root: `stats --compare` calls compare_versions."""
