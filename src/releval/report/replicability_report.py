"""Rendering replicability analyses (Dror et al., TACL 2017) and their §5 simulation.

Formats: text, JSON, Markdown and LaTeX (booktabs).  The JSON form always carries the per-u
partial-conjunction p-values; the other forms show them on request.  Every analysis carries a
sacreBLEU-style signature (alpha, methods, dependence assumption, N, releval version).  The histogram
figure needs matplotlib (the `plot` extra), imported only when a figure is asked for.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from releval.core.signature import Signature
from releval.errors import RelevalError
from releval.report.output import write_atomic
from releval.report.strict_json import dumps_strict
from releval.report.tables import latex_escape
from releval.stats.replicability import ID_GUARANTEE, PC_VALID_UNDER, ReplicabilityResult
from releval.stats.simulation import PAPER_VALUES, SimulationResult

FORMATS = ("text", "json", "markdown", "latex")

_LABEL = {
    "count": "count (naive)",
    "bonferroni": "Bonferroni",
    "fisher": "Fisher",
    "simes": "Simes",
    "stouffer": "Stouffer",
}
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


_NEEDS = {"independent": "independent", "positive": "positively dependent"}


def _p(value: float) -> str:
    """Compact p-value: 4 significant digits, exact zero as 0."""
    return "0" if value == 0 else f"{value:.4g}"


# --------------------------------------------------------------------------------------------- analysis


def analysis_signature(result: ReplicabilityResult, test: str | None = None) -> Signature:
    """alpha, partial-conjunction methods + identification procedure, dependence, N and version."""
    methods = [*result.pc_methods, f"id={result.identification.method}"]
    return Signature.build(
        task="replicability",
        n=result.n,
        test=test,
        alpha=result.alpha,
        methods=methods,
        dependence=result.dependence,
    )


def _validity(result: ReplicabilityResult, method: str) -> str:
    if method == "count":
        return "no guarantee"
    if result.valid(method):
        return "valid"
    needs = " or ".join(_NEEDS[d] for d in ("independent", "positive") if d in PC_VALID_UNDER[method])
    return f"needs {needs} datasets"


def analysis_to_dict(result: ReplicabilityResult, test: str | None = None) -> dict[str, Any]:
    """Everything the analysis computed, JSON-ready."""
    ident = result.identification
    guarantee = ID_GUARANTEE[ident.method][0]
    datasets = []
    for i, name in enumerate(result.names):
        row: dict[str, Any] = {"dataset": name, "p": float(result.pvalues[i])}
        if result.effects is not None:
            row["effect"] = float(result.effects[i])
        row["adjusted_p"] = float(ident.adjusted[i])
        row["identified"] = bool(ident.rejected[i])
        datasets.append(row)
    return {
        "n": result.n,
        "alpha": result.alpha,
        "dependence": result.dependence,
        "recommended": result.recommended,
        "k": dict(result.k),
        "k_recommended": result.k_recommended,
        "validity": {m: _validity(result, m) for m in result.k},
        "identification": {
            "method": ident.method,
            "controls": guarantee,
            "identified": result.identified,
            "indices": ident.indices,
        },
        "datasets": datasets,
        "partial_conjunction": {
            m: {
                "raw": [float(x) for x in result.pc_raw[m]],
                "running_max": [float(x) for x in result.pc_monotone[m]],
            }
            for m in result.pc_methods
        },
        "warnings": list(result.warnings),
        "signature": str(analysis_signature(result, test)),
    }


def _summary_rows(result: ReplicabilityResult) -> list[list[str]]:
    rows = []
    for m in ("count", *result.pc_methods):
        mark = "recommended" if m == result.recommended else ""
        rows.append([_LABEL[m], str(result.k[m]), _validity(result, m), mark])
    return rows


def _dataset_rows(result: ReplicabilityResult) -> tuple[list[str], list[list[str]]]:
    ident = result.identification
    head = ["dataset", "p"]
    if result.effects is not None:
        head.append("effect")
    head += [f"adj. p ({ident.method})", "identified"]
    rows = []
    for i, name in enumerate(result.names):
        row = [name, _p(float(result.pvalues[i]))]
        if result.effects is not None:
            row.append(f"{float(result.effects[i]):+.4g}")
        row += [_p(float(ident.adjusted[i])), "yes" if ident.rejected[i] else ""]
        rows.append(row)
    return head, rows


def _per_u_rows(result: ReplicabilityResult) -> tuple[list[str], list[list[str]]]:
    head = ["u", "p_(u)"] + [f"{_LABEL[m]} p*" for m in result.pc_methods]
    sorted_p = np.sort(result.pvalues)
    rows = [
        [str(u + 1), _p(float(sorted_p[u]))] + [_p(float(result.pc_monotone[m][u])) for m in result.pc_methods]
        for u in range(result.n)
    ]
    return head, rows


def _headline(result: ReplicabilityResult) -> str:
    rec = result.recommended
    return (
        f"A is better than B on at least {result.k[rec]} of {result.n} datasets "
        f"(k_{rec}, confidence {1 - result.alpha:.3g}, {_ASSUMPTION[result.dependence]})"
    )


def _identified_line(result: ReplicabilityResult) -> str:
    ident = result.identification
    guarantee = ID_GUARANTEE[ident.method][0]
    names = ", ".join(result.identified) if result.identified else "none"
    return (
        f"Identified by {_ID_LABEL[ident.method]} ({guarantee} <= {result.alpha:g}): "
        f"{len(result.identified)} of {result.n}: {names}"
    )


def _aligned(head: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def fmt(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if i and _numeric(c) else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return (indent + "  ".join(parts)).rstrip()

    return [fmt(head), *[fmt(r) for r in rows]]


def _numeric(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    def esc(c: str) -> str:
        return c.replace("|", "\\|")

    out = ["| " + " | ".join(esc(h) for h in head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return out


def _latex_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = [r"\begin{tabular}{l" + "r" * (len(head) - 1) + "}", r"\toprule"]
    out.append(" & ".join(latex_escape(h) for h in head) + r" \\")
    out.append(r"\midrule")
    out += [" & ".join(latex_escape(c) for c in r) + r" \\" for r in rows]
    out += [r"\bottomrule", r"\end{tabular}"]
    return out


_SUMMARY_HEAD = ["estimator", "k_hat", "guarantee", ""]


def render_analysis(
    result: ReplicabilityResult, fmt: str = "text", *, per_u: bool = False, test: str | None = None
) -> str:
    """The analysis as text, JSON, Markdown or LaTeX (JSON always includes the per-u p-values)."""
    if fmt == "json":
        return dumps_strict(analysis_to_dict(result, test), indent=2, ensure_ascii=False) + "\n"
    signature = str(analysis_signature(result, test))
    summary = _summary_rows(result)
    d_head, d_rows = _dataset_rows(result)
    u_head, u_rows = _per_u_rows(result)
    if fmt == "text":
        out = [
            f"Replicability analysis: {result.n} datasets, alpha = {result.alpha:g}, "
            f"assumption: {_ASSUMPTION[result.dependence]}",
            _headline(result),
            "",
            "Counting (k_hat = largest u with running-max partial-conjunction p <= alpha):",
            *_aligned(_SUMMARY_HEAD, summary),
            "",
            _identified_line(result),
            "",
            *_aligned(d_head, d_rows),
        ]
        if per_u:
            out += ["", "Partial-conjunction p-values p*^{u/N} (running max over u):", *_aligned(u_head, u_rows)]
        out += ["", *[f"warning: {w}" for w in result.warnings], f"signature: {signature}"]
        return "\n".join(out) + "\n"
    if fmt == "markdown":
        out = [
            f"**Replicability analysis** ({result.n} datasets, alpha = {result.alpha:g}, "
            f"{_ASSUMPTION[result.dependence]}): {_headline(result)}.",
            "",
            *_md_table(_SUMMARY_HEAD[:3] + ["note"], summary),
            "",
            _identified_line(result) + ".",
            "",
            *_md_table(d_head, d_rows),
        ]
        if per_u:
            out += ["", *_md_table(u_head, u_rows)]
        out += [""] + [f"> warning: {w}" for w in result.warnings] + ([""] if result.warnings else [])
        out.append(f"`{signature}`")
        return "\n".join(out) + "\n"
    if fmt == "latex":
        out = [f"% {signature}", f"% {_headline(result)}", f"% {_identified_line(result)}"]
        out += [f"% warning: {w}" for w in result.warnings]
        out += _latex_table(_SUMMARY_HEAD[:3] + ["note"], summary)
        out += ["", *_latex_table(d_head, d_rows)]
        if per_u:
            out += ["", *_latex_table(u_head, u_rows)]
        return "\n".join(out) + "\n"
    raise RelevalError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")


# --------------------------------------------------------------------------------------------- simulation


def simulation_to_dict(sim: SimulationResult) -> dict[str, Any]:
    """P(k_hat > 0) with Monte-Carlo s.e., theory (independent case), paper values and histograms."""
    scenarios = {}
    for name, sc in sim.scenarios.items():
        scenarios[name] = {
            "n": sc.n,
            "reps": sc.reps,
            "p_overestimate": {m: sc.p_over(m) for m in sim.methods},
            "mc_se": {m: sc.se(m) for m in sim.methods},
            "theory": {m: sc.theory[m] for m in sim.methods if m in sc.theory},
            "paper": PAPER_VALUES.get(name, {}),
            "histogram": {m: {str(k): v for k, v in sc.histogram(m).items()} for m in sim.methods},
        }
    sig = Signature.build(task="replicability-simulation", alpha=sim.alpha, seed=sim.seed, methods=sim.methods)
    return {"alpha": sim.alpha, "seed": sim.seed, "scenarios": scenarios, "signature": str(sig)}


def render_simulation(sim: SimulationResult, fmt: str = "text") -> str:
    """Estimated P(k_hat > k) per scenario and estimator, next to theory and the paper's numbers."""
    data = simulation_to_dict(sim)
    if fmt == "json":
        return dumps_strict(data, indent=2) + "\n"
    head = ["scenario", "estimator", "P(k_hat > k)", "MC s.e.", "theory", "paper"]
    rows = []
    for name, sc in data["scenarios"].items():
        for m in sim.methods:
            theory = sc["theory"].get(m)
            paper = sc["paper"].get(m)
            rows.append(
                [
                    f"{name} (N={sc['n']}, {sc['reps']} reps)",
                    _LABEL[m],
                    f"{sc['p_overestimate'][m]:.3f}",
                    f"{sc['mc_se'][m]:.4f}",
                    "" if theory is None else f"{theory:.3f}",
                    "" if paper is None else f"{paper:.3f}",
                ]
            )
    title = f"Dror et al. (2017) §5 simulation: all nulls true (k = 0), alpha = {sim.alpha:g}, seed = {sim.seed}"
    if fmt == "text":
        return "\n".join([title, *_aligned(head, rows), f"signature: {data['signature']}"]) + "\n"
    if fmt == "markdown":
        return "\n".join([f"**{title}**", "", *_md_table(head, rows), "", f"`{data['signature']}`"]) + "\n"
    if fmt == "latex":
        return "\n".join([f"% {title}", f"% {data['signature']}", *_latex_table(head, rows)]) + "\n"
    raise RelevalError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RelevalError(
            "the histogram figure needs matplotlib: pip install 'releval[plot]' (or drop --figure)"
        ) from None
    return plt


def require_matplotlib() -> None:
    """Fail early (before any output is written) when a figure is requested but matplotlib is missing."""
    _pyplot()


def simulation_figure(sim: SimulationResult, fmt: str = "png") -> bytes:
    """Histograms of k_hat per estimator (one panel per scenario), as PNG/PDF/SVG bytes."""
    plt = _pyplot()
    names = list(sim.scenarios)
    fig, axes = plt.subplots(1, len(names), figsize=(5.5 * len(names), 3.8), squeeze=False)
    for ax, name in zip(axes[0], names):
        sc = sim.scenarios[name]
        top = max(int(sc.k_hat[m].max()) for m in sim.methods)
        edges = np.arange(top + 2) - 0.5
        width = 0.8 / len(sim.methods)
        for j, m in enumerate(sim.methods):
            counts, _ = np.histogram(sc.k_hat[m], bins=edges)
            ax.bar(
                np.arange(top + 1) + (j - (len(sim.methods) - 1) / 2) * width,
                counts / sc.reps,
                width,
                label=f"{_LABEL[m]}: P(k>0) = {sc.p_over(m):.3f}",
            )
        ax.set_title(f"{name} datasets (N = {sc.n}, {sc.reps} reps)")
        ax.set_xlabel("k_hat (true k = 0)")
        ax.set_ylabel("fraction of repetitions")
        ax.legend(fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt)
    plt.close(fig)
    return buf.getvalue()


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, what: str = "figure") -> None:
    """Write a figure's bytes atomically (releval.report.output.write_atomic; `what` names it in an error)."""
    write_atomic(path, data, what=what)
