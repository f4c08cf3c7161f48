"""Reading settings from the environment (12-factor), failing loudly on bad values.

Every helper raises ``ImproperlyConfigured`` naming the variable and what was wrong, so a typo in
a deployment stops the process at start-up instead of surfacing as odd behaviour later.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from ipaddress import IPv4Network, IPv6Network, ip_network
from typing import TypeVar

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str:
    value = os.environ.get(name)
    if value is None:
        if default is None:
            raise ImproperlyConfigured(f"Set the {name} environment variable.")
        return default
    return value


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={value!r} is not a boolean; use one of 1/0, true/false, yes/no, on/off."
    )


#: int or float: one parser for both.
N = TypeVar("N", int, float)


def _env_number(name: str, default: N, parse: Callable[[str], N], kind: str,
                minimum: N | None) -> N:
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        number = parse(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not {kind}.") from None
    if minimum is not None and not number >= minimum:  # NaN is refused too
        raise ImproperlyConfigured(f"{name}={number} must be at least {minimum}.")
    return number


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    return _env_number(name, default, int, "an integer", minimum)


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    return _env_number(name, default, float, "a number", minimum)


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


#: The embedded default serves several writers at once (the web server, a thread pool of
#: matches, beat): WAL lets readers read while one writes; every transaction takes the write
#: lock when it begins (IMMEDIATE), so a writer that must wait waits at BEGIN, for up to
#: ``timeout`` seconds, instead of failing with "database is locked" when a read inside a
#: transaction turns into a write (a lock upgrade a busy timeout cannot wait for); and
#: ``synchronous=NORMAL`` syncs the WAL at checkpoints, not at every commit (a power cut may
#: lose the last commits, never corrupt the file: right for a development database).
SQLITE_OPTIONS = {
    "timeout": 30,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
}


def database_from_url(name: str, default: str) -> dict:
    """``DATABASE_URL`` as a Django ``DATABASES['default']`` entry (SQLite or PostgreSQL)."""
    import dj_database_url

    url = env_str(name, default)
    try:
        config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={url!r} is not a database URL we can use: {exc}") from None
    engine = config.get("ENGINE", "")
    if engine not in ("django.db.backends.sqlite3", "django.db.backends.postgresql"):
        raise ImproperlyConfigured(
            f"{name}={url!r}: only sqlite:// and postgres:// databases are supported."
        )
    if engine == "django.db.backends.sqlite3":
        # SQLite: connection persistence brings nothing and upsets threaded tests.
        config["CONN_MAX_AGE"] = 0
        config["CONN_HEALTH_CHECKS"] = False
        config["OPTIONS"] = {**SQLITE_OPTIONS, **config.get("OPTIONS", {})}
    return config


def broker_url(name: str, default: str) -> str:
    """The broker URL. A hostless ``filesystem://`` or ``memory://`` gets kombu's own default
    host, ``localhost``, written out: kombu warns "No hostname was supplied" on every
    connection otherwise (in every command that queues a task), and these transports ignore
    the host."""
    url = env_str(name, default)
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme not in ("filesystem", "redis", "rediss", "amqp", "pyamqp", "memory"):
        raise ImproperlyConfigured(
            f"{name}={url!r}: expected a filesystem://, redis://, amqp:// or memory:// URL."
        )
    if scheme in ("filesystem", "memory") and url.split("://", 1)[1] in ("", "/"):
        url = f"{scheme}://localhost/"
    return url


def cache_from_url(name: str, default: str) -> dict:
    """``CACHE_URL`` as a Django ``CACHES['default']`` entry. ``redis://`` / ``rediss://`` is
    shared by every process on every machine, ``file:///path`` by the processes of one machine,
    ``locmem://`` by one process only (throttle counts then reset per process)."""
    url = env_str(name, default)
    scheme, _, rest = url.partition("://")
    backends = {"redis": "django.core.cache.backends.redis.RedisCache",
                "rediss": "django.core.cache.backends.redis.RedisCache",
                # Django's file cache with atomic add/incr: throttle counters (config/cache.py)
                "file": "config.cache.AtomicFileBasedCache",
                "locmem": "django.core.cache.backends.locmem.LocMemCache"}
    if not rest and scheme != "locmem" or scheme not in backends:
        raise ImproperlyConfigured(
            f"{name}={url!r}: expected a redis://host:6379/2, file:///path or locmem:// URL.")
    location = url if scheme.startswith("redis") else rest
    return {"BACKEND": backends[scheme], "LOCATION": location}


def env_networks(name: str) -> list[IPv4Network | IPv6Network]:
    """A comma-separated list of IP addresses or networks (``10.0.0.5, 172.16.0.0/12``)."""
    networks = []
    for item in env_list(name, []):
        try:
            networks.append(ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}: {item!r} is not an IP address or network (e.g. 10.0.0.5 or "
                f"10.0.0.0/8).") from None
    return networks
