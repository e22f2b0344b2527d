"""releval: honest, comparable evaluation of relation extraction and relation classification.

The names below are the public API. Statistical functions that need SciPy or statsmodels are resolved on
first use (PEP 562), so `import releval` and the command line stay fast.
"""

from __future__ import annotations

import importlib
from typing import Any

from releval._version import __version__
from releval.api import score
from releval.audit import AuditReport, Finding, audit
from releval.data.alignment import align
from releval.data.labels import LabelFile, apply_patch, load_labels
from releval.e2e_api import E2EResult, score_e2e
from releval.errors import InputError, InputErrors, RelevalError
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, Weighting, get_weighting, power
from releval.report import signature
from releval.result import Average, ClassRow, ScoreResult
from releval.semeval_api import SemevalOfficialResult, score_semeval_official
from releval.stats.label_distribution import LabelStats, label_stats

# name -> module, imported on first access because the module needs SciPy or statsmodels.
_LAZY = {
    "analyze_replicability": ("releval.stats.replicability", "analyze"),
    "identify": ("releval.stats.replicability", "identify"),
    "partial_conjunction_pvalues": ("releval.stats.replicability", "partial_conjunction_pvalues"),
    "pvalues_from_predictions": ("releval.stats.replicability", "pvalues_from_predictions"),
    "simulate_replicability": ("releval.stats.simulation", "simulate"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'releval' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "DEFAULT_WEIGHTINGS",
    "AuditReport",
    "Average",
    "ClassRow",
    "E2EResult",
    "Finding",
    "InputError",
    "InputErrors",
    "LabelFile",
    "LabelStats",
    "RelevalError",
    "ScoreResult",
    "SemevalOfficialResult",
    "Weighting",
    "__version__",
    "align",
    "apply_patch",
    "audit",
    "get_weighting",
    "label_stats",
    "load_labels",
    "power",
    "score",
    "score_e2e",
    "score_semeval_official",
    "signature",
    *_LAZY,
]
