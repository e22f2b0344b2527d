"""`--on-missing negative` is never silent: `compare` and `replicability from-predictions` warn on stderr and in
the document in every output format, and the Python API raises `releval.RelevalWarning` (issue 12; `score` is
checked the same way in test_cli_score_stats.py).

The data: R-BERT's SemEval-2010 Task 8 test predictions without their last 217 lines (the test key has 2717 items),
filled with the negative class 'Other'. Of the key's last 217 items, 40 are 'Other': 40 / 217 = 18.4 %.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import SEMEVAL_KEY, one_result, semeval_predictions

import releval
from releval.cli import main
from releval.tasks.classification import ClassificationConfig

RBERT, CNN, ATTCNN = (semeval_predictions(s) for s in ("rbert", "cnn", "attcnn"))
KEPT = 2500
FILLED = 2717 - KEPT  # 217
MESSAGE = "217 missing prediction(s) filled with 'Other'; 18.4 % of them are gold-negative"
CODE = "missing-filled-negative"
#: compare's macro also warns that SemEval's Entity-Destination(e2,e1) has one gold item (test_class_set.py)
RARE = "rare-classes"


@pytest.fixture(scope="module")
def part(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """R-BERT's predictions less their last 217 lines."""
    path = tmp_path_factory.mktemp("missing") / "part.txt"
    lines = RBERT.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:KEPT]), encoding="utf-8")
    return path


def test_the_counts_in_the_message_by_hand(part: Path) -> None:
    """217 key items have no prediction in part.txt, and 40 of them are 'Other' (18.4 %)."""
    key = dict(line.split("\t") for line in SEMEVAL_KEY.read_text(encoding="utf-8").splitlines())
    kept = {line.split("\t")[0] for line in part.read_text(encoding="utf-8").splitlines()}
    missing = [label for item, label in key.items() if item not in kept]
    assert (len(key), len(missing), missing.count("Other")) == (2717, FILLED, 40)
    assert f"{100 * 40 / 217:.1f}" == "18.4"


def check_document(fmt: str, text: str, name: str) -> None:
    """The fill warning of system (or dataset) `name` in the written document, as each format carries it."""
    if fmt == "json":
        data = json.loads(text)
        found = one_result(data)["warnings"] if "results" in data else data["warnings"]
        found = [w for w in found if w["code"] != RARE]
        assert [w["code"] for w in found] == [CODE]
        assert found[0]["message"].startswith(f"{name}: {MESSAGE} — if that is near 100 %")
    elif fmt == "csv":
        assert text.splitlines()[0].startswith(f"# warning: {name}: {MESSAGE}")
    elif fmt == "markdown":
        assert f"Warning: {name}: {MESSAGE}" in text  # a footnote
    elif fmt == "latex":
        assert f"% warning: {name}: {MESSAGE}" in text  # a comment, and a visible line under the tabular
        escaped = MESSAGE.replace(" %", r" \%")
        assert f"\\textit{{Warning:}} {name}: {escaped}" in text
    else:
        assert MESSAGE not in text  # text leaves warnings to stderr, once


def check_stderr(err: str, name: str) -> None:
    """One warning line on stderr (not repeated through Python's warnings), then the 'wrote' line."""
    assert err.count("217 missing prediction(s)") == 1
    assert err.splitlines()[0].startswith(f"warning: {name}: {MESSAGE}")


COMPARE_SYSTEMS = {
    "paired": lambda part: ["-s", f"part={part}", "-s", f"cnn={CNN}", "-t", "sign"],
    "seeds": lambda part: ["-s", f"part={part},{RBERT}", "-s", f"cnn={CNN},{ATTCNN}"],
}


@pytest.mark.parametrize("kind", ["paired", "seeds"])
@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown", "latex"])
def test_compare_warns_in_every_format(
    kind: str, fmt: str, part: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"out.{fmt}"
    argv = ["compare", str(SEMEVAL_KEY), *COMPARE_SYSTEMS[kind](part), "--on-missing", "negative", "-w", "macro"]
    assert main([*argv, "-f", fmt, "-o", str(out)]) == 0
    check_stderr(capsys.readouterr().err, "part")
    text = out.read_text(encoding="utf-8")
    check_document(fmt, text, "part")
    if fmt == "json":
        assert releval.signature.parse(one_result(json.loads(text))["signature"])["missing"] == "negative"


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown", "latex"])
def test_replicability_from_predictions_warns_in_every_format(
    fmt: str, part: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Dataset x compares the filled R-BERT (A) with CNN; dataset y Attention-CNN with CNN (nothing missing)."""
    out = tmp_path / f"out.{fmt}"
    datasets = ["-d", f"x={SEMEVAL_KEY},{part},{CNN}", "-d", f"y={SEMEVAL_KEY},{ATTCNN},{CNN}"]
    argv = ["replicability", "from-predictions", *datasets, "--on-missing", "negative", "-R", "200"]
    assert main([*argv, "-f", fmt, "-o", str(out)]) == 0
    check_stderr(capsys.readouterr().err, "x A")
    text = out.read_text(encoding="utf-8")
    check_document(fmt, text, "x A")
    if fmt == "json":
        assert releval.signature.parse(json.loads(text)["signature"])["missing"] == "negative"


def test_compare_paired_warns_in_python(part: Path) -> None:
    """`releval.compare_paired` on files aligns them as the command does and repeats the fill's warning through
    warnings.warn; the table carries it with its code and signs the fill."""
    with pytest.warns(releval.RelevalWarning, match=r"^part: 217 missing prediction\(s\) filled with 'Other'; 18\.4 %"):
        table = releval.compare_paired(SEMEVAL_KEY, {"part": part, "cnn": CNN}, on_missing="negative", tests="sign")
    warned = [(w.code, w.startswith(f"part: {MESSAGE}")) for w in table.warnings if w.code != RARE]
    assert warned == [(CODE, True)]
    assert (table.signature["missing"], table.signature["alignment"], table.n) == ("negative", "id", 2717)


def test_compare_paired_warns_for_mappings_too() -> None:
    """{id: label} mappings are aligned by id: one of ten items missing, gold-negative, filled and warned."""
    gold = {f"i{k}": ("r" if k % 2 else "no_relation") for k in range(10)}
    a = {k: v for k, v in gold.items() if k != "i0"}
    with pytest.warns(
        releval.RelevalWarning, match=r"^a: 1 missing prediction\(s\) filled with 'no_relation'; 100\.0 %"
    ):
        table = releval.compare_paired(gold, {"a": a, "b": dict(gold)}, on_missing="negative", tests="sign")
    assert table.scores["a"]["micro"] == table.scores["b"]["micro"] == 1.0  # the fill is right: it leaks the label


def test_compare_seed_runs_warns_in_python(part: Path) -> None:
    with pytest.warns(releval.RelevalWarning, match=r"^part: 217 missing prediction\(s\) filled with 'Other'"):
        table = releval.compare_seed_runs(
            SEMEVAL_KEY, {"part": [part, RBERT], "cnn": [CNN, ATTCNN]}, on_missing="negative", weightings=("macro",)
        )
    assert [w.code for w in table.warnings if w.code != RARE] == [CODE] and table.signature["missing"] == "negative"


def test_pvalues_from_predictions_warns_in_python(part: Path) -> None:
    config = ClassificationConfig(on_missing="negative")
    with pytest.warns(releval.RelevalWarning, match=r"217 missing prediction\(s\) filled with 'Other'; 18\.4 %"):
        tests = releval.pvalues_from_predictions([("x", SEMEVAL_KEY, part, CNN)], config=config, resamples=200)
    assert tests.settings["missing"] == "negative"


@pytest.mark.parametrize("seeds", [False, True], ids=["paired", "seeds"])
def test_compare_under_wrong_tests_micro_only(part: Path, seeds: bool) -> None:
    """Under on_missing='wrong' a class-weighted F of the filled system is only an interval (Olek's correction is
    exact for micro alone), so compare leaves the class-weighted averages out, says so, and signs avg:micro."""
    if seeds:
        table: object = releval.compare_seed_runs(
            SEMEVAL_KEY, {"part": [part, RBERT], "cnn": [CNN, ATTCNN]}, on_missing="wrong"
        )
    else:
        table = releval.compare_paired(SEMEVAL_KEY, {"part": part, "cnn": CNN}, on_missing="wrong", resamples=100)
    codes = [w.code for w in table.warnings]  # type: ignore[attr-defined]
    assert codes == ["missing-filled-wrong", "averages-dropped"]
    assert "weighted, dodrans, entropy, macro" in table.warnings[1]  # type: ignore[attr-defined]
    assert {row.metric for row in table.rows} == {"micro"}  # type: ignore[attr-defined]
    assert table.signature["average"] == "micro"  # type: ignore[attr-defined]
    assert table.signature["missing"] == "wrong"  # type: ignore[attr-defined]


def test_compare_under_wrong_micro_is_olek_by_hand(part: Path) -> None:
    """The micro F compared is Olek's: the 217 filled items are false negatives of their gold class (and false
    positives of a class no gold item has), computed here by hand from the key and the 2500 kept predictions."""
    key = dict(line.split("\t") for line in SEMEVAL_KEY.read_text(encoding="utf-8").splitlines())
    pred = dict(line.split("\t") for line in part.read_text(encoding="utf-8").splitlines())
    tp = sum(1 for i, g in key.items() if i in pred and pred[i] == g and g != "Other")
    predicted_positive = sum(1 for i in key if pred.get(i, "<missing>") != "Other")
    gold_positive = sum(1 for g in key.values() if g != "Other")
    expected = 2 * tp / (predicted_positive + gold_positive)
    table = releval.compare_paired(SEMEVAL_KEY, {"part": part, "cnn": CNN}, on_missing="wrong", resamples=100)
    assert table.scores["part"]["micro"] == pytest.approx(expected, abs=1e-15)
