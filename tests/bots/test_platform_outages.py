"""A bot never pays for the platform's outages: a webhook seat has no deadline (it is judged on
its own calls), one task at a time asks a match's bots (its lease), and the stalled-match sweep
queues a stalled match once, not on every run. (Real workers SIGKILLed mid-match:
test_worker_kills.py.)"""

from __future__ import annotations

import time
from collections.abc import Generator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from bots.models import BotCall, BotSeat
from bots.webhook import WebhookSession
from games import services
from games.log import entries
from games.models import Match
from games.services import store
from games.services.store import Lease
from tests.helpers.matches import webhook_match
from tests.helpers.tasks import hold_tasks

pytestmark = pytest.mark.django_db

BOT_AND_REFERENCE = [{"kind": "webhook"}, {"kind": "reference", "bot": "random"}]


def consistent(match_id: int) -> Match:
    """The saved match and its log agree (entries 0..version, no gap) and each of the bot's
    (seat 0's) logged actions has its applied /move call."""
    match = Match.objects.get(pk=match_id)
    logged = list(entries(match_id))
    assert [e.n for e in logged] == list(range(match.version + 1))
    moves = sum(1 for e in logged if e.kind == "action" and e.seat == 0)
    assert BotCall.objects.filter(match_id=match_id, path="move", applied=True).count() == moves
    return match


@pytest.fixture
def queued(monkeypatch: Any) -> list[tuple[str, int]]:
    """The advance tasks queued (not run: as if no worker were alive)."""
    return hold_tasks(monkeypatch, "games.advance_automatic_seats")


def ids(queued: list[tuple[str, int]]) -> list[int]:
    return [match_id for _, match_id in queued]


def bot_due(alice: Any, url: str) -> Match:
    match = Match.objects.get(pk=webhook_match(alice, url, "dice_cup", BOT_AND_REFERENCE,
                                               players=2))
    assert match.status == "running"
    return match


def test_no_deadline_while_only_bots_are_due_and_the_sweep_never_strikes_them(
        alice, open_ref_server, queued) -> None:
    match = bot_due(alice, open_ref_server.base_url + "/random")
    assert ids(queued) == [match.pk] and match.deadline is None
    # A row from before this rule (or any deadline passing while no worker asked the bot).
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(hours=1))
    assert services.match_expire_deadlines() == 0
    after = Match.objects.get(pk=match.pk)
    assert after.version == match.version and after.deadline is None
    assert not after.seats.filter(strikes__gt=0).exists()
    assert ids(queued) == [match.pk, match.pk], "the bot is asked when the platform can"
    services.match_advance_automatic_seats(match_id=match.pk)
    finished = consistent(match.pk)
    assert finished.status == "finished"
    assert not any(e.kind in ("timeout", "default") for e in entries(match.pk))
    assert not BotCall.objects.filter(match=match, strike=True).exists()
    assert not BotSeat.objects.filter(match=match).exclude(strikes={}).exists()


def test_a_person_still_has_a_deadline_against_a_bot(alice, bob, open_ref_server,
                                                     queued) -> None:
    seats = [{"kind": "webhook"}, {"kind": "player", "user": "bob"}]
    match_id = webhook_match(alice, open_ref_server.base_url + "/random", "dot", seats,
                             players=2)
    match = Match.objects.get(pk=match_id)
    if match.status == "open":
        services.match_join(match_id=match_id, user=bob)
        match.refresh_from_db()
    assert match.status == "running" and match.deadline is not None, "bob must act too"
    assert services.match_expire_deadlines(now=match.deadline + timedelta(seconds=1)) == 1
    strikes = dict(Match.objects.get(pk=match_id).seats.values_list("number", "strikes"))
    assert strikes == {0: 0, 1: 1}


def test_one_task_at_a_time_asks_a_match_and_a_lost_lease_stops_it(alice, open_ref_server,
                                                                  queued, monkeypatch) -> None:
    match = bot_due(alice, open_ref_server.base_url + "/random")
    held = Lease.claim(match.pk)
    assert held is not None and Lease.claim(match.pk) is None
    assert services.match_advance_automatic_seats(match_id=match.pk) == 0
    assert not BotCall.objects.filter(match=match).exists(), "a duplicate asks nobody"
    held.release()
    # Another task takes the lease over mid-batch (this one's ran out, a host was cut off):
    # this one's batch is refused and it stops; the other one plays on from the last version.
    calls: list[int] = []

    def overtaken(original: Any) -> Any:  # a step of several seats (ask) or of one (ask_one)
        def ask(self: Any, state: Any, seats: Any, version: int) -> Any:
            calls.append(version)
            if len(calls) == 3:
                Match.objects.filter(pk=match.pk).update(
                    lease_until=timezone.now() + timedelta(minutes=1))
            return original(self, state, seats, version)
        return ask

    with monkeypatch.context() as patched:
        patched.setattr(WebhookSession, "ask", overtaken(WebhookSession.ask))
        patched.setattr(WebhookSession, "ask_one", overtaken(WebhookSession.ask_one))
        assert services.match_advance_automatic_seats(match_id=match.pk, batch_moves=1) == 2
    stopped = consistent(match.pk)
    assert stopped.status == "running" and len(calls) == 3
    assert BotCall.objects.filter(match=match, applied=False).count() == 1
    Match.objects.filter(pk=match.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    services.match_advance_automatic_seats(match_id=match.pk)
    assert consistent(match.pk).status == "finished"
    assert Match.objects.get(pk=match.pk).lease_until is None, "released at the end"


def test_the_sweep_queues_a_stalled_match_once_per_stall_period(alice, open_ref_server, queued,
                                                                settings) -> None:
    match = bot_due(alice, open_ref_server.base_url + "/random")
    queued.clear()
    stalled = timezone.now() - timedelta(seconds=settings.BLUFF_STALLED_SECONDS + 1)
    Match.objects.filter(pk=match.pk).update(updated_at=stalled)
    assert [services.matches_resume_stalled() for _ in range(3)] == [1, 0, 0]
    assert ids(queued) == [match.pk], "one re-queue, however often the sweep runs"
    # Still stalled a whole period after it was queued (that message was lost too): again.
    Match.objects.filter(pk=match.pk).update(resumed_at=stalled)
    assert services.matches_resume_stalled() == 1 and ids(queued) == [match.pk] * 2
    # A match whose task holds its lease is being asked: not stalled, whatever its age.
    Match.objects.filter(pk=match.pk).update(resumed_at=stalled,
                                              lease_until=timezone.now() + timedelta(seconds=9))
    assert services.matches_resume_stalled() == 0


def test_a_match_whose_worker_died_is_queued_as_soon_as_its_lease_runs_out_and_no_healthy_one(
        alice, open_ref_server, queued, settings) -> None:
    """Recovery within two leases (issue 45): a lease that ran out is the sign of a task that
    died holding it, so its match is queued at the next sweep (every half lease), not after
    ``BLUFF_STALLED_SECONDS``; a healthy match (its lease held, or none while its message
    waits in a backlog) is never queued."""
    dead, leased, waiting = (bot_due(alice, open_ref_server.base_url + "/random")
                             for _ in range(3))
    queued.clear()
    now = timezone.now()
    Match.objects.filter(pk=dead.pk).update(lease_until=now - timedelta(seconds=1))
    Match.objects.filter(pk=leased.pk).update(lease_until=now + timedelta(seconds=9))
    assert [services.matches_resume_stalled() for _ in range(3)] == [1, 0, 0]
    assert ids(queued) == [dead.pk], "only the dead worker's match, once"
    assert Match.objects.get(pk=dead.pk).lease_until is None, "its lease is nobody's now"
    assert settings.BLUFF_RESUME_SWEEP_SECONDS * 2 <= settings.BLUFF_ADVANCE_LEASE_SECONDS
    # The backlog's match counts as lost only once quiet for BLUFF_STALLED_SECONDS.
    stalled = timezone.now() - timedelta(seconds=settings.BLUFF_STALLED_SECONDS + 1)
    Match.objects.filter(pk=waiting.pk).update(updated_at=stalled)
    assert services.matches_resume_stalled() == 1 and ids(queued) == [dead.pk, waiting.pk]


def test_a_lease_that_ran_out_stores_nothing_even_if_nobody_took_the_match(
        alice, open_ref_server, queued) -> None:
    """A worker host cut off for longer than its lease comes back before anyone took its
    match: what it saw meanwhile (its bot calls failed with the link) is not stored."""
    from django.db import transaction

    from games.states import load_state

    match = bot_due(alice, open_ref_server.base_url + "/random")
    lease = Lease.claim(match.pk)
    run_out = timezone.now() - timedelta(seconds=1)
    Match.objects.filter(pk=match.pk).update(lease_until=run_out)
    lease.until = run_out
    loaded = Match.objects.get(pk=match.pk)
    assert not lease.held_by_me(loaded)
    driver = store.driver_for(loaded, load_state(loaded, for_update=True))
    driver.run(max_steps=1)
    assert driver.version > loaded.version
    with transaction.atomic():
        assert not store.save_batch(loaded, driver, seats=list(loaded.seats.all()),
                                    previous_to_act=[], base_version=match.version, lease=lease)
    assert Match.objects.get(pk=match.pk).version == match.version
    assert services.match_advance_automatic_seats(match_id=match.pk) > 0, "anyone's again"


def test_a_batch_that_reaches_the_database_after_its_lease_ran_out_stores_nothing(
        alice, open_ref_server, queued, settings, monkeypatch) -> None:
    """A batch sent while its lease still held that reaches the database only after it ran
    out (a link cut just after sending: the statement is retransmitted when the link comes
    back, maybe before anyone took the match over) is refused by the database's clock: what
    the worker saw while cut off (its bots' timeouts) is never stored."""
    from django.db import transaction

    from games.states import load_state

    settings.BLUFF_ADVANCE_LEASE_SECONDS = 1
    match = bot_due(alice, open_ref_server.base_url + "/random")
    lease = Lease.claim(match.pk)
    loaded = Match.objects.get(pk=match.pk)
    driver = store.driver_for(loaded, load_state(loaded, for_update=True))
    driver.run(max_steps=1)
    assert lease.held_by_me(loaded), "sent while the lease holds"
    real = store.updating_then_inserting

    def on_a_cut_link(*args: Any, **kwargs: Any) -> Generator[Any, Any, bool]:
        while timezone.now() < lease.until + timedelta(seconds=0.2):
            time.sleep(0.05)
        return (yield from real(*args, **kwargs))

    monkeypatch.setattr(store, "updating_then_inserting", on_a_cut_link)
    with transaction.atomic():
        assert not store.save_batch(loaded, driver, seats=list(loaded.seats.all()),
                                    previous_to_act=[], base_version=match.version,
                                    lease=lease), "it reached the database after the lease"
    after = Match.objects.get(pk=match.pk)
    assert (after.version, after.lease_until) == (match.version, lease.until), "nobody took it"
    monkeypatch.setattr(store, "updating_then_inserting", real)
    assert services.match_advance_automatic_seats(match_id=match.pk) > 0, "anyone's again"
    assert consistent(match.pk).status == "finished"
