"""A whole webhook match played by a real Celery worker process on the configured broker (the
embedded filesystem broker on a bare machine, Redis and RabbitMQ in CI), against the test's own
database (SQLite on a bare machine), by the threaded worker and the multiplexed one."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection

from bots.models import Bot, BotCall, BotSeat
from bots.signing import new_secret
from games import log, services
from games.models import Match
from tests.helpers.tasks import hold_tasks

from ..conftest import REAL_WORKERS, database_url_for_subprocess

ROOT = Path(__file__).resolve().parents[2]


@REAL_WORKERS
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("multiplexed", [False, True], ids=["threaded", "multiplexed"])
def test_a_real_worker_plays_a_whole_webhook_match(alice, open_ref_server, monkeypatch,
                                                   tmp_path, multiplexed) -> None:
    """Either worker: one match a task (solo here), or the multiplexed worker's loop
    (``BLUFF_MULTIPLEXED_WORKER``, a threads pool), on every database and broker."""
    hold_tasks(monkeypatch, "games.advance_automatic_seats")  # sent below
    bot = Bot.objects.create(owner=alice, name="worker", url=open_ref_server.base_url + "/random",
                             secret=new_secret(), games=["dice_cup"], handshake_ok=True)
    match = services.match_create(game="dice_cup", created_by=alice, seed=11,
                                  seats=[{"kind": "webhook", "bot": bot.pk},
                                         {"kind": "reference", "bot": "random"},
                                         {"kind": "webhook", "bot": bot.pk}])
    database_url = database_url_for_subprocess(tmp_path)
    queue = f"test-{uuid.uuid4().hex}"  # this test's own queue: no other test's messages
    env = {**os.environ, "DATABASE_URL": database_url, "BOTS_ALLOW_PRIVATE_ADDRESSES": "1",
           "BLUFF_MULTIPLEXED_WORKER": "1" if multiplexed else "0"}
    pool = ("--pool", "threads", "--concurrency", "4") if multiplexed else ("--pool", "solo")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", *pool, "-Q", queue,
         "--loglevel", "WARNING", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        from games.tasks import advance_automatic_seats

        advance_automatic_seats.apply_async(args=[match.pk], queue=queue)
        finished = False
        started = time.monotonic()
        while time.monotonic() - started < 90 and not finished:
            time.sleep(0.3)
            if connection.vendor == "sqlite":
                with sqlite3.connect(database_url.removeprefix("sqlite:///")) as db:
                    finished = db.execute(
                        "SELECT COUNT(*) FROM bots_botseat WHERE match_id = ? AND ended_at "
                        "IS NOT NULL", [match.pk]).fetchone()[0] == 2
            else:
                finished = BotSeat.objects.filter(match=match, ended_at__isnull=False).count() == 2
            assert worker.poll() is None, worker.stdout.read() if worker.stdout else ""
    finally:
        worker.terminate()
        try:
            output = worker.communicate(timeout=20)[0]
        except subprocess.TimeoutExpired:
            worker.kill()
            output = worker.communicate()[0]
    assert finished, f"the worker did not finish the match:\n{output}"
    if connection.vendor == "sqlite":
        with sqlite3.connect(database_url.removeprefix("sqlite:///")) as source:
            source.backup(connection.connection)
    match = Match.objects.get(pk=match.pk)
    assert match.status == "finished" and match.result is not None
    entries = list(log.entries(match.pk))
    moves = sum(1 for e in entries if e.kind == "action" and e.seat in (0, 2))
    assert moves > 0 and not any(e.kind == "default" for e in entries)
    assert BotCall.objects.filter(match=match, path="move").count() == moves
    assert BotCall.objects.filter(match=match, path="end").count() == 2
