"""A tournament's page pages its matches on the server, and while the tournament is
scheduled or running only its live part (status, progress, standings, the page of matches on
screen) is fetched again, by htmx served from the project, with an ETag; a scheduled one
switches to running by itself, a finished one stops asking."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.helpers.tasks import hold_tasks
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

REFS = [{"kind": "reference", "bot": "random", "name": f"r{i}"} for i in range(12)]


@pytest.fixture
def queued(monkeypatch: Any) -> None:
    hold_tasks(monkeypatch, "tournaments.")


def test_the_match_table_is_paged_and_the_live_part_comes_alone(client, alice, queued) -> None:
    cup = services.tournament_create(organiser=alice, name="Big cup", game="dice_cup",
                                     participants=REFS, table_size=2)
    assert cup.matches.count() == 66
    html = client.get(f"/tournaments/{cup.pk}/").content.decode()
    assert html.count("<tr><td class=\"num\">") - 12 == 50, "50 matches a page, 12 standings"
    assert 'href="?page=2" rel="next">later ›</a>' in html and "page 1 of 2" in html
    assert '<script src="/static/htmx.min.js" defer></script>' in html
    assert f'hx-get="/tournaments/{cup.pk}/?part=live" hx-trigger="every 5s"' in html
    second = client.get(f"/tournaments/{cup.pk}/?page=2").content.decode()
    assert second.count("<tr><td class=\"num\">") - 12 == 16
    assert f'hx-get="/tournaments/{cup.pk}/?part=live&amp;page=2"' in second, \
        "the page on screen is the one refreshed"
    part = client.get(f"/tournaments/{cup.pk}/?part=live&page=2")
    body = part.content.decode()
    assert body.lstrip().startswith('<div id="live"')
    assert "<html" not in body and "Schedule balance" not in body
    assert "Progress" in body and "Standings" in body and "page 2 of 2" in body
    assert len(body) < len(second)
    again = client.get(f"/tournaments/{cup.pk}/?part=live&page=2",
                       HTTP_IF_NONE_MATCH=part["ETag"])
    assert again.status_code == 304, "nothing changed: nothing sent"
    cup.matches.filter(number=60).update(status="running")
    changed = client.get(f"/tournaments/{cup.pk}/?part=live&page=2",
                         HTTP_IF_NONE_MATCH=part["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != part["ETag"]
    assert client.get("/static/htmx.min.js").status_code == 200


def test_a_scheduled_tournament_polls_until_it_runs_and_a_finished_one_stops(
        client, alice, queued) -> None:
    later = services.tournament_create(organiser=alice, name="Later cup", game="dice_cup",
                                       participants=REFS[:2], table_size=2,
                                       starts_at=timezone.now() + timedelta(days=2))
    url = f"/tournaments/{later.pk}/?part=live"
    assert 'hx-trigger="every 60s"' in client.get(url).content.decode(), "days away: a minute"
    Tournament.objects.filter(pk=later.pk).update(
        starts_at=timezone.now() + timedelta(minutes=10))
    part = client.get(url).content.decode()
    assert 'hx-trigger="every 5s"' in part and ">scheduled (waiting for its start time)</span>" in part
    Tournament.objects.filter(pk=later.pk).update(status="running",
                                                  started_at=timezone.now())
    part = client.get(url).content.decode()
    assert ">running</span>" in part and "Started <time" in part, "switched by itself"
    Tournament.objects.filter(pk=later.pk).update(status="finished",
                                                  finished_at=timezone.now())
    part = client.get(url).content.decode()
    assert "hx-trigger" not in part and "hx-get" not in part, "over: no more polling"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_in_a_browser_the_live_part_follows_the_tournament_without_a_reload(
        live_server, browser, alice, queued, settings, one_request_at_a_time) -> None:
    from tests.browser import wait_for

    settings.BLUFF_LIVE_REFRESH_SECONDS = 1
    cup = services.tournament_create(organiser=alice, name="Live cup", game="dice_cup",
                                     participants=REFS[:3], table_size=2,
                                     starts_at=timezone.now() + timedelta(minutes=5))
    def badge() -> str:  # read in one go: the part may be swapped between two reads
        return browser.execute_script("return document.querySelector('#live .badge').innerText")

    browser.get(f"{live_server.url}/tournaments/{cup.pk}/")
    browser.execute_script("window.notReloaded = true;")
    assert "scheduled" in badge()
    with one_request_at_a_time:
        Tournament.objects.filter(pk=cup.pk).update(status="running",
                                                    started_at=timezone.now())
    wait_for(lambda: badge() == "running", timeout=10)
    with one_request_at_a_time:
        cup.matches.filter(number=0).update(status="running")
    wait_for(lambda: "1 running" in browser.execute_script(
        "return document.querySelector('#live').innerText"), timeout=10)
    assert browser.execute_script("return window.notReloaded === true;"), "no full reload"
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
