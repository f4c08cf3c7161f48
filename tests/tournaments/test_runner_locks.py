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

from tournaments import services
from tournaments.models import Tournament, TournamentMatch
from tournaments.runner import kinds
from tournaments.runner.loop import plan_next, settle

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
