"""docs/exit-codes-and-limits.md is true: every exit code its table documents is the one `releval.cli.main` returns
(run in-process) in a case the table's row names, and every input limit's default in its table equals the code's.

A row of either table without a check here fails (`test_every_row_is_checked`), so the page cannot grow a claim
that nothing tests.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from conftest import EXAMPLES
from releval import cli
from releval.core.errors import MAX_ERRORS, MAX_MESSAGE, InputError
from releval.data import decoding, io, labels

DOC = Path(__file__).resolve().parents[1] / "docs" / "exit-codes-and-limits.md"
KEY = EXAMPLES / "semeval2010_task8" / "test_key_directed.txt"
CNN = EXAMPLES / "semeval2010_task8" / "onehaitao_cnn.txt"


def _table(heading: str) -> list[list[str]]:
    """The rows (cells) of the first table after `heading`."""
    text = DOC.read_text(encoding="utf-8").split(heading, 1)[1]
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif rows:
            break
    return rows[1:]  # the header row


def exit_rows() -> dict[int, str]:
    """code → its row's meaning (a row of several codes gives each)."""
    out = {}
    for code_cell, meaning in _table("## Exit codes"):
        for code in code_cell.split(","):
            out[int(code)] = meaning
    return out


# ------------------------------------------------------------------------------------------------ the exit codes


def _score(monkeypatch: pytest.MonkeyPatch, effect: Callable[[], Any] | None = None) -> int:
    """`releval score KEY CNN`, with `effect` run where the command looks up its task (after the signal handlers
    are installed, before anything is read)."""
    if effect is not None:
        import releval.registry

        def looked_up(*args: Any, **kwargs: Any) -> Any:
            effect()
            raise AssertionError("the effect should have ended the run")

        monkeypatch.setattr(releval.registry, "get_task", looked_up)
    return cli.main(["score", str(KEY), str(CNN)])


def _signal(signum: int) -> Callable[[], None]:
    def send() -> None:
        os.kill(os.getpid(), signum)
        time.sleep(5)  # the handler raises here

    return send


def _raise(exc: BaseException) -> Callable[[], None]:
    def effect() -> None:
        raise exc

    return effect


class _Client:
    """A board client whose run ends in `status` (releval.service.client.Client's submit and wait)."""

    status = "queued"

    def __init__(self, url: str, token: str) -> None:
        pass

    def submit(self, *args: Any) -> dict[str, Any]:
        return {"run": 7, "status": self.status}

    def wait(self, run: int, seconds: float) -> dict[str, Any]:
        return {"run": run, "status": self.status}


def _submit(monkeypatch: pytest.MonkeyPatch, status: str) -> int:
    import releval.service.client

    monkeypatch.setattr(releval.service.client, "Client", type("C", (_Client,), {"status": status}))
    argv = ["submit", str(CNN), "--board", "http://127.0.0.1:9", "--token", "t", "--benchmark", "b", "--entry", "e"]
    return cli.main([*argv, "--wait", "0.1"])


def _worker_stopped(monkeypatch: pytest.MonkeyPatch, tmp: Path) -> int:
    """`releval worker` whose job loop gets SIGTERM: the real command and its signal handling, without a database
    (the setup and the queue replaced)."""
    import releval.commands.service
    import releval.service
    import releval.service.server

    def work(poll: float = 0.2, burst: bool = False) -> int:
        _signal(signal.SIGTERM)()
        return 0

    queue = types.ModuleType("releval.service.queue")
    queue.work = work  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "releval.service.queue", queue)
    monkeypatch.setattr(releval.service, "queue", queue, raising=False)
    monkeypatch.setattr(releval.commands.service, "_start", lambda *a: None)
    monkeypatch.setattr(releval.service.server, "_one_line_logs", lambda: None)
    return cli.main(["worker"])


def _audit_error(monkeypatch: pytest.MonkeyPatch, tmp: Path) -> int:
    """`audit run` of a prediction file with a line that is not `<id>\\t<label>`: an error finding."""
    pred = tmp / "pred.txt"
    pred.write_text(CNN.read_text().replace("8001\t", "8001 ", 1))
    return cli.main(["audit", "run", str(KEY), str(pred)])


@pytest.fixture
def default_signals() -> Any:
    """SIGHUP, SIGTERM and SIGINT at their defaults (a suite started under nohup ignores SIGHUP, and releval leaves
    an ignored signal ignored), restored afterwards."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT)}
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    for s, handler in saved.items():
        signal.signal(s, handler)


#: (code, words of its row that name the case, the case run in-process, the first stderr line's start or None).
CASES: list[tuple[int, str, Callable[..., int], str | None]] = [
    (0, "success", lambda mp, tmp: _score(mp), None),
    (0, "`releval worker` stopped by SIGTERM", _worker_stopped, None),
    (1, "`audit` found an error", _audit_error, None),
    (2, "a malformed file", lambda mp, tmp: cli.main(["score", str(KEY), str(KEY.parent)]), "error: "),
    (
        2,
        "`submit --wait`: the run was stored but its scoring failed",
        lambda mp, tmp: _submit(mp, "failed"),
        "error: run 7",
    ),
    (3, "out of memory", lambda mp, tmp: _score(mp, _raise(MemoryError())), "error: out of memory while running"),
    (
        3,
        "an internal error",
        lambda mp, tmp: _score(mp, _raise(KeyError("x"))),
        "error: internal error (KeyError: 'x')",
    ),
    (
        3,
        "`submit --wait`: the wait ended with the run still queued",
        lambda mp, tmp: _submit(mp, "queued"),
        "error: run 7",
    ),
    (130, "SIGINT", lambda mp, tmp: _score(mp, _signal(signal.SIGINT)), "error: interrupted"),
    (143, "SIGTERM", lambda mp, tmp: _score(mp, _signal(signal.SIGTERM)), "error: terminated by SIGTERM"),
    (129, "SIGHUP", lambda mp, tmp: _score(mp, _signal(signal.SIGHUP)), "error: terminated by SIGHUP"),
    (141, "stdout was closed", lambda mp, tmp: _score(mp, _raise(BrokenPipeError())), None),
]


@pytest.mark.parametrize(("code", "words", "case", "first"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_the_documented_code_is_returned(
    code: int,
    words: str,
    case: Callable[..., int],
    first: str | None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    default_signals: None,
) -> None:
    rows = exit_rows()
    assert words in rows[code], f"docs: code {code}'s row does not name {words!r}: {rows[code]!r}"
    assert case(monkeypatch, tmp_path) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if first is not None:
        assert err.splitlines()[0].startswith(first), err
    elif code == 141:
        assert err == ""  # nothing is printed
    elif code == 0 and "worker" in words:
        assert err.splitlines() == ["releval worker stopped (SIGTERM)"]


def test_every_documented_code_has_a_case() -> None:
    assert set(exit_rows()) == {code for code, *_ in CASES}
    assert {cli.EXIT_OK, cli.EXIT_FINDINGS, cli.EXIT_BAD_INPUT, cli.EXIT_FAILED} <= set(exit_rows())


# ------------------------------------------------------------------------------------------------- the limits


def _size(text: str) -> int:
    """'4 GiB' → 4·2^30, '1,024 levels' → 1024, '9,223,372,036,854,775,807 (2^63 − 1)' → 2^63 − 1."""
    found = re.match(r"([\d,]+)\s*(KiB|MiB|GiB)?", text)
    assert found, text
    return int(found[1].replace(",", "")) * {None: 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[found[2]]


def _deepest_json() -> int:
    """The deepest JSON nesting the readers take (orjson's bound), found by trying."""
    depth = 1
    while depth < 100_000:
        try:
            decoding.parse_json(b"[" * (depth + 1) + b"]" * (depth + 1), "f.json")
        except InputError as exc:
            assert "nested more than" in exc.message
            return depth
        depth += 1 if depth >= 1000 else 100
    raise AssertionError("no nesting bound")


def _fail_fast_from(tmp_path: Path) -> int:
    """The smallest file size whose head `read_head` judges first (found on two files around the code's bound)."""
    bound = 2 * labels.EARLY_BYTES
    small, large = tmp_path / "small.tsv", tmp_path / "large.tsv"
    small.write_bytes(b"1\ta\n" * (bound // 4))  # exactly the bound: read whole
    large.write_bytes(b"1\ta\n" * (bound // 4) + b"2\n")
    assert io.read_head(small, labels.EARLY_BYTES) is None and io.read_head(large, labels.EARLY_BYTES) is not None
    return bound


#: A limit's row (its first cell) → (the code's default, the variable that sets it or "fixed").
def _limits(tmp_path: Path) -> dict[str, tuple[int, str]]:
    return {
        "bytes of one input, once read and gunzipped": (io.DEFAULT_MAX_INPUT_BYTES, f"`{io.MAX_INPUT_BYTES_VARIABLE}`"),
        "expansion of a gzip input (output over compressed bytes read)": (
            io.DEFAULT_MAX_GZIP_RATIO,
            f"`{io.MAX_GZIP_RATIO_VARIABLE}`",
        ),
        "output of a gzip input read whatever its expansion": (io.GZIP_RATIO_FLOOR, "fixed"),
        "problems listed per file (its reader stops there)": (MAX_ERRORS, "fixed"),
        "head of a large line-format file judged before the rest": (labels.EARLY_BYTES, "fixed"),
        "size from which a line-format file's head is judged first": (_fail_fast_from(tmp_path), "fixed"),
        "JSON nesting": (_deepest_json(), "fixed"),
        "an integer index, offset, sentence id or answer": (decoding.MAX_INDEX, "fixed"),
        "characters of an input value quoted in an error": (decoding.EXCERPT, "fixed"),
        "characters of one error message (the middle is elided)": (MAX_MESSAGE, "fixed"),
    }


def test_every_limit_default_is_the_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = {name: (default, how) for name, default, how in _table("## Input limits")}
    limits = _limits(tmp_path)
    assert set(rows) == set(limits), "a limit in the docs without a check here, or the other way round"
    for name, (value, how) in limits.items():
        assert (_size(rows[name][0]), rows[name][1]) == (value, how), name
    # the variables are read as documented: unset gives the default, set changes it
    monkeypatch.delenv(io.MAX_INPUT_BYTES_VARIABLE, raising=False)
    monkeypatch.delenv(io.MAX_GZIP_RATIO_VARIABLE, raising=False)
    assert (io.max_input_bytes(), io.max_gzip_ratio()) == (io.DEFAULT_MAX_INPUT_BYTES, io.DEFAULT_MAX_GZIP_RATIO)
    monkeypatch.setenv(io.MAX_INPUT_BYTES_VARIABLE, "16G")
    monkeypatch.setenv(io.MAX_GZIP_RATIO_VARIABLE, "2000")
    assert (io.max_input_bytes(), io.max_gzip_ratio()) == (16 << 30, 2000)


def test_a_number_beyond_its_bound_is_refused_with_its_digits() -> None:
    """The integer bound's row: one past it is refused without conversion, and shown with its digits."""
    assert decoding.digits_int(str(decoding.MAX_INDEX)) == decoding.MAX_INDEX
    assert decoding.digits_int(str(decoding.MAX_INDEX + 1)) is None
    assert decoding.digits_int("9" * 5000) is None
    assert decoding.shown_int(10**20) == "100000000000000000000"
    assert orjson.loads(b"[" * 2 + b"]" * 2) == [[]]  # the nesting probe's documents are JSON


def test_every_row_is_checked(tmp_path: Path) -> None:
    assert {name for name, *_ in _table("## Input limits")} == set(_limits(tmp_path))
    assert set(exit_rows()) == {code for code, *_ in CASES}
