"""Settings come from the environment and bad values stop start-up with a clear message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config import env

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("raw, expected", [("1", True), ("true", True), ("off", False), ("0", False)])
def test_env_bool_reads_the_usual_spellings(monkeypatch, raw, expected) -> None:
    monkeypatch.setenv("X_FLAG", raw)
    assert env.env_bool("X_FLAG", not expected) is expected


def test_env_bool_refuses_anything_else(monkeypatch) -> None:
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG='maybe' is not a boolean"):
        env.env_bool("X_FLAG", False)


def test_database_url_accepts_sqlite_and_postgres(monkeypatch) -> None:
    monkeypatch.setenv("X_DB", "postgres://u:p@db.example:5432/league")
    config = env.database_from_url("X_DB", "sqlite:///x")
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["HOST"], config["NAME"]) == ("db.example", "league")
    monkeypatch.delenv("X_DB")
    assert env.database_from_url("X_DB", "sqlite:////tmp/x.sqlite3")["NAME"] == "/tmp/x.sqlite3"


@pytest.mark.parametrize("url", ["mysql://u@h/db", "nonsense"])
def test_database_url_refuses_other_databases(monkeypatch, url) -> None:
    monkeypatch.setenv("X_DB", url)
    with pytest.raises(ImproperlyConfigured, match="X_DB"):
        env.database_from_url("X_DB", "sqlite:///x")


def test_broker_url_must_be_a_known_transport(monkeypatch) -> None:
    monkeypatch.setenv("X_BROKER", "kafka://h")
    with pytest.raises(ImproperlyConfigured, match="X_BROKER"):
        env.broker_url("X_BROKER", "filesystem://")
    monkeypatch.setenv("X_BROKER", "redis://127.0.0.1:6379/0")
    assert env.broker_url("X_BROKER", "filesystem://") == "redis://127.0.0.1:6379/0"


def _start_with(**overrides: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, **overrides}
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("overrides, message", [
    ({"DEBUG": "maybe"}, "DEBUG='maybe' is not a boolean"),
    ({"DEBUG": "0", "SECRET_KEY": ""}, "Set the SECRET_KEY environment variable"),
    ({"DATABASE_URL": "oracle://x"}, "DATABASE_URL"),
    ({"CELERY_BROKER_URL": "kafka://x"}, "CELERY_BROKER_URL"),
])
def test_bad_environment_fails_loudly_at_start_up(overrides, message) -> None:
    started = _start_with(**overrides)
    assert started.returncode != 0
    assert message in started.stderr


def test_production_settings_start_with_the_required_variables() -> None:
    started = _start_with(DEBUG="0", SECRET_KEY="x" * 50, ALLOWED_HOSTS="bluff.example")
    assert started.returncode == 0, started.stderr


@pytest.mark.parametrize("url, backend, location", [
    ("redis://cache.example:6379/2", "redis.RedisCache", "redis://cache.example:6379/2"),
    ("file:///srv/cache", "filebased.FileBasedCache", "/srv/cache"),
    ("locmem://", "locmem.LocMemCache", ""),
])
def test_cache_url_selects_the_cache(monkeypatch, url, backend, location) -> None:
    monkeypatch.setenv("X_CACHE", url)
    config = env.cache_from_url("X_CACHE", "locmem://")
    assert config == {"BACKEND": f"django.core.cache.backends.{backend}", "LOCATION": location}


@pytest.mark.parametrize("url", ["memcached://h:11211", "file://", "nonsense"])
def test_cache_url_refuses_what_it_cannot_use(monkeypatch, url) -> None:
    monkeypatch.setenv("X_CACHE", url)
    with pytest.raises(ImproperlyConfigured, match="X_CACHE"):
        env.cache_from_url("X_CACHE", "locmem://")


def test_throttle_counts_default_to_a_cache_every_local_process_shares(tmp_path) -> None:
    environ = {key: value for key, value in os.environ.items() if key != "CACHE_URL"}
    shown = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         "from django.conf import settings; print(settings.CACHES['default'])"],
        cwd=ROOT, env={**environ, "BLUFF_VAR_DIR": str(tmp_path)}, capture_output=True,
        text=True, timeout=120)
    assert "FileBasedCache" in shown.stdout and str(tmp_path / "cache") in shown.stdout, shown


def test_the_test_run_counts_throttles_per_process() -> None:
    from django.core.cache import caches

    assert type(caches["default"]).__name__ == "LocMemCache"
