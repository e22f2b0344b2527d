"""Kinds of evaluation (tasks): relation classification, the SemEval-2010 Task 8 official scorer, end-to-end RE,
few-shot RE, ChemProt, DrugProt, ranked relation facts, DocRED — one module each, plus their shared contract
(`releval.tasks.base`) and label checks (`releval.tasks.vocabulary`, `releval.tasks.label_mistakes`).

Each module defines its frozen Config, its scoring and its `TASK` (releval.tasks.base.Task); the registry that
names them, and assembles them with the functions of the layers above (their comparison, statistics, audit), is
releval.registry. No module of this package imports, or names, a layer above it.
"""
