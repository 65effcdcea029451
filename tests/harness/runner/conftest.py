"""Shared fixtures of the runner tests: a scripted loopback server with an answer book."""

from __future__ import annotations

import warnings

import pytest

from harness.runner.scripted import ScriptedServer, answer_book
from noisefloor.endpoints import ModelEndpoint

TASKS = ("csp_sudoku4", "spatial_one_way")
SEEDS = range(0, 6)
#: Prices per million tokens of the test models (made up; only the arithmetic matters).
PRICE_IN, PRICE_OUT = 2.5, 10.0


@pytest.fixture(scope="module")
def book():
    return answer_book(TASKS, SEEDS, difficulty=0)


@pytest.fixture()
def server(book):
    with ScriptedServer(book=book, retry_after_s=0.05, hang_s=2.0) as srv:
        yield srv


def endpoints_for(server, *models, concurrency=4, prices=True):
    """One ModelEndpoint per model, all served by ``server``."""
    return [ModelEndpoint(m, (server.base_url,), concurrency=concurrency,
                          price_input_per_mtok=PRICE_IN if prices else None,
                          price_output_per_mtok=PRICE_OUT if prices else None)
            for m in models]


@pytest.fixture(autouse=True)
def _quiet_price_warnings():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="no price known")
        yield
