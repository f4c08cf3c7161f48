"""The platform's clock: the time every call to a bot is signed with, and every lease is written
and judged by.

A bot checks a call's signed timestamp against its own clock (the Standard Webhooks scheme allows
5 minutes either way), so a worker host whose clock had drifted signed calls that every careful
bot refused, and each refusal was a strike: the platform's fault, never the bot's (issue 45,
docs/bot-protocol.md "Whose fault a failure is"). Leases are compared by hosts whose clocks may
disagree, and by the database itself (a batch is stored only while its lease is ahead of
``clock_timestamp()``): a worker whose clock ran behind wrote leases already over and could
store nothing, one whose clock ran ahead held a dead worker's matches for as long. The
platform's clock is its database server's, one clock that every worker and web process shares
and a deployment keeps right with NTP (docs/deploy.md). Each process measures its own clock's
offset from it, at most once a minute (a worker before each task), and reads its own clock plus
that offset. On SQLite the database is the process's own machine: the offset is 0.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from django.db import DatabaseError, connection, transaction

log = logging.getLogger(__name__)

#: How often a process measures its offset again: clocks drift by seconds a day, not a minute.
REFRESH_SECONDS = 60.0
#: An offset worth a warning in the logs (a host's NTP is broken), well inside the 5 minutes.
WARN_SECONDS = 30.0


class PlatformClock:
    """This process's clock corrected to a reference clock (``reference``: its time in Unix
    seconds, or None when the process's own clock is the reference)."""

    def __init__(self, reference: Callable[[], float | None], *,
                 every: float = REFRESH_SECONDS, wall: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.reference, self.every = reference, every
        self.wall, self.monotonic = wall, monotonic
        self.offset = 0.0
        self._measured_at = float("-inf")
        self._lock = threading.Lock()

    def now(self) -> float:
        """The platform's time in Unix seconds, as of the last measure (no query)."""
        return self.wall() + self.offset

    def refresh(self) -> None:
        """Measure the offset again if the last measure is older than ``every`` seconds (one
        query; cheap to call before every batch of calls). A reference that cannot be read
        keeps the last offset: the call that follows fails on the platform's reachability, not
        on its clock."""
        with self._lock:
            if self.monotonic() - self._measured_at < self.every:
                return
            before = self.wall()
            try:
                reference = self.reference()
            except DatabaseError:
                log.warning("could not read the platform's clock; keeping an offset of %.1f s",
                            self.offset)
                return
            after = self.wall()
            self._measured_at = self.monotonic()
            self.offset = 0.0 if reference is None else reference - (before + after) / 2
        if abs(self.offset) > WARN_SECONDS:
            log.warning("this host's clock is %.0f s %s the database server's: bot calls are "
                        "signed with the database server's time (fix this host's NTP)",
                        abs(self.offset), "behind" if self.offset > 0 else "ahead of")


def database_time() -> float | None:
    """The database server's clock in Unix seconds (PostgreSQL's ``clock_timestamp()``); None on
    SQLite, which runs in this process. In a savepoint of its own, so a failure inside a
    caller's transaction leaves that transaction usable."""
    if connection.vendor != "postgresql":
        return None
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT extract(epoch FROM clock_timestamp())::float8")
        return float(cursor.fetchone()[0])


_CLOCK = PlatformClock(database_time)


def platform_clock() -> PlatformClock:
    """The process's one :class:`PlatformClock` (on the database server's time)."""
    return _CLOCK


def platform_now() -> datetime:
    """The platform's time (:func:`platform_clock`, as last measured) as an aware datetime: what
    leases are written and judged with, whichever host's clock is wrong."""
    return datetime.fromtimestamp(_CLOCK.now(), UTC)
