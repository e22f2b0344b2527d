"""`compare`, `compare --per-class` and the bootstrap figure are one comparison path
(releval.significance.comparison): for the same seed and files they draw the same resamples, so the figure shows
the interval and p-value `compare --per-class` prints for a class (before its correction across classes), and those
`compare` prints for an average — on the bundled SemEval-2010 Task 8 systems.

The observed values are checked by hand against `releval score`'s per-class rows (another code path: no resampling).
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path

import pytest

from releval.cli import main

SEMEVAL = Path(__file__).resolve().parents[1] / "examples" / "semeval2010_task8"
KEY, CNN, RBERT = (str(SEMEVAL / n) for n in ("test_key_directed.txt", "onehaitao_cnn.txt", "onehaitao_rbert.txt"))
SEED, RESAMPLES = ["--seed", "11"], ["-R", "300"]


def _run(argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(argv)
    assert code == 0, err.getvalue()
    return out.getvalue()


@pytest.fixture(scope="module")
def per_class() -> dict:
    """compare --per-class of RBERT (first) against the CNN: δ = F(rbert) − F(cnn), the figure's B − A."""
    (result,) = json.loads(_run(["compare", KEY, "-s", f"rbert={RBERT}", "-s", f"cnn={CNN}", "--per-class",
                            *RESAMPLES, *SEED, "-f", "json"]))["results"]  # fmt: skip
    return result


def _figure(tmp_path: Path, *options: str) -> dict:
    data = tmp_path / "data.json"
    _run(["plot", "bootstrap", KEY, f"cnn={CNN}", f"rbert={RBERT}", *RESAMPLES, *SEED, *options,
          "-o", str(tmp_path / "f.png"), "--data-json", str(data)])  # fmt: skip
    return json.loads(data.read_text())["data"]


def _score_f(label: str) -> tuple[float, float]:
    """Each system's F of `label` from `releval score --per-class` (fractions)."""
    scored = json.loads(_run(["score", KEY, f"cnn={CNN}", f"rbert={RBERT}", "--per-class", "-f", "json"]))
    rows = {r["system"]: {c["label"]: c for c in r["per_class"]} for r in scored["results"]}
    return rows["cnn"][label]["f"], rows["rbert"][label]["f"]


@pytest.mark.parametrize("label", ["Cause-Effect(e1,e2)", "Entity-Origin(e2,e1)", "Component-Whole(e2,e1)"])
def test_the_figure_of_a_class_shows_compare_per_class_row(per_class: dict, tmp_path: Path, label: str) -> None:
    pytest.importorskip("matplotlib")
    (row,) = [r for r in per_class["classes"] if r["label"] == label and r["test"] == "bootstrap"]
    figure = _figure(tmp_path, "--class", label)
    assert figure["of_class"] and figure["metric"] == label
    assert figure["ci"] == row["ci_effect"] and figure["p_value"] == row["p_value"]
    assert (figure["score_b"], figure["score_a"]) == (row["score_a"], row["score_b"])
    f_cnn, f_rbert = _score_f(label)  # no resampling: score's own per-class rows
    assert (figure["score_a"], figure["score_b"]) == pytest.approx((f_cnn, f_rbert), abs=1e-12)
    # the interval is the percentiles of the Δ* drawn: numpy's, computed here
    import numpy as np

    assert figure["ci"] == pytest.approx(list(np.quantile(figure["deltas"], [0.025, 0.975])), abs=1e-15)


def test_the_figure_of_an_average_shows_compare_s_and_per_class_averages(per_class: dict, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    figure = _figure(tmp_path, "--average", "macro")
    averages = per_class["averages"]["bootstrap"]["macro"]
    assert figure["ci"] == averages["ci_effect"] and figure["p_value"] == averages["p_value"]
    table = json.loads(_run(["compare", KEY, "-s", f"cnn={CNN}", "-s", f"rbert={RBERT}", "--baseline", "cnn",
                             *RESAMPLES, *SEED, "-f", "json"]))["results"][0]  # fmt: skip
    (row,) = [r for r in table["pairs"] if r["metric"] == "macro" and r["test"] == "bootstrap"]
    assert (row["a"], row["b"]) == ("rbert", "cnn")
    assert figure["ci"] == row["ci_effect"] and figure["p_value"] == row["p_value"]
