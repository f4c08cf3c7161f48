"""Tournament tests: tasks run in this process (users and API clients: tests.helpers.accounts)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.deterministic_bot import DeterministicBot
from tests.helpers.tasks import run_tasks


@pytest.fixture
def inline_tasks(monkeypatch: Any) -> list[tuple[str, int]]:
    """The series runner's tasks (tournaments, league nights, ladders) run at once in this
    process, recorded."""
    return run_tasks(monkeypatch, "tournaments.")


@pytest.fixture
def servers() -> Iterator[list[DeterministicBot]]:
    """Loopback bots a test starts (append each): shut down and closed after it."""
    made: list[DeterministicBot] = []
    yield made
    for server in made:
        server.shutdown()
        server.server_close()


REFERENCE = [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference", "bot": "random"}]
