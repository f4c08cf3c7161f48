"""Shared test setup: markers for tests that need real services.

A test marked ``postgres``, ``redis``, ``broker`` (Redis or RabbitMQ), ``browser`` or ``netns``
(root, to make Linux network namespaces) skips, with the reason, when that service is not what
the run uses (e.g. a newcomer's bare machine on SQLite and the filesystem broker); one marked
``requires("tool", ...)`` skips when a program it runs is not installed (:func:`find_tool`).
``.ci/run`` sets ``BLUFF_REQUIRE_SERVICES=1``, which turns those skips into failures so CI never
skips them silently.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

#: Tests that start real Celery workers share the broker's queues, so they run one at a time
#: (a lock file shared by the xdist workers): otherwise one test's worker takes, or purges,
#: another test's messages, and that test waits for work that never comes.
REAL_WORKERS = pytest.mark.usefixtures("one_broker_user_at_a_time")

#: Fixtures every folder shares (tests/helpers), found by pytest rather than imported.
pytest_plugins = ["tests.helpers.accounts", "tests.helpers.loopback_bots", "tests.browser"]

REQUIRE_SERVICES = os.environ.get("BLUFF_REQUIRE_SERVICES", "") not in ("", "0")


def pytest_configure(config: pytest.Config) -> None:
    """Settings of the test run that differ from a deployment's defaults."""
    from django.conf import settings

    # Throttle counts per test process: xdist workers must not share (and clear) each other's.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # The tests' bots listen on 127.0.0.1 (a test that checks refusals turns it off); processes
    # the tests start (a worker, gunicorn) inherit it from the environment.
    settings.BOTS_ALLOW_PRIVATE_ADDRESSES = True
    os.environ["BOTS_ALLOW_PRIVATE_ADDRESSES"] = "1"


#: Where :func:`find_tool` looks besides PATH: Debian keeps PostgreSQL's server programs
#: (initdb, pg_ctl) in a folder per major version, newest first.
_TOOL_FOLDERS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
#: The Debian package of each tool a ``requires`` marker names, for the skip's reason.
_TOOL_PACKAGES = {"openssl": "openssl", "redis-server": "redis-server",
                  "initdb": "postgresql", "pg_ctl": "postgresql",
                  "createdb": "postgresql-client", "runuser": "util-linux"}


def find_tool(name: str) -> Path | None:
    """The program ``name`` on PATH or among PostgreSQL's server programs; None if absent."""
    found = shutil.which(name)
    if found:
        return Path(found)
    return next((folder / name for folder in _TOOL_FOLDERS if (folder / name).is_file()), None)


def _missing_tools(tools: tuple[str, ...]) -> str | None:
    missing = [tool for tool in tools if find_tool(tool) is None]
    if not missing:
        return None
    packages = sorted({_TOOL_PACKAGES.get(tool, tool) for tool in missing})
    return f"needs {', '.join(missing)} (apt-get install {' '.join(packages)})"


def _missing_service(marker_name: str) -> str | None:
    from django.conf import settings

    if marker_name == "postgres":
        engine = settings.DATABASES["default"]["ENGINE"]
        if engine != "django.db.backends.postgresql":
            return "needs PostgreSQL: set DATABASE_URL=postgres://... (this run uses SQLite)"
    elif marker_name == "browser":
        if not shutil.which("chromium") or not shutil.which("chromedriver"):
            return "needs headless Chromium: apt-get install chromium chromium-driver"
    elif marker_name == "redis":
        if not settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
            return "needs Redis: set CELERY_BROKER_URL=redis://... (this run uses the embedded broker)"
    elif marker_name == "netns":
        return _missing_netns()
    elif marker_name == "broker" and not settings.CELERY_BROKER_URL.startswith(
            ("redis://", "rediss://", "amqp://", "pyamqp://")):
        return ("needs a networked broker: set CELERY_BROKER_URL=redis://... or amqp://... "
                "(this run uses the embedded broker)")
    return None


def _missing_netns() -> str | None:
    """Why the machine cannot run the several-hosts test (network namespaces), or None."""
    import subprocess

    if os.geteuid() != 0:
        return "needs root for Linux network namespaces (ip netns): CI runs as root"
    missing = [tool for tool in ("ip", "redis-server", "redis-cli", "socat")
               if not shutil.which(tool)]
    if missing:
        return f"needs {', '.join(missing)} (apt-get install iproute2 redis-server socat)"
    probe = f"bluff-probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True,
                          check=False)
    if made.returncode:
        return f"cannot create a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in item.iter_markers():
        if marker.name in ("postgres", "redis", "broker", "browser", "netns"):
            reason = _missing_service(marker.name)
        elif marker.name == "requires":
            reason = _missing_tools(marker.args)
        else:
            continue
        if reason is None:
            continue
        if REQUIRE_SERVICES:
            pytest.fail(f"BLUFF_REQUIRE_SERVICES is set but this test {reason}", pytrace=False)
        pytest.skip(reason)


def database_url_for_subprocess(tmp_path: Path) -> str:
    """A DATABASE_URL for a process a test starts (a Celery worker, gunicorn): the test database
    itself (PostgreSQL), or on SQLite a file copy of the in-memory test database (a test that
    needs the process's writes copies it back)."""
    from django.db import connection

    data = connection.settings_dict
    if connection.vendor == "sqlite":
        path = tmp_path / "worker.sqlite3"
        connection.ensure_connection()
        with sqlite3.connect(path) as target:
            connection.connection.backup(target)
        return f"sqlite:///{path}"
    auth = quote(data["USER"] or "")
    if data.get("PASSWORD"):
        auth += ":" + quote(data["PASSWORD"])
    return (f"postgres://{auth}@{data['HOST'] or '127.0.0.1'}:{data['PORT'] or 5432}/"
            f"{data['NAME']}")


@pytest.fixture
def one_broker_user_at_a_time() -> Iterator[None]:
    """Hold an exclusive lock (per broker) while the test runs (see :data:`REAL_WORKERS`)."""
    import fcntl
    import hashlib
    import tempfile

    from django.conf import settings

    key = hashlib.sha256(settings.CELERY_BROKER_URL.encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / f"bluff-broker-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
