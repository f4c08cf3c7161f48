"""Throttles hold against real bursts: the production web process (gunicorn, two worker
processes, threads) with the cache a deployment shares between them, Redis or the embedded file
cache, and requests racing from threads (lib/throttling.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from django.contrib.auth import get_user_model

from ..gunicorn import TEST_APP, redis_cache_url, serving

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BURST = 50
CACHES = [pytest.param("redis", marks=pytest.mark.redis), "file"]


def _cache_url(kind: str, tmp_path: Path) -> str:
    return redis_cache_url() if kind == "redis" else f"file://{tmp_path / 'cache'}"


def _burst(base: str,
           request: Callable[[httpx.Client, int], httpx.Response]) -> list[httpx.Response]:
    """``BURST`` requests at once, from as many threads, each on its own connection."""
    start = threading.Barrier(BURST)
    answers: list[httpx.Response] = []

    def send(i: int) -> None:
        with httpx.Client(base_url=base, timeout=60) as client:
            start.wait()
            answers.append(request(client, i))

    threads = [threading.Thread(target=send, args=(i,)) for i in range(BURST)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def _codes(answers: list[httpx.Response]) -> dict[int, int]:
    codes: dict[int, int] = {}
    for answer in answers:
        codes[answer.status_code] = codes.get(answer.status_code, 0) + 1
    return codes


@pytest.mark.parametrize("cache", CACHES)
def test_a_burst_of_sign_ups_from_one_address_passes_no_more_than_the_limit(
        tmp_path: Path, cache: str) -> None:
    env = {"CACHE_URL": _cache_url(cache, tmp_path), "BLUFF_THROTTLE_SIGNUP": "10/min"}
    with serving(tmp_path, workers=2, app=TEST_APP, env=env) as base:
        answers = _burst(base, lambda client, i: client.post(
            "/api/auth/signup/", json={"username": f"player{i}", "password": "a long passphrase"},
            headers={"X-Forwarded-For": f"203.0.113.{i}"}))  # forged: changes nothing
    assert _codes(answers) == {201: 10, 429: BURST - 10}
    assert {a.json()["code"] for a in answers if a.status_code == 429} == {"throttled"}
    assert get_user_model().objects.count() == 10


@pytest.mark.redis
def test_racing_wrong_passwords_through_a_trusted_proxy_lock_the_account(tmp_path: Path) -> None:
    """Every guess comes from another address the proxy (here: the loopback) forwards, so only
    the per-account count stops them; counted before the password is checked, a burst cannot
    pass it either."""
    get_user_model().objects.create_user(username="alice", password="the right passphrase")
    env = {"CACHE_URL": redis_cache_url(), "BLUFF_TRUSTED_PROXIES": "127.0.0.1",
           "BLUFF_LOGIN_FAILURE_LIMIT": "10"}
    with serving(tmp_path, workers=2, app=TEST_APP, env=env) as base:
        answers = _burst(base, lambda client, i: client.post(
            "/api/auth/token/", json={"username": "alice", "password": f"guess {i}"},
            headers={"X-Forwarded-For": f"203.0.113.{i}"}))
        right = httpx.post(base + "/api/auth/token/", headers={"X-Forwarded-For": "192.0.2.1"},
                           json={"username": "alice", "password": "the right passphrase"})
    assert _codes(answers) == {401: 10, 429: BURST - 10}
    assert {a.json()["code"] for a in answers if a.status_code == 429} == {"account_locked"}
    assert right.status_code == 429 and right.json()["retry_after"] > 800
