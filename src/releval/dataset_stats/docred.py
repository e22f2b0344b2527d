"""Dataset statistics of DocRED-format gold files (Harbecke et al. 2022, Table 1 columns), a leak check against
train facts, and the agreement between two annotations of the same documents (Revisit-DocRED's original and
from-scratch labels).

% NA is **NA / (NA + facts)**, a share of label samples, not of candidate pairs: every ordered pair (h, t) of
distinct entities of a document is a candidate pair; a candidate pair with no fact is one NA sample, and each fact
is one sample (a pair with two facts is two samples). Perplexity is 2^H of that label distribution with NA, and of
the facts' types alone without NA; the imbalance ratio is the count of the most over the least frequent relation
type.

Example: one document with 3 entities has 3·2 = 6 candidate pairs; facts (0, 1, P1), (0, 1, P2), (1, 2, P3) cover
2 pairs, so 4 pairs are NA and % NA = 100 · 4 / (4 + 3) = 57.14 (NA / candidate pairs would be 66.67).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from releval.core.schema import header
from releval.core.table import Column, Table
from releval.core.validation import refuse_options
from releval.data.docred import DocredGold, TrainFacts, load_gold, load_train_facts
from releval.dataset_stats.label_distribution import perplexity
from releval.tasks.docred import gold_index, seen_in

#: Facts per document of the DocRED family's dev splits (their papers): a gold file far from the train facts'
#: own facts per document is probably another annotation (Re-DocRED gold with DocRED's train facts).
FACTS_PER_DOCUMENT = {"DocRED (original)": 12.5, "Re-DocRED": 34.6}
#: Digests (releval.data.docred.fact_digest) of known train-fact sets: original DocRED's annotated training set
#: (52,293 name triples; SSR-PU's `train_annotated.fact`, the set the CodaLab scorer builds).
KNOWN_TRAIN_FACTS = {"d91e40bc3e2f": "DocRED (original)"}


@dataclass(frozen=True)
class DocredFileStats:
    name: str
    documents: int
    facts: int
    relations: int
    candidates: int
    na_percent: float
    perplexity: float
    perplexity_positive: float
    ratio: float
    entities_per_doc: float
    sentences_per_doc: float
    facts_per_doc: float
    seen_in_train: int | None


@dataclass(frozen=True)
class DocredStats:
    files: list[DocredFileStats]
    agreement: list[tuple[str, str, int, int, int]]  # (file A, file B, facts A, facts B, shared)
    train: TrainFacts | None
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            **header("docred-stats"),
            "files": [dict(f.__dict__) for f in self.files],
            "agreement": [
                {
                    "a": a,
                    "b": b,
                    "facts_a": na,
                    "facts_b": nb,
                    "shared": s,
                    "precision_a_vs_b": s / na if na else 0.0,
                    "recall_a_vs_b": s / nb if nb else 0.0,
                }  # fmt: skip
                for a, b, na, nb, s in self.agreement
            ],
            "train_facts": None
            if self.train is None
            else {"paths": list(self.train.paths), "facts": len(self.train.facts), "digest": self.train.digest},
            "notes": self.notes,
            "warnings": self.warnings,
        }

    def to_tables(self) -> list[Table]:
        leak = self.train is not None
        cols = [
            Column("file", align="left"),
            Column("documents", "count"),
            Column("facts", "count"),
            Column("#relations", "count", key="relations"),
            Column("% NA", "number", key="na_percent", spec=".2f"),
            Column("perplexity", "number", spec=".2f"),
            Column("perplexity w/o NA", "number", key="perplexity_positive", spec=".2f"),
            Column("ratio", "number", spec=".0f"),
            Column("entities/doc", "number", key="entities_per_doc", spec=".1f"),
            Column("sentences/doc", "number", key="sentences_per_doc", spec=".1f"),
            Column("facts/doc", "number", key="facts_per_doc", spec=".1f"),
        ]
        if leak:
            cols.append(Column("% facts in train", "number", key="seen_in_train_percent", spec=".1f"))
        rows = []
        for f in self.files:
            row: list[Any] = [f.name, f.documents, f.facts, f.relations, f.na_percent, f.perplexity]
            row += [f.perplexity_positive, f.ratio, f.entities_per_doc, f.sentences_per_doc, f.facts_per_doc]
            if leak:
                row.append(100.0 * (f.seen_in_train or 0) / f.facts if f.facts else 0.0)
            rows.append(row)
        out = [
            Table(
                "DocRED dataset statistics (Harbecke et al. 2022, Table 1 columns)",
                cols,
                rows,
                notes=[
                    "% NA = NA / (NA + facts): a candidate pair (an ordered pair of distinct entities of a document) "
                    "without a fact is one NA sample, each fact one sample; perplexity = 2^H of the labels (NA "
                    "included / facts only); ratio = most / least frequent relation type",
                    *(
                        [
                            "% facts in train: facts with some (head mention name, tail mention name, r) among the "
                            "train facts — the facts Ign F1 leaves out of precision"
                        ]  # fmt: skip
                        if leak
                        else []
                    ),
                    *self.notes,
                    *(f"WARNING: {w}" for w in self.warnings),  # `stats` prints a table's notes, not its warnings
                ],
                warnings=self.warnings,
            )
        ]
        if self.agreement:
            out.append(
                Table(
                    "Agreement between annotations of the same documents (A scored as predictions against B)",
                    [
                        Column("A", align="left"),
                        Column("B", align="left"),
                        Column("facts A", "count", key="facts_a"),
                        Column("facts B", "count", key="facts_b"),
                        Column("shared", "count"),
                        Column("P", "percent", key="precision"),
                        Column("R", "percent", key="recall"),
                    ],
                    [
                        (a, b, na, nb, s, s / na if na else 0.0, s / nb if nb else 0.0)
                        for a, b, na, nb, s in self.agreement
                    ],
                    notes=["a fact is (title, h, t, r); A holds `shared` of B's facts"],
                )
            )
        return out


def _facts(gold: DocredGold) -> set[tuple[str, int, int, str]]:
    return {(d.title, h, t, r) for d in gold.documents for h, t, r, _ in d.labels}


def file_stats(gold: DocredGold, name: str, train: TrainFacts | None) -> DocredFileStats:
    """Table 1 columns of one gold file (see the module's docstring for the definitions)."""
    facts = _facts(gold)
    types = Counter(r for _, _, _, r in facts)
    pairs_with_fact = {(t, h, tt) for t, h, tt, _ in facts}
    candidates = sum(len(d.names) * (len(d.names) - 1) for d in gold.documents)
    na = candidates - len(pairs_with_fact)
    n_docs = len(gold.documents) or 1
    seen = None
    if train is not None:  # the scorer's own "in train" (releval.tasks.docred.seen_in), once per distinct gold fact
        seen = int(seen_in(gold, gold_index(gold).keys, train.facts).sum())
    counts = sorted(types.values())  # a fixed order: the set of facts iterates in a per-process order
    return DocredFileStats(
        name,
        len(gold.documents),
        len(facts),
        len(types),
        candidates,
        100.0 * na / (na + len(facts)) if na + len(facts) else 0.0,
        perplexity([*counts, na]) if na else perplexity(counts) if counts else float("nan"),
        perplexity(counts) if counts else float("nan"),
        max(counts) / min(counts) if counts else float("nan"),
        sum(len(d.names) for d in gold.documents) / n_docs,
        sum(d.n_sentences for d in gold.documents) / n_docs,
        len(facts) / n_docs,
        seen,
    )


def statistics(paths: Sequence[Any], config: Any = None, **options: Any) -> DocredStats:
    """Statistics of each gold file; with `config.train_facts`, the leak check; with several files over the same
    titles, how many of each other file's facts the first holds."""
    evidence = False  # statistics never need evidence
    if config is not None:
        refuse_options(
            {
                "--scorer": config.scorer != "codalab",
                "--distant-facts": bool(config.distant_facts),
                "--no-evidence": not config.evidence,
                "--relation-names": config.relation_names is not None,
            },
            "not used by stats --task docred (only --train-facts is: the leak check)",
        )
    train = load_train_facts(config.train_facts) if config is not None and config.train_facts else None
    golds = [load_gold(p, evidence=evidence) for p in paths]
    names = [str(p) for p in paths]
    files = [file_stats(g, n, train) for g, n in zip(golds, names)]
    agreement = []
    notes: list[str] = []
    for g, n in zip(golds[1:], names[1:]):
        same = {d.title for d in g.documents} == {d.title for d in golds[0].documents}
        if same:
            a, b = _facts(golds[0]), _facts(g)
            agreement.append((names[0], n, len(a), len(b), len(a & b)))
        else:
            notes.append(f"{n}: other documents than {names[0]}: no agreement computed")
    more_notes, warnings = dataset_checks(files, train)
    notes += more_notes
    return DocredStats(files, agreement, train, notes, warnings)


def dataset_checks(files: Sequence[DocredFileStats], train: TrainFacts | None) -> tuple[list[str], list[str]]:
    """(notes, warnings) on whether the gold files and the train facts come from the same dataset: facts per
    document of the gold against those of the train facts' own documents (a DocRED training file) or, for a known
    train-fact set (KNOWN_TRAIN_FACTS, by digest), against its dataset's (Re-DocRED gold with DocRED's train facts is
    the common mistake: its Ign F1 is wrong); a `.fact` list of unknown origin gets a note. `stats` and `audit`
    both say it with these words."""
    notes: list[str] = []
    warnings: list[str] = []
    if train is not None and train.n_documents:
        per_doc = train.n_labels / train.n_documents
        for f in files:
            if f.facts_per_doc > 2 * per_doc or f.facts_per_doc < per_doc / 2:
                warnings.append(
                    f"{f.name}: {f.facts_per_doc:.1f} facts per document, the train facts' documents "
                    f"{per_doc:.1f}: gold and train facts look like different annotations (Re-DocRED gold with "
                    "DocRED's train facts?); Ign F1 must use the train facts of the gold's own dataset"
                )
    known = KNOWN_TRAIN_FACTS.get(train.digest) if train is not None else None
    if known is not None:
        for f in files:
            if f.facts_per_doc > 2 * FACTS_PER_DOCUMENT[known]:
                warnings.append(
                    f"{f.name}: {f.facts_per_doc:.1f} facts per document, but the train facts are {known}'s "
                    f"({FACTS_PER_DOCUMENT[known]} per document): a re-annotation (Re-DocRED) scored with the "
                    "original train facts gives wrong Ign F1; use the train facts of the gold's own dataset"
                )
    elif train is not None and train.kinds and set(train.kinds) == {"fact"}:
        notes.append(
            "train facts from a .fact list (documents unknown): releval cannot tell which dataset they come from; "
            "facts per document of the family's dev sets: "
            + ", ".join(f"{k} {v}" for k, v in FACTS_PER_DOCUMENT.items())
        )
    return notes, warnings
