"""A short outage of the worker's own network never strikes a bot (bots/reachability.py,
docs/bot-protocol.md "Whose fault a failure is"), tried with a fault at the socket level on the
real path (the games task, the webhook seat kind, libcurl), not a mock of the caller:

- the worker reaches the bot through a :class:`Link`, a loopback forwarder that, cut, keeps
  every connection but passes nothing either way (a pulled cable: what was sent arrives once
  it is plugged back, if the caller still waits), and
- the platform's own service it checks (``BOTS_REACHABILITY_CHECK``) is a :class:`Service`,
  a listener that, cut, refuses connections.

A match played through a cut of both (the worker host cut off) ends exactly as the same match
uncut, with no strike and its set-aside calls logged as platform errors; a cut of the bot's
link alone (the platform fine) strikes the bot, after asking it once more; a cut longer than
``BOTS_OUTAGE_WAIT_SECONDS`` drops the batch unplayed and the match is asked again later.
The same with real hosts (network namespaces): tests/tournaments/test_hosts.py."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection

from bots.models import Bot, BotCall, BotSeat
from bots.signing import new_secret
from games import services
from games.log import entries
from games.models import Match, Seat
from games.services.multiplexed import MatchLoop
from tests.deterministic_bot import DeterministicBot
from tests.helpers.tasks import hold_tasks

pytestmark = pytest.mark.django_db(transaction=True)  # the match is advanced in a thread


class Link:
    """A TCP path to ``target`` through 127.0.0.1:``port``; :meth:`cut` stops it passing bytes
    (connections stay open, new ones are accepted and wait), :meth:`restore` lets it go on."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.passing = threading.Event()
        self.passing.set()
        #: Set once a byte has passed: the match is asking its bot.
        self.carried = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        self.passing.clear()

    def restore(self) -> None:
        self.passing.set()

    def close(self) -> None:
        self.closed = True
        self.passing.set()
        self.listener.close()

    def _accept(self) -> None:
        while not self.closed:
            try:
                inside, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._connect, args=(inside,), daemon=True).start()

    def _connect(self, inside: socket.socket) -> None:
        self.passing.wait()
        try:
            outside = socket.create_connection(self.target)
        except OSError:
            inside.close()
            return
        for source, sink in ((inside, outside), (outside, inside)):
            threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                self.passing.wait()
                sink.sendall(data)
                self.carried.set()
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


class Service:
    """One of the platform's own services as the reachability check sees it: a listener on a
    fixed port that, cut, refuses connections."""

    def __init__(self) -> None:
        self.port = 0
        self.listener: socket.socket | None = None
        self.restore()

    def restore(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def cut(self) -> None:
        assert self.listener is not None
        self.listener.shutdown(socket.SHUT_RDWR)  # stops listening now, also mid-accept()
        self.listener.close()
        self.listener = None

    @staticmethod
    def _accept(listener: socket.socket) -> None:
        while True:
            try:
                listener.accept()[0].close()
            except OSError:
                return


@pytest.fixture
def network(alice: Any, settings: Any) -> Iterator[tuple[Link, Service, int]]:
    """A deterministic bot behind a :class:`Link`, registered, and the platform's
    :class:`Service`; per-call timeout 300 ms."""
    settings.BOTS_MOVE_TIMEOUT_MS = 300
    bot = DeterministicBot(delay=0.01)
    threading.Thread(target=bot.serve_forever, daemon=True).start()
    link, service = Link(bot.server_address[:2]), Service()
    settings.BOTS_REACHABILITY_CHECK = [f"127.0.0.1:{service.port}"]
    bot_id = Bot.objects.create(owner=alice, name="det", url=f"http://127.0.0.1:{link.port}",
                                secret=new_secret(), games=["dice_cup"], handshake_ok=True).pk
    yield link, service, bot_id
    link.close()
    if service.listener is not None:
        service.cut()
    bot.shutdown()
    bot.server_close()


def new_match(alice: Any, bot_id: int) -> int:
    return services.match_create(game="dice_cup", created_by=alice, seed=5, seats=[
        {"kind": "webhook", "bot": bot_id}, {"kind": "reference", "bot": "random"}]).pk


def played(match_id: int) -> list[tuple]:
    return [(e.kind, e.seat, e.action) for e in entries(match_id)]


@pytest.fixture(params=["threaded", "multiplexed"])
def advance(request: Any) -> Iterator[Callable[[int], Any]]:
    """How a worker plays the match: on the thread that took its task, or on the process's
    one match loop among many (``BLUFF_MULTIPLEXED_WORKER``, games.services.multiplexed)."""
    if request.param == "threaded":
        yield lambda match_id: services.match_advance_automatic_seats(match_id=match_id)
        return
    loop = MatchLoop()
    yield lambda match_id: loop.play(match_id).result()
    loop.stop()


def advance_with(advance: Callable[[int], Any], match_id: int, link: Link,
                 cut: Callable[[], Any], restore: Callable[[], Any], *, after: float,
                 lasting: float) -> None:
    """Advance the match in a thread (as a worker would) and cut for ``lasting`` seconds once
    it has asked its bot through ``link`` for ``after`` seconds (on a loaded machine a worker
    may take longer than the cut to start)."""

    def work() -> None:
        try:
            advance(match_id)
        finally:
            connection.close()

    link.carried.clear()  # of an earlier match
    worker = threading.Thread(target=work)
    worker.start()
    assert link.carried.wait(timeout=60), "the match asked its bot"
    time.sleep(after)
    cut()
    time.sleep(lasting)
    restore()
    worker.join(timeout=120)
    assert not worker.is_alive()


def host_cut(link: Link, service: Service) -> Callable[[], None]:
    """The worker host cut off: neither the bot nor the platform's service answers."""
    return lambda: (link.cut(), service.cut())


def host_restored(link: Link, service: Service) -> Callable[[], None]:
    return lambda: (service.restore(), link.restore())


def no_strikes(match_id: int) -> None:
    assert not Seat.objects.filter(match_id=match_id, strikes__gt=0).exists()
    assert not BotSeat.objects.filter(match_id=match_id).exclude(strikes={}).exists()
    assert not BotCall.objects.filter(match_id=match_id, strike=True).exists()
    assert not any(e.kind in ("timeout", "default") for e in entries(match_id))


@pytest.mark.parametrize("seconds", [0.5, 2.0])
def test_a_blip_of_the_workers_own_network_strikes_nobody_and_changes_no_move(
        alice, network, monkeypatch, seconds, advance) -> None:
    link, service, bot_id = network
    hold_tasks(monkeypatch, "games.advance_automatic_seats")
    undisturbed = new_match(alice, bot_id)
    services.match_advance_automatic_seats(match_id=undisturbed)
    assert Match.objects.get(pk=undisturbed).status == "finished"

    disturbed = new_match(alice, bot_id)

    advance_with(advance, disturbed, link, host_cut(link, service), host_restored(link, service),
                 after=0.2, lasting=seconds)
    assert Match.objects.get(pk=disturbed).status == "finished"
    no_strikes(disturbed)
    assert played(disturbed) == played(undisturbed), "every move as if nothing had happened"
    set_aside = BotCall.objects.filter(match_id=disturbed, reason="platform_error")
    assert set_aside.exists(), "the calls the cut failed are logged as the platform's"
    assert "asked again" in set_aside.first().detail


def test_a_bot_that_stops_answering_while_the_platform_is_fine_is_struck_after_a_second_try(
        alice, network, monkeypatch, advance) -> None:
    link, _, bot_id = network
    hold_tasks(monkeypatch, "games.advance_automatic_seats")
    match_id = new_match(alice, bot_id)
    advance_with(advance, match_id, link, link.cut, link.restore, after=0.2, lasting=1.5)
    struck = BotCall.objects.filter(match_id=match_id, strike=True, reason="timeout")
    assert struck.exists(), "the bot's own silence is its fault"
    once_more = BotCall.objects.filter(match_id=match_id, strike=False, reason="timeout",
                                       detail__contains="asked once more")
    assert once_more.count() >= struck.count(), "each strike came after a second try"
    assert Seat.objects.get(match_id=match_id, number=0).strikes == struck.count()


def test_an_outage_longer_than_the_wait_drops_the_batch_and_the_match_is_asked_again(
        alice, network, monkeypatch, settings, advance) -> None:
    link, service, bot_id = network
    settings.BOTS_OUTAGE_WAIT_SECONDS = 0.5
    queued = hold_tasks(monkeypatch, "games.advance_automatic_seats")
    undisturbed = new_match(alice, bot_id)
    services.match_advance_automatic_seats(match_id=undisturbed)
    disturbed = new_match(alice, bot_id)
    queued.clear()

    advance_with(advance, disturbed, link, host_cut(link, service), host_restored(link, service),
                 after=0.2, lasting=2.0)
    assert Match.objects.get(pk=disturbed).status == "running", "the task gave up, unplayed"
    assert [args for _, *args in queued] == [[disturbed]], "and queued the match again"
    services.match_advance_automatic_seats(match_id=disturbed)
    no_strikes(disturbed)
    assert played(disturbed) == played(undisturbed)


# --------------------------------------------------------------------------------------------
# The platform's own resolver: a name it cannot look up now is not the bot's fault
# --------------------------------------------------------------------------------------------


def caller_for(url: str, *, outage_wait: float) -> tuple[Any, Any]:
    """A caller of one dice cup seat at ``url`` (no database), and the match's state."""
    from bots.caller import Endpoint, WebhookCaller
    from bots.net import BotClient
    from bots.protocol import MatchInfo
    from games.engine import get_game

    state = get_game("dice_cup").new_match(players=2, seed=1)
    info = MatchInfo(id=1, game="dice_cup", options=state.options, seats=["bot", "ref"],
                     timeout_ms=300, strike_limit=None)
    caller = WebhookCaller(info, {0: Endpoint(url, new_secret())}, BotClient(),
                           outage_wait=outage_wait)
    return caller, state


def lookup_failing(monkeypatch: Any, errno: int) -> list[str]:
    """Every lookup fails with ``errno`` (getaddrinfo's); the hosts asked, in order."""
    from bots import resolver

    asked: list[str] = []

    def fail(host: str, port: int) -> list[str]:
        asked.append(host)
        raise socket.gaierror(errno, "faked")

    monkeypatch.setattr(resolver, "resolve_host", fail)
    return asked


def test_a_resolver_that_does_not_answer_is_the_platforms_fault(monkeypatch) -> None:
    from games.seats import PlatformOutage

    asked = lookup_failing(monkeypatch, socket.EAI_AGAIN)
    caller, state = caller_for("http://bot.example.org", outage_wait=0.6)
    with pytest.raises(PlatformOutage):
        caller.ask_one(state, 0)
    assert len(asked) >= 2, "asked again while it waited"
    records = caller.take_records()
    assert records and all(not r.strike and r.reason == "platform_error" for r in records)


def test_a_name_that_does_not_exist_is_the_bots_fault_after_a_second_try(monkeypatch) -> None:
    asked = lookup_failing(monkeypatch, socket.EAI_NONAME)
    caller, state = caller_for("http://no-such-bot.example.org", outage_wait=0.6)
    answer = caller.ask_one(state, 0)
    assert answer.strike == "connection_error" and len(asked) == 2
    first, second = caller.take_records()
    assert not first.strike and "asked once more" in first.detail
    assert second.strike and "cannot resolve" in second.detail


def test_a_call_the_worker_read_too_late_is_asked_again_never_judged() -> None:
    """``worker_late`` (``bots.net.CallLoop``: the loop came back to a call after curl's own,
    longer, limit) is the platform's: set aside, logged as ``platform_error``, sent again at
    once, and the answer to the call sent again is the one that counts."""
    from bots import protocol
    from bots.caller import _MoveCalls
    from bots.net import Reply

    caller, state = caller_for("http://bot.example.org", outage_wait=5)
    moves = _MoveCalls(caller, state, {0: caller._prepare(state, 0, "move", caller._move_body)})
    assert moves.take_sendable() == [0]
    late = Reply(b"", 10.3, failure=protocol.Failure(protocol.WORKER_LATE, "came back late"))
    moves.judge({0: late})
    assert not moves.done and moves.take_sendable() == [0], "sent again at once"
    [record] = caller.take_records()
    assert (record.reason, record.strike) == ("platform_error", False)
    action = state.legal_actions(0)[0]
    moves.judge({0: Reply(protocol.encode({"action": action}), 0.01, 200)})
    assert moves.done and moves.answers[0].action == action
