"""Celery tasks of tournaments: thin adapters that take ids and call one service.

``play_matches`` runs on the ``matches`` queue; the periodic ones on ``housekeeping``. All are
safe to run twice (claims are conditional UPDATEs), hence ``acks_late`` where a worker may die
mid-task.
"""

from __future__ import annotations

from celery import shared_task

from . import night_hands, nights, playing, series, services


@shared_task(name="tournaments.play_matches", ignore_result=True, acks_late=True,
             reject_on_worker_lost=True, time_limit=300, soft_time_limit=240)
def play_matches(tournament_id: int) -> dict[str, int]:
    """Claim a chunk of a tournament's pending matches and start them (a task run twice plays
    each match once; a worker that dies mid-chunk leaves them pending for the reaper)."""
    return playing.tournament_play(tournament_id=tournament_id)


@shared_task(name="tournaments.dispatch", ignore_result=True, acks_late=True,
             reject_on_worker_lost=True, time_limit=300, soft_time_limit=240)
def dispatch(tournament_id: int) -> int:
    """Queue the pending matches of a tournament that has just started."""
    return playing.tournament_dispatch(tournament_id=tournament_id)


@shared_task(name="tournaments.start_due", ignore_result=True, time_limit=120,
             soft_time_limit=100)
def start_due() -> int:
    """Periodic: start the tournaments whose start time has come."""
    return services.tournaments_start_due()


@shared_task(name="tournaments.reap", ignore_result=True, time_limit=300, soft_time_limit=240)
def reap() -> int:
    """Periodic: record, requeue or finish what a crash or a lost message left behind, in
    tournaments and league nights."""
    return series.reap()


@shared_task(name="tournaments.start_due_nights", ignore_result=True, time_limit=120,
             soft_time_limit=100)
def start_due_nights() -> int:
    """Periodic: add recurring league nights whose time has come and start every due night."""
    return nights.nights_start_due()


@shared_task(name="tournaments.advance_night", ignore_result=True, acks_late=True,
             reject_on_worker_lost=True, time_limit=120, soft_time_limit=100)
def advance_night(night_id: int) -> int:
    """Queue the advance of every group of tables of a running league night."""
    return nights.night_advance(night_id=night_id)


@shared_task(name="tournaments.advance_tables", ignore_result=True, acks_late=True,
             reject_on_worker_lost=True, time_limit=300, soft_time_limit=240)
def advance_tables(night_id: int, first: int, count: int) -> int:
    """Play the next hands of a group of tables of a running league night (run twice, it
    starts each hand once)."""
    return night_hands.tables_advance(night_id=night_id, first=first, count=count)
