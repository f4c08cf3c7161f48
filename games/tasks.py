"""Celery tasks: thin adapters that take ids and call one service (the services lock rows).

Queues (``CELERY_TASK_ROUTES`` in settings): tasks that play matches, and so wait on bots, run
on ``matches``; periodic housekeeping runs on ``housekeeping``, so a slow bot never delays a
deadline sweep.
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from . import services


@shared_task(name="games.expire_deadlines", ignore_result=True, time_limit=300,
             soft_time_limit=240)
def expire_deadlines() -> int:
    """Periodic (CELERY_BEAT_SCHEDULE): default action and a strike for every seat past its
    deadline. Safe to run twice at once: each match is claimed with a skip-locked row lock and
    re-checked."""
    return services.match_expire_deadlines()


@shared_task(name="games.advance_automatic_seats", ignore_result=True, acks_late=True,
             reject_on_worker_lost=True, time_limit=600, soft_time_limit=540)
def advance_automatic_seats(match_id: int) -> int:
    """Let out-of-process automatic seats of one match act. Idempotent (a batch is stored only
    if the match is still at the version it was asked at), hence ``acks_late`` and
    ``reject_on_worker_lost``: a worker that dies mid-match gives the message back to the
    broker and another one resumes. With ``BLUFF_MULTIPLEXED_WORKER`` the process's one match
    loop plays it among many (``games.services.multiplexed``) and this thread only waits."""
    if settings.BLUFF_MULTIPLEXED_WORKER:
        return services.match_loop().play(match_id).result()
    return services.match_advance_automatic_seats(match_id=match_id)


@shared_task(name="games.resume_stalled_matches", ignore_result=True, time_limit=300,
             soft_time_limit=240)
def resume_stalled_matches() -> int:
    """Periodic: queue ``advance_automatic_seats`` again for running matches where an
    out-of-process seat is due but nothing moved for a while (a lost message, a killed
    worker)."""
    return services.matches_resume_stalled()
