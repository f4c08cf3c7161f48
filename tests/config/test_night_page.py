"""A league night's page (/leagues/{id}/nights/{n}/): its tables, each with its members'
points that night and its hands, each hand linked to its match's replay; the league page's
night rows link there, to each table; in a constant number of queries. While a night is to
come or played, the night's page and the league's fetch their live part again (htmx), with an
ETag."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tournaments.models import Hand, League, Member, Night

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
    assert f"data-label=\"finish\">heuristic (reference bot) “{winner.name}”" in row or \
        f"data-label=\"finish\">random (reference bot) “{winner.name}”" in row, "finish order, first first"
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


def test_a_running_nights_page_lists_its_hands_to_come_without_a_replay(client, alice,
                                                                        monkeypatch) -> None:
    """A night plans each table's first hand as it starts (pending, no match yet): its page
    lists it at its table, with who is seated and no replay link, until it is played."""
    from tests.helpers.tasks import hold_tasks
    from tournaments.leagues import nights

    hold_tasks(monkeypatch, "tournaments.")  # no worker: the hands stay pending
    club = two_member_league(alice)
    Night.objects.create(league=club, number=1, starts_at=timezone.now())
    assert nights.nights_start_due() == 1
    [hand] = Hand.objects.filter(night__league=club)
    assert hand.status == "pending" and hand.match_id is None
    html = client.get(f"/leagues/{club.pk}/nights/1/?part=live").content.decode()
    assert ">running</span>" in html and "0 hands finished" in html
    row = html.split('id="table-1-hand-1"')[1].split("</tr>")[0]
    assert "<td>pending</td>" in row and "/matches/" not in row
    assert all(name in row for name in ("ann", "ben")), "who is seated"


def two_member_league(organiser) -> League:
    """A dice_cup league of two reference bots, its season under way, no night yet."""
    now = timezone.now()
    club = League.objects.create(name="Soon club", game="dice_cup", organiser=organiser,
                                 table_size=2, strike_limit=3, move_time_limit=5, seed=9,
                                 season_start=now, season_end=now + timedelta(days=9))
    for index, name in enumerate(("ann", "ben")):
        Member.objects.create(league=club, index=index, kind="reference", bot="random",
                              name=name)
    return club


def test_a_scheduled_night_polls_until_it_runs_and_a_finished_one_stops(client, site,
                                                                        alice) -> None:
    now = timezone.now()
    club = two_member_league(alice)
    soon = Night.objects.create(league=club, number=1, starts_at=now + timedelta(minutes=10))
    page = client.get(f"/leagues/{club.pk}/nights/1/").content.decode()
    assert '<script src="/static/htmx.min.js" defer></script>' in page
    assert (f'hx-get="/leagues/{club.pk}/nights/1/?part=live" hx-trigger="every 5s"') in page
    assert "The tables are drawn when the night starts" in page
    assert (f'hx-get="/leagues/{club.pk}/?part=live" hx-trigger="every 5s"'
            in client.get(f"/leagues/{club.pk}/").content.decode()), \
        "the league page too, its next night within the hour"
    url = f"/leagues/{club.pk}/nights/1/?part=live"
    first = client.get(url)
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    Night.objects.filter(pk=soon.pk).update(status="running", started_at=now, tables=[[0, 1]])
    part = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    body = part.content.decode()
    assert part.status_code == 200 and "<html" not in body
    assert ">running</span>" in body and 'id="table-1"' in body, "switched by itself"
    Night.objects.filter(pk=soon.pk).update(starts_at=now + timedelta(days=3),
                                            status="scheduled", started_at=None)
    assert 'hx-trigger="every 60s"' in client.get(url).content.decode(), "days away: a minute"
    done = client.get(f"/leagues/{site['club'].pk}/nights/1/?part=live").content.decode()
    assert "hx-trigger" not in done and "hx-get" not in done, "over: no more polling"


def test_a_league_page_fetches_its_live_part_while_a_night_is_to_come(client, site,
                                                                      alice) -> None:
    now = timezone.now()
    club = two_member_league(alice)
    later = Night.objects.create(league=club, number=1, starts_at=now + timedelta(days=2))
    client.force_login(alice)
    page = client.get(f"/leagues/{club.pk}/").content.decode()
    assert '<script src="/static/htmx.min.js" defer></script>' in page
    assert "data-live" not in page, "no full reloads"
    assert (f'hx-get="/leagues/{club.pk}/?part=live" hx-trigger="every 60s"') in page, \
        "days away: every minute, so it speeds up by itself as the night comes"
    assert "Add a one-off night" in page, "the organiser's form, outside the part"
    part_url = f"/leagues/{club.pk}/?part=live"
    client.logout()  # a spectator's part has no form token: unchanged, it is a 304
    first = client.get(part_url)
    body = first.content.decode()
    assert body.lstrip().startswith('<div id="live"') and "<html" not in body
    assert "Season table" in body and "Next night" in body
    assert "Add a one-off night" not in body, "the organiser's form is never swapped away"
    assert client.get(part_url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    Night.objects.filter(pk=later.pk).update(status="running", started_at=now,
                                             tables=[[0, 1]])
    running = client.get(part_url, HTTP_IF_NONE_MATCH=first["ETag"])
    shown = running.content.decode()
    assert running.status_code == 200 and "Playing now" in shown
    assert 'hx-trigger="every 5s"' in shown, "a night played: every few seconds"
    Night.objects.filter(pk=later.pk).update(status="finished", finished_at=now)
    done = client.get(f"/leagues/{club.pk}/").content.decode()
    assert "hx-trigger" not in done and "Next night" not in done, "none to come: no polling"
