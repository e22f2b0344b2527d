"""Class-weighting schemes of Harbecke et al. (2022, §2.3, Table 2) as small pluggable objects.

A scheme maps the gold supports n_i of the weighted classes (and N, the instance count used by entropy)
to unnormalised weights; the scorer normalises them to sum 1 (desideratum D0).

The registry at the end of this module is every scheme a user can name: `WEIGHTINGS` (fixed schemes, by their
name) and `FAMILIES` (schemes with a number, written NAME:A, like power:0.5). `get_weighting` resolves both, so
`--weighting`, the API's `weightings=`, `compare --metric` and the signatures accept a new scheme once it has its
line there (docs/contributing.md, "Adding a class weighting"). The schemes computed when none are named are
`DEFAULT_WEIGHTING_NAMES` of releval.core.options.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from releval.core.errors import OptionError
from releval.core.options import DEFAULT_WEIGHTING_NAMES
from releval.core.signature import format_number
from releval.core.validation import check_number

if TYPE_CHECKING:  # NumPy is imported where weights are computed: naming the schemes (--help) needs none of it
    import numpy as np
    from numpy.typing import NDArray

#: w = fn(n, N) for arrays of supports n and instance counts N.
WeightFn = Callable[["NDArray[np.float64]", "NDArray[np.float64]"], "NDArray[np.float64]"]


@dataclass(frozen=True)
class Weighting:
    """A named weighting w_i = fn(n_i, N); `fn` gets n of shape (..., K) and N of shape (..., 1)."""

    name: str
    fn: WeightFn
    formula: str = ""

    def weights(self, support: NDArray, mask: NDArray[np.bool_], n_total: NDArray | float) -> NDArray[np.float64]:
        """Normalised weights over the classes in `mask` (rows with no such class get all zeros)."""
        import numpy as np

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
    import numpy as np

    return -n * np.log2(n / big_n)


def _ones(n: NDArray[np.float64], big_n: NDArray[np.float64]) -> NDArray[np.float64]:
    return n**0.0  # w_i = 1 for every class (n_i > 0 where weights are taken)


MACRO = Weighting("macro", _ones, "w_i ∝ 1")
WEIGHTED = Weighting("weighted", _power(1.0), "w_i ∝ n_i")
DODRANS = Weighting("dodrans", _power(0.75), "w_i ∝ n_i^(3/4)")
ENTROPY = Weighting("entropy", _entropy, "w_i ∝ −n_i·log2(n_i/N)")


def power(a: float) -> Weighting:
    """The general power scheme w_i ∝ n_i^a (a = 0: macro, 0.75: dodrans, 1: weighted); `a` must be finite."""
    a = float(check_number(a, "weightings power:A exponent"))
    text = format_number(a)  # exact: power:0.5000001 weighs otherwise than power:0.5, so it must not be named so
    return Weighting(f"power:{text}", _power(a), f"w_i ∝ n_i^{text}")


# ----------------------------------------------------------------------------------------------- the registry

#: Every fixed scheme by name, in the order the names are listed to users.
WEIGHTINGS: dict[str, Weighting] = {
    "weighted": WEIGHTED,
    "dodrans": DODRANS,
    "entropy": ENTROPY,
    "macro": MACRO,
}
#: Every scheme with a number, NAME:A: the function that makes the scheme for A (a finite float). Its Weighting's
#: name is the canonical spelling `get_weighting` gives back (power:0.50 → power:0.5).
FAMILIES: dict[str, Callable[[float], Weighting]] = {
    "power": power,
}

#: The schemes reported by default, from most to least frequency-proportional (micro is pooled, not weighted).
DEFAULT_WEIGHTINGS: tuple[Weighting, ...] = tuple(WEIGHTINGS[name] for name in DEFAULT_WEIGHTING_NAMES)


def weighting_names() -> list[str]:
    """What `get_weighting` accepts, for help texts and messages: every fixed name, then every NAME:A."""
    return [*WEIGHTINGS, *(f"{family}:A" for family in FAMILIES)]


def get_weighting(spec: str | Weighting) -> Weighting:
    """Resolve a name of `WEIGHTINGS` ('weighted', 'dodrans', 'entropy', 'macro') or NAME:A of `FAMILIES`
    ('power:A', A a finite number) to a Weighting; a Weighting is returned as it is.

    Anything else is an OptionError naming --weighting; 'micro' gets its own message, since it is always reported
    (it pools the counts, it weights no class) and so is not a weighting one can ask for.
    """
    if isinstance(spec, Weighting):
        return spec
    key = str(spec).strip().lower()
    if key in WEIGHTINGS:
        return WEIGHTINGS[key]
    known = ", ".join(weighting_names())
    if key == "micro":
        raise OptionError(
            f"weightings: 'micro' is always reported, not a weighting; choose from {known}", option="weightings"
        )
    family, colon, number = key.partition(":")
    if colon and family in FAMILIES:
        try:
            value = float(number)
        except ValueError:
            value = float("nan")
        if not math.isfinite(value):
            raise OptionError(
                f"weightings {spec}: the number A of {family}:A must be a finite number, got {number!r}",
                option="weightings",
            )
        return FAMILIES[family](value)
    raise OptionError(f"weightings: {str(spec)!r} is not one of {known}", option="weightings")


def get_weightings(specs: Sequence[str | Weighting]) -> tuple[Weighting, ...]:
    """Every weighting resolved by `get_weighting`, in order. One asked for twice (`-w macro -w macro`, or
    `power:0.5` and `power:0.50`) is an OptionError: a repeated request is a slip in a script, and quietly
    keeping one would hide which list the user meant.

    >>> [w.name for w in get_weightings(["macro", "power:0.50"])]
    ['macro', 'power:0.5']
    """
    schemes = [get_weighting(w) for w in specs]
    names = [w.name for w in schemes]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise OptionError(f"weightings: {', '.join(repeated)} given more than once", option="weightings")
    return tuple(schemes)
