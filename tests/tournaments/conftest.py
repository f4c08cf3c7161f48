"""Tournament tests: tasks run in this process (users and API clients: tests.helpers.accounts)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.tasks import run_tasks


@pytest.fixture
def inline_tasks(monkeypatch: Any) -> list[tuple[str, int]]:
    """The series runner's tasks (tournaments, league nights, ladders) run at once in this
    process, recorded."""
    return run_tasks(monkeypatch, "tournaments.")


REFERENCE = [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference", "bot": "random"}]
