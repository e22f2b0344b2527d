"""Kinds of evaluation (tasks): relation classification, the SemEval-2010 Task 8 official scorer, end-to-end RE.

Each module defines its frozen Config, `score`, `paired_cells` and `signature` (releval.tasks.base).
"""
