"""`releval serve`, `releval worker`, `releval token`, `releval benchmark` and `releval submit`: the leaderboard
service's command line (docs/service.md). The first four need the `service` extra (`pip install 'releval[service]'`);
`submit` is a plain HTTP client of a running board."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from releval.commands.base import PATH, Argument, Choice, Command
from releval.core.errors import OptionError, RelevalError
from releval.core.validation import check_nonempty
from releval.registry import DEFAULT_TASK

#: Label file formats (`releval.data.labels.FORMATS`, written out: listing the options must not import the
#: loaders; tests/service/test_scoring.py checks that the two agree).
LABEL_FORMAT_NAMES = (
    "semeval",
    "semeval-tsv",
    "id-tsv",
    "tacred-json",
    "id-label-json",
    "chemprot-scibert",
    "tacrev-jsonl",
    "jsonl",
    "chemprot-blue",
    "csv",
    "wide-tsv",
    "tsv",
    "labels-lines",
)
#: `releval submit --wait`'s exit status when the wait ends with the run still queued (docs/service.md): the run
#: is stored, its scores are not computed yet — neither a success (0) nor the input's fault (2).
EXIT_STILL_QUEUED = 3
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_DATA_DIR_HELP = "Directory of the default SQLite database (default: $RELEVAL_DATA_DIR or ./releval-board)."
_DB_HELP = "sqlite:///FILE or postgresql://USER@HOST:PORT/DB (default: $RELEVAL_DATABASE_URL, else SQLite)."


def _start(database_url: str | None, data_dir: Path | None) -> None:
    """Configure the service (Django, the database) or say how to install it. A --database-url that is not
    sqlite:/// or postgresql:// is refused before anything is opened."""
    if database_url is not None:
        from releval.service.setup import check_database_url

        check_database_url(database_url, "--database-url")
    try:
        import django  # noqa: F401
        import waitress  # noqa: F401
    except ImportError as exc:
        raise RelevalError(
            f"the leaderboard service needs the 'service' extra ({exc.name} is missing): pip install 'releval[service]'"
        ) from None
    from releval.service import server

    try:
        server.start(database_url, str(data_dir) if data_dir else None)
    except Exception as exc:  # a database that cannot be reached or migrated: say which and why, no traceback
        from django.db import DatabaseError

        if isinstance(exc, (DatabaseError, OSError)):
            raise RelevalError(f"cannot open the board's database: {' '.join(str(exc).split())}") from None
        raise


def check_length(value: str, option: str, longest: int) -> None:
    """A name that must be 1 to `longest` characters, not blank."""
    check_nonempty(value, option)
    if len(value) > longest:
        raise OptionError(f"{option} must be at most {longest} characters", option=option)


def _database_options(fn: Any) -> Any:
    fn = click.option("--data-dir", type=PATH, default=None, help=_DATA_DIR_HELP)(fn)
    return click.option("--database-url", default=None, help=_DB_HELP)(fn)


@click.command("serve", cls=Command)
@click.option("--host", default="127.0.0.1", help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, help="Port to listen on.")
@click.option(
    "--workers",
    type=click.IntRange(0, 64),
    default=1,
    help="In-process worker threads (0: jobs are left to `releval worker` processes).",
)
@click.option("--examples/--no-examples", default=True, help="Load the bundled SemEval-2010 Task 8 benchmark.")
@_database_options
def serve_command(
    host: str, port: int, workers: int, examples: bool, database_url: str | None, data_dir: Path | None
) -> None:
    """Start the leaderboard: submit predictions, every measure computed, a new measure re-scores every entry.

    With no settings it keeps an SQLite file in ./releval-board and does the jobs in this process; with
    RELEVAL_DATABASE_URL=postgresql://… start `releval worker` processes on as many machines as needed.
    """
    check_nonempty(host, "--host")
    _start(database_url, data_dir)
    from releval.service import server

    server.serve(host, port, workers, examples)


@click.command("worker", cls=Command)
@click.option("--burst", is_flag=True, help="Exit when the queue is empty instead of waiting for jobs.")
@_database_options
def worker_command(burst: bool, database_url: str | None, data_dir: Path | None) -> None:
    """Take the board's scoring jobs from the queue in its database and do them (as many processes as wanted)."""
    _start(database_url, data_dir)
    from releval.service import server

    done = server.work(burst=burst)
    if burst:
        click.echo(f"{done} job(s) done", err=True)


@click.command("token", cls=Command)
@click.argument("name", cls=Argument, help="The submitter's name (unique).")
@click.option("--admin", is_flag=True, help="May create benchmarks and has no daily quota.")
@_database_options
def token_command(name: str, admin: bool, database_url: str | None, data_dir: Path | None) -> None:
    """Create a submitter and print their token (shown once: the board keeps only its hash)."""
    check_length(name, "NAME", 100)
    _start(database_url, data_dir)
    from releval.service import board

    click.echo(board.create_submitter(name, admin))


@click.command("benchmark", cls=Command)
@click.argument("slug", cls=Argument, help="Short name in URLs: lower-case letters, digits, hyphens.")
@click.argument(
    "gold",
    cls=Argument,
    type=PATH,
    help="Gold file (any format releval reads, with ids); for --task drugprot its folder or relations file.",
)
@click.option(
    "--task",
    default=DEFAULT_TASK,
    help="A task of releval's registry (releval.registry.TASKS): rc (labels per item), e2e (entities and relations), "
    "or any other task with a paired comparison.",
)
@click.option(
    "--setting",
    "task_settings",
    multiple=True,
    metavar="KEY=VALUE",
    help="A setting of the task's Config (repeatable; VALUE read as JSON when it parses, else as text), e.g. "
    "--setting macro_classes=declared.",
)
@click.option(
    "--measure",
    "measures",
    multiple=True,
    metavar="NAME",
    help="A column of the board (repeatable; default: the task's defaults): one the task's Config computes under "
    "the settings, e.g. --task ranked --setting at_recall=10,30 --measure auc --measure p@10%% --measure p@30%%.",
)
@click.option("--dev", "dev", type=PATH, default=None, help="Dev gold file: runs may then submit dev predictions.")
@click.option("--title", default=None, help="Title shown on the board (default: the slug).")
@click.option("--negative", default="auto", help="Negative label; 'auto' detects no_relation/Other/NA.")
@click.option("--no-negative", is_flag=True, help="The data has no negative class.")
@click.option("--resamples", type=int, default=1000, help="Bootstrap resamples of every interval and tie test.")
@click.option("--seed", type=int, default=12345, help="Seed of the resamples (recorded in every signature).")
@_database_options
def benchmark_command(
    slug: str,
    gold: Path,
    task: str,
    task_settings: tuple[str, ...],
    measures: tuple[str, ...],
    dev: Path | None,
    title: str | None,
    negative: str,
    no_negative: bool,
    resamples: int,
    seed: int,
    database_url: str | None,
    data_dir: Path | None,
) -> None:
    """Add a benchmark to the board from its gold file (kept by the server, never served).

    A task whose gold is several files takes their folder or main file (--task drugprot: `gs-data/` or its
    relations TSV, the entities TSV and PMID list beside it): the board keeps them together; runs upload the
    predictions file alone.
    """
    from releval.core.validation import check_resamples, check_seed

    if not SLUG.fullmatch(slug):
        raise OptionError(f"SLUG {slug!r}: lower-case letters, digits and hyphens, 1 to 60", option="SLUG")
    if title is not None:
        check_length(title, "--title", 200)
    from releval.registry import get_task

    the_task = get_task(task)
    settings = parse_settings(task_settings)
    if "negative" in the_task.settings:
        settings.setdefault("negative", None if no_negative else negative)
    elif negative != "auto" or no_negative:
        raise OptionError(
            f"--negative and --no-negative: task {task!r} has no negative class setting", option="--negative"
        )
    if not no_negative:
        check_nonempty(negative, "--negative")
    check_resamples(resamples)
    check_seed(seed)
    from releval.service.board_tasks import task_of

    kind = task_of(task)
    spec = kind.spec(settings, resamples=resamples, seed=seed)  # a bad setting refused before a database exists
    for name in measures:
        kind.check_measure(name, spec)  # and a measure the settings do not compute
    data, gold_name = the_task.gold_upload(gold)
    dev_data, dev_name = the_task.gold_upload(dev) if dev is not None else (None, "dev")
    _start(database_url, data_dir)
    from releval.service import board

    try:
        bench = board.create_benchmark(
            slug,
            title or slug,
            data,
            gold_name,
            settings,
            task=task,
            measures=measures or None,
            dev_gold=dev_data,
            dev_gold_name=dev_name,
            resamples=resamples,
            seed=seed,
        )
    except board.Refused as exc:
        raise RelevalError(str(exc)) from None
    phase = "open (every detail shown)" if bench.open else "hidden test phase until its organiser closes it"
    click.echo(
        f"benchmark {bench.slug}: {bench.n_items} items, measures {', '.join(m.name for m in bench.measures.all())}"
        f"; {phase}"
    )


def parse_settings(items: Sequence[str]) -> dict[str, Any]:
    """`KEY=VALUE` pairs as a settings dict, VALUE read as JSON when it parses (3, true, ["a"]), else as text.

    >>> parse_settings(["macro_classes=declared", "beta=0.5"])
    {'macro_classes': 'declared', 'beta': 0.5}
    """
    out: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise OptionError(f"--setting {item!r}: KEY=VALUE", option="--setting")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out


@click.command("submit", cls=Command)
@click.argument("pred", cls=Argument, type=PATH, help="Prediction file (any format releval reads, keyed by id).")
@click.option("--board", "board_url", required=True, help="The board's address, e.g. http://127.0.0.1:8000.")
@click.option("--token", envvar="RELEVAL_TOKEN", required=True, help="Your token (or $RELEVAL_TOKEN).")
@click.option("--benchmark", required=True, help="The benchmark's slug.")
@click.option("--entry", required=True, help="The entry (method) name; created on its first run.")
@click.option("--seed", "run_seed", default="1", help="The run's seed (several seeds: one submission each).")
@click.option(
    "--split", type=Choice(["test", "dev"]), default="test", help="The split predicted (dev: the benchmark's dev gold)."
)
@click.option("--paper", default="", help="Paper address of the entry.")
@click.option(
    "--selection", type=Choice(["dev", "test", "unknown"]), default="unknown", help="The split that selected the model."
)
@click.option("--training-data", default="", help="What the model was trained on (e.g. train, train+dev).")
@click.option(
    "--input-format",
    type=Choice(list(LABEL_FORMAT_NAMES)),
    default=None,
    help="The file's format (default: detected); one label per line must be named: labels-lines.",
)
@click.option(
    "--wait",
    "wait_seconds",
    type=click.FloatRange(0),
    default=0.0,
    help="Wait this long for the scores (exit 2 if the run's scoring failed, 3 if it is still queued when the wait "
    "ends).",
)
def submit_command(
    pred: Path,
    board_url: str,
    token: str,
    benchmark: str,
    entry: str,
    run_seed: str,
    split: str,
    paper: str,
    selection: str,
    training_data: str,
    input_format: str | None,
    wait_seconds: float,
) -> int:
    """Submit a run's predictions to a board; prints the stored run (JSON), with its scores once computed.

    With --wait, the exit status says what the wait saw: 0 scored, 2 its scoring failed, 3 still queued when the
    wait ended (stored, but not scored yet: a script must not read it as scored).
    """
    from releval.data.io import read_bytes
    from releval.service.client import Client

    for value, option, longest in (
        (token, "--token", 200),
        (benchmark, "--benchmark", 60),
        (entry, "--entry", 100),
        (run_seed, "--seed", 40),
    ):
        check_length(value, option, longest)
    if len(training_data) > 200:
        raise OptionError("--training-data must be at most 200 characters", option="--training-data")
    if paper and not paper.startswith(("https://", "http://")):
        raise OptionError(f"--paper {paper!r} must be an http(s) address", option="--paper")
    client = Client(board_url, token)
    data = read_bytes(pred)
    fields = {
        "entry": entry,
        "seed": run_seed,
        "split": split,
        "paper_url": paper,
        "selection": selection,
        "training_data": training_data,
        **({"format": input_format} if input_format else {}),
    }
    run = client.submit(benchmark, fields, pred.name, data)
    if wait_seconds:
        run = client.wait(run["run"], wait_seconds)
    sys.stdout.write(json.dumps(run, indent=2) + "\n")
    if run.get("status") == "failed":  # stored, but its scoring failed: a script must not read it as scored
        raise RelevalError(f"run {run['run']} was stored but its scoring failed: see GET /api/v1/runs/{run['run']}")
    if wait_seconds and run.get("status") == "queued":  # the wait ended first: not a success either
        click.echo(
            f"error: run {run['run']} is still queued after waiting {wait_seconds:g} s: it is stored and will be "
            f"scored; see GET /api/v1/runs/{run['run']}",
            err=True,
        )
        return EXIT_STILL_QUEUED
    return 0


def register(app: click.Group) -> None:
    for command in (serve_command, worker_command, token_command, benchmark_command, submit_command):
        app.add_command(command)
