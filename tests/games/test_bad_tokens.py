"""A stale or wrong token never locks anyone out of signing up, getting a token, or reading
what is public; writes and seat polls with it are still 401 authentication_failed."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.helpers.matches import poll, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def stale_api() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token 0000000000000000000000000000000000000000")
    return client


def test_signup_and_token_ignore_a_bad_token(stale_api) -> None:
    signup = stale_api.post("/api/auth/signup/", {"username": "erin",
                                                  "password": "a long passphrase"}, format="json")
    assert signup.status_code == 201, signup.json()
    token = stale_api.post("/api/auth/token/", {"username": "erin",
                                                "password": "a long passphrase"}, format="json")
    assert token.status_code == 200 and token.json()["token"] == signup.json()["token"]


def test_public_reads_ignore_a_bad_token(stale_api, duel) -> None:
    for path in ("/api/games/", "/api/matches/", url(duel), url(duel, "view"), url(duel, "log"),
                 f"/api/matches/{duel.pk}/log.jsonl"):
        response = stale_api.get(path)
        assert response.status_code == 200, (path, response.content[:200])


def test_writes_and_seat_polls_with_a_bad_token_are_refused(stale_api, duel) -> None:
    create = stale_api.post("/api/matches/", {"game": "dot"}, format="json")
    assert create.status_code == 401 and create.json()["code"] == "authentication_failed"
    seat = poll(stale_api, duel, 0)
    assert seat.status_code == 401 and seat.json()["code"] == "authentication_failed"


def test_the_schema_still_documents_token_exchange_without_auth(anon_api) -> None:
    schema = anon_api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    token = schema["paths"]["/api/auth/token/"]["post"]
    assert token["operationId"] == "token" and token.get("security", []) in ([], [{}])
    assert {"200", "401", "429"} <= set(token["responses"])


# ---- The rule over every GET route of the schema ------------------------------------------------

#: A real object for each path parameter of the schema's GET routes (a new parameter fails
#: :func:`test_every_get_route_follows_the_rule` until it is given one here).
NO_SUCH_ID = 10**9


@pytest.fixture
def path_values(alice_api, duel) -> dict[str, object]:
    """Alice's real match, tournament and league (made through the API, as a client would)."""
    later = (timezone.now() + timedelta(hours=1)).isoformat()
    tournament = alice_api.post("/api/tournaments/", {
        "name": "cup", "game": "dice_cup", "table_size": 2, "starts_at": later,
        "participants": [{"kind": "reference", "bot": "heuristic"},
                         {"kind": "reference", "bot": "random"}]}, format="json")
    league = alice_api.post("/api/leagues/", {
        "name": "club", "game": "dice_cup", "table_size": 2,
        "members": [{"kind": "reference", "bot": "heuristic", "name": "h"},
                    {"kind": "reference", "bot": "random", "name": "r"}],
        "season_start": timezone.now().isoformat(), "season_end": later}, format="json")
    assert tournament.status_code == league.status_code == 201, (tournament.json(), league.json())
    return {"match_id": duel.pk, "seat": 0, "game": "dice_cup", "bot_id": NO_SUCH_ID,
            "tournament_id": tournament.json()["id"], "league_id": league.json()["id"]}


def _get_routes(client) -> list[tuple[str, bool]]:
    """Every GET route of the published schema, and whether anyone may read it (the schema's
    ``security`` lists ``{}``, no credentials)."""
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    return [(path, {} in operation.get("security", [{}]))
            for path, operations in schema["paths"].items()
            for method, operation in operations.items() if method == "get"]


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_every_get_route_follows_the_rule(anon_api, alice_api, stale_api, path_values) -> None:
    routes = _get_routes(anon_api)
    assert sum(public for _, public in routes) >= 15 and not all(p for _, p in routes)
    for template, public in routes:
        names = re.findall(r"{(\w+)}", template)
        assert set(names) <= set(path_values), f"{template}: give path_values a {names}"
        path = template.format(**path_values)
        anonymous, valid, stale = (client.get(path) for client in (anon_api, alice_api, stale_api))
        if public:
            assert anonymous.status_code not in (401, 403), (path, _body(anonymous)[:200])
            assert stale.status_code == anonymous.status_code, (path, _body(stale)[:200])
            assert _body(stale) == _body(anonymous), path
            assert valid.status_code == anonymous.status_code, (path, _body(valid)[:200])
        else:
            assert (anonymous.status_code, anonymous.json()["code"]) == (
                401, "not_authenticated"), path
            assert (stale.status_code, stale.json()["code"]) == (
                401, "authentication_failed"), path
            assert stale["WWW-Authenticate"] == "Token", path
            assert valid.status_code not in (401, 403), (path, _body(valid)[:200])
