"""games.apis.catalogue: the games list, its throttling, a game that fails to import."""

from __future__ import annotations

import pytest
from rest_framework.throttling import AnonRateThrottle

pytestmark = pytest.mark.django_db


def test_games_list_offers_options_and_bots(anon_api) -> None:
    response = anon_api.get("/api/games/")
    assert response.status_code == 200
    games = {g["id"]: g for g in response.json()}
    assert {"dice_cup", "dot"} <= set(games)
    assert "heuristic" in games["dot"]["bots"]
    assert games["dice_cup"]["options"][0]["name"] == "target_points"


def test_anonymous_requests_are_throttled(anon_api, monkeypatch) -> None:
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/min", "user": None})
    codes = [anon_api.get("/api/games/").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    response = anon_api.get("/api/games/")
    assert response.json()["code"] == "throttled" and "Retry-After" in response.headers


def test_a_game_that_does_not_import_fails_loudly(monkeypatch) -> None:
    from django.test import Client

    from games.apis import catalogue

    def broken(game_id: str):
        raise ImportError(f"games.engine.{game_id} is broken")

    monkeypatch.setattr(catalogue, "get_game", broken)
    response = Client(raise_request_exception=False).get("/api/games/")
    assert response.status_code == 500 and response.json()["code"] == "server_error"
