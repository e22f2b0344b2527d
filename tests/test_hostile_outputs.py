"""Hostile outputs, resources and top-level failures (issue 11): real processes, real files, real signals.

* `-o` onto a FIFO, a symbolic link, a device node or an input of the same run is refused (exit 2, one line), and
  the target is left exactly as it was;
* SIGTERM/SIGHUP/SIGINT end a run with one line and exit 128 + the signal, removing the temporary output file;
* a gzip bomb stops at the input limit (RELEVAL_MAX_INPUT_BYTES) with little memory, located at the line where the
  limit was crossed; a plain file over the limit is refused before it is read; so is an endless stream;
* an unexpected exception is one line and exit 3 (its traceback with RELEVAL_DEBUG=1), out of memory is one line
  and exit 3, a closed stdout is a quiet exit 141;
* seed comparisons with zero variance are refused or reported as undefined, and every JSON output is strict JSON.
"""

from __future__ import annotations

import errno
import gzip
import json
import math
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import one_result

from releval import cli
from releval.core.errors import InputError, OptionError, OutputError
from releval.data.io import MAX_INPUT_BYTES_VARIABLE, describe_size, max_input_bytes
from releval.report.output import write_atomic
from releval.report.strict_json import dumps_strict
from releval.significance.seeds import compare_seeds, essentially_constant

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
KEY = EXAMPLES / "semeval2010_task8" / "test_key_directed.txt"
RBERT = EXAMPLES / "semeval2010_task8" / "onehaitao_rbert.txt"
CNN = EXAMPLES / "semeval2010_task8" / "onehaitao_cnn.txt"
CONLL = EXAMPLES / "conll04" / "conll04_test_first30.json"
TYPES = EXAMPLES / "conll04" / "conll04_types.json"
LIMIT_TAIL = f"releval's limit for one input; if the file is genuine, raise the limit with {MAX_INPUT_BYTES_VARIABLE}"


def releval(*argv: str | Path, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """`python -m releval ARGV` as a real process (stdin closed), text output captured."""
    return subprocess.run(
        [sys.executable, "-m", "releval", *map(str, argv)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def error_line(stderr: str) -> str:
    """The only stderr line, which must be an `error: ` line and no traceback."""
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ") and "Traceback" not in stderr
    return lines[0]


def snapshot(path: Path) -> tuple[int, int, int, int, bytes | str | None]:
    """What a target is: its type and permission bits, inode, device number, and its content or link text."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        content: bytes | str | None = os.readlink(path)
    elif stat.S_ISREG(info.st_mode):
        content = path.read_bytes()
    else:
        content = None
    return info.st_mode, info.st_ino, info.st_rdev, info.st_nlink, content


def wait_for_reader(fifo: Path, proc: subprocess.Popen, timeout: float = 30) -> int:
    """Block until `proc` has the FIFO open for reading; return a write end (kept open: the reader then waits).

    A non-blocking open for writing fails with ENXIO while nobody reads, and succeeds once the reader is blocked
    in open(): a deterministic sign that the process is waiting on its input, past start-up.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the process never opened its FIFO input"
        time.sleep(0.01)


# --- 1. -o onto something that is not a regular file, or onto an input ------------------------------------------


def _make_target(kind: str, folder: Path) -> Path:
    target = folder / "target"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink":
        (folder / "real.txt").write_text("keep me\n", encoding="utf-8")
        target.symlink_to("real.txt")
    elif kind == "dangling symlink":
        target.symlink_to("nowhere.txt")
    elif kind == "character device":
        try:  # a null device node (1, 3) in the test's folder, never the real /dev
            os.mknod(target, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("making a device node needs CAP_MKNOD")
    return target


LINK_TAIL = "; give the file it points to, or another name"
DEVICE_TAIL = ", not a regular file; leave out --output and redirect stdout instead"


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("fifo", "it is a FIFO (named pipe)" + DEVICE_TAIL),
        ("symlink", "it is a symbolic link (to 'real.txt')" + LINK_TAIL),
        ("dangling symlink", "it is a symbolic link (to 'nowhere.txt')" + LINK_TAIL),
        ("character device", "it is a character device" + DEVICE_TAIL),
    ],
)
def test_output_onto_a_non_regular_target_is_refused_before_any_input_is_read(
    tmp_path: Path, kind: str, says: str
) -> None:
    target = _make_target(kind, tmp_path)
    fifo_input = tmp_path / "input.fifo"  # nobody writes it: a run that read its input first would block here
    os.mkfifo(fifo_input)
    before = snapshot(target)
    names = sorted(p.name for p in tmp_path.iterdir())
    proc = releval("stats", fifo_input, "-o", target, timeout=30)
    assert proc.returncode == 2
    assert error_line(proc.stderr) == f"error: cannot write --output '{target}': {says}"
    assert proc.stdout == ""
    assert snapshot(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == names


@pytest.mark.parametrize("how", ["same path", "same path spelled differently", "hard link to gold"])
def test_output_onto_an_input_of_the_run_is_refused(tmp_path: Path, how: str) -> None:
    gold, pred = tmp_path / "gold.txt", tmp_path / "pred.txt"
    shutil.copyfile(KEY, gold)
    shutil.copyfile(RBERT, pred)
    (tmp_path / "sub").mkdir()
    if how == "same path":
        target, shown = pred, ""
    elif how == "same path spelled differently":
        target, shown = tmp_path / "sub" / ".." / "pred.txt", f" ('{pred}')"
    else:
        target, shown = tmp_path / "gold-link.txt", f" ('{gold}')"
        os.link(gold, target)
    before = {p: snapshot(p) for p in (gold, pred, target)}
    proc = releval("score", gold, pred, "-o", target)
    assert proc.returncode == 2
    assert error_line(proc.stderr) == (
        f"error: cannot write --output '{target}': it is an input of this run{shown}; choose another file name"
    )
    assert {p: snapshot(p) for p in before} == before
    assert not list(tmp_path.glob(".*.tmp"))


def test_write_atomic_refuses_an_input_and_a_fifo_in_process(tmp_path: Path) -> None:
    data = tmp_path / "data.txt"
    data.write_text("original\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    other_spelling = tmp_path / "sub" / ".." / "data.txt"
    with pytest.raises(OutputError, match=r"it is an input of this run \('.*data\.txt'\)") as info:
        write_atomic(other_spelling, "replaced\n", what="--output", inputs=[data])
    assert info.value.filename == str(other_spelling)
    assert data.read_text(encoding="utf-8") == "original\n"
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(OutputError, match="it is a FIFO"):
        write_atomic(tmp_path / "pipe", b"x")
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)
    write_atomic(tmp_path / "fresh.txt", "new\n", inputs=[data])  # an unrelated target is written
    assert (tmp_path / "fresh.txt").read_text(encoding="utf-8") == "new\n"


# --- 2. signals while writing or reading -------------------------------------------------------------------------

# A run of the real `releval.cli.main` with one extra command that writes through write_atomic a payload whose
# encoding (done after the temporary file exists) announces itself and waits: a deterministic point between
# creating the temporary file and the rename, reached by the real writer, then hit by a real signal.
SLOW_WRITE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import click
    from releval import cli
    from releval.report.output import write_atomic

    class SlowText(str):
        def encode(self, *args, **kwargs):
            print("writing", flush=True)
            time.sleep(60)
            return str(self).encode(*args, **kwargs)

    @cli.app.command("slow-write")
    @click.argument("path", type=click.Path(path_type=Path))
    def slow_write(path: Path) -> None:
        write_atomic(path, SlowText("result\\n"), what="--output")

    sys.exit(cli.main(["slow-write", sys.argv[1]]))
    """
)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_between_temporary_file_and_rename_leaves_nothing_behind(tmp_path: Path, signum: int) -> None:
    target = tmp_path / "new" / "out.txt"  # its folder is made by the write, and must go again
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITE, str(target)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # releval leaves an ignored signal ignored (as under nohup, which ignores SIGHUP): give the child the
        # default disposition, so the test checks the handler whatever the suite itself was started under
        preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "writing\n"
    temporary = list((tmp_path / "new").glob(".out.txt.*.tmp"))
    assert len(temporary) == 1  # the window exists: the temporary file is there, the target is not
    assert not target.exists()
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum
    name = signal.Signals(signum).name
    assert error_line(err) == ("error: interrupted" if name == "SIGINT" else f"error: terminated by {name}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("signum", "line"),
    [(signal.SIGINT, "error: interrupted"), (signal.SIGTERM, "error: terminated by SIGTERM")],
)
def test_a_signal_while_reading_a_fifo_input_is_one_line(tmp_path: Path, signum: int, line: str) -> None:
    fifo = tmp_path / "gold.fifo"
    os.mkfifo(fifo)
    out = tmp_path / "out.txt"
    proc = subprocess.Popen(
        [sys.executable, "-m", "releval", "score", str(fifo), str(RBERT), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # the default disposition, whatever the suite was started under: a background job of a shell without job
        # control (`cmd &` in a script) inherits SIGINT ignored, and releval leaves an ignored signal ignored
        preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL),
    )
    writer = wait_for_reader(fifo, proc)
    try:
        proc.send_signal(signum)
        stdout, err = proc.communicate(timeout=30)
    finally:
        os.close(writer)
    assert proc.returncode == 128 + signum
    assert error_line(err) == line
    assert stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gold.fifo"]


# A real SIGINT, sent by the process to itself the moment `python -m releval` starts importing click (the command
# line's first module beyond the `releval` package, which Python imports before __main__ runs).
INTERRUPT_AT_IMPORT = textwrap.dedent(
    """
    import os, runpy, signal, sys
    import releval

    class InterruptAtClick:
        def find_spec(self, name, path=None, target=None):
            if name == "click":
                os.kill(os.getpid(), signal.SIGINT)
            return None

    sys.meta_path.insert(0, InterruptAtClick())
    sys.argv = ["releval", "--help"]  # `--version` alone prints without click
    runpy.run_module("releval", run_name="__main__")
    """
)


def test_ctrl_c_while_the_command_line_loads_is_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", INTERRUPT_AT_IMPORT],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as above: not inherited as ignored
    )
    assert proc.returncode == 130
    assert error_line(proc.stderr) == "error: interrupted"
    assert proc.stdout == ""  # --help never ran


# --- 3. read limits: gzip bombs, big files, endless streams ------------------------------------------------------


def _peak_rss_of(argv: list[str], env: dict[str, str]) -> tuple[int, str, int]:
    """(exit code, stderr, peak RSS in bytes) of `python -m releval ARGV`, measured by a fresh parent process
    (RUSAGE_CHILDREN of a process whose only child is the run, so no other test's child counts)."""
    probe = textwrap.dedent(
        """
        import json, resource, subprocess, sys
        proc = subprocess.run([sys.executable, "-m", "releval", *sys.argv[1:]], capture_output=True, text=True)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # KiB on Linux
        print(json.dumps([proc.returncode, proc.stderr, peak]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv], capture_output=True, text=True, env={**os.environ, **env}, timeout=120
    )
    code, err, peak = json.loads(done.stdout)
    return code, err, peak


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss units and /proc semantics are Linux's")
def test_a_gzip_bomb_stops_at_the_limit_with_little_memory(tmp_path: Path) -> None:
    line = b"0\tA\n"
    member = gzip.compress(line * (1 << 22), 9)  # 16 MiB of 4-byte lines in ~16 KB
    bomb = tmp_path / "bomb.tsv.gz"
    with bomb.open("wb") as handle:  # 64 members: 1 GiB once gunzipped, about 1 MB on disk
        for _ in range(64):
            handle.write(member)
    assert bomb.stat().st_size < 2 << 20
    limit = 32 << 20
    code, err, peak = _peak_rss_of(["score", str(bomb), str(bomb)], {MAX_INPUT_BYTES_VARIABLE: "32M"})
    assert code == 2
    first_line_past = limit // len(line) + 1  # the limit falls exactly after 2^23 whole lines
    assert error_line(err) == (
        f"error: {bomb}:{first_line_past}: decompresses to more than 32 MiB, {LIMIT_TAIL} "
        f"(e.g. {MAX_INPUT_BYTES_VARIABLE}=16G)"
    )
    assert peak < 300 << 20, f"peak RSS {peak / 2**20:.0f} MiB for a 32 MiB limit"


def test_a_gzip_input_at_exactly_the_limit_scores_like_the_plain_file(tmp_path: Path) -> None:
    raw = KEY.read_bytes()
    gz = tmp_path / "key.txt.gz"
    half = len(raw) // 2
    gz.write_bytes(gzip.compress(raw[:half]) + gzip.compress(raw[half:]))  # two members, as `cat a.gz b.gz`
    plain = releval("score", KEY, KEY)  # the limit applies to both inputs, of len(raw) bytes each
    at_limit = releval("score", gz, KEY, env={MAX_INPUT_BYTES_VARIABLE: str(len(raw))})
    assert plain.returncode == at_limit.returncode == 0
    assert at_limit.stdout == plain.stdout
    assert "100.00" in plain.stdout  # gold scored against itself
    below = releval("score", gz, KEY, env={MAX_INPUT_BYTES_VARIABLE: str(len(raw) - 1)})
    assert below.returncode == 2
    assert error_line(below.stderr).startswith(f"error: {gz}:")
    assert "decompresses to more than" in below.stderr


def test_a_plain_file_over_the_limit_is_refused_by_its_size() -> None:
    proc = releval("score", KEY, RBERT, env={MAX_INPUT_BYTES_VARIABLE: "1K"})
    assert proc.returncode == 2
    size = describe_size(KEY.stat().st_size)
    assert error_line(proc.stderr) == (
        f"error: {KEY}: is {size}, more than 1 KiB, {LIMIT_TAIL} (e.g. {MAX_INPUT_BYTES_VARIABLE}=16G)"
    )


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_an_endless_input_stream_stops_at_the_limit() -> None:
    proc = releval("stats", "/dev/zero", env={MAX_INPUT_BYTES_VARIABLE: "1M"}, timeout=30)
    assert proc.returncode == 2
    assert error_line(proc.stderr) == (
        f"error: /dev/zero: has more than 1 MiB, {LIMIT_TAIL} (e.g. {MAX_INPUT_BYTES_VARIABLE}=16G)"
    )


def test_the_limit_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MAX_INPUT_BYTES_VARIABLE, raising=False)
    assert max_input_bytes() == 4 << 30
    for text, value in [("16G", 16 << 30), ("1048576", 1 << 20), ("2 MiB", 2 << 20), ("512kb", 512 << 10)]:
        monkeypatch.setenv(MAX_INPUT_BYTES_VARIABLE, text)
        assert max_input_bytes() == value, text
    for text in ["lots", "0", "-5", "1.5G", "16X"]:
        monkeypatch.setenv(MAX_INPUT_BYTES_VARIABLE, text)
        with pytest.raises(OptionError, match=f"{MAX_INPUT_BYTES_VARIABLE} must be a positive number of bytes"):
            max_input_bytes()
    proc = releval("stats", KEY, env={MAX_INPUT_BYTES_VARIABLE: "lots"})
    assert proc.returncode == 2
    assert error_line(proc.stderr) == (
        f"error: {MAX_INPUT_BYTES_VARIABLE} must be a positive number of bytes such as 8589934592 or 8G, got 'lots'"
    )


# --- 4. the top level: internal errors, memory, stdout closed ----------------------------------------------------

# The real `releval.cli.main` with one extra command that fails the way a bug would.
FAILING = textwrap.dedent(
    """
    import sys
    import click
    from releval import cli

    @cli.app.command("fail")
    @click.argument("how")
    def fail(how: str) -> None:
        if how == "key":
            {}["missing"]
        elif how == "recursion":
            def down(n):
                return down(n + 1)
            down(0)
        elif how == "memory":
            bytearray(1 << 62)

    sys.exit(cli.main(["fail", sys.argv[1]]))
    """
)


def _fail(how: str, debug: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "RELEVAL_DEBUG": "1" if debug else "0"}
    return subprocess.run(
        [sys.executable, "-c", FAILING, how], capture_output=True, text=True, env=env, timeout=60, check=False
    )


REPORT = "please report it to the releval developers with the output of the same command run with RELEVAL_DEBUG=1"


@pytest.mark.parametrize(
    ("how", "what"),
    [("key", "KeyError: 'missing'"), ("recursion", "RecursionError: maximum recursion depth exceeded")],
)
def test_an_unexpected_exception_is_one_line_and_exit_3(how: str, what: str) -> None:
    proc = _fail(how)
    assert proc.returncode == 3
    assert error_line(proc.stderr) == f"error: internal error ({what}) in 'releval fail'; {REPORT}"
    debug = _fail(how, debug=True)
    assert debug.returncode == 3
    assert debug.stderr.startswith("Traceback (most recent call last):")
    assert debug.stderr.splitlines()[-1] == f"error: internal error ({what}) in 'releval fail'; {REPORT}"


def test_out_of_memory_is_one_line_and_exit_3() -> None:
    proc = _fail("memory")
    assert proc.returncode == 3
    assert error_line(proc.stderr) == (
        "error: out of memory while running 'releval fail': the inputs need more memory than this machine has "
        "(see docs/exit-codes-and-limits.md)"
    )


def test_a_closed_stdout_is_a_quiet_exit_141() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will read: the first write fails with EPIPE, as after `| head -1` has exited
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "releval", "stats", str(KEY)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 141
    assert proc.stderr == ""


# --- 5. zero variance over seeds, strict JSON --------------------------------------------------------------------


def test_constant_runs_with_different_means_are_refused() -> None:
    with pytest.raises(InputError) as info:
        compare_seeds([0.7, 0.7, 0.7], [0.6, 0.6, 0.6], names=("A", "B"), metric="micro")
    message = str(info.value)
    assert message.startswith("field 'system': A scores 0.7 on every one of its 3 runs and B 0.6 on every one of")
    assert "under micro" in message and "Welch's t and Cohen's d do not exist" in message


def test_constant_equal_runs_have_no_difference_and_undefined_t() -> None:
    # 0.1 + 0.1 + 0.1 != 0.3: the sample SD is ~1e-17, not 0, yet the runs are constant (R's criterion)
    assert float(np.std([0.1, 0.1, 0.1], ddof=1)) != 0.0
    assert essentially_constant(float(np.mean([0.1] * 3)), float(np.std([0.1] * 3, ddof=1)), 3, 0.1, 0.0, 2)
    for alternative in ("two-sided", "greater", "less"):
        res = compare_seeds([0.1, 0.1, 0.1], [0.1, 0.1], alternative)
        assert math.isnan(res.t) and math.isnan(res.df)
        assert res.p_value == 1.0
        assert (res.cohen_d, res.cohen_d_pooled, res.hedges_g, res.sd_a, res.sd_b) == (0.0, 0.0, 0.0, 0.0, 0.0)
        assert res.label.startswith("negligible")
        assert res.note is not None and "undefined" in res.note
    one_constant = compare_seeds([0.7, 0.7], [0.6, 0.62])  # only one side constant: well defined
    assert math.isfinite(one_constant.t) and one_constant.note is None
    assert one_constant.df == pytest.approx(1.0)


def test_the_same_run_given_as_every_seed_is_refused_by_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    code = cli.main(
        ["compare", str(KEY), "-s", f"a={RBERT},{RBERT}", "-s", f"b={CNN},{CNN}", "-f", "json", "-o", str(out)]
    )
    assert code == 2
    line = error_line(capsys.readouterr().err)
    assert "a scores 0." in line and "on every one of its 2 runs" in line and "under micro" in line
    assert not out.exists()


def test_equal_constant_seed_runs_give_strict_json_with_null_t(tmp_path: Path) -> None:
    copy = tmp_path / "rbert_copy.txt"
    shutil.copyfile(RBERT, copy)
    out = tmp_path / "out.json"
    assert (
        cli.main(
            ["compare", str(KEY), "-s", f"a={RBERT},{copy}", "-s", f"b={copy},{RBERT}", "-f", "json", "-o", str(out)]
        )
        == 0
    )
    data = one_result(strict_loads(out.read_text(encoding="utf-8")))
    micro = next(r for r in data["pairs"] if r["metric"] == "micro")
    assert (micro["t"], micro["df"], micro["p_value"], micro["p_adjusted"], micro["cohen_d"]) == (None, None, 1, 1, 0)
    assert micro["note"].startswith("a and b score ") and "zero variance and no difference" in micro["note"]
    assert micro["note"] in data["notes"]


def strict_loads(text: str) -> object:
    """json.loads that refuses NaN, Infinity and -Infinity (Python accepts them by default)."""

    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_dumps_strict_writes_null_for_non_finite_numbers() -> None:
    data = {"nan": math.nan, "list": [math.inf, -math.inf, np.float32("nan"), np.float64(0.5)], "ok": 1.5, "n": 2}
    text = dumps_strict(data)
    assert text == '{"nan": null, "list": [null, null, null, 0.5], "ok": 1.5, "n": 2}'
    assert strict_loads(text) == {"nan": None, "list": [None, None, None, 0.5], "ok": 1.5, "n": 2}
    with pytest.raises(ValueError, match="not JSON: NaN"):
        strict_loads(json.dumps(math.nan))


def test_every_json_output_is_strict_json(tmp_path: Path) -> None:
    """Every command with --format json, on bundled data and on degenerate comparisons, parsed strictly."""
    pvalues = tmp_path / "pvalues.csv"
    pvalues.write_text("dataset,p\nA,0.01\nB,0.20\nC,0.03\n", encoding="utf-8")
    result = tmp_path / "result.json"
    assert cli.main(["score", str(KEY), str(RBERT), "-f", "json", "-o", str(result)]) == 0
    copy = tmp_path / "copy.txt"
    shutil.copyfile(RBERT, copy)
    k, r, c, e = str(KEY), str(RBERT), str(CNN), str(CONLL)
    runs: list[tuple[list[str], str | type]] = [
        (["score", k, r], "results"),
        (["score", k, r, "--task", "semeval-official"], "results"),
        (["score", e, e, "--task", "e2e", "--types", str(TYPES)], "results"),
        (["stats", k], list),
        (["stats", e], "splits"),
        (["stats", e, e], "files"),
        (["compare", k, "-s", f"a={r}", "-s", f"b={copy}", "-R", "10", "-t", "bootstrap,mcnemar,sign"], "results"),
        (["compare", k, "-s", f"a={r},{c}", "-s", f"b={c},{r}"], "results"),
        (["compare", k, "-s", f"a={r},{copy}", "-s", f"b={copy},{r}"], "results"),  # zero variance, equal
        (["compare", e, "--task", "e2e", "-s", f"a={e}", "-s", f"b={e}", "-R", "10"], "results"),
        (["check-stats", "--a", "72.5±0.0", "--b", "71.5±0.0"], list),  # published SDs that round to 0
        (["replicability", "analyze", str(pvalues)], "recommended"),
        (["replicability", "from-predictions", "-d", f"x={k},{r},{c}", "-R", "10"], "recommended"),
        (["replicability", "simulate", "-r", "2"], "scenarios"),
        (["audit", "run", k, r], "findings"),
        (["audit", "compare", str(result), str(result)], list),
        (["claims", "list"], list),
        (["claims", "check", str(result)], "claims"),
    ]
    for i, (argv, expect) in enumerate(runs):
        out = tmp_path / f"out{i}.json"
        assert cli.main([*argv, "-f", "json", "-o", str(out)]) in (0, 1), argv
        data = strict_loads(out.read_text(encoding="utf-8"))
        if isinstance(expect, str):
            assert isinstance(data, dict) and expect in data, argv
        else:
            assert isinstance(data, expect) and data, argv
