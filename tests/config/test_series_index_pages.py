"""/tournaments/ and /leagues/: every series, finished ones too, filtered and paginated, in a
constant number of queries; a finished tournament is two clicks from the home page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.browser import wait_for
from tournaments.models import League, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_tournament_list_shows_finished_ones_filtered_and_paged(client, site) -> None:
    cup, later = site["cup"], site["later"]
    cup.refresh_from_db()
    assert cup.status == "finished"
    html = client.get("/tournaments/").content.decode()
    assert "2 tournaments" in html
    assert f'href="/tournaments/{cup.pk}/">Friday cup' in html and "finished" in html
    assert f'href="/tournaments/{later.pk}/">Next cup' in html
    only = client.get("/tournaments/?status=finished").content.decode()
    assert "1 tournament," in only and "Friday cup" in only and "Next cup" not in only
    assert "Next cup" in client.get("/tournaments/?game=dot").content.decode()
    assert client.get("/tournaments/?game=chess").status_code == 404
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    assert "Started <time" in page and "finished <time" in page, "its start and finish times"
    first = cup.matches.order_by("number").first()
    winner = first.seats[first.ranks.index(1)]
    label = cup.participants.get(index=winner).name
    assert f"<td>finished</td><td class=\"wrap\" data-label=\"won by\">heuristic (reference bot) “{label}”</td>" in page or \
        f"<td>finished</td><td class=\"wrap\" data-label=\"won by\">random (reference bot) “{label}”</td>" in page, "each match's result"


def test_the_league_list_shows_each_weekly_night(client, site) -> None:
    club = site["club"]
    html = client.get("/leagues/").content.decode()
    assert f'href="/leagues/{club.pk}/">Thursday club' in html
    assert f"Thursdays at {club.night_time:%H:%M} (Europe/Paris)" in html
    page = client.get(f"/leagues/{club.pk}/").content.decode()
    assert f"Thursdays at {club.night_time:%H:%M} (Europe/Paris)" in page, "on its page too"
    assert "1 league," in client.get("/leagues/?game=great_dalmuti").content.decode()
    assert "0 leagues" in client.get("/leagues/?game=dot").content.decode()


def test_the_league_list_filters_by_state(client, alice) -> None:
    now = timezone.now()
    for name, start, end in (("to come", 2, 9), ("under way", -2, 9), ("over", -9, -2)):
        League.objects.create(name=name, game="dice_cup", organiser=alice, table_size=2,
                              strike_limit=3, move_time_limit=5, seed=1,
                              season_start=now + timedelta(days=start),
                              season_end=now + timedelta(days=end))

    def listed(query: str) -> list[str]:
        html = client.get("/leagues/" + query).content.decode()
        return [name for name in ("to come", "under way", "over") if f">{name}</a>" in html]

    assert listed("") == ["to come", "under way", "over"]
    assert listed("?status=upcoming") == ["to come"]
    assert listed("?status=running&game=dice_cup") == ["under way"]
    assert listed("?status=finished") == ["over"]
    assert listed("?status=nonsense") == ["to come", "under way", "over"], "ignored"
    html = client.get("/leagues/").content.decode()
    assert '<option value="finished">season over</option>' in html
    row = html.split(">over</a>")[1].split("</tr>")[0]
    assert "<td>season over</td>" in row, "each row says its state"


@pytest.mark.parametrize("url", ["/tournaments/", "/leagues/"])
def test_a_series_list_costs_the_same_queries_for_many(client, alice, url,
                                                       django_assert_max_num_queries) -> None:
    now = timezone.now()
    for i in range(30):
        Tournament.objects.create(name=f"cup {i}", game="dice_cup", organiser=alice,
                                  table_size=2, meetings=1, strike_limit=3, move_time_limit=5,
                                  seed=i)
        League.objects.create(name=f"club {i}", game="dice_cup", organiser=alice, table_size=4,
                              strike_limit=3, move_time_limit=5, season_start=now,
                              season_end=now + timedelta(days=9), weekday=i % 7,
                              night_time=now.time(), seed=i)
    with django_assert_max_num_queries(3):
        html = client.get(url).content.decode()
    assert "page 1 of 2" in html


@pytest.mark.browser
def test_a_finished_tournament_is_two_clicks_from_home(live_server, site, browser) -> None:
    from selenium.webdriver.common.by import By

    browser.get(live_server.url + "/")
    browser.find_element(By.LINK_TEXT, "Tournaments").click()
    wait_for(lambda: browser.current_url.endswith("/tournaments/"))
    browser.find_element(By.LINK_TEXT, "Friday cup").click()
    wait_for(lambda: browser.current_url.endswith(f"/tournaments/{site['cup'].pk}/"))
    assert "Standings" in browser.page_source and "finished" in browser.page_source
