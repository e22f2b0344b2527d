"""Which systems are not different from the best: the family of comparisons sized to that question, and never a
conclusion the resamples cannot reach.

"Tied with the best" asks k − 1 questions (the best against each other system), not the k(k − 1)/2 of every pair:
the tie group's p-values are the best-vs-rest pairs' raw p-values, corrected (Holm by default) over those k − 1
comparisons alone — the "multiple comparisons with the best" family (Hsu 1996, ch. 4), the best chosen by its
observed score.

A resampling p-value from R resamples is at least 1/(R + 1) (releval.significance.paired: p = (c + 1)/(R + 1)), so
after Holm or Bonferroni over m comparisons the smallest attainable adjusted p is m/(R + 1) (the floor; see
../shared/notes/measures-meta-evaluation.md and docs/significance.md). When the floor is at least α no system can
be told apart from the best whatever the data: the group is then *undecided* (`TieGroup.decided` False), never
printed as a finding, and the message names the resamples that would decide it.

Example
-------
>>> floor_of(10, 1000, "holm"), floor_of(55, 1000, "holm") >= 0.05
(0.00999000999000999, True)
>>> resamples_needed(55, 0.05)
2200
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from releval.core.notices import Notice
from releval.core.options import RESAMPLING_TESTS
from releval.significance.tables import PairedTable, adjust

#: The level of the tie groups of `releval compare` (and the board's ★/≈).
TIE_ALPHA = 0.05


def floor_of(comparisons: int, resamples: int, correction: str) -> float:
    """The smallest adjusted p-value a resampling test can give over `comparisons` comparisons: m/(R + 1) under
    Holm and Bonferroni (the smallest raw p is 1/(R + 1), multiplied by m), 1/(R + 1) without correction."""
    m = 1 if correction == "none" else max(comparisons, 1)
    return min(1.0, m / (resamples + 1))


def resamples_needed(comparisons: int, alpha: float, correction: str = "holm") -> int:
    """Resamples enough for `comparisons` comparisons at `alpha`, with a margin: R = ⌈2m/α⌉, so the floor m/(R + 1)
    is below α/2 and a pair a little above the floor is significant too.

    >>> resamples_needed(10, 0.05), resamples_needed(1, 0.05, "none")
    (400, 40)
    """
    m = 1 if correction == "none" else max(comparisons, 1)
    return math.ceil(2 * m / alpha)


@dataclass(frozen=True)
class TieGroup:
    """The best system under one (test, measure) and those not different from it at `alpha` (`tied`), from the
    best-vs-rest family (`comparisons` = k − 1). `decided` is False when the family's floor is at least `alpha`:
    then `tied` is empty and `reason` says why and what would decide it."""

    test: str
    metric: str
    best: str
    tied: tuple[str, ...]
    comparisons: int
    floor: float | None
    decided: bool = True
    reason: str = ""
    #: Each other system's p against the best, corrected over the k − 1 comparisons (empty when undecided).
    p_adjusted: tuple[tuple[str, float], ...] = ()


def ranked_systems(table: PairedTable, test: str, metric: str) -> tuple[list[str], dict[str, float]]:
    """The systems of a (test, measure) family of pair rows, best first (ties in the table's order), and their
    scores (F for the resampling tests, accuracy for the tests on correctness)."""
    score: dict[str, float] = {}
    for r in table.rows:
        if r.test == test and r.metric == metric:
            score.setdefault(r.a, r.score_a)
            score.setdefault(r.b, r.score_b)
    names = [n for n in table.scores if n in score]
    return sorted(names, key=lambda n: (-score[n], names.index(n))), score


def _resamples(table: PairedTable) -> int | None:
    value = table.signature.get("resamples")
    if value is None or value in ("", "none"):
        return None
    try:
        return int(value)
    except ValueError:
        return None


def tie_groups(table: PairedTable, alpha: float = TIE_ALPHA) -> list[TieGroup]:
    """Per (test, measure) of a two-sided paired table: the best system and those tied with it, from the
    best-vs-rest family's raw p-values corrected with the table's correction over k − 1 comparisons (module)."""
    raw: dict[tuple[str, str, str, str], float] = {}
    for r in table.rows:
        raw[(r.test, r.metric, r.a, r.b)] = r.p_value
        raw[(r.test, r.metric, r.b, r.a)] = r.p_value
    resamples = _resamples(table)
    groups = []
    for test, metric in dict.fromkeys((r.test, r.metric) for r in table.rows):
        order, _ = ranked_systems(table, test, metric)
        best, others = order[0], order[1:]
        known = [o for o in others if (test, metric, best, o) in raw]
        floor = None
        if _is_resampling(test) and resamples is not None:
            floor = floor_of(len(known), resamples, table.correction)
            if floor >= alpha:
                need = resamples_needed(len(known), alpha, table.correction)
                groups.append(
                    TieGroup(
                        test,
                        metric,
                        best,
                        (),
                        len(known),
                        floor,
                        decided=False,
                        reason=(
                            f"undecided: with {resamples:,} resamples the smallest {table.correction} p over the "
                            f"{len(known)} comparisons with the best is {floor:.3g} ≥ {alpha:g}, so no system can "
                            f"differ from the best; use at least {need:,} resamples (-R {need})"
                        ),
                    )
                )
                continue
        adjusted = dict(zip(known, adjust([raw[(test, metric, best, o)] for o in known], table.correction)))
        tied = tuple(o for o in others if o not in adjusted or adjusted[o] >= alpha)
        groups.append(TieGroup(test, metric, best, tied, len(known), floor, p_adjusted=tuple(adjusted.items())))
    return groups


def _is_resampling(test: str) -> bool:
    """Whether the test's p-value comes from resamples (floored); a pair row names the test as configured
    (`bootstrap`, `randomization`) or by title (`McNemar`, `sign`)."""
    return test in RESAMPLING_TESTS


def undecided_warnings(groups: Sequence[TieGroup]) -> list[str]:
    """One line per undecided (test, measure) family, the same reason said once for families that share it."""
    return list(dict.fromkeys(g.reason for g in groups if not g.decided))


def all_pairs_floor(table: PairedTable) -> float | None:
    """The smallest adjusted p-value the table's all-pairs family (per test and measure) can show, for resampling
    tests; None when the table has no resampling test or no resample count."""
    resamples = _resamples(table)
    if resamples is None or not any(_is_resampling(t) for t in table.tests):
        return None
    counts: dict[tuple[str, str], int] = {}
    for r in table.rows:
        if _is_resampling(r.test):
            counts[(r.test, r.metric)] = counts.get((r.test, r.metric), 0) + 1
    return floor_of(max(counts.values()), resamples, table.correction) if counts else None


def floor_warnings(table: PairedTable, alpha: float = TIE_ALPHA) -> list[Notice]:
    """The warning of a table whose resamples cannot make any adjusted p-value of its families fall below
    `alpha` (`all_pairs_floor`), naming the resamples that could, and whether the tie groups (best against the
    rest, a smaller family) can still be decided."""
    floor = all_pairs_floor(table)
    resamples = _resamples(table)
    if floor is None or resamples is None or floor < alpha:
        return []
    sizes: dict[tuple[str, str], int] = {}
    for r in table.rows:
        sizes[(r.test, r.metric)] = sizes.get((r.test, r.metric), 0) + 1
    m = max(sizes.values())
    family = f"each system against {table.baseline}" if table.baseline else "all pairs"
    need = resamples_needed(m, alpha, table.correction)
    groups = ""
    if table.baseline is None and table.alternative == "two-sided":
        rest = len(table.scores) - 1
        if floor_of(rest, resamples, table.correction) < alpha:
            groups = f"; the tie groups compare the best with the {rest} others, a family these resamples can decide"
        else:
            groups = f"; the tie groups (the best against the {rest} others) are undecided too"
    return [
        Notice(
            f"{resamples:,} resamples cannot decide {m:,} comparisons ({family}): the smallest {table.correction} p is "
            f"{floor:.3g} ≥ {alpha:g}, so no adjusted p-value of these pairs can be significant, whatever the data"
            f"{groups}; use at least {need:,} resamples (-R {need})",
            "resample-floor",
        )
    ]
