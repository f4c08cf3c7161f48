"""Throttles that hold under bursts and forged headers, and the per-account sign-in lock.

DRF's throttle classes stay the public face (scopes, ``DEFAULT_THROTTLE_RATES``, ``Retry-After``,
``429 throttled``); two things in them are replaced:

- **The client address** comes from the connection (``REMOTE_ADDR``). ``X-Forwarded-For`` is
  read only when the connection comes from a proxy the deployment trusts
  (``BLUFF_TRUSTED_PROXIES``): then the address is the rightmost one in the header that is not
  itself a trusted proxy, the one the proxies saw. DRF reads the header from anyone, so a
  client naming a new address on each request was never limited.
- **The count** is a sliding-window counter made of atomic cache operations (``add`` then
  ``incr``; Redis, the per-process memory cache and config.cache's file cache are atomic), not
  DRF's list of times read and written back, which a burst of requests all read at once. The
  current period's count and the previous one's, weighted by how much of it still lies in the
  window, must stay within the rate; a refused request is taken off again (as DRF never counts
  it). django-ratelimit counts the same way but in fixed windows, which let a burst straddling
  a window's end through twice, and is built around view decorators rather than DRF's classes.

A password guessed from many addresses is stopped per account (:func:`password_attempt`): after
``BLUFF_LOGIN_FAILURE_LIMIT`` wrong passwords for one username within
``BLUFF_LOGIN_LOCKOUT_SECONDS``, its password sign-in is locked for that long.
"""

from __future__ import annotations

import hashlib
import time
from ipaddress import ip_address

from django.conf import settings
from django.core.cache import cache
from rest_framework import exceptions, throttling
from rest_framework.request import Request


def client_address(meta: dict) -> str:
    """The address a request came from (``request.META``): the connection's, or the one the
    deployment's trusted proxies forwarded."""
    peer = meta.get("REMOTE_ADDR", "")
    if not _is_trusted_proxy(peer):
        return peer
    for hop in reversed(meta.get("HTTP_X_FORWARDED_FOR", "").split(",")):
        hop = hop.strip()
        try:
            ip_address(hop)
        except ValueError:  # not an address: nothing to the left of it can be believed
            return peer
        if not _is_trusted_proxy(hop):
            return hop
        peer = hop
    return peer


def _is_trusted_proxy(address: str) -> bool:
    try:
        parsed = ip_address(address)
    except ValueError:
        return False
    return any(parsed in network for network in settings.BLUFF_TRUSTED_PROXIES)


# ---- The counter ------------------------------------------------------------------------------


def _increment(key: str, timeout: int) -> int:
    for _ in range(3):
        if cache.add(key, 1, timeout):
            return 1
        try:
            return cache.incr(key)
        except ValueError:  # evicted between the two: add it again
            continue
    raise RuntimeError(f"the cache keeps losing the counter {key!r}")


def count_request(key: str, limit: int, period: int, now: float | None = None) -> float | None:
    """Count a request against ``limit`` requests per ``period`` seconds under ``key``: None if
    it is allowed, else the seconds to wait (and the request is not counted)."""
    now = time.time() if now is None else now
    bucket, elapsed = divmod(now / period, 1)
    current = f"{key}:{int(bucket)}"
    count = _increment(current, 2 * period + 1)
    previous = cache.get(f"{key}:{int(bucket) - 1}", 0)
    if previous * (1 - elapsed) + count <= limit:
        return None
    try:
        cache.decr(current)
    except ValueError:
        pass
    return _wait(limit, period, previous, count - 1, elapsed)


def uncount_request(key: str, period: int, now: float) -> None:
    """Take back a request :func:`count_request` counted at ``now`` (e.g. a right password)."""
    try:
        cache.decr(f"{key}:{int(now // period)}")
    except ValueError:
        pass


def _wait(limit: int, period: int, previous: int, current: int, elapsed: float) -> float:
    """Seconds until ``previous * (1 - elapsed) + current + 1 <= limit`` (the periods' counts
    and the elapsed fraction of the current one), if nothing else is counted meanwhile."""
    if current + 1 <= limit:  # the previous period's weight has to fall
        return max((1 - (limit - current - 1) / previous) - elapsed, 0) * period
    # The current period is full: into the next one, until its weight has fallen enough.
    needed = min(max(1 - (limit - 1) / current, 0), 1) if current else 0
    return ((1 - elapsed) + needed) * period


# ---- DRF's throttle classes ------------------------------------------------------------------


class AtomicRateThrottle(throttling.SimpleRateThrottle):
    """DRF's ``SimpleRateThrottle`` counted by :func:`count_request`, per :func:`client_address`.
    DRF's subclasses are mixed in before it (their keys and scopes, this count)."""

    def get_ident(self, request: Request) -> str:
        return client_address(request.META)

    def allow_request(self, request: Request, view: object) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.waiting = count_request(self.key, self.num_requests, self.duration, self.timer())
        return self.waiting is None

    def wait(self) -> float | None:
        return self.waiting


class AnonRateThrottle(throttling.AnonRateThrottle, AtomicRateThrottle):
    pass


class UserRateThrottle(throttling.UserRateThrottle, AtomicRateThrottle):
    pass


class ScopedRateThrottle(throttling.ScopedRateThrottle, AtomicRateThrottle):
    pass


# ---- Failed sign-ins per account -------------------------------------------------------------


class AccountLocked(exceptions.Throttled):
    default_detail = "Too many wrong passwords for this account."
    default_code = "account_locked"
    extra_detail_singular = "Try again in {wait} second."
    extra_detail_plural = "Try again in {wait} seconds."


def _account_key(username: str) -> str:
    # Hashed: a username may hold characters a cache key must not (spaces, any length).
    return "login:" + hashlib.sha256(username.casefold().encode()).hexdigest()[:32]


#: What :func:`password_attempt` counted, for :func:`password_accepted` to take back.
Attempt = tuple[str, float]


def password_attempt(username: str) -> Attempt:
    """Count a password attempt for ``username`` (any case) before the password is checked, so
    racing guesses cannot pass the limit either; raise :class:`AccountLocked` while the account
    is locked, or when this attempt is one too many (which locks it). Returns what to give
    :func:`password_accepted` if the password is right."""
    limit, period = settings.BLUFF_LOGIN_FAILURE_LIMIT, settings.BLUFF_LOGIN_LOCKOUT_SECONDS
    account, now = _account_key(username), time.time()
    # Counts start afresh after each lock (their key names when it began), so the owner's
    # first try once it ends is not one too many. Read before the lock: an attempt that finds
    # no lock yet counts with the full counter of before it, and is refused.
    since = cache.get(f"{account}:since", 0)
    locked_until = cache.get(f"{account}:locked")
    if locked_until is None or locked_until <= now:
        counted = f"{account}:{since}"
        if count_request(counted, limit, period, now) is None:
            return counted, now
        if cache.add(f"{account}:locked", now + period, period):  # a racing one may lock first
            cache.set(f"{account}:since", int(now * 1000), 10 * period)
        locked_until = cache.get(f"{account}:locked", now + period)
    raise AccountLocked(wait=max(locked_until - now, 1))


def password_accepted(attempt: Attempt) -> None:
    """A right password is not a failure: take back its :func:`password_attempt`."""
    counted, at = attempt
    uncount_request(counted, settings.BLUFF_LOGIN_LOCKOUT_SECONDS, at)
