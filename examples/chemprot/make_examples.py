"""How the ChemProt example files were made (run from examples/chemprot/ with ../../../shared beside the repo).

* `scibert_test_head.txt`: the first 300 lines of SciBERT's ChemProt test file (allenai/scibert@06793f7,
  Apache-2.0), unchanged.
* `scibert_sys_a.txt`, `scibert_sys_b.txt`: SYNTHETIC predictions for those lines: gold with 15 % (a) and 25 % (b)
  of the labels replaced by another label of the slice, drawn with a fixed seed. No system produced them.
* `blue_gold.tsv`, `blue_sys_a.tsv`: SYNTHETIC files in BLUE's layout (`index  sentence  label`): 300 candidate
  pairs labelled CPR:3/4/5/6/9 or `false` in ChemProt-like proportions, with placeholder sentences, and a
  prediction with 20 % of the labels changed. They show the format and the scoring, not real results.
"""

import gzip
import json
import random
from pathlib import Path

here = Path(__file__).parent
source = here / "../../../shared/data/chemprot/scibert_chemprot_test.txt.gz"
lines = gzip.open(source, "rt", encoding="utf-8").read().splitlines()[:300]
(here / "scibert_test_head.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
labels = sorted({json.loads(x)["label"] for x in lines})  # the slice's own labels
for name, share, seed in (("a", 0.15, 1), ("b", 0.25, 2)):
    rng = random.Random(seed)
    out = []
    for line in lines:
        record = json.loads(line)
        if rng.random() < share:
            record["label"] = rng.choice([x for x in labels if x != record["label"]])
        out.append(json.dumps(record))
    (here / f"scibert_sys_{name}.txt").write_text("\n".join(out) + "\n", encoding="utf-8")

rng = random.Random(3)
groups = ["CPR:3", "CPR:4", "CPR:5", "CPR:6", "CPR:9", "false"]
weights = [0.04, 0.09, 0.01, 0.015, 0.04, 0.815]
gold = [rng.choices(groups, weights)[0] for _ in range(300)]
rows = [f"{10000000 + i // 6}.T{i % 6 + 1}.T{i % 6 + 20}" for i in range(300)]
header = "index\tsentence\tlabel\n"
(here / "blue_gold.tsv").write_text(
    header + "".join(f"{r}\t@CHEMICAL$ and @GENE$ (synthetic)\t{g}\n" for r, g in zip(rows, gold)), encoding="utf-8"
)
pred = [rng.choice([x for x in groups if x != g]) if rng.random() < 0.2 else g for g in gold]
(here / "blue_sys_a.tsv").write_text(
    header + "".join(f"{r}\t@CHEMICAL$ and @GENE$ (synthetic)\t{p}\n" for r, p in zip(rows, pred)), encoding="utf-8"
)
