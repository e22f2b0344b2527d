"""No traceback from any option value: every bad value, path or combination is one line on stderr, exit 2, no output.

The table below has at least one bad value for every option and argument of every command (a test walks the
click commands and fails when one is missing), run in-process through `releval.cli.main`; a few cases run as a
real `python -m releval` process. The library refuses the same values with OptionError, a ValueError and a
RelevalError at once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest

import releval
from releval import cli
from releval.core.errors import InputError, OptionError, OutputError, RelevalError
from releval.report.output import write_atomic

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SEMEVAL = EXAMPLES / "semeval2010_task8"
KEY = str(SEMEVAL / "test_key_directed.txt")
RBERT = str(SEMEVAL / "onehaitao_rbert.txt")
CNN = str(SEMEVAL / "onehaitao_cnn.txt")
CONLL = str(EXAMPLES / "conll04" / "conll04_test_first30.json")
TYPES = str(EXAMPLES / "conll04" / "conll04_types.json")
FEWREL_GOLD = str(EXAMPLES / "fewrel" / "gold-5-1.json.gz")
FEWREL_PRED = str(EXAMPLES / "fewrel" / "pred-bow-5-1.json")


@dataclass(frozen=True)
class Case:
    """`releval *argv` must fail with exit 2 and one stderr line containing `names` (after placeholders).

    Placeholders: {missing} a path that does not exist, {dir} an existing directory with one file in it, {file} an
    existing file, {pvalues} a p-value table, {result} a `score -f json` result, {table} a check-stats table.
    `covers` names the argument a case is about (options are found in argv).
    """

    argv: tuple[str, ...]
    names: str
    covers: str = ""


def c(*argv: str, names: str, covers: str = "") -> Case:
    return Case(tuple(argv), names, covers)


SCORE = ("score", KEY, RBERT)
RANKED = (str(EXAMPLES / "ranked" / "gold.jsonl"), str(EXAMPLES / "ranked" / "cnn.tsv"))
COMPARE = ("compare", KEY, "-s", f"a={RBERT}", "-s", f"b={CNN}", "-R", "10")
COMPARE_E2E = ("compare", CONLL, "--task", "e2e", "-s", f"a={CONLL}", "-s", f"b={CONLL}", "-R", "10")
STATS_CHECK = ("check-stats", "--a", "72.5±0.3", "--b", "71.5±0.4")
FROM_PREDICTIONS = ("replicability", "from-predictions", "-d", f"x={KEY},{RBERT},{CNN}", "-R", "10")
SIMULATE = ("replicability", "simulate", "-r", "2")
AUDIT = ("audit", "run", KEY, RBERT)

CASES: list[Case] = [
    # the root
    c("--version=yes", names="--version"),
    c("nosuch", names="nosuch"),
    # score
    c("score", "{missing}", RBERT, names="{missing}", covers="gold"),
    c("score", KEY, "{missing}", names="{missing}", covers="preds"),
    c("score", KEY, "{dir}", names="{dir}", covers="preds"),
    c("score", KEY, names="PREDS: score needs prediction files"),  # no PRED and gold is no wide TSV
    c(*SCORE, "--task", "bogus", names="--task"),
    c(*SCORE, "--negative", "", names="--negative"),
    c(*SCORE, "--negative", "Other", "--no-negative", names="--negative"),
    c(*SCORE, "--no-negative=yes", names="--no-negative"),
    c(*SCORE, "-w", "micro", names="--weighting"),
    c(*SCORE, "-w", "power:abc", names="--weighting"),
    c(*SCORE, "-w", "power:inf", names="--weighting"),
    c(*SCORE, "-w", "power:nan", names="--weighting"),
    c(*SCORE, "-w", "macro", "-w", "macro", names="--weighting"),
    c(*SCORE, "-w", "power:0.5", "-w", "power:0.50", names="--weighting"),
    c(*SCORE, "--weighting", "bogus", names="--weighting"),
    c(*SCORE, "--beta", "-1", names="--beta"),
    c(*SCORE, "--beta", "nan", names="--beta"),
    c(*SCORE, "--beta", "inf", names="--beta"),
    c(*SCORE, "--beta", "abc", names="--beta"),
    c(*SCORE, "--zero-division", "nan", names="--zero-division"),
    c(*SCORE, "--zero-division", "2", names="--zero-division"),
    c(*SCORE, "--zero-division", "-0.5", names="--zero-division"),
    c(*SCORE, "--entropy-n", "bogus", names="--entropy-n"),
    c(*SCORE, "--on-missing", "maybe", names="--on-missing"),
    c(*SCORE, "--strict-labels=yes", names="--strict-labels"),
    c(*SCORE, "--by-position=yes", names="--by-position"),
    c(*SCORE, "--view", "bogus", names="--view"),
    c(*SCORE, "--patch", "{missing}", names="{missing}"),
    c(*SCORE, "--input-format", "bogus", names="--input-format"),
    c(*SCORE, "--gold-format", "bogus", names="--gold-format"),
    c(*SCORE, "--id-field", "", names="--id-field"),
    c(*SCORE, "--label-field", " ", names="--label-field"),
    c(*SCORE, "--pred-format", "bogus", names="--pred-format"),
    c(*SCORE, "--gold-id-field", "", names="--gold-id-field"),
    c(*SCORE, "--gold-label-field", " ", names="--gold-label-field"),
    c(*SCORE, "--pred-id-field", " ", names="--pred-id-field"),
    c(*SCORE, "--pred-label-field", "", names="--pred-label-field"),
    c("score", KEY, RBERT, "--task", "e2e", "--pred-format", "jsonl", names="--pred-format"),
    c(*SCORE, "--criterion", "strict", names="--criterion"),
    c("score", CONLL, CONLL, "--task", "e2e", "--criterion", "bogus", names="--criterion"),
    c("score", CONLL, CONLL, "--task", "e2e", "--criterion", "relaxed", names="--criterion"),
    c(*SCORE, "--types", TYPES, names="--types"),
    c("score", CONLL, CONLL, "--task", "e2e", "--types", "{missing}", names="{missing}"),
    c(*SCORE, "--relaxed", names="--relaxed"),
    c(*SCORE, "--macro-classes", "gold+pred", names="--macro-classes"),
    c("score", CONLL, CONLL, "--task", "e2e", "--macro-classes", "union", names="--macro-classes"),
    c("score", CONLL, CONLL, "--task", "e2e", "--macro-classes", "declared", names="--macro-classes"),
    c(*SCORE, "--negative", "Othr", names="--negative"),
    c("score", *RANKED, "--task", "ranked", "--at", "100,x", names="--at"),
    c("score", *RANKED, "--task", "ranked", "--at", "-5", names="--at"),
    c("score", *RANKED, "--task", "ranked", "--threshold", "nan", names="--threshold"),
    c("score", *RANKED, "--task", "ranked", "--pred-format", "semeval", names="--pred-format"),
    c("score", *RANKED, "--task", "ranked", "--gold-format", "jsonl", names="--gold-format"),
    c(
        "compare",
        RANKED[0],
        "--task",
        "ranked",
        "-s",
        f"a={RANKED[1]}",
        "-s",
        f"b={RANKED[1]}",
        "-t",
        "mcnemar",
        names="--test",
    ),
    c(
        "compare",
        RANKED[0],
        "--task",
        "ranked",
        "-s",
        f"a={RANKED[1]}",
        "-s",
        f"b={RANKED[1]}",
        "--per-class",
        names="--per-class",
    ),
    c(*SCORE, "--allow-absent-negative=yes", names="--allow-absent-negative"),
    c("score", CONLL, CONLL, "--task", "e2e", "--allow-absent-negative", names="--allow-absent-negative"),
    c(*SCORE, "--per-class=yes", names="--per-class"),
    c(*SCORE, "--progress=yes", names="--progress"),
    c(*SCORE, "--no-progress=yes", names="--no-progress"),
    c(*SCORE, "--task", "semeval-official", "--per-class", names="--per-class"),
    c("score", CONLL, CONLL, "--task", "e2e", "--negative", "Other", names="--negative"),
    c("score", CONLL, CONLL, "--task", "e2e", "--beta", "-2", names="--beta"),
    c(*SCORE, "--task", "semeval-official", "-w", "macro", names="--weighting"),
    c(*SCORE, "--task", "semeval-official", "--perl-report", "-f", "csv", names="--perl-report"),
    c(*SCORE, "--perl-report", names="--perl-report"),
    c(*SCORE, "--format", "bogus", names="--format"),
    c(*SCORE, "--width", "-1", names="--width"),
    c(*SCORE, "--width", "16", names="--width"),
    c(*SCORE, "--width", "abc", names="--width"),
    c(*SCORE, "--widht", "3", names="--widht"),
    c(*SCORE, "-o", "{dir}", names="--output"),
    c(*SCORE, "-o", "{file}/sub/out.txt", names="--output"),
    # stats
    c("stats", "{missing}", names="{missing}", covers="files"),
    c("stats", KEY, "--negative", "", names="--negative"),
    c("stats", KEY, "--view", "bogus", names="--view"),
    c("stats", CONLL, "--view", "directed", names="--view"),
    c("stats", KEY, "--input-format", "bogus", names="--input-format"),
    c("stats", KEY, "--task", "bogus", names="--task"),
    c("stats", KEY, "--task", "semeval-official", names="--task"),  # no dataset statistics of its own
    c("compare", KEY, RBERT, CNN, "--task", "semeval-official", names="--task"),  # nothing to resample
    c("stats", KEY, "--compare", names="--compare"),
    c("stats", CONLL, CONLL, CONLL, "--compare", names="--compare"),
    c("stats", KEY, "--format", "bogus", names="--format"),
    c("stats", KEY, "--output", "{dir}", names="--output"),
    # compare
    c("compare", "{missing}", "-s", f"a={RBERT}", "-s", f"b={CNN}", names="{missing}", covers="gold"),
    c("compare", KEY, "-s", "nameless", "-s", f"b={CNN}", names="--system"),
    c("compare", KEY, "{missing}", CNN, "-R", "10", names="{missing}", covers="preds"),
    c("compare", KEY, CNN, "-R", "10", names="two or more systems", covers="preds"),
    c("compare", KEY, "-s", f"a={RBERT}", "-s", f"a={CNN}", names="--system"),
    c("compare", KEY, "-s", f"a={RBERT}", "-s", "b={missing}", names="{missing}"),
    c("compare", KEY, RBERT, "{missing}", names="{missing}", covers="preds"),
    c("compare", KEY, names="PREDS: compare needs prediction files"),
    c(*COMPARE, "--task", "bogus", names="--task"),
    c(*COMPARE, "--test", "bogus", names="--test"),
    c(*COMPARE_E2E, "-t", "mcnemar", names="--test"),
    c(*COMPARE, "--mcnemar", "bogus", names="--mcnemar"),
    c(*COMPARE, "--criterion", "strict", names="--criterion"),
    c(*COMPARE, "-w", "macro", "-w", "macro", names="--weighting"),
    c(*COMPARE, "--negative", "Othr", names="--negative"),
    c(*COMPARE, "--allow-absent-negative=yes", names="--allow-absent-negative"),
    c(*COMPARE_E2E, "--allow-absent-negative", names="--allow-absent-negative"),
    c(*COMPARE, "--macro-classes", "declared", names="--macro-classes"),
    c(*COMPARE_E2E, "--macro-classes", "gold+pred", names="--macro-classes"),
    c(*COMPARE, "--per-class=yes", names="--per-class"),
    c(*COMPARE, "--per-class", "--test", "mcnemar", names="--test"),
    c("compare", KEY, "-s", f"a={RBERT}", "-s", f"b={CNN}", "-s", f"c={CNN}", "--per-class", names="--per-class"),
    c("compare", KEY, "-s", "a=no/such/*.txt", "-s", f"b={CNN}", names="--system"),
    c(*COMPARE_E2E, "--criterion", "bogus", names="--criterion"),
    c(*COMPARE, "--ner", names="--ner"),
    c(*COMPARE, "--types", TYPES, names="--types"),
    c(*COMPARE, "-w", "bogus", names="--weighting"),
    c(*COMPARE, "--weighting", "micro", names="--weighting"),
    c(*COMPARE, "-R", "0", names="--resamples"),
    c(*COMPARE, "--resamples", "abc", names="--resamples"),
    c(*COMPARE, "--seed", "-1", names="--seed"),
    c(*COMPARE, "--alternative", "bogus", names="--alternative"),
    c(*COMPARE, "--confidence", "1.5", names="--confidence"),
    c(*COMPARE, "--confidence", "0", names="--confidence"),
    c(*COMPARE, "--confidence", "nan", names="--confidence"),
    c(*COMPARE, "--class-set", "gold", names="--class-set"),
    c(*COMPARE, "--baseline", "zzz", names="--baseline"),
    c(*COMPARE, "--correction", "bogus", names="--correction"),
    c(*COMPARE, "--negative", "", names="--negative"),
    c(*COMPARE, "--negative", "Other", "--no-negative", names="--negative"),
    c(*COMPARE, "--no-negative=yes", names="--no-negative"),
    c(*COMPARE, "--on-missing", "maybe", names="--on-missing"),
    c(*COMPARE_E2E, "--on-missing", "negative", names="--on-missing"),
    c(*COMPARE, "--by-position=yes", names="--by-position"),
    c(*COMPARE, "--input-format", "bogus", names="--input-format"),
    c(*COMPARE, "--gold-format", "bogus", names="--gold-format"),
    c(*COMPARE, "--id-field", "", names="--id-field"),
    c(*COMPARE, "--label-field", "", names="--label-field"),
    c(*COMPARE, "--progress=yes", names="--progress"),
    c("compare", KEY, RBERT, "{missing}", "-R", "10", names="{missing}", covers="preds"),
    c(*COMPARE, "--all-pairs=yes", names="--all-pairs"),
    c(*COMPARE, "--compact=yes", names="--compact"),
    c(*COMPARE, "--rank-intervals=yes", names="--rank-intervals"),
    c(*COMPARE, "--evaluate-measures=yes", names="--evaluate-measures"),
    c(*COMPARE, "--evaluate-measures", "--baseline", "a", names="--evaluate-measures"),
    c(*COMPARE, "--evaluate-measures", "--splits", "0", names="--splits"),
    c(*COMPARE, "--no-progress=yes", names="--no-progress"),
    c(*COMPARE, "--format", "bogus", names="--format"),
    c(*COMPARE, "--width", "-1", names="--width"),
    c(*COMPARE, "-o", "{dir}", names="--output"),
    # check-stats
    c("check-stats", "--a", "x", "--b", "71.5±0.4", names="--a"),
    c("check-stats", "--a", "72.5±0.3", "--b", "y", names="--b"),
    c("check-stats", "--a", "72.5±0.3", names="--b"),
    c(*STATS_CHECK, "--n", "1", names="--n"),
    c(*STATS_CHECK, "--n", "abc", names="--n"),
    c(*STATS_CHECK, "--n-b", "1", names="--n-b"),
    c(*STATS_CHECK, "--claimed-p", "7", names="--claimed-p"),
    c(*STATS_CHECK, "--claimed-d", "x", names="--claimed-d"),
    c(*STATS_CHECK, "--claimed-p", "1e400", names="--claimed-p"),  # was an OverflowError
    c(*STATS_CHECK, "--claimed-d", "-10^999", names="--claimed-d"),
    c("check-stats", "--table", "{missing}", names="{missing}"),
    c("check-stats", "--table", "{table}", "--a", "72.5±0.3", names="--a"),
    c("check-stats", "--table", "{table}", "--claimed-p", "0.01", names="--claimed-p"),
    c(*STATS_CHECK, "--alternative", "bogus", names="--alternative"),
    c(*STATS_CHECK, "--reading", "bogus", names="--reading"),
    c(*STATS_CHECK, "--format", "bogus", names="--format"),
    c(*STATS_CHECK, "-o", "{dir}", names="--output"),
    # replicability analyze
    c("replicability", "analyze", "{missing}", names="{missing}", covers="pvalues"),
    c("replicability", "analyze", "{pvalues}", "--alpha", "2", names="--alpha"),
    c("replicability", "analyze", "{pvalues}", "-a", "0", names="--alpha"),
    c("replicability", "analyze", "{pvalues}", "-a", "nan", names="--alpha"),
    c("replicability", "analyze", "{pvalues}", "--independent", "--positive-dependence", names="--independent"),
    c("replicability", "analyze", "{pvalues}", "--dependent=yes", names="--dependent"),
    c("replicability", "analyze", "{pvalues}", "--positive-dependence=yes", names="--positive-dependence"),
    c("replicability", "analyze", "{pvalues}", "--method", "tukey", names="--method"),
    c("replicability", "analyze", "{pvalues}", "--estimators", "bogus", names="--estimators"),
    c("replicability", "analyze", "{pvalues}", "--per-u=yes", names="--per-u"),
    c("replicability", "analyze", "{pvalues}", "--table-format", "xml", names="--table-format"),
    c("replicability", "analyze", "{pvalues}", "--format", "xml", names="--format"),
    c("replicability", "analyze", "{pvalues}", "-o", "{dir}", names="--output"),
    # replicability from-predictions
    c("replicability", "from-predictions", "-d", f"x={KEY},{RBERT}", names="--dataset"),
    c("replicability", "from-predictions", "-d", f"x={{missing}},{RBERT},{CNN}", names="{missing}"),
    c(*FROM_PREDICTIONS, "--on-missing", "guess", names="--on-missing"),
    c(*FROM_PREDICTIONS, "-d", f"x={KEY},{RBERT},{CNN}", names="--dataset"),
    c(*FROM_PREDICTIONS, "--test", "bogus", names="--test"),
    c(*FROM_PREDICTIONS, "--metric", "foo", names="--metric"),
    c(*FROM_PREDICTIONS, "--metric", "macro", "-t", "mcnemar", names="--metric"),
    c(*FROM_PREDICTIONS, "--resamples", "0", names="--resamples"),
    c(*FROM_PREDICTIONS, "--seed", "-1", names="--seed"),
    c(*FROM_PREDICTIONS, "--input-format", "bogus", names="--input-format"),
    c(*FROM_PREDICTIONS, "--negative", "", names="--negative"),
    c(*FROM_PREDICTIONS, "--no-negative=yes", names="--no-negative"),
    c(*FROM_PREDICTIONS, "--alpha", "1", names="--alpha"),
    c(*FROM_PREDICTIONS, "--independent", "--positive-dependence", names="--independent"),
    c(*FROM_PREDICTIONS, "--positive-dependence=yes", names="--positive-dependence"),
    c(*FROM_PREDICTIONS, "--method", "tukey", names="--method"),
    c(*FROM_PREDICTIONS, "--estimators", "bogus", names="--estimators"),
    c(*FROM_PREDICTIONS, "--per-u=yes", names="--per-u"),
    c(*FROM_PREDICTIONS, "--format", "xml", names="--format"),
    c(*FROM_PREDICTIONS, "-o", "{dir}", names="--output"),
    c(*FROM_PREDICTIONS, "--task", "bogus", names="--task"),
    c(*FROM_PREDICTIONS, "--task", "semeval-official", names="--task"),
    c(*FROM_PREDICTIONS, "--task", "docred", "-t", "mcnemar", names="--test"),
    c(*FROM_PREDICTIONS, "--dataset-setting", "x:negative=Other", names="--dataset-setting"),  # not for rc
    c(*FROM_PREDICTIONS, "--task", "docred", "--dataset-setting", "train_facts=a.fact", names="--dataset-setting"),
    c(*FROM_PREDICTIONS, "--task", "docred", "--dataset-setting", "y:train_facts=a", names="--dataset-setting"),
    c(*FROM_PREDICTIONS, "--task", "docred", "--dataset-setting", "x:scorer=bogus", names="--dataset-setting"),
    # replicability simulate
    c("replicability", "simulate", "--reps", "0", names="--reps"),
    c(*SIMULATE, "--no-progress=yes", names="--no-progress"),
    c(*FROM_PREDICTIONS, "--progress=yes", names="--progress"),
    c(*SIMULATE, "--seed", "-1", names="--seed"),
    c(*SIMULATE, "--n", "0", names="--n"),
    c(*SIMULATE, "--n", "5", names="--n"),
    c(*SIMULATE, "--alpha", "1.5", names="--alpha"),
    c(*SIMULATE, "--scenario", "bogus", names="--scenario"),
    c(*SIMULATE, "--estimators", "bogus", names="--estimators"),
    c(*SIMULATE, "--figure", "{missing}.gif", names="--figure"),
    c(*SIMULATE, "--figure", "{dir}", names="--figure"),
    c(*SIMULATE, "--format", "xml", names="--format"),
    c(*SIMULATE, "-o", "{dir}", names="--output"),
    # audit run (and its short form) and audit compare
    c("audit", "{missing}", RBERT, names="{missing}"),
    c("audit", "run", "{missing}", RBERT, names="{missing}", covers="gold"),
    c("audit", "run", KEY, "{missing}", names="{missing}", covers="pred"),
    c(*AUDIT, "--train", "{missing}", names="{missing}"),
    c(*AUDIT, "--negative", "", names="--negative"),
    c(*AUDIT, "--negative", "Other", "--no-negative", names="--negative"),
    c(*AUDIT, "--no-negative=yes", names="--no-negative"),
    c(*AUDIT, "--gold-format", "bogus", names="--gold-format"),
    c(*AUDIT, "--pred-format", "bogus", names="--pred-format"),
    c(*AUDIT, "--train", KEY, "--train-format", "bogus", names="--train-format"),
    c(*AUDIT, "--train-format", "semeval", names="--train-format"),
    c(*AUDIT, "--id-field", "", names="--id-field"),
    c(*AUDIT, "--label-field", "", names="--label-field"),
    c(*AUDIT, "--format", "csv", names="--format"),
    c(*AUDIT, "--task", "bogus", names="--task"),
    c(*AUDIT, "--task", "ranked", names="--task"),
    c(*AUDIT, "--task", "docred", "--train", KEY, names="--train"),
    c(*AUDIT, "-o", "{dir}", names="--output"),
    c("audit", "compare", "{result}", "{missing}", names="{missing}", covers="results"),
    c("audit", "compare", "{result}", "{result}", "--dataset", "bogus", names="--dataset"),
    c("audit", "compare", "{result}", "{result}", "--format", "csv", names="--format"),
    c("audit", "compare", "{result}", "{result}", "-o", "{dir}", names="--output"),
    # claims
    c("claims", "list", "--dataset", "bogus", names="--dataset"),
    c("claims", "list", "--criterion", "bogus", names="--criterion"),
    c("claims", "list", "--format", "csv", names="--format"),
    c("claims", "list", "-o", "{dir}", names="--output"),
    c("claims", "check", "{missing}", names="{missing}", covers="result"),
    c("claims", "check", "{result}", "--dataset", "bogus", names="--dataset"),
    c("claims", "check", "{result}", "--format", "csv", names="--format"),
    c("claims", "check", "{result}", "-o", "{dir}", names="--output"),
]


#: A bad value of every input option (releval.commands.inputs.INPUT_OPTIONS), given to every command that reads
#: gold and predictions (READERS, filled as the commands register): the same option is refused the same way by each.
INPUT_BAD_VALUES: dict[str, tuple[tuple[str, ...], str]] = {
    "--input-format": (("--input-format", "bogus"), "--input-format"),
    "--gold-format": (("--gold-format", "bogus"), "--gold-format"),
    "--pred-format": (("--pred-format", "bogus"), "--pred-format"),
    "--id-field": (("--id-field", ""), "--id-field"),
    "--label-field": (("--label-field", " "), "--label-field"),
    "--gold-id-field": (("--gold-id-field", ""), "--gold-id-field"),
    "--gold-label-field": (("--gold-label-field", " "), "--gold-label-field"),
    "--pred-id-field": (("--pred-id-field", " "), "--pred-id-field"),
    "--pred-label-field": (("--pred-label-field", ""), "--pred-label-field"),
    "--patch": (("--patch", "{missing}"), "{missing}"),
    "--view": (("--view", "bogus"), "--view"),
    "--negative": (("--negative", "Othr"), "--negative"),
    "--no-negative": (("--negative", "Other", "--no-negative"), "--negative"),
    "--allow-absent-negative": (("--allow-absent-negative=yes",), "--allow-absent-negative"),
    "--by-position": (("--by-position=yes",), "--by-position"),
    "--on-missing": (("--on-missing", "maybe"), "--on-missing"),
    "--strict-labels": (("--strict-labels=yes",), "--strict-labels"),
    "--types": (("--types", TYPES), "--types"),
    "--macro-classes": (("--macro-classes", "union"), "--macro-classes"),
    "--ties": (("--ties", "random"), "--ties"),
    "--duplicates": (("--duplicates", "sum"), "--duplicates"),
    "--at": (("--at", "0"), "--at"),
    "--threshold": (("--threshold", "high"), "--threshold"),
    "--at-recall": (("--at-recall", "0"), "--at-recall"),
    "--interpolated/--first-reached": (("--first-reached",), "--interpolated"),
    "--train-facts": (("--train-facts", "{missing}"), "--train-facts"),
    "--distant-facts": (("--distant-facts", "{missing}"), "--distant-facts"),
    "--scorer": (("--scorer", "perl"), "--scorer"),
    "--no-evidence": (("--no-evidence=yes",), "--no-evidence"),
    "--relation-names": (("--relation-names", " "), "--relation-names"),
}
cli.register_commands([])
from releval.commands.inputs import READERS  # noqa: E402  (filled by the commands' registration above)

CASES += [
    c(*reader.argv(KEY, RBERT, CNN, "{png}"), *INPUT_BAD_VALUES[flag][0], names=INPUT_BAD_VALUES[flag][1])
    for reader in READERS.values()
    for flag in reader.options
]

#: A bad value of every setting option (releval.commands.settings): every command that takes the option refuses it
#: (a command that does not use a setting refuses it too, saying why). Run on classification files: the e2e
#: options are refused for --task rc, naming the task that has them.
SETTING_BAD_VALUES: dict[str, tuple[tuple[str, ...], str]] = {
    "--weighting": (("-w", "power:nan"), "--weighting"),
    "--beta": (("--beta", "-1"), "--beta"),
    "--zero-division": (("--zero-division", "2"), "--zero-division"),
    "--entropy-n": (("--entropy-n", "bogus"), "--entropy-n"),
    "--criterion": (("--criterion", "bogus"), "--criterion"),
    "--relaxed": (("--relaxed=yes",), "--relaxed"),
}
from releval.commands.settings import SETTERS  # noqa: E402  (filled by the commands' registration above)

CASES += [
    c(*setter.argv(KEY, RBERT, CNN, "{png}"), *SETTING_BAD_VALUES[flag][0], names=SETTING_BAD_VALUES[flag][1])
    for setter in SETTERS.values()
    for flag in setter.options
]


#: `releval plot`: each subcommand (a figure file named .png, so only the case's own mistake is refused) and the
#: mistakes of the options they share.
PLOTS = {
    "weights": ("plot", "weights", KEY, "-o", "{png}"),
    "per-class": ("plot", "per-class", KEY, RBERT, "-o", "{png}"),
    "bootstrap": ("plot", "bootstrap", KEY, CNN, RBERT, "-R", "10", "-o", "{png}"),
    "confusion": ("plot", "confusion", KEY, RBERT, "-o", "{png}"),
}
PLOT_SHARED = [
    (("--negative", ""), "--negative"),
    (("--negative", "Other", "--no-negative"), "--negative"),
    (("--negative", "Othr"), "--negative"),
    (("--no-negative=yes",), "--no-negative"),
    (("--allow-absent-negative=yes",), "--allow-absent-negative"),
    (("--view", "bogus"), "--view"),
    (("--input-format", "bogus"), "--input-format"),
    (("--gold-format", "bogus"), "--gold-format"),
    (("--id-field", ""), "--id-field"),
    (("--label-field", " "), "--label-field"),
    (("--data-json", "{dir}"), "--data-json"),
    (("--data-json", "{png}"), "--data-json"),
    (("--dataset", " "), "--dataset"),
    (("--dpi", "0"), "--dpi"),
]
CASES += [c(*PLOTS[name], *argv, names=names) for name in PLOTS for argv, names in PLOT_SHARED]
CASES += [
    c(*PLOTS[name], *argv, names=names)
    for name in ("per-class", "bootstrap", "confusion")
    for argv, names in ((("--on-missing", "maybe"), "--on-missing"), (("--by-position=yes",), "--by-position"))
]
CASES += [
    c(*PLOTS[name], *argv, names=names)
    for name in ("weights", "per-class", "bootstrap")
    for argv, names in ((("--entropy-n", "bogus"), "--entropy-n"),)
]
CASES += [
    c(*PLOTS["per-class"], "--task", "bogus", names="--task"),
    c(*PLOTS["per-class"], "--task", "e2e", names="--task"),
]
CASES += [
    c("plot", "weights", "{missing}", "-o", "{png}", names="{missing}", covers="gold"),
    c("plot", "weights", KEY, "-o", "{dir}", names="--output"),
    c("plot", "weights", KEY, "-o", "{file}/sub/w.png", names="--output"),
    c("plot", "weights", KEY, "-o", "{png}.jpg", names="--output"),
    c(*PLOTS["weights"], "-w", "micro", names="--weighting"),
    c("plot", "per-class", "{missing}", RBERT, "-o", "{png}", names="{missing}", covers="gold"),
    c("plot", "per-class", KEY, "{missing}", "-o", "{png}", names="{missing}", covers="preds"),
    c("plot", "per-class", KEY, "-o", "{png}", names="PREDS", covers="preds"),
    c("plot", "per-class", KEY, RBERT, "-o", "{dir}", names="--output"),
    c(*PLOTS["per-class"], "--metric", "bogus", names="--metric"),
    c(*PLOTS["per-class"], "-w", "power:nan", names="--weighting"),
    c("plot", "bootstrap", "{missing}", CNN, RBERT, "-o", "{png}", names="{missing}", covers="gold"),
    c("plot", "bootstrap", KEY, "{missing}", RBERT, "-o", "{png}", names="{missing}", covers="a"),
    c("plot", "bootstrap", KEY, CNN, "{missing}", "-o", "{png}", names="{missing}", covers="b"),
    c("plot", "bootstrap", KEY, CNN, RBERT, "-o", "{dir}", names="--output"),
    c(*PLOTS["bootstrap"], "--average", "bogus", names="--average"),
    c(*PLOTS["bootstrap"], "--class", "Other", names="--class"),
    c(*PLOTS["bootstrap"], "--class", " ", names="--class"),
    c(*PLOTS["bootstrap"], "--class", "Other", "--average", "macro", names="--class"),
    c(*PLOTS["bootstrap"], "--resamples", "0", names="--resamples"),
    c(*PLOTS["bootstrap"], "--seed", "-1", names="--seed"),
    c(*PLOTS["bootstrap"], "--confidence", "1", names="--confidence"),
    c(*PLOTS["bootstrap"], "--alternative", "bogus", names="--alternative"),
    c("plot", "confusion", "{missing}", RBERT, "-o", "{png}", names="{missing}", covers="gold"),
    c("plot", "confusion", KEY, "{missing}", "-o", "{png}", names="{missing}", covers="pred"),
    c("plot", "confusion", KEY, RBERT, "-o", "{dir}", names="--output"),
    c(*PLOTS["confusion"], "--normalize=yes", names="--normalize"),
    c(*PLOTS["confusion"], "--label", "Bogus", names="--label"),
    c("plot", "episodes", "{missing}", FEWREL_PRED, "-o", "{png}", names="{missing}", covers="gold"),
    c("plot", "episodes", FEWREL_GOLD, "{missing}", "-o", "{png}", names="{missing}", covers="preds"),
    c("plot", "episodes", FEWREL_GOLD, "-o", "{png}", names="PREDS", covers="preds"),
    c("plot", "episodes", FEWREL_GOLD, FEWREL_PRED, "-o", "{dir}", names="--output"),
    c("plot", "episodes", FEWREL_GOLD, FEWREL_PRED, "-o", "{png}", "--data-json", "{dir}", names="--data-json"),
    c("plot", "episodes", FEWREL_GOLD, FEWREL_PRED, "-o", "{png}", "--dataset", " ", names="--dataset"),
    c("plot", "episodes", FEWREL_GOLD, FEWREL_PRED, "-o", "{png}", "--dpi", "0", names="--dpi"),
]
PR_CURVE = ("plot", "pr-curve", *RANKED)
CASES += [
    c("plot", "pr-curve", "{missing}", RANKED[1], "-o", "{png}", names="{missing}", covers="gold"),
    c("plot", "pr-curve", RANKED[0], "{missing}", "-o", "{png}", names="{missing}", covers="preds"),
    c("plot", "pr-curve", RANKED[0], "-o", "{png}", names="PREDS", covers="preds"),
    c(*PR_CURVE, "-o", "{dir}", names="--output"),
    c(*PR_CURVE, "-o", "{png}", "--negative", "", names="--negative"),
    c(*PR_CURVE, "-o", "{png}", "--ties", "random", names="--ties"),
    c(*PR_CURVE, "-o", "{png}", "--duplicates", "sum", names="--duplicates"),
    c(*PR_CURVE, "-o", "{png}", "--at", "0", names="--at"),
    c(*PR_CURVE, "-o", "{png}", "--data-json", "{dir}", names="--data-json"),
    c(*PR_CURVE, "-o", "{png}", "--dataset", " ", names="--dataset"),
    c(*PR_CURVE, "-o", "{png}", "--dpi", "0", names="--dpi"),
]

SUBMIT = ("--board", "http://127.0.0.1:9", "--token", "t", "--benchmark", "b", "--entry", "e")
CASES += [
    # the leaderboard service: every case is refused before a server starts or a database is opened
    c("serve", "--host", " ", names="--host"),
    c("serve", "--port", "0", names="--port"),
    c("serve", "--workers", "-1", names="--workers"),
    c("serve", "--examples=yes", names="--examples"),
    c("serve", "--database-url", "mysql://h/db", names="--database-url"),
    c("serve", "--data-dir", "{file}", names="{file}"),
    c("worker", "--burst=yes", names="--burst"),
    c("worker", "--database-url", "sqlite://", names="--database-url"),
    c("worker", "--data-dir", "{file}", names="{file}"),
    c("token", " ", names="NAME", covers="name"),
    c("token", "x" * 101, names="NAME", covers="name"),
    c("token", "x", "--admin=yes", names="--admin"),
    c("token", "x", "--database-url", "redis://h/0", names="--database-url"),
    c("token", "x", "--data-dir", "{file}", names="{file}"),
    c("benchmark", "Bad Slug", KEY, names="SLUG", covers="slug"),
    c("benchmark", "ok", "{missing}", names="{missing}", covers="gold"),
    c("benchmark", "ok", KEY, "--title", " ", names="--title"),
    c("benchmark", "ok", KEY, "--task", "ner", names="--task"),
    c("benchmark", "ok", KEY, "--dev", "{missing}", names="{missing}"),
    c("benchmark", "ok", KEY, "--setting", "view", names="--setting"),
    c("benchmark", "ok", KEY, "--setting", "bogus=1", "--data-dir", "{dir}", names="bogus"),
    c(
        "benchmark",
        "ok",
        RANKED[0],
        "--task",
        "ranked",
        "--measure",
        "p@10%",
        "--data-dir",
        "{dir}",
        names="unknown measure 'p@10%' of task 'ranked' under this benchmark's settings",
    ),  # no at_recall=10
    c("benchmark", "ok", CONLL, "--task", "e2e", "--negative", "Other", names="--negative"),
    c("benchmark", "ok", KEY, "--negative", "", names="--negative"),
    c("benchmark", "ok", KEY, "--no-negative=yes", names="--no-negative"),
    c("benchmark", "ok", KEY, "--resamples", "0", names="--resamples"),
    c("benchmark", "ok", KEY, "--seed", "-1", names="--seed"),
    c("benchmark", "ok", KEY, "--database-url", "postgresql://h/", names="--database-url"),
    c("benchmark", "ok", KEY, "--data-dir", "{file}", names="{file}"),
    c("submit", "{missing}", *SUBMIT, names="{missing}", covers="pred"),
    c("submit", RBERT, *SUBMIT, names="cannot reach the board at http://127.0.0.1:9"),
    c("submit", RBERT, *SUBMIT, "--board", "ftp://h", names="--board"),
    c("submit", RBERT, *SUBMIT, "--token", " ", names="--token"),
    c("submit", RBERT, *SUBMIT, "--benchmark", "", names="--benchmark"),
    c("submit", RBERT, *SUBMIT, "--entry", " ", names="--entry"),
    c("submit", RBERT, *SUBMIT, "--seed", "", names="--seed"),
    c("submit", RBERT, *SUBMIT, "--paper", "ftp://h/p.pdf", names="--paper"),
    c("submit", RBERT, *SUBMIT, "--selection", "bogus", names="--selection"),
    c("submit", RBERT, *SUBMIT, "--split", "train", names="--split"),
    c("submit", RBERT, *SUBMIT, "--input-format", "xml", names="--input-format"),
    c("submit", RBERT, *SUBMIT, "--training-data", "x" * 201, names="--training-data"),
    c("submit", RBERT, *SUBMIT, "--wait", "-1", names="--wait"),
]
#: Commands without an --output option (the service's).
NO_OUTPUT = ("--version=yes", "nosuch", "serve", "worker", "token", "benchmark", "submit")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Valid input files the cases refer to, made once."""
    root = tmp_path_factory.mktemp("inputs")
    (root / "pvalues.csv").write_text("dataset,p\nA,0.01\nB,0.20\nC,0.03\n", encoding="utf-8")
    (root / "table.csv").write_text("name,a,b,n\nx,72.5±0.3,71.5±0.4,5\n", encoding="utf-8")
    result = root / "result.json"
    assert cli.main(["score", KEY, RBERT, "-f", "json", "-o", str(result)]) == 0
    return {"pvalues": str(root / "pvalues.csv"), "table": str(root / "table.csv"), "result": str(result)}


def _fill(text: str, places: dict[str, str]) -> str:
    for key, value in places.items():
        text = text.replace("{" + key + "}", value)
    return text


def _has_output_option(argv: list[str]) -> bool:
    return argv[0] not in NO_OUTPUT


def _setup(tmp_path: Path, inputs: dict[str, str]) -> tuple[dict[str, str], Path, Path]:
    """Placeholders, the output folder (must stay empty) and the existing directory (must stay unchanged)."""
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "keep.txt").write_text("keep", encoding="utf-8")
    outdir = tmp_path / "outdir"
    outdir.mkdir()
    places = {
        **inputs,
        "missing": str(tmp_path / "missing.txt"),
        "dir": str(existing),
        "file": str(existing / "keep.txt"),
        "png": str(outdir / "figure.png"),  # `releval plot`'s output: a figure's suffix
    }
    return places, outdir, existing


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"" for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("case", CASES, ids=lambda case: " ".join(case.argv)[:90])
def test_bad_value_is_one_line_exit_2(
    case: Case, inputs: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    places, outdir, existing = _setup(tmp_path, inputs)
    argv = [_fill(a, places) for a in case.argv]
    output = outdir / "out.txt"
    if _has_output_option(argv) and not {"-o", "--output"} & set(argv):
        argv += ["-o", str(output)]
    before = _snapshot(existing)
    code = cli.main(argv)
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert code == 2, (argv, captured.err)
    assert "Traceback" not in captured.err
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")
    assert _fill(case.names, places) in lines[0]
    assert captured.out == ""
    assert not output.exists() and list(outdir.iterdir()) == []
    assert _snapshot(existing) == before


def _parameters() -> dict[tuple[str, ...], list[tuple[str, tuple[str, ...]]]]:
    """Every command path (() is the root) with its parameters: (name, spellings); arguments have no spellings."""
    cli.register_commands([])
    found: dict[tuple[str, ...], list[tuple[str, tuple[str, ...]]]] = {}

    def walk(cmd: click.Command, path: tuple[str, ...]) -> None:
        found[path] = [
            (str(p.name), () if p.param_type_name == "argument" else (*p.opts, *p.secondary_opts))
            for p in cmd.params
            if p.name != "help"
        ]
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, (*path, name))

    walk(cli.app, ())
    return found


def _command_of(case: Case, paths: set[tuple[str, ...]]) -> tuple[str, ...]:
    """The longest command path the case's argv starts with (`audit GOLD PRED` is `audit run`)."""
    best: tuple[str, ...] = ()
    for path in paths:
        if tuple(case.argv[: len(path)]) == path and len(path) > len(best):
            best = path
    return ("audit", "run") if best == ("audit",) else best


def test_every_option_of_every_command_has_a_bad_value() -> None:
    params = _parameters()
    assert {("score",), ("stats",), ("compare",), ("check-stats",), ("audit", "run"), ("claims", "check")} <= set(
        params
    )
    covered: dict[tuple[str, ...], set[str]] = {}
    for case in CASES:
        path = _command_of(case, set(params))
        words = {arg.split("=", 1)[0] for arg in case.argv}
        names = covered.setdefault(path, set())
        names.update(name for name, spellings in params[path] if words & set(spellings))
        if case.covers:
            names.add(case.covers)
    missing = {
        " ".join(path) or "(root)": sorted(set(name for name, _ in plist) - covered.get(path, set()))
        for path, plist in params.items()
        if plist and set(name for name, _ in plist) - covered.get(path, set())
    }
    assert missing == {}


def _leaf_commands() -> list[tuple[tuple[str, ...], click.Command]]:
    cli.register_commands([])
    found = []

    def walk(cmd: click.Command, path: tuple[str, ...]) -> None:
        children = getattr(cmd, "commands", None)
        if children:
            for name, sub in children.items():
                walk(sub, (*path, name))
        else:
            found.append((path, cmd))

    walk(cli.app, ())
    return found


@pytest.mark.parametrize("path", [p for p, _ in _leaf_commands()], ids=" ".join)
def test_help_shows_flags_as_flags_and_lists_choices(path: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    """A boolean option is a flag (`--no-negative`, no metavar, no `[default: False]`: click < 8.1 printed that
    for every flag, so 8.1 is the floor); a fixed set of values is listed (`--view [directed|undirected]`)."""
    command = dict(_leaf_commands())[path]
    assert cli.main([*path, "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"Usage: releval {' '.join(path)} [OPTIONS]" in help_text
    assert "[default: False]" not in help_text
    ctx = click.Context(command, info_name=path[-1])
    for param in command.params:
        record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
        if record is None:
            continue
        spellings, text = record
        assert " ".join(spellings.split()) in help_text, param.name
        if isinstance(param, click.Option) and param.is_flag:
            assert all(word.startswith("-") for word in spellings.replace(",", " ").replace("/", " ").split())
        elif isinstance(param.type, click.Choice):
            assert spellings.endswith(f" [{'|'.join(param.type.choices)}]"), param.name
        assert " ".join((param.help or "").split()) in " ".join(text.split()), param.name


@pytest.mark.parametrize(
    "argv, names",
    [
        (["score", KEY, RBERT, "-w", "micro"], "--weighting"),
        (["compare", KEY, "-s", f"a={RBERT}", "-s", f"b={CNN}", "--confidence", "1.5"], "--confidence"),
        (["score", KEY, RBERT, "--width", "abc"], "--width"),
        (["stats", KEY, "-o", "{dir}"], "--output"),
    ],
)
def test_real_process_prints_one_line_and_exits_2(argv: list[str], names: str, tmp_path: Path) -> None:
    existing = tmp_path / "existing"
    existing.mkdir()
    argv = [a.replace("{dir}", str(existing)) for a in argv]
    if "-o" not in argv:
        argv += ["-o", str(tmp_path / "out.txt")]
    env = {**os.environ, "COLUMNS": "60"}  # a narrow terminal must not wrap the message onto a second line
    proc = subprocess.run(
        [sys.executable, "-m", "releval", *argv], capture_output=True, text=True, env=env, check=False
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("error: ") and names in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert not (tmp_path / "out.txt").exists() and list(existing.iterdir()) == []


def test_write_atomic_raises_output_error(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="is a directory") as info:
        write_atomic(tmp_path, "x")
    assert isinstance(info.value, OSError) and isinstance(info.value, RelevalError)
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(OSError, match="cannot write output"):
        write_atomic(blocker / "sub" / "out.txt", "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize(
    "options, match",
    [
        ({"beta": -1}, "beta"),
        ({"beta": float("nan")}, "beta"),
        ({"beta": float("inf")}, "beta"),
        ({"zero_division": float("nan")}, "zero_division"),
        ({"zero_division": 2.0}, "zero_division"),
        ({"weightings": ["micro"]}, "weightings"),
        ({"weightings": ["power:inf"]}, "weightings"),
        ({"entropy_n": "some"}, "entropy_n"),
        ({"on_missing": "maybe"}, "on_missing"),
        ({"view": "sideways"}, "view"),
    ],
)
def test_library_score_refuses_bad_settings(options: dict[str, object], match: str) -> None:
    """The library names the parameter as the caller wrote it (the command line names the flag instead)."""
    with pytest.raises(ValueError, match=f"^{match}[ :]") as info:
        releval.score(KEY, RBERT, **options)  # type: ignore[arg-type]
    assert isinstance(info.value, RelevalError) and isinstance(info.value, OptionError)
    assert info.value.option == match


def test_beta_zero_is_precision() -> None:
    """β = 0 is allowed: F_0 = TP / (TP + FP) is precision, which the formula gives without special cases."""
    result = releval.score(KEY, RBERT, beta=0.0)
    for row in result.per_class:
        assert row.f == pytest.approx(row.precision)


def test_library_statistics_refuse_bad_settings() -> None:
    from releval.audit.published import check_stats
    from releval.replicability.analysis import analyze, pvalues_from_predictions
    from releval.replicability.simulation import simulate
    from releval.significance.compare import compare_paired
    from releval.significance.paired import paired_bootstrap

    gold, a, b = ["x", "y", "x", "O"], ["x", "x", "x", "O"], ["y", "y", "x", "O"]
    with pytest.raises(ValueError, match="^confidence must lie strictly between 0 and 1, got 1.5"):
        paired_bootstrap(gold, a, b, confidence=1.5, resamples=10)
    with pytest.raises(ValueError, match="^seed "):
        paired_bootstrap(gold, a, b, seed=-1, resamples=10)
    with pytest.raises(ValueError, match="^resamples "):
        paired_bootstrap(gold, a, b, resamples=0)
    with pytest.raises(ValueError, match="^metric: "):
        paired_bootstrap(gold, a, b, metric="bogus", resamples=10)
    with pytest.raises(ValueError, match="^alternative: "):
        compare_paired(gold, {"a": a, "b": b}, alternative="bigger")
    with pytest.raises(ValueError, match="^tests: "):
        compare_paired(gold, {"a": a, "b": b}, tests=["t-test"])
    with pytest.raises(ValueError, match="^metric: "):
        pvalues_from_predictions([("d", gold, a, b)], metric="foo", resamples=10)
    with pytest.raises(InputError, match="^alpha "):  # an OptionError is an InputError too: old handlers still work
        analyze([0.01, 0.2], alpha=1.5)
    with pytest.raises(ValueError, match="^n "):
        check_stats("72.5±0.3", "71.5±0.4", 1)
    with pytest.raises(ValueError, match="^reps "):
        simulate(0)


def test_every_mapped_flag_exists() -> None:
    """commands/flags.FLAGS spells parameters whose flag is not their name with dashes: each flag it names is an
    option of some command (a renamed option fails here, not in a user's error message)."""
    from releval.commands.flags import FLAGS

    spellings = {s for plist in _parameters().values() for _, names in plist for s in names}
    for parameter, flags in FLAGS.items():
        for flag in flags.split("/"):
            assert flag in spellings, f"{parameter}: {flag} is no option of any command"


@pytest.mark.parametrize(
    "argv, python, flag, parameter",
    [
        (
            ["score", KEY, RBERT, "--on-missing", "x"],
            lambda: releval.score(KEY, RBERT, on_missing="x"),
            "--on-missing",
            "on_missing",
        ),
        (
            ["score", KEY, RBERT, "-w", "power:inf"],
            lambda: releval.score(KEY, RBERT, weightings=["power:inf"]),
            "--weighting",
            "weightings",
        ),
        (
            ["compare", KEY, "-s", f"a={RBERT}", "-s", f"b={CNN}", "--mcnemar", "x", "-t", "mcnemar"],
            lambda: releval.compare_paired(KEY, {"a": RBERT, "b": CNN}, tests=("mcnemar",), mcnemar_variant="x"),
            "--mcnemar",
            "mcnemar_variant",
        ),
    ],
)  # fmt: skip
def test_the_same_mistake_names_the_flag_on_the_command_line_and_the_parameter_in_python(
    argv: list[str], python: Any, flag: str, parameter: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(OptionError) as info:
        python()
    assert info.value.option == parameter and str(info.value).startswith(parameter)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {flag}") and err.count("\n") == 1
    assert err[len(f"error: {flag}") :] == str(info.value)[len(parameter) :] + "\n"
