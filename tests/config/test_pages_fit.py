"""Pages that fit (issue 48), in headless Chromium at a phone's 390 px and a laptop's 1366 px:
no table on the standings, season table, league night, match list and bot pages (its strikes
per day and last errors too) overflows its card
(each table's container scrolls nothing sideways), the standings keep rank, name, points and
rating on a phone, the header is one line, the move panel covers at most a quarter of the
screen and folds; at 1366 px a night's replay links are in sight."""

from __future__ import annotations

from typing import Any

import pytest

from bots.models import Bot
from tests.browser import PASSWORD, SCREENSHOTS, console_errors, sign_in, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Each table's container, wider inside than it shows (a sideways scroll in its card).
OVERFLOWING = """return Array.from(document.querySelectorAll('main table')).filter(function (t) {
  return t.offsetParent !== null; }).map(function (t) {
  var box = t.parentElement;
  return [box.className || box.tagName, box.scrollWidth, box.clientWidth];
}).filter(function (b) { return b[1] > b[2] + 1; });"""
VISIBLE_HEADS = """return Array.from(arguments[0].querySelectorAll('th')).filter(function (th) {
  return th.offsetParent !== null; }).map(function (th) { return th.textContent.trim(); });"""


def overflow_problems(browser: Any, where: str) -> list[str]:
    """What overflows on the page the browser shows: the page wider than the window, or a
    table wider than its box (``where`` names the page in each line)."""
    wide = browser.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]")
    problems = [f"{where} is {wide[0]} px wide"] if wide[0] > wide[1] else []
    return problems + [f"{where}: a table in {box} is {inside} px wide in {shown}"
                       for box, inside, shown in browser.execute_script(OVERFLOWING)]


def pages(site: dict[str, Any], alice: Any) -> list[str]:
    from games import services

    bot = Bot.objects.create(owner=alice, name="a_bot_with_a_rather_long_name",
                             url="http://127.0.0.1:9/", secret="whsec_" + "A" * 32,
                             games=["dice_cup"], handshake_ok=True)
    failed_calls(bot)
    services.match_create(game="great_dalmuti", created_by=alice, seed=4, seats=[
        {"kind": "reference", "bot": "heuristic"}] * 6)
    club = site["club"]
    entry = on_the_ladder(bot, alice)
    return [f"/tournaments/{site['cup'].pk}/", f"/leagues/{club.pk}/",
            f"/leagues/{club.pk}/nights/1/", "/matches/", "/me/", "/play/open/",
            f"/bots/{bot.pk}/", "/tournaments/", "/leagues/", "/games/dice_cup/", "/",
            "/ladders/dice_cup/", f"/ladders/dice_cup/?entry={entry.pk}"]


def on_the_ladder(bot: Bot, owner: Any) -> Any:
    """The bot on dice cup's ladder with a few rated matches: its row has a trend."""
    from django.utils import timezone

    from tournaments.ladders import services as ladders
    from tournaments.models import RatingPoint

    entry, _ = ladders.ladder_join(game="dice_cup", user=owner, bot=str(bot.pk))
    RatingPoint.objects.bulk_create([RatingPoint(entry_id=entry.rating_id, ordinal=k / 2,
                                                 played_at=timezone.now()) for k in range(5)])
    return entry


def failed_calls(bot: Bot) -> None:
    """A strike of every reason the bot's fault can be, and a platform error, each with a long
    detail and log line: the bot page's strikes per day and last errors tables at their widest."""
    from bots import protocol
    from bots.models import BotCall

    BotCall.objects.bulk_create(
        [BotCall(bot=bot, path=BotCall.Path.MOVE, turn=3, elapsed_ms=2000.0, status=500,
                 reason=reason, strike=True, log="thinking about " + "a long plan " * 12,
                 detail=f"HTTP 500, body \"Traceback (most recent call last): {reason}\"")
         for reason in protocol.BOT_FAILURES]
        + [BotCall(bot=bot, path=BotCall.Path.START, elapsed_ms=3.0,
                   reason=protocol.PLATFORM_ERROR, detail="the platform failed: " + "x" * 80)])


def test_no_table_overflows_its_card_on_a_phone_or_a_laptop(
        live_server, browser, one_request_at_a_time, site, alice) -> None:
    alice.set_password(PASSWORD)
    alice.save()
    paths = pages(site, alice)
    sign_in(browser, live_server.url, "alice")
    problems = []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width in (390, 1366):
        browser.set_window_size(width, 900)
        for path in paths:
            browser.get(live_server.url + path)
            if path.startswith("/bots/"):
                tables = browser.execute_script("return document.querySelectorAll("
                                                "'#strikes + .table-wrap, #errors + .table-wrap')")
                assert len(tables) == 2, "the bot page shows its strikes and errors tables"
                browser.execute_script("document.getElementById('strikes').scrollIntoView()")
                browser.save_screenshot(str(SCREENSHOTS / f"fit-{width}-bot-strikes.png"))
            slug = path.strip("/").replace("/", "-") or "home"
            browser.save_screenshot(str(SCREENSHOTS / f"fit-{width}-{slug}.png"))
            problems += overflow_problems(browser, f"{width} px: {path}")
            header = browser.execute_script(
                "var h = document.querySelector('header.site'); var a = h.querySelector('a');"
                "return [h.clientHeight, a.offsetHeight]")
            if header[0] > 2 * header[1] + 24:
                problems.append(f"{width} px: {path}: the header is {header[0]} px high, "
                                "more than one line")
    assert not problems, "\n".join(problems)
    errors = console_errors(browser)
    assert not errors, errors


def test_standings_keep_rank_name_points_and_rating_on_a_phone(
        live_server, browser, site) -> None:
    from selenium.webdriver.common.by import By

    browser.set_window_size(390, 900)
    for path, name in ((f"/tournaments/{site['cup'].pk}/", "Participant"),
                       (f"/leagues/{site['club'].pk}/", "Member")):
        browser.get(live_server.url + path)
        table = browser.find_element(By.CSS_SELECTOR, "table.standings")
        assert browser.execute_script(VISIBLE_HEADS, table) == ["#", name, "Points", "Rating"]
        rows = table.find_elements(By.CSS_SELECTOR, "tr")[1:]
        assert rows and all(len([c for c in row.find_elements(By.TAG_NAME, "td")
                                 if c.is_displayed()]) == 4 for row in rows)
    browser.set_window_size(1366, 900)
    browser.get(live_server.url + f"/tournaments/{site['cup'].pk}/")
    heads = browser.execute_script(
        VISIBLE_HEADS, browser.find_element(By.CSS_SELECTOR, "table.standings"))
    assert "Matches" in heads and "Ahead of next" in heads, "every column on a laptop"


def test_a_nights_replay_links_are_in_sight_at_1366_px(live_server, browser, site) -> None:
    from selenium.webdriver.common.by import By

    browser.set_window_size(1366, 900)
    club = site["club"]
    browser.get(live_server.url + f"/leagues/{club.pk}/nights/1/")
    links = browser.find_elements(By.CSS_SELECTOR, "table.hands a[href^='/matches/']")
    assert len(links) == 2
    for link in links:
        box = link.find_element(By.XPATH, "ancestor::div[contains(@class,'table-wrap')]")
        right = browser.execute_script(
            "return [arguments[0].getBoundingClientRect().right,"
            " arguments[1].getBoundingClientRect().right]", link, box)
        assert link.is_displayed() and right[0] <= right[1], "in its card, no scroll needed"


def test_the_move_panel_covers_a_quarter_of_a_phone_and_folds(
        live_server, browser, one_request_at_a_time, alice) -> None:
    from selenium.webdriver.common.by import By

    from games import services

    alice.set_password(PASSWORD)
    alice.save()
    match = services.match_create(game="great_dalmuti", created_by=alice, join=True, seed=2,
                                  seats=[{"kind": "player"}] + [
                                      {"kind": "reference", "bot": "heuristic"}] * 3)
    sign_in(browser, live_server.url, "alice")
    browser.set_window_size(390, 900)
    browser.get(live_server.url + f"/matches/{match.pk}/play/")
    panel = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "section.your-move"))
    height = browser.execute_script("return [arguments[0].getBoundingClientRect().height,"
                                    " window.innerHeight]", panel)
    assert 0 < height[0] <= height[1] / 4, height
    wide = browser.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]")
    assert wide[0] <= wide[1], f"the page is {wide[0]} px wide (the header's badge too)"
    panel.find_element(By.CSS_SELECTOR, "summary").click()
    folded = wait_for(lambda: not browser.find_element(
        By.CSS_SELECTOR, "details.move-panel").get_attribute("open") or None)
    assert folded
    small = browser.execute_script("return arguments[0].getBoundingClientRect().height",
                                   browser.find_element(By.CSS_SELECTOR, "section.your-move"))
    assert small < height[0] and small < 80, "folded to its summary line"
    browser.save_screenshot(str(SCREENSHOTS / "fit-390-play-folded.png"))
