"""Tournament tests: users and API clients from tests/games, tasks run in this process."""

from __future__ import annotations

from typing import Any

import pytest

from tests.games.conftest import (  # noqa: F401 - fixtures
    _fast_passwords,
    _fresh_throttles,
    alice,
    alice_api,
    anon_api,
    bob,
    bob_api,
    charlie,
    charlie_api,
    client_for,
    make_user,
)


@pytest.fixture
def inline_tasks(monkeypatch: Any) -> list[tuple[str, int]]:
    """Tournament tasks run at once in this process (as a worker would run them), recorded."""
    from tournaments import services, tasks

    ran: list[tuple[str, int]] = []

    def run(task: str, object_id: int) -> None:
        ran.append((task, object_id))
        getattr(tasks, task).apply(args=[object_id])

    monkeypatch.setattr(services, "_enqueue", run)
    return ran


REFERENCE = [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference", "bot": "random"}]


@pytest.fixture
def inline_nights(monkeypatch: Any) -> list[tuple[str, int]]:
    """League tasks run at once in this process (as a worker would run them), recorded."""
    from tournaments import leagues, tasks

    ran: list[tuple[str, int]] = []

    def run(task: str, object_id: int) -> None:
        ran.append((task, object_id))
        getattr(tasks, task).apply(args=[object_id])

    monkeypatch.setattr(leagues, "_enqueue", run)
    return ran

