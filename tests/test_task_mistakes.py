"""The mistake matrix over every task family × every command that reads that task's predictions.

The cases live in tests/mistakes/ (one module per family, as data); the commands come from
releval.commands.inputs.READERS, which every command that reads gold and predictions joins when it is defined. No
mistaken input may print a number without a refusal or a warning that names the mistake.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mistakes import Files, Mistake, all_cases, registered
from releval import cli
from releval.commands.inputs import READERS

cli.register_commands([])

CASES = all_cases()


def _pairs() -> list[tuple[Mistake, str]]:
    pairs = []
    for case in CASES:
        with registered(case.plugin):
            pairs += [(case, w) for w, r in sorted(READERS.items()) if r.sides == "both" and case.task in r.tasks]
    return pairs


@pytest.mark.parametrize(("case", "words"), _pairs(), ids=lambda v: v.id if isinstance(v, Mistake) else v)
def test_every_reader_refuses_or_warns(
    case: Mistake, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with registered(case.plugin):
        _run_case(case, words, tmp_path, capsys)


def _run_case(case: Mistake, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files: Files = case.make(tmp_path)
    out = tmp_path / "out.png"
    argv = [*READERS[words].argv(str(files.gold), str(files.pred), str(files.pred2), str(out))]
    command = cli._leaf_command(argv)
    has_task = any("--task" in getattr(param, "opts", ()) for param in command.params)
    # a command that reads rc only (plot bootstrap, plot confusion) has no --task: rc is what it reads
    argv += [*(["--task", case.task] if has_task else []), *case.options]
    code = cli.main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    if words.startswith("audit"):
        if case.refused:
            assert code == 1, captured.out + captured.err
            assert re.search(rf"ERROR .*{re.escape(case.phrase)}", captured.out), captured.out
        else:
            assert re.search(rf"WARNING .*{re.escape(case.phrase)}", captured.out), captured.out
        return
    if case.refused:
        assert code == 2, captured.out + captured.err
        assert captured.out == ""  # no number of a mistaken input is shown
        assert not out.exists()
        assert case.phrase in captured.err
    else:
        assert code == 0, captured.err
        assert case.phrase in captured.err


def test_the_matrix_covers_every_family_it_lists() -> None:
    """Each case's task is one some command reads (else the case would silently run nowhere)."""
    for case in CASES:
        with registered(case.plugin):
            assert any(case.task in reader.tasks for reader in READERS.values()), case.id
