"""Loaders keep one object per distinct label (issue 13: a 10^7-line file would otherwise hold 10^7 copies of a few
dozen labels, about 0.5 GB), and the labels read are unchanged by it."""

from __future__ import annotations

from pathlib import Path

import pytest

from releval.data.labels import load_labels

LABELS = ["no_relation", "per:title", "org:founded_by"]


@pytest.mark.parametrize("suffix", [".tsv", ".jsonl", ".csv"])
def test_equal_labels_are_one_object(tmp_path: Path, suffix: str) -> None:
    rows = [(f"i{k}", LABELS[k % 3]) for k in range(300)]
    path = tmp_path / f"pred{suffix}"
    if suffix == ".tsv":
        path.write_text("".join(f"{i}\t{label}\n" for i, label in rows), encoding="utf-8")
    elif suffix == ".jsonl":
        path.write_text("".join(f'{{"id": "{i}", "label": "{label}"}}\n' for i, label in rows), encoding="utf-8")
    else:
        path.write_text("id,label\n" + "".join(f"{i},{label}\n" for i, label in rows), encoding="utf-8")
    loaded = load_labels(path)
    assert loaded.labels == [label for _, label in rows]
    assert len({id(label) for label in loaded.labels}) == 3


def test_free_text_labels_are_left_alone(tmp_path: Path) -> None:
    """Mostly distinct labels (not a classification file) are not worth a lookup each: kept as read."""
    path = tmp_path / "pred.tsv"
    path.write_text("".join(f"i{k}\tlabel{k % 150}\n" for k in range(300)), encoding="utf-8")
    assert load_labels(path).labels == [f"label{k % 150}" for k in range(300)]
