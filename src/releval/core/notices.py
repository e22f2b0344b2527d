"""Structured warnings that travel inside results, so a fill or a shortcut can never be lost on the way out.

A `Notice` is the warning's message (it *is* a `str`, so `"filled" in result.warnings[0]` keeps working) with a
stable `code` a program can test for. Every renderer shows a result's notices in its own way — stderr for text,
a `warnings` array in JSON, a comment row in CSV, a footnote in Markdown and LaTeX — and the Python API repeats
them through `warnings.warn` with the category `RelevalWarning`.

>>> w = Notice("944 missing prediction(s) filled with 'no_relation'", code="missing-filled-negative")
>>> w.code, "filled" in w
('missing-filled-negative', True)
>>> Notice.from_dict(w.to_dict()) == w and Notice.from_dict(w.to_dict()).code == w.code
True
"""

from __future__ import annotations

import warnings as _warnings
from collections.abc import Iterable
from typing import Any

#: The codes in use; a notice's code tells a program what happened without parsing the message.
CODES = {
    "missing-filled-negative": "missing predictions were filled with the negative class (leaks gold labels)",
    "missing-filled-wrong": "missing predictions were counted as wrong (Olek's correction)",
    "averages-dropped": "averages left out because they cannot be computed exactly for these data",
    "missing-skipped": "missing predictions were skipped (the SemEval scorer's behaviour)",
    "pred-only-labels": "predicted labels that never occur in gold, counted as false positives",
    "duplicates-dropped": "duplicated entities or relations counted once",
    "experimental-criterion": "an experimental criterion (Relaxed) that is not an end-to-end RE score",
    "label-absent-from-key": "a predicted label that the answer key does not contain",
    "undefined-statistic": "a statistic that is undefined for these data",
    "estimator-invalid": "an estimator that is not valid under the stated dependence",
    "position-ids-disagree": "aligned by position although the ids say the files list the items in another order",
    "swapped-files": "file names or contents suggest that gold and predictions were given the other way round",
    "pred-equals-gold": "the predictions equal gold item for item (gold given twice?)",
    "rare-classes": "a class-weighted average includes classes with very few gold items (its interval rests on them)",
    "resample-floor": "too few resamples for any p-value of a family to fall below α after the correction",
    "warning": "any other warning",
}


class RelevalWarning(UserWarning):
    """The category of every warning releval's Python API raises; filter it with `warnings.simplefilter`."""


class Notice(str):
    """A warning message with a stable `code` (one of `CODES`)."""

    code: str

    def __new__(cls, message: str, code: str = "warning") -> Notice:
        if code not in CODES:
            raise ValueError(f"unknown notice code {code!r}")
        self = super().__new__(cls, message)
        self.code = code
        return self

    def to_dict(self) -> dict[str, str]:
        """`{"code": …, "message": …}` for JSON."""
        return {"code": self.code, "message": str(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | str) -> Notice:
        """Read back `to_dict()` (or a bare message string, code "warning")."""
        if isinstance(data, str):
            return cls(data)
        return cls(str(data["message"]), str(data.get("code", "warning")))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Notice, (str(self), self.code))


def as_notices(items: Iterable[str]) -> list[Notice]:
    """Every item as a Notice (plain strings get the code "warning")."""
    return [item if isinstance(item, Notice) else Notice(item) for item in items]


def warn_all(notices: Iterable[str], stacklevel: int = 3) -> None:
    """Repeat each notice through `warnings.warn(…, RelevalWarning)` for Python callers."""
    for notice in notices:
        _warnings.warn(str(notice), RelevalWarning, stacklevel=stacklevel)
