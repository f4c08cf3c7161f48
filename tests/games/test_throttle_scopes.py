"""Signing up, spectating and playing are throttled apart: one kind of traffic never uses up
another's allowance (docs/api.md, "Throttling")."""

from __future__ import annotations

import pytest
from rest_framework.throttling import ScopedRateThrottle

from tests.helpers.matches import poll, url

pytestmark = pytest.mark.django_db

RATES = {"anon": "1000/min", "user": "1000/min", "signup": "1000/min", "spectate": "1000/min",
         "play": "1000/min"}


def _limit(monkeypatch, scope: str) -> None:
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {**RATES, scope: "2/min"})


def _signup(client, name: str) -> int:
    return client.post("/api/auth/signup/", {"username": name, "password": "a long passphrase"},
                       format="json").status_code


def test_signups_have_their_own_limit(monkeypatch, anon_api, duel, alice_api) -> None:
    _limit(monkeypatch, "signup")
    assert [_signup(anon_api, f"new{i}") for i in range(3)] == [201, 201, 429]
    assert anon_api.get(url(duel, "view")).status_code == 200
    assert poll(alice_api, duel, 0).status_code == 200


def test_spectators_have_their_own_limit(monkeypatch, anon_api, duel, alice_api) -> None:
    _limit(monkeypatch, "spectate")
    codes = [anon_api.get(url(duel, "view")).status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    assert anon_api.get(url(duel, "log")).json()["code"] == "throttled"
    assert _signup(anon_api, "newcomer") == 201
    assert poll(alice_api, duel, 0).status_code == 200


def test_players_have_their_own_limit(monkeypatch, anon_api, duel, alice_api, bob_api) -> None:
    _limit(monkeypatch, "play")
    assert [poll(alice_api, duel, 0).status_code for _ in range(3)] == [200, 200, 429]
    assert poll(bob_api, duel, 1).status_code == 200, "counted per player"
    assert alice_api.get(url(duel, "view")).status_code == 200


def test_docs_state_each_scope_and_its_default_rate(settings) -> None:
    docs = (settings.BASE_DIR / "docs" / "api.md").read_text()
    for scope, rate in settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"].items():
        if scope in ("signup", "spectate", "play"):
            row = next(line for line in docs.splitlines() if line.startswith(f"| {scope} |"))
            assert f"`{rate}`" in row and f"`BLUFF_THROTTLE_{scope.upper()}`" in row
