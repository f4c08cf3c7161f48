"""Tournaments played by real Celery worker processes on the configured broker and database
(Redis and PostgreSQL in CI), started as `make run` starts them.

A round robin of reference bots and loopback webhook bots ends with the standings and ratings
that an in-process run of the same seeds gives; a worker SIGKILLed in the middle (while it
holds an open transaction, if it can be caught in one) is replaced, and every match is still
played exactly once, with the same standings as the undisturbed run.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, transaction

from games.log import entries
from games.models import Match
from tests.conftest import REAL_WORKERS, database_url_for_subprocess
from tournaments import playing, selectors, series, services
from tournaments.models import Tournament, TournamentMatch

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.postgres, pytest.mark.broker, pytest.mark.django_db(transaction=True),
              REAL_WORKERS]


def _run_script() -> Any:
    spec = importlib.util.spec_from_file_location("run_script", ROOT / "scripts" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


class Workers:
    """The workers `make run` starts (one per queue), as subprocesses on the test database."""

    def __init__(self, tmp_path: Path, **env: str) -> None:
        self.logs = tmp_path
        self.run = _run_script()
        self.env = {**os.environ, "DATABASE_URL": database_url_for_subprocess(tmp_path),
                    "BOTS_ALLOW_PRIVATE_ADDRESSES": "1", **env}
        self.processes: dict[str, subprocess.Popen] = {}
        from config.celery import purge_queues

        purge_queues()  # no other test's messages

    def start(self, queue: str, *, host: str | None = None) -> subprocess.Popen:
        """A worker for ``queue``; ``host``: in that network namespace (``ip netns exec``),
        named ``queue@host`` (the key for :meth:`kill`)."""
        extra = ("--pool", "threads", "--concurrency", "8") if queue == "matches" else \
            ("--pool", "solo")
        name = queue if host is None else f"{queue}@{host}"
        prefix = [] if host is None else ["ip", "netns", "exec", host]
        path = self.logs / f"worker-{name}-{len(self.processes)}-{time.time():.0f}.log"
        with open(path, "w") as log:  # the worker writes to its own copy of the file
            process = subprocess.Popen(
                [*prefix, *self.run.worker_command(queue, *extra, "--loglevel", "INFO",
                                                   "--without-gossip", "--without-mingle",
                                                   "--without-heartbeat", "--hostname",
                                                   f"{queue}-{host or 'local'}@%h")],
                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        self.processes[name] = process
        return process

    def kill(self, name: str) -> None:
        process = self.processes.pop(name)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def tails(self) -> str:
        """The end of every worker's log (for a failure's message)."""
        return "\n".join(f"--- {path.name}\n" + "\n".join(path.read_text().splitlines()[-15:])
                         for path in sorted(self.logs.glob("worker-*.log")))

    def stop(self) -> None:
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def wait_until(condition: Callable[[], bool], timeout: float, tick: Callable[[], Any] | None = None,
               what: str = "", workers: Workers | None = None) -> None:
    limit = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > limit:
            raise AssertionError(f"timed out waiting for {what}\n"
                                 + (workers.tails() if workers else ""))
        if tick is not None:
            tick()
        time.sleep(0.2)


def participants(bot_ids: list[int]) -> list[dict[str, Any]]:
    return [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference", "bot": "random"},
            *({"kind": "webhook", "bot": bot_id} for bot_id in bot_ids)]


def in_process(alice: Any, spec: dict[str, Any], monkeypatch: Any) -> Tournament:
    """The same tournament (same seed) played right here, every task inline: the reference
    the workers' run must equal."""
    from games.services import match_advance_automatic_seats, store
    from tournaments import tasks

    monkeypatch.setattr(series, "enqueue", lambda task, object_id: transaction.on_commit(
        lambda: getattr(tasks, task).apply(args=[object_id])))
    monkeypatch.setattr(store, "enqueue_advance", lambda match_id: transaction.on_commit(
        lambda: match_advance_automatic_seats(match_id=match_id)))
    return services.tournament_create(organiser=alice, **spec)


def table(tournament: Tournament) -> list[tuple]:
    return [(r["participant"], r["points"], r["score"], r["rating"]["mu"])
            for r in selectors.tournament_standings(tournament=tournament)]


def played_once(tournament: Tournament) -> None:
    """Every scheduled match is done, with exactly one games match, played to the end with a
    gapless log: nothing was lost or played twice."""
    rows = list(TournamentMatch.objects.filter(tournament=tournament))
    assert rows and all(r.status == "done" and r.match_id for r in rows)
    matches = Match.objects.filter(tournament_match__tournament=tournament)
    assert matches.count() == len(rows) == len({r.match_id for r in rows})
    assert Match.objects.filter(seed__in=[r.seed for r in rows],
                                created_by=tournament.organiser).count() == len(rows), \
        "no match was created twice"
    for match in matches:
        ns = [e.n for e in entries(match.pk)]
        assert match.status == "finished" and ns == list(range(match.version + 1))


def test_workers_play_a_round_robin_with_the_in_process_standings(alice, bots, tmp_path,
                                                                   monkeypatch) -> None:
    workers = Workers(tmp_path)
    spec = {"name": "cup", "game": "dice_cup", "table_size": 2, "seed": 11,
            "participants": participants(bots(2))}
    try:
        for queue in workers.run.QUEUES:
            workers.start(queue)
        tournament = services.tournament_create(organiser=alice, **spec)
        wait_until(lambda: Tournament.objects.get(pk=tournament.pk).status == "finished", 180,
                   what="the workers to finish the tournament", workers=workers)
    finally:
        workers.stop()
    played_once(tournament)
    reference = in_process(alice, spec, monkeypatch)
    assert Tournament.objects.get(pk=reference.pk).status == "finished"
    assert table(tournament) == table(reference)


def _open_transactions() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                       "current_database() AND xact_start IS NOT NULL AND pid <> "
                       "pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.mark.parametrize("shape", [{"table_size": 2, "meetings": 3},
                                   {"format": "swiss", "rounds": 5}], ids=["round robin", "swiss"])
def test_a_worker_killed_mid_tournament_is_replaced_and_every_match_is_played_once(
        alice, bots, tmp_path, monkeypatch, settings, shape) -> None:
    """A round robin, and a Swiss tournament whose next rounds are paired around the kill."""
    settings.BLUFF_STALLED_SECONDS = 1
    settings.TOURNAMENT_LEASE_SECONDS = 1
    workers = Workers(tmp_path, TOURNAMENT_LEASE_SECONDS="1", TOURNAMENT_CHUNK="4")
    entrants = participants(bots(2, delay=0.004))
    if shape.get("format") == "swiss":
        entrants += [{"kind": "reference", "bot": "heuristic", "name": f"h{i}"} for i in range(4)]
    spec = {"name": "cup", "game": "dice_cup", "seed": 5, **shape, "participants": entrants}
    from games.services import matches_resume_stalled

    def sweep() -> None:  # what beat does every minute, here every tick
        matches_resume_stalled()
        playing.tournaments_reap()

    def done() -> int:
        return TournamentMatch.objects.filter(tournament=tournament, status="done").count()

    try:
        workers.start("housekeeping")
        workers.start("matches")
        tournament = services.tournament_create(organiser=alice, **spec)
        total = tournament.match_total  # a Swiss round's rows come when it is paired
        wait_until(lambda: done() >= total // 4, 120, what="a quarter of the matches",
                   workers=workers)
        caught = time.monotonic() + 5  # try to kill it inside a transaction (a chunk, a batch)
        while _open_transactions() == 0 and time.monotonic() < caught:
            pass
        workers.kill("matches")
        assert done() < total, "killed before the end"
        workers.start("matches")
        wait_until(lambda: Tournament.objects.get(pk=tournament.pk).status == "finished", 240,
                   tick=sweep, what="the new worker to finish the tournament", workers=workers)
    finally:
        workers.stop()
    played_once(tournament)
    reference = in_process(alice, spec, monkeypatch)
    assert table(tournament) == table(reference), "as if nothing had happened"
