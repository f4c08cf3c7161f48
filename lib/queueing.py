"""The one seam through which every app queues a Celery task.

Services queue work by the task's name (a service never imports the tasks that call it) once
the transaction that made the work commits, so a worker never looks for rows that are not
committed yet. Tests replace :func:`enqueue` and nothing else (``tests/helpers/tasks.py``:
tasks held, or run in the test's process as a worker would run them).
"""

from __future__ import annotations

from typing import Any

from celery import current_app


def enqueue(task: str, *args: Any) -> None:
    """Queue the task registered as ``task`` (its full name: ``games.advance_automatic_seats``)
    with ``args`` once the current transaction commits, at once outside one (Celery's
    ``delay_on_commit``). Its app's tasks module must be imported (each app's ``ready``, or
    Celery's autodiscovery in a worker)."""
    current_app.tasks[task].delay_on_commit(*args)
