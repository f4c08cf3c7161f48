"""The platform's fixed points: health check, OpenAPI schema and docs, compose file."""

from __future__ import annotations

import importlib
import shlex
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_healthz_reports_database_and_broker(client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] and body["checks"]["broker"]["ok"]
    assert body["checks"]["database"]["vendor"] == connection.vendor


@pytest.mark.django_db
def test_healthz_answers_503_when_the_broker_is_unreachable(client, monkeypatch) -> None:
    from kombu import Connection

    from config.celery import app

    # Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    monkeypatch.setattr(app, "connection_for_write", lambda: Connection("redis://127.0.0.1:9/0"))
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["broker"]["ok"] is False and "error" in body["checks"]["broker"]
    assert body["checks"]["database"]["ok"] is True


@pytest.mark.django_db
def test_openapi_schema_and_docs_are_served(client) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert schema.status_code == 200
    assert schema.json()["openapi"].startswith("3.")
    assert schema.json()["info"]["title"] == "Bluff League API"
    for page in ("/api/docs/", "/api/redoc/"):
        response = client.get(page)
        assert response.status_code == 200
        # Assets come from the sidecar package (served locally), not from a CDN.
        assert b"cdn.jsdelivr" not in response.content


def test_the_compose_production_profile_puts_rabbitmq_behind_every_process() -> None:
    """``--profile production`` adds RabbitMQ; the URL the compose file's header (and
    docs/deploy.md) give reaches it: its user, password and vhost."""
    text = (ROOT / "docker-compose.yml").read_text()
    services = yaml.safe_load(text)["services"]
    rabbit = services["rabbitmq"]
    assert rabbit["profiles"] == ["production"]
    env = rabbit["environment"]
    url = (f"amqp://{env['RABBITMQ_DEFAULT_USER']}:{env['RABBITMQ_DEFAULT_PASS']}@rabbitmq:5672/"
           f"{env['RABBITMQ_DEFAULT_VHOST']}")
    assert f"CELERY_BROKER_URL={url}" in text
    assert f"CELERY_BROKER_URL={url}" in (ROOT / "docs" / "deploy.md").read_text()
    for name in ("web", "worker-matches", "worker-housekeeping", "beat"):
        service = services[name]
        assert service["environment"]["CELERY_BROKER_URL"].startswith("${CELERY_BROKER_URL:-")
        assert service["depends_on"]["rabbitmq"]["required"] is False
    assert "--scale worker-matches=" in text and "--scale beat" not in text


def test_docker_compose_services_run_real_entry_points() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    workers = {"worker-matches": "matches", "worker-housekeeping": "housekeeping"}
    assert {"postgres", "redis", "web", "beat", *workers} <= set(services)
    for name, queue in workers.items():  # one worker per queue the tasks are routed to
        words = shlex.split(services[name]["command"])
        assert words[words.index("-Q") + 1] == queue
    assert set(workers.values()) == {settings.QUEUE_MATCHES, settings.QUEUE_HOUSEKEEPING}
    matches = shlex.split(services["worker-matches"]["command"])
    assert matches[matches.index("--pool") + 1] == "threads" and int(
        matches[matches.index("--concurrency") + 1]) >= 16, \
        "the matches worker keeps many matches in flight while bots think (a thread each)"
    for name in ("web", "beat", *workers):
        command = services[name]["command"]
        words = shlex.split(command)
        if words[:2] == ["sh", "-c"]:
            words = shlex.split(words[2].split("&&")[-1])
        if words[0] == "celery":
            assert words[1:3] == ["-A", "config"]
            assert importlib.import_module("config").celery_app.main == "bluffleague"
            assert words[3] in ("worker", "beat")
        elif words[0] == "gunicorn":
            module, attribute = words[1].split(":")
            assert callable(getattr(importlib.import_module(module), attribute))
        else:
            pytest.fail(f"{name}: unexpected command {command!r}")
    assert "manage.py migrate" in services["web"]["command"]
    assert (ROOT / "manage.py").exists() and (ROOT / "Dockerfile").exists()


@pytest.mark.postgres
@pytest.mark.django_db
def test_ci_runs_on_postgresql() -> None:
    assert connection.vendor == "postgresql"


@pytest.mark.redis
def test_ci_uses_a_redis_broker() -> None:
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
        assert conn.transport.driver_type == "redis"


def test_the_openapi_schema_generates_without_warnings_and_validates(tmp_path) -> None:
    from django.core.management import call_command

    # --fail-on-warn: a view whose documentation drf-spectacular cannot read (e.g. an
    # @extend_schema left on the wrong method) fails here instead of vanishing from the docs.
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", tmp_path / "s.yml")
