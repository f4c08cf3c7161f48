"""The bot call log (one row per call) is pruned past ``BOTS_CALL_LOG_DAYS``, oldest first, in
bounded chunks; stats are over what is kept; a periodic task does it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from bots import tasks
from bots.models import Bot, BotCall
from bots.selectors import bot_stats
from bots.services import calls_prune
from bots.signing import new_secret

pytestmark = pytest.mark.django_db


def calls(alice, ages_in_days: list[float]) -> Bot:
    """A bot with one /move call per age, created oldest first (ids grow with time)."""
    bot = Bot.objects.create(owner=alice, name="logged", url="http://bot.example",
                             secret=new_secret(), games=["dice_cup"], handshake_ok=True)
    now = timezone.now()
    for age in sorted(ages_in_days, reverse=True):
        row = BotCall.objects.create(bot=bot, path="move", elapsed_ms=age, reason="")
        BotCall.objects.filter(pk=row.pk).update(created_at=now - timedelta(days=age))
    return bot


def test_old_rows_go_recent_rows_stay(alice) -> None:
    bot = calls(alice, [90, 45, 31, 29, 1, 0])
    assert bot_stats(bot=bot)["moves"] == 6
    assert calls_prune(days=30, chunk=2) == 3
    assert sorted(BotCall.objects.values_list("elapsed_ms", flat=True)) == [0, 1, 29]
    assert bot_stats(bot=bot)["moves"] == 3
    assert calls_prune(days=30) == 0, "nothing left to prune"


def test_zero_days_keeps_everything_and_a_run_is_bounded(alice) -> None:
    calls(alice, [400, 300, 200, 100])
    assert calls_prune(days=0) == 0
    assert calls_prune(days=30, chunk=1, max_rows=3) == 3
    assert BotCall.objects.count() == 1
    assert calls_prune(days=30) == 1


def test_all_old_and_the_default_setting(alice, settings) -> None:
    settings.BOTS_CALL_LOG_DAYS = 7
    calls(alice, [10, 9, 8])
    assert tasks.prune_call_log.apply().get() == 3
    assert not BotCall.objects.exists()


def test_the_pruning_runs_periodically() -> None:
    entries = {e["task"] for e in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "bots.prune_call_log" in entries
