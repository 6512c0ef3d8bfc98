"""Fixtures for the server tests: an app on stand-in templates, with a change history."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from tablekit import History, TestClient, first_legal, make_client, write_stand_ins


@pytest.fixture(scope="session")
def templates_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_stand_ins(tmp_path_factory.mktemp("templates"))


@pytest.fixture
def history() -> History:
    return History()


@pytest.fixture
def client(templates_dir: Path, history: History) -> Iterator[TestClient]:
    seeds = random.Random(4)
    yield from make_client(
        templates_dir, history=history, new_seed=lambda: seeds.getrandbits(64),
        policy=first_legal,
    )
