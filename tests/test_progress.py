"""The progress bar of the long commands (issue 14): the library's callbacks count every step, the bar never
changes a result, and it is drawn (with an ETA) on a terminal only.

The library side: `compare_paired`, `dataset_tests` and `simulate` call `progress` with increments that sum to
the total the command gives its bar, and return the same result with or without it. The command side
(releval.commands.progress): with stderr captured (not a terminal) a run writes to stderr exactly what a run with
`--no-progress` writes; with stderr on a pseudo-terminal the bar appears with its ETA, stdout is unchanged, and
`--no-progress` or RELEVAL_NO_PROGRESS=1 keep the terminal clean.
"""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.conftest import REPO, SEMEVAL_KEY, semeval_predictions

from releval.commands.progress import NO_PROGRESS_VARIABLE, progress_bar, progress_wanted
from releval.core.errors import OptionError
from releval.replicability.analysis import dataset_tests
from releval.replicability.simulation import simulate, simulate_scenario
from releval.significance.compare import compare_paired, paired_steps, system_pairs
from releval.significance.config import SignificanceConfig


class Counter:
    """A progress callback that records every increment."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, n: int) -> None:
        self.calls.append(n)

    @property
    def total(self) -> int:
        return sum(self.calls)


def _labels(path: Path) -> dict[str, str]:
    rows = (line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {r[0]: r[1].strip() for r in rows}


@pytest.fixture(scope="module")
def semeval() -> tuple[list[str], dict[str, list[str]]]:
    """The bundled SemEval-2010 Task 8 test key and three systems' predictions, aligned by id."""
    gold = _labels(SEMEVAL_KEY)
    ids = sorted(gold, key=int)
    systems = {s: _labels(semeval_predictions(s)) for s in ("crcnn", "attcnn", "cnn")}
    return [gold[i] for i in ids], {s: [p[i] for i in ids] for s, p in systems.items()}


def _quarters(gold: list[str], a: list[str], b: list[str], n: int = 3) -> list[tuple[str, list, list, list]]:
    return [(f"Q{k}", gold[k::n], a[k::n], b[k::n]) for k in range(n)]


# --- the library: increments sum to the total, and the result does not depend on the callback ----------------


@pytest.mark.parametrize("test", ["bootstrap", "randomization", "mcnemar"])
def test_dataset_tests_count_one_step_per_dataset_read_and_tested(semeval, test: str) -> None:
    gold, systems = semeval
    datasets = _quarters(gold, systems["crcnn"], systems["cnn"])
    counter = Counter()
    with_bar = dataset_tests(datasets, test=test, resamples=200, seed=3, progress=counter)
    assert counter.calls == [1] * (2 * len(datasets))
    assert with_bar == dataset_tests(datasets, test=test, resamples=200, seed=3)


def test_simulate_counts_every_repetition_of_every_scenario_block_by_block() -> None:
    counter = Counter()
    with_bar = simulate(4500, 7, progress=counter)
    assert counter.calls == [2000, 2000, 500] * 2  # blocks of 2000 repetitions, per scenario
    assert counter.total == 4500 * 2
    assert with_bar == simulate(4500, 7)
    one = Counter()
    simulate_scenario("independent", 10, chunk=4, progress=one)
    assert one.calls == [4, 4, 2]


@pytest.mark.parametrize(
    ("names", "tests", "baseline"),
    [
        (("crcnn", "cnn"), ("bootstrap", "randomization"), None),  # one pair: the pair engine
        (("crcnn", "attcnn", "cnn"), ("bootstrap", "randomization", "mcnemar"), None),  # the joint bootstrap
        (("crcnn", "attcnn", "cnn"), ("bootstrap", "sign"), "cnn"),
        (("crcnn", "attcnn", "cnn"), ("randomization",), None),
    ],
)
def test_compare_counts_every_resample_and_every_correctness_test(semeval, names, tests, baseline) -> None:
    gold, systems = semeval
    chosen = {n: systems[n] for n in names}
    config = SignificanceConfig(tests, resamples=200, seed=5)
    counter = Counter()
    table = compare_paired(gold, chosen, test=config, baseline=baseline, progress=counter)
    n_pairs = len(system_pairs(list(names), baseline))
    resampling = sum(t in ("bootstrap", "randomization") for t in tests)
    assert counter.total == n_pairs * (200 * resampling + len(tests) - resampling) == paired_steps(n_pairs, config)
    assert table.to_dict() == compare_paired(gold, chosen, test=config, baseline=baseline).to_dict()
    assert compare_paired(gold, chosen, test=config, baseline=baseline, progress=False).to_dict() == table.to_dict()


def test_a_long_compare_moves_the_bar_block_by_block(semeval) -> None:
    """Issue 23: the bar of a long compare sat at 0/N until the end. With 3 systems the joint bootstrap draws in
    blocks of JOINT_BLOCK_ELEMENTS // width resamples (2**20 // 510 = 2,056 here: the width is the larger of the
    510 joint cells of the three SemEval systems and 3 systems × 3 × 19 labels), each block counting for the 3
    pairs; then randomization, per pair, draws its 5,000 resamples in one block (4·10^6 // its cells), and
    McNemar counts 1 per pair."""
    from releval.metrics.joint_cells import JOINT_BLOCK_ELEMENTS, encode_systems, joint_cells_from_labels

    gold, systems = semeval
    _, g, codes = encode_systems(gold, [systems[n] for n in ("crcnn", "attcnn", "cnn")])
    cells = joint_cells_from_labels(g, codes, int(codes.max()) + 1)
    block = JOINT_BLOCK_ELEMENTS // max(cells.n_cells, 3 * 3 * (int(codes.max()) + 1))
    config = SignificanceConfig(("bootstrap", "randomization", "mcnemar"), resamples=5000, seed=5)
    counter = Counter()
    compare_paired(gold, {n: systems[n] for n in ("crcnn", "attcnn", "cnn")}, test=config, progress=counter)
    full, rest = divmod(5000, block)
    assert counter.calls == [3 * block] * full + [3 * rest] + [5000, 1] * 3
    running = [sum(counter.calls[: k + 1]) for k in range(len(counter.calls))]
    assert running == sorted(set(running)) and running[-1] == 3 * (5000 + 5000 + 1)


def test_score_counts_one_step_per_system_as_the_task_scores_it() -> None:
    """`releval score` hands the task's `score_files` its systems through `Counted`: one step each time the task
    is done with a system, 5 in all for 5 systems, and the same results as the plain list."""
    from releval.commands.progress import Counted
    from releval.registry import get_task

    task = get_task("rc")
    config = task.make_config()
    systems = [(None, semeval_predictions(s)) for s in ("crcnn", "attcnn", "cnn", "attblstm", "rbert")]
    counter = Counter()
    seen: list[int] = []

    def advance(n: int) -> None:
        counter(n)
        seen.append(len(counter.calls))

    counted = task.score_files(SEMEVAL_KEY, Counted(systems, advance), config)
    assert counter.calls == [1] * 5 and seen == [1, 2, 3, 4, 5]
    assert [r.to_dict() for r in counted] == [r.to_dict() for r in task.score_files(SEMEVAL_KEY, systems, config)]


def test_compare_refuses_a_progress_that_cannot_be_called(semeval) -> None:
    gold, systems = semeval
    with pytest.raises(OptionError, match="progress: expected a callable"):
        compare_paired(gold, {n: systems[n] for n in ("crcnn", "cnn")}, progress=True)  # type: ignore[arg-type]


# --- the command side: when a bar is wanted ------------------------------------------------------------------


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_a_bar_is_wanted_on_a_terminal_unless_turned_off() -> None:
    on, off = _Stream(True), _Stream(False)
    assert progress_wanted(None, on, {}) is True
    assert progress_wanted(None, off, {}) is False
    assert progress_wanted(None, on, {NO_PROGRESS_VARIABLE: "1"}) is False
    assert progress_wanted(None, on, {NO_PROGRESS_VARIABLE: "0"}) is True
    assert progress_wanted(None, on, {NO_PROGRESS_VARIABLE: ""}) is True
    assert progress_wanted(False, on, {}) is False
    assert progress_wanted(True, off, {NO_PROGRESS_VARIABLE: "1"}) is True  # asked for: drawn if a terminal


def test_no_bar_and_no_rich_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_bar(10, "testing", show=True) as advance:  # pytest's captured stderr is not a terminal
        assert advance is None
    with progress_bar(0, "testing", show=True) as advance:
        assert advance is None
    assert capsys.readouterr().err == ""


# --- the command line, stderr captured: nothing extra --------------------------------------------------------


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (NO_PROGRESS_VARIABLE, "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    env.update(TERM="xterm-256color", COLUMNS="120", LINES="40", **extra)
    return env


@pytest.fixture(scope="module")
def commands(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """A from-predictions run on quarters of SemEval (one dataset's sign is reversed: a warning on stderr), a
    compare of three systems and a simulation, each a second or two."""
    folder = tmp_path_factory.mktemp("progress")
    key = SEMEVAL_KEY.read_text(encoding="utf-8").splitlines()
    files = {
        "gold": key,
        **{s: semeval_predictions(s).read_text(encoding="utf-8").splitlines() for s in ("crcnn", "cnn")},
    }
    datasets = []
    for k in range(3):
        for name, lines in files.items():
            (folder / f"{name}_{k}.txt").write_text("\n".join(lines[k::3]) + "\n", encoding="utf-8")
        a, b = ("crcnn", "cnn") if k else ("cnn", "crcnn")
        datasets += ["-d", f"Q{k}={folder / f'gold_{k}.txt'},{folder / f'{a}_{k}.txt'},{folder / f'{b}_{k}.txt'}"]
    compare = ["compare", str(SEMEVAL_KEY), "-t", "bootstrap,randomization", "-R", "1000"]
    for system in ("crcnn", "attcnn", "cnn"):
        compare += ["-s", f"{system}={semeval_predictions(system)}"]
    systems = [str(semeval_predictions(s)) for s in ("crcnn", "attcnn", "cnn", "attblstm", "rbert")]
    return {
        "score": ["score", str(SEMEVAL_KEY), *systems],
        "from-predictions": ["replicability", "from-predictions", *datasets, "-R", "2000"],
        "compare": compare,
        "simulate": ["replicability", "simulate", "--reps", "6000"],
    }


def _run(argv: list[str], **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "releval", *argv], capture_output=True, text=True, cwd=REPO, env=_env(**extra)
    )


@pytest.mark.parametrize("name", ["score", "from-predictions", "compare", "simulate"])
def test_a_captured_stderr_gets_exactly_what_no_progress_writes(commands, name: str) -> None:
    plain = _run([*commands[name], "--no-progress"])
    assert plain.returncode == 0, plain.stderr
    for extra in ([], ["--progress"]):
        run = _run([*commands[name], *extra])
        assert run.returncode == 0, run.stderr
        assert (run.stdout, run.stderr) == (plain.stdout, plain.stderr)
    if name == "from-predictions":
        assert "warning: mixed effect signs" in plain.stderr  # stderr holds something to compare


# --- the command line on a pseudo-terminal: the bar and its ETA ----------------------------------------------

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
ETA = re.compile(r"eta\s+\d+:\d\d:\d\d")


def _on_terminal(argv: list[str], tmp_path: Path, **extra: str) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal and stdout to a file: (exit status, stdout, what the terminal got)."""
    pty = pytest.importorskip("pty")
    out = tmp_path / "stdout.txt"
    master, slave = pty.openpty()
    with out.open("wb") as stdout:
        proc = subprocess.Popen(
            [sys.executable, "-m", "releval", *argv], stdout=stdout, stderr=slave, cwd=REPO, env=_env(**extra)
        )
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        status = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return status, out.read_text(encoding="utf-8"), seen.decode("utf-8", "replace")


@pytest.mark.parametrize("name", ["score", "from-predictions", "compare", "simulate"])
def test_a_terminal_sees_the_bar_with_its_eta_and_stdout_is_unchanged(commands, name: str, tmp_path: Path) -> None:
    plain = _run([*commands[name], "--no-progress"])
    status, stdout, terminal = _on_terminal(commands[name], tmp_path)
    assert status == 0, terminal
    assert stdout == plain.stdout
    text = ANSI.sub("", terminal)
    assert ETA.search(text), text[-2000:]
    description = {
        "score": "scoring",
        "from-predictions": "testing datasets",
        "compare": "comparing",
        "simulate": "simulating",
    }[name]
    assert description in text
    # score: 5 systems; compare: 3 pairs × (1,000 bootstrap + 1,000 randomization resamples)
    total = {"score": "5/5", "from-predictions": "6/6", "compare": "6000/6000", "simulate": "12000/12000"}[name]
    assert total in text  # the steps sum to the bar's total: it ends full
    for line in plain.stderr.splitlines():  # the warnings still reach the terminal, after the bar
        assert line in text


@pytest.mark.parametrize("off", [{"argv": ["--no-progress"]}, {"env": {NO_PROGRESS_VARIABLE: "1"}}], ids=str)
def test_no_progress_and_the_variable_keep_the_terminal_clean(commands, off: dict, tmp_path: Path) -> None:
    argv = [*commands["simulate"], *off.get("argv", [])]
    status, stdout, terminal = _on_terminal(argv, tmp_path, **off.get("env", {}))
    assert status == 0
    assert terminal == ""
    assert stdout == _run([*commands["simulate"], "--no-progress"]).stdout
