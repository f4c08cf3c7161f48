"""Two planners of one series at once never deadlock: a chunk storing the rows its tables plan
(their foreign key to the series checked at its COMMIT: a KEY SHARE lock on the series row)
and a settler planning under the series row's lock (the reaper, a closing transaction) that
plans the same key and so waits for the chunk. The settler's lock is FOR NO KEY UPDATE, which
lets the chunk's check through; FOR UPDATE made each wait for the other (seen under load in
the network-cut test of a continuous tournament)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone

from games.services import match_stop
from tournaments import services
from tournaments.models import Tournament, TournamentMatch
from tournaments.runner import kinds
from tournaments.runner.loop import plan_next, settle
from tournaments.runner.upkeep import reap

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _sessions_waiting_on_a_lock(cursor: Any) -> int:
    cursor.execute("SELECT pg_stat_clear_snapshot()")  # fresh figures inside a transaction
    cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                   "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")
    return cursor.fetchone()[0]


def test_a_settler_and_a_chunk_storing_the_same_key_do_not_deadlock(alice: Any) -> None:
    now = timezone.now()
    tournament = services.tournament_create(
        organiser=alice, name="arena", game="dice_cup", format="continuous", in_flight=2,
        participants=[{"kind": "reference", "bot": "random", "name": f"r{i}"} for i in range(4)],
        ends_at=now + timedelta(hours=2), starts_at=now + timedelta(hours=1))
    Tournament.objects.filter(pk=tournament.pk).update(status="running")  # nothing queued
    k = kinds.get_kind("tournament")
    planned = plan_next(k, k.load(Tournament.objects.get(pk=tournament.pk)), now=now,
                        store=False)
    assert len(planned) == 2
    stored, errors = threading.Event(), []

    def chunk() -> None:
        """Stores the first planned row, waits until the settler waits for it, commits."""
        try:
            with transaction.atomic():
                k.model.objects.bulk_create([k.new_row(k.load(tournament), planned[0])])
                stored.set()
                with connection.cursor() as cursor:
                    limit = time.monotonic() + 20
                    while not _sessions_waiting_on_a_lock(cursor):
                        assert time.monotonic() < limit, "the settler never waited for us"
                        time.sleep(0.05)
        except BaseException as exc:  # noqa: BLE001 - raised in the test's thread
            errors.append(exc)
        finally:
            stored.set()
            connection.close()

    thread = threading.Thread(target=chunk)
    thread.start()
    assert stored.wait(20)
    try:
        settle(k, tournament.pk, now=now, wait=True, queue=False)
    finally:
        thread.join(30)
    assert not errors, errors
    rows = TournamentMatch.objects.filter(tournament=tournament).order_by("number")
    assert [(row.number, tuple(row.seats)) for row in rows] == [
        (m.number, tuple(m.seats)) for m in planned], "each planned key stored once"


def test_a_continuous_series_is_planned_only_under_its_rows_lock(alice: Any, settings: Any,
                                                                 inline_tasks: Any,
                                                                 django_user_model: Any) -> None:
    """A continuous format numbers its matches over the whole series: two planners reading it
    at different moments would store different matches under one key (or deadlock inserting
    them, as CI saw a recording and a worker do). So a recording plans such a series only
    under the series row's lock: while another holds it, the recording records and plans
    nothing; the holder (or the reaper) plans after."""
    settings.SERIES_FORFEITS_TO_WITHDRAW = 0
    settings.TOURNAMENT_RECORD_LOCK_SECONDS = 1
    players = [{"kind": "player",
                "user": django_user_model.objects.create_user(f"p{i}", password="x").username}
               for i in range(4)]
    tournament = services.tournament_create(
        organiser=alice, name="arena", game="dice_cup", format="continuous", in_flight=2,
        participants=players, ends_at=timezone.now() + timedelta(hours=1))
    rows = TournamentMatch.objects.filter(tournament=tournament).order_by("number")

    def stored() -> list[tuple[int, str]]:
        return list(rows.values_list("number", "status"))

    assert stored() == [(0, "running"), (1, "running")]
    holding, release, errors = threading.Event(), threading.Event(), []

    def settler() -> None:
        """Holds the series row as a settler does, until told."""
        try:
            with transaction.atomic():
                Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
                holding.set()
                assert release.wait(30)
        except BaseException as exc:  # noqa: BLE001 - raised in the test's thread
            errors.append(exc)
        finally:
            holding.set()
            connection.close()

    thread = threading.Thread(target=settler)
    thread.start()
    assert holding.wait(20)
    try:
        match_stop(match_id=rows.get(number=0).match_id, reason="ended")
        assert stored() == [(0, "finished"), (1, "running")], (
            "recorded, and nothing planned while another holds the series")
    finally:
        release.set()
        thread.join(30)
    assert not errors, errors
    reap()
    assert stored() == [(0, "finished"), (1, "running"), (2, "running")], (
        "planned once the lock is free")
