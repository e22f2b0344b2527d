"""Test helpers: the data bundled in examples/ (attributed in NOTICE) and the fixtures in tests/data (see its
README.md), and ../shared for what may not be bundled (the TACRED label files), skipping cleanly when it is absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
EXAMPLES = REPO / "examples"
SHARED = REPO.parent / "shared"

# The docs' worked examples run on examples/, and the tests read the same files (no copies in tests/data):
# ../shared/data/semeval2010_task8/TEST_KEY_directed_from_TEST_FILE_FULL.txt, the official scorer's
# scorer_examples/answer_key2.txt (the labels of TRAIN_FILE.TXT, same ids and order, CRLF),
# ../shared/data/conll04/conll04_sincere_all_splits.json and conll04_types.json, byte for byte.
SEMEVAL_KEY = EXAMPLES / "semeval2010_task8" / "test_key_directed.txt"
SEMEVAL_TRAIN_KEY = EXAMPLES / "semeval2010_task8" / "train_key_directed.txt"
CONLL04_ALL_SPLITS = EXAMPLES / "conll04" / "conll04_sincere_all_splits.json"
CONLL04_TYPES = EXAMPLES / "conll04" / "conll04_types.json"


def data_path(*parts: str) -> Path:
    """A fixture under tests/data. It is part of the repository, so a missing one is an error, not a skip."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"{path}: bundled test fixture missing (see tests/data/README.md)")
    return path


def shared_path(*parts: str) -> Path:
    """A file under ../shared that may not be bundled (the TACRED label files), or skip the test naming it.

    Only TACRED label files may come from here: everything else the suite needs is bundled, so that a checkout
    without ../shared runs the same suite less the TACRED tests.
    """
    if tuple(parts[:2]) != ("data", "tacred_labels"):
        raise ValueError(f"only TACRED label files are read from ../shared; bundle {'/'.join(parts)} in tests/data")
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not available (not bundled: it is read from ../shared only)")
    return path


def semeval_predictions(system: str) -> Path:
    """examples/semeval2010_task8/onehaitao_<system>.txt, SemEval-2010 Task 8 test predictions of attblstm, attcnn,
    cnn, crcnn or rbert."""
    return EXAMPLES / "semeval2010_task8" / f"onehaitao_{system}.txt"


def _conll04_split(tmp_path_factory: pytest.TempPathFactory, split: str) -> Path:
    """SpERT's conll04_<split>.json (a list of sentences): the same sentences as that split of the bundled
    conll04_sincere_all_splits.json, so only that file is bundled."""
    splits = json.loads(CONLL04_ALL_SPLITS.read_text(encoding="utf-8"))
    path = tmp_path_factory.mktemp("conll04") / f"conll04_{split}.json"
    path.write_text(json.dumps(splits[split]), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def conll04_test(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """CoNLL04 test split (288 sentences) as its own SpERT file."""
    return _conll04_split(tmp_path_factory, "test")


@pytest.fixture(scope="session")
def conll04_train(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """CoNLL04 train split (922 sentences) as its own SpERT file."""
    return _conll04_split(tmp_path_factory, "train")


def one_result(data: dict) -> dict:
    """The single result of a command's JSON document (every command writes {"schema_version", "results": [...]})."""
    assert data["schema_version"] == 1 and len(data["results"]) == 1, data.keys()
    return data["results"][0]
