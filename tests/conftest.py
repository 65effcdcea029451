"""Shared fixtures: where the read-only shared data and the project's fixtures live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs (CI=true) draw the same Hypothesis examples every time and keep no example database, so
# a red CI is reproducible; local runs explore new examples and remember failures.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
FIXTURES = REPO / "fixtures"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(f"shared data not found at {SHARED_DATA}: CI must lay ../shared beside the clone")
    return SHARED_DATA


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES
