"""What every figure shares: the matplotlib guard, new figures on an Agg canvas, deterministic atomic saving.

matplotlib is the `plot` extra: it is imported only when a figure is drawn, never by importing this package (the
data functions of the figure modules need NumPy alone). Figures are made as `matplotlib.figure.Figure` objects on
their own Agg canvas, not through pyplot: drawing one neither switches a user's interactive backend nor leaves a
figure registered in pyplot, and it is freed like any object.

Saving is byte-for-byte reproducible: the same figure gives the same file. Each format's varying metadata is fixed
(`SAVE_METADATA`: PDF's and SVG's creation date dropped, the creator named releval), SVG's element ids are drawn from
a fixed salt (the `svg.hashsalt` rcParam) instead of random ones, and PNG holds no time. Each figure is returned laid
out (`settle_layout`): constrained layout would otherwise move things on each save, so that a Figure's first save
and its next differed. The file is written through
`releval.report.output.write_atomic`: rendered to memory first, then a temporary file in the target's folder renamed
over it, so a failure leaves neither a partial file nor a temporary one.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from releval._version import __version__
from releval.core.errors import OptionError, RelevalError
from releval.report.output import write_atomic

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The file formats a figure is saved in, by file-name suffix.
FIGURE_FORMATS = ("png", "svg", "pdf")

#: Metadata that makes each format's bytes depend on the figure alone: no creation date, no matplotlib version.
SAVE_METADATA: dict[str, dict[str, Any]] = {
    "png": {"Software": f"releval {__version__}"},
    "svg": {"Date": None, "Creator": f"releval {__version__}"},
    "pdf": {"CreationDate": None, "Creator": f"releval {__version__}"},
}
#: The salt of SVG's element ids (random per save unless set).
SVG_HASHSALT = "releval"

#: Pixel density of saved PNGs when none is given: sharp on screen and in print, a few hundred KB at most.
DEFAULT_DPI = 150


class MatplotlibMissing(RelevalError, ImportError):
    """A figure was asked for but matplotlib (the `plot` extra) is not installed.

    A RelevalError, so the command line prints one line and exits 2; an ImportError for Python callers."""


def require_matplotlib(what: str = "this figure", hint: str = "") -> Any:
    """The `matplotlib` module, or MatplotlibMissing naming `what` needs it and how to install it (`hint` is
    added in the parentheses, e.g. "or drop --figure").

    Commands call it before any output is written, so a missing extra fails early and leaves nothing behind."""
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401 - the canvas every figure uses
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        extra = f" ({hint})" if hint else ""
        raise MatplotlibMissing(f"{what} needs matplotlib: pip install 'releval[plot]'{extra}") from None
    return matplotlib


def new_figure(figsize: tuple[float, float], *, what: str = "this figure", **kwargs: Any) -> Figure:
    """An empty Figure of `figsize` inches on its own Agg canvas (no pyplot); `kwargs` go to `Figure`."""
    require_matplotlib(what)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, **kwargs)
    FigureCanvasAgg(fig)
    return fig


def figure_format(path: str | os.PathLike[str], option: str = "figure") -> str:
    """The format a figure file is saved in, from its suffix (.png, .svg, .pdf, any case).

    Anything else is an OptionError naming the suffix and `option`: a file named .jpg that held PNG bytes would
    mislead every program that opens it."""
    suffix = Path(path).suffix
    fmt = suffix.lower().lstrip(".")
    if fmt not in FIGURE_FORMATS:
        shown = f"suffix {suffix!r}" if suffix else "no suffix"
        choices = ", ".join(f".{f}" for f in FIGURE_FORMATS)
        raise OptionError(f"{option} '{path}': {shown}; a figure is saved as {choices}", option=option)
    return fmt


def figure_bytes(fig: Figure, format: str = "png", *, dpi: float | None = None) -> bytes:
    """The figure as PNG, SVG or PDF bytes, the same bytes for the same figure (see the module's notes).

    `dpi`: pixel density of a PNG (default `DEFAULT_DPI`); SVG and PDF are vector formats (their embedded images
    would use it)."""
    if format not in FIGURE_FORMATS:
        raise OptionError(f"figure format {format!r} is not one of {', '.join(FIGURE_FORMATS)}", option="format")
    matplotlib = require_matplotlib()
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": SVG_HASHSALT}):
        fig.savefig(buf, format=format, dpi=dpi or DEFAULT_DPI, metadata=SAVE_METADATA[format])
    return buf.getvalue()


def settle_layout(fig: Figure) -> Figure:
    """Lay the figure out with its layout engine until it settles, then fix that layout (no engine any more).

    Constrained layout starts each pass from where the last one left the axes, and settles on its second (a legend
    or a colorbar outside the axes is measured on the first); rendered at another size, as PNG, SVG and PDF are, it
    would move things again on every save. Fixed, the layout is in fractions of the figure, and every save of the
    figure, at any dpi and in any format, gives the same bytes. Call `fig.set_layout_engine("constrained")` to
    have it laid out again after changing it."""
    for _ in range(2):
        fig.draw_without_rendering()
    if hasattr(fig, "set_layout_engine"):  # matplotlib >= 3.6
        fig.set_layout_engine("none")
    else:  # pragma: no cover - matplotlib 3.5
        fig.set_constrained_layout(False)  # type: ignore[attr-defined]
    return fig


def save_figure(
    fig: Figure,
    path: str | os.PathLike[str],
    *,
    dpi: float | None = None,
    what: str = "figure",
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> Path:
    """Save `fig` to `path` as PNG, SVG or PDF by its suffix, atomically and reproducibly; returns the path.

    A suffix other than .png/.svg/.pdf is an OptionError naming it (and `what`, the option a command names the
    file by). The figure is rendered to memory first and written by `releval.report.output.write_atomic` (a
    temporary file in the same folder renamed over the target): a failure, in rendering or in writing, leaves no
    file and no temporary file, and an existing target as it was. A target that is a link, a directory or a device,
    or one of `inputs` (the files the run read), is refused (OutputError)."""
    fmt = figure_format(path, what)
    data = figure_bytes(fig, fmt, dpi=dpi)
    write_atomic(path, data, what=what, inputs=inputs)
    return Path(path)


# ------------------------------------------------------------------------------------------- shared drawing helpers


def percent_axis(axis: Any, decimals: int | None = None) -> None:
    """Tick labels of `axis` (values in percent) shown with a % sign."""
    from matplotlib.ticker import PercentFormatter

    axis.set_major_formatter(PercentFormatter(100, decimals=decimals))


def class_ticks(ax: Any, labels: list[str], *, axis: str = "x") -> None:
    """Class names as the ticks of a categorical axis: every one shown; on x turned upright when they are many or
    long, slanted when a few are longer than a word's width, so that none overlaps its neighbour."""
    positions = list(range(len(labels)))
    if axis == "x":
        ax.set_xticks(positions)
        longest = max((len(x) for x in labels), default=0)
        if len(labels) > 8 or longest * len(labels) > 60:
            ax.set_xticklabels(labels, rotation=90, fontsize=_tick_size(len(labels)))
        elif longest > 6:
            ax.set_xticklabels(labels, rotation=30, ha="right", rotation_mode="anchor")
        else:
            ax.set_xticklabels(labels)
        ax.set_xlim(-0.6, len(labels) - 0.4)
    else:
        ax.set_yticks(positions)
        ax.set_yticklabels(labels, fontsize=_tick_size(len(labels)))


def _tick_size(n: int) -> float:
    """Font size of n class names: smaller as they get many, never below 6 pt."""
    return 9.0 if n <= 20 else 8.0 if n <= 35 else 7.0 if n <= 50 else 6.0


def metric_name(metric: str, beta: float | str | None) -> str:
    """'F1' for F with β = 1, 'F0.5' and so on; precision and recall by their names."""
    if metric != "f":
        return metric.capitalize()
    try:
        b = float(beta) if beta is not None else 1.0
    except ValueError:
        b = 1.0
    return f"F{b:g}"


def title_with(base: str, dataset: str | None) -> str:
    """`base`, followed by 'on <dataset>' when a dataset is named."""
    return f"{base} on {dataset}" if dataset else base
