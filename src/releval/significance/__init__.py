"""Significance: paired tests between systems on the same items, seed-run comparisons, and many-system tables."""
