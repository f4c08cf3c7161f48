"""Calling bot URLs safely: refusals before any connection, no DNS rebinding,
no redirects, capped bodies (the policy itself: test_addresses.py). DNS is faked
(``bots.resolver.resolve_host``), so no real lookup runs."""

from __future__ import annotations

import contextlib
import random
import socket
import threading
import time
from collections.abc import Iterator

import pycurl
import pytest

from bots import net, protocol, resolver
from bots.net import BotClient, Call
from bots.resolver import join_url


@pytest.fixture
def no_connect(monkeypatch):
    """Fail the test if curl even opens a socket: every curl handle made meanwhile has its
    socket opener (``OPENSOCKETFUNCTION``, the client's last check) replaced by one that only
    notes the address and refuses it, so only a refusal before curl connects passes."""
    attempts: list[object] = []

    def refuse(purpose, address):
        attempts.append(address.addr)
        return pycurl.SOCKET_BAD

    class NoSocketCurl(pycurl.Curl):
        def setopt(self, option, value):
            return super().setopt(option, refuse if option == pycurl.OPENSOCKETFUNCTION
                                  else value)

    monkeypatch.setattr(pycurl, "Curl", NoSocketCurl)
    yield
    assert attempts == [], "a connection was attempted to a refused address"


@pytest.mark.parametrize("addresses", [
    ["10.0.0.5"], ["127.0.0.1"], ["169.254.169.254"], ["::ffff:127.0.0.1"], ["fd00:ec2::254"],
    ["100.64.3.4"], ["93.184.216.34", "10.0.0.5"],  # one bad record among good ones is enough
])
def test_refused_before_connecting_with_the_allow_setting_off(monkeypatch, no_connect,
                                                              addresses) -> None:
    monkeypatch.setattr(resolver, "resolve_host", lambda host, port: addresses)
    with BotClient(allow_private=False) as client:
        reply = client.call(Call(url="http://bot.example.com", path="move", body=b"{}",
                                 secret="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", timeout=1))
    assert reply.failure.reason == protocol.BLOCKED_ADDRESS
    assert "address" in reply.failure.detail


def test_a_private_bot_url_plays_defaults_with_the_setting_off(monkeypatch, no_connect) -> None:
    from bots.offline import ReferenceSeat, WebhookSeat, play_webhook_match

    monkeypatch.setattr(resolver, "resolve_host", lambda host, port: ["169.254.169.254"])
    with BotClient(allow_private=False) as client:
        report = play_webhook_match(
            "dice_cup", [WebhookSeat("http://metadata.example", "whsec_AAAA"),
                         ReferenceSeat()], client=client, seed=1, strike_limit=None)
    stats = report.seats[0]
    assert report.state.is_over
    assert dict(stats.strikes) == {protocol.BLOCKED_ADDRESS: stats.moves}
    assert stats.defaults == stats.moves > 0


def test_allowed_hosts_connect_to_the_checked_address_keeping_the_host_header(
        monkeypatch, fake_bot, secret) -> None:
    """DNS is asked once per new connection; the socket goes to the address it answered, and
    the request still names the URL's host (and would use it for TLS SNI)."""
    bot = fake_bot("good")
    port = bot.server_address[1]
    lookups = []

    def resolve(host: str, port: int) -> list[str]:
        lookups.append(host)
        return ["127.0.0.1"]

    monkeypatch.setattr(resolver, "resolve_host", resolve)
    with BotClient(allow_private=True) as client:
        for _ in range(3):
            reply = client.call(Call(url=f"http://bot.example.com:{port}", path="", body=b"",
                                     secret=secret, timeout=2, method="GET"))
            assert reply.failure is None, reply.failure
    assert lookups == ["bot.example.com"]  # pooled keep-alive connection: resolved once
    assert bot.hosts == [f"bot.example.com:{port}"] * 3


def test_loopback_is_refused_for_real_with_the_setting_off(fake_bot, secret) -> None:
    bot = fake_bot("good")
    with BotClient(allow_private=False) as client:
        reply = client.call(Call(url=bot.url, path="", body=b"", secret=secret, timeout=1,
                                 method="GET"))
    assert reply.failure.reason == protocol.BLOCKED_ADDRESS
    assert bot.calls == {}


def test_proxy_environment_is_ignored(monkeypatch, fake_bot, secret) -> None:
    """An HTTP(S)_PROXY would let requests bypass the address check: it is never used."""
    monkeypatch.setenv("HTTP_PROXY", "http://10.0.0.1:3128")
    monkeypatch.setenv("ALL_PROXY", "http://10.0.0.1:3128")
    bot = fake_bot("good")
    with BotClient(allow_private=True) as client:
        reply = client.call(Call(url=bot.url, path="", body=b"", secret=secret, timeout=2,
                                 method="GET"))
    assert reply.failure is None and bot.calls["/"] == 1


def test_a_request_reaches_the_bot_in_one_piece(secret) -> None:
    """Head and body leave in one write (no "Expect: 100-continue" either), so the bot's first
    read has the whole request: no second segment, no delayed-ACK wait on loopback."""
    server = socket.create_server(("127.0.0.1", 0))
    first: list[bytes] = []

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            first.append(conn.recv(65536))  # returns with the first segment that arrives
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")

    thread = threading.Thread(target=serve)
    thread.start()
    body = b'{"seat": 0, "pad": "' + b"x" * 3000 + b'"}'
    with BotClient(allow_private=True) as client:
        reply = client.call(Call(url=f"http://127.0.0.1:{server.getsockname()[1]}",
                                 path="move", body=body, secret=secret, timeout=2))
    thread.join()
    server.close()
    assert reply.failure is None and reply.body == b"{}"
    assert first[0].endswith(b"\r\n\r\n" + body)
    assert b"expect:" not in first[0].lower()


def test_a_socket_to_a_refused_address_is_never_opened(secret) -> None:
    """The last line of defence: even an address curl got past the resolver check is checked
    again when curl opens the socket."""
    transfer = net.Transfer(Call(url="http://x", path="", body=b"", secret=secret, timeout=1),
                             easy=None, cap=10, allow_private=False)
    address = type("Address", (), {"family": socket.AF_INET, "socktype": socket.SOCK_STREAM,
                                   "protocol": 6, "addr": ("169.254.169.254", 80)})()
    assert transfer.open_socket(0, address) == pycurl.SOCKET_BAD
    assert "cloud metadata" in transfer.blocked
    transfer.allow_private = True
    assert transfer.open_socket(0, address) == pycurl.SOCKET_BAD, "metadata: refused always"
    address.addr = ("10.0.0.1", 80)
    opened = transfer.open_socket(0, address)
    assert isinstance(opened, socket.socket)
    opened.close()


@pytest.mark.parametrize("how", ["alone", "loop"])
def test_a_handles_next_call_starts_clean(fake_bot, secret, how) -> None:
    """A handle keeps its transfer (and curl's callbacks on it) from call to call: what one
    call read or how it failed is never the next one's."""
    bots = {name: fake_bot(name) for name in ("huge", "redirect", "good")}
    body = b'{"match": {"id": 1}}'
    calls = [Call(url=bots[name].url, path=path, body=body, secret=secret, timeout=5)
             for name, path in (("huge", "/move"), ("redirect", "/move"), ("good", "/start"),
                                ("huge", "/move"), ("good", "/start"))]
    replies: list[net.Reply] = []
    with BotClient(allow_private=True) as client:
        if how == "alone":
            replies = [client.call(call) for call in calls]
        else:
            loop = net.CallLoop(client)
            for call in calls:  # one at a time: every call on the same handle
                loop.start(call, replies.append)
                while len(loop):
                    loop.pump(0.5)
            assert sum(map(len, loop._pool.idle.values())) == 1
            loop.close()
    assert [r.failure and r.failure.reason for r in replies] == [
        protocol.OVERSIZED_BODY, protocol.HTTP_STATUS, None, protocol.OVERSIZED_BODY, None]
    assert replies[1].failure.detail.startswith("HTTP 302 redirect to ")
    assert replies[1].body == replies[3].body == b""
    assert replies[2].body == replies[4].body == b"{}"


def test_a_failure_of_curl_itself_is_a_platform_error(monkeypatch, fake_bot, secret) -> None:
    """libcurl raising something other than a transfer's error (here: a RuntimeError from the
    handles' own perform) is ours, never a strike; the handles go back and work again."""
    bot = fake_bot("good")
    broken = [False]
    made: list[pycurl.Curl] = []

    class BreakableCurl(pycurl.Curl):  # drives a call made alone
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

        def perform(self) -> None:
            if broken[0]:
                raise RuntimeError("curl is broken")
            super().perform()

    class BreakableMulti(pycurl.CurlMulti):  # drives several calls at once
        def perform(self) -> tuple[int, int]:
            if broken[0]:
                raise RuntimeError("curl is broken")
            return super().perform()

    # The client makes its handles when its thread first calls.
    monkeypatch.setattr(pycurl, "Curl", BreakableCurl)
    monkeypatch.setattr(pycurl, "CurlMulti", BreakableMulti)
    call = Call(url=bot.url, path="", body=b"", secret=secret, timeout=1, method="GET")
    with BotClient(allow_private=True) as client:
        assert client.call(call).failure is None
        broken[0] = True
        replies = client.call_many([call] * 2)
        assert [r.failure.reason for r in replies] == [protocol.PLATFORM_ERROR] * 2
        assert client.call(call).failure.reason == protocol.PLATFORM_ERROR
        broken[0] = False
        assert client.call(call).failure is None, "the handles went back and work again"
        assert all(r.failure is None for r in client.call_many([call] * 2))
    assert len(made) == 2, "the failed calls' handles were reused, no new ones made"
    assert bot.calls["/"] == 4, "the broken calls sent nothing"


@pytest.fixture
def self_signed_https_bot(tmp_path, secret):
    """An HTTPS bot on loopback whose certificate no public CA signed (made with openssl)."""
    import http.server
    import ssl
    import subprocess

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"https://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.requires("openssl")  # to make the certificate
def test_tls_certificates_are_verified(self_signed_https_bot, secret) -> None:
    """An https:// bot must show a certificate a public CA signed: a self-signed one is a
    connection error (so nobody can impersonate a bot's host to the platform)."""
    with BotClient(allow_private=True) as client:
        reply = client.call(Call(url=self_signed_https_bot, path="", body=b"", secret=secret,
                                 timeout=2, method="GET"))
    assert reply.failure.reason == protocol.CONNECTION_ERROR
    assert "certificate" in reply.failure.detail.lower()


def test_a_hosts_answer_is_reused_for_a_while_then_checked_again(monkeypatch, fake_bot,
                                                                 secret) -> None:
    """Within DNS_CACHE_SECONDS the checked answer is reused; after it the host is resolved
    and checked again, so a host that now points at a refused address is refused, even with a
    kept-alive connection to its old address."""
    bot = fake_bot("good")
    answers = {"bot.example.com": ["127.0.0.1"]}
    lookups: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        lookups.append(host)
        return answers[host]

    clock = [1000.0]
    monkeypatch.setattr(resolver, "resolve_host", resolve)
    call = Call(url=f"http://bot.example.com:{bot.server_address[1]}", path="", body=b"",
                secret=secret, timeout=2, method="GET")
    with BotClient(allow_private=True, dns_clock=lambda: clock[0]) as client:
        assert client.call(call).failure is None
        answers["bot.example.com"] = ["169.254.169.254"]
        clock[0] += resolver.DNS_CACHE_SECONDS - 1
        assert client.call(call).failure is None, "still the checked answer"
        clock[0] += 2
        reply = client.call(call)
    assert reply.failure.reason == protocol.BLOCKED_ADDRESS
    assert "cloud metadata" in reply.failure.detail
    assert lookups == ["bot.example.com"] * 2 and bot.calls["/"] == 2


def test_connections_are_kept_alive_per_origin(fake_bot, secret) -> None:
    """Sequential calls share one connection; a simultaneous step needs one per call in
    flight, and those are reused too, by calls alone and at once alike (one cache)."""
    bot = fake_bot("good")
    call = Call(url=bot.url, path="", body=b"", secret=secret, timeout=2, method="GET")
    with BotClient(allow_private=True) as client:
        for _ in range(5):
            assert client.call(call).failure is None
        assert bot.connections == 1
        for _ in range(3):
            assert all(r.failure is None for r in client.call_many([call] * 3))
            assert client.call(call).failure is None
    assert bot.connections == 3 and bot.calls["/"] == 17


@pytest.mark.parametrize("base, path, joined", [
    ("http://h:8001", "move", "http://h:8001/move"),
    ("http://h:8001/", "", "http://h:8001/"),
    ("http://h:8001/?team=blue", "move", "http://h:8001/move?team=blue"),
    ("http://h:8001?team=blue", "", "http://h:8001/?team=blue"),
    ("http://h/api?x=1", "move", "http://h/api/move?x=1"),
    ("http://h/api/?x=1&y=2", "start", "http://h/api/start?x=1&y=2"),
])
def test_join_url_keeps_the_query_string_at_the_end(base: str, path: str, joined: str) -> None:
    assert join_url(base, path) == joined


def test_a_handle_reused_for_another_bot_or_time_limit_takes_the_new_ones(fake_bot,
                                                                           secret) -> None:
    """A thread's handle keeps its URL, addresses and time limit from call to call and sets
    them only when they change: a call after one to another bot, or with another time limit,
    goes where it says, within its own limit."""
    from games.engine import get_game

    fast, slow = fake_bot("good"), fake_bot("slow")
    slow.sleep = 0.5
    state = get_game("dice_cup").new_match(players=2, seed=1)
    info = protocol.MatchInfo(id=1, game="dice_cup", options=state.options,
                              seats=["a", "b"], timeout_ms=1000)
    body = protocol.encode(protocol.move_body(info, state, state.to_act()[0]))

    def move(bot, timeout: float) -> Call:
        return Call(url=bot.url, path="move", body=body, secret=secret, timeout=timeout)

    def counts() -> tuple[int, int]:
        return fast.calls["/move"], slow.calls["/move"]

    with BotClient(allow_private=True) as client:
        assert client.call(move(fast, 2)).failure is None and counts() == (1, 0)
        assert client.call(move(slow, 2)).failure is None, "the other bot, slow but in time"
        assert counts() == (1, 1)
        cut = client.call(move(slow, 0.1))
        assert cut.failure.reason == protocol.TIMEOUT
        assert cut.elapsed < 0.45, "curl itself gave up at the short limit, before the answer"
        started = time.monotonic()
        assert client.call(move(slow, 2)).failure is None, "the longer limit again"
        assert time.monotonic() - started >= 0.5 and counts() == (1, 3)
        assert client.call(move(fast, 2)).failure is None and counts() == (2, 3)


class _HoldingBot:
    """A bot server holding each request ``hold`` seconds, counting how many it holds at once."""

    def __init__(self, hold: float) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        counts = self.counts = {"now": 0, "most": 0}
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["content-length"]))
                with lock:
                    counts["now"] += 1
                    counts["most"] = max(counts["most"], counts["now"])
                time.sleep(hold)
                with lock:
                    counts["now"] -= 1
                self.send_response(200)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

        # A backlog for hundreds of connections at once (the default 5 drops most of them).
        server = type("Server", (ThreadingHTTPServer,), {"request_queue_size": 1024,
                                                         "daemon_threads": True})
        self.server = server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("how", ["threads", "loop"])
def test_no_bot_gets_more_calls_at_once_than_its_limit(secret, how) -> None:
    bot = _HoldingBot(hold=0.05)
    client = BotClient(allow_private=True)
    call = Call(url=bot.url, path="/move", body=b"{}", secret=secret, timeout=5.0, limit=3)
    replies: list[net.Reply] = []
    try:
        if how == "threads":  # the threaded worker: each thread calls alone or a step at once
            def work(step: int) -> None:
                replies.extend(client.call_many([call] * step))

            threads = [threading.Thread(target=work, args=(1 + i % 2,)) for i in range(12)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=30)
        else:  # the multiplexed worker: every call in flight on one thread's loop
            loop = net.CallLoop(client)
            for _ in range(18):
                loop.start(call, replies.append)
            assert loop.sending(bot.url) == 3
            while len(loop):
                loop.pump(0.5)
                assert loop.sending(bot.url) <= 3
    finally:
        bot.close()
        client.close()
    assert len(replies) == 18 and all(r.failure is None for r in replies)
    assert bot.counts["most"] == 3, f"the bot held {bot.counts['most']} calls at once (limit 3)"


def test_the_limit_holds_with_500_calls_in_flight(secret) -> None:
    """Issue 49: one loop with 600 calls started at once, as 600 matches each waiting for a
    seat: 500 to two bots of limit 256 all go on the wire together, while a bot of limit 8 is
    never sent more than 8 at once (counted at the bot) and its other 92 calls wait their
    turn."""
    limited, busy = _HoldingBot(hold=0.2), [_HoldingBot(hold=1.0) for _ in range(2)]
    client = BotClient(allow_private=True)
    loop = net.CallLoop(client)
    replies: list[net.Reply] = []

    def call(url: str, limit: int) -> Call:
        return Call(url=url, path="/move", body=b"{}", secret=secret, timeout=20.0, limit=limit)

    try:
        plan = [(limited.url, 8)] * 100 + [(bot.url, 256) for bot in busy for _ in range(250)]
        random.Random(49).shuffle(plan)
        for url, limit in plan:
            loop.start(call(url, limit), replies.append)
        on_the_wire = sum(loop.sending(bot.url) for bot in (limited, *busy))
        while len(loop):
            loop.pump(0.5)
            assert loop.sending(limited.url) <= 8
    finally:
        for bot in (limited, *busy):
            bot.close()
        client.close()
    assert on_the_wire == 508, f"{on_the_wire} calls went on the wire at once (500 + 8)"
    assert len(replies) == 600 and all(r.failure is None for r in replies)
    assert limited.counts["most"] == 8, f"the bot held {limited.counts['most']} at once (limit 8)"


@contextlib.contextmanager
def _loop_calling(secret: str, *, hold: float) -> Iterator[tuple[net.CallLoop, Call]]:
    """A call loop, and a /move call with a 0.2 s limit to a bot holding it ``hold``
    seconds."""
    bot = _HoldingBot(hold=hold)
    client = BotClient(allow_private=True)
    loop = net.CallLoop(client)
    try:
        yield loop, Call(url=bot.url, path="/move", body=b"{}", secret=secret, timeout=0.2)
    finally:
        loop.close()
        bot.close()
        client.close()


def _pump_until_back(loop: net.CallLoop, replies: list, *, wait: float = 0.01,
                     away: float = 0.0) -> None:
    """Pump ``loop`` until its calls are back, spending ``away`` seconds elsewhere (a busy
    worker playing other matches) between looks."""
    deadline = time.monotonic() + 30
    while len(loop) and time.monotonic() < deadline:
        loop.pump(wait)
        time.sleep(away)


@pytest.mark.parametrize("kept_alive", [False, True])
def test_a_busy_loop_never_charges_a_bot_for_the_time_it_was_away(secret, kept_alive) -> None:
    """The loop that reads the sockets also plays hundreds of matches, and may look at them
    late: an instant bot whose answer (or whose new connection) waited 0.6 s for the loop to
    come back is in time against a 0.2 s limit, its latency logged under the limit."""
    replies: list[net.Reply] = []
    with _loop_calling(secret, hold=0.0) as (loop, call):
        if kept_alive:  # a connection to reuse, as in a match's later moves
            loop.start(call, replies.append)
            _pump_until_back(loop, replies)
            replies.clear()
        loop.start(call, replies.append)
        loop.pump(0)  # sent (or connecting)
        time.sleep(0.6)  # the loop plays other matches meanwhile
        _pump_until_back(loop, replies, away=0.3)
    assert [r.failure for r in replies] == [None]
    assert replies[0].elapsed <= 0.2


def test_a_silent_bot_still_times_out_on_a_busy_loop(secret) -> None:
    """What the loop is not charged for it still times: a bot that holds its answer 3 s is a
    timeout against a 0.2 s limit, whether the loop looks often or comes back late each time
    (later then, by the time it was away)."""
    bot = _HoldingBot(hold=3.0)
    client = BotClient(allow_private=True)
    call = Call(url=bot.url, path="/move", body=b"{}", secret=secret, timeout=0.2)
    took = {}
    try:
        for away in (0.0, 0.2):
            loop = net.CallLoop(client)
            replies: list[net.Reply] = []
            started = time.monotonic()
            loop.start(call, replies.append)
            _pump_until_back(loop, replies, away=away)
            took[away] = time.monotonic() - started
            loop.close()
            assert [r.failure.reason for r in replies] == [protocol.TIMEOUT]
            assert replies[0].failure.detail == "no answer within 200 ms"
    finally:
        bot.close()
        client.close()
    assert took[0.0] < 1.0, "a loop that looks often ends the call at the limit"
    assert 0.6 < took[0.2] < 2.9, "charged 0.05 s of each 0.2 s away, and not the bot's 3 s"


def test_a_call_the_loop_left_past_curls_limit_is_ours(monkeypatch, secret) -> None:
    """curl's own limit (the call's plus ``LATE_GRACE_SECONDS``) stops a call the loop left
    that long: nobody can tell when its answer came, so it is ``worker_late``, never the
    bot's timeout."""
    monkeypatch.setattr(net, "LATE_GRACE_SECONDS", 0.1)
    replies: list[net.Reply] = []
    with _loop_calling(secret, hold=0.4) as (loop, call):
        loop.start(call, replies.append)
        loop.pump(0)
        _pump_until_back(loop, replies, away=1.0)
    assert [r.failure.reason for r in replies] == [protocol.WORKER_LATE]


def _hold_the_interpreter(seconds: float) -> None:
    """Hold the interpreter's lock (the GIL) about ``seconds`` in one C call, as a thread of a
    busy threaded worker may keep the others from it: ``sum`` over a range checks no switch."""
    started = time.perf_counter()
    sum(range(100_000))
    per_step = (time.perf_counter() - started) / 100_000
    sum(range(int(seconds / per_step)))


def _starved_call(call: Call, calls: int) -> list[net.Reply]:
    """``calls`` of ``call`` at once from a worker thread (``call`` alone, ``call_many`` for
    several), the thread kept from the interpreter 1.5 s while the answers come."""
    client = BotClient(allow_private=True)
    replies: list[net.Reply] = []
    try:
        client.call_many([call] * calls)  # connections kept alive, as in a match's later moves
        thread = threading.Thread(target=lambda: replies.extend(client.call_many([call] * calls)))
        thread.start()
        time.sleep(0.1)  # sent: the bot answers at 0.3 s
        _hold_the_interpreter(1.5)
        thread.join(timeout=30)
    finally:
        client.close()
    return replies


@pytest.mark.parametrize("calls", [1, 2])
def test_a_threaded_call_answered_in_time_while_its_thread_waited_is_ours(secret, calls) -> None:
    """The threaded worker: curl reads the answer without the interpreter's lock, but hands it
    to Python with it. A bot whose whole answer came at 0.3 s (0.6 s limit) while the thread was
    kept 1.5 s from the lock by the process's others is not timed out: the call is
    ``worker_late``, ours, and asked again (``bots.caller``)."""
    from tests.helpers.timed_bot import timed_bot

    with timed_bot(head=0.3) as url:
        call = Call(url=url, path="/move", body=b"{}", secret=secret, timeout=0.6)
        replies = _starved_call(call, calls)
    assert [r.failure.reason for r in replies] == [protocol.WORKER_LATE] * calls


@pytest.mark.parametrize(("head", "body"), [(1.0, 0.0), (0.0, 1.0)])
def test_a_threaded_call_answered_late_is_the_bots_timeout_however_its_thread_waited(
        secret, head, body) -> None:
    """What came late is still the bot's: an answer at 1 s, or a head at once and its body at
    1 s (0.6 s limit), is a ``timeout``, the thread kept from the lock meanwhile or not."""
    from tests.helpers.timed_bot import timed_bot

    with timed_bot(head=head, body=body) as url:
        call = Call(url=url, path="/move", body=b"{}", secret=secret, timeout=0.6)
        with BotClient(allow_private=True) as client:
            assert client.call(call).failure.reason == protocol.TIMEOUT
        assert [r.failure.reason for r in _starved_call(call, 1)] == [protocol.TIMEOUT]
