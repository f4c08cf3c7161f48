"""The ratings leaderboard names a bot as its owner does: entering another person's bot under
a new label ("bob stole this") renames it neither on the board nor in ``/api/ratings/``; the
tournament API's ``name`` is the bot's own, its ``label`` beside it; the bot's page draws its
rating over time."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import Bot
from tests.helpers.leaderboards import recorded
from tournaments import selectors

pytestmark = pytest.mark.django_db


def test_entering_someone_elses_bot_under_a_new_label_does_not_rename_it(alice, bob,
                                                                         anon_api) -> None:
    bot = Bot.objects.create(owner=alice, name="dice_bot", url="https://bot.example/",
                             secret="whsec_x", handshake_ok=True, games=["dice_cup"])
    recorded(alice, bot, "dice_bot")
    recorded(bob, bot, "bob stole this")  # the newest entry of the bot
    board = selectors.ratings_leaderboard(game="dice_cup")
    assert [row["name"] for row in board] == ["dice_bot (alice)", "random (reference bot)"]
    assert board[0]["matches"] == 2, "both entries are one bot"
    api = anon_api.get("/api/ratings/dice_cup/").json()
    assert [row["name"] for row in api] == ["dice_bot (alice)", "random (reference bot)"]
    assert "bob stole this" not in str(api)


def test_the_tournament_page_shows_the_bot_by_name_and_the_label_beside_it(alice, bob,
                                                                           client) -> None:
    bot = Bot.objects.create(owner=alice, name="dice_bot", url="https://bot.example/",
                             secret="whsec_x", handshake_ok=True, games=["dice_cup"])
    tournament = recorded(bob, bot, "bob stole this")
    html = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "dice_bot (alice) “bob stole this”" in html
    assert "random (reference bot) “the house”" in html
    plain = recorded(alice, bot, f"webhook {bot.pk}")  # the default label: nothing beside it
    html = client.get(f"/tournaments/{plain.pk}/").content.decode()
    assert "dice_bot (alice)" in html and "dice_bot (alice) “" not in html


def test_the_tournament_api_names_the_bot_and_gives_the_label_beside_it(alice, bob,
                                                                        anon_api) -> None:
    bot = Bot.objects.create(owner=alice, name="dice_bot", url="https://bot.example/",
                             secret="whsec_x", handshake_ok=True, games=["dice_cup"])
    tournament = recorded(bob, bot, "bob stole this")
    detail = anon_api.get(f"/api/tournaments/{tournament.pk}/").json()
    assert [(p["name"], p["label"]) for p in detail["participants"]] == [
        ("dice_bot (alice)", "bob stole this"), ("random (reference bot)", "the house")]
    standings = anon_api.get(f"/api/tournaments/{tournament.pk}/standings/").json()
    assert [(row["name"], row["label"]) for row in standings] == [
        ("dice_bot (alice)", "bob stole this"), ("random (reference bot)", "the house")]
    Bot.objects.filter(pk=bot.pk).update(name="renamed_bot")
    again = anon_api.get(f"/api/tournaments/{tournament.pk}/standings/").json()
    assert again[0]["name"] == "renamed_bot (alice)", "the owner's name, as it is now"


def test_the_bot_page_draws_its_rating_over_time_in_the_same_queries(alice, bob,
                                                                     client) -> None:
    bot = Bot.objects.create(owner=alice, name="dice_bot", url="https://bot.example/",
                             secret="whsec_x", handshake_ok=True, games=["dice_cup"])
    assert "No rated tournament match yet." in client.get(f"/bots/{bot.pk}/").content.decode()
    recorded(alice, bot, "dice_bot")
    recorded(bob, bot, "bob stole this")

    def page() -> tuple[str, int]:
        with CaptureQueriesContext(connection) as captured:
            html = client.get(f"/bots/{bot.pk}/").content.decode()
        return html, len(captured)

    html, few = page()
    chart = html.split("<h2>Rating over time</h2>")[1].split("<h2>")[0]
    assert 'href="/games/dice_cup/">Dice cup bluff</a>' in chart and "2 rated tournament" in chart
    assert chart.count("<polyline") == 1, "one line per game"
    points = chart.split('points="')[1].split('"')[0].split()
    assert len(points) == 2 and float(points[1].split(",")[1]) < float(points[0].split(",")[1]), \
        "two wins: the rating goes up (up is a smaller y)"
    ordinal = selectors.ratings_leaderboard(game="dice_cup")[0]["ordinal"]
    assert f"{ordinal:.2f} now" in chart
    for _ in range(5):
        recorded(bob, bot, "again")
    assert page()[1] == few, "the same queries for 2 and 7 rated matches"
