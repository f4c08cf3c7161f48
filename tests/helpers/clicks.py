"""Playing a match by clicking its play page in a browser, as a person would."""

from __future__ import annotations

import random
import time
from typing import Any

from tests.browser import SCREENSHOTS, wait_for

OFFERED = ".seat-frame [data-action], .seat-frame form.chooser option, .seat-frame [data-built]"


def choose(driver: Any, element: Any, typed: bool) -> None:
    """Play what ``element`` offers as a person would: click a button; or pick an option of a
    long list (``typed``: first type its words into the list's filter, then pick it among
    those left) and press Play."""
    from selenium.webdriver.common.by import By

    folded = element.find_elements(By.XPATH, "./ancestor::details[not(@open)]")
    if folded:  # a built group's buttons or list, folded away under its controls
        folded[0].find_element(By.TAG_NAME, "summary").click()
    if element.tag_name == "button":
        element.click()
        return
    form = element.find_element(By.XPATH, "./ancestor::form")
    if typed:
        value, label = element.get_attribute("value"), element.get_attribute("textContent")
        total = driver.execute_script("return arguments[0].querySelectorAll('option').length",
                                      form)
        form.find_element(By.CSS_SELECTOR, "[data-filter]").send_keys(label)
        left = form.find_elements(By.CSS_SELECTOR, "option:not([hidden])")
        assert 1 <= len(left) < total, f"the filter {label!r} left {len(left)} of {total}"
        assert f"{len(left)} of {total} shown" in form.text
        element = next(o for o in left if o.get_attribute("value") == value)
    element.click()
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()


def play_by_clicks(driver: Any, game: str, rng: random.Random, timeout: float = 60) -> int:
    """Click a random offered action whenever the seat is asked, until the match is over;
    returns the number of moves played. Every third pick from a long list is typed into
    its filter first. A screenshot of the first long list."""
    from selenium.common.exceptions import (
        ElementNotInteractableException,
        StaleElementReferenceException,
    )
    from selenium.webdriver.common.by import By

    def version() -> str:
        return driver.execute_script(
            "return document.querySelector('.seat-frame').dataset.version")

    moves, lists, limit = 0, 0, time.monotonic() + timeout
    while time.monotonic() < limit:
        try:
            frame = driver.find_element(By.CSS_SELECTOR, ".seat-frame")
            if frame.get_attribute("data-status") == "finished":
                return moves
            # (Counted and picked in the page: a long list is hundreds of elements.)
            offered = driver.execute_script(f"return document.querySelectorAll('{OFFERED}').length")
            if not offered:  # the others' turn: the poll redraws the seat
                time.sleep(0.05)
                continue
            seen, pick = version(), driver.execute_script(
                f"return document.querySelectorAll('{OFFERED}')[arguments[0]]",
                rng.randrange(offered))
            if pick.tag_name == "option":
                if not lists:
                    driver.save_screenshot(str(SCREENSHOTS / f"play-{game}-list.png"))
                lists += 1
            choose(driver, pick, typed=lists % 3 == 1)
            moves += 1
            wait_for(lambda: version() != seen)
        except (StaleElementReferenceException, ElementNotInteractableException):
            continue  # the poll redrew the seat meanwhile (its first answer always does)
    raise AssertionError(f"{game}: not over after {moves} moves")
