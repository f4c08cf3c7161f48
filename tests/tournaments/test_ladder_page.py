"""The ladder's page, ``/ladders/{game}/`` (docs/ladder.md): its standings as the API gives
them, a paused bot's reason for its owner only, linked from its game's page."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from tests.helpers.tasks import hold_tasks
from tests.tournaments.test_ladder_api import webhook_bot
from tournaments.ladders import services
from tournaments.models import LadderEntry, LeaderboardEntry

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
