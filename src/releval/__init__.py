"""releval: honest, comparable evaluation of relation extraction and relation classification.

The names below are the public API. Everything beyond classification scoring is resolved on first use
(PEP 562), so `import releval` — and with it every command-line run — stays fast.
"""

from __future__ import annotations

import importlib
from typing import Any

from releval._version import __version__
from releval.api import score
from releval.core import signature
from releval.data.alignment import align
from releval.data.labels import LabelFile, apply_patch, load_labels
from releval.errors import InputError, InputErrors, OptionError, OutputError, RelevalError
from releval.metrics.weightings import DEFAULT_WEIGHTINGS, Weighting, get_weighting, power
from releval.result import Average, ClassRow, ScoreResult

# name -> (module, attribute), imported on first access.
_LAZY = {
    "AuditReport": ("releval.audit.findings", "AuditReport"),
    "Finding": ("releval.audit.findings", "Finding"),
    "audit": ("releval.audit.checks", "audit"),
    "E2EResult": ("releval.tasks.e2e", "E2EResult"),
    "E2EConfig": ("releval.tasks.e2e", "E2EConfig"),
    "score_e2e": ("releval.api", "score_e2e"),
    "SemevalOfficialResult": ("releval.tasks.semeval_official", "SemevalOfficialResult"),
    "SemevalOfficialConfig": ("releval.tasks.semeval_official", "SemevalOfficialConfig"),
    "score_semeval_official": ("releval.api", "score_semeval_official"),
    "ClassificationConfig": ("releval.tasks.classification", "ClassificationConfig"),
    "RelevalWarning": ("releval.core.notices", "RelevalWarning"),
    "Notice": ("releval.core.notices", "Notice"),
    "LabelStats": ("releval.stats.label_distribution", "LabelStats"),
    "label_stats": ("releval.stats.label_distribution", "label_stats"),
    "paired_bootstrap": ("releval.stats.paired", "paired_bootstrap"),
    "approximate_randomization": ("releval.stats.paired", "approximate_randomization"),
    "mcnemar": ("releval.stats.paired", "mcnemar"),
    "sign_test": ("releval.stats.paired", "sign_test"),
    "PairedResult": ("releval.stats.paired", "PairedResult"),
    "compare_seeds": ("releval.stats.seeds", "compare_seeds"),
    "paired_t": ("releval.stats.paired_classic", "paired_t"),
    "wilcoxon_signed_rank": ("releval.stats.paired_classic", "wilcoxon_signed_rank"),
    "SeedComparison": ("releval.stats.seeds", "SeedComparison"),
    "check_stats": ("releval.stats.rounding", "check_stats"),
    "compare_paired": ("releval.stats.compare", "compare_paired"),
    "compare_seed_runs": ("releval.stats.compare", "compare_seed_runs"),
    "SignificanceConfig": ("releval.stats.significance_config", "SignificanceConfig"),
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
    "Average",
    "ClassRow",
    "InputError",
    "InputErrors",
    "LabelFile",
    "OptionError",
    "OutputError",
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
    *_LAZY,
]
