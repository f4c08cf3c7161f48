"""A worker whose own clock is wrong never costs a bot nor a match (issue 45: the platform's
clock is the platform's fault). Bots check a call's signed timestamp against their own clock
(the Standard Webhooks scheme allows 5 minutes either way), so a worker host whose clock ran 10
minutes ahead signed calls every careful bot refused, and each refusal was a strike. Leases were
written on the worker's clock and judged on the database's: one 10 minutes behind stored no
batch at all (each lease already over), one 10 minutes ahead held its matches 10 minutes past
its death. A worker signs and leases on the platform's clock, its database server's
(lib/clock.py), whatever its host's says.

The fault is real: the worker runs under libfaketime (Debian's ``faketime``), its wall clock 10
minutes ahead or behind, its monotonic clock (call timeouts) left alone."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from bots.models import Bot, BotCall, BotSeat
from bots.refserver import RefBotServer
from games import log, services
from games.models import Match, Seat
from tests.helpers.tasks import hold_tasks

from ..conftest import REAL_WORKERS, database_url_for_subprocess

ROOT = Path(__file__).resolve().parents[2]

#: How far off the worker's clock runs: twice the signature's tolerance, ahead or behind.
SKEWS = ("+600s", "-600s")


def _libfaketime() -> str:
    """The library ``faketime`` preloads (the same package): preloaded here directly, so the
    worker is the test's own child, which the test can stop (``faketime`` forks)."""
    found = sorted(Path("/usr/lib").glob("*/faketime/libfaketime.so.1"))
    assert found, "the faketime package installs libfaketime"
    return str(found[0])


@REAL_WORKERS
@pytest.mark.postgres
@pytest.mark.requires("faketime")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("skew", SKEWS)
def test_a_worker_whose_clock_is_ten_minutes_off_strikes_no_bot_and_leases_on_time(
        alice, secret, monkeypatch, tmp_path, skew) -> None:
    hold_tasks(monkeypatch, "games.advance_automatic_seats")  # sent below
    ref_server = RefBotServer(("127.0.0.1", 0), secret=secret, move_delay=0.03)
    ref_server.serve_in_thread()  # each move 30 ms: a match of seconds, its leases watched
    bot = Bot.objects.create(owner=alice, name="careful", url=ref_server.base_url + "/random",
                             secret=secret, games=["dice_cup"], handshake_ok=True)
    match = services.match_create(game="dice_cup", created_by=alice, seed=11,
                                  seats=[{"kind": "webhook", "bot": bot.pk},
                                         {"kind": "reference", "bot": "random"}])
    queue = f"test-{uuid.uuid4().hex}"  # this test's own queue: no other test's messages
    env = {**os.environ, "DATABASE_URL": database_url_for_subprocess(tmp_path),
           "BOTS_ALLOW_PRIVATE_ADDRESSES": "1", "LD_PRELOAD": _libfaketime(),
           "FAKETIME": skew, "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker",
         "--pool", "solo", "-Q", queue, "--loglevel", "INFO", "--without-gossip",
         "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        from games.tasks import advance_automatic_seats

        advance_automatic_seats.apply_async(args=[match.pk], queue=queue)
        started = time.monotonic()
        leases = []  # (the lease's end, when the test saw it), on the test's right clock
        while (time.monotonic() - started < 90
               and not BotSeat.objects.filter(match=match, ended_at__isnull=False).exists()):
            assert worker.poll() is None, worker.stdout.read() if worker.stdout else ""
            until = Match.objects.filter(pk=match.pk).values_list("lease_until", flat=True)[0]
            if until is not None:
                leases.append((until, timezone.now()))
            time.sleep(0.05)
    finally:
        ref_server.shutdown()
        ref_server.server_close()
        worker.terminate()
        try:
            output = worker.communicate(timeout=20)[0]
        except subprocess.TimeoutExpired:
            worker.kill()
            output = worker.communicate()[0]
    match = Match.objects.get(pk=match.pk)
    assert match.status == "finished", f"the worker did not finish the match:\n{output}"
    refused = BotCall.objects.filter(match=match).exclude(status=200)
    assert not refused.exists(), list(refused.values_list("status", "reason", "detail"))[:3]
    assert not Seat.objects.filter(match=match, strikes__gt=0).exists()
    entries = list(log.entries(match.pk))
    assert any(e.kind == "action" and e.seat == 0 for e in entries), "the bot played"
    assert not any(e.kind in ("default", "timeout") for e in entries)
    lease = timedelta(seconds=settings.BLUFF_ADVANCE_LEASE_SECONDS)
    assert leases, "the match was leased while it played"
    assert all(seen < until <= seen + lease + timedelta(seconds=2) for until, seen in leases), (
        f"leases on the worker's clock, not the platform's: {leases[:3]}")
