"""Real Celery workers for tests, as `make run` starts them (subprocesses on the test database
and the configured broker), and what the tests that run them check: a tournament played in
process with the same seeds, its standings, every match played exactly once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from django.db import connection

from games.log import entries
from games.models import Match
from scripts import run as run_script
from tests.conftest import database_url_for_subprocess
from tests.helpers.tasks import run_tasks
from tournaments import selectors, services
from tournaments.models import Tournament, TournamentMatch

ROOT = Path(__file__).resolve().parents[2]


class Workers:
    """The workers `make run` starts (one per queue), as subprocesses on the test database."""

    def __init__(self, tmp_path: Path, **env: str) -> None:
        self.logs = tmp_path
        self.run = run_script
        self.env = {**os.environ, "DATABASE_URL": database_url_for_subprocess(tmp_path),
                    "BOTS_ALLOW_PRIVATE_ADDRESSES": "1", **env}
        self.processes: dict[str, subprocess.Popen] = {}
        self.paths: dict[str, Path] = {}  # name -> its log
        from config.celery import purge_queues

        purge_queues()  # no other test's messages

    def start(self, queue: str, *, host: str | None = None,
              env: dict[str, str] | None = None, concurrency: int = 8) -> subprocess.Popen:
        """A worker for ``queue``; ``host``: in that network namespace (``ip netns exec``),
        named ``queue@host`` (the key for :meth:`kill`); ``env``: its own environment on top
        of the others'; ``concurrency``: a matches worker's threads."""
        extra = ("--pool", "threads", "--concurrency", str(concurrency)) if queue == "matches" \
            else ("--pool", "solo")
        name = queue if host is None else f"{queue}@{host}"
        prefix = [] if host is None else ["ip", "netns", "exec", host]
        path = self.logs / f"worker-{name}-{len(self.processes)}-{time.time():.0f}.log"
        with open(path, "w") as log:  # the worker writes to its own copy of the file
            process = subprocess.Popen(
                [*prefix, *self.run.worker_command(queue, *extra, "--loglevel", "INFO",
                                                   "--without-gossip", "--without-mingle",
                                                   "--without-heartbeat", "--hostname",
                                                   f"{queue}-{host or 'local'}@%h")],
                cwd=ROOT, env={**self.env, **(env or {})}, stdout=log,
                stderr=subprocess.STDOUT)
        self.processes[name], self.paths[name] = process, path
        return process

    def node(self, name: str) -> str:
        """The Celery node name of the worker started as ``name`` (what ``--hostname`` made of
        it), for remote control (``app.control.inspect(destination=...)``)."""
        queue, _, host = name.partition("@")
        return f"{queue}-{host or 'local'}@{socket.gethostname()}"

    def wait_ready(self, timeout: float = 90) -> None:
        """Wait until every worker started is connected to its broker and consuming (its log
        says ``ready.``): a worker is a few seconds of imports and setup, more on a loaded
        machine, and a test that needs each one to take part must not start without it."""
        limit = time.monotonic() + timeout
        for name, path in self.paths.items():
            while " ready." not in path.read_text():
                if self.processes[name].poll() is not None or time.monotonic() > limit:
                    raise AssertionError(f"worker {name} did not get ready\n" + self.tails())
                time.sleep(0.2)

    def start_beat(self) -> subprocess.Popen:
        """Celery beat, as `make run` starts it (its schedule file beside the logs); stopped
        with the workers."""
        with open(self.logs / "worker-beat.log", "w") as log:  # beat writes to its own copy
            process = subprocess.Popen(
                self.run.commands()["beat"] + ["--schedule", str(self.logs / "beat-schedule")],
                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        self.processes["beat"] = process
        return process

    def kill(self, name: str) -> None:
        process = self.processes.pop(name)
        self.paths.pop(name, None)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def tails(self) -> str:
        """The end of every worker's log (for a failure's message)."""
        return "\n".join(f"--- {path.name}\n" + "\n".join(path.read_text().splitlines()[-15:])
                         for path in sorted(self.logs.glob("worker-*.log")))

    def stop(self) -> None:
        stop_processes(self.processes.values())


def stop_processes(processes: Iterable[subprocess.Popen], timeout: float = 20) -> None:
    """Ask every process to stop (SIGTERM: a Celery worker's warm shutdown), all at once, then
    wait up to ``timeout`` seconds for each, and kill one that is still there."""
    processes = list(processes)
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


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
    run_tasks(monkeypatch)
    return services.tournament_create(organiser=alice, **spec)


def table(tournament: Tournament) -> list[tuple]:
    """The standings as the tournament's own results make them (its places, points, mean
    score, firsts and forfeits; not the ratings, which are the game's, moved by every series
    and so by the run it is compared with)."""
    return [(r["place"], r["participant"], r["points"], r["score"], r["firsts"], r["forfeits"])
            for r in selectors.tournament_standings(tournament=tournament)]


def played_once(tournament: Tournament) -> None:
    """Every scheduled match is done, with exactly one games match, played to the end with a
    gapless log: nothing was lost or played twice."""
    rows = list(TournamentMatch.objects.filter(tournament=tournament))
    assert rows and all(r.status == "finished" and r.match_id for r in rows)
    matches = Match.objects.filter(tournament_match__tournament=tournament)
    assert matches.count() == len(rows) == len({r.match_id for r in rows})
    assert Match.objects.filter(seed__in=[r.seed for r in rows],
                                created_by=tournament.organiser).count() == len(rows), \
        "no match was created twice"
    for match in matches:
        ns = [e.n for e in entries(match.pk)]
        assert match.status == "finished" and ns == list(range(match.version + 1))


def open_transactions() -> int:
    """How many other connections to the test database are inside a transaction now."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                       "current_database() AND xact_start IS NOT NULL AND pid <> "
                       "pg_backend_pid()")
        return cursor.fetchone()[0]
