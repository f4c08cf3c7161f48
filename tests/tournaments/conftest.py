"""Tournament tests: tasks run in this process (users and API clients: tests.helpers.accounts)."""

from __future__ import annotations

from typing import Any

import pytest


def run_inline(monkeypatch: Any) -> list[tuple[Any, ...]]:
    """Queued series tasks run in this process once the transaction that queued them commits
    (as ``series.enqueue``'s ``delay_on_commit`` would send them to a worker); returns the list
    they are recorded in."""
    from django.db import transaction

    from tournaments import series, tasks

    ran: list[tuple[Any, ...]] = []

    def run(task: str, *args: int) -> None:
        def now() -> None:
            ran.append((task, *args))
            getattr(tasks, task).apply(args=list(args))

        # Inside a transaction of the code under test: when it commits. Inside only the test's
        # own (a non-transactional test, which never commits): at once, as after a commit.
        blocks = transaction.get_connection().atomic_blocks
        if any(not block._from_testcase for block in blocks):
            transaction.on_commit(now)
        else:
            now()

    monkeypatch.setattr(series, "enqueue", run)
    return ran


@pytest.fixture
def inline_tasks(monkeypatch: Any) -> list[tuple[str, int]]:
    """Tournament tasks run at once in this process, recorded."""
    return run_inline(monkeypatch)


@pytest.fixture
def inline_nights(monkeypatch: Any) -> list[tuple[str, int]]:
    """League tasks run at once in this process, recorded."""
    return run_inline(monkeypatch)


REFERENCE = [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference", "bot": "random"}]
