"""A league night's page (/leagues/{id}/nights/{n}/): its tables, each with its members'
points that night and its hands, each hand linked to its match's replay; the league page's
night rows link there, to each table; in a constant number of queries."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tournaments.models import Hand, Night

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_night_page_shows_its_tables_and_hands_each_linked_to_its_replay(client,
                                                                           site) -> None:
    club = site["club"]
    night = club.nights.get(number=1)
    hands = list(Hand.objects.filter(night=night).order_by("table", "number"))
    assert night.status == "finished" and len(hands) == 2
    html = client.get(f"/leagues/{club.pk}/nights/1/").content.decode()
    assert "Thursday club, night 1" in html and 'id="table-1"' in html
    assert f'href="/leagues/{club.pk}/"' in html, "back to its league"
    for hand in hands:
        assert f'id="table-1-hand-{hand.number}"' in html
        assert f'<a href="/matches/{hand.match_id}/">#{hand.match_id}</a>' in html
    first = hands[0]
    winner = club.members.get(index=first.seats[first.finish.index(1)])
    row = html.split(f'id="table-1-hand-{first.number}"')[1].split("</tr>")[0]
    assert f"<td>heuristic (reference bot) “{winner.name}”" in row or \
        f"<td>random (reference bot) “{winner.name}”" in row, "finish order, first first"
    assert "Points tonight" in html and "515151515151" not in html
    assert client.get(f"/leagues/{club.pk}/nights/9/").status_code == 404
    assert client.get("/leagues/999999/nights/1/").status_code == 404


def test_the_league_pages_night_row_links_its_night_and_tables(client, site) -> None:
    club = site["club"]
    html = client.get(f"/leagues/{club.pk}/").content.decode()
    row = html.split('id="night-1"')[1].split("</tr>")[0]
    assert f'<a href="/leagues/{club.pk}/nights/1/">1</a>' in row
    assert f'<a href="/leagues/{club.pk}/nights/1/#table-1">1</a>' in row
    assert f'<a href="/leagues/{club.pk}/nights/1/">2</a>' in row, "its hands done"


def test_a_night_page_costs_the_same_queries_for_many_hands(client, site) -> None:
    club = site["club"]
    members = list(club.members.values_list("index", flat=True))
    many = Night.objects.create(league=club, number=2, status="finished",
                                starts_at=timezone.now() - timedelta(hours=1),
                                tables=[members[:3], members[3:]])
    for number in range(1, 21):
        for table, seated in enumerate(many.tables):
            Hand.objects.create(night=many, table=table, number=number, seats=seated,
                                status="finished", points=[1] * len(seated),
                                finish=list(range(1, len(seated) + 1)))

    def queries(number: int) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(f"/leagues/{club.pk}/nights/{number}/").status_code == 200
        return len(captured)

    assert queries(2) == queries(1) <= 5
    html = client.get(f"/leagues/{club.pk}/nights/2/").content.decode()
    assert 'id="table-2-hand-20"' in html
