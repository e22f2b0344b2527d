"""Rendering replicability analyses (Dror et al., TACL 2017) and their §5 simulation.

Formats: text, JSON, Markdown and LaTeX (booktabs), from the tables of `analysis_tables` and
`simulation_tables` (releval.core.table).  The JSON form is the result's own `to_dict()`, so it loads back
with `from_dict()`; it always carries the per-u partial-conjunction p-values, the other forms show them on
request.  Every analysis carries a sacreBLEU-style signature (alpha, methods, dependence assumption, N,
releval version).  The histogram figure (releval.report.figures.khat) needs matplotlib (the `plot` extra),
imported only when a figure is asked for.
"""

from __future__ import annotations

import os

import numpy as np

from releval.core.errors import RelevalError
from releval.core.options import OUTPUT_FORMATS
from releval.core.table import Column, Table, attach
from releval.replicability.analysis import ReplicabilityResult
from releval.replicability.simulation import PAPER_VALUES, SimulationResult
from releval.report.figures.khat import ESTIMATOR_LABELS
from releval.report.output import write_atomic
from releval.report.render import render_as

#: The replicability commands write every output format.
FORMATS = OUTPUT_FORMATS

_LABEL = ESTIMATOR_LABELS
_ID_LABEL = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "hochberg": "Hochberg",
    "hommel": "Hommel",
    "fdr_bh": "Benjamini-Hochberg",
    "fdr_by": "Benjamini-Yekutieli",
    "sidak": "Sidak",
    "holm_sidak": "Holm-Sidak",
    "fdr_tsbh": "two-stage Benjamini-Hochberg",
}
_ASSUMPTION = {
    "dependent": "arbitrarily dependent datasets",
    "positive": "positively dependent (PRDS) datasets",
    "independent": "independent datasets",
}


# --------------------------------------------------------------------------------------------- analysis


def _recommended(value: bool) -> str:
    return "recommended" if value else ""


def _yes(value: bool) -> str:
    return "yes" if value else ""


def _headline(result: ReplicabilityResult) -> str:
    rec = result.recommended
    return (
        f"A is better than B on at least {result.k[rec]} of {result.n} datasets "
        f"(k_{rec}, confidence {1 - result.alpha:.3g}, {_ASSUMPTION[result.dependence]})"
    )


def _identified_line(result: ReplicabilityResult) -> str:
    ident = result.identification
    guarantee = ident.controls
    names = ", ".join(result.identified) if result.identified else "none"
    return (
        f"Identified by {_ID_LABEL[ident.method]} ({guarantee} <= {result.alpha:g}): "
        f"{len(result.identified)} of {result.n}: {names}"
    )


def analysis_tables(result: ReplicabilityResult, *, per_u: bool = False) -> list[Table]:
    """The estimators' k_hat with the headline, the datasets with their adjusted p-values and, with `per_u`, the
    running-max partial-conjunction p-values for every u."""
    summary = Table(
        f"Replicability analysis: {result.n} datasets, alpha = {result.alpha:g}, "
        f"assumption: {_ASSUMPTION[result.dependence]}",
        (
            Column("estimator", display=lambda m: _LABEL[m]),
            Column("k_hat", "count"),
            Column("guarantee"),
            Column("note", key="recommended", display=_recommended),
        ),
        [(m, result.k[m], result.guarantee(m), m == result.recommended) for m in ("count", *result.pc_methods)],
        lead=[_headline(result) + "."],
        notes=["k_hat = largest u with running-max partial-conjunction p <= alpha"],
    )
    ident = result.identification
    columns = [Column("dataset"), Column("p", "p", spec=".4g")]
    if result.effects is not None and result.test is not None:
        # from-predictions: differences of two scores in [0, 1], shown in points as compare shows its Δ (+2.66);
        # CSV and JSON keep the fraction (0.0266), as compare's do
        columns.append(Column("Δ = A−B", "signed-percent", key="effect"))
    elif result.effects is not None:  # read from a table: the effect is in the table's own units
        columns.append(Column("effect", "number", spec="+.4g"))
    columns += [
        Column(f"adj. p ({ident.method})", "p", key="adjusted_p", spec=".4g"),
        Column("identified", display=_yes),
    ]
    rows = []
    for i, name in enumerate(result.names):
        effect = [] if result.effects is None else [float(result.effects[i])]
        rows.append((name, float(result.pvalues[i]), *effect, float(ident.adjusted[i]), bool(ident.rejected[i])))
    tables = [summary, Table("Datasets", columns, rows, lead=[_identified_line(result) + "."])]
    if per_u:
        sorted_p = np.sort(result.pvalues)
        tables.append(
            Table(
                "Partial-conjunction p-values p*^{u/N} (running max over u)",
                (
                    Column("u", "count"),
                    Column("p_(u)", "p", key="p_u", spec=".4g"),
                    *(Column(f"{_LABEL[m]} p*", "p", key=m, spec=".4g") for m in result.pc_methods),
                ),
                [
                    (u + 1, float(sorted_p[u]), *(float(result.pc_monotone[m][u]) for m in result.pc_methods))
                    for u in range(result.n)
                ],
            )
        )
    return attach(tables, signature=str(result.signature), warnings=result.warnings)


def _check_format(format: str) -> None:
    if format not in FORMATS:
        raise RelevalError(f"unknown format {format!r}; choose from {', '.join(FORMATS)}")


def render_analysis(result: ReplicabilityResult, format: str = "text", *, per_u: bool = False) -> str:
    """The analysis as text, JSON (its `to_dict()`, always with the per-u p-values), Markdown or LaTeX; the text
    leaves the warnings to the caller (the command prints them on stderr)."""
    _check_format(format)
    return render_as(format, lambda: analysis_tables(result, per_u=per_u), result.to_dict)


# --------------------------------------------------------------------------------------------- simulation


def simulation_tables(sim: SimulationResult) -> list[Table]:
    """Estimated P(k_hat > k) per scenario and estimator, next to theory and the paper's numbers."""
    rows = []
    for name, sc in sim.scenarios.items():
        paper = PAPER_VALUES.get(name, {})
        for m in sim.methods:
            label = f"{name} (N={sc.n}, {sc.reps} reps)"
            rows.append((label, m, sc.p_over(m), sc.se(m), sc.theory.get(m), paper.get(m)))
    columns = (
        Column("scenario"),
        Column("estimator", display=lambda m: _LABEL[m]),
        Column("P(k_hat > k)", "number", key="p_overestimate", spec=".3f"),
        Column("MC s.e.", "number", key="mc_se", spec=".4f"),
        Column("theory", "number", spec=".3f", missing=""),
        Column("paper", "number", spec=".3f", missing=""),
    )
    title = f"Dror et al. (2017) §5 simulation: all nulls true (k = 0), alpha = {sim.alpha:g}, seed = {sim.seed}"
    return [Table(title, columns, rows, signature=str(sim.signature))]


def render_simulation(sim: SimulationResult, format: str = "text") -> str:
    """`simulation_tables` as text, Markdown or LaTeX, or the simulation's JSON (its `to_dict()`)."""
    _check_format(format)
    return render_as(format, lambda: simulation_tables(sim), sim.to_dict)


# The figure lives with every other figure (releval.report.figures.khat); these names stay for the command line.


def require_matplotlib() -> None:
    """Fail early (before any output is written) when a figure is requested but matplotlib is missing."""
    from releval.report.figures.base import require_matplotlib as require

    require("the histogram figure", "or drop --figure")


def simulation_figure(sim: SimulationResult, format: str = "png") -> bytes:
    """Histograms of k_hat per estimator (one panel per scenario), as PNG/PDF/SVG bytes
    (releval.report.figures.khat_figure, saved by figure_bytes: the same simulation gives the same bytes)."""
    from releval.report.figures.base import figure_bytes
    from releval.report.figures.khat import khat_figure

    require_matplotlib()
    return figure_bytes(khat_figure(sim)[1], format)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, what: str = "figure") -> None:
    """Write a figure's bytes atomically (releval.report.output.write_atomic; `what` names it in an error)."""
    write_atomic(path, data, what=what)
