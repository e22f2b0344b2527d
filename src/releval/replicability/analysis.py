"""Replicability analysis across datasets: how many datasets show an effect, and which ones.

Counting (Dror, Baumer, Bogomolov & Reichart, TACL 2017, §4.1-4.2, after Benjamini & Heller 2008):
with the one-sided p-values sorted, p_(1) <= ... <= p_(N), the partial-conjunction p-value for
"at least u of N nulls are false" is

* Bonferroni: p^{u/N} = min(1, (N - u + 1) p_(u))                          (Dror eq. 2; any dependence)
* Fisher:     p^{u/N} = P(chi2_{2(N-u+1)} >= -2 sum_{i=u..N} ln p_(i))   (Dror eq. 2; independence only)
* Simes:      p^{u/N} = min_{i=u..N} (N-u+1)/(i-u+1) p_(i)               (Benjamini & Heller 2008, Thm 1; PRDS)
* Stouffer:   p^{u/N} = 1 - Phi(sum_{i=u..N} Phi^{-1}(1 - p_(i)) / sqrt(N-u+1))  (extension; independence)

made monotone by a running maximum p*^{u/N} = max(p*^{(u-1)/N}, p^{u/N}) and turned into the lower
confidence bound k_hat = max{u : p*^{u/N} <= alpha} (0 if none) (Dror eq. 3).  k_count = #{p_i <= alpha}
is the naive practice the paper criticises, reported only as a baseline.

Identification (Dror §4.3): Holm's step-down procedure, whose rejections are exactly the k_Bonferroni
smallest p-values; Bonferroni, Hochberg, Hommel and Benjamini-Hochberg (FDR) are offered too, all from
releval.significance.corrections.  A hypothesis is rejected when its adjusted p-value is <= alpha.

Every function takes plain p-values; the sorted-array helpers also accept a batch (..., N) so the
simulation can evaluate thousands of repetitions at once.  The results (`ReplicabilityResult`, `Identification`,
`DatasetTests`) write themselves as JSON with `to_dict()` and load back equal with `from_dict()`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from releval._version import __version__
from releval.core import validation
from releval.core.errors import InputError, InputErrors, OptionError, raise_all
from releval.core.frames import data_frame
from releval.core.notices import Notice, as_notices, warn_all
from releval.core.options import (
    DEFAULT_ALPHA,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    PAIRED_TESTS,
    RESAMPLING_TESTS,
)
from releval.core.schema import check_schema, float_or_nan, header, known, reading, same
from releval.core.signature import Signature, parse, sequence_digest
from releval.significance.corrections import ADJUSTMENTS

#: Partial-conjunction combination methods, in reporting order.
PC_METHODS: tuple[str, ...] = ("bonferroni", "fisher", "simes", "stouffer")
#: Methods reported by default (Stouffer is an opt-in extension: it is not in the paper).
DEFAULT_PC_METHODS: tuple[str, ...] = ("bonferroni", "fisher", "simes")
DEPENDENCES: tuple[str, ...] = ("dependent", "positive", "independent")

#: Dependence assumptions under which each estimator bounds P(k_hat > k) <= alpha.
PC_VALID_UNDER: dict[str, frozenset[str]] = {
    "count": frozenset(),
    "bonferroni": frozenset({"dependent", "positive", "independent"}),
    "simes": frozenset({"positive", "independent"}),
    "fisher": frozenset({"independent"}),
    "stouffer": frozenset({"independent"}),
}
#: The count estimator Dror et al. recommend under each assumption (Simes for PRDS: their §7).
RECOMMENDED_COUNT: dict[str, str] = {"dependent": "bonferroni", "positive": "simes", "independent": "fisher"}
_NEEDS = {"independent": "independent", "positive": "positively dependent"}

_ALIASES: dict[str, str] = {
    "simes-hochberg": "hochberg",
    "sh": "hochberg",
    "bh": "fdr_bh",
    "benjamini-hochberg": "fdr_bh",
    "by": "fdr_by",
    "holm-sidak": "holm_sidak",
}
#: The identification procedures of the issue (extensions above are accepted too).
ID_METHODS: tuple[str, ...] = ("holm", "bonferroni", "hochberg", "hommel", "fdr_bh")
#: What each identification procedure controls, and under which dependence.
ID_GUARANTEE: dict[str, tuple[str, frozenset[str]]] = {
    "holm": ("FWER", frozenset({"dependent", "positive", "independent"})),
    "bonferroni": ("FWER", frozenset({"dependent", "positive", "independent"})),
    "hochberg": ("FWER", frozenset({"positive", "independent"})),
    "hommel": ("FWER", frozenset({"positive", "independent"})),
    "fdr_bh": ("FDR", frozenset({"positive", "independent"})),
    "fdr_by": ("FDR", frozenset({"dependent", "positive", "independent"})),
    "sidak": ("FWER", frozenset({"positive", "independent"})),
    "holm_sidak": ("FWER", frozenset({"positive", "independent"})),
    "fdr_tsbh": ("FDR", frozenset({"independent"})),
}


def check_pvalues(pvalues: ArrayLike, name: str = "p") -> NDArray[np.float64]:
    """The p-values as a 1-D float array; an InputError names the first bad entry (NaN, outside [0, 1])."""
    try:
        arr = np.asarray(pvalues, dtype=float)
    except (TypeError, ValueError):
        raise InputError("p-values must be numbers", field=name) from None
    if arr.ndim != 1:
        raise InputError(f"expected a flat list of p-values, got shape {arr.shape}", field=name)
    if arr.size == 0:
        raise InputError("no p-values given (need at least one dataset)", field=name)
    bad = np.flatnonzero(~((arr >= 0.0) & (arr <= 1.0)))  # NaN fails both comparisons
    if bad.size:
        i = int(bad[0])
        raise InputError(f"p-value #{i + 1} is {float(arr[i])!r}; p-values must lie in [0, 1]", field=name)
    return arr


def check_alpha(alpha: float) -> float:
    """alpha as a float in the open interval (0, 1) (an OptionError naming --alpha otherwise)."""
    return validation.check_alpha(alpha)


def _tail_sums(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """sum_{i=u..N} values_i for every u, along the last axis."""
    return np.flip(np.cumsum(np.flip(values, axis=-1), axis=-1), axis=-1)


def partial_conjunction_sorted(sorted_p: NDArray[np.float64], method: str) -> NDArray[np.float64]:
    """Raw (non-monotone) p^{u/N}, u = 1..N, from p-values sorted ascending along the last axis.

    Works on a batch of shape (..., N).  p_(i) = 0 gives an infinite Fisher/Stouffer statistic and
    therefore p^{u/N} = 0 for every u <= i (Dror's Chinese POS p-value is an exact zero).
    """
    from scipy import stats  # imported here, not at module level: the CLI must start without SciPy

    p = np.asarray(sorted_p, dtype=float)
    n = p.shape[-1]
    m = np.arange(n, 0, -1, dtype=float)  # N - u + 1 for u = 1..N
    if method == "bonferroni":
        return np.minimum(1.0, m * p)
    if method == "fisher":
        with np.errstate(divide="ignore"):
            stat = _tail_sums(-2.0 * np.log(p))
        return stats.chi2.sf(stat, 2.0 * m)
    if method == "simes":
        out = np.empty_like(p)
        for u in range(n):  # u is 0-based here; the tail p_(u..N) has n - u members
            tail = p[..., u:]
            out[..., u] = np.min(tail * ((n - u) / np.arange(1, n - u + 1, dtype=float)), axis=-1)
        return np.minimum(1.0, out)
    if method == "stouffer":
        z = stats.norm.isf(p)  # +inf for p = 0, -inf for p = 1
        with np.errstate(invalid="ignore"):
            s = _tail_sums(z)
        s = np.where(np.isnan(s), np.inf, s)  # a p = 0 together with a p = 1: the zero wins, as in Fisher
        return stats.norm.sf(s / np.sqrt(m))
    raise OptionError(f"method: {method!r} is not one of {', '.join(PC_METHODS)}", option="method")


def partial_conjunction_pvalues(pvalues: ArrayLike, method: str = "bonferroni") -> NDArray[np.float64]:
    """Raw partial-conjunction p-values p^{u/N} for u = 1..N (index u - 1), in Dror's eq. 2 form."""
    p = check_pvalues(pvalues)
    return partial_conjunction_sorted(np.sort(p), method)


def running_max(pc: NDArray[np.float64]) -> NDArray[np.float64]:
    """p*^{u/N} = max(p*^{(u-1)/N}, p^{u/N}) along the last axis (Dror eq. 3)."""
    return np.maximum.accumulate(np.asarray(pc, dtype=float), axis=-1)


def k_from_monotone(pc_star: NDArray[np.float64], alpha: float) -> NDArray[np.int64] | int:
    """k_hat = max{u : p*^{u/N} <= alpha}, 0 if none; p* is non-decreasing so this is a count."""
    k = np.sum(np.asarray(pc_star) <= alpha, axis=-1)
    return int(k) if np.ndim(k) == 0 else k.astype(np.int64)


def k_estimate(pvalues: ArrayLike, alpha: float = DEFAULT_ALPHA, method: str = "bonferroni") -> int:
    """k_hat for one combination method ('count' gives the naive #{p_i <= alpha})."""
    a = check_alpha(alpha)
    if method == "count":
        return k_count(pvalues, a)
    return int(k_from_monotone(running_max(partial_conjunction_pvalues(pvalues, method)), a))


def k_count(pvalues: ArrayLike, alpha: float = DEFAULT_ALPHA) -> int:
    """The naive count #{i : p_i <= alpha} (no guarantee against overclaiming; Dror §3.2)."""
    return int(np.sum(check_pvalues(pvalues) <= check_alpha(alpha)))


def normalise_id_method(method: str) -> str:
    """Canonical identification-procedure name (accepts statsmodels spellings such as 'simes-hochberg')."""
    key = method.strip().lower().replace(" ", "")
    key = _ALIASES.get(key, key)
    if key not in ADJUSTMENTS:
        choices = ", ".join(dict.fromkeys(ID_METHODS + tuple(ADJUSTMENTS)))
        raise OptionError(f"method: unknown identification method {method!r}; choose from {choices}", option="method")
    return key


@dataclass(frozen=True)
class Identification:
    """Result of one multiple-testing procedure, in the input order of the p-values."""

    method: str
    alpha: float
    adjusted: NDArray[np.float64]
    rejected: NDArray[np.bool_]

    @property
    def indices(self) -> list[int]:
        """0-based indices of the rejected (identified) datasets, in input order."""
        return [int(i) for i in np.flatnonzero(self.rejected)]

    @property
    def controls(self) -> str:
        """What the procedure controls: FWER or FDR."""
        return ID_GUARANTEE[self.method][0]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the procedure, alpha, the adjusted p-values and rejections in input order (arrays as lists)."""
        return {
            **header("identification"),
            "method": self.method,
            "controls": self.controls,
            "alpha": self.alpha,
            "adjusted": [float(x) for x in self.adjusted],
            "rejected": [bool(x) for x in self.rejected],
            "indices": self.indices,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Identification:
        """The identification `to_dict()` wrote, arrays restored (ValueError when it is not one)."""
        what = "identification"
        check_schema(data, what, "identification")
        with reading(what):
            return cls(
                known(data["method"], ID_GUARANTEE, what, "method"),
                float(data["alpha"]),
                np.asarray([float_or_nan(x) for x in data["adjusted"]], dtype=np.float64),
                np.asarray([bool(x) for x in data["rejected"]], dtype=np.bool_),
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, the arrays by dtype, shape and values."""
        if not isinstance(other, Identification):
            return NotImplemented
        return same(self, other)

    __hash__ = None  # type: ignore[assignment]  # arrays inside: not hashable


def identify(pvalues: ArrayLike, alpha: float = DEFAULT_ALPHA, method: str = "holm") -> Identification:
    """Adjusted p-values (releval.significance.corrections) and the datasets with adjusted p <= alpha.

    For the two-stage 'fdr_tsbh' the adjusted p-values depend on alpha (statsmodels' convention).
    Holm's adjusted p-values are the running-max Bonferroni partial-conjunction p-values placed back in
    input order, so the number of Holm rejections always equals k_Bonferroni (Dror §4.3).
    """
    p = check_pvalues(pvalues)
    a = check_alpha(alpha)
    name = normalise_id_method(method)
    adjusted = ADJUSTMENTS[name](p, a)
    return Identification(method=name, alpha=a, adjusted=adjusted, rejected=adjusted <= a)


@dataclass(frozen=True)
class ReplicabilityResult:
    """Counting and identification for one comparison of two systems over N datasets."""

    names: list[str]
    pvalues: NDArray[np.float64]
    alpha: float
    dependence: str
    pc_methods: tuple[str, ...]
    pc_raw: dict[str, NDArray[np.float64]]
    pc_monotone: dict[str, NDArray[np.float64]]
    k: dict[str, int]
    identification: Identification
    effects: NDArray[np.float64] | None = None
    warnings: list[Notice] = field(default_factory=list)
    #: Signature fields of how the p-values were made (from-predictions: resamples, seed, negative class, …).
    settings: dict[str, object] = field(default_factory=dict)
    #: The paired test that made the p-values (from-predictions, e.g. "bootstrap:greater:micro"); None when they
    #: were read from a table.
    test: str | None = None
    #: The releval version that computed the analysis (a loaded result keeps the version it was saved with).
    version: str = __version__

    def __post_init__(self) -> None:
        object.__setattr__(self, "warnings", as_notices(self.warnings))

    @property
    def n(self) -> int:
        return int(self.pvalues.size)

    def to_frame(self) -> Any:
        """One row per dataset, in input order: its p-value, effect (when known), its rank u among the p-values,
        each method's monotone partial-conjunction p-value for "at least u datasets" (`p_pc_<method>`), the
        identification's adjusted p and whether it is identified (pandas only here)."""
        order = np.argsort(self.pvalues, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        records = []
        for i, name in enumerate(self.names):
            row: dict[str, Any] = {"dataset": name, "p": float(self.pvalues[i])}
            if self.effects is not None:
                row["effect"] = float(self.effects[i])
            row["u"] = int(rank[i]) + 1
            row.update({f"p_pc_{m}": float(self.pc_monotone[m][rank[i]]) for m in self.pc_methods})
            row["p_adjusted"] = float(self.identification.adjusted[i])
            row["identified"] = bool(self.identification.rejected[i])
            records.append(row)
        return data_frame(records, index="dataset")

    @property
    def task(self) -> str:
        """The kind of evaluation, as in the signature."""
        return "replicability"

    @property
    def signature(self) -> Signature:
        """alpha, partial-conjunction methods + identification procedure, dependence, N, the test and its
        settings, and the version."""
        return Signature.build(
            task=self.task,
            n=self.n,
            test=self.test,
            alpha=self.alpha,
            methods=[*self.pc_methods, f"id={self.identification.method}"],
            dependence=self.dependence,
            **{**self.settings, "version": self.version},
        )

    @property
    def recommended(self) -> str:
        """The count estimator appropriate for the declared dependence."""
        return RECOMMENDED_COUNT[self.dependence]

    @property
    def k_recommended(self) -> int:
        return self.k[self.recommended]

    @property
    def identified(self) -> list[str]:
        return [self.names[i] for i in self.identification.indices]

    def valid(self, method: str) -> bool:
        """Whether `method` bounds the chance of overclaiming under the declared dependence."""
        return self.dependence in PC_VALID_UNDER[method]

    def guarantee(self, method: str) -> str:
        """What `method`'s k_hat guarantees here: "valid", "no guarantee" (the count) or what it needs."""
        if method == "count":
            return "no guarantee"
        if self.valid(method):
            return "valid"
        needs = " or ".join(_NEEDS[d] for d in ("independent", "positive") if d in PC_VALID_UNDER[method])
        return f"needs {needs} datasets"

    def to_dict(self) -> dict[str, Any]:
        """Everything the analysis computed, JSON-ready: k_hat per estimator, the datasets with their adjusted p and
        verdict, the raw and running-max p^{u/N} for every u; `from_dict` reads it back."""
        ident = self.identification
        datasets = []
        for i, name in enumerate(self.names):
            row: dict[str, Any] = {"dataset": name, "p": float(self.pvalues[i])}
            if self.effects is not None:
                row["effect"] = float(self.effects[i])
            row["adjusted_p"] = float(ident.adjusted[i])
            row["identified"] = bool(ident.rejected[i])
            datasets.append(row)
        return {
            **header("replicability"),
            "task": self.task,
            "n": self.n,
            "alpha": self.alpha,
            "dependence": self.dependence,
            "recommended": self.recommended,
            "k": dict(self.k),
            "k_recommended": self.k_recommended,
            "validity": {m: self.guarantee(m) for m in self.k},
            "identification": {
                "method": ident.method,
                "controls": ident.controls,
                "identified": self.identified,
                "indices": ident.indices,
            },
            "datasets": datasets,
            "partial_conjunction": {
                m: {
                    "raw": [float(x) for x in self.pc_raw[m]],
                    "running_max": [float(x) for x in self.pc_monotone[m]],
                }
                for m in self.pc_methods
            },
            "test": self.test,
            "settings": dict(self.settings),
            "warnings": [w.to_dict() for w in self.warnings],
            "signature": str(self.signature),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReplicabilityResult:
        """The analysis `to_dict()` wrote, arrays restored (ValueError when it is not one)."""
        what = "replicability analysis"
        check_schema(data, what, "replicability")
        with reading(what):
            rows = data["datasets"]
            alpha = float(data["alpha"])
            pc = data["partial_conjunction"]

            def column(key: str) -> NDArray[np.float64]:
                return np.asarray([float_or_nan(row[key]) for row in rows], dtype=np.float64)

            identification = Identification(
                known(data["identification"]["method"], ID_GUARANTEE, what, "identification method"),
                alpha,
                column("adjusted_p"),
                np.asarray([bool(row["identified"]) for row in rows], dtype=np.bool_),
            )
            return cls(
                names=[str(row["dataset"]) for row in rows],
                pvalues=column("p"),
                alpha=alpha,
                dependence=known(data["dependence"], DEPENDENCES, what, "dependence"),
                pc_methods=tuple(known(m, PC_METHODS, what, "estimator") for m in pc),
                pc_raw={m: np.asarray([float_or_nan(x) for x in v["raw"]], dtype=np.float64) for m, v in pc.items()},
                pc_monotone={
                    m: np.asarray([float_or_nan(x) for x in v["running_max"]], dtype=np.float64) for m, v in pc.items()
                },
                k={m: int(v) for m, v in data["k"].items()},
                identification=identification,
                effects=column("effect") if rows and "effect" in rows[0] else None,
                warnings=[Notice.from_dict(w) for w in data.get("warnings", [])],
                settings=dict(data.get("settings", {})),
                test=data.get("test"),
                version=parse(data["signature"]).get("version") or __version__,
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, the arrays by dtype, shape and values (NaN equals NaN), notices with their codes."""
        if not isinstance(other, ReplicabilityResult):
            return NotImplemented
        return same(self, other)

    __hash__ = None  # type: ignore[assignment]  # arrays inside: not hashable


def analyze(
    pvalues: ArrayLike,
    alpha: float = DEFAULT_ALPHA,
    *,
    names: Sequence[str] | None = None,
    effects: ArrayLike | None = None,
    dependence: str = "dependent",
    method: str = "holm",
    pc_methods: Sequence[str] = DEFAULT_PC_METHODS,
    one_sided: bool = False,
) -> ReplicabilityResult:
    """Full replicability analysis (Dror et al. 2017 §4): k_hat per method and the identified datasets.

    `pvalues` are one-sided p-values, all for the same alternative (A better than B). `effects`, when
    given, are the observed differences A - B; mixed signs produce a warning because such p-values are
    usually not one-sided in a single direction (Dror's own POS table is an example). `one_sided`: the p-values
    are known to be one-sided tests of A > B (from-predictions ran them), so mixed signs only say on which
    datasets B is ahead.
    """
    p = check_pvalues(pvalues)
    a = check_alpha(alpha)
    if dependence not in DEPENDENCES:
        raise OptionError(
            f"dependence: unknown assumption {dependence!r}; choose from {', '.join(DEPENDENCES)}",
            option="dependence",
        )
    methods = tuple(dict.fromkeys(pc_methods))
    for m in methods:
        validation.check_choice(m, PC_METHODS, "pc_methods")
    rec = RECOMMENDED_COUNT[dependence]
    if rec not in methods:
        methods = (*methods, rec)
    methods = tuple(m for m in PC_METHODS if m in methods)

    n = p.size
    label = list(names) if names is not None else [f"dataset{i + 1}" for i in range(n)]
    if len(label) != n:
        raise InputError(f"{len(label)} dataset names for {n} p-values", field="dataset")
    eff: NDArray[np.float64] | None = None
    if effects is not None:
        eff = np.asarray(effects, dtype=float)
        if eff.shape != p.shape:
            raise InputError(f"{eff.size} effects for {n} p-values", field="effect")

    sorted_p = np.sort(p)
    raw = {m: partial_conjunction_sorted(sorted_p, m) for m in methods}
    mono = {m: running_max(v) for m, v in raw.items()}
    k: dict[str, int] = {"count": int(np.sum(p <= a))}
    k.update({m: int(k_from_monotone(v, a)) for m, v in mono.items()})
    ident = identify(p, a, method)

    notes: list[Notice] = []
    if eff is not None:
        pos, neg = int(np.sum(eff > 0)), int(np.sum(eff < 0))
        if pos and neg and one_sided:
            behind = ", ".join(label[i] for i in np.flatnonzero(eff < 0))
            notes.append(
                Notice(
                    f"mixed effect signs ({pos} positive, {neg} negative): B is ahead on {behind}, where the "
                    "one-sided tests of A > B give large p-values; to count the datasets where B is better, swap "
                    "PRED_A and PRED_B"
                )
            )
        elif pos and neg:
            notes.append(
                Notice(
                    f"mixed effect signs ({pos} positive, {neg} negative): the p-values must all be one-sided "
                    "for the same alternative (A better than B); two-sided or opposite-direction p-values "
                    "make k_hat and the identified datasets meaningless"
                )
            )
        flagged = [label[i] for i in ident.indices if eff[i] < 0]
        if flagged:
            notes.append(Notice(f"identified dataset(s) with a negative effect (B better): {', '.join(flagged)}"))
    guarantee, valid_under = ID_GUARANTEE[ident.method]
    if dependence not in valid_under:
        notes.append(
            Notice(
                f"{ident.method} controls the {guarantee} only under "
                f"{' or '.join(sorted(valid_under))} datasets, not under the declared '{dependence}' assumption",
                code="estimator-invalid",
            )
        )
    return ReplicabilityResult(
        names=label,
        pvalues=p,
        alpha=a,
        dependence=dependence,
        pc_methods=methods,
        pc_raw=raw,
        pc_monotone=mono,
        k=k,
        identification=ident,
        effects=eff,
        warnings=notes,
    )


def theory_independent_null(n: int, alpha: float) -> dict[str, float]:
    """P(k_hat > 0) when all N nulls are true and the p-values are independent uniforms.

    count: 1 - (1 - alpha)^N (Dror §3.2); Bonferroni: P(min p <= alpha/N) = 1 - (1 - alpha/N)^N;
    Fisher, Simes and Stouffer: exactly alpha, since k_hat > 0 iff the global-null test (u = 1) rejects
    and those global tests are exact under independence (Fisher 1932; Simes 1986; Stouffer 1949).
    """
    validation.check_int(n, "n", low=1)
    return {
        "count": 1.0 - (1.0 - alpha) ** n,
        "bonferroni": -math.expm1(n * math.log1p(-alpha / n)),
        "fisher": alpha,
        "simes": alpha,
        "stouffer": alpha,
    }


@dataclass(frozen=True)
class DatasetTests:
    """One-sided per-dataset p-values (H1: A better than B) computed from gold labels and two systems' predictions."""

    names: list[str]
    pvalues: NDArray[np.float64]
    effects: NDArray[np.float64]
    test: str
    details: list[dict[str, object]]
    settings: dict[str, object] = field(default_factory=dict)  # signature fields of the tests' settings
    #: Fills of missing predictions, per dataset and system ("x A: 217 missing prediction(s) filled …").
    warnings: list[Notice] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the test, per dataset its name, p, effect and details, the settings and warnings."""
        return {
            **header("dataset-tests"),
            "test": self.test,
            "names": list(self.names),
            "pvalues": [float(x) for x in self.pvalues],
            "effects": [float(x) for x in self.effects],
            "details": [dict(d) for d in self.details],
            "settings": dict(self.settings),
            "warnings": [w.to_dict() for w in self.warnings],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DatasetTests:
        """The tests `to_dict()` wrote, arrays restored (ValueError when it is not one)."""
        what = "per-dataset tests"
        check_schema(data, what, "dataset-tests")
        with reading(what):
            return cls(
                [str(x) for x in data["names"]],
                np.asarray([float_or_nan(x) for x in data["pvalues"]], dtype=np.float64),
                np.asarray([float_or_nan(x) for x in data["effects"]], dtype=np.float64),
                str(data["test"]),
                [{k: math.nan if v is None else v for k, v in d.items()} for d in data["details"]],
                dict(data.get("settings", {})),
                [Notice.from_dict(w) for w in data.get("warnings", [])],
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, the arrays by dtype, shape and values (NaN equals NaN)."""
        if not isinstance(other, DatasetTests):
            return NotImplemented
        return same(self, other)

    __hash__ = None  # type: ignore[assignment]  # arrays inside: not hashable


class DatasetInputError(InputError):
    """An input problem of one dataset's files: the dataset's name first, then the file, line or record, field.

    >>> str(DatasetInputError("redocred", InputError("no such title", file="a.json", record=3, field="title")))
    "dataset 'redocred': a.json: record 3: field 'title': no such title"
    """

    def __init__(self, dataset: str, error: InputError) -> None:
        self.dataset = dataset
        super().__init__(error.message, file=error.file, line=error.line, field=error.field, record=error.record)

    def location(self) -> str:
        return f"dataset '{self.dataset}': " + super().location()


def in_dataset(name: str, exc: InputError | InputErrors) -> list[InputError]:
    """The input problems of `exc` each named by the dataset they belong to (an OptionError is about an option,
    not a file: it is returned as it is)."""
    errors = exc.errors if isinstance(exc, InputErrors) else [exc]
    return [e if isinstance(e, (OptionError, DatasetInputError)) else DatasetInputError(name, e) for e in errors]


def check_metric(metric: str) -> str:
    """The F average a resampling test reports: 'micro' or a weighting (its canonical name, e.g. power:0.5)."""
    from releval.metrics.averages import MICRO
    from releval.metrics.weightings import get_weighting, weighting_names

    key = metric.strip().lower()
    if key == MICRO:
        return MICRO
    try:
        return get_weighting(key).name
    except OptionError:
        known = ", ".join((MICRO, *weighting_names()))
        raise OptionError(f"metric: {metric!r} is not one of {known}", option="metric") from None


def dataset_tests(
    datasets: Sequence[tuple[str, Any, Any, Any]],
    *,
    test: str = "bootstrap",
    metric: str = "micro",
    config: Any = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    negative: str | None = "auto",
    progress: Callable[[int], None] | None = None,
) -> DatasetTests:
    """Run the chosen paired test (alternative "greater") on each (name, gold, A, B) dataset.

    Gold and predictions are files, {id: label} mappings, LabelFiles or aligned label lists, read and aligned
    under `config` as `releval compare` reads them (`align_systems`): a fill of missing predictions under
    `on_missing` is signed (`settings['missing']`), listed in `warnings` and repeated through `warnings.warn`.
    Every dataset's input problems are reported together. The warnings are returned, not warned
    (`pvalues_from_predictions` warns them too).

    bootstrap / randomization test F(A) - F(B) for `metric` (micro or a weighting name) on corpus-level sufficient
    statistics; mcnemar / sign test per-item correctness (accuracy).  The same seed is used for every dataset.
    `config` (a ClassificationConfig) holds the scoring settings; without one, `negative` is its negative class.
    `DatasetTests.settings` are the signature fields of everything that changes a p-value.
    `progress`, when given, is called with 1 after each dataset is read and with 1 after each dataset's test:
    2 × len(datasets) in all (`releval replicability from-predictions` moves its bar with it; no number depends
    on it).
    """
    from releval.metrics.averages import MICRO
    from releval.significance import paired
    from releval.significance.compare import align_systems
    from releval.significance.config import SignificanceConfig
    from releval.tasks.classification import ClassificationConfig, resolve_negative

    validation.check_choice(test, PAIRED_TESTS, "test")
    metric = check_metric(metric)
    if config is None:
        config = ClassificationConfig(negative=negative)
    significance = SignificanceConfig((test,), "greater", resamples, seed)
    if not datasets:
        raise InputError("no datasets given", field="dataset")
    aligned: list[tuple[str, list[str], list[str], list[str]]] = []
    warnings: list[Notice] = []
    errors: list[InputError] = []
    missing = "error"
    data: list[tuple[str, dict[str, object]]] = []  # each dataset's data facts, signed as `score` signs them
    for name, gold, pred_a, pred_b in datasets:
        try:
            labels, runs, facts = align_systems(gold, {f"{name} A": [pred_a], f"{name} B": [pred_b]}, config)
        except (InputError, InputErrors) as exc:
            errors += in_dataset(name, exc)
            continue
        finally:
            if progress is not None:
                progress(1)
        aligned.append((name, labels, runs[f"{name} A"][0], runs[f"{name} B"][0]))
        data.append(
            (
                name,
                {
                    "alignment": "position" if facts.by_position else "id",
                    "patch": facts.patch_digest or "none",
                    "gold": sequence_digest(labels),
                },
            )
        )
        warnings += facts.warnings
        missing = facts.missing if facts.missing != "error" else missing
    raise_all(errors)
    negatives = {resolve_negative(config.negative, labels)[0] for _, labels, _, _ in aligned}
    # the labels are aligned and read (patch and view applied): the tests score them as they are
    scoring = replace(
        config,
        negative=negatives.pop() if len(negatives) == 1 else config.negative,
        weightings=() if metric == MICRO else (metric,),
        patch=None,
        view="directed",
    )
    names, ps, effects, details = [], [], [], []
    for name, gold_labels, a, b in aligned:
        if test in RESAMPLING_TESTS:
            run: Callable[..., Any] = paired.approximate_randomization
            if test == "bootstrap":
                run = paired.paired_bootstrap
            res = run(gold_labels, a, b, scoring, significance, metric=metric)
            p, eff = res.p_value, res.effect
            detail: dict[str, object] = {"score_a": res.score_a, "score_b": res.score_b}
        else:
            disc = paired.correctness_test(test, gold_labels, a, b, significance)
            p, eff = disc.p_value, disc.effect
            detail = {"score_a": disc.score_a, "score_b": disc.score_b, "b": disc.b, "c": disc.c}
        names.append(name)
        ps.append(float(p))
        effects.append(float(eff))
        details.append({"dataset": name, "n": len(gold_labels), "p": float(p), "effect": float(eff), **detail})
        if progress is not None:
            progress(1)
    label = f"{test}:greater" + (f":{metric}" if test in RESAMPLING_TESTS else ":accuracy")
    kept = ("resamples", "seed", "confidence", "class_set")
    settings = {k: v for k, v in significance.signature_fields().items() if k in kept}
    settings |= {
        "negative": scoring.negative if scoring.negative is not None else "none",
        "beta": float(config.beta),
        "zero_division": float(config.zero_division),
        "entropy_n": config.entropy_n,
        "view": config.view,
        "missing": missing,
        **per_dataset(data),
    }
    if settings.get("patch") == "none":
        del settings["patch"]  # no dataset patched: signed as `score` signs an unpatched gold, without the field
    return DatasetTests(
        names, np.asarray(ps, dtype=float), np.asarray(effects, dtype=float), label, details, settings, warnings
    )


def per_dataset(facts: Sequence[tuple[str, Mapping[str, object]]]) -> dict[str, object]:
    """Signature fields of several datasets: a field every dataset has with one value is kept as it is; one whose
    value differs (or that some lack) becomes `name=value,…` over the datasets, so that the signature of an
    analysis names each dataset's gold digest, alignment and patch as `score` names one gold's.

    >>> per_dataset([("x", {"gold": "ab", "alignment": "id"}), ("y", {"gold": "cd", "alignment": "id"})])
    {'gold': 'x=ab,y=cd', 'alignment': 'id'}
    """
    keys = list(dict.fromkeys(k for _, fields in facts for k in fields))
    out: dict[str, object] = {}
    for key in keys:
        values = [(name, str(fields.get(key, "none"))) for name, fields in facts]
        distinct = {v for _, v in values}
        out[key] = distinct.pop() if len(distinct) == 1 else ",".join(f"{n}={v}" for n, v in values)
    return out


def pvalues_from_predictions(datasets: Sequence[tuple[str, Any, Any, Any]], **settings: Any) -> DatasetTests:
    """`dataset_tests` (the same parameters) for Python callers: each warning is also repeated through
    `warnings.warn` (`releval.RelevalWarning`), so a fill cannot pass unseen."""
    tests = dataset_tests(datasets, **settings)
    warn_all(tests.warnings)
    return tests
