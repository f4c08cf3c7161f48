"""The production web process (config/gunicorn.conf.py, as the Dockerfile and docker-compose
run it) keeps answering while long polls wait: more waiting polls than workers must not take
``/healthz`` down. Loopback only; every wait is bounded."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest
import yaml
from django.contrib.auth import get_user_model

from games import services

from ..gunicorn import CONFIG, ROOT, TEST_APP, serving

POLL_WAIT = 20  # seconds a poll waits: longer than the test takes when the server is healthy


def test_docker_and_compose_run_gunicorn_with_the_production_config() -> None:
    assert f'"--config", "{CONFIG}"' in (ROOT / "Dockerfile").read_text()
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert f"--config {CONFIG}" in compose["services"]["web"]["command"]


@pytest.mark.django_db(transaction=True)
def test_healthz_answers_while_more_long_polls_than_workers_wait(tmp_path: Path) -> None:
    alice = get_user_model().objects.create_user(username="alice")
    match = services.match_create(game="dice_cup", created_by=alice, seed=1,
                                  seats=[{"kind": "player"},
                                         {"kind": "reference", "bot": "random"}])
    answered: list[int] = []
    waiting = tmp_path / "waiting"  # a file per server thread whose poll waits (TEST_APP)
    waiting.mkdir()
    # The production config, one worker (the fewest a deployment has), on loopback.
    with serving(tmp_path, app=TEST_APP, env={"BLUFF_POLL_MAX_WAIT": str(POLL_WAIT),
                                              "BLUFF_THROTTLE_ANON": "100000/min",
                                              "BLUFF_TEST_POLL_WAITS": str(waiting)}) as base:
        view = f"{base}/api/matches/{match.pk}/view/"
        version = httpx.get(view, timeout=5).json()["version"]

        def long_poll() -> None:
            try:
                httpx.get(view, params={"wait": POLL_WAIT, "after": version},
                          timeout=POLL_WAIT + 10)
            except httpx.TransportError:  # the server is stopped below
                return
            answered.append(1)

        polls = [threading.Thread(target=long_poll, daemon=True) for _ in range(3)]
        for poll in polls:
            poll.start()
        deadline = time.monotonic() + POLL_WAIT / 2
        while len(list(waiting.iterdir())) < len(polls):
            assert time.monotonic() < deadline, "the polls never all waited in the server"
            time.sleep(0.05)
        health = httpx.get(base + "/healthz", timeout=POLL_WAIT / 2)
        assert health.status_code == 200, health.text
        assert answered == [], "the polls were still waiting while /healthz answered"
