"""Transaction plumbing cheaper or stricter than Django's: a savepoint in one round trip, and a
bounded wait for locks."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def savepoint() -> Iterator[None]:
    """Undo what the block wrote if it raises, keeping the rest of the transaction (call inside
    one). Django's nested ``atomic()`` takes two round trips, SAVEPOINT and RELEASE; on
    PostgreSQL this one takes the SAVEPOINT alone (the COMMIT releases it) and a ROLLBACK TO
    only on an error. A batch of bot moves writes its sessions' records so (a failing one
    loses its own rows, never the moves): one round trip of the ten a webhook match's task
    took."""
    if connection.vendor != "postgresql":
        with transaction.atomic():
            yield
        return
    name = f"bluff_{next(_SAVEPOINTS)}"
    with connection.cursor() as cursor:
        cursor.execute(f"SAVEPOINT {name}")
    try:
        yield
    except BaseException:
        with connection.cursor() as cursor:
            cursor.execute(f"ROLLBACK TO SAVEPOINT {name}")
        raise


_SAVEPOINTS = itertools.count()


def wait_for_locks_at_most(seconds: float) -> None:
    """For the rest of the current transaction, wait at most ``seconds`` for any lock
    (PostgreSQL's ``lock_timeout``, set for this transaction only: ``set_config(..., true)``,
    which a transaction pooler keeps too), then fail with :func:`lock_not_available`. A
    transaction left open by a host that went silent (cut off inside it) holds its row locks
    until PostgreSQL ends its session; a caller that has something better to do than wait for
    that says so here. Nothing elsewhere (SQLite locks the whole file and has its own
    timeout)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('lock_timeout', %s, true)",
                           [f"{max(1, round(seconds * 1000))}ms"])


def lock_not_available(error: BaseException) -> bool:
    """Whether a database error is a lock wait that :func:`wait_for_locks_at_most` cut short."""
    return getattr(error.__cause__, "sqlstate", None) == "55P03"
