"""The match list costs the same few queries however many rows it shows, signing up is one
transaction whose username race is a 400, and the JSON Lines export streams."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError
from django.test import Client

from games import services
from games.apis import accounts

pytestmark = pytest.mark.django_db


def test_the_match_list_does_not_query_per_row(make_match, make_user, anon_api,
                                               django_assert_max_num_queries) -> None:
    for i in range(6):
        make_match("dice_cup", [make_user(f"creator{i}"), None])
    # count, page of matches (with creators), seats, seats' users
    with django_assert_max_num_queries(4):
        response = anon_api.get("/api/matches/")
    assert response.status_code == 200 and len(response.json()["results"]) == 6
    assert {m["created_by"] for m in response.json()["results"]} == {
        f"creator{i}" for i in range(6)}


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


def test_the_jsonl_export_streams(duel, anon_api) -> None:
    response = anon_api.get(f"/api/matches/{duel.pk}/log.jsonl")
    assert response.status_code == 200 and response.streaming
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert json.loads(lines[0])["type"] == "match"
    assert [json.loads(line)["type"] for line in lines[1:]] == ["entry"] * (len(lines) - 1)
    assert response["Content-Type"] == "application/x-ndjson"
