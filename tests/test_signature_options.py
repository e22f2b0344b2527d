"""The signature's promise, option by option: two results with equal signatures were made the same way.

For every option of `score`, `compare`, `stats`, `replicability` and `audit` — enumerated from the click command
tree, so that a new option is not skipped silently — two or more valid values are run in-process on small real
data (slices of the bundled SemEval-2010 Task 8 files, the 30-sentence CoNLL04 excerpt, Dror et al.'s Mate vs
Redshift p-values) and the JSON documents compared: if any number differs, the signatures must differ. A value list
must change some number unless it is marked as not changing any, so that every case tests something. Hypothesis
then draws whole settings at random and varies one option, for the interactions (a CI level that matters only
with the bootstrap, a McNemar variant only with McNemar).

The second half: the same settings give the same signature string from every command and from the Python API.
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import json
import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tests.conftest import CONLL04_TYPES, EXAMPLES, SEMEVAL_KEY, SEMEVAL_TRAIN_KEY, semeval_predictions

import releval
from releval.cli import app, main, register_commands
from releval.core.signature import parse

# ------------------------------------------------------------------------------------------------ the data

#: Items per SemEval slice: enough for every class to occur, small enough for ~0.1 s a run.
SLICE = 300
CONLL04_30 = EXAMPLES / "conll04" / "conll04_test_first30.json"
#: Dror et al. (TACL 2017) Table 2: Mate vs Redshift, p-values per OntoNotes genre and the UAS difference.
MATE_REDSHIFT = [
    ("BC", 0.0979, 0.54),
    ("BN", 0.1662, 0.36),
    ("MZ", 0.0046, 1.02),
    ("NW", 0.0376, 0.69),
    ("PT", 0.0969, 0.42),
    ("TC", 0.0912, 0.88),
    ("WB", 0.0823, 0.58),
]


def _lines(path: Path, start: int, stop: int) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)[start:stop]


def _undirected(label: str) -> str:
    return label.split("(")[0]


def _e2e_system(drop: set[int], retype: set[int], reverse: set[int], never: str = "") -> list[dict]:
    """The CoNLL04 excerpt with the relations of `drop` removed, those of `retype` given another type, the
    Live_In relations of `reverse` written tail first (matched again once Live_In is declared symmetric), and no
    relation of type `never` (its precision is 0/0: --zero-division)."""
    docs = json.loads(CONLL04_30.read_text(encoding="utf-8"))
    for i, doc in enumerate(docs):
        if i in drop:
            doc["relations"] = []
        doc["relations"] = [r for r in doc["relations"] if r["type"] != never]
        for r in doc["relations"]:
            if i in retype:
                r["type"] = "Work_For" if r["type"] != "Work_For" else "Live_In"
            elif i in reverse and r["type"] == "Live_In":
                r["head"], r["tail"] = r["tail"], r["head"]
    return docs


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every input of the runs below, by name (option values name them as {name})."""
    tmp = tmp_path_factory.mktemp("signature_options")
    out: dict[str, str] = {}

    def write(name: str, text: str) -> None:
        path = tmp / name
        path.write_text(text, encoding="utf-8")
        out[name.split(".")[0]] = str(path)

    systems = {"rbert": "rbert", "cnn": "cnn", "att": "attcnn", "blstm": "attblstm", "crcnn": "crcnn"}
    write("key.txt", "".join(_lines(SEMEVAL_KEY, 0, SLICE)))
    for name, system in systems.items():
        write(f"{name}.txt", "".join(_lines(semeval_predictions(system), 0, SLICE)))
    # CNN without every 7th prediction: 42 missing, filled by --on-missing (and shifted under --by-position)
    write("cnn_part.txt", "".join(x for i, x in enumerate(_lines(semeval_predictions("cnn"), 0, SLICE)) if i % 7 != 6))
    # R-BERT in reverse order: the same by id, shifted by position (--by-position)
    write("rbert_rev.txt", "".join(reversed(_lines(semeval_predictions("rbert"), 0, SLICE))))
    key = [x.split("\t") for x in _lines(SEMEVAL_KEY, 0, SLICE)]
    write("patch1.json", json.dumps([{"id": key[i][0], "relation": "Other"} for i in (0, 1, 2, 5, 8)]))
    write("patch2.json", json.dumps([{"id": key[i][0], "relation": "Cause-Effect(e1,e2)"} for i in (10, 20, 30)]))
    write("train.txt", SEMEVAL_TRAIN_KEY.read_text(encoding="utf-8"))
    # The same slice as JSONL with two consistent id fields and two label fields (directed and coarse)
    for name, path in (("gold", SEMEVAL_KEY), ("rbert", semeval_predictions("rbert")), ("cnn", out["cnn"])):
        rows = [line.rstrip("\n").split("\t") for line in _lines(Path(path), 0, SLICE)]
        records = [{"id": i, "guid": f"g{i}", "relation": lbl, "coarse": _undirected(lbl)} for i, lbl in rows]
        write(f"{name}_jsonl.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    # Three replicability datasets: consecutive slices of the test set, CR-CNN against Attention-CNN (p-values
    # 0.64, 0.035, 0.025, 0.22 with 200 resamples: the estimators and procedures disagree)
    for k in range(4):
        write(f"key{k}.txt", "".join(_lines(SEMEVAL_KEY, k * SLICE, (k + 1) * SLICE)))
        a_lines = _lines(semeval_predictions("crcnn"), k * SLICE, (k + 1) * SLICE)
        write(f"a{k}.txt", "".join(x for i, x in enumerate(a_lines) if k != 3 or i % 60 != 59))  # a3: 5 missing
        write(f"b{k}.txt", "".join(_lines(semeval_predictions("attcnn"), k * SLICE, (k + 1) * SLICE)))
    write("pvalues.csv", "dataset,p,effect\n" + "".join(f"{d},{p},{e}\n" for d, p, e in MATE_REDSHIFT))
    # End-to-end RE: the CoNLL04 excerpt and three perturbed systems; Live_In declared symmetric in types_sym
    out["e2e_gold"] = str(CONLL04_30)
    out["ranked_gold"] = str(EXAMPLES / "ranked" / "gold.jsonl")
    out["ranked_a"] = str(EXAMPLES / "ranked" / "pcnn.jsonl")
    out["ranked_b"] = str(EXAMPLES / "ranked" / "cnn.tsv")
    out["types"] = str(CONLL04_TYPES)
    types = json.loads(CONLL04_TYPES.read_text(encoding="utf-8"))
    types["relations"]["Live_In"]["symmetric"] = True
    write("types_sym.json", json.dumps(types))
    write("e2e_a.json", json.dumps(_e2e_system({0, 3}, {5}, {1, 7, 11, 14, 20})))
    write("e2e_b.json", json.dumps(_e2e_system({2, 9, 12}, set(), set(), never="Work_For")))
    write("e2e_c.json", json.dumps(_e2e_system({1}, {8, 10}, {17, 21})))
    # DocRED: the made-up case of tests/docred_cases.py, a second system with fewer predictions, its train facts
    from docred_cases import CASES as DOCRED_CASES

    mixed = DOCRED_CASES["mixed"]
    write("docred_gold.json", json.dumps(mixed["truth"]))
    write("docred_a.json", json.dumps(mixed["submission"]))
    write("docred_b.json", json.dumps(mixed["submission"][:5]))
    write("docred_train.json", json.dumps(mixed["train_annotated"]))
    write("docred_distant.json", json.dumps(mixed["train_distant"]))
    # Saved results for `audit compare`: Strict and Boundaries of the same system
    for criterion in ("strict", "boundaries"):
        assert main(["score", "--task", "e2e", out["e2e_gold"], out["e2e_a"], "--criterion", criterion,
                     "-f", "json", "-o", str(tmp / f"{criterion}.json")]) == 0  # fmt: skip
        out[criterion] = str(tmp / f"{criterion}.json")
    return out


# ------------------------------------------------------------------------------------------------ running


@functools.cache
def run(argv: tuple[str, ...]) -> tuple[int, Any, str]:
    """(exit code, parsed JSON or None, stderr) of `releval ARGV -f json`, in-process; cached by its arguments."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main([*argv, "-f", "json"])
    return code, json.loads(out.getvalue()) if code in (0, 1) and out.getvalue() else None, err.getvalue()


def numbers(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every number of a JSON document with its path (NaN as a string, so that NaN equals NaN).

    A row of a list of objects is found by its text fields (per_class by label, pairs by systems, test and
    average) where they tell the rows apart, so that rows listed in another order are the same numbers.
    """
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from numbers(value, (*path, key))
    elif isinstance(doc, list):
        keys = [_row_key(x) for x in doc]
        if None in keys or len(set(keys)) < len(keys):
            keys = list(range(len(doc)))
        for key, value in zip(keys, doc):
            yield from numbers(value, (*path, key))
    elif isinstance(doc, (int, float)) and not isinstance(doc, bool):
        yield path, "nan" if isinstance(doc, float) and math.isnan(doc) else doc


#: The fields that name a row: a class, a dataset, a pair of systems with its test and average, a finding, a file.
ROW_NAMES = ("label", "dataset", "a", "b", "test", "metric", "code", "view", "name", "path", "split", "criterion")


def _row_key(row: Any) -> tuple[str, ...] | None:
    if not isinstance(row, dict):
        return None
    return tuple(f"{k}={row[k]}" for k in ROW_NAMES if isinstance(row.get(k), str)) or None


def same_numbers(a: dict, b: dict) -> bool:
    """The same paths and the same values, up to the last bits a sum in another order changes (1e-12)."""
    if a.keys() != b.keys():
        return False
    return all(
        x == y
        or (not isinstance(x, str) and not isinstance(y, str) and math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-15))
        for x, y in ((a[k], b[k]) for k in a)
    )


def signed(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str, dict]]:
    """Every object of the document that carries a signature: (path, signature, its numbers)."""
    if isinstance(doc, dict):
        if isinstance(doc.get("signature"), str):
            yield path, doc["signature"], dict(numbers(doc))
        for key, value in doc.items():
            yield from signed(value, (*path, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from signed(value, (*path, i))


def check_signatures_read_back(doc: Any) -> None:
    """Each signature parses, and its short form (where given) says the same."""
    for _, signature, _ in signed(doc):
        parse(signature)
    for obj in _objects(doc):
        if isinstance(obj.get("signature_short"), str):
            assert parse(obj["signature_short"]) == parse(obj["signature"])


def _objects(doc: Any) -> Iterator[dict]:
    if isinstance(doc, dict):
        yield doc
        for value in doc.values():
            yield from _objects(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from _objects(value)


def violations(a: Any, b: Any) -> list[str]:
    """Where numbers differ under equal signatures: per signed object at the same place, and for the documents."""
    found = []
    units_b = {path: (sig, nums) for path, sig, nums in signed(b)}
    for path, sig, nums in signed(a):
        if path in units_b and units_b[path][0] == sig and not same_numbers(nums, units_b[path][1]):
            found.append(f"at {list(path)}: signature {sig!r} on both, {_difference(nums, units_b[path][1])}")
    sigs_a, sigs_b = sorted(s for _, s, _ in signed(a)), sorted(s for _, s, _ in signed(b))
    nums_a, nums_b = dict(numbers(a)), dict(numbers(b))
    if sigs_a == sigs_b and not same_numbers(nums_a, nums_b):
        found.append(f"signatures {sigs_a or 'none'} on both documents, {_difference(nums_a, nums_b)}")
    return found


def _difference(a: dict, b: dict) -> str:
    only = sorted(set(a) ^ set(b), key=str)
    if only:
        return f"numbers at {list(only[0])} in one document only"
    key = next(k for k in a if not same_numbers({k: a[k]}, {k: b[k]}))
    return f"{list(key)}: {a[key]!r} vs {b[key]!r}"


# ------------------------------------------------------------------------------------------------ the options


@dataclass(frozen=True)
class Values:
    """Values of one option (or of options that exclude each other, like --negative and --no-negative).

    Each value is a tuple of arguments, `{name}` standing for an input file; the first is the default setting.
    `changes`: some pair of values changes a number (else the option is shown not to change any).
    `refusable`: a value may be refused on these data (exit 2: --strict-labels with labels unseen in gold).
    """

    name: str
    values: tuple[tuple[str, ...], ...]
    changes: bool = True
    refusable: bool = False
    combine: bool = True  # drawn into the random settings of test_random_settings_keep_the_promise


@dataclass(frozen=True)
class Variant:
    """One command on one kind of data: its inputs (fixed) and the options varied."""

    name: str
    command: tuple[str, ...]
    inputs: tuple[str, ...]
    options: tuple[Values, ...]

    def argv(self, files: dict[str, str], choice: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
        args = [*self.inputs, *(x for o in self.options for x in choice.get(o.name, o.values[0]))]
        return (*self.command, *(a.format_map(files) for a in args))


NEGATIVE = Values("negative", ((), ("--negative", "Other"), ("--no-negative",), ("--negative", "Cause-Effect(e2,e1)")))
WEIGHTING = Values("weighting", ((), ("-w", "macro"), ("-w", "power:0.5", "-w", "entropy")))
# A power exponent that %g (six significant digits) would round: the weights differ, so must the name.
WEIGHTING_DIGITS = Values("weighting-digits", ((), ("-w", "power:0.5"), ("-w", "power:0.5000001")), combine=False)
# 1.0000001, 0.9500001, 0.0500001: values that %g (six significant digits) writes as the default, though the
# numbers differ in their eighth digit: the signature must still tell them apart.
BETA = Values("beta", ((), ("--beta", "0.5"), ("--beta", "2"), ("--beta", "1.0000001")))
ZERO_DIVISION = Values("zero-division", ((), ("--zero-division", "1"), ("--zero-division", "0.5")))
ON_MISSING = Values("on-missing", (("--on-missing", "wrong"), ("--on-missing", "negative")))
# Under --on-missing wrong (the first value above) with a prediction filled, compare tests micro only (a
# class-weighted F is then an interval): the weightings change no number there, so they are varied again below
# on complete systems.
WEIGHTING_UNDER_WRONG = "weighting-under-wrong"
BY_POSITION = Values("by-position", ((), ("--by-position",)))
LABEL_FORMATS = Values("formats", ((), ("--input-format", "id-tsv"), ("--gold-format", "semeval-tsv")), changes=False)
JSONL_FIELDS = (
    # Both id fields name the same items in every file: which column holds the ids is how the input is read (ids
    # that paired other items would be other predictions, an input and not a setting)
    Values("id-field", ((), ("--id-field", "guid")), changes=False),
    Values("label-field", ((), ("--label-field", "coarse"))),
    Values("formats", ((), ("--input-format", "jsonl")), changes=False),
)
SEED = Values("seed", ((), ("--seed", "7")))
# ranked facts (--task ranked): the example predictions hold duplicates, so every run counts or reduces them
RANKED_DUPLICATES = Values("duplicates", (("--duplicates", "count"), ("--duplicates", "max")))
RANKED_TIES = Values("ties", ((), ("--ties", "average")))
RANKED_AT = Values("at", ((), ("--at", "50"), ("--at", "100,1000")))
RANKED_THRESHOLD = Values("threshold", ((), ("--threshold", "0.3"), ("--threshold", "0.3000001")))
RANKED_AT_RECALL = Values(
    "at-recall", ((), ("--at-recall", "10,30"), ("--at-recall", "10,30", "--first-reached"), ("--at-recall", "20"))
)
DOCRED = (
    Values("scorer", ((), ("--scorer", "atlop"), ("--scorer", "redocred"))),
    Values("train-facts", ((), ("--train-facts", "{docred_train}"))),
    Values("distant-facts", ((), ("--distant-facts", "{docred_distant}"))),
    Values("no-evidence", ((), ("--no-evidence",))),
    WEIGHTING,
)
ALTERNATIVE = Values("alternative", ((), ("--alternative", "greater"), ("--alternative", "less")))
CONFIDENCE = Values("confidence", ((), ("--confidence", "0.9"), ("--confidence", "0.9500001")))
CLASS_SET = Values("class-set", ((), ("--class-set", "resample")))
CORRECTION = Values("correction", ((), ("--correction", "bonferroni"), ("--correction", "none")))
ALPHA = Values("alpha", ((), ("-a", "0.1"), ("-a", "0.01"), ("-a", "0.0500001")))
DEPENDENCE = Values("dependence", ((), ("--independent",), ("--positive-dependence",)))
METHOD = Values("method", ((), ("-m", "bonferroni"), ("-m", "fdr_bh"), ("-m", "hommel")))
ESTIMATORS = Values(
    "estimators", ((), ("--estimators", "stouffer"), ("--estimators", "bonferroni,fisher,simes,stouffer"))
)
PER_U = Values("per-u", ((), ("--per-u",)), changes=False)  # JSON always carries the per-u p-values

SEMEVAL_SYSTEMS = ("-s", "rbert={rbert}", "-s", "cnn={cnn_part}", "-s", "att={att}")
VARIANTS = (
    Variant(
        "score",
        ("score",),
        ("{key}", "{rbert}", "{cnn_part}"),
        (
            Values("task", ((), ("--task", "semeval-official")), combine=False),
            NEGATIVE,
            WEIGHTING,
            WEIGHTING_DIGITS,
            BETA,
            ZERO_DIVISION,
            Values("entropy-n", ((), ("--entropy-n", "positive"))),
            ON_MISSING,
            Values("strict-labels", ((), ("--strict-labels",)), changes=False, refusable=True),
            Values("view", ((), ("--view", "undirected"))),
            Values("patch", ((), ("--patch", "{patch1}"), ("--patch", "{patch2}"))),
            LABEL_FORMATS,
        ),
    ),
    Variant("score-positions", ("score",), ("{key}", "{rbert_rev}", "{cnn}"), (BY_POSITION,)),
    Variant("score-jsonl", ("score",), ("{gold_jsonl}", "{rbert_jsonl}", "{cnn_jsonl}"), JSONL_FIELDS),
    Variant(
        "score-jsonl-sides",
        ("score",),
        ("{gold_jsonl}", "{rbert_jsonl}", "{cnn_jsonl}"),
        (
            # one side's field names: the same columns named per side read the same items as --id-field does
            Values("side-id-fields", ((), ("--gold-id-field", "guid", "--pred-id-field", "guid")), changes=False),
            Values("side-label-fields", ((), ("--gold-label-field", "coarse", "--pred-label-field", "coarse"))),
            Values("pred-format", ((), ("--pred-format", "jsonl")), changes=False),
        ),
    ),
    Variant(
        "score-e2e",
        ("score", "--task", "e2e"),
        ("{e2e_gold}", "{e2e_a}", "{e2e_b}"),
        (
            Values("criterion", ((), ("--criterion", "strict"), ("--criterion", "boundaries"))),
            Values("types", ((), ("--types", "{types}"), ("--types", "{types_sym}"))),
            Values("relaxed", ((), ("--relaxed",))),
            Values(
                "macro-classes",
                ((), ("--macro-classes", "gold+pred"), ("--macro-classes", "declared", "--types", "{types}")),
            ),
            WEIGHTING,
            BETA,
            ZERO_DIVISION,
            Values("by-position", ((), ("--by-position",)), changes=False),  # the systems keep the gold order
        ),
    ),
    Variant(
        "score-ranked",
        ("score", "--task", "ranked"),
        ("{ranked_gold}", "{ranked_a}", "{ranked_b}"),
        (
            RANKED_DUPLICATES,
            RANKED_TIES,
            RANKED_AT,
            RANKED_THRESHOLD,
            RANKED_AT_RECALL,
            Values("negative", ((), ("--no-negative",), ("--negative", "/rel/r0"))),
            WEIGHTING,
            BETA,
        ),
    ),
    Variant(
        "compare-ranked",
        ("compare", "--task", "ranked"),
        ("{ranked_gold}", "-s", "a={ranked_a}", "-s", "b={ranked_b}", "-R", "30"),
        (
            RANKED_DUPLICATES,
            RANKED_TIES,
            RANKED_AT,
            RANKED_THRESHOLD,
            RANKED_AT_RECALL,
            Values("test", ((), ("-t", "randomization"))),
            SEED,
            CLASS_SET,
        ),
    ),
    Variant(
        "compare",
        ("compare",),
        ("{key}", *SEMEVAL_SYSTEMS),
        (
            Values(
                "test",
                (("-t", "bootstrap,mcnemar"), ("-t", "bootstrap"), ("-t", "randomization"), ("-t", "mcnemar,sign")),
            ),
            Values("mcnemar", ((), ("--mcnemar", "chi2"), ("--mcnemar", "chi2-corrected"))),
            Values(
                WEIGHTING_UNDER_WRONG,
                (("-w", "macro"), ("-w", "weighted"), ("-w", "entropy", "-w", "dodrans")),
                changes=False,
            ),
            Values("resamples", (("-R", "200"), ("-R", "300"))),
            SEED,
            ALTERNATIVE,
            CONFIDENCE,
            Values("baseline", ((), ("--baseline", "cnn"), ("--baseline", "rbert"))),
            CORRECTION,
            NEGATIVE,
            ON_MISSING,
            LABEL_FORMATS,
        ),
    ),
    Variant(
        "compare-positions",
        ("compare",),
        ("{key}", "-s", "r={rbert_rev}", "-s", "c={cnn}", "-R", "200"),
        (BY_POSITION,),
    ),
    Variant(
        "compare-jsonl",
        ("compare",),
        ("{gold_jsonl}", "-s", "rbert={rbert_jsonl}", "-s", "cnn={cnn_jsonl}", "-R", "200"),
        JSONL_FIELDS,
    ),
    Variant(
        "compare-seeds",
        ("compare",),
        ("{key}", "-s", "a={rbert},{att}", "-s", "b={cnn},{crcnn}", "-s", "c={blstm},{cnn_part}"),
        (
            Values(WEIGHTING_UNDER_WRONG, (("-w", "macro"), ("-w", "weighted")), changes=False),
            ALTERNATIVE,
            Values("baseline", ((), ("--baseline", "a"), ("--baseline", "c"))),
            CORRECTION,
            NEGATIVE,
            ON_MISSING,
            Values("test", ((), ("-t", "randomization")), changes=False),  # Welch's t over seeds whatever --test
        ),
    ),
    Variant(
        "compare-complete",
        ("compare",),
        ("{key}", "-s", "rbert={rbert}", "-s", "att={att}", "-R", "200"),
        (
            Values("weighting", (("-w", "macro"), ("-w", "weighted"), ("-w", "entropy", "-w", "dodrans"))),
            # the input stage score shares (releval.commands.inputs): the same values, the same promise
            Values("strict-labels", ((), ("--strict-labels",)), changes=False, refusable=True),
            Values("view", ((), ("--view", "undirected"))),
            Values("patch", ((), ("--patch", "{patch1}"), ("--patch", "{patch2}"))),
            CLASS_SET,  # macro's intervals: the slice has classes of one or two gold items
            # the settings stage score shares (releval.commands.settings): the same values, the same promise
            BETA,
            ZERO_DIVISION,
        ),
    ),
    Variant(  # entropy's N changes the entropy average only: the systems are compared under it
        "compare-entropy",
        ("compare",),
        ("{key}", "-s", "rbert={rbert}", "-s", "att={att}", "-R", "200", "-w", "entropy"),
        (Values("entropy-n", ((), ("--entropy-n", "positive"))),),
    ),
    Variant(
        "compare-jsonl-sides",
        ("compare",),
        ("{gold_jsonl}", "-s", "rbert={rbert_jsonl}", "-s", "cnn={cnn_jsonl}", "-R", "200"),
        (
            Values("side-id-fields", ((), ("--gold-id-field", "guid", "--pred-id-field", "guid")), changes=False),
            Values("side-label-fields", ((), ("--gold-label-field", "coarse", "--pred-label-field", "coarse"))),
            Values("pred-format", ((), ("--pred-format", "jsonl")), changes=False),
        ),
    ),
    Variant(
        "compare-seeds-complete",
        ("compare",),
        ("{key}", "-s", "a={rbert},{att}", "-s", "b={cnn},{crcnn}"),
        (Values("weighting", (("-w", "macro"), ("-w", "weighted"))),),
    ),
    Variant(
        "compare-e2e",
        ("compare", "--task", "e2e"),
        ("{e2e_gold}", "-s", "a={e2e_a}", "-s", "b={e2e_b}", "-s", "c={e2e_c}"),
        (
            Values("test", ((), ("-t", "randomization"), ("-t", "bootstrap,randomization"))),
            Values("criterion", ((), ("--criterion", "strict"), ("--criterion", "boundaries"))),
            Values("ner", ((), ("--ner",))),
            Values("relaxed", ((), ("--relaxed",))),
            BETA,
            Values("types", ((), ("--types", "{types}"), ("--types", "{types_sym}"))),
            Values("weighting", (("-w", "macro"), ("-w", "weighted"))),
            Values("resamples", (("-R", "200"), ("-R", "300"))),
            SEED,
            ALTERNATIVE,
            CONFIDENCE,
            CLASS_SET,
            Values("baseline", ((), ("--baseline", "a"), ("--baseline", "c"))),
            CORRECTION,
            Values("by-position", ((), ("--by-position",)), changes=False),
        ),
    ),
    Variant(
        "stats",
        ("stats",),
        ("{key}",),
        (
            Values(
                "negative", ((), ("--negative", "Other"), ("--negative", "Cause-Effect(e2,e1)"), ("--no-negative",))
            ),
            Values("view", ((), ("--view", "directed"), ("--view", "undirected"))),
            Values("formats", ((), ("--input-format", "id-tsv")), changes=False),
            Values("gold-format", ((), ("--gold-format", "semeval-tsv")), changes=False),
            # the input stage score shares (releval.commands.inputs): the same values, the same promise
            Values("patch", ((), ("--patch", "{patch1}"), ("--patch", "{patch2}"))),
        ),
    ),
    Variant(
        "stats-jsonl",
        ("stats",),
        ("{gold_jsonl}",),
        (
            Values("id-field", ((), ("--id-field", "guid")), changes=False),
            Values("label-field", ((), ("--label-field", "coarse"))),
            Values("side-id-field", ((), ("--gold-id-field", "guid")), changes=False),
            Values("side-label-field", ((), ("--gold-label-field", "coarse"))),
        ),
    ),
    Variant("stats-e2e", ("stats",), ("{e2e_gold}", "{e2e_a}"), (Values("compare", ((), ("--compare",))),)),
    Variant("score-docred", ("score", "--task", "docred"), ("{docred_gold}", "{docred_a}", "{docred_b}"), DOCRED),
    Variant(
        "compare-docred",
        ("compare", "--task", "docred"),
        ("{docred_gold}", "-s", "a={docred_a}", "-s", "b={docred_b}", "-R", "50"),
        (*DOCRED, SEED),
    ),
    Variant(
        "replicability analyze",
        ("replicability", "analyze"),
        ("{pvalues}",),
        (
            ALPHA,
            DEPENDENCE,
            METHOD,
            ESTIMATORS,
            PER_U,
            Values("table-format", ((), ("--table-format", "csv")), changes=False),
        ),
    ),
    Variant(
        "replicability from-predictions",
        ("replicability", "from-predictions"),
        tuple(x for k in range(4) for x in ("-d", f"s{k}={{key{k}}},{{a{k}}},{{b{k}}}")),
        (
            Values("test", ((), ("-t", "randomization"), ("-t", "mcnemar"), ("-t", "sign"))),
            Values("metric", ((), ("--metric", "macro"), ("--metric", "weighted"))),
            Values("resamples", (("-R", "200"), ("-R", "300"))),
            SEED,
            Values("formats", ((), ("--input-format", "id-tsv")), changes=False),
            Values("side-formats", ((), ("--gold-format", "id-tsv", "--pred-format", "id-tsv")), changes=False),
            ON_MISSING,
            NEGATIVE,
            Values("strict-labels", ((), ("--strict-labels",)), changes=False, refusable=True),
            Values("view", ((), ("--view", "undirected"))),
            Values("by-position", ((), ("--by-position",)), changes=False, refusable=True),  # a3 lacks 5 items
            # the settings stage score and compare share: F-beta and 0/0 change the tested F
            BETA,
            Values("zero-division", ((), ("--zero-division", "1"))),
            Values("entropy-n", ((), ("--entropy-n", "positive", "--metric", "entropy")), combine=False),
            ALPHA,
            DEPENDENCE,
            METHOD,
            ESTIMATORS,
            PER_U,
        ),
    ),
    Variant(  # --task docred: each dataset tested as compare --task docred tests it (A vs B, then B vs A)
        "replicability from-predictions-docred",
        ("replicability", "from-predictions", "--task", "docred"),
        ("-d", "x={docred_gold},{docred_a},{docred_b}", "-d", "y={docred_gold},{docred_b},{docred_a}"),
        (
            Values("metric", (("--metric", "ign_f1"), ("--metric", "f1"), ("--metric", "power:0.5"))),
            Values("test", ((), ("-t", "randomization"))),
            Values("resamples", (("-R", "50"), ("-R", "80"))),
            SEED,
            Values("scorer", ((), ("--scorer", "atlop"), ("--scorer", "redocred"))),
            Values("train-facts", ((), ("--train-facts", "{docred_train}"))),
            Values("distant-facts", ((), ("--distant-facts", "{docred_distant}")), changes=False),  # not Ign F1's
            Values("no-evidence", ((), ("--no-evidence",)), changes=False),  # Ign F1 reads no evidence
            Values(
                "dataset-setting",
                ((), ("--dataset-setting", "x:train_facts={docred_train}"), ("--dataset-setting", "y:scorer=atlop")),
            ),
        ),
    ),
    Variant(  # --task ranked: AUC of each dataset (P@N and F1 at a threshold are other measures)
        "replicability from-predictions-ranked",
        ("replicability", "from-predictions", "--task", "ranked"),
        ("-d", "x={ranked_gold},{ranked_a},{ranked_b}", "-R", "50"),
        (
            RANKED_DUPLICATES,
            RANKED_TIES,
            Values("at", ((), ("--at", "50")), changes=False),
            Values("threshold", ((), ("--threshold", "0.3")), changes=False),
            Values("at-recall", ((), ("--at-recall", "10"), ("--at-recall", "10", "--first-reached")), changes=False),
        ),
    ),
    Variant(
        "replicability from-predictions-e2e",
        ("replicability", "from-predictions", "--task", "e2e"),
        ("-d", "x={e2e_gold},{e2e_a},{e2e_b}", "-d", "y={e2e_gold},{e2e_c},{e2e_a}", "-R", "50"),
        (
            Values("metric", ((), ("--metric", "boundaries:micro"), ("--metric", "strict:macro"))),
            Values("types", ((), ("--types", "{types}"), ("--types", "{types_sym}"))),
            Values("by-position", ((), ("--by-position",)), changes=False),
        ),
    ),
    Variant(
        "replicability simulate",
        ("replicability", "simulate"),
        (),
        (
            Values("reps", (("-r", "20"), ("-r", "30"))),
            SEED,
            Values("n", (("--n", "100"), ("--n", "50"))),
            ALPHA,
            Values("scenario", (("--scenario", "independent"), ("--scenario", "dependent"), ("--scenario", "both"))),
            ESTIMATORS,
        ),
    ),
    Variant(
        "audit run",
        ("audit", "run"),
        ("{key}", "{cnn_part}"),
        (
            Values("train", ((), ("--train", "{train}"), ("--train", "{train}", "--train-format", "id-tsv"))),
            NEGATIVE,
            Values("formats", ((), ("--gold-format", "id-tsv"), ("--pred-format", "semeval-tsv")), changes=False),
            Values("input-format", ((), ("--input-format", "id-tsv")), changes=False),
            # the input stage score shares (releval.commands.inputs): the same values, the same promise
            Values("view", ((), ("--view", "undirected"))),
            Values("patch", ((), ("--patch", "{patch1}"), ("--patch", "{patch2}"))),
        ),
    ),
    Variant(  # the findings' numbers: only the leak check's shares depend on a setting (the train facts)
        "audit run-docred",
        ("audit", "run", "--task", "docred"),
        ("{docred_gold}", "{docred_a}"),
        (
            Values("scorer", ((), ("--scorer", "atlop"), ("--scorer", "redocred")), changes=False),
            Values("train-facts", ((), ("--train-facts", "{docred_train}"))),
            Values("distant-facts", ((), ("--distant-facts", "{docred_distant}")), changes=False),
            Values("no-evidence", ((), ("--no-evidence",)), changes=False),
        ),
    ),
    Variant(  # findings count ids and labels, which the alignment does not change (the type checks need --train)
        "audit run-positions",
        ("audit", "run"),
        ("{key}", "{rbert_rev}"),
        (Values("by-position", ((), ("--by-position",)), changes=False),),
    ),
    Variant(
        "audit run-jsonl",
        ("audit", "run"),
        ("{gold_jsonl}", "{cnn_jsonl}"),
        (
            Values("id-field", ((), ("--id-field", "guid")), changes=False),
            Values("label-field", ((), ("--label-field", "coarse")), changes=False),  # the same findings
            Values("side-id-fields", ((), ("--gold-id-field", "guid", "--pred-id-field", "guid")), changes=False),
            Values(
                "side-label-fields",
                ((), ("--gold-label-field", "coarse", "--pred-label-field", "coarse")),
                changes=False,
            ),
        ),
    ),
    Variant(
        "audit compare",
        ("audit", "compare"),
        ("{strict}", "{boundaries}"),
        (Values("dataset", ((), ("--dataset", "conll04"), ("--dataset", "ace05")), changes=False),),
    ),
)

#: The commands whose options must all be covered: every subcommand below these names.
SCOPE = ("score", "compare", "stats", "replicability", "audit")

#: Options not varied above, each with the reason it cannot change a number of the JSON output.
NOT_VARIED = {
    # how and where the result is written, not what it holds
    "* --format": "the rendering (every format renders the same result; JSON is the one compared)",
    "* --output": "where the document goes",
    "* --width": "decimals of percentages in text, Markdown and LaTeX; JSON keeps full precision",
    "* --progress": "a progress bar on stderr",
    "score --per-class": "the per-class rows side by side instead of one line per system (display only)",
    "score --perl-report": "semeval-official: the perl scorer's report instead of one line per system (display only)",
    "compare --all-pairs": "every pair's rows or the compact view in text, Markdown and LaTeX (display only)",
    "compare --per-class": "another report (per-class differences): tests/test_compare_cli_issue14.py checks it",
    "compare --rank-intervals": "adds the rank intervals (drawn with the signed resamples, seed, level and class "
    "set), every other number unchanged: tests/test_ranks.py checks them",
    "compare --evaluate-measures": "adds the measures' meta-evaluation (its own JSON block), every other number "
    "unchanged: tests/test_meta_measures.py checks it",
    "compare --splits": "--evaluate-measures only: the splits are written beside the swap rates they change",
    "compare --macro-classes": "e2e only: its signature field is varied through score-e2e (the same E2EConfig)",
    "replicability from-predictions --macro-classes": "as compare's: varied through score-e2e (the same E2EConfig)",
    "compare --allow-absent-negative": "accepts a --negative label gold lacks; without it that run is refused",
    "replicability from-predictions --allow-absent-negative": "as compare's: a permission, not a setting",
    "audit run --allow-absent-negative": "as compare's: a permission, not a setting",
    "stats --allow-absent-negative": "as compare's: a permission, not a setting",
    "audit run --on-missing": "refused by an audit, which reports what every policy does (tests/test_input_stage.py)",
    "audit run --strict-labels": "refused by an audit, which lists every label gold lacks",
    "audit run --types": "--task e2e: the types file only checks the predicted types (an error finding or none)",
    "audit run --macro-classes": "refused by an audit: it reports micro-F1 only",
    # the input stage's field names and patch: the same Config fields as score's and compare's, varied there
    # (score-jsonl, score-jsonl-sides, compare-jsonl-sides, compare-complete); the datasets here are id-TSV slices
    "replicability from-predictions --id-field": "read by the input stage score shares; varied in score-jsonl",
    "replicability from-predictions --label-field": "read by the input stage score shares; varied in score-jsonl",
    "replicability from-predictions --gold-id-field": "varied in score-jsonl-sides and compare-jsonl-sides",
    "replicability from-predictions --gold-label-field": "varied in score-jsonl-sides and compare-jsonl-sides",
    "replicability from-predictions --pred-id-field": "varied in score-jsonl-sides and compare-jsonl-sides",
    "replicability from-predictions --pred-label-field": "varied in score-jsonl-sides and compare-jsonl-sides",
    "replicability from-predictions --patch": "the patch's ids are of the whole key, not of each dataset's slice "
    "(tests/test_settings_stage.py signs a patched run against score's)",
    # setting options a command lists with the same help as every other, and refuses with the reason
    "replicability from-predictions --weighting": "refused: --metric names the one average tested",
    "replicability from-predictions --criterion": "refused: --metric names the criterion tested",
    "replicability from-predictions --relaxed": "refused: --metric names the criterion tested",
    # permissions: the numbers and the signature are those of the run without it, which refuses instead
    "score --allow-absent-negative": "accepts a --negative label gold lacks; without it that run is refused",
    "replicability simulate --figure": "also writes a histogram image; the JSON is the same",
    # inputs, not settings: which prediction files are scored (the data part of a signature covers gold only)
    "compare --system": "names the systems' prediction files (inputs)",
    "replicability from-predictions --dataset": "names each dataset's gold and prediction files (inputs)",
    # the kind of input: each value reads different files, and runs in its own variant above (score-e2e,
    # compare-e2e); the signature's task field names it
    "compare --task": "rc or e2e: run as the variants compare and compare-e2e",
    "stats --task": "auto picks rc or e2e by the file, as the variants stats and stats-e2e run them",
    "stats --train-facts": "docred: adds the leak-check column (tests/test_docred.py); stats have no signature",
    "stats --distant-facts": "refused by stats (no statistic uses them)",
    "stats --scorer": "refused by stats (no statistic uses the scorer's quirks)",
    "stats --no-evidence": "refused by stats (statistics never read evidence)",
    "score --relation-names": "docred: names shown beside the relation ids (display only; the ids stay the labels)",
    "stats --relation-names": "refused by stats (no per-relation table)",
    "compare --relation-names": "refused by compare (no per-relation table)",
    "audit run --relation-names": "refused by an audit (no per-relation table)",
    "replicability from-predictions --relation-names": "refused by replicability (no per-relation table)",
    "audit run --task": "the kind of input: run as the variants audit run (rc) and audit run-docred",
}

#: Known bugs: (variant, values) that break the promise, with the file to fix. Each is a strict xfail, so a fix
#: fails here until its entry goes. Empty: every case holds.
KNOWN_BUGS: dict[tuple[str, str], str] = {}


def _commands() -> Iterator[tuple[str, Any]]:
    """(command path, click command) of every leaf command in SCOPE."""
    register_commands([])
    root = app

    def walk(command: Any, path: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
        children = getattr(command, "commands", None)
        if children:
            for name, child in children.items():
                yield from walk(child, (*path, name))
        elif path[0] in SCOPE:
            yield " ".join(path), command

    yield from walk(root, ())


def _option_name(param: Any) -> str:
    return next(o for o in param.opts if o.startswith("--"))


def _varied(command: str, click_command: Any) -> set[str]:
    """The options (by their first long name) that some variant of `command` varies."""
    options = [p for p in click_command.params if p.param_type_name == "option"]
    by_flag = {flag: _option_name(p) for p in options for flag in [*p.opts, *p.secondary_opts]}
    found = set()
    for variant in VARIANTS:
        if " ".join(variant.command[: len(command.split())]) != command:
            continue
        for values in variant.options:
            found |= {by_flag[arg] for value in values.values for arg in value if arg in by_flag}
        found |= {by_flag[arg] for arg in variant.command if arg in by_flag}  # --task e2e of a variant
    return found


def test_every_option_is_varied_or_listed() -> None:
    """A new option of score, compare, stats, replicability or audit fails here until it is varied above (or
    listed in NOT_VARIED with the reason it cannot change a number)."""
    missing, stale = [], []
    for command, click_command in _commands():
        options = {_option_name(p) for p in click_command.params if p.param_type_name == "option"}
        listed = {k.split()[-1] for k in NOT_VARIED if k.rsplit(" ", 1)[0] in ("*", command)}
        missing += [f"{command} {o}" for o in sorted(options - _varied(command, click_command) - listed)]
        stale += [k for k in NOT_VARIED if k.rsplit(" ", 1)[0] == command and k.split()[-1] not in options]
    assert not missing, f"options neither varied nor listed in NOT_VARIED: {', '.join(missing)}"
    assert not stale, f"NOT_VARIED lists options that do not exist: {', '.join(stale)}"
    cases = {(v.name, o.name) for v in VARIANTS for o in v.options}
    assert set(KNOWN_BUGS) <= cases, f"KNOWN_BUGS names no case: {sorted(set(KNOWN_BUGS) - cases)}"
    assert {c for c, _ in _commands()} == {
        "score", "compare", "stats", "replicability analyze", "replicability from-predictions",
        "replicability simulate", "audit run", "audit compare",
    }  # fmt: skip


def _cases() -> Iterator[Any]:
    for variant in VARIANTS:
        for values in variant.options:
            bug = KNOWN_BUGS.get((variant.name, values.name))
            marks = [pytest.mark.xfail(strict=True, reason=bug)] if bug else []
            yield pytest.param(variant, values, id=f"{variant.name}:{values.name}", marks=marks)


@pytest.mark.parametrize(("variant", "values"), list(_cases()))
def test_numbers_differ_only_under_different_signatures(
    variant: Variant, values: Values, files: dict[str, str]
) -> None:
    """Every pair of the option's values, the other options at their first value."""
    docs = {}
    for value in values.values:
        code, doc, err = run(variant.argv(files, {values.name: value}))
        if code == 2 and values.refusable:
            continue
        assert code in (0, 1) and doc is not None, f"{value}: exit {code}: {err}"
        check_signatures_read_back(doc)
        docs[value] = doc
    assert len(docs) >= 2 or values.refusable
    found = [f"{a} vs {b}: {v}" for a, b in itertools.combinations(docs, 2) for v in violations(docs[a], docs[b])]
    assert not found, "\n".join(found)
    changed = any(
        not same_numbers(dict(numbers(docs[a])), dict(numbers(docs[b]))) for a, b in itertools.combinations(docs, 2)
    )
    assert changed == values.changes, f"numbers {'did not change' if values.changes else 'changed'}"


@pytest.mark.parametrize(
    "variant", [v for v in VARIANTS if not v.name.startswith(("stats", "audit"))], ids=lambda v: v.name
)
@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_random_settings_keep_the_promise(variant: Variant, files: dict[str, str], data: st.DataObject) -> None:
    """Whole settings drawn at random, then one option varied: the interactions of options (a CI level matters
    only with the bootstrap, a McNemar variant only with McNemar, a metric only with a resampling test)."""
    pool = [o for o in variant.options if o.combine]
    choice = {o.name: data.draw(st.sampled_from(o.values), label=o.name) for o in pool}
    varied = [o for o in pool if (variant.name, o.name) not in KNOWN_BUGS]
    option = data.draw(st.sampled_from(varied), label="varied")
    other = data.draw(st.sampled_from([v for v in option.values if v != choice[option.name]]), label="to")
    argv_a, argv_b = variant.argv(files, choice), variant.argv(files, {**choice, option.name: other})
    code_a, doc_a, err_a = run(argv_a)
    code_b, doc_b, err_b = run(argv_b)
    assume(code_a != 2 and code_b != 2)  # options that exclude each other (--metric with McNemar)
    # a failure names both runs and what they printed, so that one seen once can be understood from its log
    assert code_a in (0, 1) and code_b in (0, 1), f"{argv_a}: exit {code_a}: {err_a}\n{argv_b}: exit {code_b}: {err_b}"
    assert not violations(doc_a, doc_b), f"{argv_a} vs {argv_b}: {violations(doc_a, doc_b)}"


# ------------------------------------------------------------------------------------------------ same settings


def _signature(argv: tuple[str, ...]) -> str:
    code, doc, err = run(argv)
    assert code == 0, err
    (result,) = doc["results"]
    return result["signature"]


#: The fields of a comparison's test, not of the data: compare and score sign the rest alike.
TEST_FIELDS = ("test", "resamples", "seed", "confidence", "class_set", "methods")


def _without(signature: str, *fields: str) -> dict[str, str]:
    return {k: v for k, v in parse(signature).fields.items() if k not in fields}


RC_SETTINGS = st.fixed_dictionaries(
    {
        "negative": st.sampled_from(["auto", "Other", None, "Cause-Effect(e2,e1)"]),
        "weightings": st.sampled_from([("macro",), ("weighted", "entropy"), ("power:0.25",)]),
        "on_missing": st.sampled_from(["wrong", "negative"]),
    }
).filter(lambda s: s["negative"] is not None or s["on_missing"] != "negative")  # no negative class to fill with


def _rc_args(s: dict[str, Any]) -> list[str]:
    negative = ["--no-negative"] if s["negative"] is None else ["--negative", s["negative"]]
    return [*negative, *(x for w in s["weightings"] for x in ("-w", w)), "--on-missing", s["on_missing"]]


@settings(max_examples=8, deadline=None, derandomize=True)
@given(
    shared=RC_SETTINGS,
    beta=st.sampled_from([1.0, 0.5, 1.0000001]),
    zero_division=st.sampled_from([0.0, 1.0]),
    entropy_n=st.sampled_from(["all", "positive"]),
    view=st.sampled_from(["directed", "undirected"]),
    patch=st.sampled_from([None, "patch1"]),
    pred=st.sampled_from([("cnn_part", False), ("rbert_rev", True), ("rbert_rev", False)]),
)
def test_score_signs_as_the_python_api(
    files: dict[str, str],
    shared: dict[str, Any],
    beta: float,
    zero_division: float,
    entropy_n: str,
    view: str,
    patch: str | None,
    pred: tuple[str, bool],
) -> None:
    """`releval score` and `releval.score` with the same settings: the same signature, long and short."""
    name, by_position = pred
    argv = ["score", files["key"], files[name], *_rc_args(shared), "--beta", repr(beta)]
    argv += ["--zero-division", repr(zero_division), "--entropy-n", entropy_n, "--view", view]
    argv += (["--patch", files[patch]] if patch else []) + (["--by-position"] if by_position else [])
    argv += ["--allow-absent-negative"]  # Cause-Effect(e2,e1) under --view undirected is in no label: permitted here
    settings_ = {**shared, "beta": beta, "zero_division": zero_division, "entropy_n": entropy_n, "view": view}
    settings_["allow_absent_negative"] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api = releval.score(
            files["key"], files[name], **settings_, patch=patch and files[patch], by_position=by_position or None
        )
    assert _signature(tuple(argv)) == str(api.signature)
    assert parse(api.signature.format(short=True)) == api.signature


@settings(max_examples=6, deadline=None, derandomize=True)
@given(shared=RC_SETTINGS, resamples=st.sampled_from([200, 250]), seed=st.sampled_from([12345, 7]))
def test_compare_and_replicability_sign_the_data_as_score(
    files: dict[str, str], shared: dict[str, Any], resamples: int, seed: int
) -> None:
    """`compare` signs the data as `score` does (its test fields aside), `releval.compare_paired` on the same files
    as `compare`, and `replicability from-predictions` every setting it shares with them alike."""
    rc_args, test_args = _rc_args(shared), ["-R", str(resamples), "--seed", str(seed)]
    score_sig = _signature(("score", files["key"], files["cnn_part"], *rc_args))
    compare = ("compare", files["key"], "-s", f"rbert={files['rbert']}", "-s", f"cnn={files['cnn_part']}")
    compare_sig = _signature((*compare, *rc_args, *test_args))
    assert _without(compare_sig, *TEST_FIELDS, "average") == _without(score_sig, "average")
    # under `wrong` a filled system's class-weighted F is an interval: compare tests micro only, and signs so
    wrong = shared["on_missing"] == "wrong"
    assert parse(compare_sig)["average"] == ("micro" if wrong else parse(score_sig)["average"])
    assert parse(compare_sig)["test"] == "bootstrap:two-sided"
    assert (parse(compare_sig)["resamples"], parse(compare_sig)["seed"]) == (str(resamples), str(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api = releval.compare_paired(
            files["key"], {"rbert": files["rbert"], "cnn": files["cnn_part"]}, resamples=resamples, seed=seed, **shared
        )
    assert str(api.signature) == compare_sig
    dataset = f"x={files['key']},{files['rbert']},{files['cnn_part']}"
    negative = ["--no-negative"] if shared["negative"] is None else ["--negative", shared["negative"]]
    argv = ("replicability", "from-predictions", "-d", dataset, *negative, "--on-missing", shared["on_missing"])
    code, doc, err = run((*argv, *test_args))
    assert code == 0, err
    replicability = parse(doc["signature"]).fields
    shared_fields = ("view", "negative", "entropy_n", "beta", "zero_division", "missing", "resamples", "seed")
    assert {k: replicability[k] for k in shared_fields} == {k: parse(compare_sig)[k] for k in shared_fields}
    assert replicability["confidence"] == parse(compare_sig)["confidence"] == "0.95"
    # the data as score signs it: the gold digest and the alignment (issue 32: they were missing)
    assert {k: replicability[k] for k in ("gold", "alignment")} == {
        k: parse(score_sig)[k] for k in ("gold", "alignment")
    }


def test_paired_bootstrap_signs_as_compare_but_for_the_alignment(files: dict[str, str]) -> None:
    """`releval.paired_bootstrap` on label lists against `compare` of two systems: every field alike, but the
    alignment (lists are aligned by position, the files by id)."""
    labels = {
        k: [x.split("\t")[1].strip() for x in Path(files[k]).read_text().splitlines()] for k in ("key", "rbert", "att")
    }
    api = releval.paired_bootstrap(labels["key"], labels["rbert"], labels["att"], resamples=200, weightings=("macro",))
    cli = _signature(
        ("compare", files["key"], "-s", f"r={files['rbert']}", "-s", f"a={files['att']}", "-R", "200", "-w", "macro")
    )
    assert _without(str(api.signature), "alignment") == _without(cli, "alignment")
    assert (api.signature["alignment"], parse(cli)["alignment"]) == ("position", "id")


@settings(max_examples=6, deadline=None, derandomize=True)
@given(
    weightings=st.sampled_from([("macro",), ("weighted", "dodrans")]),
    types=st.sampled_from([None, "types_sym"]),
    criteria=st.sampled_from([("strict",), ("strict", "boundaries"), ("boundaries",)]),
)
def test_e2e_score_compare_and_api_sign_alike(
    files: dict[str, str], weightings: tuple[str, ...], types: str | None, criteria: tuple[str, ...]
) -> None:
    """`score --task e2e`, `releval.score_e2e`, `compare --task e2e` and `releval.compare_paired` with an
    E2EConfig: each criterion signed alike; the comparison names every criterion and its test, the rest is the
    same."""
    args = [*(x for w in weightings for x in ("-w", w)), "--criterion", ",".join(criteria)]
    args += ["--types", files[types]] if types else []
    code, doc, err = run(("score", "--task", "e2e", files["e2e_gold"], files["e2e_a"], *args))
    assert code == 0, err
    (result,) = doc["results"]
    config = releval.E2EConfig(weightings=weightings, criteria=criteria, types=types and files[types])
    api = releval.score_e2e(files["e2e_gold"], files["e2e_a"], config)
    assert {c: r["signature"] for c, r in result["criteria"].items()} == {
        c: str(r.signature) for c, r in api.results.items()
    }
    compare = ("compare", "--task", "e2e", files["e2e_gold"], "-s", f"a={files['e2e_a']}", "-s", f"b={files['e2e_b']}")
    compare_sig = _signature((*compare, *args, "-R", "200"))
    assert parse(compare_sig)["criterion"] == ",".join(criteria)
    first = result["criteria"][criteria[0]]["signature"]
    assert _without(compare_sig, *TEST_FIELDS, "criterion") == _without(first, "criterion")
    table = releval.compare_paired(
        files["e2e_gold"], {"a": files["e2e_a"], "b": files["e2e_b"]}, releval.E2EConfig(
            weightings=weightings, criteria=criteria, types=types and files[types], ner=False
        ), resamples=200
    )  # fmt: skip
    assert str(table.signature) == compare_sig


def test_confidence_is_recorded_only_where_intervals_are_drawn(files: dict[str, str]) -> None:
    """Without the bootstrap no interval is drawn: the level changes no number, so neither the document nor the
    signature holds it (a saved 0.9 next to an equal signature was a number that differed under it)."""
    systems = {"rbert": files["rbert"], "att": files["att"]}
    for tests, expected in ((("randomization",), None), (("bootstrap", "mcnemar"), 0.9)):
        table = releval.compare_paired(files["key"], systems, tests=tests, confidence=0.9, resamples=100)
        assert table.confidence == table.to_dict()["confidence"] == expected
        assert table.signature.get("confidence") == (None if expected is None else "0.9")
        assert type(table).from_dict(table.to_dict()) == table
