"""Webhook bots in real matches created through the API: real HTTP bots on loopback, reference
bots and polling players at one table; misbehaving bots get the default action and a strike
with its reason; the strike limit forfeits; the games task is idempotent."""

from __future__ import annotations

from typing import Any

import pytest

from bots.models import Bot, BotCall, BotSeat
from games import tasks
from games.engine import get_game
from games.log import entries
from games.models import Match, Seat
from games.services import matches_resume_stalled
from tests.helpers.matches import act, poll, replay_log
from tests.helpers.tasks import hold_tasks

from .conftest import SHORT_OPTIONS

pytestmark = pytest.mark.django_db


def register(api: Any, url: str, name: str = "ada") -> int:
    response = api.post("/api/bots/", {"name": name, "url": url}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def create(api: Any, game: str, seats: list[dict], **extra: Any) -> Any:
    return api.post("/api/matches/", {"game": game, "seats": seats, "join": False,
                                      "seed": 3, **extra}, format="json")


def advance(match_id: int) -> int:
    """What the worker does once the request's transaction commits."""
    return tasks.advance_automatic_seats.apply(args=[match_id]).get()


def play_out(match_id: int, players: dict[int, Any] | None = None, limit: int = 5000) -> Match:
    """Run the task, let polling players act (their first legal action), until the match ends."""
    players = players or {}
    for _ in range(limit):
        advance(match_id)
        match = Match.objects.get(pk=match_id)
        if match.status == "finished":
            advance(match_id)  # the task queued by the final action: sends /end
            return match
        moved = False
        for seat, api in players.items():
            body = poll(api, match_id, seat).json()
            if body["your_turn"]:
                assert act(api, match_id, seat, body["version"],
                           body["legal_actions"][0]).status_code in (200, 409)
                moved = True
        assert moved or match.status == "finished", "nobody can move: the match stalled"
    raise AssertionError("the match did not end")


def test_mixed_table_webhook_reference_and_polling(alice_api, bob, bob_api,
                                                   open_ref_server, fake_bot) -> None:
    served = register(alice_api, open_ref_server.base_url + "/heuristic", "served")
    fake = fake_bot("good")
    body = alice_api.post("/api/bots/", {"name": "fake", "url": fake.url}, format="json").json()
    fake.secret, fake.bad_signatures = body["secret"], 0
    response = create(alice_api, "dice_cup", [
        {"kind": "webhook", "bot": served}, {"kind": "reference", "bot": "random"},
        {"kind": "player"}, {"kind": "webhook", "bot": body["id"]}])
    assert response.status_code == 201, response.json()
    match_id = response.json()["id"]
    assert [s["kind"] for s in response.json()["seats"]] == ["webhook", "reference", "player",
                                                             "webhook"]
    assert bob_api.post(f"/api/matches/{match_id}/join/", {}, format="json").status_code == 200
    match = play_out(match_id, {2: bob_api})
    assert match.result is not None
    seats = Seat.objects.filter(match=match)
    assert all(s.strikes == 0 and not s.forfeited for s in seats)
    logged = list(entries(match.pk))
    assert not any(e.kind in ("default", "timeout") for e in logged)
    for number in (0, 3):
        assert any(e.kind == "action" and e.seat == number for e in logged)
        row = BotSeat.objects.get(match=match, number=number)
        assert row.started_at and row.ended_at and row.strikes == {}
    assert fake.calls["/start"] == fake.calls["/end"] == 1 and fake.calls["/move"] > 0
    assert fake.match_ids == {match_id}, "match.id is the integer id of the REST API"
    assert fake.bad_signatures == 0, "every call is signed with the bot's secret"
    stats = alice_api.get(f"/api/bots/{body['id']}/").json()["stats"]
    assert stats["matches_played"] == 1 and stats["strike_total"] == 0
    assert stats["moves"] == fake.calls["/move"] == stats["latency_ms"]["count"]
    assert stats["latency_ms"]["p50"] <= stats["latency_ms"]["p95"] <= stats["latency_ms"]["max"]
    log = bob_api.get(f"/api/matches/{match_id}/log/").json()
    assert replay_log(log).result() == match.result


def test_simultaneous_step_with_a_webhook_bot_and_a_polling_player(alice_api, bob, bob_api,
                                                                   open_ref_server) -> None:
    bot_id = register(alice_api, open_ref_server.base_url + "/dot/heuristic")
    match_id = create(alice_api, "dot", [{"kind": "webhook", "bot": bot_id},
                                         {"kind": "player"}]).json()["id"]
    bob_api.post(f"/api/matches/{match_id}/join/", {}, format="json")
    match = play_out(match_id, {1: bob_api})
    assert not any(e.kind == "default" for e in entries(match.pk))
    assert BotCall.objects.filter(bot_id=bot_id, path="end").count() == 1


def test_two_webhook_bots_are_called_concurrently(alice_api, fake_bot, settings) -> None:
    first, second = fake_bot("slow"), fake_bot("slow")
    first.sleep = second.sleep = 0.15
    settings.BOTS_MOVE_TIMEOUT_MS = 5000  # slow, never failing, even on a loaded machine
    ids = [register(alice_api, first.url, "one"), register(alice_api, second.url, "two")]
    match_id = create(alice_api, "dot", [{"kind": "webhook", "bot": i} for i in ids]).json()["id"]
    match = play_out(match_id)
    assert not Seat.objects.filter(match=match, strikes__gt=0).exists()
    calls = {(c.turn, c.seat): c for c in BotCall.objects.filter(path="move")}
    both = [t for t, s in calls if s == 0 and (t, 1) in calls]
    assert both, "D.O.T commits are simultaneous: both seats asked at the same turn"
    # Asked concurrently, not one after the other: the two bots' sleeps overlap in time.
    overlapping = [(a, b) for a in first.move_windows for b in second.move_windows
                   if a[0] < b[1] and b[0] < a[1]]
    assert len(overlapping) >= len(both)


def test_a_bot_url_with_a_query_string_gets_every_call_with_it(alice_api, fake_bot) -> None:
    """The query stays at the end of the URL: ``/move?team=blue``, not ``/?team=blue/move``."""
    fake = fake_bot("good")
    bot_id = register(alice_api, fake.url + "/?team=blue")
    match_id = create(alice_api, "dice_cup", [{"kind": "webhook", "bot": bot_id},
                                              {"kind": "reference", "bot": "random"}]).json()["id"]
    match = play_out(match_id)
    assert not Seat.objects.filter(match=match, strikes__gt=0).exists()
    assert set(fake.calls) == {"/?team=blue", "/start?team=blue", "/move?team=blue",
                               "/end?team=blue"}


@pytest.mark.parametrize("compact", [False, True])
def test_the_complete_legal_list_goes_to_bots_that_did_not_ask_for_the_compact_form(
        alice_api, fake_bot, settings, compact) -> None:
    """A bot that reads only legal_actions plays DTC without a strike unless its handshake
    asked for the compact form; then it is told which field it should have read."""
    settings.BLUFF_MAX_STRIKES = 0
    fake = fake_bot("list_only")
    fake.compact = compact
    bot_id = register(alice_api, fake.url)
    assert alice_api.get(f"/api/bots/{bot_id}/").json()["compact_legal_actions"] is compact
    match_id = create(alice_api, "dtc", [{"kind": "webhook", "bot": bot_id},
                                         {"kind": "reference", "bot": "random"},
                                         {"kind": "reference", "bot": "random"}]).json()["id"]
    match = play_out(match_id)
    failed = BotCall.objects.filter(bot_id=bot_id, path="move").exclude(reason="")
    if not compact:
        assert not failed.exists() and not Seat.objects.filter(match=match, strikes__gt=0).exists()
    else:
        assert failed.exists() and {c.reason for c in failed} == {"bad_shape"}
        assert all("build the action from legal_description" in c.detail for c in failed)


def test_a_bot_holding_the_previous_secret_plays_during_the_overlap(alice_api,
                                                                   open_ref_server) -> None:
    created = alice_api.post("/api/bots/", {"name": "ada", "url": open_ref_server.base_url
                                            + "/dice_cup/random"}, format="json").json()
    open_ref_server.secret = created["secret"]  # verifies with it, and is not redeployed
    alice_api.post(f"/api/bots/{created['id']}/rotate-secret/")
    match_id = create(alice_api, "dice_cup", [{"kind": "webhook", "bot": created["id"]},
                                              {"kind": "reference", "bot": "random"}]).json()["id"]
    match = play_out(match_id)
    assert not Seat.objects.filter(match=match, strikes__gt=0).exists()
    assert not BotCall.objects.exclude(reason="").exists()


MISBEHAVIOURS = [("error500", "http_status"), ("invalid_json", "invalid_json"),
                 ("illegal", "illegal_action"), ("huge", "oversized_body"),
                 ("bad_shape", "bad_shape"), ("slow", "timeout"), ("redirect", "http_status")]


@pytest.mark.parametrize("behaviour, reason", MISBEHAVIOURS)
def test_a_misbehaving_bot_gets_the_default_action_and_a_strike(alice_api, fake_bot, settings,
                                                                behaviour, reason) -> None:
    settings.BLUFF_MAX_STRIKES = 0  # never forfeit: count every strike
    # Only the slow bot should time out: the others get a timeout no loaded machine reaches.
    settings.BOTS_MOVE_TIMEOUT_MS = 150 if behaviour == "slow" else 5000
    settings.BOTS_MAX_RESPONSE_BYTES = 16 * 1024
    bot = fake_bot(behaviour)
    bot.sleep = 0.4
    bot_id = register(alice_api, bot.url)
    match_id = create(alice_api, "dice_cup", [{"kind": "webhook", "bot": bot_id},
                                              {"kind": "reference", "bot": "random"},
                                              {"kind": "reference", "bot": "heuristic"}]
                      ).json()["id"]
    match = play_out(match_id)
    mine = [e for e in entries(match.pk) if e.seat == 0]
    assert mine and not any(e.kind == "action" for e in mine)
    defaults = sum(1 for e in mine if e.kind == "default")
    assert Seat.objects.get(match=match, number=0).strikes == defaults
    assert BotSeat.objects.get(match=match, number=0).strikes == {reason: defaults}
    assert not Seat.objects.filter(match=match, number__gt=0, strikes__gt=0).exists()
    stats = alice_api.get(f"/api/bots/{bot_id}/").json()["stats"]
    assert stats["strikes"] == {reason: defaults} and stats["matches_played"] == 1
    assert stats["last_error"]["reason"] == reason and stats["last_error"]["detail"]
    if behaviour == "illegal":  # the bot's log line is kept on a failed move too
        assert set(BotCall.objects.filter(path="move").values_list("log", flat=True)) == {
            "I meant to bluff"}
    log = alice_api.get(f"/api/matches/{match_id}/log/").json()
    fresh = get_game("dice_cup").new_match(players=3, seed=3)
    for entry in log["entries"]:  # the bot's seat played exactly the game's default actions
        if entry["seat"] == 0 and entry["kind"] == "default":
            assert entry["action"] == fresh.default_action(0)
        if entry["kind"] in ("action", "default"):
            fresh.apply(entry["seat"], entry["action"])
    assert fresh.result() == match.result


def test_connection_refused_and_a_deleted_bot(alice_api, fake_bot, refused_url,
                                              settings) -> None:
    settings.BLUFF_MAX_STRIKES = 0
    gone = register(alice_api, fake_bot("good").url, "gone")
    deleted = register(alice_api, fake_bot("good").url, "deleted")
    match_id = create(alice_api, "dice_cup", [{"kind": "webhook", "bot": gone},
                                              {"kind": "webhook", "bot": deleted},
                                              {"kind": "reference", "bot": "random"}]
                      ).json()["id"]
    Bot.objects.filter(pk=gone).update(url=refused_url)
    alice_api.delete(f"/api/bots/{deleted}/")
    match = play_out(match_id)
    assert set(BotSeat.objects.get(match=match, number=0).strikes) == {"connection_error"}
    assert set(BotSeat.objects.get(match=match, number=1).strikes) == {"bot_unavailable"}


def test_the_strike_limit_forfeits_the_seat(alice_api, fake_bot, settings) -> None:
    settings.BLUFF_MAX_STRIKES = 2
    bot = fake_bot("error500")
    bot_id = register(alice_api, bot.url)
    match_id = create(alice_api, "dice_cup", [{"kind": "webhook", "bot": bot_id},
                                              {"kind": "reference", "bot": "random"},
                                              {"kind": "reference", "bot": "random"}]
                      ).json()["id"]
    match = play_out(match_id)
    seat = Seat.objects.get(match=match, number=0)
    assert seat.strikes == 2 and seat.forfeited
    assert bot.calls["/move"] == 2, "a forfeited seat is not called any more"
    assert match.result["ranks"][0] == 3
    [resign] = [e for e in entries(match.pk) if e.kind == "resign"]
    assert resign.seat == 0 and resign.action["reason"] == "strikes"


def test_the_task_is_idempotent(alice_api, open_ref_server) -> None:
    bot_id = register(alice_api, open_ref_server.base_url + "/random")
    match_id = create(alice_api, "dice_cup", [{"kind": "webhook", "bot": bot_id},
                                              {"kind": "reference", "bot": "random"}]
                      ).json()["id"]
    first = advance(match_id)
    assert first > 0 and Match.objects.get(pk=match_id).status == "finished"
    assert advance(match_id) == 0 and advance(match_id) == 0
    assert BotCall.objects.filter(path="start").count() == 1
    assert BotCall.objects.filter(path="end").count() == 1
    assert BotCall.objects.filter(path="move").count() == first == sum(
        1 for e in entries(match_id) if e.seat == 0 and e.kind == "action"), \
        "each move asked once"


def test_seating_rules(alice_api, bob_api, open_ref_server) -> None:
    dot_only = register(alice_api, open_ref_server.base_url + "/dot/random", "dot-only")
    anything = register(alice_api, open_ref_server.base_url + "/random", "any")
    for spec, words in [({"kind": "webhook", "bot": 999999}, "no bot 999999"),
                        ({"kind": "webhook"}, "needs a bot id"),
                        ({"kind": "webhook", "bot": dot_only}, "does not play dice_cup")]:
        response = create(alice_api, "dice_cup", [spec, {"kind": "player"}])
        assert response.status_code == 400 and response.json()["code"] == "bad_seats"
        assert words in response.json()["detail"]
    alice_api.post(f"/api/bots/{anything}/disable/")
    response = create(bob_api, "dice_cup", [{"kind": "webhook", "bot": anything},
                                            {"kind": "player"}])
    assert response.status_code == 400 and "disabled" in response.json()["detail"]
    alice_api.post(f"/api/bots/{anything}/enable/")
    response = create(bob_api, "dice_cup", [{"kind": "webhook", "bot": anything},
                                            {"kind": "player"}])
    assert response.status_code == 201, "anyone may seat any enabled public bot"


def test_a_private_bot_is_seated_by_its_owner_only(alice_api, bob_api, open_ref_server,
                                                   monkeypatch) -> None:
    from bots import services

    response = alice_api.post("/api/bots/", {"name": "mine", "public": False,
                                             "url": open_ref_server.base_url + "/random"},
                              format="json")
    assert response.status_code == 201 and response.json()["public"] is False
    mine = response.json()["id"]
    seats = [{"kind": "webhook", "bot": mine}, {"kind": "reference", "bot": "random"}]
    refused = create(bob_api, "dice_cup", seats)
    assert refused.status_code == 400 and refused.json()["code"] == "bad_seats"
    assert "private" in refused.json()["detail"]
    assert create(alice_api, "dice_cup", seats).status_code == 201
    # Making it public again needs no handshake: nothing is called.
    monkeypatch.setattr(services, "bot_handshake", lambda **kw: pytest.fail("handshake"))
    patched = alice_api.patch(f"/api/bots/{mine}/", {"public": True}, format="json")
    assert patched.status_code == 200 and patched.json()["public"] is True
    assert create(bob_api, "dice_cup", seats).status_code == 201
    assert alice_api.get("/api/bots/").json()[0]["public"] is True


def test_every_game_with_webhook_bots(alice_api, open_ref_server, game_id) -> None:
    bot_id = register(alice_api, open_ref_server.base_url + "/heuristic")
    game = get_game(game_id)
    seats = [{"kind": "webhook", "bot": bot_id}] * game.min_players
    response = create(alice_api, game_id, seats, options=SHORT_OPTIONS.get(game_id, {}))
    assert response.status_code == 201, response.json()
    match = play_out(response.json()["id"])
    assert not any(e.kind == "default" for e in entries(match.pk))
    assert BotCall.objects.exclude(reason="").count() == 0


def test_stalled_matches_are_queued_again(alice_api, open_ref_server, monkeypatch,
                                          settings) -> None:
    settings.BLUFF_STALLED_SECONDS = 1
    queued = hold_tasks(monkeypatch, "games.advance_automatic_seats")
    bot_id = register(alice_api, open_ref_server.base_url + "/random")
    match_id = create(alice_api, "dice_cup", [{"kind": "webhook", "bot": bot_id},
                                              {"kind": "player"}]).json()["id"]
    from datetime import timedelta

    from django.utils import timezone
    Match.objects.filter(pk=match_id).update(updated_at=timezone.now() - timedelta(seconds=5))
    assert matches_resume_stalled() == (1 if Match.objects.get(pk=match_id).status == "running"
                                        else 0)
    assert queued in ([("games.advance_automatic_seats", match_id)], [])


def test_failures_of_ours_are_platform_errors_in_the_stats_never_strikes(
        alice, alice_api, open_ref_server, monkeypatch, caplog) -> None:
    """A corrupt stored secret (signing fails) and a bug building a /move body: the match still
    ends, with default actions and no strike, and the bot's stats count them apart."""
    from bots import protocol

    broken = Bot.objects.create(owner=alice, name="broken", url=open_ref_server.base_url
                                + "/random", secret="whsec_%%%not-base64", games=["dice_cup"],
                                handshake_ok=True)
    good = register(alice_api, open_ref_server.base_url + "/random", "good")
    build = protocol.move_body
    asked = {"n": 0}

    def flaky_body(info: Any, state: Any, seat: int, **options: Any) -> Any:
        asked["n"] += 1
        if seat == 1 and asked["n"] % 2:
            raise RuntimeError("engine view bug")
        return build(info, state, seat, **options)

    monkeypatch.setattr(protocol, "move_body", flaky_body)
    match_id = create(alice_api, "dice_cup", [{"kind": "webhook", "bot": broken.pk},
                                              {"kind": "webhook", "bot": good}]).json()["id"]
    match = play_out(match_id)
    assert match.status == "finished"
    assert all(s.strikes == 0 and not s.forfeited for s in Seat.objects.filter(match=match))
    for bot_id in (broken.pk, good):
        stats = alice_api.get(f"/api/bots/{bot_id}/").json()["stats"]
        ours = BotCall.objects.filter(bot_id=bot_id, reason="platform_error")
        assert stats["strike_total"] == 0 and stats["strikes"] == {}
        assert stats["platform_errors"] == ours.count() > 0
    assert not BotCall.objects.filter(bot=broken).exclude(reason="platform_error").exists(), \
        "no call could be signed"
    broken_moves = BotCall.objects.filter(bot=broken, path="move")
    assert "Error" in broken_moves.first().detail
    assert BotCall.objects.filter(bot_id=good, reason="platform_error",
                                  detail__contains="engine view bug").exists()
    assert sum(1 for e in entries(match.pk) if e.kind == "default" and e.seat == 0) == \
        broken_moves.count()
