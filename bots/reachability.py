"""Whose fault a failed bot call is: the bot's, or the platform's own network.

A worker host cut off from the network for a few seconds (a switch rebooting, a cable, a
cloud's network blip) sees every bot it calls time out or refuse. Those failures are the
platform's, and must never cost a bot a strike, a default action or a forfeit
(docs/bot-protocol.md, "Whose fault a failure is"). So a call that fails in transport (a
timeout, a connection error) counts against the bot only when the platform could reach the
network all along: the check connects to the platform's own services (its database and broker,
or ``BOTS_REACHABILITY_CHECK``), and a call is asked again, not judged, when the check fails now
or failed at any time since the call began. A transport failure while the check passes is asked
once more before it counts (the route may have come back just before the check), so a strike
needs two failed attempts with a live route between them.

While the check fails the caller waits for it to pass, up to ``BOTS_OUTAGE_WAIT_SECONDS``;
longer, it raises :class:`games.seats.PlatformOutage`: the batch is dropped unplayed and the
match is asked again from its last stored position once a worker can reach everything again,
exactly as after a worker that died.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

Address = tuple[str, int]


class Reachability:
    """The platform's own reachability, checked by TCP connections to ``targets`` (any one
    answering is enough: the host's network works), remembered per process: when a check last
    failed, so a call that began before that is never judged."""

    def __init__(self, targets: Sequence[Address], *, connect_timeout: float = 0.5,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.targets = list(targets)
        self.connect_timeout = connect_timeout
        self.clock = clock
        self.last_failed = float("-inf")
        #: When the last check began, and what it found.
        self.last_checked = float("-inf")
        self.last_ok = True
        self._lock = threading.Lock()

    def check(self, *, since: float | None = None, max_age: float = 0.0) -> bool:
        """Whether the platform reaches its own services now (always, with no targets: an
        embedded setup has nothing of its own across a network). The last check's answer
        stands if it began at or after ``since`` or less than ``max_age`` seconds ago: so a
        worker judging the failures of many calls that came back together, or waiting for its
        network with many, looks once, not once a call."""
        if not self.targets:
            return True
        began = self.clock()
        last = self.last_checked
        if (since is not None and last >= since) or (max_age and began - last < max_age):
            return self.last_ok
        ok = self._reach()
        with self._lock:
            if began >= self.last_checked:
                self.last_checked, self.last_ok = began, ok
            if not ok:  # when it was known to fail: at its end
                self.last_failed = max(self.last_failed, self.clock())
        if ok:
            return True
        log.warning("the platform cannot reach its own services (%s): bot calls that fail "
                    "meanwhile are asked again, never judged",
                    ", ".join(f"{h}:{p}" for h, p in self.targets))
        return False

    def _reach(self) -> bool:
        for host, port in self.targets:
            try:
                socket.create_connection((host, port), timeout=self.connect_timeout).close()
                return True
            except OSError:
                continue
        return False

    def wait(self, *, most: float) -> bool:
        """Wait until a check passes, at most ``most`` seconds; whether it did."""
        give_up = self.clock() + most
        while not self.check():
            if self.clock() >= give_up:
                return False
            time.sleep(0.25)
        return True


def targets_from_settings() -> list[Address]:
    """``BOTS_REACHABILITY_CHECK`` if set, else the database's and the broker's addresses (the
    services of the platform's own a worker needs: if it reaches neither, the fault is its
    own network's)."""
    from django.conf import settings

    if settings.BOTS_REACHABILITY_CHECK is not None:
        return [_address(item) for item in settings.BOTS_REACHABILITY_CHECK]
    found: list[Address] = []
    database = settings.DATABASES["default"]
    host = database.get("HOST") or ""
    if host and not host.startswith("/") and database.get("ENGINE", "").endswith("postgresql"):
        found.append((host, int(database.get("PORT") or 5432)))
    broker = urlsplit(settings.CELERY_BROKER_URL)
    default_ports = {"redis": 6379, "rediss": 6380, "amqp": 5672, "amqps": 5671}
    if broker.scheme in default_ports and broker.hostname:
        found.append((broker.hostname, broker.port or default_ports[broker.scheme]))
    return found


def _address(item: str) -> Address:
    host, _, port = item.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"BOTS_REACHABILITY_CHECK: {item!r} is not host:port")
    return host.strip("[]"), int(port)


_SHARED: dict[tuple[Address, ...], Reachability] = {}
_SHARED_LOCK = threading.Lock()


def platform_reachability() -> Reachability:
    """The process's :class:`Reachability` for the current settings (shared by threads, so
    one thread's failed check protects every call in flight)."""
    targets = tuple(targets_from_settings())
    with _SHARED_LOCK:
        found = _SHARED.get(targets)
        if found is None:
            found = _SHARED[targets] = Reachability(targets)
        return found
