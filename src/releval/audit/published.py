"""Auditing published seed comparisons: which Welch t, p and Cohen's d are compatible with rounded mean ± sd.

A table reports "71.5±0.4" with n runs. The true mean and SD lie anywhere in the rounding box
[71.45, 71.55] × [0.35, 0.45]; we report the range of t, p and d (Harbecke et al. 2022, Eq. 4) over the box,
under both readings of "±": the sample SD (ddof = 1) or the population SD (ddof = 0, numpy's default, so the
sample SD is sd·√(n/(n−1))). t and d are monotone in every coordinate, so their extremes lie at the corners;
p is monotone in |Δ| but not in the SDs (the Welch–Satterthwaite df moves with them), so its extremes are found
by a dense grid over the SDs refined with ``scipy.optimize.minimize`` (L-BFGS-B, bounded). A claimed value is
consistent when the interval it rounds from (e.g. "3·10^-3" → [2.5e-3, 3.5e-3]) meets the computed interval.
A `StatsCheck` writes itself as JSON with `to_dict()` and loads back equal with `from_dict()` (a claim is saved
as printed and parsed again).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np
from scipy import optimize, stats

from releval.core.errors import InputError
from releval.core.options import ALTERNATIVES, READINGS
from releval.core.schema import check_schema, float_or_nan, header, known, reading, same
from releval.core.validation import check_choice, check_choices, check_int
from releval.significance.seeds import cohen_d_harbecke, welch_df

_MEAN_SD = re.compile(r"^\s*([-+]?[0-9.]+)\s*(?:±|\+/-|\+-|\\pm)\s*([0-9.]+)\s*$")
_POW10 = re.compile(r"^\s*(?:([0-9.]+)\s*(?:·|\*|x|×|\\cdot)\s*)?10\s*\^\s*\{?\s*([-+−]?\d+)\s*\}?\s*$")


@dataclass(frozen=True)
class Rounded:
    """A number as printed, with the half-width of its last printed digit (0.3 → 0.3 ± 0.05)."""

    text: str
    value: float
    half: float
    bound: str = ""  # "<" or ">" for claims like "p < 0.001"

    @property
    def low(self) -> float:
        return 0.0 if self.bound == "<" else self.value - self.half

    @property
    def high(self) -> float:
        return math.inf if self.bound == ">" else self.value + self.half


def _half_unit(text: str) -> float:
    try:
        exponent = Decimal(text.strip()).as_tuple().exponent
    except InvalidOperation as exc:
        raise ValueError(f"not a number: {text!r}") from exc
    return 0.5 * 10.0 ** int(exponent)  # type: ignore[arg-type]


def parse_number(text: str) -> Rounded:
    """A printed number and its rounding: "0.005", "-2.5", "3e-3", "3·10^-3", "10^-8", "< 0.001".

    A ValueError for anything else, and for a number beyond a double's range (1e400 would be inf, then NaN).
    """
    try:
        out = _parse_number(text)
    except OverflowError:
        out = Rounded(text, math.inf, math.inf, "")
    if not (math.isfinite(out.value) and math.isfinite(out.half)):
        raise ValueError(f"{text.strip()!r} is beyond the range of a double")
    return out


def _parse_number(text: str) -> Rounded:
    raw = text.strip()
    bound = ""
    if raw[:1] in "<>":
        bound, raw = raw[0], raw[1:].strip()
    raw = raw.replace("−", "-")
    match = _POW10.match(raw)
    if match:
        mantissa = match.group(1) or "1"
        exp = int(match.group(2).replace("−", "-"))
        return Rounded(text, float(mantissa) * 10.0**exp, _half_unit(mantissa) * 10.0**exp, bound)
    if "e" in raw.lower():
        mantissa, _, exp_text = raw.lower().partition("e")
        exp = int(exp_text)
        return Rounded(text, float(mantissa) * 10.0**exp, _half_unit(mantissa) * 10.0**exp, bound)
    return Rounded(text, float(raw), _half_unit(raw), bound)


def parse_mean_sd(text: str) -> tuple[Rounded, Rounded]:
    """ "71.7±0.2" (also +/-, +-, \\pm) → (mean, sd), each with the half-width of its last digit."""
    match = _MEAN_SD.match(text)
    if not match:
        raise ValueError(f"expected 'MEAN±SD' such as 71.7±0.2, got {text!r}")
    return parse_number(match.group(1)), parse_number(match.group(2))


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    def meets(self, other_low: float, other_high: float) -> bool:
        """True when [low, high] and [other_low, other_high] overlap (a tiny relative slack for float noise)."""
        slack = 1e-9 * max(abs(self.low), abs(self.high), 1e-300)
        return self.low - slack <= other_high and other_low <= self.high + slack

    def to_list(self) -> list[float]:
        return [self.low, self.high]

    @classmethod
    def from_list(cls, values: Sequence[float | None]) -> Interval:
        """`[low, high]` as `to_list()` wrote it (a null bound, strict JSON's NaN, as NaN)."""
        low, high = values
        return cls(float_or_nan(low), float_or_nan(high))


@dataclass(frozen=True)
class ReadingCheck:
    """Intervals of t, df, p and d over the rounding box under one reading of "±", and the verdicts."""

    reading: str
    t: Interval
    df: Interval
    p: Interval
    d: Interval
    p_consistent: bool | None
    d_consistent: bool | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the reading, each interval as `[low, high]` and the two verdicts (None without a claim)."""
        return {
            "reading": self.reading,
            "t": self.t.to_list(),
            "df": self.df.to_list(),
            "p": self.p.to_list(),
            "d": self.d.to_list(),
            "p_consistent": self.p_consistent,
            "d_consistent": self.d_consistent,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReadingCheck:
        """One reading as `to_dict()` wrote it (a part of a `StatsCheck`, so without a schema header)."""
        what = "reading check"
        with reading(what):
            return cls(
                known(data["reading"], READINGS, what, "reading"),
                Interval.from_list(data["t"]),
                Interval.from_list(data["df"]),
                Interval.from_list(data["p"]),
                Interval.from_list(data["d"]),
                _verdict(data.get("p_consistent"), what),
                _verdict(data.get("d_consistent"), what),
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, NaN equal to NaN."""
        if not isinstance(other, ReadingCheck):
            return NotImplemented
        return same(self, other)


def _verdict(value: Any, what: str) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"{what}: a verdict must be true, false or null, not {value!r}")
    return value


@dataclass(frozen=True)
class StatsCheck:
    """A published comparison A vs B checked against the rounding of its mean ± sd (d and t are A − B)."""

    a: str
    b: str
    n_a: int
    n_b: int
    alternative: str
    claimed_p: Rounded | None
    claimed_d: Rounded | None
    readings: dict[str, ReadingCheck]
    name: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def p_consistent(self) -> bool | None:
        """Consistent under at least one reading (None without a claim)."""
        verdicts = [r.p_consistent for r in self.readings.values()]
        return None if self.claimed_p is None else any(bool(v) for v in verdicts)

    @property
    def d_consistent(self) -> bool | None:
        verdicts = [r.d_consistent for r in self.readings.values()]
        return None if self.claimed_d is None else any(bool(v) for v in verdicts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the comparison, the claims as printed, the overall verdicts and per reading of "±" the
        intervals and verdicts; `from_dict` reads it back."""
        return {
            **header("stats-check"),
            "name": self.name,
            "a": self.a,
            "b": self.b,
            "n_a": self.n_a,
            "n_b": self.n_b,
            "alternative": self.alternative,
            "claimed_p": self.claimed_p.text if self.claimed_p else None,
            "claimed_d": self.claimed_d.text if self.claimed_d else None,
            "p_consistent": self.p_consistent,
            "d_consistent": self.d_consistent,
            "readings": {k: {f: v for f, v in r.to_dict().items() if f != "reading"} for k, r in self.readings.items()},
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StatsCheck:
        """The check `to_dict()` wrote; the claims are parsed again from their printed text (ValueError when it is
        not one)."""
        what = "stats check"
        check_schema(data, what, "stats-check")
        with reading(what):
            claimed_p, claimed_d = data.get("claimed_p"), data.get("claimed_d")
            return cls(
                str(data["a"]),
                str(data["b"]),
                int(data["n_a"]),
                int(data["n_b"]),
                known(data["alternative"], ALTERNATIVES, what, "alternative"),
                None if claimed_p is None else parse_number(str(claimed_p)),
                None if claimed_d is None else parse_number(str(claimed_d)),
                {str(k): ReadingCheck.from_dict({**v, "reading": k}) for k, v in data["readings"].items()},
                str(data.get("name", "")),
                [str(n) for n in data.get("notes", [])],
            )

    def __eq__(self, other: object) -> bool:
        """Field by field, NaN equal to NaN."""
        if not isinstance(other, StatsCheck):
            return NotImplemented
        return same(self, other)


def _log_p(diff: float, s1: np.ndarray, n1: int, s2: np.ndarray, n2: int, alternative: str) -> np.ndarray:
    """log p of Welch's test, vectorised over SD arrays (log scale keeps 1e-10 p-values precise)."""
    se = np.sqrt(s1 * s1 / n1 + s2 * s2 / n2)
    t = diff / se
    v1, v2 = s1 * s1 / n1, s2 * s2 / n2
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    if alternative == "two-sided":
        return np.log(2.0) + stats.t.logsf(np.abs(t), df)
    if alternative == "greater":
        return stats.t.logsf(t, df)
    return stats.t.logcdf(t, df)


def _extreme_log_p(
    diff: float,
    s1b: tuple[float, float],
    n1: int,
    s2b: tuple[float, float],
    n2: int,
    alternative: str,
    sign: float,
    grid: int,
) -> float:
    """min (sign=+1) or max (sign=−1) of log p over the SD box for a fixed mean difference."""
    g1 = np.linspace(*s1b, grid)
    g2 = np.linspace(*s2b, grid)
    mesh1, mesh2 = np.meshgrid(g1, g2, indexing="ij")
    values = sign * _log_p(diff, mesh1, n1, mesh2, n2, alternative)
    best = int(np.argmin(values))
    start = np.array([mesh1.ravel()[best], mesh2.ravel()[best]])
    best_value = float(values.ravel()[best])

    def objective(x: np.ndarray) -> float:
        return float(sign * _log_p(diff, np.array(x[0]), n1, np.array(x[1]), n2, alternative))

    res = optimize.minimize(objective, start, method="L-BFGS-B", bounds=[s1b, s2b])
    if res.success or np.isfinite(res.fun):
        best_value = min(best_value, float(res.fun))
    return sign * best_value


def _reading_check(
    a: tuple[Rounded, Rounded, int],
    b: tuple[Rounded, Rounded, int],
    reading: str,
    alternative: str,
    claimed_p: Rounded | None,
    claimed_d: Rounded | None,
    grid: int,
) -> ReadingCheck:
    """One reading of ± for systems `a` and `b`, each (mean, sd, runs) as printed."""
    (mean_a, sd_a, n1), (mean_b, sd_b, n2) = a, b
    f1 = math.sqrt(n1 / (n1 - 1)) if reading == "population" else 1.0
    f2 = math.sqrt(n2 / (n2 - 1)) if reading == "population" else 1.0
    floor = 1e-9
    s1b = (max(sd_a.value - sd_a.half, floor) * f1, (sd_a.value + sd_a.half) * f1)
    s2b = (max(sd_b.value - sd_b.half, floor) * f2, (sd_b.value + sd_b.half) * f2)
    lo_diff = (mean_a.value - mean_a.half) - (mean_b.value + mean_b.half)
    hi_diff = (mean_a.value + mean_a.half) - (mean_b.value - mean_b.half)
    corners = [(dd, x, y) for dd in (lo_diff, hi_diff) for x in s1b for y in s2b]
    ts = [dd / math.sqrt(x * x / n1 + y * y / n2) for dd, x, y in corners]
    ds = [cohen_d_harbecke(dd, x, 0.0, y) for dd, x, y in corners]
    g1 = np.linspace(*s1b, grid)
    g2 = np.linspace(*s2b, grid)
    dfs = welch_df(g1[:, None], n1, g2[None, :], n2)
    # p: monotone in Δ (two-sided: in |Δ|), so the extremes use Δ's bounds; the SDs are optimised.
    if alternative == "two-sided":
        far = max(abs(lo_diff), abs(hi_diff))
        near = 0.0 if lo_diff <= 0 <= hi_diff else min(abs(lo_diff), abs(hi_diff))
        low_arg, high_arg = far, near
    elif alternative == "greater":
        low_arg, high_arg = hi_diff, lo_diff
    else:
        low_arg, high_arg = lo_diff, hi_diff
    p_low = math.exp(_extreme_log_p(low_arg, s1b, n1, s2b, n2, alternative, 1.0, grid))
    p_high = math.exp(_extreme_log_p(high_arg, s1b, n1, s2b, n2, alternative, -1.0, grid))
    p_iv = Interval(p_low, min(p_high, 1.0))
    d_iv = Interval(min(ds), max(ds))
    return ReadingCheck(
        reading=reading,
        t=Interval(min(ts), max(ts)),
        df=Interval(float(np.min(dfs)), float(np.max(dfs))),
        p=p_iv,
        d=d_iv,
        p_consistent=None if claimed_p is None else p_iv.meets(claimed_p.low, claimed_p.high),
        d_consistent=None if claimed_d is None else d_iv.meets(claimed_d.low, claimed_d.high),
    )


def check_stats(
    a: str,
    b: str,
    n: int = 5,
    *,
    n_b: int | None = None,
    claimed_p: str | float | None = None,
    claimed_d: str | float | None = None,
    alternative: str = "two-sided",
    readings: Sequence[str] = READINGS,
    name: str = "",
    grid: int = 201,
) -> StatsCheck:
    """Intervals of Welch's t, p and Cohen's d (A − B) compatible with published "mean±sd" of A and B over n runs.

    Claims are strings as printed ("3·10^-3", "0.005", "-2.4") so their own rounding is taken into account.
    """
    n1 = check_int(n, "n", low=2)  # a sample SD needs two runs
    n2 = n1 if n_b is None else check_int(n_b, "n_b", low=2)
    check_choices(readings, READINGS, "readings")
    check_choice(alternative, ALTERNATIVES, "alternative")
    try:
        mean_a, sd_a = parse_mean_sd(a)
    except ValueError as exc:
        raise InputError(str(exc), field="a") from exc
    try:
        mean_b, sd_b = parse_mean_sd(b)
    except ValueError as exc:
        raise InputError(str(exc), field="b") from exc
    cp = _claim(claimed_p, "claimed_p")
    cd = _claim(claimed_d, "claimed_d")
    if cp is not None and not (0.0 <= cp.value <= 1.0):
        raise InputError(f"a p-value must lie in [0, 1], got {cp.text}", field="claimed_p")
    checks = {r: _reading_check((mean_a, sd_a, n1), (mean_b, sd_b, n2), r, alternative, cp, cd, grid) for r in readings}
    notes = []
    if cd is not None and cd.value * (mean_a.value - mean_b.value) < 0:
        notes.append("the claimed d has the opposite sign of A − B: check which system the table subtracts")
    return StatsCheck(a, b, n1, n2, alternative, cp, cd, checks, name, notes)


def _claim(value: str | float | None, fld: str) -> Rounded | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, (int, float)):
        value = repr(float(value))
    try:
        return parse_number(str(value))
    except ValueError as exc:
        raise InputError(str(exc), field=fld) from exc
