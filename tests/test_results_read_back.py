"""A DocRED or ranked result read back from its JSON (`from_dict`) keeps what `to_dict` wrote, not the per-document
counts or the whole curve: what needs those refuses it by name instead of computing from nothing."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from releval.core.errors import OptionError
from releval.report.figures.pr_curve import pr_curves
from releval.tasks import docred, ranked

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_a_docred_result_read_back_refuses_to_recompute_its_measures() -> None:
    config = docred.DocredConfig()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (result,) = docred.score_files(
            EXAMPLES / "docred" / "redocred_dev_first40.json.gz",
            [("A", EXAMPLES / "docred" / "system_a.json.gz")],
            config,
        )
    again = docred.DocredResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.n_documents == result.n_documents == 40  # the file's first 40 documents
    assert again.official == result.official and again.per_relation == result.per_relation
    assert result.curve is not None and again.curve == result.curve  # every prediction of system_a has a score
    with pytest.raises(ValueError, match="A: a DocRED result read back from JSON keeps no per-document counts"):
        again.measures(config, distant=False)
    with pytest.raises(ValueError, match="kind 'score' is not 'docred-score'"):
        docred.DocredResult.from_dict(result.per_relation.to_dict())


def test_a_ranked_result_read_back_has_its_numbers_and_no_curve_to_draw() -> None:
    config = ranked.RankedConfig(duplicates="count")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (result,) = ranked.score_files(
            EXAMPLES / "ranked" / "gold.jsonl", [("cnn", EXAMPLES / "ranked" / "cnn.tsv")], config
        )
    again = ranked.RankedResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.measures == result.measures and again.relations == result.relations and again.curve is None
    assert pr_curves([result]).systems == ["cnn"]
    with pytest.raises(OptionError, match="cnn's result was read back from JSON, which keeps no curve"):
        pr_curves([again])
    with pytest.raises(ValueError, match="ranked result: missing key 'relations'"):
        ranked.RankedResult.from_dict({k: v for k, v in result.to_dict().items() if k != "relations"})


def test_the_curve_figure_marks_p_at_n_of_a_result_that_also_has_precision_at_recall_levels() -> None:
    config = ranked.RankedConfig(duplicates="count", at=(100,), at_recall=(10, 30))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (result,) = ranked.score_files(
            EXAMPLES / "ranked" / "gold.jsonl", [("cnn", EXAMPLES / "ranked" / "cnn.tsv")], config
        )
    assert {"p@100", "p@10%", "p@30%"} <= set(result.measures)
    assert pr_curves([result]).precision_at == [{100: result.measures["p@100"]}]  # P@R% is not a rank to mark
