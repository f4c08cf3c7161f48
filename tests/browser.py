"""What the browser tests share: Debian's headless Chromium driven by Selenium through its own
chromedriver (nothing downloaded), waiting, the console's errors, signing in, and taking
turns on SQLite's shared test connection. Its fixtures are a pytest plugin (tests/conftest.py)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

#: Under BLUFF_VAR_DIR, as every file a run writes (`make test`: var/test/screenshots/).
SCREENSHOTS = Path(settings.VAR_DIR).resolve() / "screenshots"
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


@pytest.fixture
def one_request_at_a_time(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """On SQLite's in-memory test database the live server's threads and the test share one
    connection, so two requests at once see (and commit or roll back) each other's work and
    sometimes fail ("database table is locked"). There requests take turns, a long poll
    giving its turn away while it sleeps; the test holds the returned lock while it writes.
    On PostgreSQL every thread has its own connection: requests run at once, as deployed."""
    from django.db import connection

    if connection.vendor != "sqlite":
        return contextlib.nullcontext()
    from django.core.handlers.base import BaseHandler

    from games import selectors

    lock = threading.RLock()
    get_response, sleep = BaseHandler.get_response, selectors.sleep

    def in_turn(handler: BaseHandler, request: Any) -> Any:
        with lock:
            return get_response(handler, request)

    def sleep_out_of_turn(seconds: float) -> None:
        try:
            lock.release()
        except RuntimeError:  # not called in a request
            sleep(seconds)
            return
        try:
            sleep(seconds)
        finally:
            lock.acquire()

    monkeypatch.setattr(BaseHandler, "get_response", in_turn)
    monkeypatch.setattr(selectors, "sleep", sleep_out_of_turn)
    return lock


def _not_yet_errors() -> tuple[type[BaseException], ...]:
    """What a condition raises while the browser is between two pages: not an answer yet."""
    try:
        from selenium.common.exceptions import (
            NoSuchElementException,
            StaleElementReferenceException,
        )
    except ImportError:  # no browser tests here
        return ()
    return (NoSuchElementException, StaleElementReferenceException)


def wait_for(condition: Callable[[], Any], timeout: float = 20) -> Any:
    """Wait until ``condition()`` is truthy and return it.

    An element that is not there yet, or went stale (a click loads the next page while the
    condition looks), is "not yet"; after ``timeout`` seconds the last such error is raised.
    """
    limit = time.monotonic() + timeout
    not_yet = _not_yet_errors()
    while True:
        try:
            value = condition()
        except not_yet:
            if time.monotonic() > limit:
                raise
        else:
            if value:
                return value
            if time.monotonic() > limit:
                raise AssertionError("timed out")
        time.sleep(0.05)


def console_errors(driver: Any) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser")
            if entry["level"] in ("SEVERE", "WARNING")]


def sign_in(driver: Any, base: str, username: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(base + "/sign-in/")
    driver.find_element(By.NAME, "username").send_keys(username)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "form.form button[type=submit]").click()
    wait_for(lambda: driver.current_url.endswith("/me/"))
