"""Rows held locked by another connection, for tests of what waits on a lock and what does not."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.db.models import QuerySet


@contextmanager
def rows_locked(rows: QuerySet, *, at_most: float = 120.0) -> Iterator[None]:
    """Hold ``rows`` locked (``SELECT ... FOR UPDATE``) while the block runs, in a transaction
    of a thread of its own (so a connection of its own), released when the block ends or after
    ``at_most`` seconds; what went wrong in the holder is raised here."""
    locked, let_go, errors = threading.Event(), threading.Event(), []

    def hold() -> None:
        from django.db import connection, transaction

        try:
            with transaction.atomic():
                list(rows.select_for_update())
                locked.set()
                let_go.wait(at_most)
        except BaseException as exc:  # noqa: BLE001 - raised in the test's thread
            errors.append(exc)
        finally:
            locked.set()
            connection.close()

    holder = threading.Thread(target=hold, name="lock holder")
    holder.start()
    try:
        assert locked.wait(20), "the holder did not get its rows in 20 s"
        if errors:
            raise errors[0]
        yield
    finally:
        let_go.set()
        holder.join(30)
    if errors:
        raise errors[0]
