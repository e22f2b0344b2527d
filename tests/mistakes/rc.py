"""`--task rc` on the bundled SemEval-2010 Task 8 files, mistaken as issue 32 measured: integer class indices and
another dataset's labels are refused with that diagnosis (not "swapped"), gold passed twice and swapped files are
warned about."""

from __future__ import annotations

from mistakes import Mistake
from mistakes._semeval_files import identical, integer_indices, other_datasets_labels, swapped

CASES = [
    Mistake("rc", "integer class indices", integer_indices, "the predicted labels are integers"),
    Mistake("rc", "another dataset's labels", other_datasets_labels, "no predicted label occurs in gold"),
    Mistake("rc", "identical to gold", identical, "predictions equal gold", refused=False),
    Mistake("rc", "swapped files", swapped, "gold and predictions may be swapped", refused=False),
]
