"""/me/: a person's matches, those waiting on them first with their deadline, and the
header's badge counting them on every page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from games import selectors, services
from games.states import load_state
from tests.forms import accessibility_problems

pytestmark = pytest.mark.django_db

BADGE = re.compile(r'<span class="badge count"[^>]*>(\d+)<')


def badge(html: str) -> int:
    found = BADGE.search(html)
    return int(found.group(1)) if found else 0


def page_for(user: Any, path: str = "/me/") -> str:
    web = Client()
    web.force_login(user)
    answer = web.get(path)
    assert answer.status_code == 200
    return answer.content.decode()


def two_people(alice: Any, bob: Any, game: str = "dice_cup") -> Any:
    match = services.match_create(game=game, created_by=alice, join=True, seed=5,
                                  seats=[{"kind": "player"}, {"kind": "player"}])
    services.match_join(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == "running" and match.deadline is not None
    return match


def test_my_matches_needs_signing_in(client) -> None:
    answer = client.get("/me/")
    assert answer.status_code == 302 and answer["Location"].startswith("/sign-in/")


def test_the_person_asked_sees_the_match_first_with_its_deadline_and_a_badge(alice,
                                                                             bob) -> None:
    match = two_people(alice, bob)
    (asked,) = load_state(match).to_act()
    person, other = (alice, bob) if asked == 0 else (bob, alice)
    html = page_for(person)
    waiting = html.split("<h2>Waiting on you</h2>")[1].split("<h2>")[0]
    assert f'href="/matches/{match.pk}/play/"' in waiting
    assert f'<time datetime="{match.deadline.isoformat()}" data-countdown>' in waiting
    assert badge(html) == 1 and accessibility_problems(html) == []
    assert badge(page_for(person, "/")) == 1, "on every page"
    html = page_for(other)
    assert "Nothing waits on you now." in html and badge(html) == 0
    assert f'href="/matches/{match.pk}/"' in html, "listed among every match they sit in"


def test_a_forfeited_seat_or_a_finished_match_waits_on_no_one(alice, bob) -> None:
    from games.models import Match

    match = two_people(alice, bob)
    (asked,) = load_state(match).to_act()
    person, other = (alice, bob) if asked == 0 else (bob, alice)
    services.match_resign(match_id=match.pk, seat_number=asked, user=person)
    assert selectors.seats_to_act(user=person) == [], "resigned"
    html = page_for(person)
    assert "Nothing waits on you now." in html and f'href="/matches/{match.pk}/"' in html
    Match.objects.filter(pk=match.pk).update(status="finished")
    assert selectors.seats_to_act(user=other) == []


def test_a_match_waiting_on_bots_only_costs_no_state(alice, django_assert_num_queries) -> None:
    services.match_create(game="dice_cup", created_by=alice, join=True, seed=5,
                          seats=[{"kind": "player"}, {"kind": "player"}])  # open: not asked
    with django_assert_num_queries(1):
        assert selectors.seats_to_act(user=alice) == []


def test_my_matches_costs_a_constant_number_of_queries(alice, bob,
                                                       django_assert_max_num_queries) -> None:
    matches = [two_people(alice, bob, game) for game in ["dice_cup"] * 6 + ["dot", "dtc"]]
    web = Client()
    web.force_login(alice)
    web.get("/me/")  # states cached as a running site has them
    with django_assert_max_num_queries(12):
        html = web.get("/me/").content.decode()
    assert html.count('href="/matches/') >= 8
    asked = sum(len(load_state(match).to_act()) for match in matches)  # dot: both at once
    assert len(selectors.seats_to_act(user=alice)) + len(selectors.seats_to_act(user=bob)) == asked


def test_pages_name_a_game_as_people_do_never_by_its_id(alice, bob) -> None:
    """/me/, the match page's breadcrumb and the play page: "The Great Dalmuti", its id only
    in links."""
    match = services.match_create(game="great_dalmuti", created_by=alice, join=True, seed=5,
                                  seats=[{"kind": "player"},
                                         *[{"kind": "reference", "bot": "random"}] * 3])
    for path in ("/me/", f"/matches/{match.pk}/", f"/matches/{match.pk}/play/"):
        html = page_for(alice, path)
        assert ">The Great Dalmuti<" in html, path
        assert ">great_dalmuti<" not in html and "great_dalmuti</" not in html, path
