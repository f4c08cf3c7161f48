"""The bots API: registration (the handshake must pass), management, owner-only access, the
secret shown once, the health-check task, and the admin. alice owns bots, charlie is an
outsider."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from bots import selectors, tasks
from bots.models import Bot, BotCall
from games import tasks as games_tasks
from tests.helpers.matches import documented_keys

pytestmark = pytest.mark.django_db


def register(api: Any, url: str, name: str = "ada") -> Any:
    return api.post("/api/bots/", {"name": name, "url": url}, format="json")


def test_register_shows_the_secret_once(alice_api, open_ref_server) -> None:
    response = register(alice_api, open_ref_server.base_url + "/heuristic")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["secret"].startswith("whsec_") and body["seatable"] and body["handshake_ok"]
    assert set(body["games"]) == set(open_ref_server.games)
    assert body["remote_name"] == "reference heuristic"
    bot = Bot.objects.get(pk=body["id"])
    assert bot.secret == body["secret"]  # stored: it signs every call
    listed = alice_api.get("/api/bots/").json()
    assert [b["id"] for b in listed] == [body["id"]] and "secret" not in listed[0]
    detail = alice_api.get(f"/api/bots/{body['id']}/").json()
    assert "secret" not in detail
    assert detail["stats"]["moves"] == 0 and detail["recent_calls"][0]["path"] == "handshake"


def test_the_handshake_is_signed_with_the_new_secret(alice_api, fake_bot) -> None:
    bot = fake_bot("good")
    body = register(alice_api, bot.url).json()
    bot.secret, bot.bad_signatures = body["secret"], 0
    assert alice_api.post(f"/api/bots/{body['id']}/check/").json()["handshake_ok"]
    assert bot.bad_signatures == 0 and bot.calls["/"] == 2


@pytest.mark.parametrize("path, reason", [("/nope", "http_status"),
                                          ("/heuristic/move", "http_status")])
def test_a_failed_handshake_is_a_422_and_registers_nothing(alice_api, open_ref_server, path,
                                                           reason) -> None:
    response = register(alice_api, open_ref_server.base_url + path)
    assert response.status_code == 422
    assert response.json()["code"] == "handshake_failed" and response.json()["reason"] == reason
    assert not Bot.objects.exists()


def test_refused_and_blocked_urls(alice_api, refused_url, open_ref_server, settings) -> None:
    response = register(alice_api, refused_url)
    assert response.status_code == 422 and response.json()["reason"] == "connection_error"
    settings.BOTS_ALLOW_PRIVATE_ADDRESSES = False
    response = register(alice_api, open_ref_server.base_url + "/random")
    assert response.status_code == 422 and response.json()["reason"] == "blocked_address"
    assert "loopback" in response.json()["detail"]


@pytest.mark.parametrize("data, code, says", [
    ({"name": "x", "url": "ftp://bot.example"}, "bad_url", "not ftp"),
    ({"name": "x"}, "invalid", "required"),
    ({"name": "x", "url": "http://u:p@bot.example"}, "bad_url", "credentials"),
    ({"name": "x", "url": "http://127.0.0.1:99999/"}, "bad_url", "port 99999 is out of range"),
    ({"name": "x", "url": "123"}, "bad_url", "must start with http:// or https://"),
    ({"name": "x", "url": 123}, "invalid", "Must be a string"),
    ({"name": "x", "url": ["http://bot.example"]}, "invalid", "not a list"),
])
def test_bad_requests(alice_api, data, code, says) -> None:
    response = alice_api.post("/api/bots/", data, format="json")
    assert response.status_code == 400 and response.json()["code"] == code
    assert says in json.dumps(response.json())
    assert not Bot.objects.exists()


def test_the_handshake_games_are_listed_once_and_unknown_ids_reported(alice_api,
                                                                      fake_bot) -> None:
    bot = fake_bot("good")
    bot.handshake = {"games": ["dtc", "chess", "dtc", "dot", "chess"]}
    created = register(alice_api, bot.url).json()
    assert created["games"] == ["dtc", "dot"] and created["unknown_games"] == ["chess"]
    assert alice_api.get(f"/api/bots/{created['id']}/").json()["unknown_games"] == ["chess"]
    bot.handshake = {"games": ["dot", "go"]}
    checked = alice_api.post(f"/api/bots/{created['id']}/check/").json()
    assert checked["games"] == ["dot"] and checked["unknown_games"] == ["go"]


def test_the_declared_concurrency_is_stored_and_shown_with_the_limit_in_force(
        alice_api, fake_bot, settings) -> None:
    settings.BOTS_MAX_CONCURRENCY = 5
    bot = fake_bot("good")
    bot.handshake = {"max_concurrency": 2}
    created = register(alice_api, bot.url).json()
    assert Bot.objects.get(pk=created["id"]).max_concurrency == 2
    assert created["max_concurrency"] == 2 and created["concurrency_limit"] == 2
    shown = alice_api.get(f"/api/bots/{created['id']}/").json()
    assert (shown["max_concurrency"], shown["concurrency_limit"]) == (2, 2)
    assert alice_api.get("/api/bots/").json()[0]["concurrency_limit"] == 2
    bot.handshake = {}  # declares none any more: the platform's default
    checked = alice_api.post(f"/api/bots/{created['id']}/check/").json()
    assert (checked["max_concurrency"], checked["concurrency_limit"]) == (None, 5)
    assert Bot.objects.get(pk=created["id"]).max_concurrency is None
    assert selectors.bot_concurrency(Bot.objects.get(pk=created["id"])) == 5
    bot.handshake = {"max_concurrency": 300}
    response = register(alice_api, bot.url, name="too-many")
    assert response.status_code == 422 and response.json()["reason"] == "bad_shape"
    assert '"max_concurrency" must be an integer from 1 to 256' in response.json()["detail"]
    schema = Client().get("/api/schema/?format=json").json()
    props = schema["components"]["schemas"]["Bot"]["properties"]
    assert props["max_concurrency"]["readOnly"] and props["max_concurrency"]["nullable"]
    assert props["concurrency_limit"]["readOnly"]
    assert {"max_concurrency", "concurrency_limit"} <= documented_keys(
        schema, "/api/bots/{bot_id}/", "get")


def test_apiversion_must_be_the_string_1(alice_api, fake_bot) -> None:
    bot = fake_bot("good")
    bot.handshake = {"apiversion": 1}
    response = register(alice_api, bot.url)
    assert response.status_code == 422 and response.json()["reason"] == "bad_shape"
    assert '"apiversion" must be the string "1", not the number 1' in response.json()["detail"]


def test_names_are_unique_per_owner(alice_api, charlie_api, open_ref_server) -> None:
    url = open_ref_server.base_url + "/random"
    assert register(alice_api, url).status_code == 201
    response = register(alice_api, url)
    assert response.status_code == 409 and response.json()["code"] == "bot_name_taken"
    assert register(charlie_api, url).status_code == 201


def test_owner_only(alice_api, charlie_api, anon_api, open_ref_server) -> None:
    bot_id = register(alice_api, open_ref_server.base_url + "/random").json()["id"]
    for method, path in [("get", ""), ("patch", ""), ("delete", ""), ("post", "enable/"),
                         ("post", "disable/"), ("post", "rotate-secret/"), ("post", "check/"),
                         ("get", "calls/"), ("get", "matches/")]:
        response = getattr(charlie_api, method)(f"/api/bots/{bot_id}/{path}", {}, format="json")
        assert response.status_code == 403, (method, path)
        assert response.json()["code"] == "not_your_bot"
        response = getattr(anon_api, method)(f"/api/bots/{bot_id}/{path}", {}, format="json")
        assert response.status_code == 401 and response.json()["code"] == "not_authenticated"
        response = getattr(alice_api, method)(f"/api/bots/999999/{path}", {}, format="json")
        assert response.status_code == 404 and response.json()["code"] == "bot_not_found"
    assert charlie_api.get("/api/bots/").json() == []
    assert anon_api.get("/api/bots/").status_code == 401


def test_update_runs_the_handshake_again(alice_api, open_ref_server, refused_url) -> None:
    bot_id = register(alice_api, open_ref_server.base_url + "/random").json()["id"]
    response = alice_api.patch(f"/api/bots/{bot_id}/", {"url": refused_url, "public": False},
                               format="json")
    assert response.status_code == 422 and response.json()["reason"] == "connection_error"
    bot = Bot.objects.get(pk=bot_id)
    assert bot.url.endswith("/random") and bot.public, "nothing changed"
    response = alice_api.patch(f"/api/bots/{bot_id}/", {"name": "grace",
                                                        "url": open_ref_server.base_url
                                                        + "/dot/heuristic"}, format="json")
    assert response.status_code == 200
    assert response.json()["name"] == "grace" and response.json()["games"] == ["dot"]
    assert BotCall.objects.filter(bot_id=bot_id, path="handshake").count() == 2


def test_disable_enable_rotate_delete(alice_api, open_ref_server) -> None:
    created = register(alice_api, open_ref_server.base_url + "/random").json()
    bot_id = created["id"]
    disabled = alice_api.post(f"/api/bots/{bot_id}/disable/").json()
    assert not disabled["enabled"] and not disabled["seatable"]
    assert alice_api.post(f"/api/bots/{bot_id}/enable/").json()["seatable"]
    rotated = alice_api.post(f"/api/bots/{bot_id}/rotate-secret/").json()
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != created["secret"]
    assert Bot.objects.get(pk=bot_id).secret == rotated["secret"]
    assert alice_api.delete(f"/api/bots/{bot_id}/").status_code == 204
    assert alice_api.get(f"/api/bots/{bot_id}/").status_code == 404


def test_after_a_rotation_the_previous_secret_works_for_the_overlap_only(
        alice_api, open_ref_server, monkeypatch, settings) -> None:
    """A bot still holding its old secret passes its handshake (calls carry both signatures)
    until the overlap ends, then fails it: it must be redeployed with the new secret."""
    settings.BOTS_SECRET_OVERLAP_HOURS = 24
    created = register(alice_api, open_ref_server.base_url + "/random").json()
    open_ref_server.secret = created["secret"]  # the bot checks signatures with its secret
    bot_id = created["id"]
    before = timezone.now()
    rotated = alice_api.post(f"/api/bots/{bot_id}/rotate-secret/").json()
    expires = datetime.fromisoformat(rotated["previous_secret_expires_at"])
    assert timedelta(hours=24) <= expires - before <= timedelta(hours=24, minutes=1)
    assert alice_api.post(f"/api/bots/{bot_id}/check/").json()["handshake_ok"]
    monkeypatch.setattr(selectors.timezone, "now", lambda: expires + timedelta(seconds=1))
    checked = alice_api.post(f"/api/bots/{bot_id}/check/").json()
    assert not checked["handshake_ok"] and "HTTP 401" in checked["handshake_error"]
    assert "does not match this bot's secret" in checked["handshake_error"], "the cause"
    assert checked["previous_secret_expires_at"] is None
    open_ref_server.secret = rotated["secret"]  # redeployed
    assert alice_api.post(f"/api/bots/{bot_id}/check/").json()["handshake_ok"]


def test_with_no_overlap_a_rotation_cuts_the_old_secret_at_once(alice_api, open_ref_server,
                                                                settings) -> None:
    settings.BOTS_SECRET_OVERLAP_HOURS = 0
    created = register(alice_api, open_ref_server.base_url + "/random").json()
    open_ref_server.secret = created["secret"]
    rotated = alice_api.post(f"/api/bots/{created['id']}/rotate-secret/").json()
    assert rotated["previous_secret_expires_at"] is None
    assert not alice_api.post(f"/api/bots/{created['id']}/check/").json()["handshake_ok"]


def test_the_health_check_task_records_the_result(alice_api, open_ref_server,
                                                  refused_url) -> None:
    bot_id = register(alice_api, open_ref_server.base_url + "/random").json()["id"]
    assert tasks.health_check.apply().get() == 1
    assert Bot.objects.get(pk=bot_id).handshake_ok
    Bot.objects.filter(pk=bot_id).update(url=refused_url)  # the bot went away
    assert tasks.health_check.apply().get() == 1
    bot = Bot.objects.get(pk=bot_id)
    assert not bot.handshake_ok and "connection_error" in bot.handshake_error
    detail = alice_api.get(f"/api/bots/{bot_id}/").json()
    assert detail["stats"]["last_error"]["path"] == "handshake"
    assert detail["stats"]["call_errors"] == {"handshake:connection_error": 1}
    entry = settings.CELERY_BEAT_SCHEDULE["bots-health-check"]
    assert entry["task"] == tasks.health_check.name == "bots.health_check"
    assert settings.CELERY_BEAT_SCHEDULE["games-resume-stalled-matches"]["task"] == \
        games_tasks.resume_stalled_matches.name


def test_admin_pages(alice_api, open_ref_server, django_user_model) -> None:
    client = Client()  # ("client" is the bot HTTP client in tests/bots)
    bot_id = register(alice_api, open_ref_server.base_url + "/random").json()["id"]
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(admin)
    for page in ("bot/", "botseat/", "botcall/", f"bot/{bot_id}/change/",
                 "bot/?enabled__exact=1&handshake_ok__exact=1", "botcall/?path__exact=handshake"):
        assert client.get(f"/admin/bots/{page}").status_code == 200, page


def test_the_admin_shows_neither_secret_after_a_rotation(alice_api, open_ref_server,
                                                         django_user_model) -> None:
    client = Client()
    created = register(alice_api, open_ref_server.base_url + "/random").json()
    rotated = alice_api.post(f"/api/bots/{created['id']}/rotate-secret/").json()
    client.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "pw"))
    page = client.get(f"/admin/bots/bot/{created['id']}/change/").content.decode()
    assert created["secret"] not in page and rotated["secret"] not in page


def test_the_schema_documents_the_bots_api() -> None:
    schema = Client().get("/api/schema/?format=json").json()
    assert "/api/bots/" in schema["paths"] and "/api/bots/{bot_id}/rotate-secret/" in schema["paths"]
    assert "422" in schema["paths"]["/api/bots/"]["post"]["responses"]
    assert "BotWithSecret" in schema["components"]["schemas"]


def test_the_call_log_is_paginated_newest_first_and_filtered(alice, alice_api,
                                                             open_ref_server) -> None:
    bot_id = register(alice_api, open_ref_server.base_url + "/random").json()["id"]
    BotCall.objects.filter(bot_id=bot_id).delete()  # the registration handshake
    rows = [("start", "", False), ("move", "", False), ("move", "timeout", True),
            ("move", "illegal_action", True), ("move", "platform_error", False),
            ("end", "connection_error", False)]
    for turn, (path, reason, strike) in enumerate(rows):
        BotCall.objects.create(bot_id=bot_id, path=path, turn=turn, elapsed_ms=1.5 * turn,
                               reason=reason, strike=strike, detail=reason and f"{reason}!",
                               log="thinking" if path == "move" else "")

    def turns(query: str = "") -> list[int]:
        response = alice_api.get(f"/api/bots/{bot_id}/calls/{query}")
        assert response.status_code == 200, response.json()
        return [call["turn"] for call in response.json()["results"]]

    assert turns() == [5, 4, 3, 2, 1, 0]
    assert turns("?path=move") == [4, 3, 2, 1]
    assert turns("?failed=true") == [5, 4, 3, 2]
    assert turns("?failed=false") == [1, 0]
    assert turns("?reason=timeout") == [2]
    assert turns("?path=move&failed=true&limit=2") == [4, 3]
    page = alice_api.get(f"/api/bots/{bot_id}/calls/?limit=2&offset=2").json()
    assert page["count"] == 6 and [c["turn"] for c in page["results"]] == [3, 2]
    assert page["next"] and page["previous"]
    call = page["results"][0]
    assert call["reason"] == "illegal_action" and call["strike"] and call["log"] == "thinking"
    assert call["detail"] == "illegal_action!" and call["elapsed_ms"] == 4.5
    bad = alice_api.get(f"/api/bots/{bot_id}/calls/?path=teleport")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
    huge = alice_api.get(f"/api/bots/{bot_id}/calls/?match={10**30}")
    assert huge.status_code == 400 and huge.json()["code"] == "invalid"
    schema = Client().get("/api/schema/?format=json").json()
    assert documented_keys(schema, "/api/bots/{bot_id}/calls/", "get") == set(page)
    ref = schema["components"]["schemas"]["PaginatedBotCallList"]["properties"]["results"]
    assert ref["items"]["$ref"].endswith("/BotCall") and set(call) == set(
        schema["components"]["schemas"]["BotCall"]["properties"])


def test_a_bots_matches_newest_first_with_rank_strikes_and_notices(alice, alice_api,
                                                                   open_ref_server) -> None:
    from bots.models import BotSeat
    from games.models import Match

    bot_id = register(alice_api, open_ref_server.base_url + "/random").json()["id"]

    def seat(status: str, number: int, *, sealed: bool = False, **fields: Any) -> int:
        match = Match.objects.create(game="dice_cup", seed=1, players=2, status=status, state={},
                                     sealed=sealed, result={"ranks": [2, 1]}
                                     if status == "finished" else None)
        BotSeat.objects.create(match=match, number=number, bot_id=bot_id, **fields)
        return match.pk

    won = seat("finished", 1, strikes={"timeout": 2}, started_at=timezone.now(),
               ended_at=timezone.now())
    running = seat("running", 0, started_at=timezone.now())
    sealed = seat("finished", 0, sealed=True)
    page = alice_api.get(f"/api/bots/{bot_id}/matches/").json()
    assert page["count"] == 3
    rows = {row["match"]: row for row in page["results"]}
    assert [row["match"] for row in page["results"]] == [sealed, running, won], "newest first"
    assert rows[won]["rank"] == 1 and rows[won]["strikes"] == {"timeout": 2}
    assert rows[won]["seat"] == 1 and rows[won]["game"] == "dice_cup" and rows[won]["ended_at"]
    assert rows[running]["rank"] is None and rows[running]["status"] == "running"
    assert rows[sealed]["rank"] is None, "a sealed deal's result stays hidden"
    one = alice_api.get(f"/api/bots/{bot_id}/matches/?limit=1&offset=1").json()
    assert [row["match"] for row in one["results"]] == [running] and one["next"]
