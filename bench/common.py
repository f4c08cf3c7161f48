"""What the benches share: a fresh database to measure on, and real worker processes."""

from __future__ import annotations

import http.client
import os
import pathlib
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from urllib.parse import urlsplit, urlunsplit

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The production matches worker (docker-compose.yml's ``worker-matches``, docs/deploy.md).
PRODUCTION_MATCHES_POOL = ("--pool", "threads", "--concurrency", "32")


def prepare_environment(db: str, tmp: pathlib.Path) -> str:
    """Point this process (and the worker it starts) at a fresh bench database and, unless one
    is configured, an embedded broker in ``tmp``; as in production, DEBUG off (no query log).
    Returns the DATABASE_URL."""
    if db == "sqlite":
        url = f"sqlite:///{tmp / 'bench.sqlite3'}"
    else:
        import psycopg

        parts = urlsplit(db)
        name = parts.path.lstrip("/")
        with psycopg.connect(urlunsplit(parts._replace(path="/postgres")),
                             autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        url = db
    os.environ.update({
        "DATABASE_URL": url, "DEBUG": "0", "SECRET_KEY": "bench-only-secret-key",
        "ALLOWED_HOSTS": "127.0.0.1", "BOTS_ALLOW_PRIVATE_ADDRESSES": "1",
        "LOG_LEVEL": "WARNING", "DJANGO_SETTINGS_MODULE": "config.settings",
    })
    if "CELERY_BROKER_URL" not in os.environ:
        os.environ["BLUFF_VAR_DIR"] = str(tmp / "var")
    return url


def setup_bench(db: str, **env: str) -> None:
    """The bench process ready to measure: a fresh database (:func:`prepare_environment`, in
    a new temporary folder), ``env`` set for it and its workers, Django set up and migrated."""
    import tempfile

    prepare_environment(db, pathlib.Path(tempfile.mkdtemp(prefix="bluff-bench-")))
    os.environ.update(env)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)



_started = 0  # workers started by this process: each gets a name of its own


def start_worker(queue: str, *options: str, env: dict[str, str] | None = None
                 ) -> subprocess.Popen:
    """A Celery worker process consuming ``queue`` on this process's settings (call after
    :func:`prepare_environment`), e.g. ``start_worker("matches", "--pool", "threads",
    "--concurrency", "64")``."""
    global _started
    _started += 1
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue,
         "--hostname", f"{queue}-{os.getpid()}-{_started}@%h", *options,
         "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
         "--without-heartbeat"], cwd=ROOT, env={**os.environ, **(env or {})})


def wait_for_workers(count: int, timeout: float = 120.0) -> None:
    """Return once ``count`` workers answer a control ping (each consuming its queues): a
    fixed sleep let a worker that came up late on a loaded machine pay for its start inside a
    timed run, or leave the first tasks of a run of two to the other."""
    from config.celery import app

    limit = time.monotonic() + timeout
    while len(app.control.ping(timeout=0.5)) < count:
        if time.monotonic() > limit:
            raise SystemExit(f"fewer than {count} workers answered within {timeout:.0f} s")


def peak_memory_kib(pid: int) -> int:
    """The process's peak resident memory so far (``VmHWM``), in KiB."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmHWM for process {pid}")


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) the process has used so far, in seconds."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def play_alone(game, *, players: int, seed: int, options: dict, bots: list[str]):
    """One match played by the engine and the reference bots alone, as the platform's
    reference seats play it (the same bot seeds: ``games.seats``); returns the final state."""
    state = game.new_match(players=players, seed=seed, options=options)
    version = 0
    while not state.is_over:
        for seat in state.to_act():
            if state.is_over or seat not in state.to_act():
                continue
            bot = game.make_bot(bots[seat], seat, seed * 7919 + version)
            state.apply(seat, bot.choose(state.view(seat), state.legal_actions(seat)))
            version += 1
    return state


def raw_round_ms(url: str, path: str, rounds: Sequence[Sequence[bytes]], n: int, *,
                 secret: str = "") -> float:
    """Mean ms of a round of POSTs to ``url`` + ``path`` with the leanest Python client: a
    round's bodies go out on as many kept-alive stdlib connections, every request written
    before any answer is read (the bot answers them in its own time); ``n`` rounds, cycling
    through ``rounds``. Signed with ``secret`` if given, the signatures made before timing."""
    from bots.signing import sign_headers

    parsed = urlsplit(url)
    conns = [http.client.HTTPConnection(parsed.hostname, parsed.port)
             for _ in range(max(map(len, rounds)))]
    signed = [[(body, {**(sign_headers(secret, body) if secret else {}),
                       "content-type": "application/json"}) for body in bodies]
              for bodies in rounds]
    elapsed = 0.0
    for i in range(n):
        calls = signed[i % len(signed)]
        started = time.perf_counter()
        for conn, (body, headers) in zip(conns, calls):
            conn.request("POST", parsed.path + path, body=body, headers=headers)
        for conn, _ in zip(conns, calls):
            response = conn.getresponse()
            response.read()
            assert response.status == 200, response.status
        elapsed += time.perf_counter() - started
    for conn in conns:
        conn.close()
    return elapsed * 1000 / n


def database_round_trip_ms(n: int = 300) -> float:
    """Median ms of ``SELECT 1`` through Django's connection: the floor under every statement
    a bench's code path sends. On the shared VM it moves with the machine's idle state (a
    quiet machine wakes an idle core for each round trip): 0.10 ms quiet against 0.045 ms with
    CI running beside it; a cursor opened for each statement, 0.34 ms quiet against 0.08 ms
    (2026-12-03). Hence webhook figures swing between runs."""
    from django.db import connection

    times = []
    with connection.cursor() as cursor:
        for _ in range(n):
            started = time.perf_counter()
            cursor.execute("SELECT 1")
            cursor.fetchone()
            times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000
