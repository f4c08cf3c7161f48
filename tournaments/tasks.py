"""Celery tasks of tournaments and leagues: thin adapters that take ids and call one service.

``play`` runs on the ``matches`` queue; the periodic ones on ``housekeeping``. All are safe to
run twice (claims are conditional UPDATEs and ``SKIP LOCKED``), hence ``acks_late`` where a
worker may die mid-task. ``kind`` is a series kind's name (``tournament``, ``league``).
"""

from __future__ import annotations

from celery import shared_task

from . import runner, services
from .leagues import nights


@shared_task(name="tournaments.advance", ignore_result=True, acks_late=True,
             reject_on_worker_lost=True, time_limit=300, soft_time_limit=240)
def advance(kind: str, series_id: int) -> int:
    """Plan what a series starts now and queue its pending matches (its start)."""
    return runner.advance(kind=kind, series_id=series_id)


@shared_task(name="tournaments.play", ignore_result=True, acks_late=True,
             reject_on_worker_lost=True, time_limit=300, soft_time_limit=240)
def play(kind: str, series_id: int) -> dict[str, int]:
    """Claim chunks of a series' pending matches and start them (a task run twice plays each
    match once; a worker that dies mid-chunk leaves them pending for the reaper)."""
    return runner.play(kind=kind, series_id=series_id)


@shared_task(name="tournaments.start_due", ignore_result=True, time_limit=120,
             soft_time_limit=100)
def start_due() -> int:
    """Periodic: start the tournaments whose start time has come."""
    return services.tournaments_start_due()


@shared_task(name="tournaments.reap", ignore_result=True, time_limit=300, soft_time_limit=240)
def reap() -> int:
    """Periodic: record, requeue or finish what a crash or a lost message left behind, in
    every series."""
    return runner.reap()


@shared_task(name="tournaments.start_due_nights", ignore_result=True, time_limit=120,
             soft_time_limit=100)
def start_due_nights() -> int:
    """Periodic: add recurring league nights whose time has come and start every due night."""
    return nights.nights_start_due()
