"""A stale or wrong token never locks anyone out of signing up, getting a token, or reading
what is public; writes and seat polls with it are still 401 authentication_failed."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from .conftest import poll, url

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
