"""The warning that a class-weighted average includes classes with very few gold items.

Macro-F gives a class of one gold item as much weight as a class of a thousand. Such a class's F rests on that
one item: in a bootstrap resample that draws it twice its F may be 1, in one that misses it the class has no gold
item at all (its F is then 0 or zero_division under the class set "test", or the class leaves the average under
"resample"). The average's interval rests on those few items as well, and two papers' macro-F differ by the luck
of them. On SemEval-2010 Task 8, Entity-Destination(e2,e1) has one gold item and carries 1/18 of macro-F: the
onehaitao CNN's macro 71.12 has the 95% interval [68.76, 73.05] with the class set fixed, [68.99, 76.84] with the
resample's (docs/significance.md, "Which classes a resample averages over").

A weighting is named when the classes with 1 to `RARE_SUPPORT` − 1 (4) gold items in the test set together carry
at least `RARE_WEIGHT` (1%) of its weight (`releval.metrics.averages.rare_classes`): macro whenever such a class
is in its class set and there are at most 100 classes; weighted, dodrans and entropy only on very small test sets,
where a rare class's share of the items is itself large.
"""

from __future__ import annotations

from collections.abc import Sequence

from numpy.typing import NDArray

from releval.core.notices import Notice
from releval.metrics.averages import RARE_SUPPORT, AveragingSpec, RareClasses, rare_classes

#: Rare classes named in one warning; the rest are counted.
SHOWN = 10

_CLASS_SET = {
    "test": "every resample averages over the test set's classes",
    "resample": "a resample that draws none of a class's items averages without it: class set resample",
}


def rare_class_notices(
    labels: Sequence[str], support: NDArray, spec: AveragingSpec, class_set: str | None, prefix: str = ""
) -> list[Notice]:
    """The "rare-classes" notices of the weightings of `spec` that rare classes weigh in (`rare_classes`): one per
    set of rare classes (every weighting shares it, unless macro also runs over declared types), naming the
    weightings with the share of their weight, and the classes (`labels`, in the order of `support`: the test
    set's gold items per class) with their gold items.

    The notice says what rests on them: the average's bootstrap interval, and which classes each resample
    averages over, when the bootstrap runs with `class_set` ("test" or "resample"); its score when there are no
    bootstrap intervals (None). `prefix` names the criterion of an end-to-end comparison ("strict:"), as in its
    metric names.

    >>> import numpy as np
    >>> spec = AveragingSpec(np.array([False, True, True, True]))
    >>> (notice,) = rare_class_notices(["Other", "a", "b", "c"], np.array([900, 400, 500, 1]), spec, "test")
    >>> notice.code, notice.split(":")[0]
    ('rare-classes', 'macro averages over 1 class with fewer than 5 gold items (33.3% of its weight)')
    >>> notice.split(": ")[1]
    "c (1 gold item); its interval rests on them (every resample averages over the test set's classes)"
    """
    groups: dict[tuple[int, ...], list[RareClasses]] = {}
    for rare in rare_classes(support, spec):
        groups.setdefault(rare.classes, []).append(rare)
    notices = []
    for classes, weightings in groups.items():
        one = len(weightings) == 1
        names = _join([f"{prefix}{w.weighting}" for w in weightings])
        shares = _join([f"{100 * w.weight:.1f}%" for w in weightings])
        named = [f"{labels[i]} ({n} gold item{'' if n == 1 else 's'})" for i, n in zip(classes, weightings[0].support)]
        if len(named) > SHOWN:
            named = [*named[:SHOWN], f"and {len(named) - SHOWN} more"]
        if class_set is None:
            rests = f"{'its score rests' if one else 'their scores rest'} on them"
        else:
            rests = f"{'its interval rests' if one else 'their intervals rest'} on them ({_CLASS_SET[class_set]})"
        count = len(classes)
        notices.append(
            Notice(
                f"{names} average{'s' if one else ''} over {count} class{'' if count == 1 else 'es'} with fewer "
                f"than {RARE_SUPPORT} gold items ({shares} of {'its weight' if one else 'their weights'}): "
                f"{', '.join(named)}; {rests}",
                "rare-classes",
            )
        )
    return notices


def _join(items: list[str]) -> str:
    """a, b and c."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
