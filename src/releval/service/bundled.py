"""The example benchmarks `releval serve` starts with:

* SemEval-2010 Task 8 (the test key, directed labels) with the five real systems bundled in
  `examples/semeval2010_task8` (onehaitao's CNN, CR-CNN, Att-CNN, Att-BLSTM and R-BERT; sources and licences in
  NOTICE), each submitted as an entry by the submitter `releval-examples`;
* CoNLL04 end-to-end RE (the 288 test sentences of sincere's split file in `examples/conll04`), Strict,
  Boundaries and NER measures, open for submissions (no system's predictions are bundled);
* one benchmark per other family, each a task of the library's registry driven through the Task protocol
  (releval.service.library_task): ChemProt as SciBERT distributes it (its test split), DocRED (Re-DocRED's dev
  split, 500 documents), FewRel (50 val_wiki 5-way 1-shot episodes), ranked relation facts (the NYT-style
  example) and DrugProt (the official library's gold sample, its three files stored as one archive), open for
  submissions (`FAMILIES`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from releval.registry import get_task
from releval.service import board as ops
from releval.service.models import Benchmark, Submitter

SLUG = "semeval2010-task8"
SYSTEMS = {
    "CNN (Zeng et al. 2014)": "onehaitao_cnn.txt",
    "CR-CNN (dos Santos et al. 2015)": "onehaitao_crcnn.txt",
    "Att-CNN (Shen and Huang 2016)": "onehaitao_attcnn.txt",
    "Att-BLSTM (Zhou et al. 2016)": "onehaitao_attblstm.txt",
    "R-BERT (Wu and He 2019)": "onehaitao_rbert.txt",
}


def example_dir(name: str = "semeval2010_task8", probe: str = "test_key_directed.txt") -> Path | None:
    """An example folder: packaged with a wheel, or the repository's `examples/` in an editable install."""
    here = Path(__file__).resolve()
    for candidate in (here.parent / "examples" / name, here.parents[3] / "examples" / name):
        if (candidate / probe).exists():
            return candidate
    return None


CONLL04_SLUG = "conll04"


@dataclass(frozen=True)
class Family:
    """One other family's example benchmark: its slug, the library task it evaluates, the example folder and gold
    file it reads (`examples/FOLDER/GOLD`), its settings, title and description."""

    slug: str
    task: str
    folder: str
    gold: str
    settings: dict[str, object]
    title: str
    description: str


#: The other families' example benchmarks.
FAMILIES: tuple[Family, ...] = (
    Family(
        slug="chemprot-scibert",
        task="chemprot-scibert",
        folder="chemprot",
        gold="scibert_chemprot_test.txt.gz",
        settings={},
        title="ChemProt as SciBERT distributes it (13 labels, test split)",
        description="Krallinger et al. (2017) via Beltagy et al. (2019): no negative class, so micro-F1 equals "
        "accuracy; not comparable with BLUE's ChemProt (micro over CPR:3/4/5/6/9).",
    ),
    Family(
        slug="redocred-dev",
        task="docred",
        folder="docred",
        gold="redocred_dev_revised.json.gz",
        settings={},
        title="Re-DocRED dev split, 500 documents (document-level RE)",
        description="Tan et al. (2022): F1, Ign F1 (no train facts given here: equal to F1), Evi F1 as the CodaLab "
        "scorer, with per-relation weightings, frequent/long-tail and intra/inter-sentence F1.",
    ),
    Family(
        slug="fewrel-wiki-5-1",
        task="fewrel",
        folder="fewrel",
        gold="gold-5-1.json.gz",
        settings={},
        title="FewRel val_wiki, 50 episodes of 5-way 1-shot",
        description="Han et al. (2018): accuracy as the mean of per-episode accuracies; intervals resample episodes.",
    ),
    Family(
        slug="nyt-style-ranked",
        task="ranked",
        folder="ranked",
        gold="gold.jsonl",
        settings={"duplicates": "count"},
        title="Ranked relation facts (NYT10-style synthetic example)",
        description="Bag-level held-out evaluation as OpenNRE computes it: AUC of the precision-recall curve, P@N, "
        "max F1; duplicated predictions counted as OpenNRE counts them.",
    ),
    Family(
        slug="drugprot-sample",
        task="drugprot",
        folder="drugprot",
        gold="gs-data",
        settings={},
        title="DrugProt, the official evaluation library's gold sample (5 PubMed abstracts)",
        description="Miranda et al. (2021), BioCreative VII: candidate pairs from entity and relation TSVs, per-type "
        "P/R/F and micro-F1 as the official library computes them (its toy predictions score P 0.783, R 0.72, F1 "
        "0.75).",
    ),
)


def load_families() -> None:
    """Create each other family's example benchmark whose files are installed, unless it exists."""
    for family in FAMILIES:
        folder = example_dir(family.folder, family.gold)
        if folder is None or Benchmark.objects.filter(slug=family.slug).exists():
            continue
        gold, stored_name = get_task(family.task).gold_upload(folder / family.gold)  # DrugProt's folder: one archive
        ops.create_benchmark(
            family.slug,
            family.title,
            gold,
            stored_name,
            dict(family.settings),
            task=family.task,
            open_=True,  # the example files are public
            description=family.description,
        )


def load_examples() -> bool:
    """Create the example benchmarks (and SemEval's entries) unless they exist; False when the files are not
    installed."""
    conll = example_dir("conll04", "conll04_sincere_all_splits.json")
    if conll is not None and not Benchmark.objects.filter(slug=CONLL04_SLUG).exists():
        test = json.loads((conll / "conll04_sincere_all_splits.json").read_bytes())["test"]
        ops.create_benchmark(
            CONLL04_SLUG,
            "CoNLL04 end-to-end RE (288 test sentences)",
            json.dumps(test).encode(),
            "conll04_test.json",
            task="e2e",
            open_=True,  # the split is published
            description="Roth and Yih (2004), the split of Taillé et al. (2020): entities and relations; Strict "
            "(spans, entity and relation types), Boundaries (spans and relation type) and NER.",
        )
    load_families()
    folder = example_dir()
    if folder is None:
        return False
    if Benchmark.objects.filter(slug=SLUG).exists():
        return True
    gold = folder / "test_key_directed.txt"
    with transaction.atomic():
        ops.create_benchmark(
            SLUG,
            "SemEval-2010 Task 8 (directed, 19 labels)",
            gold.read_bytes(),
            gold.name,
            {"negative": "Other"},
            open_=True,  # the test key is published
            description="Hendrickx et al. (2010): 2,717 test items; 'Other' is the negative class. Predictions of "
            "five published architectures re-implemented by onehaitao/CNN-relation-extraction and its siblings.",
        )
        owner = Submitter.objects.filter(name="releval-examples").first()
        if owner is None:
            ops.create_submitter("releval-examples", admin=True)
            owner = Submitter.objects.get(name="releval-examples")
        for entry, filename in SYSTEMS.items():
            path = folder / filename
            ops.submit(
                owner,
                SLUG,
                entry,
                path.read_bytes(),
                filename,
                selection="dev",
                training_data="SemEval-2010 Task 8 train",
            )
    return True
