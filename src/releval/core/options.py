"""Every option name, choice list and default of releval, in one light module.

The command-line help, the library's validation and the docs read these tuples; nothing else defines them.
Importing this module costs nothing (no NumPy, no SciPy), so `releval --help` can list every choice.

>>> ALTERNATIVES
('two-sided', 'greater', 'less')
>>> DEFAULT_RESAMPLES, DEFAULT_SEED
(10000, 12345)
"""

from __future__ import annotations

#: Kinds of evaluation (releval.tasks): relation classification, the SemEval-2010 Task 8 perl scorer, end-to-end RE.

#: Direction of a paired or seed test: A ≠ B, A > B, A < B.
ALTERNATIVES = ("two-sided", "greater", "less")

#: Paired tests of two systems on the same items; the resampling ones work on any task's per-item statistics.
PAIRED_TESTS = ("bootstrap", "randomization", "mcnemar", "sign")
RESAMPLING_TESTS = ("bootstrap", "randomization")

#: McNemar's test: exact binomial on the discordant pairs, χ², or χ² with Edwards' continuity correction.
MCNEMAR_VARIANTS = ("exact", "chi2", "chi2-corrected")

#: Multiple-testing corrections across the compared pairs (one family per test and average).
CORRECTIONS = ("holm", "bonferroni", "none")

#: What to do with a gold item that has no prediction (Olek: filling with the negative class leaks gold labels).
MISSING_POLICIES = ("error", "negative", "wrong")

#: Label views of SemEval-style directed labels.
VIEWS = ("directed", "undirected")

#: Entropy weighting's N: all gold items, or positive gold items only (Harbecke et al. 2022, §3).
ENTROPY_N = ("all", "positive")

#: The classes an end-to-end macro average runs over: those with gold support (releval), those seen in gold or
#: predictions (SpERT's evaluator: scikit-learn over the union), or every declared type (sincere, Taillé et al.).
MACRO_CLASSES = ("gold", "gold+pred", "declared")

#: The classes a bootstrap resample's class-weighted averages run over: the test set's (the classes the point
#: estimate averages over, fixed in every resample; the default) or the resample's own (a class whose gold items
#: all stay out of a resample leaves its averages, as in releval 0.3.0). docs/significance.md, "Which classes a
#: resample averages over".
CLASS_SETS = ("test", "resample")
DEFAULT_CLASS_SET = "test"

#: End-to-end RE criteria (Taillé et al. 2020); Relaxed is experimental and only given on request.
RE_CRITERIA = ("strict", "boundaries")
CRITERIA = ("ner", "strict", "boundaries", "relaxed")

#: Readings of a printed "mean ± sd": the sample sd (ddof=1) or numpy's default population sd (ddof=0).
READINGS = ("sample", "population")

#: Output formats of every table-producing command.
OUTPUT_FORMATS = ("text", "json", "markdown", "latex", "csv")

#: The weightings computed besides micro when none are named (Harbecke et al. 2022, Table 2).
DEFAULT_WEIGHTING_NAMES = ("weighted", "dodrans", "entropy", "macro")
#: The DocRED reference scorers whose quirks `--scorer` reproduces (releval.tasks.docred).
DOCRED_SCORERS = ("codalab", "atlop", "redocred")

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 12345
DEFAULT_CONFIDENCE = 0.95
DEFAULT_ALPHA = 0.05
