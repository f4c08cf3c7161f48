"""The platform's one seam for queueing Celery tasks, ``lib.queueing.enqueue``, in tests: tasks
held (recorded, never run or sent) or run in this process as a worker would run them.

Both take a name prefix (``"tournaments."``): tasks of other names are queued as usual, so a
test holds or runs only the kind of work it is about. Both return the list the tasks are
recorded in, as ``(name, *args)``: held when queued, run when run.
"""

from __future__ import annotations

from typing import Any

from celery import current_app
from django.db import transaction

from lib import queueing


def hold_tasks(monkeypatch: Any, prefix: str = "") -> list[tuple[Any, ...]]:
    """Tasks named ``prefix...`` are recorded and never run (as if no worker were alive): the
    test runs what it needs by hand."""
    held: list[tuple[Any, ...]] = []
    queue = queueing.enqueue

    def enqueue(task: str, *args: Any) -> None:
        if not task.startswith(prefix):
            return queue(task, *args)
        held.append((task, *args))
        return None

    monkeypatch.setattr(queueing, "enqueue", enqueue)
    return held


def run_tasks(monkeypatch: Any, prefix: str = "") -> list[tuple[Any, ...]]:
    """Tasks named ``prefix...`` run in this process once the transaction that queued them
    commits (as ``delay_on_commit`` sends them to a worker); inside only the test's own
    transaction (a test that is not transactional, which never commits), at once. A task's
    error fails the test."""
    ran: list[tuple[Any, ...]] = []
    queue = queueing.enqueue

    def enqueue(task: str, *args: Any) -> None:
        if not task.startswith(prefix):
            return queue(task, *args)

        def now() -> None:
            ran.append((task, *args))
            current_app.tasks[task].apply(args=list(args), throw=True)

        blocks = transaction.get_connection().atomic_blocks
        if any(not block._from_testcase for block in blocks):
            transaction.on_commit(now)
        else:
            now()
        return None

    monkeypatch.setattr(queueing, "enqueue", enqueue)
    return ran
