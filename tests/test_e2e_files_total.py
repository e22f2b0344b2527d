"""`releval stats train.json dev.json test.json` on end-to-end files: one table over the files with a total row
and the sentences two files share (issue 14). The expected totals come from the bundled sincere file that holds
the three CoNLL04 splits in one file, scored by the single-file path."""

from __future__ import annotations

import json
from pathlib import Path

from releval.data.e2e import load_e2e
from releval.dataset_stats.e2e_dataset import dataset_stats, files_stats

ROOT = Path(__file__).resolve().parents[1]
ALL_SPLITS = ROOT / "examples" / "conll04" / "conll04_sincere_all_splits.json"


def write_splits(folder: Path, extra_test: list[dict] | None = None) -> list[Path]:
    """The three splits of the bundled sincere file as three SpERT files, as a user has them."""
    data = json.loads(ALL_SPLITS.read_text())
    paths = []
    for split in ("train", "dev", "test"):
        path = folder / f"conll04_{split}.json"
        path.write_text(json.dumps(data[split] + (extra_test or [] if split == "test" else [])))
        paths.append(path)
    return paths


def test_the_total_over_three_files_equals_the_file_that_holds_all_three(tmp_path: Path) -> None:
    combined = files_stats([load_e2e(p) for p in write_splits(tmp_path)])
    whole = dataset_stats(load_e2e(ALL_SPLITS))
    assert [s.name for s in combined.splits] == ["conll04_train", "conll04_dev", "conll04_test"]
    assert [s.sentences for s in combined.splits] == [922, 231, 288]
    for field in ("sentences", "tokens", "entities", "relations", "entity_types", "relation_types"):
        assert getattr(combined.total, field) == getattr(whole.total, field), field
    assert combined.total.sentences == 922 + 231 + 288
    # CoNLL04's own overlaps between splits (18 test sentences repeat a train sentence's tokens): the same
    # notes as for the one file, split names aside
    overlaps = [n.replace("conll04_", "") for n in combined.notes if "same tokens" in n]
    assert overlaps == [n for n in whole.notes if "same tokens" in n]
    assert "18 sentence(s) of split 'test' have the same tokens as one of 'train'" in overlaps


def test_a_test_sentence_that_is_also_in_train_is_noted(tmp_path: Path) -> None:
    leaked = json.loads(ALL_SPLITS.read_text())["train"][:2]
    combined = files_stats([load_e2e(p) for p in write_splits(tmp_path, extra_test=leaked)])
    assert "20 sentence(s) of split 'conll04_test' have the same tokens as one of 'conll04_train'" in combined.notes


def test_the_command_prints_the_files_together_with_a_total_row(tmp_path: Path) -> None:
    import re
    import subprocess
    import sys

    paths = write_splits(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "releval", "stats", *map(str, paths)], capture_output=True, text=True, check=True
    ).stdout
    assert "== 3 files (spert) ==" in out
    total = next(line for line in out.splitlines() if line.startswith("total "))
    docs = [doc for split in json.loads(ALL_SPLITS.read_text()).values() for doc in split]
    counts = [len(docs), *(sum(len(d[k]) for d in docs) for k in ("tokens", "entities", "relations"))]
    assert re.split(r"\s+", total)[1:5] == [f"{n:,}" for n in counts] and counts[0] == 1441
    assert "18 sentence(s) of split 'conll04_test' have the same tokens as one of 'conll04_train'" in out
