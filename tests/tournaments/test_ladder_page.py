"""The ladder's page, ``/ladders/{game}/`` (docs/ladder.md): its standings as the API gives
them, a paused bot's reason for its owner only, linked from its game's page."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.helpers.tasks import hold_tasks
from tests.tournaments.test_ladder_api import webhook_bot
from tournaments.ladders import services
from tournaments.models import LadderEntry, LadderMatch, LeaderboardEntry, RatingPoint

pytestmark = pytest.mark.django_db


def test_the_page_lists_the_standings_best_first(client: Any, alice: Any, bob: Any,
                                                 monkeypatch: Any) -> None:
    hold_tasks(monkeypatch, "tournaments.")
    entries = [services.ladder_join(game="dice_cup", user=None, bot=str(webhook_bot(
        owner, name=name).pk))[0] for owner, name in ((alice, "low"), (bob, "high"))]
    for entry, mu in zip(entries, (20.0, 30.0)):
        LeaderboardEntry.objects.filter(pk=entry.rating_id).update(
            mu=mu, sigma=1.0, ordinal=mu - 3, matches=12, last_played_at=timezone.now())
    LadderEntry.objects.filter(pk=entries[0].pk).update(
        paused=True, paused_reason="forfeited 3 matches in a row")
    html = client.get("/ladders/dice_cup/").content.decode()
    assert html.index("high (bob)") < html.index("low (alice)"), "best first"
    assert "28.0 – 32.0" in html and "100%" in html, "interval, and surely ahead"
    assert "paused" in html and "forfeited 3 matches" not in html, "the reason is its owner's"
    client.force_login(alice)
    assert "forfeited 3 matches in a row" in client.get("/ladders/dice_cup/").content.decode()
    assert 'href="/ladders/dice_cup/"' in client.get("/games/dice_cup/").content.decode()


def test_a_game_without_bots_on_its_ladder_says_how_to_join(client: Any) -> None:
    html = client.get("/ladders/dot/").content.decode()
    assert "No bot on it yet" in html and "/api/ladders/dot/entries/" in html
    assert client.get("/ladders/chess/").status_code == 404


def test_a_bot_page_says_where_it_stands_and_puts_it_on_or_off(
        client: Any, alice: Any, bob: Any, monkeypatch: Any) -> None:
    held = hold_tasks(monkeypatch, "tournaments.")
    bot = webhook_bot(alice, name="climber")
    page = f"/bots/{bot.pk}/"
    assert "ladder" not in client.get(page).content.decode(), "nothing to show a visitor"
    client.force_login(alice)
    html = client.get(page).content.decode()
    assert "Not on the Dice cup bluff ladder" in html
    assert 'action="/ladders/dice_cup/enter/"' in html
    response = client.post("/ladders/dice_cup/enter/", {"bot": bot.pk})
    assert response.status_code == 302 and response["Location"] == page
    entry = LadderEntry.objects.get(bot=str(bot.pk))
    assert entry.left_at is None and held, "on it, its first matches queued"
    html = client.get(page).content.decode()
    assert "ladder: rank 1, rating" in html and 'action="/ladders/dice_cup/leave/"' in html
    LadderEntry.objects.filter(pk=entry.pk).update(paused=True,
                                                   paused_reason="forfeited 3 matches in a row")
    html = client.get(page).content.decode()
    assert "Paused: forfeited 3 matches in a row. Fix it, then put it back on." in html
    client.force_login(bob)
    html = client.get(page).content.decode()
    assert "<h2>Ladders</h2>" not in html and "forfeited 3" not in html, "its owner's"
    refused = client.post("/ladders/dice_cup/leave/", {"bot": bot.pk}, follow=True)
    assert "not yours" in refused.content.decode()
    assert LadderEntry.objects.get(pk=entry.pk).left_at is None
    client.force_login(alice)
    client.post("/ladders/dice_cup/enter/", {"bot": bot.pk})  # back on, fixed
    assert not LadderEntry.objects.get(pk=entry.pk).paused
    client.post("/ladders/dice_cup/leave/", {"bot": bot.pk})
    assert LadderEntry.objects.get(pk=entry.pk).left_at is not None
    client.post("/ladders/dice_cup/enter/?seats=4", {"bot": bot.pk})  # another table size
    html = client.get(page).content.decode()
    assert "On the Dice cup bluff (4 seats) ladder: rank 1" in html
    assert 'action="/ladders/dice_cup/leave/?seats=4"' in html
    assert "Not on the Dice cup bluff ladder" in html, "and the first, still offered"
    assert "of 4 seats" in client.get("/ladders/dice_cup/?seats=4").content.decode()
    assert client.get("/ladders/dot/?seats=4").status_code == 404


def test_each_bot_has_a_trend_and_its_own_ladder_history(client: Any, alice: Any, bob: Any,
                                                         anon_api: Any, monkeypatch: Any
                                                         ) -> None:
    """A standings row's trend is its rating after each of its latest rated matches (the last
    20, oldest first), drawn as a sparkline; a bot's name opens its own ladder matches
    (``?entry=``), as the API's ``?entry=`` lists them."""
    hold_tasks(monkeypatch, "tournaments.")
    a, b, c = (services.ladder_join(game="dice_cup", user=None, bot=str(webhook_bot(
        owner, name=name).pk))[0] for owner, name in ((alice, "a"), (bob, "b"), (bob, "c")))
    now = timezone.now()
    for k in range(25):  # a rises; b falls
        RatingPoint.objects.create(entry_id=a.rating_id, played_at=now + timedelta(minutes=k),
                                   ordinal=float(k))
        RatingPoint.objects.create(entry_id=b.rating_id, played_at=now + timedelta(minutes=k),
                                   ordinal=float(-k))
    rows = {row["name"]: row for row in
            anon_api.get("/api/ladders/dice_cup/").json()["standings"]}
    assert rows["a (alice)"]["trend"] == [float(k) for k in range(5, 25)], "last 20, oldest first"
    assert rows["b (bob)"]["trend"] == [float(-k) for k in range(5, 25)]
    assert rows["c (bob)"]["trend"] == [], "no rated match yet"
    html = client.get("/ladders/dice_cup/").content.decode()
    assert html.count('class="sparkline"') == 2
    assert "rating after each of its last 20 rated matches" in html

    ladder = a.ladder
    mine = [LadderMatch.objects.create(ladder=ladder, number=n, deal=n, seed=n, seats=seats)
            for n, seats in enumerate([[a.pk, b.pk], [c.pk, b.pk], [c.pk, a.pk]])]
    listed = anon_api.get("/api/ladders/dice_cup/matches/", {"entry": a.pk}).json()["results"]
    assert [row["number"] for row in listed] == [2, 0], "its matches, from either seat"
    everyone = anon_api.get("/api/ladders/dice_cup/matches/").json()["results"]
    assert len(everyone) == len(mine)
    assert anon_api.get("/api/ladders/dice_cup/matches/", {"entry": 0}).status_code == 400
    assert f'href="?entry={a.pk}#matches"' in html, "a bot's name opens its history"
    page = client.get(f"/ladders/dice_cup/?entry={a.pk}").content.decode()
    assert "Latest matches of a (alice)" in page
    assert client.get("/ladders/dice_cup/?entry=999999").status_code == 404
