"""Live pages in a real browser while real workers play (PostgreSQL, Redis and Debian's
Chromium in CI): a running tournament's page and a league night's page, opened once and
never reloaded by the test, follow the worker processes (`make run`'s, on the test database)
as they play: matches or hands done go up, standings appear, and once it is over the page
stops refreshing. No console error on the way.

Reference bots play a match in a blink, so one loopback webhook bot that takes its time
(a fixed delay per move) sits in: its matches and hands last longer than the page's refresh,
whatever the machine's speed, so the page is sure to show the way and not only the end."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.browser import PASSWORD, console_errors, sign_in
from tests.conftest import REAL_WORKERS
from tests.helpers.workers import Workers
from tournaments import services
from tournaments.leagues import nights
from tournaments.leagues import services as leagues
from tournaments.models import Night, Tournament

pytestmark = [pytest.mark.postgres, pytest.mark.broker, pytest.mark.browser,
              pytest.mark.django_db(transaction=True), REAL_WORKERS]
HANDS = 3
REFERENCE = [{"kind": "reference", "bot": bot} for bot in ("heuristic", "random")]


def watch(driver: Any, read: Callable[[Any], Any], over: Callable[[], bool],
          timeout: float = 120) -> list[Any]:
    """What the open page shows (``read(driver)``) each time it changes, until ``over()``
    (asked of the database) and the page has stopped refreshing (no htmx poll left)."""
    seen: list[Any] = []
    limit = time.monotonic() + timeout
    while time.monotonic() < limit:
        ended = over()
        shown = read(driver)
        if not seen or shown != seen[-1]:
            seen.append(shown)
        if ended and not driver.execute_script(LIVE):
            # The last refresh may have swapped the live part between the read above and this
            # check: read once more (the page no longer changes).
            shown = read(driver)
            if shown != seen[-1]:
                seen.append(shown)
            return seen
        time.sleep(0.1)
    raise AssertionError(f"the page did not follow to the end; it showed {seen}")


#: A tournament page's cancel button is on screen.
CANCEL = "return !!document.querySelector('#cancel button')"
#: The page still refreshes itself: an htmx poll of its live part.
LIVE = "return !!document.querySelector('[hx-trigger]')"


def main_text(driver: Any) -> str:
    return driver.execute_script("return document.querySelector('main').innerText")


def _open(driver: Any, url: str) -> None:
    driver.get(url)
    assert driver.execute_script("return document.querySelector('#live[hx-trigger]')"
                                 ".getAttribute('hx-trigger')") == "every 1s", "a live page"
    driver.execute_script("window.notReloaded = true")


def _still_the_same_page(driver: Any) -> None:
    assert driver.execute_script("return window.notReloaded === true"), "never reloaded"
    errors = console_errors(driver)
    assert not errors, errors


def tournament_shown(driver: Any) -> tuple[int, int, int, str]:
    """Matches done, of how many, standings rows with points (their interval bar), status:
    read in one script, so all from the same refresh (htmx swaps the live part between
    calls)."""
    text, bars, status = driver.execute_script(
        "var main = document.querySelector('main');"
        "return [main.innerText, main.querySelectorAll('.bar').length,"
        " main.querySelector('.badge').textContent]")
    done, total = map(int, re.search(r"(\d+) of (\d+) matches finished", text).groups())
    return done, total, bars, status


def night_shown(driver: Any) -> tuple[str, ...]:
    """Each table's "hand n of N done" while the night is played; "over" once it is not."""
    text = main_text(driver)
    return tuple(re.findall(r"hand \d+ of \d+ done", text)) or ("over",)


def slow_bot(bots: Callable[..., list[int]]) -> dict[str, Any]:
    return {"kind": "webhook", "bot": bots(1, delay=0.05)[0]}


def test_a_running_tournament_page_follows_the_workers_to_the_end(
        alice, bots, live_server, browser, tmp_path, settings) -> None:
    """Seen by its organiser: the cancel button goes when it finishes, with no reload."""
    settings.BLUFF_LIVE_REFRESH_SECONDS = 1
    alice.set_password(PASSWORD)
    alice.save()
    sign_in(browser, live_server.url, alice.username)
    workers = Workers(tmp_path, TOURNAMENT_CHUNK="1")
    try:
        workers.start("housekeeping")
        tournament = services.tournament_create(
            organiser=alice, name="Live cup", game="dice_cup", table_size=2, seed=7,
            meetings=2, participants=[*REFERENCE, slow_bot(bots)])
        _open(browser, f"{live_server.url}/tournaments/{tournament.pk}/")
        assert tournament_shown(browser) == (0, 6, 0, "running"), "no games worker yet"
        assert browser.execute_script(CANCEL), "the organiser may cancel it while it runs"
        workers.start("matches")
        seen = watch(browser, tournament_shown, lambda: Tournament.objects.get(
            pk=tournament.pk).status == "finished")
    finally:
        workers.stop()
    done = [row[0] for row in seen]
    assert done == sorted(done) and done[0] == 0 and done[-1] == 6, seen
    assert any(0 < d < 6 for d in done), f"progress shown on the way, not only the end: {seen}"
    assert seen[-1] == (6, 6, 3, "finished"), f"every participant's standing, and the end: {seen}"
    assert not browser.execute_script(CANCEL), "finished: nothing to cancel"
    _still_the_same_page(browser)


def test_a_league_night_page_counts_the_hands_the_workers_play(
        alice, bots, live_server, browser, tmp_path, settings) -> None:
    settings.BLUFF_LIVE_REFRESH_SECONDS = 1
    workers = Workers(tmp_path)
    now = timezone.now()
    league = leagues.league_create(
        organiser=alice, name="Live club", game="great_dalmuti", table_size=4,
        hands_per_night=HANDS, season_start=now - timedelta(hours=1),
        season_end=now + timedelta(days=1), seed=21,
        members=[*REFERENCE, REFERENCE[0], slow_bot(bots)])
    night = leagues.night_schedule(league_id=league.pk, user=alice, starts_at=now)
    try:
        nights.nights_start_due()  # what beat does when the night's time comes
        _open(browser, f"{live_server.url}/leagues/{league.pk}/")
        assert night_shown(browser) == (f"hand 0 of {HANDS} done",), "no worker yet"
        workers.start("matches")
        workers.start("housekeeping")
        seen = watch(browser, night_shown, lambda: Night.objects.get(pk=night.pk).status
                     not in ("scheduled", "running"))
    finally:
        workers.stop()
    night.refresh_from_db()
    assert night.status == "finished", night.reason
    hands = [int(row[0].split()[1]) for row in seen[:-1]]
    assert hands == sorted(hands) and len(set(hands)) >= 2, f"hands counted up: {seen}"
    assert seen[-1] == ("over",), "the night is over: no more 'playing now'"
    assert re.search(rf"^1\t.*\tfinished\t{HANDS}\t[\d ·]+$", main_text(browser),
                     re.MULTILINE), "the night's row, its tables last"
    _still_the_same_page(browser)
