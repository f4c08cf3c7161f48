"""Celery tasks of webhook bots: thin adapters over one service each."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="bots.health_check", ignore_result=True, time_limit=900, soft_time_limit=840)
def health_check() -> int:
    """Periodic (CELERY_BEAT_SCHEDULE): re-handshake every enabled bot and record the result.
    Safe to run twice (each check only overwrites the bot's handshake fields)."""
    return services.bots_health_check()


@shared_task(name="bots.recheck_held", ignore_result=True, time_limit=300, soft_time_limit=240)
def recheck_held() -> int:
    """Periodic (every ``BOTS_RECHECK_HELD_SECONDS``): re-handshake the bots a handshake holds
    out of play, so they play again within minutes of being fixed. Safe to run twice."""
    return services.bots_recheck_held()


@shared_task(name="bots.prune_call_log", ignore_result=True, time_limit=900, soft_time_limit=840)
def prune_call_log() -> int:
    """Periodic: drop call log rows older than ``BOTS_CALL_LOG_DAYS``. Safe to run twice."""
    return services.calls_prune()
