"""What the API can do, done in the browser as a new user does it, with no API call by hand:
Debian's headless Chromium through Selenium (tests/browser.py). Each flow also goes through
its error paths (the error shown at its field) and keeps the accessibility basics (a label
for every field, one h1, buttons reached by the keyboard)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from bots.models import Bot
from tests.bots.conftest import load_starter
from tests.browser import PASSWORD, SCREENSHOTS, console_errors, wait_for
from tests.conftest import REAL_WORKERS
from tests.forms import accessibility_problems, field_errors
from tournaments.models import League, Night, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def fill(driver: Any, values: dict[str, str]) -> None:
    """Type each value into the field of that name (cleared first), then press Enter in the
    last one: the form is sent as a person sends it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    field = None
    for name, value in values.items():
        field = driver.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    assert field is not None
    field.send_keys(Keys.ENTER)


def tab_to(driver: Any, selector: str, presses: int = 80) -> Any:
    """Press Tab until the first shown element matching ``selector`` has the focus (it is
    reachable by keyboard); return it. (A button folded away in a closed ``<details>`` is not
    shown, and no key reaches it until it is unfolded.) A target that a live page redraws
    meanwhile raises ``StaleElementReferenceException``."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    target = next(e for e in driver.find_elements(By.CSS_SELECTOR, selector) if e.is_displayed())
    driver.find_element(By.TAG_NAME, "body").click()
    for _ in range(presses):
        if driver.switch_to.active_element == target:
            return target
        target.is_enabled()  # raises StaleElementReferenceException once the page redrew it
        driver.switch_to.active_element.send_keys(Keys.TAB)
    raise AssertionError(f"{selector} not reached by {presses} Tab presses")


def first_button_unreached(driver: Any, tries: int = 3) -> str | None:
    """Why the first shown button of the page's main part is not reached by Tab, or None.

    A live page (htmx, live.js) may swap its part while the keys are pressed, which leaves the
    elements found before stale: that is the page moving on, not a keyboard trap, so the page
    is loaded again and looked at afresh, up to ``tries`` times."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    for attempt in range(tries):
        try:
            if not any(e.is_displayed()
                       for e in driver.find_elements(By.CSS_SELECTOR, "main button")):
                return None
            tab_to(driver, "main button", presses=200)
            return None
        except AssertionError as exc:
            return str(exc)
        except StaleElementReferenceException:
            if attempt == tries - 1:
                raise
            driver.refresh()
    return None


def copy_by_keyboard(driver: Any, what: str) -> None:
    """Tab to the copy button of ``#what``, press Enter, see it say so."""
    from selenium.webdriver.common.by import By

    tab_to(driver, f"[data-copy={what}]").send_keys("\n")  # Enter presses the focused button
    wait_for(lambda: "Copied" in driver.find_element(By.CSS_SELECTOR,
                                                     f"[data-copied={what}]").text)


@pytest.fixture
def starter_url() -> Iterator[str]:
    """The starter bot served by the test, before it knows its secret (the README's steps)."""
    server = load_starter().make_server("127.0.0.1", 0, None)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def sign_up(driver: Any, base: str, username: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(base + "/")
    driver.find_element(By.LINK_TEXT, "Sign up").click()
    fill(driver, {"username": username, "password1": PASSWORD, "password2": PASSWORD})
    wait_for(lambda: driver.current_url.endswith("/account/"))


def test_a_new_user_signs_up_and_copies_and_replaces_the_api_token(
        live_server, browser, one_request_at_a_time) -> None:
    from selenium.webdriver.common.by import By

    base = live_server.url
    browser.get(base + "/")
    browser.find_element(By.LINK_TEXT, "Sign up").click()
    assert accessibility_problems(browser.page_source) == []
    fill(browser, {"username": "newdev", "password1": PASSWORD, "password2": PASSWORD + "?"})
    wait_for(lambda: field_errors(browser.page_source))
    assert list(field_errors(browser.page_source)) == ["id_password2"]
    fill(browser, {"password1": PASSWORD, "password2": PASSWORD})
    wait_for(lambda: browser.current_url.endswith("/account/"))
    with one_request_at_a_time:
        token = Token.objects.get(user__username="newdev").key
    shown = browser.find_element(By.ID, "api-token")
    assert shown.get_attribute("value") == token
    assert "Signed in as newdev" in browser.find_element(By.CSS_SELECTOR, "header").text
    assert accessibility_problems(browser.page_source) == []
    copy_by_keyboard(browser, "api-token")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / "account.png"))
    browser.find_element(By.XPATH, "//button[text()='Replace the token']").click()
    wait_for(lambda: "rotated=1" in browser.current_url)
    with one_request_at_a_time:
        new = Token.objects.get(user__username="newdev").key
    assert new != token and browser.find_element(By.ID, "api-token").get_attribute("value") == new
    errors = console_errors(browser)
    assert not errors, errors


def test_a_developer_registers_the_starter_bot_and_sees_its_handshake(
        live_server, browser, one_request_at_a_time, starter_url) -> None:
    from selenium.webdriver.common.by import By

    sign_up(browser, live_server.url, "botdev")
    browser.find_element(By.LINK_TEXT, "My bots").click()
    browser.find_element(By.LINK_TEXT, "Register a bot").click()
    assert accessibility_problems(browser.page_source) == []
    fill(browser, {"name": "starter", "url": "http://127.0.0.1:9/"})  # nothing listens there
    wait_for(lambda: field_errors(browser.page_source))
    errors = field_errors(browser.page_source)
    assert list(errors) == ["id_url"] and "(handshake_failed)" in errors["id_url"][0]
    fill(browser, {"url": starter_url})
    wait_for(lambda: "Registered." in browser.page_source)
    with one_request_at_a_time:
        bot = Bot.objects.get(name="starter")
    assert bot.handshake_ok and bot.owner.get_username() == "botdev"
    assert browser.find_element(By.ID, "new-secret").get_attribute("value") == bot.secret
    text = browser.find_element(By.TAG_NAME, "main").text
    assert "The handshake passed" in text and ", ".join(bot.games) in text
    assert accessibility_problems(browser.page_source) == []
    copy_by_keyboard(browser, "new-secret")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / "bot-registered.png"))
    browser.find_element(By.XPATH, "//button[text()='Disable']").click()
    wait_for(lambda: "Disabled: no new seat" in browser.page_source)
    with one_request_at_a_time:
        bot.refresh_from_db()
    assert not bot.enabled
    browser.find_element(By.TAG_NAME, "summary").click()
    fill(browser, {"name": "starter two"})
    wait_for(lambda: "Saved. The handshake passed." in browser.page_source)
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("starter two")
    errors = console_errors(browser)
    assert not errors, errors


def test_a_person_asked_in_a_match_follows_the_badge_to_it(
        live_server, browser, one_request_at_a_time, django_user_model) -> None:
    from selenium.webdriver.common.by import By

    from games import services
    from games.states import load_state
    from tests.browser import sign_in

    people = [django_user_model.objects.create_user(name, password=PASSWORD)
              for name in ("alice", "bob")]
    match = services.match_create(game="dice_cup", created_by=people[0], join=True, seed=5,
                                  seats=[{"kind": "player"}, {"kind": "player"}])
    services.match_join(match_id=match.pk, user=people[1])
    match.refresh_from_db()
    (asked,) = load_state(match).to_act()
    sign_in(browser, live_server.url, people[asked].get_username())
    badge = browser.find_element(By.CSS_SELECTOR, "header .badge.count")
    assert badge.text.startswith("1")
    browser.find_element(By.PARTIAL_LINK_TEXT, "My matches").click()
    wait_for(lambda: browser.current_url.endswith("/me/"))
    assert accessibility_problems(browser.page_source) == []
    browser.find_element(By.CSS_SELECTOR, "table.waiting a.button").click()
    wait_for(lambda: browser.current_url.endswith(f"/matches/{match.pk}/play/"))
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".seat-frame [data-action]"))
    errors = console_errors(browser)
    assert not errors, errors


def test_a_person_starts_a_dice_cup_match_against_a_reference_bot_and_plays_it_to_the_end(
        live_server, browser, one_request_at_a_time, settings) -> None:
    import random

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from games.models import Match
    from tests.helpers.clicks import play_by_clicks

    settings.BLUFF_POLL_MAX_WAIT = 1  # as the click-through tests: no long poll left behind
    sign_up(browser, live_server.url, "player")
    browser.find_element(By.LINK_TEXT, "Play").click()
    browser.find_element(By.PARTIAL_LINK_TEXT, "Dice").click()
    assert accessibility_problems(browser.page_source) == []
    Select(browser.find_element(By.NAME, "seat_1")).select_by_visible_text(
        "heuristic (reference bot)")
    for n in (2, 3):  # nobody
        Select(browser.find_element(By.NAME, f"seat_{n}")).select_by_value("")
    fill(browser, {"option_target_points": "43"})
    wait_for(lambda: field_errors(browser.page_source))
    assert list(field_errors(browser.page_source)) == ["id_option_target_points"]
    assert accessibility_problems(browser.page_source) == []
    fill(browser, {"option_target_points": "8"})
    wait_for(lambda: browser.current_url.endswith("/play/") and "/matches/" in
             browser.current_url)
    moves = play_by_clicks(browser, "dice_cup", random.Random(26))
    with one_request_at_a_time:
        match = Match.objects.get()
    assert match.status == "finished" and moves > 0 and match.options["target_points"] == 8
    assert "The match is over" in browser.page_source
    errors = console_errors(browser)
    assert not errors, errors


def stale(element: Any) -> bool:
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    return False


def seat_polls_answered(driver: Any) -> int:
    """How many of the page's polls of its seat (GET /api/matches/N/seats/S/) were answered."""
    return driver.execute_script(
        "return performance.getEntriesByType('resource').filter(function (e) {"
        " return /\\/api\\/matches\\/\\d+\\/seats\\/\\d+\\/\\?wait=/.test(e.name) && e.responseEnd > 0;"
        " }).length")


def set_value(driver: Any, name: str, value: str) -> None:
    """A date or time input's value as the browser's picker would set it (typing into one
    depends on the browser's locale)."""
    from selenium.webdriver.common.by import By

    driver.execute_script("arguments[0].value = arguments[1]",
                          driver.find_element(By.NAME, name), value)


@pytest.mark.postgres
@pytest.mark.broker
@REAL_WORKERS
def test_an_organiser_creates_a_four_entrant_tournament_that_the_workers_finish(
        live_server, browser, tmp_path) -> None:
    from selenium.webdriver.common.by import By

    from tests.helpers.workers import Workers, wait_until

    workers = Workers(tmp_path)
    try:
        for queue in workers.run.QUEUES:
            workers.start(queue)
        sign_up(browser, live_server.url, "organiser")
        browser.find_element(By.LINK_TEXT, "Tournaments").click()
        browser.find_element(By.LINK_TEXT, "Organise a tournament").click()
        browser.find_element(By.PARTIAL_LINK_TEXT, "Dice").click()
        assert accessibility_problems(browser.page_source) == []
        fill(browser, {"name": "Web cup", "reference_heuristic": "2", "reference_random": "2",
                       "table_size": "2", "people": "nobody_here"})
        wait_for(lambda: field_errors(browser.page_source))
        errors = field_errors(browser.page_source)
        assert list(errors) == ["id_people"] and "(bad_tournament)" in errors["id_people"][0]
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SCREENSHOTS / "tournament-form.png"))
        fill(browser, {"people": "", "option_target_points": "10"})
        wait_for(lambda: "Web cup" in browser.find_element(By.TAG_NAME, "h1").text)
        tournament = Tournament.objects.get(name="Web cup")
        assert tournament.participants.count() == 4
        wait_until(lambda: Tournament.objects.get(pk=tournament.pk).status == "finished", 180,
                   what="the workers to finish the tournament", workers=workers)
    finally:
        workers.stop()
    # The page follows the tournament by itself to its end (its matches say "finished" earlier).
    wait_for(lambda: "6 of 6 matches finished" in browser.find_element(By.TAG_NAME, "main").text,
             30)
    text = browser.find_element(By.TAG_NAME, "main").text
    assert "6 of 6 matches finished" in text and "“heuristic 2”" in text, "each entry labelled"
    browser.save_screenshot(str(SCREENSHOTS / "tournament-organised.png"))
    errors = console_errors(browser)
    assert not errors, errors


@pytest.mark.postgres
@pytest.mark.broker
@REAL_WORKERS
def test_an_organiser_creates_a_league_with_a_one_off_night_that_starts_and_ends(
        live_server, browser, tmp_path) -> None:
    from datetime import UTC, datetime, timedelta

    from selenium.webdriver.common.by import By

    from tests.helpers.workers import Workers, wait_until

    sign_up(browser, live_server.url, "organiser")
    browser.get(live_server.url + "/leagues/")
    browser.find_element(By.LINK_TEXT, "Organise a league").click()
    browser.find_element(By.PARTIAL_LINK_TEXT, "Dalmuti").click()
    assert accessibility_problems(browser.page_source) == []
    now = datetime.now(UTC)
    set_value(browser, "season_start", (now - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"))
    set_value(browser, "season_end", (now - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M"))
    fill(browser, {"name": "Web club", "reference_heuristic": "3", "reference_random": "2",
                   "table_size": "5", "hands_per_night": "2"})
    wait_for(lambda: field_errors(browser.page_source))
    errors = field_errors(browser.page_source)
    assert list(errors) == ["id_season_end"] and "(bad_league)" in errors["id_season_end"][0]
    set_value(browser, "season_end", (now + timedelta(days=9)).strftime("%Y-%m-%dT%H:%M"))
    browser.find_element(By.XPATH, "//button[text()='Start the league']").click()
    wait_for(lambda: "Web club" in browser.find_element(By.TAG_NAME, "h1").text)
    league = League.objects.get(name="Web club")
    assert accessibility_problems(browser.page_source) == []
    set_value(browser, "starts_at", (now - timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"))
    browser.find_element(By.XPATH, "//button[text()='Add the night']").click()
    wait_for(lambda: field_errors(browser.page_source))
    assert list(field_errors(browser.page_source)) == ["id_starts_at"], "in the past"
    set_value(browser, "starts_at", datetime.now(UTC).strftime("%Y-%m-%dT%H:%M"))
    browser.find_element(By.XPATH, "//button[text()='Add the night']").click()
    wait_for(lambda: "Night 1 scheduled." in browser.page_source)
    workers = Workers(tmp_path, LEAGUE_START_SWEEP_SECONDS="1")
    try:
        workers.start_beat()
        for queue in workers.run.QUEUES:
            workers.start(queue)

        def over() -> bool:
            night = Night.objects.get(league=league, number=1)
            return night.status not in ("scheduled", "running")

        wait_until(over, 180, what="the night to start and end", workers=workers)
    finally:
        workers.stop()
    assert Night.objects.get(league=league, number=1).status == "finished"
    browser.refresh()
    assert "finished" in browser.find_element(By.ID, "night-1").text
    errors = console_errors(browser)
    assert not errors, errors


def test_a_dtc_offer_is_built_by_clicking_cards_in_the_hand(
        live_server, browser, one_request_at_a_time, django_user_model, settings) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from games import log, services
    from tests.browser import sign_in

    settings.BLUFF_POLL_MAX_WAIT = 1
    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    match = services.match_create(game="dtc", created_by=alice, join=True, seed=2,
                                  seats=[{"kind": "player"},
                                         {"kind": "reference", "bot": "heuristic"}])
    sign_in(browser, live_server.url, "alice")
    browser.get(f"{live_server.url}/matches/{match.pk}/play/")
    first = browser.find_element(By.CSS_SELECTOR, ".seat-frame")
    wait_for(lambda: seat_polls_answered(browser) >= 2)
    assert not stale(first), "a poll at the version shown does not redraw the seat"
    builder = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "[data-builder]"))[0]
    play = builder.find_element(By.CSS_SELECTOR, "[data-built]")
    for pressed in builder.find_elements(By.CSS_SELECTOR, '[aria-pressed="true"]'):
        pressed.click()
    assert not play.is_enabled(), "no card: no legal offer"
    assert "Not a legal move" in builder.text
    cards = builder.find_elements(By.CSS_SELECTOR, "[data-card]")
    card = cards[0].get_attribute("data-card")
    cards[0].click()
    value = Select(builder.find_element(By.CSS_SELECTOR, 'select[data-field="value"]'))
    value.select_by_index(len(value.options) - 1)
    claimed = int(value.first_selected_option.get_attribute("value"))
    assert play.is_enabled() and f"value {claimed}" in play.text
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / "play-dtc-built.png"))
    play.click()
    with one_request_at_a_time:
        wait_for(lambda: any(e.seat == 0 and e.kind == "action" for e in log.entries(match.pk)))
        [mine] = [e for e in log.entries(match.pk) if e.seat == 0 and e.kind == "action"][:1]
    assert mine.action == {"type": "offer", "cards": {card: 1}, "value": claimed}
    errors = console_errors(browser)
    assert not errors, errors


def test_every_signed_in_page_fits_a_phone_and_keeps_the_basics(
        live_server, browser, one_request_at_a_time, site, alice) -> None:
    """At 390 px no page a signed-in person uses scrolls sideways; each has one h1, a label
    for every field, and its first button reached by the keyboard."""

    from games import services
    from games.engine import game_ids
    from tests.browser import sign_in

    alice.set_password(PASSWORD)
    alice.save()
    bot = Bot.objects.create(owner=alice, name="sly", url="http://127.0.0.1:9/",
                             secret="whsec_" + "A" * 32, games=["dice_cup"], handshake_ok=True)
    match = services.match_create(game="dtc", created_by=alice, join=True, seed=2,
                                  seats=[{"kind": "player"},
                                         {"kind": "reference", "bot": "heuristic"}])
    paths = ["/account/", "/me/", "/bots/", "/bots/new/", f"/bots/{bot.pk}/", "/play/",
             *(f"/play/?game={game}" for game in game_ids()), "/play/open/",
             "/tournaments/new/", "/tournaments/new/?game=dice_cup",
             "/leagues/new/?game=great_dalmuti", f"/tournaments/{site['later'].pk}/",
             f"/leagues/{site['club'].pk}/", f"/matches/{match.pk}/play/"]
    sign_in(browser, live_server.url, "alice")
    browser.set_window_size(390, 900)
    problems = []
    for path in paths:
        browser.get(live_server.url + path)
        wide = browser.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth]")
        if wide[0] > wide[1]:
            problems.append(f"{path} is {wide[0]} px wide at {wide[1]} px")
        problems += [f"{path}: {problem}" for problem in
                     accessibility_problems(browser.page_source)]
        problem = first_button_unreached(browser)
        if problem:
            problems.append(f"{path}: {problem}")
    assert not problems, problems
    errors = console_errors(browser)
    assert not errors, errors
