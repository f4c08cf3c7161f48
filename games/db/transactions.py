"""Transaction plumbing cheaper or stricter than Django's: a savepoint in one round trip, a
bounded wait for locks, and statements whose commit does not wait for the disk."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from django.db import OperationalError, connection, transaction
from django.db.backends.utils import CursorWrapper


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


#: PostgreSQL's codes for a lock not taken: a wait cut short by ``lock_timeout``, and the
#: transaction it rolled back to break a deadlock.
_LOCK_NOT_TAKEN = {"55P03", "40P01"}


def lock_not_available(error: BaseException) -> bool:
    """Whether a database error is a lock this transaction did not get: a wait that
    :func:`wait_for_locks_at_most` cut short, or a deadlock PostgreSQL broke by rolling this
    transaction back (the other goes on)."""
    return getattr(error.__cause__, "sqlstate", None) in _LOCK_NOT_TAKEN


T = TypeVar("T")


def locks_waited_at_most(seconds: float, work: Callable[[], T], *, held: Callable[[], T],
                         bounded: bool = True) -> T:
    """``work()`` in a transaction that waits at most ``seconds`` for any lock (if
    ``bounded``: only a transaction of its own may set the bound, which lasts until it
    ends); a lock held longer, or a deadlock PostgreSQL broke by picking this transaction,
    rolls it back and ``held()`` answers instead. So a worker never waits for a transaction a
    silent host left open, and a rare deadlock is a retry later, not an error."""
    try:
        with transaction.atomic():
            if bounded:
                wait_for_locks_at_most(seconds)
            return work()
    except OperationalError as exc:
        if not lock_not_available(exc):
            raise
        return held()


#: Sent before a statement, in the same round trip: its own transaction's commit does not wait
#: for the WAL to reach the disk (``synchronous_commit`` off for that transaction alone).
_NO_FLUSH_WAIT = "SELECT set_config('synchronous_commit', 'off', true); "


def execute_unflushed(cursor: CursorWrapper, sql: str, params: Sequence[Any] | None) -> None:
    """Run ``sql`` on ``cursor``; when it is a transaction of its own (autocommit) on
    PostgreSQL, its commit is visible to every other session at once as always but returns
    without waiting for the disk: a database crash in the next fraction of a second may undo
    it (never half of it, and nothing committed after it survives without it: the log is
    written in order). For statements whose loss on a database crash costs only a repeat: a
    task's lease, the once-only claims of /start and /end (a crash redoes the unstored batch,
    /start with it), call log rows. A commit waiting for the flush took 3.3-3.7 ms on the
    shared machine's disk, one without 0.12-0.28 ms (2026-12-03, docs/performance.md); a
    webhook match (creation and task) made five such commits, now two. Inside a transaction
    the statement runs as it is (the transaction's own COMMIT decides), and so it does with
    server-side binding (one statement a message: Django's default binds on the client, which
    sends both in one). Afterwards ``cursor`` reads the statement's result."""
    if (connection.vendor == "postgresql" and connection.get_autocommit()
            and not connection.settings_dict["OPTIONS"].get("server_side_binding")):
        cursor.execute(_NO_FLUSH_WAIT + sql, params)
        cursor.cursor.nextset()  # past set_config's row, to the statement's own result
    else:
        cursor.execute(sql, params)
