"""Dror et al. (TACL 2017) §5 toy examples: how often does each k_hat overclaim when every null is true?

Two scenarios, N = 100 datasets, all nulls true (true k = 0), so P(k_hat > k) = P(k_hat > 0):

* ``independent``: 100 independent U(0, 1) p-values.
* ``dependent``: one-sided p-values p_i = 1 - Phi(z_i) of 100 standard-normal test statistics: 34
  independent, 33 equicorrelated with rho = 0.2 and 33 equicorrelated with rho = 0.5 (the one-factor
  construction z = sqrt(rho) W + sqrt(1 - rho) e of Benjamini, Krieger & Yekutieli 2006, §6.1).

Everything is vectorised over repetitions: the p-values form a (reps, N) array, sorted once, and
every partial-conjunction sequence is computed for all repetitions together.  The Monte-Carlo
standard error of an estimated probability p_hat is sqrt(p_hat (1 - p_hat) / reps).  A `SimulationResult` keeps
every repetition's k_hat, so its JSON (`to_dict()`) loads back equal with `from_dict()`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from releval._version import __version__
from releval.core.errors import OptionError
from releval.core.options import DEFAULT_ALPHA, DEFAULT_SEED
from releval.core.schema import check_schema, float_or_nan, header, known, reading, same
from releval.core.signature import Signature, parse
from releval.core.validation import check_choice, check_choices, check_int, check_seed
from releval.replicability.analysis import (
    DEFAULT_PC_METHODS,
    PC_METHODS,
    check_alpha,
    k_from_monotone,
    partial_conjunction_sorted,
    running_max,
    theory_independent_null,
)

SCENARIOS: tuple[str, ...] = ("independent", "dependent")
#: Dror §5 dependent example: (group size, equicorrelation rho); rho = 0 means independent.
DEPENDENT_GROUPS: tuple[tuple[int, float], ...] = ((34, 0.0), (33, 0.2), (33, 0.5))
#: What the paper prints for P(k_hat > 0) (§5); the independent row is not reproducible, see docs.
PAPER_VALUES: dict[str, dict[str, float]] = {
    "independent": {"count": 0.963, "bonferroni": 0.001, "fisher": 0.021},
    "dependent": {"count": 0.943, "bonferroni": 0.046, "fisher": 0.234},
}


def _check_dependent_n(n: int, groups: Sequence[tuple[int, float]] = DEPENDENT_GROUPS) -> None:
    """The dependent scenario's correlated groups fix the number of datasets (Dror §5: 100)."""
    total = sum(size for size, _ in groups)
    if total != n:
        raise OptionError(
            f"n: dependent groups sum to {total}, not n = {n} (the dependent scenario has {total} datasets)",
            option="n",
        )


def null_pvalues(
    rng: np.random.Generator,
    reps: int,
    n: int = 100,
    scenario: str = "independent",
    groups: Sequence[tuple[int, float]] = DEPENDENT_GROUPS,
) -> NDArray[np.float64]:
    """A (reps, n) array of null p-values for one scenario."""
    if scenario == "independent":
        return rng.random((reps, n))
    if scenario == "dependent":
        _check_dependent_n(n, groups)
        blocks = []
        for size, rho in groups:
            e = rng.standard_normal((reps, size))
            w = rng.standard_normal((reps, 1))
            blocks.append(np.sqrt(rho) * w + np.sqrt(1.0 - rho) * e)
        from scipy import stats  # imported here: the CLI must start without SciPy

        return stats.norm.sf(np.concatenate(blocks, axis=1))
    raise OptionError(
        f"scenarios: unknown scenario {scenario!r}; choose from {', '.join(SCENARIOS)}", option="scenarios"
    )


@dataclass(frozen=True)
class ScenarioResult:
    """k_hat for every repetition of one scenario, and P(k_hat > 0) with its Monte-Carlo s.e."""

    scenario: str
    n: int
    reps: int
    alpha: float
    k_hat: dict[str, NDArray[np.int64]]
    #: P(k_hat > 0) in theory for the estimators simulated (independent scenario only).
    theory: dict[str, float] = field(default_factory=dict)

    @property
    def methods(self) -> tuple[str, ...]:
        """The estimators simulated, "count" first."""
        return tuple(self.k_hat)

    def p_over(self, method: str) -> float:
        """Estimated P(k_hat > k) = P(k_hat > 0) (all nulls true)."""
        return float(np.mean(self.k_hat[method] > 0))

    def se(self, method: str) -> float:
        """Monte-Carlo standard error of `p_over(method)`."""
        p = self.p_over(method)
        return float(np.sqrt(p * (1.0 - p) / self.reps))

    def histogram(self, method: str) -> dict[int, int]:
        """{k_hat value: number of repetitions}, zero counts omitted."""
        values, counts = np.unique(self.k_hat[method], return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts)}

    def to_dict(self) -> dict[str, Any]:
        """P(k_hat > 0) with its s.e., theory, the paper's values and histograms per estimator, then every
        repetition's k_hat (what `from_dict` reads back; the rest is derived from it)."""
        return {
            **header("replicability-scenario"),
            "scenario": self.scenario,
            "n": self.n,
            "reps": self.reps,
            "alpha": self.alpha,
            "p_overestimate": {m: self.p_over(m) for m in self.methods},
            "mc_se": {m: self.se(m) for m in self.methods},
            "theory": dict(self.theory),
            "paper": PAPER_VALUES.get(self.scenario, {}),
            "histogram": {m: {str(k): v for k, v in self.histogram(m).items()} for m in self.methods},
            "k_hat": {m: [int(x) for x in v] for m, v in self.k_hat.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScenarioResult:
        """The scenario `to_dict()` wrote, arrays restored (ValueError when it is not one)."""
        what = "simulation scenario"
        check_schema(data, what, "replicability-scenario")
        with reading(what):
            return cls(
                known(data["scenario"], SCENARIOS, what, "scenario"),
                int(data["n"]),
                int(data["reps"]),
                float(data["alpha"]),
                {
                    known(m, ("count", *PC_METHODS), what, "estimator"): np.asarray(v, dtype=np.int64)
                    for m, v in data["k_hat"].items()
                },
                {m: float_or_nan(v) for m, v in data.get("theory", {}).items()},
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, every estimator's k_hat array by dtype, shape and values."""
        if not isinstance(other, ScenarioResult):
            return NotImplemented
        return same(self, other)

    __hash__ = None  # type: ignore[assignment]  # arrays inside: not hashable


@dataclass(frozen=True)
class SimulationResult:
    """Dror §5's scenarios run with one seed: per scenario every repetition's k_hat for each estimator."""

    seed: int | None
    alpha: float
    methods: tuple[str, ...]
    scenarios: dict[str, ScenarioResult]
    #: The releval version that ran the simulation (a loaded result keeps the version it was saved with).
    version: str = __version__

    @property
    def task(self) -> str:
        """The kind of evaluation, as in the signature."""
        return "replicability-simulation"

    @property
    def signature(self) -> Signature:
        """Every setting that changes a number: the scenarios, N datasets, repetitions (as resamples), alpha,
        seed, estimators and version."""
        runs = self.scenarios.values()
        return Signature.build(
            task=self.task,
            scenario=tuple(self.scenarios),
            n=_one_or_all(sc.n for sc in runs),
            resamples=_one_or_all(sc.reps for sc in runs),
            alpha=self.alpha,
            seed=self.seed,
            methods=self.methods,
            version=self.version,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the settings, each scenario's `ScenarioResult.to_dict()` and the signature."""
        return {
            **header("replicability-simulation"),
            "task": self.task,
            "alpha": self.alpha,
            "seed": self.seed,
            "methods": list(self.methods),
            "scenarios": {name: sc.to_dict() for name, sc in self.scenarios.items()},
            **self.signature.to_json(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SimulationResult:
        """The simulation `to_dict()` wrote, arrays restored (ValueError when it is not one)."""
        what = "replicability simulation"
        check_schema(data, what, "replicability-simulation")
        with reading(what):
            seed = data["seed"]
            return cls(
                None if seed is None else int(seed),
                float(data["alpha"]),
                tuple(known(m, ("count", *PC_METHODS), what, "estimator") for m in data["methods"]),
                {str(name): ScenarioResult.from_dict(sc) for name, sc in data["scenarios"].items()},
                parse(data["signature"]).get("version") or __version__,
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, every scenario's k_hat arrays by dtype, shape and values."""
        if not isinstance(other, SimulationResult):
            return NotImplemented
        return same(self, other)

    __hash__ = None  # type: ignore[assignment]  # arrays inside: not hashable


def _one_or_all(values: Iterable[int]) -> int | tuple[int, ...]:
    """The value all scenarios share, or each distinct value in order."""
    distinct = tuple(sorted(set(values)))
    return distinct[0] if len(distinct) == 1 else distinct


def simulate_scenario(
    scenario: str = "independent",
    reps: int = 1000,
    *,
    n: int = 100,
    alpha: float = DEFAULT_ALPHA,
    methods: Sequence[str] = DEFAULT_PC_METHODS,
    rng: np.random.Generator | None = None,
    chunk: int = 2000,
    progress: Callable[[int], None] | None = None,
) -> ScenarioResult:
    """Simulate one scenario; k_hat arrays for 'count' and each partial-conjunction method.

    `progress`, when given, is called with the repetitions of each block of `chunk` once it is done (`reps` in
    all); the draws do not depend on it."""
    a = check_alpha(alpha)
    check_int(reps, "reps", low=1)
    check_int(n, "n", low=1)
    for m in methods:
        check_choice(m, PC_METHODS, "methods")
    gen = rng if rng is not None else np.random.default_rng()
    names = ("count", *methods)
    parts: dict[str, list[NDArray[np.int64]]] = {m: [] for m in names}
    for start in range(0, reps, chunk):
        size = min(chunk, reps - start)
        p = np.sort(null_pvalues(gen, size, n, scenario), axis=1)
        parts["count"].append(np.sum(p <= a, axis=1).astype(np.int64))
        for m in methods:
            parts[m].append(np.asarray(k_from_monotone(running_max(partial_conjunction_sorted(p, m)), a)))
        if progress is not None:
            progress(size)
    k_hat = {m: np.concatenate(v) for m, v in parts.items()}
    theory = theory_independent_null(n, a) if scenario == "independent" else {}
    theory = {m: theory[m] for m in names if m in theory}
    return ScenarioResult(scenario=scenario, n=n, reps=reps, alpha=a, k_hat=k_hat, theory=theory)


def simulate(
    reps: int = 1000,
    seed: int | None = DEFAULT_SEED,
    *,
    n: int = 100,
    alpha: float = DEFAULT_ALPHA,
    scenarios: Sequence[str] = SCENARIOS,
    methods: Sequence[str] = DEFAULT_PC_METHODS,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Run Dror §5's toy examples with one seeded `numpy.random.Generator` (PCG64), scenarios in order.

    Every setting is checked before the first scenario runs (OptionError naming the option). `progress`, when
    given, is called with the repetitions done after each block: reps × len(scenarios) in all (`releval
    replicability simulate` moves its bar with it; the results do not depend on it).
    """
    check_alpha(alpha)
    check_int(reps, "reps", low=1)
    check_int(n, "n", low=1)
    check_seed(seed)
    for m in methods:
        check_choice(m, PC_METHODS, "methods")
    for s in check_choices(scenarios, SCENARIOS, "scenarios"):
        if s == "dependent":
            _check_dependent_n(n)
    rng = np.random.default_rng(seed)
    out = {
        s: simulate_scenario(s, reps, n=n, alpha=alpha, methods=methods, rng=rng, progress=progress) for s in scenarios
    }
    return SimulationResult(seed=seed, alpha=check_alpha(alpha), methods=("count", *methods), scenarios=out)
