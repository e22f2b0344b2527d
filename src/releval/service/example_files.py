"""The gold file of a task's example benchmark (`Task.example`, a `BoardExample`) as the board stores it: read
without Django, so a plugin's declaration is checked (and its mistakes located) like any other input."""

from __future__ import annotations

import json
from pathlib import Path

from releval.core.errors import InputError
from releval.registry import BoardExample, get_task


def example_gold(task: str, example: BoardExample, path: Path) -> tuple[bytes, str]:
    """The gold an example benchmark stores and its file name: the value under `example.part` of a JSON file (a
    split), or what the task's `gold_upload` makes of the file or folder. A `part` the file lacks, or a file that is
    no JSON object, is an InputError naming the task and its example (a plugin's declaration), never a traceback.

    >>> import json, tempfile
    >>> path = Path(tempfile.mkdtemp()) / "splits.json"
    >>> _ = path.write_text(json.dumps({"train": [], "dev": [1]}))
    >>> example_gold("toy", BoardExample("x", "toy", "splits.json", "X", "An example.", part="dev"), path)
    (b'[1]', 'toy_dev.json')
    >>> try:
    ...     example_gold("toy", BoardExample("x", "toy", "splits.json", "X", "An example.", part="test"), path)
    ... except InputError as error:
    ...     print(error.message)  # doctest: +ELLIPSIS
    task 'toy', example benchmark 'x': its gold is the 'test' value ... no such key (its keys: 'train', 'dev')
    """
    if example.part is None or example.stored_name is None:
        return get_task(task).gold_upload(path)  # DrugProt's folder: one archive
    what = f"task {task!r}, example benchmark {example.slug!r}: its gold is the {example.part!r} value of a JSON object"
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise InputError(f"{what}, but the file cannot be read ({type(exc).__name__})", file=str(path)) from exc
    if not isinstance(document, dict) or example.part not in document:
        keys = ", ".join(map(repr, list(document)[:5])) if isinstance(document, dict) else "none: not a JSON object"
        raise InputError(f"{what}, and the file has no such key (its keys: {keys})", file=str(path))
    return json.dumps(document[example.part]).encode(), example.stored_name
