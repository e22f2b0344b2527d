"""The meta-evaluation of measures (releval.significance.meta) as tables, in every output format: each measure's
discriminative power, the agreement (Kendall's τ-b) of every two measures, and the pairs two measures order
differently.
"""

from __future__ import annotations

from releval.core.table import Column, Table, attach
from releval.significance.meta import MeasureEvaluation


def measure_tables(meta: MeasureEvaluation, signature: str | None = None) -> list[Table]:
    """Three tables: discriminative power per (test, measure); τ-b per pair of measures with its interval; the
    flips (pairs ordered one way by micro, the other way by another measure)."""
    power = Table(
        f"Discriminative power: pairs of the {meta.systems} systems told apart",
        (
            Column("test"),
            Column("measure"),
            Column("significant", "count"),
            Column("pairs", "count"),
            Column("share", "percent"),
            Column("smallest significant |Δ|", "percent", key="smallest", missing="–"),
        ),
        [(p.test, p.metric, p.significant, p.pairs, p.share, p.smallest) for p in meta.power],
    )
    agreement = Table(
        "Agreement of the measures' rankings (Kendall's τ-b)",
        (
            Column("measure A"),
            Column("measure B"),
            Column("τ-b", "number", key="tau_b", spec=".3f"),
            Column("95% interval", "interval", key="interval", spec=".3f", missing="–"),
        ),
        [(g.a, g.b, g.tau, g.interval) for g in meta.agreement],
    )
    flips = Table(
        "Pairs the measures order differently (first: ahead under measure A)",
        (
            Column("measure A"),
            Column("measure B"),
            Column("first"),
            Column("second"),
            Column("Δ A", "signed-percent", key="delta_a"),
            Column("Δ B", "signed-percent", key="delta_b"),
            Column("p A", "p", key="p_a"),
            Column("p B", "p", key="p_b"),
            Column("significant under both", display=lambda v: "yes" if v else "no"),
        ),
        [(f.a, f.b, f.first, f.second, f.delta_a, f.delta_b, f.p_a, f.p_b, f.significant) for f in meta.flips],
        notes=() if meta.flips else ("no pair is ordered differently by two measures",),
    )
    tables = [power, agreement, flips]
    if meta.stability:
        edges = meta.stability[0].bins

        def label(low: float, high: float | None) -> str:
            return f"|Δ| ≥ {100 * low:g}" if high is None else f"{100 * low:g} ≤ |Δ| < {100 * high:g}"

        tables.append(
            Table(
                f"Stability: swap rate between halves of the items ({meta.stability[0].splits} splits)",
                (
                    Column("measure"),
                    Column("all pairs", "percent", key="swap_rate"),
                    *(Column(label(lo, hi), "percent", key=f"bin_{n}", missing="–") for n, (lo, hi, _, _) in
                      enumerate(edges)),
                ),
                [(t.metric, t.rate, *(b[2] if b[3] else None for b in t.bins)) for t in meta.stability],
                notes=("|Δ| in points (%), the pair's difference on all the items",),
            )
        )  # fmt: skip
    return attach(tables, signature=signature, notes=meta.notes)
