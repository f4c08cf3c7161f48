"""The production web process (gunicorn with config/gunicorn.conf.py) started by a test, on a
free loopback port, over the test database: for what only real processes and connections show
(long polls holding threads, racing requests, the client address a throttle sees)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

from .conftest import database_url_for_subprocess

ROOT = Path(__file__).resolve().parents[1]
CONFIG = "config/gunicorn.conf.py"
#: ``config.wsgi`` with fast password hashing and a cache key prefix of the test's own.
TEST_APP = "tests.gunicorn_app:application"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def redis_cache_url() -> str:
    """A Redis cache for a test's web processes: ``CACHE_URL`` when it is a Redis one (.ci/run
    sets it), else database 10 of the broker's Redis. Each server gets a key prefix of its own
    (:func:`serving`), so runs sharing the database never count each other's requests."""
    from django.conf import settings

    url = os.environ.get("CACHE_URL", "")
    if url.startswith(("redis://", "rediss://")):
        return url
    broker = urlsplit(settings.CELERY_BROKER_URL)
    return urlunsplit((broker.scheme, broker.netloc, "/10", "", ""))


def _wait_until_serving(base: str, server: subprocess.Popen) -> None:
    for _ in range(300):
        assert server.poll() is None, "gunicorn exited"
        try:
            httpx.get(base + "/healthz", timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    pytest.fail("gunicorn did not start")


@contextmanager
def serving(tmp_path: Path, *, workers: int = 1, app: str | None = None,
            env: dict[str, str] | None = None) -> Iterator[str]:
    """Run gunicorn with the production config (``workers`` processes, gthread) and yield its
    base URL; killed, with its workers, on exit. ``app`` replaces the config's WSGI app (e.g.
    :data:`TEST_APP`); ``env`` adds to the test's environment."""
    port = free_port()
    full_env = {**os.environ, "DATABASE_URL": database_url_for_subprocess(tmp_path), "DEBUG": "0",
                "SECRET_KEY": "gunicorn-test-secret-key", "ALLOWED_HOSTS": "127.0.0.1",
                "GUNICORN_CMD_ARGS": "", "BLUFF_TEST_CACHE_PREFIX": uuid.uuid4().hex,
                **(env or {})}
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", CONFIG, "--bind", f"127.0.0.1:{port}",
         "--workers", str(workers), "--log-level", "warning", "--access-logfile", "/dev/null",
         *([app] if app else [])],
        cwd=ROOT, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_serving(base, server)
        yield base
    finally:
        # gunicorn and its workers, at once: a graceful stop would wait for open requests.
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
