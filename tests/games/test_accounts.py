"""games.apis.accounts: sign-up, tokens, a bad token; malformed bodies are 400s."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError
from django.test import Client

from games import services
from games.apis import accounts

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


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b'"text"', b"null"])
def test_malformed_bodies_are_400_never_500(alice_api, body: bytes) -> None:
    for path in ("/api/matches/", "/api/auth/signup/", "/api/auth/token/"):
        response = alice_api.post(path, body, content_type="application/json")
        assert response.status_code == 400, (path, body, response.content)
        assert response.json()["code"] in ("parse_error", "invalid")


def test_a_username_race_is_a_400_not_a_500(anon_api, alice, monkeypatch) -> None:
    # The race: the other request created "alice" after this one checked the name was free.
    monkeypatch.setattr(accounts.SignUpApi.InputSerializer, "validate_username",
                        lambda self, value: value)
    response = anon_api.post("/api/auth/signup/", {"username": "alice",
                                                   "password": "a long passphrase"},
                             format="json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid" and "username" in response.json()["fields"]


def test_signing_up_is_one_transaction(monkeypatch) -> None:
    def no_token(**kwargs):
        get_user_model().objects.create_user(username=kwargs["username"])
        raise IntegrityError("token key collision")

    monkeypatch.setattr(services, "user_sign_up", no_token)
    response = Client(raise_request_exception=False).post(
        "/api/auth/signup/", {"username": "zoe", "password": "a long passphrase"},
        content_type="application/json")
    assert response.status_code in (400, 500)
    assert not get_user_model().objects.filter(username="zoe").exists(), "rolled back"
