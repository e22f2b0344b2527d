"""A wide TSV (id, gold, one column per system: a results spreadsheet) given alone, as many systems in one call.

`releval score wide.tsv` and `releval compare wide.tsv` — no prediction file — read the gold file; when it is a
`wide-tsv` file (releval.data.formats.wide_tsv) its gold column is gold and every other column one system, named by
its header cell. Each system is a LabelFile sharing gold's ids, so it goes through the same input stage as a
prediction file (the same alignment, label checks and warnings); its messages name it `wide.tsv (column cnn)`.
Any other gold file without prediction files is the usage error it always was.

>>> from releval.commands.inputs import Inputs
>>> wide_sides(Inputs(gold_label_field="key", id_field="sid"))
({'format': None, 'id_field': 'sid', 'label_field': 'key'}, 'sid')
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from releval.commands.inputs import Inputs
from releval.core.errors import InputError, OptionError

if TYPE_CHECKING:
    from releval.tasks.base import Task


def wide_sides(inputs: Inputs) -> tuple[dict[str, Any], str]:
    """How the gold file is read (format, id field, gold label field) from the input options, and its id field."""
    id_field = inputs.gold_id_field or inputs.id_field
    return {
        "format": inputs.gold_format or inputs.input_format,
        "id_field": id_field,
        "label_field": inputs.gold_label_field or inputs.label_field,
    }, id_field


def wide_systems(gold: Path, inputs: Inputs, command: str, task: Task[Any, Any]) -> tuple[Any, list[Any]]:
    """(gold as a LabelFile, [(system, its LabelFile)]) of a wide TSV given as gold with no prediction file; any
    other file (or a task that does not read a wide TSV's columns: `Task.wide_tsv`) is an OptionError saying what
    `command` needs."""
    from releval.data.labels import load_labels

    read, _ = wide_sides(inputs)
    if read["format"] not in (None, "wide-tsv"):
        raise _needs_predictions(command)
    try:
        wide = load_labels(gold, role="gold", **read)
    except InputError:
        if not task.wide_tsv:  # gold of another kind of file (DocRED JSON…): what the command needs is a PRED
            raise _needs_predictions(command) from None
        raise
    if wide.format != "wide-tsv":
        raise _needs_predictions(command)
    if not task.wide_tsv:  # a label file like rc's, but one system per call: said so, not "needs a wide TSV"
        from releval.registry import tasks_with

        raise OptionError(
            f"{gold} is a wide TSV (id, gold, one column per system), which {command} reads alone under --task "
            f"{' or '.join(tasks_with('wide_tsv'))} only; with --task {task.name}, give each system's prediction file "
            "(PRED…) after it",
            option="--task",
        )
    systems = [
        (column, replace(wide, path=f"{wide.path} (column {column})", labels=labels, fields={}))
        for column, labels in wide.fields.items()
    ]
    return replace(wide, fields={}), systems


def _needs_predictions(command: str) -> OptionError:
    return OptionError(
        f"{command} needs prediction files (PRED…), or a wide TSV (id, gold, one column per system) as gold alone "
        "(docs/formats.md, wide-tsv)",
        option="PREDS",
    )
