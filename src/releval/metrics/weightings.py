"""Class-weighting schemes of Harbecke et al. (2022, §2.3, Table 2) as small pluggable objects.

A scheme maps the gold supports n_i of the weighted classes (and N, the instance count used by entropy)
to unnormalised weights; the scorer normalises them to sum 1 (desideratum D0).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from releval.errors import OptionError
from releval.validation import check_number

WeightFn = Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.float64]]


@dataclass(frozen=True)
class Weighting:
    """A named weighting w_i = fn(n_i, N); `fn` gets n of shape (..., K) and N of shape (..., 1)."""

    name: str
    fn: WeightFn
    formula: str = ""

    def weights(self, support: NDArray, mask: NDArray[np.bool_], n_total: NDArray | float) -> NDArray[np.float64]:
        """Normalised weights over the classes in `mask` (rows with no such class get all zeros)."""
        n = np.asarray(support, dtype=np.float64)
        big_n = np.asarray(n_total, dtype=np.float64)
        if big_n.ndim:
            big_n = big_n[..., None]  # one N per row of `support`
        safe = np.where(mask, n, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = np.where(mask, self.fn(safe, big_n), 0.0)
        # Degenerate rows (entropy of a lone class holding all N gives 0): the classes share the weight equally,
        # the limit every scheme reaches when one class is all there is.
        degenerate = (raw.sum(axis=-1, keepdims=True) <= 0) & mask.any(axis=-1, keepdims=True)
        raw = np.where(degenerate & mask, 1.0, raw)
        total = raw.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, raw / np.where(total > 0, total, 1.0), 0.0)


def _power(a: float) -> WeightFn:
    return lambda n, big_n: n**a


def _entropy(n: NDArray[np.float64], big_n: NDArray[np.float64]) -> NDArray[np.float64]:
    return -n * np.log2(n / big_n)


MACRO = Weighting("macro", lambda n, big_n: np.ones_like(n), "w_i ∝ 1")
WEIGHTED = Weighting("weighted", _power(1.0), "w_i ∝ n_i")
DODRANS = Weighting("dodrans", _power(0.75), "w_i ∝ n_i^(3/4)")
ENTROPY = Weighting("entropy", _entropy, "w_i ∝ −n_i·log2(n_i/N)")

#: The schemes reported by default, from most to least frequency-proportional (micro is pooled, not weighted).
DEFAULT_WEIGHTINGS: tuple[Weighting, ...] = (WEIGHTED, DODRANS, ENTROPY, MACRO)

_NAMED = {w.name: w for w in DEFAULT_WEIGHTINGS}


def power(a: float) -> Weighting:
    """The general power scheme w_i ∝ n_i^a (a = 0: macro, 0.75: dodrans, 1: weighted); `a` must be finite."""
    a = check_number(a, "--weighting power:A exponent")
    return Weighting(f"power:{a:g}", _power(float(a)), f"w_i ∝ n_i^{a:g}")


def get_weighting(spec: str | Weighting) -> Weighting:
    """Resolve 'weighted', 'dodrans', 'entropy', 'macro' or 'power:A' (A a finite number) to a Weighting.

    Anything else is an OptionError naming --weighting; 'micro' gets its own message, since it is always reported
    (it pools the counts, it weights no class) and so is not a weighting one can ask for.
    """
    if isinstance(spec, Weighting):
        return spec
    key = str(spec).strip().lower()
    if key in _NAMED:
        return _NAMED[key]
    known = ", ".join([*_NAMED, "power:A"])
    if key == "micro":
        raise OptionError(
            f"--weighting: 'micro' is always reported, not a weighting; choose from {known}", option="--weighting"
        )
    if key.startswith("power:"):
        exponent = key.split(":", 1)[1]
        try:
            value = float(exponent)
        except ValueError:
            value = float("nan")
        if not np.isfinite(value):
            raise OptionError(
                f"--weighting {spec}: the exponent A of power:A must be a finite number, got {exponent!r}",
                option="--weighting",
            )
        return power(value)
    raise OptionError(f"--weighting: {str(spec)!r} is not one of {known}", option="--weighting")


def get_weightings(specs: Sequence[str | Weighting]) -> tuple[Weighting, ...]:
    """Every weighting resolved by `get_weighting`, in order, a repeated one once (a duplicate would overwrite)."""
    schemes = [get_weighting(w) for w in specs]
    return tuple({w.name: w for w in schemes}.values())
