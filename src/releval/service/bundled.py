"""The example benchmarks `releval serve` starts with:

* SemEval-2010 Task 8 (the test key, directed labels) with the five real systems bundled in
  `examples/semeval2010_task8` (onehaitao's CNN, CR-CNN, Att-CNN, Att-BLSTM and R-BERT; sources and licences in
  NOTICE), each submitted as an entry by the submitter `releval-examples`;
* the example benchmark each task of the registry declares (`Task.example`, a releval.tasks.base.BoardExample), open
  for submissions and driven through the Task protocol (releval.service.library_task): CoNLL04 end-to-end RE (the
  288 test sentences of sincere's split file in `examples/conll04`; Strict, Boundaries and NER measures), ChemProt
  as SciBERT distributes it (its test split), DocRED (Re-DocRED's dev split, 500 documents), FewRel (50 val_wiki
  5-way 1-shot episodes), ranked relation facts (the NYT-style example) and DrugProt (the official library's gold
  sample, its three files stored as one archive). No system's predictions are bundled for them."""

from __future__ import annotations

from pathlib import Path

from django.db import transaction

from releval.registry import BoardExample, get_task, tasks_with
from releval.service import board as ops
from releval.service.example_files import example_gold
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


def examples() -> list[tuple[str, BoardExample]]:
    """The example benchmarks the registry's tasks declare (`Task.example`), each with its task's name, in the
    order the board creates them (their `position`)."""
    declared = [(name, get_task(name).example) for name in tasks_with("example")]
    return sorted(((name, ex) for name, ex in declared if ex is not None), key=lambda pair: pair[1].position)


def load_task_examples() -> None:
    """Create each task's example benchmark whose files are installed, unless it exists."""
    for name, example in examples():
        folder = example_dir(example.folder, example.gold)
        if folder is None or Benchmark.objects.filter(slug=example.slug).exists():
            continue
        gold, stored_name = example_gold(name, example, folder / example.gold)
        ops.create_benchmark(
            example.slug,
            example.title,
            gold,
            stored_name,
            dict(example.settings),
            task=name,
            open_=True,  # the example files are public
            description=example.description,
        )


def load_examples() -> bool:
    """Create the example benchmarks (and SemEval's entries) unless they exist; False when the files are not
    installed."""
    load_task_examples()
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
