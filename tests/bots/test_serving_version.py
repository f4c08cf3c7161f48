"""What a bot's URL serves now (``Bot.serving_version``, docs/ladder.md "In place"): every
handshake that passes records it, apart from the version taken as the bot's
(``declared_version``); a /start answer may declare it too, so a redeploy is noticed at the first
match it plays (both drivers: the threaded task and the multiplexed loop), the seat that played
new code is marked (``BotSeat.new_version``), and a bad value is ignored with a detail, never a
strike. Real HTTP bots on loopback (``fake_bot``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from bots import services as bot_services
from bots import tasks as bot_tasks
from bots.models import Bot, BotCall, BotSeat
from bots.webhook import WebhookSession
from games import services, tasks
from games.models import Match

pytestmark = pytest.mark.django_db


def _bot(owner: Any, server: Any, secret: str, version: str = "1") -> Bot:
    """A bot whose live code declared ``version``, the URL seen serving it."""
    return Bot.objects.create(owner=owner, name=f"v{Bot.objects.count()}", url=server.url,
                              secret=secret, games=["dice_cup"], handshake_ok=True,
                              declared_version=version, serving_version=version)


def _match(owner: Any, bot: Bot) -> int:
    return services.match_create(game="dice_cup", created_by=owner, seed=5, seats=[
        {"kind": "webhook", "bot": bot.pk}, {"kind": "reference", "bot": "random"}]).pk


def _play(match_id: int) -> Match:
    """The threaded worker's task, until the match is over (and /end sent)."""
    for _ in range(2000):
        tasks.advance_automatic_seats.apply(args=[match_id]).get()
        match = Match.objects.get(pk=match_id)
        if match.status == "finished":
            tasks.advance_automatic_seats.apply(args=[match_id]).get()
            return match
    raise AssertionError("the match did not end")


def test_every_handshake_that_passes_records_what_the_url_serves(alice, fake_bot) -> None:
    server = fake_bot("good")
    server.handshake = {"version": "1"}
    bot, _ = bot_services.bot_register(owner=alice, name="ada", url=server.url)
    assert (bot.declared_version, bot.serving_version) == ("1", "1")
    server.handshake = {"version": "2"}  # redeployed at the same URL
    checked = bot_services.bot_check(bot_id=bot.pk)  # "Run the handshake now"
    assert (checked.declared_version, checked.serving_version) == ("1", "2")
    server.handshake = {"version": "3"}
    assert bot_services.bots_health_check() == 1  # the periodic health check
    bot.refresh_from_db()
    assert (bot.declared_version, bot.serving_version) == ("1", "3")
    server.handshake = {"version": "4"}
    renamed = bot_services.bot_update(bot_id=bot.pk, user=alice, name="ada2")
    assert (renamed.declared_version, renamed.serving_version) == ("1", "4")
    server.handshake = {}  # rolled back to code that declares none
    assert bot_services.bot_check(bot_id=bot.pk).serving_version == ""
    server.handshake = {"version": "5"}
    redeployed = bot_services.bot_redeployed(bot_id=bot.pk, user=alice, version="5")
    assert (redeployed.declared_version, redeployed.serving_version) == ("5", "5")


def test_a_failed_handshake_leaves_what_was_last_seen(alice, fake_bot, secret) -> None:
    server = fake_bot("good")
    bot = _bot(alice, server, secret, "1")
    server.shutdown()
    server.server_close()
    checked = bot_services.bot_check(bot_id=bot.pk)
    assert not checked.handshake_ok and checked.serving_version == "1"


def test_the_bot_api_shows_both_versions(alice, alice_api, fake_bot, secret) -> None:
    bot = _bot(alice, fake_bot("good"), secret, "1")
    Bot.objects.filter(pk=bot.pk).update(serving_version="2")
    shown = alice_api.get(f"/api/bots/{bot.pk}/").json()
    assert (shown["declared_version"], shown["serving_version"]) == ("1", "2")
    schema = alice_api.get("/api/schema/", {"format": "json"}).json()
    fields = schema["components"]["schemas"]["BotDetail"]["properties"]
    assert "redeploy" in fields["serving_version"]["description"]


def test_a_start_answer_declaring_a_new_version_is_noticed_at_the_first_match(
        alice, fake_bot, secret) -> None:
    server = fake_bot("good")
    server.start_answer = b'{"version": "2.1.0"}'
    bot = _bot(alice, server, secret, "2.0.0")
    match = _play(_match(alice, bot))
    bot.refresh_from_db()
    assert (bot.declared_version, bot.serving_version) == ("2.0.0", "2.1.0")
    seat = BotSeat.objects.get(match=match, number=0)
    assert seat.new_version == "2.1.0", "the seat that played new code is marked"
    start = BotCall.objects.get(match=match, path="start")
    assert (start.reason, start.strike, start.detail) == ("", False, "")


def test_the_bot_s_matches_show_the_seat_new_code_played(alice, alice_api, fake_bot,
                                                        secret) -> None:
    server = fake_bot("good")
    server.start_answer = b'{"version": "2.1.0"}'
    bot = _bot(alice, server, secret, "2.0.0")
    renewed = _play(_match(alice, bot))
    server.start_answer = b'{"version": "2.0.0"}'  # rolled back
    own = _play(_match(alice, bot))
    listed = alice_api.get(f"/api/bots/{bot.pk}/matches/").json()["results"]
    assert [(m["match"], m["new_version"]) for m in listed] == [(own.pk, ""),
                                                                (renewed.pk, "2.1.0")]
    schema = alice_api.get("/api/schema/", {"format": "json"}).json()
    field = schema["components"]["schemas"]["BotMatch"]["properties"]["new_version"]
    assert "not rate" in field["description"]
    client = Client()
    client.force_login(alice)
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert page.count("new code 2.1.0") == 1, "its owner sees which match new code played"
    client.logout()
    assert "new code" not in client.get(f"/bots/{bot.pk}/").content.decode()


def test_a_start_answer_declaring_the_bot_s_own_version_writes_nothing(
        alice, fake_bot, secret, django_assert_max_num_queries) -> None:
    """The /start claim with the bots read is one statement (PostgreSQL); a /start answer that
    declares what the bot's URL was seen serving, the bot's own version, adds none."""
    from games.services.store import table_of
    from games.states import load_state
    from lib.clock import platform_clock

    server = fake_bot("good")
    server.start_answer = b'{"version": "1"}'
    bot = _bot(alice, server, secret, "1")
    match = Match.objects.get(pk=_match(alice, bot))
    session, state = WebhookSession(table_of(match)), load_state(match)
    platform_clock().refresh()
    with django_assert_max_num_queries(1 if connection.vendor == "postgresql" else 2):
        session.started(state)
    assert server.calls["/start"] == 1
    assert Bot.objects.values_list("serving_version", flat=True).get(pk=bot.pk) == "1"
    assert BotSeat.objects.get(match=match).new_version == ""


def test_rolled_back_code_is_recorded_and_plays_as_the_bot_s_own(alice, fake_bot, secret) -> None:
    server = fake_bot("good")
    server.start_answer = b'{"version": "1"}'
    bot = _bot(alice, server, secret, "1")
    Bot.objects.filter(pk=bot.pk).update(serving_version="2")  # seen redeployed, then rolled back
    match = _play(_match(alice, bot))
    assert Bot.objects.values_list("serving_version", flat=True).get(pk=bot.pk) == "1"
    assert BotSeat.objects.get(match=match).new_version == ""


@pytest.mark.parametrize("answer, ignored", [
    (b'{"version": 2}', '"version" ignored: it must be a string, not the number 2'),
    (b'{"version": "' + b"x" * 101 + b'"}', '"version" ignored: 101 characters, over the 100'),
])
def test_a_version_that_cannot_be_read_is_ignored_with_a_detail_never_a_strike(
        alice, fake_bot, secret, answer, ignored) -> None:
    server = fake_bot("good")
    server.start_answer = answer
    bot = _bot(alice, server, secret, "1")
    match = _play(_match(alice, bot))
    assert Bot.objects.values_list("serving_version", flat=True).get(pk=bot.pk) == "1"
    assert BotSeat.objects.get(match=match).new_version == ""
    start = BotCall.objects.get(match=match, path="start")
    assert (start.reason, start.strike) == ("", False) and start.detail.startswith(ignored)
    assert not BotCall.objects.filter(match=match, strike=True).exists()
    assert match.seats.get(number=0).strikes == 0


def test_a_start_answer_that_declares_nothing_changes_nothing(alice, fake_bot, secret) -> None:
    server = fake_bot("good")
    server.start_answer = b"not even JSON"  # ignored, as ever
    bot = _bot(alice, server, secret, "1")
    match = _play(_match(alice, bot))
    assert Bot.objects.values_list("serving_version", flat=True).get(pk=bot.pk) == "1"
    assert BotCall.objects.get(match=match, path="start").detail == ""


@pytest.mark.django_db(transaction=True)  # the loop's thread has its own connection
def test_the_multiplexed_loop_notices_a_new_version_at_start_too(alice, fake_bot, secret,
                                                                 monkeypatch) -> None:
    from games.services.multiplexed import MatchLoop
    from tests.helpers.tasks import hold_tasks

    hold_tasks(monkeypatch, "games.advance")
    server = fake_bot("good")
    server.start_answer = b'{"version": "2"}'
    bot = _bot(alice, server, secret, "1")
    match_id = _match(alice, bot)
    loop = MatchLoop()
    try:
        assert loop.play(match_id).result(timeout=120) > 0
    finally:
        loop.stop()
    assert Match.objects.get(pk=match_id).status == "finished"
    assert Bot.objects.values_list("serving_version", flat=True).get(pk=bot.pk) == "2"
    assert BotSeat.objects.get(match_id=match_id, number=0).new_version == "2"


def test_the_bots_a_handshake_holds_out_are_checked_again_within_minutes(
        alice, fake_bot, secret, settings) -> None:
    """``bots.recheck_held`` (every ``BOTS_RECHECK_HELD_SECONDS``): a rolled-back redeploy and a
    bot that answers again play again without waiting for the hourly health check or their
    owner; a bot in step, or one checked a moment ago, is not called."""
    servers = {name: fake_bot("good") for name in ("steady", "rolled_back", "back", "still")}
    for name, version in (("steady", "1"), ("rolled_back", "1"), ("back", "1"), ("still", "2")):
        servers[name].handshake = {"version": version}
    bots = {name: _bot(alice, server, secret, "1") for name, server in servers.items()}
    Bot.objects.filter(pk__in=[bots["rolled_back"].pk, bots["still"].pk]).update(
        serving_version="2")  # seen redeployed
    Bot.objects.filter(pk=bots["back"].pk).update(handshake_ok=False, handshake_error="down")
    long_ago = timezone.now() - timedelta(seconds=settings.BOTS_RECHECK_HELD_SECONDS)
    Bot.objects.update(handshake_at=long_ago)

    assert bot_tasks.recheck_held.apply().get() == 3
    assert servers["steady"].calls["/"] == 0, "a bot in step is left to the health check"
    states = {name: Bot.objects.values_list("handshake_ok", "serving_version").get(pk=bot.pk)
              for name, bot in bots.items()}
    assert states == {"steady": (True, "1"), "rolled_back": (True, "1"), "back": (True, "1"),
                      "still": (True, "2")}
    assert bot_services.bots_recheck_held() == 0, "the one still held was checked just now"
    assert servers["still"].calls["/"] == 1
    entry = settings.CELERY_BEAT_SCHEDULE["bots-recheck-held"]
    assert entry["task"] == "bots.recheck_held"
    assert entry["schedule"] == settings.BOTS_RECHECK_HELD_SECONDS
