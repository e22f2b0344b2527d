"""The dependency-free core every layer may import: option names and defaults, signatures.

Nothing here imports NumPy, SciPy or any other releval package, so `data/`, `metrics/`, `dataset_stats/`, `audit/`,
`report/` and the CLI can all depend on it without depending on each other.
"""
