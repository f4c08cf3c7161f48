"""A multiplexed matches worker (BLUFF_MULTIPLEXED_WORKER: one thread of the process plays every
match it takes, games.services.multiplexed) SIGKILLed with 200 webhook matches in flight: after a
new worker starts, every match finishes exactly once, each as an undisturbed run of its seed,
with no strike, and each bot told /start and /end at most once per seat (exactly once unless the
killed worker had claimed it: docs/bot-protocol.md) (issue 49). Real Celery worker processes on
the configured broker and PostgreSQL, as tests/bots/test_worker_kills.py."""

from __future__ import annotations

import io
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from bots.models import Bot, BotCall, BotSeat
from bots.signing import new_secret
from games import services
from games.engine import game_ids
from games.log import entries
from games.models import Match, Seat
from tests.conftest import REAL_WORKERS
from tests.deterministic_bot import DeterministicBot, _Handler
from tests.helpers.tasks import hold_tasks
from tests.helpers.workers import Workers, wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.broker, pytest.mark.django_db(transaction=True),
              REAL_WORKERS]

MATCHES = 200
#: Matches in flight (held by the worker: their lease set) when it is killed.
IN_FLIGHT = 150
#: Dice cup for three bots, over once a player has 16 points: about 30 moves.
GAME, SEATS, OPTIONS = "dice_cup", 3, {"target_points": 16}
BOTS = 4
#: Each bot's answer to /move takes this long: a match waits for its bots, so many are in flight.
DELAY = 0.03
#: The workers' match lease (BLUFF_ADVANCE_LEASE_SECONDS): a killed worker's matches are
#: asked again by the stalled-match sweep once it runs out.
LEASE = 4
#: The worker's threads: how many matches its loop may hold at once.
THREADS = 256


class _Counting(_Handler):
    """The deterministic bot's answers, counting every POST by path and match id; each
    response in one segment (no Nagle wait for the client's delayed ACK)."""

    disable_nagle_algorithm = True
    wbufsize = 64 * 1024

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        path = self.path.split("?", 1)[0].rsplit("/", 1)[-1]
        with self.server.lock:
            self.server.seen[(path, json.loads(raw)["match"]["id"])] += 1
        stream, self.rfile = self.rfile, io.BytesIO(raw)  # the body, read once more
        try:
            super().do_POST()
        finally:
            self.rfile = stream  # the connection's next request


class CountingBot(DeterministicBot):
    """:class:`DeterministicBot` that counts its calls (``seen``: (path, match id) -> how
    many) and takes as many connections at once as a worker opens."""

    request_queue_size = 1024

    def __init__(self, delay: float) -> None:
        super().__init__(delay)
        self.RequestHandlerClass = _Counting
        self.lock = threading.Lock()
        self.seen: Counter[tuple[str, int]] = Counter()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the killed worker's connections reset: the point of the test, not an error


@pytest.fixture
def counting_bots(alice: Any) -> Iterator[Callable[[int], list[tuple[int, CountingBot]]]]:
    servers: list[CountingBot] = []

    def make(count: int) -> list[tuple[int, CountingBot]]:
        made = []
        for _ in range(count):
            server = CountingBot(DELAY)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            servers.append(server)
            bot = Bot.objects.create(owner=alice, name=f"det{len(servers)}", url=server.url,
                                     secret=new_secret(), games=list(game_ids()),
                                     handshake_ok=True, max_concurrency=256)
            made.append((bot.pk, server))
        return made

    yield make
    for server in servers:
        server.shutdown()
        server.server_close()


def create(alice: Any, bot_ids: list[int], seed: int) -> Match:
    return services.match_create(
        game=GAME, options=OPTIONS, created_by=alice, seed=seed, move_time_limit=1,
        strike_limit=1,  # one strike would forfeit a seat: any charge shows in the result
        seats=[{"kind": "webhook", "bot": bot_ids[(seed + n) % len(bot_ids)]}
               for n in range(SEATS)])


def played(match_id: int) -> list[tuple[str, int | None, Any]]:
    return [(e.kind, e.seat, e.action) for e in entries(match_id)]


def worker_connections() -> int:
    """Connections to the test database other than this process's."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                       "current_database() AND pid <> pg_backend_pid()")
        return cursor.fetchone()[0]


def test_a_multiplexed_worker_killed_with_200_matches_in_flight_loses_none(
        alice, counting_bots, tmp_path, monkeypatch, settings) -> None:
    started = time.monotonic()
    made = counting_bots(BOTS)
    bot_ids = [pk for pk, _ in made]
    assert settings.BLUFF_STALLED_SECONDS > 60  # resumed because the leases ran out
    workers = Workers(tmp_path, BLUFF_MULTIPLEXED_WORKER="1",
                      BLUFF_ADVANCE_LEASE_SECONDS=str(LEASE))

    def beat() -> None:  # what beat asks the housekeeping worker, here every tick
        services.match_expire_deadlines()
        services.matches_resume_stalled()

    seeds = range(1000, 1000 + MATCHES)
    # Queued before the worker starts: it takes them all at once.
    ids = [create(alice, bot_ids, seed).pk for seed in seeds]
    matches = Match.objects.filter(pk__in=ids)
    first = dict(matches.values_list("pk", "version"))
    created_time = time.monotonic() - started

    def in_flight() -> list[int]:
        """Matches the worker holds (their lease set) that stored a batch since they began."""
        return [pk for pk, version in matches.filter(
                status="running", lease_until__isnull=False).values_list("pk", "version")
                if version > first[pk]]

    try:
        workers.start("matches", concurrency=THREADS)
        # A few more than IN_FLIGHT: one may finish between this look and the kill.
        wait_until(lambda: len(in_flight()) >= IN_FLIGHT + 10, 60, what="matches in flight",
                   workers=workers)
        connections = worker_connections()
        workers.kill("matches")
        killed_at = timezone.now()
        kill_time = time.monotonic() - started
        held = in_flight()  # as the killed worker left them
        at_kill = dict(matches.values_list("pk", "version"))
        finished_before = matches.filter(status="finished").count()
        workers.start("matches", concurrency=THREADS)
        # Finished, and let go: a match the killed worker finished but had not told its bots
        # about keeps its lease until it runs out, then the sweep's task tells them.
        try:
            wait_until(lambda: matches.filter(status="finished", lease_until=None).count()
                       == MATCHES, 120, tick=beat, what="every match to finish and let go",
                       workers=workers)
        except AssertionError as exc:
            unfinished = list(matches.exclude(status="finished").values_list("pk", flat=True))
            raise AssertionError(f"matches {unfinished} did not finish\n{exc}") from None
        done_time = time.monotonic() - started
    finally:
        workers.stop()

    # The kill hit the matches in the middle of their play, and one thread played them all.
    assert len(held) >= IN_FLIGHT, f"only {len(held)} matches were in flight at the kill"
    # (the threaded worker holds a connection per match in flight; the loop one for all)
    assert connections <= 10, f"the worker held {connections} database connections"
    final = dict(matches.values_list("pk", "version"))
    assert all(final[pk] > at_kill[pk] for pk in held), "each one went on after the restart"
    if not settings.CELERY_BROKER_URL.startswith("amqp"):
        # On Redis the killed worker's messages wait out their visibility timeout: the stalled
        # sweep takes each match up once its lease runs out. RabbitMQ gives them back at once,
        # and a redelivered task may claim a match whose lease ran out before the sweep does.
        assert matches.filter(pk__in=held, resumed_at__gte=killed_at).count() == len(held)

    # Every match finished once, with a gapless log and no strike.
    for match in matches:
        assert match.status == "finished" and match.lease_until is None
        assert [e.n for e in entries(match.pk)] == list(range(match.version + 1))
    disturbed = {pk: played(pk) for pk in ids}
    assert not any(kind in ("timeout", "default") for log in disturbed.values()
                   for kind, _, _ in log)
    assert not Seat.objects.filter(match__in=ids, strikes__gt=0).exists()
    assert not Seat.objects.filter(match__in=ids, forfeited=True).exists()
    assert not BotSeat.objects.filter(match__in=ids).exclude(strikes={}).exists()
    assert not BotCall.objects.filter(match__in=ids, strike=True).exists()

    # The killed worker's batches were lost from its memory and asked again: the bots were
    # asked more moves than the matches hold.
    moves = sum(1 for log in disturbed.values() for kind, _, _ in log if kind == "action")
    asked = sum(server.seen[("move", pk)] for _, server in made for pk in ids)
    assert asked > moves, "no move was lost with the killed worker: it was not killed mid-batch"
    failed = [path.name for path in tmp_path.glob("worker-*.log")
              if "the match loop failed a round" in path.read_text()]
    assert not failed, f"the match loop failed in {failed}"

    # /start and /end claimed for every seat, and sent at most once each; exactly once where
    # the claim came after the kill (a claim of the killed worker may not have been sent).
    seats = BotSeat.objects.filter(match__in=ids)
    assert seats.count() == MATCHES * SEATS
    assert not seats.filter(started_at__isnull=True).exists()
    assert not seats.filter(ended_at__isnull=True).exists()
    servers = dict(made)
    sent = Counter()
    for seat in seats:
        seen = servers[seat.bot_id].seen
        for path, claimed_at in (("start", seat.started_at), ("end", seat.ended_at)):
            told = seen[(path, seat.match_id)]
            assert told <= 1, f"/{path} sent {told} times to seat {seat.number} of " \
                              f"{seat.match_id}"
            assert told == 1 or claimed_at < killed_at, (
                f"/{path} never sent to seat {seat.number} of {seat.match_id}, claimed after "
                "the kill")
            sent[path] += told

    # The same seeds played undisturbed, in this process (the threaded worker's way), move
    # for move.
    moves_not_applied = BotCall.objects.filter(match__in=ids, applied=False).count()
    for _, server in made:
        server.delay = 0.0
    hold_tasks(monkeypatch, "games.advance")
    reference_started = time.monotonic()
    for pk, seed in zip(ids, seeds, strict=True):
        twin = create(alice, bot_ids, seed).pk
        services.match_advance_automatic_seats(match_id=twin)
        undisturbed = Match.objects.get(pk=twin)
        assert undisturbed.status == "finished"
        assert disturbed[pk] == played(twin), f"match {pk} (seed {seed}) played otherwise"
        assert Match.objects.get(pk=pk).result == undisturbed.result
    print(f"{MATCHES} matches, {moves} moves ({asked - moves} asked again); created in "
          f"{created_time:.1f} s, killed at {kill_time:.1f} s with {len(held)} in "
          f"flight ({finished_before} finished, {connections} database connections), all "
          f"finished at {done_time:.1f} s; /move calls not applied {moves_not_applied}; /start "
          f"sent {sent['start']}, /end {sent['end']} of {MATCHES * SEATS}; reference run "
          f"{time.monotonic() - reference_started:.1f} s")
