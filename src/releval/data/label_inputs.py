"""What the library's classification functions accept as labels — a path, a LabelFile, an {id: label} mapping or a
list — read as one LabelFile, and the name a prediction file gives its system. Shared by relation classification
(releval.tasks.classification) and the SemEval-2010 official scorer (releval.tasks.semeval_official), so that neither
task imports the other's module.

Example:

>>> as_label_file({"8001": "Other", "8002": "Cause-Effect(e1,e2)"}, "gold").labels
['Other', 'Cause-Effect(e1,e2)']
>>> system_name(as_label_file(["Other"], "pred"))
'system'
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from releval.data.labels import LabelFile, load_labels

#: Labels as the library takes them: a path, a LabelFile, an {id: label} mapping or a positional list.
LabelsInput = str | os.PathLike[str] | LabelFile | Mapping[str, str] | Sequence[str]


def as_label_file(
    data: LabelsInput, role: str, format: str | None = None, fields: Mapping[str, str] | None = None
) -> LabelFile:
    """Any accepted input as a LabelFile: paths are loaded, mappings keep their keys as ids, lists are positional."""
    if isinstance(data, LabelFile):
        return data
    if isinstance(data, (str, os.PathLike)):
        # predictions' repeated ids are found by `align` (cheaper for large files)
        return load_labels(data, format=format, role=role, check_unique=role == "gold", **dict(fields or {}))
    if isinstance(data, Mapping):
        ids = _as_strings(data)
        return LabelFile(f"<{role} mapping>", "mapping", ids, _as_strings(data.values()), range(1, len(ids) + 1))
    labels = _as_strings(data)
    return LabelFile(f"<{role} list>", "list", None, labels, range(1, len(labels) + 1))


def _as_strings(items: Iterable[Any]) -> list[str]:
    """The items as a new list of str: copied as they are when every distinct item is a str (the usual case;
    checking the distinct items costs a set, not a str() call per item), else each converted by str()."""
    out = list(items)
    try:
        distinct = set(out)
    except TypeError:  # an unhashable label (a list): str() of each
        distinct = None
    if distinct is not None and all(type(x) is str for x in distinct):
        return out
    return [x if type(x) is str else str(x) for x in out]


def system_name(pred: LabelFile) -> str:
    """A prediction file's name without its format suffixes ("system" for in-memory data)."""
    if pred.path.startswith("<"):
        return "system"
    name = Path(pred.path).name
    for suffix in (".gz", ".jsonl", ".json", ".txt", ".tsv", ".csv"):
        name = name.removesuffix(suffix)
    return name
