"""`releval plot weights|per-class|bootstrap|confusion`: the figures of releval.report.figures from label files.

Each subcommand reads its files as `score` and `compare` do (same formats, same label options), draws one figure
through the library and saves it with `save_figure`: PNG, SVG or PDF by the suffix of -o/--output, atomically and
byte-for-byte reproducibly. Everything that can be refused without reading an input is refused first — the suffix,
the output path, an output that is one of the inputs, a missing matplotlib — so a bad run writes nothing.
`--data-json` also writes the plotted data (the figure data's `to_dict()`). The k̂ histogram of the replicability
simulation stays `releval replicability simulate --figure`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from releval.commands.base import PATH, Argument, Choice, Group
from releval.commands.common import check_output_target, result_warnings
from releval.commands.inputs import Inputs, input_options, task_option
from releval.commands.settings import Settings, config_of, setting_options
from releval.core.errors import InputError, OptionError, raise_all
from releval.core.options import (
    ALTERNATIVES,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    DEFAULT_WEIGHTING_NAMES,
)
from releval.core.validation import check_confidence, check_nonempty, check_resamples, check_seed
from releval.metrics.weightings import weighting_names

if TYPE_CHECKING:
    from releval.tasks.classification import ClassificationConfig, Prepared

#: Pixel density of a PNG when --dpi is not given (the library's default).
DEFAULT_DPI = 150

plot_app = Group(
    "plot",
    help="""Draw a figure from label files: class weights, per-class F, the bootstrap Δ, a confusion matrix.

    Each subcommand writes one PNG, SVG or PDF file, chosen by the suffix of -o/--output, and says on stderr what it
    wrote; --data-json also writes the plotted data as JSON. Figures need matplotlib: pip install 'releval[plot]'.
    The k̂ histogram of the replicability simulation is `releval replicability simulate --figure FILE`; the
    precision-recall curves of ranked relation facts (--task ranked) are `pr-curve`.
    Prediction files may be given as NAME=PATH to name the system in the figure (default: the file's name).
    """,
    no_args_is_help=True,
)


# ------------------------------------------------------------------------------------------------------ options


def _output_callback(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """The figure file: a known suffix and a writable target, refused while parsing, before any input is read."""
    if value is None:
        return None
    from releval.report.figures import figure_format

    figure_format(value, "--output")
    return check_output_target(value, "--output")


def _data_callback(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    return check_output_target(value, "--data-json")


def _figure_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """-o/--output (required), --data-json, --dataset and --dpi, shared by every subcommand."""
    for option in reversed(
        (
            click.option(
                "--output",
                "-o",
                "output",
                type=PATH,
                required=True,
                callback=_output_callback,
                help="The figure file; its suffix picks the format: .png, .svg or .pdf.",
            ),
            click.option(
                "--data-json",
                "data_json",
                type=PATH,
                default=None,
                callback=_data_callback,
                help="Also write the plotted data here as JSON.",
            ),
            click.option("--dataset", "dataset", default=None, help="Name the data in the figure's title."),
            click.option(
                "--dpi", "dpi", type=click.IntRange(10, 1200), default=DEFAULT_DPI, help="Pixel density of a PNG."
            ),
        )
    ):
        command = option(command)
    return command


# ------------------------------------------------------------------------------------------------------ helpers


def _config(inputs: Inputs, settings: Settings | None = None, **own: Any) -> ClassificationConfig:
    """The ClassificationConfig of the input and setting options (checked as `score` checks them), before any file
    is read."""
    from releval.registry import DEFAULT_TASK

    return config_of(DEFAULT_TASK, inputs, settings, **own)


def _system(spec: Path) -> tuple[str | None, Path]:
    """A prediction argument: PATH, or NAME=PATH as `compare --system` takes it (an existing file whose name has
    '=' in it is a path; so is a spec with a path separator before its '=')."""
    text = os.fspath(spec)
    name, sep, path = text.partition("=")
    if not sep or spec.exists() or os.sep in name or (os.altsep and os.altsep in name):
        return None, spec
    if not name.strip() or not path.strip():
        raise OptionError(f"a prediction file is given as PATH or NAME=PATH, not {text!r}")
    return name.strip(), Path(path.strip())


def _before_reading(output: Path, data_json: Path | None, dataset: str | None, inputs: Sequence[Path]) -> None:
    """What is refused before any input is read: a blank --dataset, a missing matplotlib, --data-json naming the
    figure, an output that is one of the inputs."""
    from releval.report.figures import require_matplotlib
    from releval.report.output import check_not_input

    if dataset is not None:
        check_nonempty(dataset, "--dataset")
    require_matplotlib("releval plot")
    if data_json is not None and os.path.abspath(data_json) == os.path.abspath(output):
        raise OptionError(f"--data-json '{data_json}' names the same file as --output", option="--data-json")
    check_not_input(output, inputs, "--output")
    if data_json is not None:
        check_not_input(data_json, inputs, "--data-json")


def _aligned(
    gold: Path, systems: Sequence[tuple[str | None, Path]], config: ClassificationConfig
) -> tuple[list[str], list[tuple[str, Prepared]]]:
    """Gold's labels and every system aligned with it under the Config, as `compare` aligns them; the systems are
    named by NAME= or by their file. Every system's input problems are reported together; a name used twice is
    refused."""
    from releval.data.columns import distinct
    from releval.tasks import classification as rc
    from releval.tasks.label_mistakes import check_negative_exists

    gold_file, digest = rc.load_gold(gold, config)
    gold_set = distinct(gold_file.labels)
    if config.negative not in (rc.AUTO, None) and not config.allow_absent_negative:
        check_negative_exists(config.negative, sorted(gold_set), [])
    prepared: list[tuple[str, Prepared]] = []
    errors: list[InputError] = []
    for name, path in systems:
        try:
            pred = rc.load_pred(path, config)
            one = rc.check_prepared(rc.prepare(gold_file, pred, config, digest), config, gold_set)
            prepared.append((name or rc.system_name(pred), one))
        except InputError as exc:
            errors.append(exc)
    raise_all(errors)
    names = [name for name, _ in prepared]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise OptionError(f"system name(s) used twice: {', '.join(twice)}; name the files NAME=PATH")
    return list(gold_file.labels), prepared


def _alignment_warnings(prepared: Sequence[tuple[str, Prepared]]) -> None:
    """The alignment's warnings (fills of missing predictions, ids read by position) on stderr, one line each."""
    from releval.tasks.classification import DataFacts

    for name, one in prepared:
        for w in one.warnings:
            click.echo(f"warning ({name}): {w}", err=True)
    for w in DataFacts.of(list(prepared)).warnings:
        click.echo(f"warning: {w}", err=True)


def _save(
    fig: Any,
    data: Any,
    kind: str,
    output: Path,
    data_json: Path | None,
    dpi: int,
    inputs: Sequence[Path],
    what: str,
) -> None:
    """Write the figure (and the data), then one line per file on stderr: `wrote FILE (FORMAT, what)`."""
    from releval.core.schema import header
    from releval.data.io import inputs_read
    from releval.report.figures import figure_format, save_figure
    from releval.report.output import write_atomic
    from releval.report.strict_json import dumps_strict

    read: list[str | os.PathLike[str]] = [*inputs, *inputs_read()]
    save_figure(fig, output, dpi=dpi, what="--output", inputs=read)
    click.echo(f"wrote {output} ({figure_format(output, '--output').upper()}, {what})", err=True)
    if data_json is not None:
        document = header("figure-data") | {"figure": kind, "data": data.to_dict()}
        write_atomic(
            data_json, dumps_strict(document, indent=2, ensure_ascii=False) + "\n", what="--data-json", inputs=read
        )
        click.echo(f"wrote {data_json}", err=True)


def _plural(n: int, word: str, words: str | None = None) -> str:
    """`1 class`, `2 classes`: a count and its noun."""
    return f"{n:,} {word if n == 1 else words or word + 's'}"


# ---------------------------------------------------------------------------------------------------- commands


@plot_app.command("weights")
@click.argument(
    "gold", cls=Argument, type=PATH, help="Gold file (SemEval key or blocks, TACRED JSON, TACRev JSONL, JSONL/CSV/TSV)."
)
@input_options("plot weights", ("{gold}", "-o", "{out}"), sides="gold")
@setting_options(
    "plot weights",
    ("{gold}", "-o", "{out}"),
    unused={
        "--beta": "class weights depend on gold's support only, not on F",
        "--zero-division": "class weights depend on gold's support only, not on F",
    },
)
@_figure_options
def weights_command(
    gold: Path,
    settings: Settings,
    output: Path,
    data_json: Path | None,
    dataset: str | None,
    dpi: int,
    inputs: Inputs,
) -> None:
    """The weight each weighting gives each positive class of a gold file (Harbecke et al. 2022, Fig. 1).

    The positive classes go by gold support; the negative class is in no average and is left out. The weights
    are the scorer's own (micro's per-class weight is that of weighted).
    """
    from releval.report.figures import weights_figure

    config = _config(inputs, settings)
    _before_reading(output, data_json, dataset, [gold])
    labels_read, _ = _aligned(gold, [], config)
    data, fig = weights_figure(
        labels_read, config.weightings, config.negative, entropy_n=config.entropy_n, dataset=dataset
    )
    what = f"{_plural(len(data.classes), 'class', 'classes')}, {_plural(len(data.weights), 'weighting')}"
    _save(fig, data, "weights", output, data_json, dpi, [gold], what)


@plot_app.command("per-class")
@click.argument("gold", cls=Argument, type=PATH, help="Gold file (the formats `score` reads).")
@click.argument(
    "preds",
    cls=Argument,
    type=PATH,
    nargs=-1,
    required=True,
    help="One prediction file per system, PATH or NAME=PATH.",
)
@click.option(
    "--metric",
    "metric",
    type=Choice(("f", "precision", "recall")),
    default="f",
    help="What to draw per class and average: f, precision or recall.",
)
@task_option(
    "rc",
    "rc (labels per item), docred (per relation type of DocRED submissions), chemprot-blue, chemprot-scibert "
    "(the ChemProt presets), drugprot (per DrugProt relation type; gold: its folder or relations file), or another "
    "registered task with per-class results.",
    needs="per_class",
)
@input_options("plot per-class", ("{gold}", "{pred}", "-o", "{out}"), needs="per_class", groups=("docred-files",))
@setting_options("plot per-class", ("{gold}", "{pred}", "-o", "{out}"), needs="per_class")
@_figure_options
def per_class_command(
    gold: Path,
    preds: tuple[Path, ...],
    metric: str,
    task: str,
    settings: Settings,
    output: Path,
    data_json: Path | None,
    dataset: str | None,
    dpi: int,
    inputs: Inputs,
) -> None:
    """Per-class F of one or several systems, with each system's averages beside them.

    Each system is scored as `releval score --task TASK` scores it; the classes are the positive classes with gold
    support, by support, and the averages are micro and each --weighting. For --task chemprot-blue the classes are
    the five CPR groups ('false' is the negative class), for chemprot-scibert the 13 labels, for drugprot the 13
    relation types (gold: the gold standard's folder or its relations file).
    """
    from releval.registry import get_task, tasks_with
    from releval.report.figures import per_class_figure

    the_task = get_task(task)
    per_class = the_task.per_class
    assert per_class is not None  # task_option(needs="per_class") refused a task without per-class results
    task_config = config_of(the_task, inputs, settings, among=lambda: tasks_with("per_class"))
    systems = [_system(p) for p in preds]
    _before_reading(output, data_json, dataset, [gold, *(p for _, p in systems)])
    scored = list(the_task.score_files(gold, systems, task_config))
    named = [str(getattr(r, "system", "")) for r in scored]
    twice = sorted({n for n in named if n and named.count(n) > 1})
    if twice:
        raise OptionError(f"system name(s) used twice: {', '.join(twice)}; name the files NAME=PATH")
    rows, names = per_class(scored)  # one point per class (relation type) of each result
    results: list[Any] = list(rows)
    for line in result_warnings(scored):
        click.echo(line, err=True)
    data, fig = per_class_figure(results, metric=metric, dataset=dataset, names=names)
    what = f"{_plural(len(data.classes), 'class', 'classes')}, {_plural(len(data.systems), 'system')}"
    _save(fig, data, "per-class", output, data_json, dpi, [gold, *(p for _, p in systems)], what)


def _average(value: str) -> str:
    """micro, or a weighting by its canonical name (power:0.50 → power:0.5)."""
    from releval.metrics.weightings import get_weighting

    key = value.strip().lower()
    if key == "micro":
        return key
    try:
        return get_weighting(key).name
    except OptionError:
        known = ", ".join(("micro", *weighting_names()))
        raise OptionError(f"--average: {value!r} is not one of {known}", option="--average") from None


#: plot bootstrap's arguments for one gold and two prediction files (the input and settings stages' tests).
_BOOTSTRAP_EXAMPLE = ("{gold}", "{pred}", "{pred2}", "-R", "20", "-o", "{out}")


@plot_app.command("bootstrap")
@click.argument("gold", cls=Argument, type=PATH, help="Gold file (the formats `score` reads).")
@click.argument("a", cls=Argument, type=PATH, help="Predictions of A, the baseline (PATH or NAME=PATH).")
@click.argument("b", cls=Argument, type=PATH, help="Predictions of B (PATH or NAME=PATH): Δ = F(B) − F(A).")
@click.option(
    "--average",
    "metric",
    default="micro",
    help=f"The F average resampled: micro, {', '.join(weighting_names())}.",
)
@click.option(
    "--class",
    "label",
    default=None,
    help="Resample this class's own F instead of an average (a positive class with gold items): the interval and p "
    "of its row in `compare --per-class B A` for the same seed, before the correction across classes.",
)
@click.option("--resamples", "-R", "resamples", type=int, default=DEFAULT_RESAMPLES, help="Bootstrap resamples.")
@click.option("--seed", "seed", type=int, default=DEFAULT_SEED, help="Random seed.")
@click.option("--confidence", "confidence", type=float, default=0.95, help="Level of the percentile interval.")
@click.option(
    "--alternative",
    "alternative",
    type=Choice(ALTERNATIVES),
    default="two-sided",
    help="The p-value's alternative: two-sided, greater (B > A) or less.",
)
@input_options("plot bootstrap", _BOOTSTRAP_EXAMPLE)
@setting_options("plot bootstrap", _BOOTSTRAP_EXAMPLE, unused={"--weighting": "--average names the one average drawn"})
@_figure_options
def bootstrap_command(
    gold: Path,
    a: Path,
    b: Path,
    metric: str,
    label: str | None,
    resamples: int,
    seed: int,
    confidence: float,
    alternative: str,
    settings: Settings,
    output: Path,
    data_json: Path | None,
    dataset: str | None,
    dpi: int,
    inputs: Inputs,
) -> None:
    """The paired bootstrap distribution of Δ = F(B) − F(A), with its percentile interval, Δ = 0 and p.

    The draws are those of `releval compare GOLD -s A -s B --baseline A` for the same seed: the same interval
    and p-value; with --class, those of the class's row in `releval compare GOLD B A --per-class`.
    """
    from releval.report.figures import bootstrap_figure
    from releval.significance.config import SignificanceConfig

    if label is not None:
        check_nonempty(label, "--class")
        if metric.strip().lower() != "micro":
            raise OptionError(
                "--class: one class's F is resampled, not an average: give --average or --class", option="--class"
            )
    metric = _average(metric)
    check_resamples(resamples)
    check_seed(seed)
    check_confidence(confidence)
    # compare's averages, and the one asked for (power:A) when it is not among them
    known = ("micro", *DEFAULT_WEIGHTING_NAMES)
    weightings = DEFAULT_WEIGHTING_NAMES if metric in known else (*DEFAULT_WEIGHTING_NAMES, metric)
    config = _config(inputs, settings, weightings=tuple(weightings))
    test = SignificanceConfig(("bootstrap",), alternative, resamples, seed, confidence)
    systems = [_system(a), _system(b)]
    paths = [gold, *(p for _, p in systems)]
    _before_reading(output, data_json, dataset, paths)
    gold_labels, prepared = _aligned(gold, systems, config)
    _alignment_warnings(prepared)
    (name_a, pa), (name_b, pb) = prepared
    try:
        data, fig = bootstrap_figure(
            gold_labels,
            list(pa.alignment.pred),
            list(pb.alignment.pred),
            config,
            test,
            metric=metric,
            names=(name_a, name_b),
            dataset=dataset,
            label=label,
        )
    except OptionError as exc:
        if exc.option != "class":
            raise
        raise OptionError(f"--{exc}", option="--class") from None
    score = f"F1 of class {data.metric}" if data.of_class else f"{metric}-F1"
    what = f"{score} of {name_b} minus {name_a}, {_plural(data.resamples, 'resample')}"
    _save(fig, data, "bootstrap", output, data_json, dpi, paths, what)


@plot_app.command("confusion")
@click.argument("gold", cls=Argument, type=PATH, help="Gold file (the formats `score` reads).")
@click.argument("pred", cls=Argument, type=PATH, help="Prediction file (PATH or NAME=PATH).")
@click.option("--normalize", "normalize", is_flag=True, default=False, help="Each row as % of its gold label's items.")
@click.option(
    "--label",
    "labels",
    multiple=True,
    help="Only these labels as rows and columns, in this order (repeatable; default: all).",
)
@input_options("plot confusion", ("{gold}", "{pred}", "-o", "{out}"))
@_figure_options
def confusion_command(
    gold: Path,
    pred: Path,
    normalize: bool,
    labels: tuple[str, ...],
    output: Path,
    data_json: Path | None,
    dataset: str | None,
    dpi: int,
    inputs: Inputs,
) -> None:
    """The confusion matrix of one system: gold label × predicted label, counts (log colour scale) or row shares.

    The negative class is a label like any other here; labels only predicted come after the gold labels.
    """
    from releval.report.figures import confusion_figure

    config = _config(inputs)
    systems = [_system(pred)]
    paths = [gold, systems[0][1]]
    _before_reading(output, data_json, dataset, paths)
    gold_labels, prepared = _aligned(gold, systems, config)
    _alignment_warnings(prepared)
    name, one = prepared[0]
    data, fig = confusion_figure(
        gold_labels,
        list(one.alignment.pred),
        normalize=normalize,
        labels=list(labels) or None,
        system=name,
        dataset=dataset,
    )
    what = f"{_plural(len(data.labels), 'label')}, {'rows as % of gold' if normalize else 'counts'}"
    _save(fig, data, "confusion", output, data_json, dpi, paths, what)


@plot_app.command("episodes")
@click.argument("gold", cls=Argument, type=PATH, help="Gold FewRel episodes (the formats `score --task fewrel` reads).")
@click.argument(
    "preds", cls=Argument, type=PATH, nargs=-1, required=True, help="Predictions: JSON lists of indices (NAME=PATH)."
)
@_figure_options
def episodes_command(
    gold: Path, preds: tuple[Path, ...], output: Path, data_json: Path | None, dataset: str | None, dpi: int
) -> None:
    """FewRel accuracy per N-way K-shot setting with its bootstrap interval over episodes, and per gold relation.

    Each system is scored as `releval score --task fewrel` scores it (same interval, same seed).
    """
    from releval.report.figures import episodes_figure
    from releval.tasks.fewrel import FewRelConfig, score_files

    systems = [_system(p) for p in preds]
    paths = [gold, *(p for _, p in systems)]
    _before_reading(output, data_json, dataset, paths)
    results = score_files(gold, systems, FewRelConfig())
    data, fig = episodes_figure(results, dataset=dataset)
    what = f"{_plural(len(data.settings), 'setting')}, {_plural(len(data.systems), 'system')}"
    _save(fig, data, "episodes", output, data_json, dpi, paths, what)


@plot_app.command("pr-curve")
@click.argument("gold", cls=Argument, type=PATH, help="Gold bags: OpenNRE JSON lines (h, t, relation per sentence).")
@click.argument(
    "preds",
    cls=Argument,
    type=PATH,
    nargs=-1,
    required=True,
    help="Scored predictions per system (JSON lines or TSV: h, t, relation, score), PATH or NAME=PATH.",
)
@click.option("--negative", "negative", default="auto", help="The NA relation ('auto': NA).")
@click.option(
    "--ties",
    "ties",
    type=Choice(("input-order", "average")),
    default="input-order",
    help="Equal scores: file order (OpenNRE's) or averaged over their orders.",
)
@click.option(
    "--duplicates",
    "duplicates",
    type=Choice(("refuse", "count", "max")),
    default="refuse",
    help="A (h, t, relation) predicted twice: refused, counted each time (OpenNRE's) or kept at its best score.",
)
@click.option("--at", "at", default="100,200,300", help="The N of the P@N points marked, comma-separated.")
@_figure_options
def pr_curve_command(
    gold: Path,
    preds: tuple[Path, ...],
    negative: str,
    ties: str,
    duplicates: str,
    at: str,
    output: Path,
    data_json: Path | None,
    dataset: str | None,
    dpi: int,
) -> None:
    """Precision-recall curves of ranked relation facts (`--task ranked`, NYT10 held-out), AUC in the legend.

    Each system is scored as `releval score --task ranked` scores it (same AUC, same P@N); the curve runs over the
    whole ranking, thinned for drawing.
    """
    from releval.report.figures.pr_curve import pr_curve_figure
    from releval.tasks.ranked import RankedConfig, load_facts, score

    check_nonempty(negative, "--negative")
    config = RankedConfig(negative=negative, ties=ties, duplicates=duplicates, at=at)
    systems = [_system(p) for p in preds]
    paths = [gold, *(p for _, p in systems)]
    _before_reading(output, data_json, dataset, paths)
    facts = load_facts(gold, config)
    results = []
    errors: list[InputError] = []
    for name, path in systems:
        try:
            results.append(score(facts, path, config, name))
        except InputError as exc:
            errors.append(exc)
    raise_all(errors)
    names = [r.system for r in results]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise OptionError(f"system name(s) used twice: {', '.join(twice)}; name the files NAME=PATH")
    for line in result_warnings(results):
        click.echo(line, err=True)
    data, fig = pr_curve_figure(results, dataset=dataset)
    what = f"{_plural(len(data.systems), 'system')}, {data.facts:,} gold facts"
    _save(fig, data, "pr-curve", output, data_json, dpi, paths, what)


def register(app: click.Group) -> None:
    """Add the `plot` command group."""
    app.add_command(plot_app)
