"""releval: honest, comparable evaluation of relation extraction and relation classification."""

from releval._version import __version__
from releval.api import score
from releval.data.alignment import align
from releval.data.labels import LabelFile, apply_patch, load_labels
from releval.errors import InputError, InputErrors, RelevalError
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, Weighting, get_weighting, power
from releval.report import signature
from releval.result import Average, ClassRow, ScoreResult

__all__ = [
    "DEFAULT_WEIGHTINGS",
    "Average",
    "ClassRow",
    "InputError",
    "InputErrors",
    "LabelFile",
    "RelevalError",
    "ScoreResult",
    "Weighting",
    "__version__",
    "align",
    "apply_patch",
    "get_weighting",
    "load_labels",
    "power",
    "score",
    "signature",
]
