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


def run_inline(monkeypatch: Any, module: Any) -> list[tuple[Any, ...]]:
    """``module``'s queued tasks run at once in this process (as a worker would run them);
    returns the list they are recorded in."""
    from tournaments import tasks

    ran: list[tuple[Any, ...]] = []

    def run(task: str, *args: int) -> None:
        ran.append((task, *args))
        getattr(tasks, task).apply(args=list(args))

    monkeypatch.setattr(module, "_enqueue", run)
    return ran


@pytest.fixture
def inline_tasks(monkeypatch: Any) -> list[tuple[str, int]]:
    """Tournament tasks run at once in this process, recorded."""
    from tournaments import services

    return run_inline(monkeypatch, services)


@pytest.fixture
def inline_nights(monkeypatch: Any) -> list[tuple[str, int]]:
    """League tasks run at once in this process, recorded."""
    from tournaments import leagues

    return run_inline(monkeypatch, leagues)


REFERENCE = [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference", "bot": "random"}]
