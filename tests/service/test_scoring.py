"""The service's pure parts, without a server: the cells of a measure do not depend on which other measures were
computed with them (so a backfill signs and draws as the first scoring did), Holm's tie groups against
statsmodels, the stored label packing, the upload guards and the database URL."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from statsmodels.stats.multitest import multipletests
from tests.conftest import SEMEVAL_KEY, semeval_predictions

from releval.core.errors import InputError, OptionError
from releval.data.labels import load_labels
from releval.service import scoring
from releval.service.setup import database_settings

ALL = ["micro", "weighted", "dodrans", "entropy", "macro", "power:0.5"]


@pytest.fixture(scope="module")
def semeval() -> tuple[list[str], list[str], list[str]]:
    gold = load_labels(SEMEVAL_KEY)
    pred = load_labels(semeval_predictions("cnn"), role="pred")
    spec = scoring.BenchmarkSpec.from_dict({"negative": "Other"}, resamples=300)
    return list(gold.ids), list(gold.labels), scoring.align_upload(gold, pred, spec.config)


def test_a_measure_alone_equals_the_measure_among_all(semeval) -> None:
    ids, gold, pred = semeval
    spec = scoring.BenchmarkSpec.from_dict({"negative": "Other"}, resamples=300)
    together = scoring.score_cells(gold, pred, spec, ALL, ids=ids)
    for m in ALL:
        alone = scoring.score_cells(gold, pred, spec, [m], ids=ids)[m]
        assert alone == together[m], m
        assert f"|average:{m}|" in alone.signature and "|resamples:300|" in alone.signature
    assert together["micro"].ci_low < together["micro"].value < together["micro"].ci_high


def test_cells_of_aligned_lists_equal_those_of_id_mappings(semeval) -> None:
    """The cells are computed on the aligned lists (by position): the same F and interval as the {id: label}
    mappings the command line reads, whose signature (alignment:id) the cell carries."""
    from releval.significance.compare import paired_table

    ids, gold, pred = semeval
    spec = scoring.BenchmarkSpec.from_dict({"negative": "Other"}, resamples=300)
    cells = scoring.score_cells(gold, pred, spec, ALL, ids=ids)
    g, p = dict(zip(ids, gold)), dict(zip(ids, pred))
    table = paired_table(g, {"a": p, "b": p}, spec.config_for(ALL), spec.test_config())
    for row in table.rows:
        cell = cells[row.metric]
        assert (cell.value, cell.ci_low, cell.ci_high) == (row.score_a, *row.ci_a)
        assert cell.signature == scoring.cell_signature(table.signature, row.metric)
    positional = scoring.score_cells(gold, pred, spec, ["micro"])["micro"]
    assert positional.signature == cells["micro"].signature.replace("|alignment:id|", "|alignment:position|")


def test_tie_groups_are_holm_as_statsmodels_computes_it() -> None:
    raw = {"a": 0.001, "b": 0.2, "c": 0.03, "d": 0.04}
    spec = scoring.BenchmarkSpec()
    tests = scoring.tie_groups(raw, spec)
    expected = multipletests(list(raw.values()), method="holm")[1]
    assert [t.p_adjusted for t in tests] == pytest.approx(list(expected), abs=1e-15)
    assert [t.tied for t in tests] == [bool(p >= 0.05) for p in expected] == [False, True, True, True]


def test_tie_marks_the_resamples_cannot_decide_are_undecided() -> None:
    """Issue 33: 60 entries compared with the best by 999 paired bootstraps: Holm's smallest adjusted p is
    60/1000 = 0.06 ≥ 0.05, so none can differ from the best — undecided, not "tied"; entries compared by Welch's t
    (no floor) stay decided; 40 entries (0.04 < 0.05) are decided."""
    spec = scoring.BenchmarkSpec(resamples=999)
    floor = 1 / 1000
    sixty = {f"e{k}": floor for k in range(60)}
    assert [t.tied for t in scoring.tie_groups(sixty, spec)] == [None] * 60
    mixed = scoring.tie_groups({**sixty, "w": 1e-9}, spec, resampled=list(sixty))
    assert [t.tied for t in mixed][-1] is False and all(t.tied is None for t in mixed[:-1])
    forty = {f"e{k}": floor for k in range(40)}
    assert [t.tied for t in scoring.tie_groups(forty, spec)] == [False] * 40  # Holm: 40 × 0.001 = 0.04 < 0.05


def test_packed_labels_keep_any_character() -> None:
    labels = ["A", "B\nC", "", "ü\t\u2028", "\\n"]
    assert scoring.unpack_labels(scoring.pack_labels(labels)) == labels


@pytest.mark.parametrize(
    ("filename", "shown"),
    [
        ("../../etc/passwd", "passwd"),
        ("C:\\x\\pred.jsonl", "pred.jsonl"),
        ("<script>.txt", "script.txt"),
        ("", "upload"),
    ],
)
def test_upload_names_are_reduced_to_a_safe_base(filename: str, shown: str) -> None:
    assert scoring.safe_name(filename) == shown


def test_gzip_uploads_are_bounded() -> None:
    assert scoring.gunzip(gzip.compress(b"1\tA\n"), "p.gz") == b"1\tA\n"
    with pytest.raises(InputError, match=r"p.gz: the gzip file expands to more than 1000 bytes"):
        scoring.gunzip(gzip.compress(b"0" * 10_000), "p.gz", limit=1000)
    with pytest.raises(InputError, match=r"p.gz: not a readable gzip file \(truncated\)"):
        scoring.gunzip(gzip.compress(b"abc" * 100)[:-12], "p.gz")


def test_unknown_measures_and_settings_are_refused() -> None:
    assert scoring.check_measure(" power:0.50 ") == "power:0.5"
    with pytest.raises(OptionError, match="unknown measure 'f1'"):
        scoring.check_measure("f1")
    with pytest.raises(OptionError, match="unknown benchmark setting"):
        scoring.BenchmarkSpec.from_dict({"weightings": ["macro"]})


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://h/db", "only sqlite:/// and postgresql:// are supported"),
        ("sqlite://", "write sqlite:///relative.db"),
        ("postgresql://h:5432/", "names no database"),
    ],
)
def test_database_urls(url: str, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        database_settings(url, Path("."))
    pg = database_settings("postgresql://me:p%40ss@db:6543/board", Path("."))
    assert (pg["USER"], pg["PASSWORD"], pg["HOST"], pg["PORT"], pg["NAME"]) == ("me", "p@ss", "db", "6543", "board")


def test_the_submit_command_lists_every_label_format() -> None:
    from releval.commands.service import LABEL_FORMAT_NAMES
    from releval.data.labels import FORMATS

    assert LABEL_FORMAT_NAMES == FORMATS
