"""A person seated in a tournament or a league night is told: /me/ lists the match waiting on
them with what it is part of (linked) and its deadline, and the header's badge counts it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from games import selectors
from tournaments import services
from tournaments.leagues import nights
from tournaments.leagues import services as leagues
from tournaments.models import TournamentMatch

pytestmark = pytest.mark.django_db(transaction=True)

REF = {"kind": "reference", "bot": "heuristic", "name": "ref"}
BOB = {"kind": "player", "user": "bob"}


def my_page(user: Any) -> str:
    web = Client()
    web.force_login(user)
    return web.get("/me/").content.decode()


def waiting_part(html: str) -> str:
    return html.split("<h2>Waiting on you</h2>")[1].split("<h2>")[0]


def test_a_person_seated_in_a_tournament_sees_its_match_with_the_deadline(
        alice, bob, inline_tasks) -> None:
    cup = services.tournament_create(organiser=alice, name="Friday cup", game="dice_cup",
                                     participants=[BOB, REF], table_size=2, seed=7)
    row = TournamentMatch.objects.get(tournament=cup)
    (seat,) = selectors.seats_to_act(user=bob)
    assert seat.match_id == row.match_id and seat.match.deadline is not None
    html = my_page(bob)
    waiting = waiting_part(html)
    assert f'href="/matches/{row.match_id}/play/"' in waiting
    assert f'<a href="/tournaments/{cup.pk}/">Friday cup, round 1, match 1</a>' in waiting
    assert f'<time datetime="{seat.match.deadline.isoformat()}" data-countdown>' in waiting
    assert '<span class="badge count" title="1 waiting on you">1<' in html
    assert "Nothing waits on you now." in my_page(alice), "the organiser is not seated"


def test_a_league_member_sees_the_hand_waiting_on_them(alice, bob, inline_tasks) -> None:
    now = timezone.now()
    league = leagues.league_create(
        organiser=alice, name="Thursday club", game="dice_cup", table_size=2,
        hands_per_night=2, seed=4, season_start=now - timedelta(days=1),
        season_end=now + timedelta(days=9), members=[BOB, REF])
    leagues.night_schedule(league_id=league.pk, user=alice, starts_at=now)
    assert nights.nights_start_due() == 1
    (seat,) = selectors.seats_to_act(user=bob)
    waiting = waiting_part(my_page(bob))
    assert f'href="/matches/{seat.match_id}/play/"' in waiting
    assert f'href="/leagues/{league.pk}/nights/1/#table-1">Thursday club, night 1, table 1, hand 1</a>' \
        in waiting
    assert "data-countdown" in waiting


def test_my_page_lists_the_series_i_play_in_or_organise_before_any_match(alice, bob,
                                                                        charlie) -> None:
    later = timezone.now() + timedelta(days=2)
    cup = services.tournament_create(organiser=alice, name="Next cup", game="dice_cup",
                                     participants=[BOB, REF], table_size=2, starts_at=later)
    now = timezone.now()
    club = leagues.league_create(
        organiser=alice, name="Thursday club", game="dice_cup", table_size=2, seed=4,
        season_start=now, season_end=now + timedelta(days=9), weekday=3,
        night_time=now.time().replace(microsecond=0, second=0), members=[BOB, REF])
    html = my_page(bob)
    assert f'<a href="/tournaments/{cup.pk}/">Next cup: a tournament of dice_cup, scheduled</a>' \
        in html
    assert f'href="/leagues/{club.pk}/">Thursday club: a league of dice_cup, Thursdays at' in html
    assert "organised by you" not in html and "Nothing waits on you now." in html
    assert my_page(alice).count(", organised by you</a>") == 2
    assert "You play in and organise no tournament or league" in my_page(charlie)
