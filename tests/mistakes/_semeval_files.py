"""The bundled SemEval-2010 Task 8 files, mistaken as issue 32 measured, for the cases of rc and semeval-official."""

from __future__ import annotations

from pathlib import Path

from mistakes import Files

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "semeval2010_task8"
KEY = EXAMPLES / "test_key_directed.txt"
CNN = EXAMPLES / "onehaitao_cnn.txt"
RBERT = EXAMPLES / "onehaitao_rbert.txt"
#: A few of TACRED's relation labels (Zhang et al. 2017): another dataset's label set.
TACRED = ("no_relation", "per:title", "org:top_members/employees", "per:employee_of", "org:founded_by")


def rows(path: Path) -> list[tuple[str, str]]:
    """The `<id>\\t<label>` lines of a bundled file."""
    return [(a, b) for a, b in (line.split("\t") for line in path.read_text(encoding="utf-8").splitlines())]


def _write(path: Path, items: list[tuple[str, str]]) -> Path:
    path.write_text("".join(f"{i}\t{y}\n" for i, y in items), encoding="utf-8")
    return path


def integer_indices(folder: Path) -> Files:
    """The CNN's and RBERT's predictions as class indices (the sorted labels' positions): a model's argmax."""
    index = {label: str(k) for k, label in enumerate(sorted({y for _, y in rows(KEY)}))}
    pred = _write(folder / "cnn_indices.txt", [(i, index[y]) for i, y in rows(CNN)])
    pred2 = _write(folder / "rbert_indices.txt", [(i, index[y]) for i, y in rows(RBERT)])
    return Files(KEY, pred, pred2)


def other_datasets_labels(folder: Path) -> Files:
    """Predictions in TACRED's labels scored against the SemEval key."""
    items = [(i, TACRED[k % len(TACRED)]) for k, (i, _) in enumerate(rows(CNN))]
    pred = _write(folder / "tacred_preds.txt", items)
    pred2 = _write(folder / "tacred_preds2.txt", items[1:] + items[:1])
    return Files(KEY, pred, pred2)


def identical(folder: Path) -> Files:
    """The key copied as a system's output (gold passed twice), beside a real system."""
    pred = _write(folder / "run1.txt", rows(KEY))
    return Files(KEY, pred, RBERT)


def swapped(folder: Path) -> Files:
    """The CNN's output given as gold and the key as the predictions."""
    return Files(CNN, KEY, RBERT)
