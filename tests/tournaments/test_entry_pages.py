"""Entering in the browser: a tournament open for entries shows its entry form to a signed-in
person (themself and their own bots that play the game), takes the entry and the leave, and
shows refusals as messages; organising one from /tournaments/new/; and a league's organiser
adds a member from the league page."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from bots.models import Bot
from tests.forms import field_errors
from tournaments import services
from tournaments.leagues import services as leagues
from tournaments.models import Member, Participant, Tournament

from .conftest import REFERENCE

pytestmark = pytest.mark.django_db


def browser_of(user: Any) -> Client:
    web = Client()
    web.force_login(user)
    return web


def an_open_one(organiser: Any, **fields: Any) -> Tournament:
    return services.tournament_create(**{
        "organiser": organiser, "name": "open cup", "game": "dice_cup", "participants": [],
        "open_entries": True, "starts_at": timezone.now() + timedelta(hours=1), **fields})


def a_bot(owner: Any, game: str = "dice_cup") -> Bot:
    return Bot.objects.create(owner=owner, name=f"bot{Bot.objects.count()}",
                              url="https://bot.example/", secret="whsec_x", handshake_ok=True,
                              games=[game], public=True)


def test_the_page_offers_yourself_and_your_bots_that_play_the_game(alice, bob, client) -> None:
    tournament = an_open_one(alice, entry_cap=8)
    mine, other_game, alices = a_bot(bob), a_bot(bob, "dtc"), a_bot(alice)
    html = browser_of(bob).get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "0 of 8 places taken" in html
    assert 'value="player"' in html and f'value="webhook:{mine.pk}"' in html
    assert f"webhook:{other_game.pk}" not in html, "another game's bot is not offered"
    assert f"webhook:{alices.pk}" not in html, "someone else's public bot is not offered"
    assert "Sign in</a> to enter" in client.get(f"/tournaments/{tournament.pk}/").content.decode()


def test_entering_and_leaving_from_the_page(alice, bob) -> None:
    tournament = an_open_one(alice)
    bot = a_bot(bob)
    web = browser_of(bob)
    answer = web.post(f"/tournaments/{tournament.pk}/entries/", {"entrant": f"webhook:{bot.pk}"},
                      follow=True)
    assert f"Entered: webhook {bot.pk}." in answer.content.decode()
    assert [p.bot for p in Participant.objects.all()] == [str(bot.pk)]
    html = answer.content.decode()
    assert f"Leave: {bot.name} (bob)" in html and f'value="webhook:{bot.pk}"' in html
    answer = web.post(f"/tournaments/{tournament.pk}/entries/", {"entrant": f"webhook:{bot.pk}"},
                      follow=True)
    assert "(already_entered)" in answer.content.decode()
    web.post(f"/tournaments/{tournament.pk}/entries/leave/", {"entrant": f"webhook:{bot.pk}"})
    assert not Participant.objects.exists()


def test_someone_elses_bot_is_a_403_and_a_started_tournament_says_so(alice, bob,
                                                                      charlie) -> None:
    tournament = an_open_one(alice)
    bot = a_bot(charlie)
    web = browser_of(bob)
    assert web.post(f"/tournaments/{tournament.pk}/entries/",
                    {"entrant": f"webhook:{bot.pk}"}).status_code == 403
    Tournament.objects.filter(pk=tournament.pk).update(status="running")
    answer = web.post(f"/tournaments/{tournament.pk}/entries/", {"entrant": "player"},
                      follow=True)
    assert "(tournament_started)" in answer.content.decode()
    assert "places taken" not in answer.content.decode(), "no entry form once started"
    assert not Participant.objects.exists()


def test_the_entry_forms_go_once_it_starts_while_the_page_is_open(alice, bob) -> None:
    tournament = an_open_one(alice, participants=REFERENCE)
    web = browser_of(bob)
    live = web.get(f"/tournaments/{tournament.pk}/?part=live").content.decode()
    assert 'id="entries" hx-swap-oob' not in live, "still taking entries"
    assert "open for entries" in web.get("/tournaments/").content.decode()
    assert services.tournament_start(tournament_id=tournament.pk)
    live = web.get(f"/tournaments/{tournament.pk}/?part=live").content.decode()
    assert '<div id="entries" hx-swap-oob="true"></div>' in live
    assert "open for entries" not in web.get("/tournaments/").content.decode()


def test_organising_a_tournament_open_for_entries(alice) -> None:
    starts = (timezone.now() + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    web = browser_of(alice)
    answer = web.post("/tournaments/new/?game=dice_cup", {
        "name": "open cup", "format": "round_robin", "meetings": "1", "starts_at": starts,
        "timezone_name": "UTC", "open_entries": "on", "entry_cap": "6",
        "reference_heuristic": "1"})
    assert answer.status_code == 302, field_errors(answer.content.decode())
    made = Tournament.objects.get()
    assert (made.entries_open, made.entry_cap, made.table_size) == (True, 6, 2)
    answer = web.post("/tournaments/new/?game=dice_cup", {
        "name": "open cup", "format": "round_robin", "meetings": "1", "open_entries": "on"})
    assert "starts_at is needed in the future" in str(
        field_errors(answer.content.decode()).get("id_starts_at"))


def test_a_leagues_organiser_adds_a_member_from_its_page(alice, bob) -> None:
    now = timezone.now()
    club = leagues.league_create(
        organiser=alice, name="club", game="dice_cup", table_size=2, hands_per_night=1,
        season_start=now, season_end=now + timedelta(days=30), members=REFERENCE)
    assert "Add a member" not in browser_of(bob).get(f"/leagues/{club.pk}/").content.decode()
    assert browser_of(bob).post(f"/leagues/{club.pk}/members/",
                                {"username": "bob"}).status_code == 403
    web = browser_of(alice)
    assert "Add a member" in web.get(f"/leagues/{club.pk}/").content.decode()
    answer = web.post(f"/leagues/{club.pk}/members/", {"username": "bob"}, follow=True)
    assert "bob joins at the next night" in answer.content.decode()
    answer = web.post(f"/leagues/{club.pk}/members/", {"username": "bob"})
    assert "a member already" in answer.content.decode()
    answer = web.post(f"/leagues/{club.pk}/members/", {"bot": "reference:random",
                                                       "username": "bob"})
    assert "Pick a bot or type a username" in answer.content.decode()
    assert [m.name for m in Member.objects.filter(league=club)][-1] == "bob"
    assert Member.objects.filter(league=club).count() == 3
