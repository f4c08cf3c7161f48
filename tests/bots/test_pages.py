"""A developer's bot pages: sign up and in as a person, the list of my bots, and one bot's
page: public (name, owner, games, matches, latency), and for its owner a debugging page
(settings, strikes per day, last errors with the bot's own log line, secret rotation, which
another user gets a 404 for)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from bots.models import Bot, BotCall

pytestmark = pytest.mark.django_db


@pytest.fixture
def web() -> Client:
    """A person's browser session (``client`` is the bot HTTP client in tests/bots)."""
    return Client()


@pytest.fixture
def bot(django_user_model: Any) -> Bot:
    owner = django_user_model.objects.create_user("dev", password="pw-123-long-enough")
    row = Bot.objects.create(owner=owner, name="sly", url="http://127.0.0.1:9/",
                             secret="whsec_" + "A" * 32, games=["dice_cup"], handshake_ok=True)
    for i in range(30):
        BotCall.objects.create(bot=row, path="move", turn=i, elapsed_ms=5.0 + i, status=200)
    BotCall.objects.create(bot=row, path="move", turn=31, elapsed_ms=900.0, reason="timeout",
                           strike=True, detail="no answer within 1000 ms")
    BotCall.objects.create(bot=row, path="move", turn=32, elapsed_ms=3.0,
                           reason="illegal_action", strike=True, detail="bid too low",
                           log="thinking: bid 2 fives")
    return row


def test_a_person_signs_up_and_lands_on_their_bots(web) -> None:
    page = web.get("/sign-up/")
    assert page.status_code == 200 and b"Create my account" in page.content
    answer = web.post("/sign-up/", {"username": "newdev", "password1": "a-long-pass-123",
                                       "password2": "a-long-pass-123"})
    assert answer.status_code == 302 and answer["Location"] == "/account/"
    mine = web.get("/bots/").content.decode()
    assert "My bots" in mine and "No bot yet" in mine and "Sign out" in mine
    from rest_framework.authtoken.models import Token

    assert Token.objects.filter(user__username="newdev").exists(), "the API token comes too"


def test_my_bots_needs_signing_in(web, bot) -> None:
    answer = web.get("/bots/")
    assert answer.status_code == 302 and answer["Location"].startswith("/sign-in/")
    signed_in = web.post("/sign-in/", {"username": "dev", "password": "pw-123-long-enough"})
    assert signed_in.status_code == 302 and signed_in["Location"] == "/me/", \
        "signing in lands on what waits on you"
    assert f'href="/bots/{bot.pk}/"' in web.get("/bots/").content.decode()


def test_a_bot_page_shows_strikes_latency_and_the_last_errors_with_the_log_line(
        web, bot) -> None:
    web.force_login(bot.owner)
    html = web.get(f"/bots/{bot.pk}/").content.decode()
    assert "<polyline" in html and "The last 32 /move calls" in html
    assert "illegal_action" in html and "timeout" in html, "strike reasons per day"
    assert "thinking: bid 2 fives" in html and "bid too low" in html
    assert bot.secret not in html, "the secret is never shown"
    assert "Not seated in any match yet" in html


def test_a_bot_page_says_how_many_requests_it_takes_at_once(web, bot, settings) -> None:
    settings.BOTS_MAX_CONCURRENCY = 8
    web.force_login(bot.owner)
    html = web.get(f"/bots/{bot.pk}/").content.decode()
    assert "Takes at most 8 requests at once (platform default)" in html
    Bot.objects.filter(pk=bot.pk).update(max_concurrency=1)
    html = web.get(f"/bots/{bot.pk}/").content.decode()
    assert "Takes at most 1 request at once (declared)" in html


def test_a_bot_page_lists_its_matches_with_links_ranks_and_strikes(web, bot) -> None:
    from bots.models import BotSeat
    from games.models import Match

    match = Match.objects.create(game="dice_cup", seed=1, players=2, status="finished", state={},
                                 result={"ranks": [2, 1]})
    BotSeat.objects.create(match=match, number=0, bot=bot, strikes={"timeout": 3})
    web.force_login(bot.owner)
    html = web.get(f"/bots/{bot.pk}/").content.decode()
    assert f'href="/matches/{match.pk}/"' in html and "timeout ×3" in html
    assert '<td class="num" data-label="rank">2</td>' in html, "its rank"
    assert "forfeited" not in html
    assert "0 matches played" in html, "none counted as played (no games seat rows here)"


def test_a_forfeited_match_says_so_and_one_match_is_one_match(web, bot) -> None:
    """The bot's seat forfeited (its strike limit): its row says so; counts read as people
    write them ("1 match played")."""
    from bots.models import BotSeat
    from games import services

    match = services.match_create(game="dice_cup", created_by=bot.owner, seed=3,
                                  seats=[{"kind": "reference", "bot": "random"}] * 2)
    match.seats.filter(number=1).update(forfeited=True)
    BotSeat.objects.create(match=match, number=1, bot=bot, strikes={"timeout": 3},
                           ended_at=match.created_at)
    html = web.get(f"/bots/{bot.pk}/").content.decode()
    assert "<strong>forfeited</strong>" in html
    assert "1 match played, 0 running, 32 moves" in html
    BotSeat.objects.filter(match=match).update(number=0)
    assert "<strong>forfeited</strong>" not in web.get(f"/bots/{bot.pk}/").content.decode(), \
        "only its own seat's forfeit"


def test_another_users_view_of_a_bot_is_its_public_page(web, bot, django_user_model) -> None:
    web.force_login(django_user_model.objects.create_user("other", password="x"))
    html = web.get(f"/bots/{bot.pk}/").content.decode()
    assert "<h1>sly <span class=\"muted\">(dev)</span></h1>" in html and "dice_cup" in html
    assert "The last 32 /move calls" in html, "latency is public"
    for private in (bot.url, "bid too low", "thinking: bid 2 fives", "Strikes per day",
                    "Rotate the secret", "strikes,", "Settings"):
        assert private not in html, f"{private!r} is for the owner only"
    assert web.get("/bots/999999/").status_code == 404
    assert web.post(f"/bots/{bot.pk}/rotate-secret/").status_code == 404
    bot.refresh_from_db()
    assert bot.previous_secret == ""


def test_rotating_the_secret_shows_the_new_one_once(web, bot) -> None:
    web.force_login(bot.owner)
    old = bot.secret
    html = web.post(f"/bots/{bot.pk}/rotate-secret/").content.decode()
    bot.refresh_from_db()
    assert bot.secret != old and bot.previous_secret == old
    assert f'id="new-secret" type="text" readonly value="{bot.secret}"' in html
    assert bot.secret not in web.get(f"/bots/{bot.pk}/").content.decode()
    assert web.get(f"/bots/{bot.pk}/rotate-secret/").status_code == 405


def test_the_public_bot_page_names_every_seat_and_costs_few_queries(
        web, bot, django_user_model, django_assert_max_num_queries) -> None:
    from bots.models import BotSeat
    from games.models import Match, Seat

    alice = django_user_model.objects.create_user("alice", password="x")
    for i in range(15):
        match = Match.objects.create(game="dice_cup", seed=1, players=2, status="finished",
                                     state={}, result={"ranks": [1, 2], "scores": [1, 0]})
        Seat.objects.create(match=match, number=0, kind="webhook", bot_name=str(bot.pk))
        Seat.objects.create(match=match, number=1, kind="player", user=alice)
        BotSeat.objects.create(match=match, number=0, bot=bot)
    with django_assert_max_num_queries(15):  # 15 (its rating over time one): whatever the matches
        html = web.get(f"/bots/{bot.pk}/").content.decode()
    assert html.count("<strong>sly (dev)</strong> · alice") == 15
    assert html.count('href="/matches/') >= 15
