"""releval: honest, comparable evaluation of relation extraction and relation classification.

The names below are the public API. All but the version and the exception classes are resolved on first use
(PEP 562), so `import releval` loads no NumPy and every command-line run pays only for what its command uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from releval._version import __version__
from releval.core.errors import InputError, InputErrors, OptionError, OutputError, RelevalError

if TYPE_CHECKING:  # what type checkers and editors see; at run time these names are resolved by `__getattr__`
    from releval.api import score as score
    from releval.core import signature as signature
    from releval.data.alignment import align as align
    from releval.data.labels import LabelFile as LabelFile
    from releval.data.labels import apply_patch as apply_patch
    from releval.data.labels import load_labels as load_labels
    from releval.metrics.weightings import DEFAULT_WEIGHTINGS as DEFAULT_WEIGHTINGS
    from releval.metrics.weightings import Weighting as Weighting
    from releval.metrics.weightings import get_weighting as get_weighting
    from releval.metrics.weightings import power as power
    from releval.result import Average as Average
    from releval.result import ClassRow as ClassRow
    from releval.result import ScoreResult as ScoreResult

# name -> (module, attribute), imported on first access; attribute None is the module itself. Even classification
# scoring is here: it loads NumPy, and `import releval` (so `releval --version` and `releval score --help`) must not.
_LAZY: dict[str, tuple[str, str | None]] = {
    "score": ("releval.api", "score"),
    "signature": ("releval.core.signature", None),
    "align": ("releval.data.alignment", "align"),
    "LabelFile": ("releval.data.labels", "LabelFile"),
    "apply_patch": ("releval.data.labels", "apply_patch"),
    "load_labels": ("releval.data.labels", "load_labels"),
    "DEFAULT_WEIGHTINGS": ("releval.metrics.weightings", "DEFAULT_WEIGHTINGS"),
    "Weighting": ("releval.metrics.weightings", "Weighting"),
    "get_weighting": ("releval.metrics.weightings", "get_weighting"),
    "power": ("releval.metrics.weightings", "power"),
    "Average": ("releval.result", "Average"),
    "ClassRow": ("releval.result", "ClassRow"),
    "ScoreResult": ("releval.result", "ScoreResult"),
    "AuditReport": ("releval.audit.findings", "AuditReport"),
    "Finding": ("releval.audit.findings", "Finding"),
    # `releval.audit` is the subpackage (importing any of its modules binds it), so the function is `run_audit`.
    "run_audit": ("releval.audit.checks", "audit"),
    "E2EResult": ("releval.tasks.e2e", "E2EResult"),
    "E2EConfig": ("releval.tasks.e2e", "E2EConfig"),
    "score_e2e": ("releval.api", "score_e2e"),
    "SemevalOfficialResult": ("releval.tasks.semeval_official", "SemevalOfficialResult"),
    "SemevalOfficialConfig": ("releval.tasks.semeval_official", "SemevalOfficialConfig"),
    "score_semeval_official": ("releval.api", "score_semeval_official"),
    "ClassificationConfig": ("releval.tasks.classification", "ClassificationConfig"),
    "RelevalWarning": ("releval.core.notices", "RelevalWarning"),
    "Notice": ("releval.core.notices", "Notice"),
    "LabelStats": ("releval.dataset_stats.label_distribution", "LabelStats"),
    "label_stats": ("releval.dataset_stats.label_distribution", "label_stats"),
    "paired_bootstrap": ("releval.significance.paired", "paired_bootstrap"),
    "approximate_randomization": ("releval.significance.paired", "approximate_randomization"),
    "mcnemar": ("releval.significance.paired", "mcnemar"),
    "sign_test": ("releval.significance.paired", "sign_test"),
    "PairedResult": ("releval.significance.paired", "PairedResult"),
    "compare_seeds": ("releval.significance.seeds", "compare_seeds"),
    "paired_t": ("releval.significance.paired_classic", "paired_t"),
    "wilcoxon_signed_rank": ("releval.significance.paired_classic", "wilcoxon_signed_rank"),
    "SeedComparison": ("releval.significance.seeds", "SeedComparison"),
    "check_stats": ("releval.audit.published", "check_stats"),
    "compare_paired": ("releval.significance.compare", "compare_paired"),
    "compare_seed_runs": ("releval.significance.compare", "compare_seed_runs"),
    "per_class_differences": ("releval.significance.per_class", "per_class_differences"),
    "PerClassComparison": ("releval.significance.per_class", "PerClassComparison"),
    "ClassDifference": ("releval.significance.per_class", "ClassDifference"),
    "SignificanceConfig": ("releval.significance.config", "SignificanceConfig"),
    "analyze_replicability": ("releval.replicability.analysis", "analyze"),
    "identify": ("releval.replicability.analysis", "identify"),
    "partial_conjunction_pvalues": ("releval.replicability.analysis", "partial_conjunction_pvalues"),
    "pvalues_from_predictions": ("releval.replicability.analysis", "pvalues_from_predictions"),
    "simulate_replicability": ("releval.replicability.simulation", "simulate"),
    "ReplicabilityResult": ("releval.replicability.analysis", "ReplicabilityResult"),
    "Identification": ("releval.replicability.analysis", "Identification"),
    "DatasetTests": ("releval.replicability.analysis", "DatasetTests"),
    "SimulationResult": ("releval.replicability.simulation", "SimulationResult"),
    "MetricComparison": ("releval.significance.paired", "MetricComparison"),
    "DiscordantTest": ("releval.significance.paired", "DiscordantTest"),
    "ClassicResult": ("releval.significance.paired_classic", "ClassicResult"),
    "PairedTable": ("releval.significance.compare", "PairedTable"),
    "SeedTable": ("releval.significance.compare", "SeedTable"),
    "StatsCheck": ("releval.audit.published", "StatsCheck"),
    "Comparison": ("releval.audit.comparability", "Comparison"),
    "ClaimsCheck": ("releval.audit.claims", "ClaimsCheck"),
    "ClaimVerdict": ("releval.audit.claims", "ClaimVerdict"),
    "DatasetStats": ("releval.dataset_stats.e2e_dataset", "DatasetStats"),
    "SplitStats": ("releval.dataset_stats.e2e_dataset", "SplitStats"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'releval' has no attribute {name!r}") from None
    imported = importlib.import_module(module)
    value = imported if attribute is None else getattr(imported, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "InputError",
    "InputErrors",
    "OptionError",
    "OutputError",
    "RelevalError",
    "__version__",
    *_LAZY,
]
