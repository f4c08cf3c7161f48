"""The pages used as a person uses them, in Debian's headless Chromium driven by Selenium
(its own chromedriver; nothing downloaded): sign in, take a seat and play a D.O.T match to
the end by clicks (simultaneous commits included), step the replay with the keyboard, and
no page logs a console error. Screenshots of the signed-in pages go to var/screenshots/."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from games import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SCREENSHOTS = Path(settings.BASE_DIR) / "var" / "screenshots"
PASSWORD = "a long passphrase 42"


@pytest.fixture
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1400",
                 "--disable-background-networking", "--disable-component-update"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(condition: Any, timeout: float = 20) -> Any:
    limit = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > limit:
            raise AssertionError("timed out")
        time.sleep(0.1)


def console_errors(driver: Any) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser")
            if entry["level"] in ("SEVERE", "WARNING")]


def sign_in(driver: Any, base: str, username: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(base + "/sign-in/")
    driver.find_element(By.NAME, "username").send_keys(username)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "form.form button[type=submit]").click()
    wait_for(lambda: "/bots/" in driver.current_url)


def test_a_person_signs_in_and_plays_a_match_to_the_end_by_clicks(
        live_server, browser, django_user_model, settings) -> None:
    # The test server shares one SQLite connection between its threads: a long poll held
    # for 25 s would hold every other request too. Real servers answer in parallel.
    settings.BLUFF_POLL_MAX_WAIT = 1
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    match = services.match_create(game="dot", created_by=alice, join=True, seed=4,
                                  seats=[{"kind": "player"},
                                         {"kind": "reference", "bot": "heuristic"}])
    sign_in(browser, live_server.url, "alice")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / "my-bots.png"))
    browser.get(f"{live_server.url}/matches/{match.pk}/play/")
    browser.save_screenshot(str(SCREENSHOTS / "play.png"))
    clicks, limit = 0, time.monotonic() + 120

    def version() -> str:
        return browser.execute_script(
            "return document.querySelector('.seat-frame').dataset.version")

    while time.monotonic() < limit:
        frame = browser.find_element(By.CSS_SELECTOR, ".seat-frame")
        try:
            if frame.get_attribute("data-status") == "finished":
                break
            # Few actions are buttons; many (a D.O.T commit) are a list to pick from and Play.
            choice = frame.find_elements(By.CSS_SELECTOR, ".actions button")
            if not choice:
                time.sleep(0.1)
                continue
            seen = version()
            choice[0].click()
            clicks += 1
            wait_for(lambda: version() != seen)
        except StaleElementReferenceException:  # the poll redrew the seat meanwhile
            continue
    match.refresh_from_db()
    assert match.status == "finished" and clicks > 0
    assert "The match is over" in browser.page_source
    assert not console_errors(browser), console_errors(browser)


def test_the_replay_steps_with_the_keyboard(live_server, browser, django_user_model) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    match = services.match_create(game="dice_cup", created_by=alice, seed=3,
                                  seats=[{"kind": "reference", "bot": "heuristic"},
                                         {"kind": "reference", "bot": "random"}])
    browser.get(f"{live_server.url}/matches/{match.pk}/?turn=5")

    def turn() -> str:
        return browser.execute_script(
            "return document.querySelector('#frame .frame').dataset.turn")

    assert turn() == "5"
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    wait_for(lambda: turn() == "6")
    body.send_keys(Keys.HOME)
    wait_for(lambda: turn() == "0")
    assert browser.current_url.endswith("?turn=0"), "a deep link to the turn shown"
    body.send_keys(Keys.END)
    wait_for(lambda: turn() == str(match.version))
    assert not console_errors(browser), console_errors(browser)
