"""`--task semeval-official` on the bundled SemEval-2010 Task 8 files, mistaken as issue 32 measured: integer class
indices and another dataset's labels are refused with rc's diagnosis; gold passed twice (100/100/100) and swapped
files (19-way 75.30 instead of 71.12) are warned about, where the perl scorer is silent."""

from __future__ import annotations

from mistakes import Mistake
from mistakes._semeval_files import identical, integer_indices, other_datasets_labels, swapped

TASK = "semeval-official"
CASES = [
    Mistake(TASK, "integer class indices", integer_indices, "the predicted labels are integers"),
    Mistake(TASK, "another dataset's labels", other_datasets_labels, "no predicted label occurs in gold"),
    Mistake(TASK, "identical to gold", identical, "predictions equal gold", refused=False),
    Mistake(TASK, "swapped files", swapped, "gold and predictions may be swapped", refused=False),
]
