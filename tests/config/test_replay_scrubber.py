"""The replay's turn scrubber in headless Chromium (issue 48): dragging it draws that turn and
puts ?turn=N in the address (a link to share), a seat's own view unfolded stays unfolded from
turn to turn, and the face-up table fits a phone and a laptop."""

from __future__ import annotations

import pytest

from tests.browser import SCREENSHOTS, console_errors, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_scrubber_draws_the_turn_and_keeps_its_link(live_server, browser, alice) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from games import services

    match = services.match_create(game="great_dalmuti", created_by=alice, seed=8,
                                  options={"hands": 1},
                                  seats=[{"kind": "reference", "bot": "heuristic"}] * 6)
    browser.set_window_size(1366, 900)
    browser.get(f"{live_server.url}/matches/{match.pk}/?turn=4")
    scrub = browser.find_element(By.CSS_SELECTOR, "input[data-scrub]")
    browser.execute_script("arguments[0].value = 15;"
                           "arguments[0].dispatchEvent(new Event('input', {bubbles: true}))",
                           scrub)
    wait_for(lambda: browser.find_element(By.CSS_SELECTOR, ".frame").get_attribute(
        "data-turn") == "15")
    assert browser.current_url.endswith("?turn=15")
    assert browser.find_element(By.NAME, "turn").get_attribute("value") == "15"
    browser.find_element(By.CSS_SELECTOR, 'details.seat-view[data-seat="2"] summary').click()
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    wait_for(lambda: browser.find_element(By.CSS_SELECTOR, ".frame").get_attribute(
        "data-turn") == "16")
    assert scrub.get_attribute("value") == "16" and browser.current_url.endswith("?turn=16")
    opened = [d.get_attribute("data-seat") for d in
              browser.find_elements(By.CSS_SELECTOR, "details.seat-view[open]")]
    assert opened == ["2"], "the seat's view asked for stays unfolded"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1366, 390):
        browser.set_window_size(width, 900)
        browser.get(f"{live_server.url}/matches/{match.pk}/?turn=16")
        wide = browser.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth]")
        assert wide[0] <= wide[1], (width, wide)
        browser.save_screenshot(str(SCREENSHOTS / f"replay-face-up-{width}.png"))
    errors = console_errors(browser)
    assert not errors, errors
