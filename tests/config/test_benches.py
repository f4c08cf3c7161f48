"""The benches still run, and the parts of them that decide a figure are right: a bench that
quietly broke, or whose ideal is wrong, would print figures nobody can trust."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest

from bench import local
from bench.common import raw_round_ms
from bench.tournament import SLOW_MS, SlowBot, makespan
from tests.conftest import REAL_WORKERS

ROOT = Path(__file__).resolve().parents[2]
#: Every bench a person runs (a script with a ``__main__`` block).
BENCHES = sorted(path.name for path in (ROOT / "bench").glob("*.py")
                 if 'if __name__ == "__main__":' in path.read_text())


@pytest.mark.parametrize("script", BENCHES)
def test_every_bench_starts_and_says_how_to_run_it(script: str) -> None:
    """``--help`` imports the whole script, so a bench that an import moved out from under
    (bench/hosts.py was once) fails here, not on the day someone measures with it."""
    done = subprocess.run([sys.executable, f"bench/{script}", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:"), done.stdout


def test_makespan_is_a_free_platform_with_that_many_slots() -> None:
    assert makespan([2.0, 2.0, 2.0], 2) == 4.0, "a third match waits for a slot"
    assert makespan([3.0, 1.0, 1.0, 1.0], 2) == 3.0, "short ones share the other slot"
    assert makespan([5.0], 64) == 5.0
    assert makespan([1.0] * 120, 64) == 2.0, "120 equal matches on 64 slots: two rounds"


@pytest.fixture
def slow_bot_port():
    """One SlowBot on a free loopback port, served by an event loop in a thread."""
    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(loop.create_server(SlowBot, "127.0.0.1", 0))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield server.sockets[0].getsockname()[1]
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5)
    server.close()


def _request(path: str, body: bytes) -> bytes:
    return (b"POST %s HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % (path.encode(), len(body))) + body


def _answers(sock: socket.socket, count: int) -> list[dict]:
    data, answers = b"", []
    while len(answers) < count:
        chunk = sock.recv(65536)
        assert chunk, "the bot closed the connection"
        data += chunk
        while (end := data.find(b"\r\n\r\n")) >= 0:
            head = data[:end].decode("latin-1").lower()
            length = int(head.split("content-length:")[1].split("\r\n")[0])
            if len(data) < end + 4 + length:
                break
            answers.append(orjson.loads(data[end + 4:end + 4 + length]))
            data = data[end + 4 + length:]
    return answers


def test_a_slow_bot_answers_its_first_legal_action_after_its_think_time(slow_bot_port) -> None:
    move = orjson.dumps({"legal_actions": [{"type": "call", "n": 1}, {"type": "pass"}]})
    with socket.create_connection(("127.0.0.1", slow_bot_port)) as sock:
        started = time.perf_counter()
        # Two requests in one write (a keep-alive client may send them back to back), and a
        # notice: each gets its own answer, in order.
        sock.sendall(_request("/move", move) + _request("/start", b"{}"))
        first, notice = _answers(sock, 2)
        elapsed = time.perf_counter() - started
        sock.sendall(_request("/move", move))
        [second] = _answers(sock, 1)
    assert first == second == {"action": {"type": "call", "n": 1}}
    assert notice == {}
    assert elapsed >= SLOW_MS / 1000, "a /move waits its think time"


def test_the_raw_round_is_at_least_the_bots_own_time(slow_bot_port) -> None:
    move = orjson.dumps({"legal_actions": [{"type": "pass"}]})
    url = f"http://127.0.0.1:{slow_bot_port}"
    assert raw_round_ms(url, "/move", [[move]], 3) >= SLOW_MS
    # Three at once on three connections: the bot thinks for them side by side.
    assert SLOW_MS <= raw_round_ms(url, "/move", [[move] * 3], 3) < 3 * SLOW_MS


def test_the_webhook_bench_runs_and_prints_its_figures(tmp_path) -> None:
    env = {**os.environ, "BLUFF_VAR_DIR": str(tmp_path)}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "bench/bots.py", "--db", "sqlite", "--rounds", "1", "--matches", "2",
         "--worker-matches", "0", "--deployed-matches", "0"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    for figure in ("raw HTTP round trip", "a round of /start notices",
                   "platform time per move on top of the round trips, all-in",
                   "ms per match +", "CPU time of the platform process per move"):
        assert figure in out, out


def test_the_in_flight_bench_plays_bots_served_elsewhere(tmp_path) -> None:
    """``--delayed-bots`` and ``--instant-bots``: the in-flight runs play the bot servers named
    (here on loopback, as another machine's would be), signing with ``BOT_SECRET``, and count
    only the worker's CPU. A wrong secret is the check that they are the bots called: every
    call is then refused (401), a strike that is no timeout."""
    from bench.bots import IN_FLIGHT_ROUTES, start_bot
    from bots.signing import new_secret

    secret = new_secret()
    servers = [start_bot("refserver", secret, delay)
               for delay in (20.0, 0.0) for _ in IN_FLIGHT_ROUTES]
    bases = [url.removesuffix("/random") for _, url in servers]
    count = len(IN_FLIGHT_ROUTES)

    def bench(bot_secret: str, name: str) -> list[tuple[int, int]]:
        """The timeouts and strikes of each run."""
        env = {**os.environ, "BLUFF_VAR_DIR": str(tmp_path / name), "BOT_SECRET": bot_secret}
        for own in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
            env.pop(own, None)  # its own SQLite and embedded broker: it purges its queues
        done = subprocess.run(
            [sys.executable, "bench/bots.py", "--db", "sqlite", "--rounds", "1", "--matches",
             "2", "--worker-matches", "0", "--deployed-matches", "0", "--in-flight", "4",
             "--in-flight-matches", "4", "--bot-delay-ms", "20",
             "--delayed-bots", *bases[:count], "--instant-bots", *bases[count:]],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "CPU ms per match, the worker's (the bots elsewhere)" in done.stdout, done.stdout
        found = re.search(r"none is fair\): (\d+) and (\d+), (\d+) and (\d+), (\d+) and (\d+)",
                          done.stdout)
        assert found, done.stdout
        numbers = [int(n) for n in found.groups()]
        return list(zip(numbers[::2], numbers[1::2], strict=True))

    try:
        # Signed right, a bot is struck only for a timeout (a slow CI machine's, if any).
        assert all(strikes <= timeouts for timeouts, strikes in bench(secret, "signed"))
        assert all(strikes > timeouts for timeouts, strikes in bench(new_secret(), "refused"))
    finally:
        for process, _ in servers:
            process.kill()


def test_the_in_flight_bench_wants_four_bots_of_each_kind_their_delay_and_secret() -> None:
    env = {k: v for k, v in os.environ.items() if k != "BOT_SECRET"}
    done = subprocess.run(
        [sys.executable, "bench/bots.py", "--in-flight", "4", "--delayed-bots", "http://a:1",
         "--instant-bots", "http://b:1"], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60, check=False)
    assert done.returncode == 2 and "4 base URLs each" in done.stderr, done.stderr
    urls = [f"http://bots:{port}" for port in range(9001, 9005)]
    done = subprocess.run(
        [sys.executable, "bench/bots.py", "--in-flight", "4", "--delayed-bots", *urls,
         "--instant-bots", *urls], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60, check=False)
    assert done.returncode == 2 and "--bot-delay-ms how long" in done.stderr, done.stderr
    done = subprocess.run(
        [sys.executable, "bench/bots.py", "--in-flight", "4", "--bot-delay-ms", "50",
         "--delayed-bots", *urls, "--instant-bots", *urls], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "set BOT_SECRET" in done.stderr, done.stderr


def test_the_starter_bot_bench_runs_and_prints_its_figures() -> None:
    done = subprocess.run(
        [sys.executable, "bench/starter_bot.py", "--moves", "20", "--rounds", "5"], cwd=ROOT,
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "starter bot work per move:" in done.stdout, done.stdout
    assert "starter bot /move round trip:" in done.stdout, done.stdout


def test_the_schedules_bench_measures_the_schedule_tournaments_get() -> None:
    from bench.schedules import measure

    design = measure(15, 3, 7, seed=0)  # Kirkman's schoolgirls: everyone meets once
    assert (design["seat"], design["seat_bound"], design["pair"], design["pair_bound"]) == (
        1, 1, 0, 0)
    forced = measure(5, 4, 7, seed=0)  # sit-outs 1 and 2 force pair meetings 3 to 5
    assert (forced["pair"], forced["pair_bound"]) == (2, 1) and forced["wall_ms"] > 0


def test_the_local_bench_starts_the_workers_make_run_starts_and_compose_s_matches_pool() -> None:
    run = local.run_script
    embedded = local.stack_processes("embedded")
    assert embedded == {name: cmd for name, cmd in run.commands().items() if name != "web"}
    production = local.stack_processes("production")
    pool = " ".join(local.PRODUCTION_MATCHES_POOL)
    assert pool in (ROOT / "docker-compose.yml").read_text()
    assert " ".join(production["worker-matches"]).endswith(pool)
    assert production["worker-housekeeping"] == embedded["worker-housekeeping"]
    environ = local.stack_environment("embedded", Path("/tmp/x"), "postgres://h/db", "redis://h/3")
    assert environ["BOTS_ALLOW_PRIVATE_ADDRESSES"] == "1", "what make run sets"
    assert not {"DATABASE_URL", "CELERY_BROKER_URL"} & set(environ), "its own SQLite and folder"
    environ = local.stack_environment("production", Path("/tmp/x"), "postgres://h/db",
                                      "redis://h/3")
    assert (environ["CELERY_BROKER_URL"], environ["CELERY_RESULT_BACKEND"]) == (
        "redis://h/3", "redis://h/4")


@REAL_WORKERS
@pytest.mark.postgres
@pytest.mark.redis
def test_the_local_bench_runs_both_stacks_and_prints_the_ratio() -> None:
    import psycopg
    from django.conf import settings
    from django.db import connection

    data = connection.settings_dict
    server = f"postgres://{data['USER']}:{data['PASSWORD']}@{data['HOST']}:{data['PORT']}"
    name = f"{data['NAME']}_local_bench"
    try:
        done = subprocess.run(
            [sys.executable, "bench/local.py", "--participants", "2", "--meetings", "1",
             "--db", f"{server}/{name}", "--redis", settings.CELERY_BROKER_URL,
             "--timeout", "120"],
            cwd=ROOT, capture_output=True, text=True, timeout=400, check=False)
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    assert done.returncode == 0, done.stderr[-3000:]
    last = done.stdout.splitlines()[-1]
    assert re.fullmatch(r"embedded default \d+\.\d matches/s, PostgreSQL \+ Redis "
                        r"\d+\.\d matches/s: \d+\.\d\d x", last), done.stdout
