"""Shared test setup: markers for tests that need real services.

A test marked ``postgres``, ``redis`` or ``browser`` skips, with the reason, when that service is not what the
run uses (e.g. a newcomer's bare machine on SQLite and the filesystem broker). ``.ci/run`` sets
``BLUFF_REQUIRE_SERVICES=1``, which turns those skips into failures so CI never skips them silently.
"""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRE_SERVICES = os.environ.get("BLUFF_REQUIRE_SERVICES", "") not in ("", "0")


def _missing_service(marker_name: str) -> str | None:
    from django.conf import settings

    if marker_name == "postgres":
        engine = settings.DATABASES["default"]["ENGINE"]
        if engine != "django.db.backends.postgresql":
            return "needs PostgreSQL: set DATABASE_URL=postgres://... (this run uses SQLite)"
    elif marker_name == "browser":
        if not shutil.which("chromium"):
            return "needs headless Chromium: apt-get install chromium"
    elif marker_name == "redis":
        if not settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
            return "needs Redis: set CELERY_BROKER_URL=redis://... (this run uses the embedded broker)"
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in item.iter_markers():
        if marker.name in ("postgres", "redis", "browser"):
            reason = _missing_service(marker.name)
            if reason is None:
                continue
            if REQUIRE_SERVICES:
                pytest.fail(f"BLUFF_REQUIRE_SERVICES is set but this test {reason}", pytrace=False)
            pytest.skip(reason)
