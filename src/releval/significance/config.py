"""Every setting of a significance test in one frozen, validated Config, signed in one place.

Paired tests (bootstrap, approximate randomization, McNemar, sign) and seed comparisons read their settings from
a `SignificanceConfig` instead of a dozen keyword arguments, and `signature_fields()` states every one that can
change a p-value or an interval: the tests and their direction, resamples, seed, the interval's level, the
classes a bootstrap resample averages over, the correction across pairs.

>>> config = SignificanceConfig(tests=("bootstrap", "mcnemar"), resamples=1000)
>>> config.signature_fields()["test"]
'bootstrap:two-sided,mcnemar:two-sided'
>>> SignificanceConfig(tests=("mcnemar",)).signature_fields().get("resamples") is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

from releval.core.options import (
    ALTERNATIVES,
    CLASS_SETS,
    CORRECTIONS,
    DEFAULT_CLASS_SET,
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MCNEMAR_VARIANTS,
    PAIRED_TESTS,
    RESAMPLING_TESTS,
)
from releval.core.validation import check_choice, check_choices, check_confidence, check_resamples, check_seed

_C = TypeVar("_C")


@dataclass(frozen=True)
class SignificanceConfig:
    """Which paired tests, in which direction, with how many resamples, which seed, interval level, correction.

    `class_set`: the classes each bootstrap resample's class-weighted averages (macro, power:0) run over — "test"
    (default), the classes with gold support in the test set, fixed in every resample, as the point estimate
    averages over them; or "resample", the classes with gold support in the resample (releval 0.3.0), so a class
    whose few gold items a resample misses leaves that resample's macro. `releval.metrics.averages.fix_class_set`
    says how a fixed class is scored in a resample without its gold items (the zero_division rule).
    """

    tests: tuple[str, ...] = ("bootstrap",)
    alternative: str = "two-sided"
    resamples: int = DEFAULT_RESAMPLES
    seed: int | None = DEFAULT_SEED
    confidence: float = DEFAULT_CONFIDENCE
    correction: str = "holm"
    mcnemar_variant: str = "exact"
    class_set: str = DEFAULT_CLASS_SET

    def __post_init__(self) -> None:
        tests = tuple(dict.fromkeys(t.strip() for t in ([self.tests] if isinstance(self.tests, str) else self.tests)))
        object.__setattr__(self, "tests", tuple(check_choices(tests, PAIRED_TESTS, "tests")))
        check_choice(self.alternative, ALTERNATIVES, "alternative")
        object.__setattr__(self, "resamples", check_resamples(self.resamples))
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "confidence", check_confidence(self.confidence))
        check_choice(self.correction, CORRECTIONS, "correction")
        check_choice(self.mcnemar_variant, MCNEMAR_VARIANTS, "mcnemar_variant")
        check_choice(self.class_set, CLASS_SETS, "class_set")

    @property
    def resampling(self) -> bool:
        """Whether any chosen test draws random resamples (then resamples and seed matter)."""
        return bool(set(RESAMPLING_TESTS) & set(self.tests))

    def test_name(self, test: str) -> str:
        """The test as recorded: McNemar's χ² variants are named, the exact default is not."""
        if test == "mcnemar" and self.mcnemar_variant != "exact":
            return f"mcnemar-{self.mcnemar_variant}"
        return test

    def signature_fields(self, unit: str | None = None, baseline: str | None = None) -> dict[str, object]:
        """The tests (with direction and, for end-to-end RE, the resampled unit), resamples, seed, CI level, class
        set and correction; resampling fields only when a resampling test runs, the CI level and the class set only
        when the bootstrap runs (a randomization draw keeps every item's gold, so its classes are the test set's
        under either class set).

        `baseline`: the system every other one was compared with, which decides the pairs and so the family the
        correction runs over (and each pair's direction): recorded with the correction, `holm,baseline=NAME`.
        """
        suffix = f":{unit}" if unit else ""
        fields: dict[str, object] = {
            "test": ",".join(f"{self.test_name(t)}:{self.alternative}{suffix}" for t in self.tests),
            "methods": correction_field(self.correction, baseline),
        }
        if self.resampling:
            fields["resamples"] = self.resamples
            fields["seed"] = self.seed if self.seed is not None else "none"
        if self.interval_confidence is not None:
            fields["confidence"] = float(self.interval_confidence)
        if self.interval_class_set is not None:
            fields["class_set"] = self.interval_class_set
        return fields

    @property
    def interval_confidence(self) -> float | None:
        """The confidence level when a test gives intervals (the bootstrap), else None: then it changes nothing."""
        return self.confidence if "bootstrap" in self.tests else None

    @property
    def interval_class_set(self) -> str | None:
        """The class set of the bootstrap's resamples when the bootstrap runs, else None: then it changes nothing."""
        return self.class_set if "bootstrap" in self.tests else None


def correction_field(correction: str, baseline: str | None = None) -> str:
    """The signature's `methods` of a comparison of many systems: the correction across pairs, and the baseline
    when the pairs are every system against it rather than all pairs (another family, other adjusted p-values).

    >>> correction_field("holm"), correction_field("holm", "lstm")
    ('holm', 'holm,baseline=lstm')
    """
    return correction if baseline is None else f"{correction},baseline={baseline}"


def split_settings(
    config_type: type[_C], config: _C | None, test: SignificanceConfig | None, settings: dict[str, Any]
) -> tuple[_C, SignificanceConfig]:
    """Keyword settings routed to the task's Config or to the SignificanceConfig by their names, so a caller may
    write `paired_bootstrap(gold, a, b, negative="Other", resamples=1000)`: both Configs validate their fields.
    A name neither Config has is a TypeError, as for any unknown keyword."""
    task_fields = {f.name for f in fields(config_type)}  # type: ignore[arg-type]
    test_fields = {f.name for f in fields(SignificanceConfig)}
    unknown = sorted(set(settings) - task_fields - test_fields)
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(unknown)}")
    task_settings = {k: v for k, v in settings.items() if k in task_fields}
    test_settings = {k: v for k, v in settings.items() if k in test_fields}
    if "tests" in test_settings and isinstance(test_settings["tests"], str):
        test_settings["tests"] = (test_settings["tests"],)
    if config is None:
        config = config_type(**task_settings)
    elif task_settings:
        config = replace(config, **task_settings)  # type: ignore[type-var]
    if test is None:
        test = SignificanceConfig(**test_settings)
    elif test_settings:
        test = replace(test, **test_settings)
    return config, test
