"""The bot page's Versions section fits a phone's 390 px and a laptop's 1366 px (issue 48's
rule, issue 47's section), in headless Chromium: a version with its run played and compared,
another a candidate whose run still plays (its buttons), no table wider than its card."""

from __future__ import annotations

import pytest

from bots import services as bot_services
from config import versions
from tests.browser import PASSWORD, SCREENSHOTS, console_errors, sign_in
from tests.config.test_pages_fit import overflow_problems
from tests.helpers.tasks import hold_tasks, run_tasks

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_versions_section_fits_a_phone_and_a_laptop(live_server, browser, open_ref_server, alice,
                                                      settings, monkeypatch) -> None:
    settings.BOT_VERSION_MEETINGS, settings.BOT_VERSION_BENCHMARK_TOP = 1, 0
    alice.set_password(PASSWORD)
    alice.save()
    bot, _ = bot_services.bot_register(owner=alice, name="a_bot_with_a_rather_long_name",
                                       url=f"{open_ref_server.base_url}/dice_cup/random")
    long_path = "dice_cup/heuristic?" + "&".join(f"k{i}=v" for i in range(12))
    run_tasks(monkeypatch, "")  # played as each transaction commits
    first = versions.version_register(bot_id=bot.pk, user=alice,
                                      url=f"{open_ref_server.base_url}/{long_path}")
    versions.version_discard(bot_id=bot.pk, user=alice, number=first.number)
    hold_tasks(monkeypatch)  # the next one's run stays running
    versions.version_register(bot_id=bot.pk, user=alice,
                              url=f"{open_ref_server.base_url}/dice_cup/heuristic")
    sign_in(browser, live_server.url, "alice")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    problems = []
    for width in (390, 1366):
        browser.set_window_size(width, 900)
        browser.get(f"{live_server.url}/bots/{bot.pk}/")
        rows = browser.execute_script(
            "return document.querySelectorAll('table.versions tr').length")
        assert rows == 3, "a heading and the two versions"
        browser.execute_script("document.getElementById('versions').scrollIntoView()")
        browser.save_screenshot(str(SCREENSHOTS / f"fit-{width}-bot-versions.png"))
        problems += overflow_problems(browser, f"{width} px: the bot page")
    assert not problems, "\n".join(problems)
    assert not console_errors(browser)
