"""Sign-up, tokens, the games list, throttling, the error body shape and the OpenAPI schema."""

from __future__ import annotations

import pytest
from rest_framework.throttling import AnonRateThrottle

from tests.helpers.matches import documented_keys

pytestmark = pytest.mark.django_db


def test_sign_up_returns_a_token_that_authenticates(anon_api) -> None:
    response = anon_api.post("/api/auth/signup/",
                             {"username": "dora", "password": "a long passphrase"}, format="json")
    assert response.status_code == 201, response.json()
    token = response.json()["token"]
    anon_api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    created = anon_api.post("/api/matches/", {"game": "dice_cup"}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["seats"][0]["user"] == "dora"


def test_sign_up_refuses_a_taken_name_and_a_weak_password(anon_api, alice) -> None:
    taken = anon_api.post("/api/auth/signup/",
                          {"username": "Alice", "password": "a long passphrase"}, format="json")
    assert taken.status_code == 400
    assert taken.json()["code"] == "invalid" and "username" in taken.json()["fields"]
    weak = anon_api.post("/api/auth/signup/", {"username": "eve", "password": "12345678"},
                         format="json")
    assert weak.status_code == 400 and "password" in weak.json()["fields"]


def test_token_for_username_and_password(anon_api, alice) -> None:
    good = anon_api.post("/api/auth/token/",
                         {"username": "alice", "password": "correct horse battery"}, format="json")
    assert good.status_code == 200 and len(good.json()["token"]) == 40
    again = anon_api.post("/api/auth/token/",
                          {"username": "alice", "password": "correct horse battery"},
                          format="json")
    assert again.json()["token"] == good.json()["token"]
    bad = anon_api.post("/api/auth/token/", {"username": "alice", "password": "nope"},
                        format="json")
    assert bad.status_code == 401
    assert bad.json() == {"code": "bad_credentials", "detail": "wrong username or password"}


def test_a_bad_token_is_401(anon_api) -> None:
    anon_api.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    response = anon_api.post("/api/matches/", {"game": "dot"}, format="json")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_games_list_offers_options_and_bots(anon_api) -> None:
    response = anon_api.get("/api/games/")
    assert response.status_code == 200
    games = {g["id"]: g for g in response.json()}
    assert {"dice_cup", "dot"} <= set(games)
    assert "heuristic" in games["dot"]["bots"]
    assert games["dice_cup"]["options"][0]["name"] == "target_points"


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b'"text"', b"null"])
def test_malformed_bodies_are_400_never_500(alice_api, body: bytes) -> None:
    for path in ("/api/matches/", "/api/auth/signup/", "/api/auth/token/"):
        response = alice_api.post(path, body, content_type="application/json")
        assert response.status_code == 400, (path, body, response.content)
        assert response.json()["code"] in ("parse_error", "invalid")


def test_anonymous_requests_are_throttled(anon_api, monkeypatch) -> None:
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/min", "user": None})
    codes = [anon_api.get("/api/games/").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    response = anon_api.get("/api/games/")
    assert response.json()["code"] == "throttled" and "Retry-After" in response.headers


def test_schema_documents_every_endpoint_with_error_bodies(anon_api) -> None:
    schema = anon_api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    expected = {
        ("/api/auth/signup/", "post"), ("/api/auth/token/", "post"), ("/api/games/", "get"),
        ("/api/matches/", "get"), ("/api/matches/", "post"),
        ("/api/matches/{match_id}/", "get"), ("/api/matches/{match_id}/join/", "post"),
        ("/api/matches/{match_id}/view/", "get"), ("/api/matches/{match_id}/log/", "get"),
        ("/api/matches/{match_id}/log.jsonl", "get"),
        ("/api/matches/{match_id}/seats/{seat}/", "get"),
        ("/api/matches/{match_id}/seats/{seat}/actions/", "post"),
        ("/api/matches/{match_id}/seats/{seat}/resign/", "post"),
    }
    assert {(p, m) for p, ops in paths.items() for m in ops} >= expected
    act = paths["/api/matches/{match_id}/seats/{seat}/actions/"]["post"]
    assert {"200", "400", "401", "403", "404", "409", "422"} <= set(act["responses"])
    error = act["responses"]["409"]["content"]["application/json"]
    assert error["schema"]["$ref"].endswith("/Error")
    assert "StaleVersion" in error["examples"]
    assert "SeatActInputRequest" in schema["components"]["schemas"]
    assert "stale_version" in schema["components"]["schemas"]["CodeEnum"]["enum"]


def test_schema_has_a_view_action_and_poll_component_per_game(anon_api) -> None:
    from games.engine import game_ids

    schema = anon_api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    components = schema["components"]["schemas"]
    names = {"".join(p.capitalize() for p in g.split("_")): g for g in game_ids()}
    for camel, game_id in names.items():
        assert {f"{camel}View", f"{camel}Action", f"SeatPoll{camel}"} <= set(components), camel
        assert components[f"{camel}GameId"]["enum"] == [game_id]
        assert components[f"SeatPoll{camel}"]["properties"]["game"]["$ref"].endswith(
            f"/{camel}GameId")
    assert components["GameId"]["enum"] == list(game_ids())
    # The act body does not name the game and games share action types: anyOf, not oneOf.
    assert components["ActionRequest"] == {
        "anyOf": [{"$ref": f"#/components/schemas/{camel}ActionRequest"} for camel in names],
        "description": components["ActionRequest"]["description"]}
    poll = components["SeatPoll"]
    assert poll["discriminator"]["propertyName"] == "game"
    assert set(poll["discriminator"]["mapping"]) == set(game_ids())
    op = schema["paths"]["/api/matches/{match_id}/seats/{seat}/"]["get"]
    examples = op["responses"]["200"]["content"]["application/json"]["examples"]
    assert len(examples) == len(game_ids())
    assert any(e["value"]["game"] == "great_dalmuti" for e in examples.values())
    act = schema["paths"]["/api/matches/{match_id}/seats/{seat}/actions/"]["post"]
    request = act["requestBody"]["content"]["application/json"]
    assert {e["value"]["action"]["type"] for e in request["examples"].values()}
    assert len(request["examples"]) == len(game_ids())
    assert "not_seated" in components["CodeEnum"]["enum"]
    assert ("/api/matches/{match_id}/leave/", "post") in {
        (p, m) for p, ops in schema["paths"].items() for m in ops}


def test_the_match_list_schema_is_the_paginated_envelope_it_returns(alice_api) -> None:
    page = alice_api.get("/api/matches/").json()
    schema = alice_api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert documented_keys(schema, "/api/matches/", "get") == set(page) == {
        "count", "next", "previous", "results"}


def test_a_game_that_does_not_import_fails_loudly(monkeypatch) -> None:
    from django.test import Client

    from games.apis import catalogue

    def broken(game_id: str):
        raise ImportError(f"games.engine.{game_id} is broken")

    monkeypatch.setattr(catalogue, "get_game", broken)
    response = Client(raise_request_exception=False).get("/api/games/")
    assert response.status_code == 500 and response.json()["code"] == "server_error"
