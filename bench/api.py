"""Speed of the polling API against a real server process and a real PostgreSQL.

    python bench/api.py [--requests 3000] [--clients 4] [--workers 2] [--threads 4]
                        [--matches 6] [--cache-size 256] [--db postgres://postgres@127.0.0.1:5432/bluff_bench]

Creates (drops first) the bench database, migrates it, starts gunicorn (gthread workers) on a free
port of 127.0.0.1 with throttling raised and ``bench.settings`` (the bare endpoint mounted), then
sends a bounded number of requests from a few client threads, each with its own kept-alive httpx
client, and prints requests/s and p50/p99 latency of:

* **bare**: ``GET /api/bench/bare/``, a DRF view doing nothing (same token auth, throttling and
  JSON rendering as the API): the floor any endpoint of this stack pays;
* **poll**: ``GET /api/matches/{id}/seats/{seat}/`` answering 200 with the view and the legal
  actions (the seat is to act, so the legal actions are computed every time);
* **poll 304**: the same with ``If-None-Match``: the token, then one small raw-SQL row read
  (seat joined with its match: user, version, status, updated_at), no ORM query building, no
  state, no engine;
* **match**: whole dice-cup matches of a polling client against the heuristic reference bot
  over HTTP (poll, act, poll ...), per request and per match.

Targets: poll throughput at least 0.6x the bare endpoint, poll p99 under 25 ms.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYTHON = sys.executable
TARGET_RATIO = 0.6
TARGET_P99_MS = 25.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fresh_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def server_env(args: argparse.Namespace) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": args.db, "DEBUG": "0", "SECRET_KEY": "bench-only-secret-key",
        "ALLOWED_HOSTS": "127.0.0.1", "DJANGO_SETTINGS_MODULE": "bench.settings",
        "LOG_LEVEL": "WARNING",
        "BLUFF_THROTTLE_ANON": "10000000/min", "BLUFF_THROTTLE_USER": "10000000/min",
        "BLUFF_THROTTLE_PLAY": "10000000/min", "BLUFF_THROTTLE_SPECTATE": "10000000/min",
        "BLUFF_THROTTLE_SIGNUP": "10000000/min",
        "CACHE_URL": "locmem://",  # throttle counts, raised out of the way: no file I/O per call
        "BLUFF_STATE_CACHE_SIZE": str(args.cache_size),
    })
    return env


def start_server(args: argparse.Namespace, port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        [PYTHON, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
         "--worker-class", "gthread", "--workers", str(args.workers),
         "--threads", str(args.threads), "--keep-alive", "30", "--log-level", "warning"],
        cwd=ROOT, env=server_env(args))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code < 500:
                return server
        except httpx.HTTPError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not start")


def signup(api: str, username: str) -> str:
    response = httpx.post(f"{api}/auth/signup/",
                          json={"username": username, "password": "bench passphrase 42"})
    response.raise_for_status()
    return response.json()["token"]


def run(requests: int, clients: int, make: Callable[[], Callable[[httpx.Client], Any]],
        headers: dict[str, str]) -> tuple[float, list[float]]:
    """Send ``requests`` requests from ``clients`` threads; (requests/s, latencies in ms)."""
    per = requests // clients
    latencies: list[list[float]] = [[] for _ in range(clients)]
    barrier = threading.Barrier(clients + 1)

    def worker(i: int) -> None:
        with httpx.Client(headers=headers, timeout=30) as client:
            call = make()
            call(client)  # warm the connection
            barrier.wait()
            out = latencies[i]
            for _ in range(per):
                t = time.perf_counter()
                call(client)
                out.append((time.perf_counter() - t) * 1000)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    barrier.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    flat = [x for out in latencies for x in out]
    return len(flat) / elapsed, flat


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def expect(status: int) -> Callable[[httpx.Response], None]:
    def check(response: httpx.Response) -> None:
        if response.status_code != status:
            raise SystemExit(f"expected {status}, got {response.status_code}: {response.text}")
    return check


def play_matches(api: str, tokens: list[str], matches: int) -> tuple[float, list[float], int]:
    """Whole matches, one per client thread at a time: (matches/s, request latencies, requests)."""
    latencies: list[float] = []
    lock = threading.Lock()

    def play(token: str, count: int) -> None:
        mine: list[float] = []
        with httpx.Client(headers={"Authorization": f"Token {token}"}, timeout=30) as client:
            def timed(method: str, path: str, **kw: Any) -> httpx.Response:
                t = time.perf_counter()
                response = client.request(method, api + path, **kw)
                mine.append((time.perf_counter() - t) * 1000)
                return response

            for _ in range(count):
                created = timed("POST", "/matches/", json={
                    "game": "dice_cup", "seats": [{"kind": "player"},
                                                  {"kind": "reference", "bot": "heuristic"}]})
                match_id = created.json()["id"]
                etag = ""
                while True:
                    poll = timed("GET", f"/matches/{match_id}/seats/0/",
                                 headers={"If-None-Match": etag})
                    body = poll.json()
                    etag = poll.headers["ETag"]
                    if body["status"] == "finished":
                        break
                    legal = body["legal_actions"]
                    action = legal[len(legal) // 2]
                    answer = timed("POST", f"/matches/{match_id}/seats/0/actions/",
                                   json={"version": body["version"], "action": action})
                    if answer.status_code != 200:
                        raise SystemExit(f"act refused: {answer.text}")
        with lock:
            latencies.extend(mine)

    per = max(1, matches // len(tokens))
    threads = [threading.Thread(target=play, args=(token, per)) for token in tokens]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    return per * len(tokens) / elapsed, latencies, len(latencies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000, help="per measured endpoint")
    parser.add_argument("--clients", type=int, default=4, help="client threads")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
    parser.add_argument("--matches", type=int, default=8, help="whole matches over HTTP")
    parser.add_argument("--cache-size", type=int, default=256,
                        help="BLUFF_STATE_CACHE_SIZE of the server (0: no state cache)")
    parser.add_argument("--db", default="postgres://postgres@127.0.0.1:5432/bluff_bench")
    args = parser.parse_args()

    fresh_database(args.db)
    subprocess.run([PYTHON, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT,
                   env=server_env(args), check=True)
    port = free_port()
    server = start_server(args, port)
    try:
        api = f"http://127.0.0.1:{port}/api"
        tokens = [signup(api, f"bench{i}") for i in range(args.clients)]
        auth = {"Authorization": f"Token {tokens[0]}"}
        # A match where seat 0 is to act: every poll computes the view and the legal actions.
        created = httpx.post(f"{api}/matches/", headers=auth, json={
            "game": "dice_cup", "seed": 2,
            "seats": [{"kind": "player"}, {"kind": "reference", "bot": "heuristic"}]})
        match_id = created.json()["id"]
        poll_url = f"{api}/matches/{match_id}/seats/0/"
        first = httpx.get(poll_url, headers=auth)
        assert first.json()["your_turn"] and first.json()["legal_actions"]
        etag = first.headers["ETag"]
        ok, not_modified = expect(200), expect(304)

        def bare() -> Callable[[httpx.Client], Any]:
            return lambda c: ok(c.get(f"{api}/bench/bare/"))

        def poll() -> Callable[[httpx.Client], Any]:
            return lambda c: ok(c.get(poll_url))

        def poll_304() -> Callable[[httpx.Client], Any]:
            return lambda c: not_modified(c.get(poll_url, headers={"If-None-Match": etag}))

        rows = []
        for name, make in (("bare DRF", bare), ("poll 200", poll), ("poll 304", poll_304)):
            rate, lat = run(args.requests, args.clients, make, auth)
            rows.append((name, len(lat), rate, pct(lat, 50), pct(lat, 99)))
        match_rate, match_lat, match_requests = play_matches(api, tokens, args.matches)
        rows.append(("match (req)", match_requests,
                     match_requests / (args.matches / match_rate) if match_rate else 0,
                     pct(match_lat, 50), pct(match_lat, 99)))
    finally:
        server.terminate()
        server.wait(timeout=20)

    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs; gunicorn gthread "
          f"{args.workers}x{args.threads} on 127.0.0.1; PostgreSQL; {args.clients} client "
          f"threads (httpx keep-alive); state cache {args.cache_size}")
    print(f"{'endpoint':<12} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}")
    for name, count, rate, p50, p99 in rows:
        print(f"{name:<12} {count:>9} {rate:>8.0f} {p50:>8.2f} {p99:>8.2f}")
    bare_rate, poll_rate, poll_p99 = rows[0][2], rows[1][2], rows[1][4]
    print(f"matches: {args.matches} dice-cup matches vs the heuristic bot, {match_rate:.2f} "
          f"matches/s")
    for name, rate, p99 in (("poll", poll_rate, poll_p99), ("poll 304", rows[2][2], rows[2][4])):
        ratio = rate / bare_rate
        print(f"{name}/bare throughput {ratio:.2f} (target >= {TARGET_RATIO}): "
              f"{'ok' if ratio >= TARGET_RATIO else 'MISSED'}; {name} p99 {p99:.1f} ms "
              f"(target < {TARGET_P99_MS:.0f}): {'ok' if p99 < TARGET_P99_MS else 'MISSED'}")


if __name__ == "__main__":
    main()
