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


def test_trusted_proxies_are_addresses_or_networks(monkeypatch) -> None:
    monkeypatch.setenv("X_PROXIES", "10.0.0.5, 172.16.0.0/12,2001:db8::/32")
    assert [str(n) for n in env.env_networks("X_PROXIES")] == [
        "10.0.0.5/32", "172.16.0.0/12", "2001:db8::/32"]
    monkeypatch.setenv("X_PROXIES", "10.0.0.5,proxy.internal")
    with pytest.raises(ImproperlyConfigured, match="X_PROXIES: 'proxy.internal' is not an IP"):
        env.env_networks("X_PROXIES")
    monkeypatch.delenv("X_PROXIES")
    assert env.env_networks("X_PROXIES") == [], "none by default: the header is never believed"


def test_broker_url_must_be_a_known_transport(monkeypatch) -> None:
    monkeypatch.setenv("X_BROKER", "kafka://h")
    with pytest.raises(ImproperlyConfigured, match="X_BROKER"):
        env.broker_url("X_BROKER", "filesystem://")
    monkeypatch.setenv("X_BROKER", "redis://127.0.0.1:6379/0")
    assert env.broker_url("X_BROKER", "filesystem://") == "redis://127.0.0.1:6379/0"


def _start_with(**overrides: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, **overrides}
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=120, check=False)


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
    ("redis://cache.example:6379/2", "django.core.cache.backends.redis.RedisCache",
     "redis://cache.example:6379/2"),
    ("file:///srv/cache", "config.cache.AtomicFileBasedCache", "/srv/cache"),
    ("locmem://", "django.core.cache.backends.locmem.LocMemCache", ""),
])
def test_cache_url_selects_the_cache(monkeypatch, url, backend, location) -> None:
    monkeypatch.setenv("X_CACHE", url)
    config = env.cache_from_url("X_CACHE", "locmem://")
    assert config == {"BACKEND": backend, "LOCATION": location}


@pytest.mark.parametrize("url", ["memcached://h:11211", "file://", "nonsense"])
def test_cache_url_refuses_what_it_cannot_use(monkeypatch, url) -> None:
    monkeypatch.setenv("X_CACHE", url)
    with pytest.raises(ImproperlyConfigured, match="X_CACHE"):
        env.cache_from_url("X_CACHE", "locmem://")


def _default_settings(tmp_path: Path, *names: str) -> list[str]:
    """``names`` as a fresh process sees them with the development defaults (no CACHE_URL, no
    BOTS_ALLOW_PRIVATE_ADDRESSES, no broker in its environment)."""
    environ = {key: value for key, value in os.environ.items()
               if key not in ("CACHE_URL", "BOTS_ALLOW_PRIVATE_ADDRESSES", "DEBUG",
                              "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")}
    shown = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         (f"from django.conf import settings; print(*[getattr(settings, n) for n in {names!r}], "
          "sep='\\n')")],
        cwd=ROOT, env={**environ, "BLUFF_VAR_DIR": str(tmp_path)}, capture_output=True,
        text=True, timeout=120, check=False)
    assert shown.returncode == 0, shown.stderr
    return shown.stdout.splitlines()[-len(names):]  # after anything the shell prints first


def test_defaults_share_throttle_counts_and_refuse_private_bot_addresses(tmp_path) -> None:
    caches, debug, allow_private = _default_settings(tmp_path, "CACHES", "DEBUG",
                                                     "BOTS_ALLOW_PRIVATE_ADDRESSES")
    assert "FileBasedCache" in caches and str(tmp_path / "cache") in caches
    assert debug == "True" and allow_private == "False", "DEBUG alone allows nothing"


def test_make_run_allows_bots_on_this_machine_unless_told_otherwise() -> None:
    from scripts import run

    assert run.local_environment({})["BOTS_ALLOW_PRIVATE_ADDRESSES"] == "1"
    assert run.local_environment({"BOTS_ALLOW_PRIVATE_ADDRESSES": "0"})[
        "BOTS_ALLOW_PRIVATE_ADDRESSES"] == "0"


def test_the_test_run_counts_throttles_per_process() -> None:
    from django.core.cache import caches

    assert type(caches["default"]).__name__ == "LocMemCache"


def _broker_settings(tmp_path: Path, url: str) -> dict:
    """The Celery settings a fresh process derives for broker ``url``."""
    names = ("CELERY_BROKER_TRANSPORT_OPTIONS", "CELERY_TASK_ACKS_LATE",
             "CELERY_TASK_REJECT_ON_WORKER_LOST", "LONGEST_TASK_SECONDS",
             "CELERY_BROKER_TRANSPORT", "CELERY_BROKER_USE_SSL")
    shown = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         ("import json; from django.conf import settings; print(json.dumps({n: getattr(settings, "
          f"n, None) for n in {names!r} + ('CELERY_TASK_DEFAULT_QUEUE_TYPE', "
          "'CELERY_TASK_CREATE_MISSING_QUEUE_TYPE')}))")],
        cwd=ROOT, env={**os.environ, "CELERY_BROKER_URL": url, "BLUFF_VAR_DIR": str(tmp_path)},
        capture_output=True, text=True, timeout=120, check=False)
    assert shown.returncode == 0, shown.stderr
    import json

    return json.loads(shown.stdout.splitlines()[-1])


def test_a_dead_workers_message_comes_back_but_never_while_its_task_runs(tmp_path) -> None:
    """Redis redelivers an unacknowledged message after its visibility timeout: just longer
    than any task may run. RabbitMQ: quorum queues and publisher confirms. Every task is
    acknowledged late and given back if its worker dies."""
    redis = _broker_settings(tmp_path, "redis://127.0.0.1:6379/0")
    assert redis["CELERY_TASK_ACKS_LATE"] and redis["CELERY_TASK_REJECT_ON_WORKER_LOST"]
    visibility = redis["CELERY_BROKER_TRANSPORT_OPTIONS"]["visibility_timeout"]
    assert redis["LONGEST_TASK_SECONDS"] < visibility <= redis["LONGEST_TASK_SECONDS"] + 120
    rabbit = _broker_settings(tmp_path, "amqp://guest:guest@127.0.0.1:5672/x")
    assert rabbit["CELERY_BROKER_TRANSPORT_OPTIONS"] == {"confirm_publish": True}
    assert rabbit["CELERY_TASK_DEFAULT_QUEUE_TYPE"] == "quorum"
    assert rabbit["CELERY_TASK_CREATE_MISSING_QUEUE_TYPE"] == "quorum"
    assert redis["CELERY_TASK_DEFAULT_QUEUE_TYPE"] is None


def test_redis_brokers_get_our_transport_and_tls_checks_the_server_by_default(tmp_path) -> None:
    """redis:// and rediss:// both get config.broker's transport (a worker outlives the broker
    going away); rediss:// checks the server's certificate unless its URL says otherwise
    (kombu alone would check nothing); other brokers get neither."""
    import ssl

    plain = _broker_settings(tmp_path, "redis://127.0.0.1:6379/0")
    tls = _broker_settings(tmp_path, "rediss://127.0.0.1:6380/0")
    rabbit = _broker_settings(tmp_path, "amqp://guest:guest@127.0.0.1:5672/x")
    assert plain["CELERY_BROKER_TRANSPORT"] == tls["CELERY_BROKER_TRANSPORT"] == \
        "config.broker:RedisTransport"
    assert tls["CELERY_BROKER_USE_SSL"] == {"ssl_cert_reqs": int(ssl.CERT_REQUIRED)}
    assert plain["CELERY_BROKER_USE_SSL"] is None
    assert rabbit["CELERY_BROKER_TRANSPORT"] is None


def test_every_task_runs_within_the_longest_task_time_and_is_acknowledged_late() -> None:
    from django.conf import settings

    from config.celery import app

    app.loader.import_default_modules()
    ours = {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}
    assert "games.advance_automatic_seats" in ours
    for name, task in ours.items():
        limit = task.time_limit or settings.CELERY_TASK_TIME_LIMIT
        assert limit <= settings.LONGEST_TASK_SECONDS, name
        assert task.acks_late and task.reject_on_worker_lost, name


def test_sqlite_uses_wal_and_makes_writers_wait_for_each_other(tmp_path, monkeypatch,
                                                               django_db_blocker) -> None:
    """The embedded default's thread pool of matches, web server and beat write at once. A
    transaction that read and then writes while another committed meanwhile failed at once
    with "database is locked" (a lock upgrade no busy timeout waits for); with every
    transaction taking the write lock at BEGIN, the second writer waits and both commit."""
    from django.db import transaction
    from django.db.utils import ConnectionHandler

    config = env.database_from_url("X_DB", f"sqlite:///{tmp_path / 'db.sqlite3'}")
    connections = ConnectionHandler({"default": config})  # one connection per thread
    monkeypatch.setattr(transaction, "get_connection", lambda using=None: connections["default"])
    with django_db_blocker.unblock():  # a database of this test's own, not the test database
        _read_then_write_while_another_writes(connections)


def _read_then_write_while_another_writes(connections) -> None:
    import threading
    import time

    from django.db import transaction

    with connections["default"].cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
        cursor.execute("CREATE TABLE moves (n INTEGER)")
    errors: list[Exception] = []
    reading = threading.Event()

    def read_then_write() -> None:
        try:
            with transaction.atomic(), connections["default"].cursor() as cursor:
                cursor.execute("SELECT count(*) FROM moves")
                reading.set()
                time.sleep(0.3)  # the other writer comes now
                cursor.execute("INSERT INTO moves VALUES (1)")
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            reading.set()
            connections["default"].close()

    def write() -> None:
        reading.wait(5)
        try:
            with transaction.atomic(), connections["default"].cursor() as cursor:
                cursor.execute("INSERT INTO moves VALUES (2)")
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections["default"].close()

    threads = [threading.Thread(target=read_then_write), threading.Thread(target=write)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert errors == []
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT n FROM moves ORDER BY n")
        assert cursor.fetchall() == [(1,), (2,)]
    connections["default"].close()


def test_the_embedded_broker_polls_often_and_its_interval_is_checked(tmp_path) -> None:
    """kombu's filesystem transport polled once a second: each task waited half a second on
    average before a worker saw it."""
    [options] = _default_settings(tmp_path, "CELERY_BROKER_TRANSPORT_OPTIONS")
    assert "'polling_interval': 0.02" in options
    started = _start_with(BLUFF_BROKER_POLL_SECONDS="soon", CELERY_BROKER_URL="filesystem://")
    assert started.returncode != 0
    assert "BLUFF_BROKER_POLL_SECONDS='soon' is not a number" in started.stderr


def test_the_embedded_broker_queues_a_task_without_kombu_s_hostname_warning(tmp_path) -> None:
    """kombu warned "No hostname was supplied" on every connection to ``filesystem://`` (in
    run_tournament's output, among others)."""
    assert env.broker_url("X_BROKER", "filesystem://") == "filesystem://localhost/"
    environ = {k: v for k, v in os.environ.items()
               if k not in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "DATABASE_URL")}
    queued = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         "from config.celery import ping; ping.delay(); print('queued')"],
        cwd=ROOT, env={**environ, "BLUFF_VAR_DIR": str(tmp_path)}, capture_output=True,
        text=True, timeout=120, check=False)
    assert queued.returncode == 0 and "queued" in queued.stdout, queued.stderr
    assert "hostname" not in queued.stderr, queued.stderr


def test_the_test_run_keeps_its_screenshots_under_bluff_var_dir() -> None:
    """`make test` (BLUFF_VAR_DIR=var/test) wrote its screenshots to var/screenshots/."""
    from django.conf import settings

    from tests.browser import SCREENSHOTS

    assert SCREENSHOTS == Path(settings.VAR_DIR).resolve() / "screenshots"
