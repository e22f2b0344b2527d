"""Checks of parameter values, shared by the library and the command line: one rule per parameter, one error type.

Every check raises `OptionError` (a ValueError for Python callers, one line and exit 2 on the command line) whose
message names the parameter by its CLI spelling (`--confidence`) and the allowed values or range, so a bad value
is refused before any file is read and never ends in a traceback or in a silent NaN score. Library functions call
these checks on entry; commands call the same checks (and `check_output_path`) before loading their inputs.
"""

from __future__ import annotations

import math
import operator
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from releval.core.errors import OptionError

#: Decimals a table may print: a double holds 15-17 significant digits, so more would print float noise.
MAX_WIDTH = 15


def check_choice(value: str, choices: Sequence[str], option: str) -> str:
    """`value` when it is one of `choices`, else an OptionError listing them."""
    if value not in choices:
        raise OptionError(f"{option}: {value!r} is not one of {', '.join(choices)}", option=option)
    return value


def check_choices(values: Iterable[str], choices: Sequence[str], option: str) -> list[str]:
    """Each of several values (a comma list or a repeated option) checked by `check_choice`; none at all is refused."""
    out = [check_choice(v, choices, option) for v in values]
    if not out:
        raise OptionError(f"{option} needs at least one of {', '.join(choices)}", option=option)
    return out


def check_nonempty(value: str, option: str) -> str:
    """A name (label, field, system) that must not be empty or blank: an empty one matches nothing silently."""
    if not value.strip():
        raise OptionError(f"{option} must not be empty", option=option)
    return value


def _rule(noun: str, low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    """The rule worded for "X must …": 'lie strictly between 0 and 1', 'be a finite number >= 0', …."""
    if low is not None and high is not None:
        if low_open and high_open:
            where = f"strictly between {low:g} and {high:g}"
        else:
            where = f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        return f"lie {where}" if noun == "a finite number" else f"be {noun} {where}"
    if low is not None:
        return f"be {noun} {'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"be {noun} {'<' if high_open else '<='} {high:g}"
    return f"be {noun}"


def _inside(x: float, low: float | None, high: float | None, low_open: bool, high_open: bool) -> bool:
    if low is not None and (x <= low if low_open else x < low):
        return False
    return not (high is not None and (x >= high if high_open else x > high))


def check_number(
    value: float,
    option: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """`value` as a finite float inside the interval (NaN and ±inf are always refused: they turn scores into NaN)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    if not math.isfinite(x) or not _inside(x, low, high, low_open, high_open):
        rule = _rule("a finite number", low, high, low_open, high_open)
        raise OptionError(f"{option} must {rule}, got {value!r}", option=option)
    return x


def check_int(value: int | float, option: str, *, low: int | None = None, high: int | None = None) -> int:
    """`value` as an int inside [low, high] (an integral float such as 1000.0 is accepted, 2.5 or True is not)."""
    n: int | None
    if isinstance(value, bool):
        n = None
    elif isinstance(value, float) and value.is_integer():
        n = int(value)
    else:
        try:
            n = operator.index(value)  # type: ignore[arg-type]  # NumPy integers too; anything else: TypeError
        except TypeError:
            n = None
    if n is None or not _inside(n, low, high, False, False):
        rule = _rule("an integer", low, high, False, False)
        raise OptionError(f"{option} must {rule}, got {value!r}", option=option)
    return n


def check_beta(beta: float) -> float:
    """F-beta's β: finite and >= 0, as in scikit-learn.

    β = 0 is allowed because the formula handles it: F_0 = (1+0)·TP / ((1+0)·TP + 0·FN + FP) = TP / (TP + FP), which is
    precision, with the same 0/0 rule. A negative β would square to a valid weight and hide a typo; NaN or ∞ would
    make every F NaN or 0, so both are refused.
    """
    return check_number(beta, "beta", low=0.0)


def check_zero_division(value: float, *, allow_nan: bool = False) -> float:
    """The value of P, R or F when a ratio is 0/0: a score, so in [0, 1] (scikit-learn offers 0 and 1).

    NaN (scikit-learn's `zero_division=np.nan`) turns every average over such a class into NaN, so scoring, the
    tests and the CLI refuse it; `allow_nan=True` is for the count-level building blocks (AveragingSpec), which
    keep scikit-learn's option so their results can be checked against it value for value.
    """
    if allow_nan and isinstance(value, (int, float)) and math.isnan(value):
        return math.nan
    return check_number(value, "zero_division", low=0.0, high=1.0)


def check_probability(value: float, option: str) -> float:
    """A level or bound strictly between 0 and 1 (--confidence, --alpha): 0 and 1 make the answer trivial."""
    return check_number(value, option, low=0.0, high=1.0, low_open=True, high_open=True)


def check_confidence(confidence: float) -> float:
    """Level of the bootstrap percentile intervals, strictly between 0 and 1."""
    return check_probability(confidence, "confidence")


def check_alpha(alpha: float) -> float:
    """Significance level / bound on the error rate, strictly between 0 and 1."""
    return check_probability(alpha, "alpha")


def check_resamples(resamples: int) -> int:
    """Bootstrap resamples or randomization trials: at least 1 (the p-value is (c + 1)/(R + 1))."""
    return check_int(resamples, "resamples", low=1)


def check_seed(seed: int | None) -> int | None:
    """A seed for numpy's `default_rng`: None (fresh entropy) or an integer >= 0 (numpy refuses negative seeds)."""
    return None if seed is None else check_int(seed, "seed", low=0)


def check_width(width: int) -> int:
    """Decimals of the percentages in text, Markdown and LaTeX tables: 0 to MAX_WIDTH."""
    return check_int(width, "width", low=0, high=MAX_WIDTH)


def refuse_options(given: Mapping[str, bool], why: str) -> None:
    """Refuse the options of `given` that were used (True) where they have no effect, e.g. with another --task.

    An option silently ignored looks like it took effect (`--beta 2` scored as F1); the message reads
    "--relaxed, --types: only with --task e2e" for `why="only with --task e2e"`.
    """
    used = [name for name, on in given.items() if on]
    if used:
        raise OptionError(f"{', '.join(used)}: {why}", option=used[0])


def check_output_path(path: str | os.PathLike[str] | None, option: str = "--output") -> Path | None:
    """A file path that `write_atomic` can write, checked before any work is done (None passes through).

    Refused: an existing directory, a path below an existing file, a parent folder that exists but is not writable.
    A missing parent folder is fine: it is created when the output is written.
    """
    if path is None:
        return None
    target = Path(path)
    if str(path) == "" or target.name in ("", ".", ".."):
        raise OptionError(f"{option}: {str(path)!r} is not a file name", option=option)
    if target.is_dir():
        raise OptionError(f"{option}: '{target}' is a directory; give a file name", option=option)
    parent = target.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise OptionError(f"{option}: '{target}' cannot be created, '{parent}' is not a directory", option=option)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OptionError(f"{option}: '{target}' cannot be created, '{parent}' is not writable", option=option)
    return target
