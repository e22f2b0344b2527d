"""Shared test helpers: where ../shared lives, skipping cleanly when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
EXAMPLES = REPO / "examples"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test when it is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path
