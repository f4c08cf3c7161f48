"""Calling developers' bot URLs safely and fast: an SSRF-guarded client on libcurl (pycurl).

A bot URL is attacker-controlled, and the platform runs inside a network with databases, brokers
and a cloud metadata endpoint. So every call:

* resolves the host itself and refuses it if *any* of its addresses is loopback, private,
  link-local, carrier-grade NAT, multicast, reserved, unspecified or a cloud metadata address
  (IPv4 and IPv6, looking inside IPv4-mapped, 6to4, NAT64 and Teredo IPv6 addresses); the
  checked answer is reused for ``DNS_CACHE_SECONDS`` (resolving and checking: ``bots.resolver``;
  the policy: ``bots.addresses``);
* connects only to an address it checked: curl is handed the checked addresses (``RESOLVE``) and
  does no DNS of its own, and every socket curl opens is checked again just before it connects,
  so a second DNS answer can never swap in another address (no DNS rebinding), while the Host
  header and TLS SNI keep the URL's name;
* follows no redirects, uses no proxy (whatever the environment says), asks for no compression,
  stops reading past a size cap, and bounds connect and total time.

``allow_private`` (the ``BOTS_ALLOW_PRIVATE_ADDRESSES`` setting, on for local runs and tests)
lets loopback, private and carrier-grade NAT addresses through; link-local, metadata,
multicast, reserved and unspecified addresses are refused always.

Why libcurl and not httpx: the platform's time per bot move is mostly the HTTP client's own.
httpx's transport (httpcore + h11, pure Python) cost several times libcurl's CPU per call, and
more than the standard library's ``http.client`` (docs/performance.md); and libcurl reads a
blocking call's answer in C without the interpreter's lock, timing it on its own clock, so a
thread kept from the lock by its process's others is never taken for a slow bot.

Connections are kept alive and reused per origin, per thread (one connection cache each, a
``CurlShare``); :meth:`BotClient.call_many` calls several bots at once for simultaneous steps
(in helper threads), one alone by libcurl's own loop; :class:`CallLoop` keeps hundreds in
flight from one thread (the multiplexed worker).
"""

from __future__ import annotations

import contextlib
import heapq
import ipaddress
import itertools
import logging
import os
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final, Self

import certifi
import pycurl

from .addresses import BadBotURL, BlockedAddress, check_address
from .failures import status_detail, transport_detail
from .protocol import (
    BLOCKED_ADDRESS,
    CONNECTION_ERROR,
    HTTP_STATUS,
    OVERSIZED_BODY,
    PLATFORM_ERROR,
    RESOLVER_UNAVAILABLE,
    TIMEOUT,
    WORKER_LATE,
    Failure,
)
from .resolver import DnsCache, ResolverUnavailable, call_target, resolve_entry
from .signing import signed_header_lines

DEFAULT_MAX_RESPONSE_BYTES: Final = 64 * 1024
DEFAULT_CONNECT_TIMEOUT: Final = 2.0
USER_AGENT: Final = "BluffLeague-Bots/1"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Call:
    """One signed request to a bot: ``path`` is appended to the bot's base URL; signed with
    ``secret`` and, during a rotation's overlap, also with ``previous_secret``."""

    url: str
    path: str
    body: bytes
    secret: str
    timeout: float
    method: str = "POST"
    previous_secret: str = ""
    #: The most calls the bot at ``url`` is sent at once from this process (0: no limit).
    limit: int = 0


@dataclass(frozen=True)
class Reply:
    """What came back: a 200 ``body``, or a ``failure``; ``elapsed`` in seconds either way."""

    body: bytes
    elapsed: float
    status: int | None = None
    failure: Failure | None = None


#: How much of an answer's header lines a call keeps (a refusal's hint reads them).
HEADER_BYTES_KEPT: Final = 8192


class Transfer:
    """One call in flight: its curl handle, the body read so far (up to ``cap`` bytes), and
    the socket opener that refuses a blocked address however curl resolved it. A handle keeps
    its transfer, made again for each of its calls (:meth:`again`), so curl's callbacks are
    set once per handle: setting a Python callback costs pycurl more than a call's own use of
    it."""

    __slots__ = ("allow_private", "blocked", "call", "cap", "chunks", "done_at", "easy", "errno",
                 "error", "header_bytes", "headers", "oversized", "size")

    def __init__(self, call: Call, easy: pycurl.Curl, cap: int, allow_private: bool) -> None:
        self.easy, self.cap, self.allow_private = easy, cap, allow_private
        self.again(call)

    def again(self, call: Call) -> None:
        """Start over for ``call``: nothing read, nothing failed."""
        self.call = call
        self.chunks: list[bytes] = []
        self.headers: list[bytes] = []
        self.header_bytes = 0
        self.size = 0
        self.oversized = False
        self.blocked = ""
        self.done_at = 0.0
        self.errno = 0
        self.error = ""

    def open_socket(self, purpose: int, address: Any) -> Any:
        """curl's socket opener: the last check of the address it is about to connect to."""
        try:
            check_address(ipaddress.ip_address(address.addr[0].split("%", 1)[0]),
                          allow_private=self.allow_private)
        except (BlockedAddress, ValueError) as exc:
            self.blocked = str(exc)
            return pycurl.SOCKET_BAD
        return socket.socket(address.family, address.socktype, address.protocol)

    def header(self, line: bytes) -> None:
        """curl's header sink: the answer's header lines, up to ``HEADER_BYTES_KEPT`` in all
        (a refusal's hint reads them: ``failures.status_detail``)."""
        self.header_bytes += len(line)
        if self.header_bytes <= HEADER_BYTES_KEPT:
            self.headers.append(line)

    def write(self, data: bytes) -> int | None:
        """curl's body sink; answering 0 (not ``len(data)``) makes curl stop reading."""
        self.size += len(data)
        if self.size > self.cap:
            self.oversized = True
            return 0
        self.chunks.append(data)
        return None


#: An easy handle's URL, RESOLVE entry and time limits (total, connect) as last set.
_Options = tuple[str, str | None, int, int]


class _Pool:
    """Idle easy handles to reuse, and each one's URL, RESOLVE entry and time limit as last set
    (``BotClient._begin``); ``share``: the connection cache they share, None for the multi
    handle's own (a :class:`CallLoop`'s). The idle handles are kept by those options, so a call
    gets one already set up for where it goes when there is one: setting them again costs curl
    a URL parse and a RESOLVE entry loaded anew on top of the setopt calls."""

    def __init__(self, share: pycurl.CurlShare | None = None) -> None:
        self.share = share
        #: Idle handles by their options (None: unknown), each a stack; never an empty one.
        self.idle: dict[_Options | None, list[pycurl.Curl]] = {}
        self.options: dict[pycurl.Curl, _Options] = {}

    def take(self, options: _Options) -> pycurl.Curl | None:
        """An idle handle set up with ``options`` if there is one, else any idle handle."""
        idle = self.idle
        if not idle:
            return None
        key = options if options in idle else next(iter(idle))
        handles = idle[key]
        easy = handles.pop()
        if not handles:
            del idle[key]
        return easy

    def put(self, easy: pycurl.Curl) -> None:
        """``easy`` is idle again."""
        self.idle.setdefault(self.options.get(easy), []).append(easy)


class _Handles(threading.local):
    """Per thread (curl handles are not thread-safe): one share handle whose connection cache
    every easy handle of the thread uses (a bot's calls keep their connections alive), and the
    idle easy handles to reuse. ``pid``: a forked child (a worker process) must not share its
    parent's connections."""

    share: pycurl.CurlShare | None = None
    idle: list[pycurl.Curl]
    #: Each easy handle's URL, RESOLVE entry and time limit as last set (``_begin``).
    options: dict[pycurl.Curl, _Options]
    pid: int = 0


#: Threads :meth:`BotClient.call_many` may make its calls in besides the caller's: a threaded
#: worker's threads at a simultaneous step of five seats each need four.
CALL_HELPER_THREADS: Final = 128
#: Connections kept alive per thread (curl closes the least recently used beyond it).
DEFAULT_MAX_CONNECTIONS: Final = 100
#: A kept-alive connection idle longer than this is not reused.
KEEPALIVE_SECONDS: Final = 30


class BotClient:
    """A guarded HTTP client for bot calls on libcurl. Thread-safe: each thread gets its own
    curl handles and connection cache; share one client per worker process.

    Every call returns a :class:`Reply` and never raises for anything the bot or network does.

    ``dns_clock`` times how long a host's checked addresses are reused
    (``bots.resolver.DNS_CACHE_SECONDS``): seconds that never go back (:func:`time.monotonic`);
    ``wall_clock``, the time calls are signed with (the platform's, ``lib.clock``, pooled).
    """

    def __init__(self, *, allow_private: bool = False,
                 max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
                 connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
                 max_connections: int = DEFAULT_MAX_CONNECTIONS,
                 dns_clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self.allow_private = allow_private
        self.max_response_bytes = max_response_bytes
        self.connect_timeout = connect_timeout
        self.max_connections = max_connections
        self.dns_clock = dns_clock
        self.wall_clock = wall_clock
        self._handles = _Handles()
        #: Every thread's (share, idle easy handles), for :meth:`close`.
        self._owned: list[tuple[pycurl.CurlShare, list[pycurl.Curl]]] = []
        #: :meth:`call_many`'s threads, and the process they were made in.
        self._helper_threads: ThreadPoolExecutor | None = None
        self._helpers_pid = 0
        self._dns: DnsCache = {}
        self._lock = threading.Lock()
        #: Blocking calls on the wire per bot URL, across this process's threads (Call.limit).
        self._sending: dict[str, int] = {}
        self._sending_changed = threading.Condition()

    def close(self) -> None:
        """Close every thread's connections (the client must not be used afterwards)."""
        with self._lock:
            owned, self._owned = self._owned, []
            helpers, self._helper_threads = self._helper_threads, None
        if helpers is not None and self._helpers_pid == os.getpid():
            helpers.shutdown()
        for share, idle in owned:
            for easy in idle:
                easy.close()
            share.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(self, call: Call) -> Reply:
        """Send one signed request; a non-200, oversize, slow or failed call is a Failure, and
        so is an error of ours (``platform_error``, logged), so a caller never sees it raise."""
        with self._limited([call]):
            return self._call_alone(call)

    def call_many(self, calls: Sequence[Call]) -> list[Reply]:
        """All ``calls`` at once (a simultaneous step); replies in the same order. Each is made
        as :meth:`call` makes one, by libcurl's own loop: the first in this thread, the others
        in the client's helper threads. curl then reads every answer without the interpreter's
        lock, on its own clock (:func:`_all_there_in_time`), where a multi handle driven from
        Python reads an answer only once its thread gets the lock back."""
        if len(calls) == 1:
            return [self.call(calls[0])]
        with self._limited(calls):
            helpers = self._helpers()
            others = [helpers.submit(self._call_alone, call) for call in calls[1:]]
            return [self._call_alone(calls[0]), *(other.result() for other in others)]

    def _call_alone(self, call: Call) -> Reply:
        start = time.perf_counter()
        transfer = self._begin_checked(call, start)
        if isinstance(transfer, Reply):
            return transfer
        try:
            self._perform(transfer)
        except Exception as exc:  # curl itself failed: ours, never a strike
            log.exception("driving bot calls failed")
            return self._failed(start, PLATFORM_ERROR, f"{type(exc).__name__}: {exc}")
        finally:
            self._handles.idle.append(transfer.easy)
        return self._reply(transfer, start)

    def _helpers(self) -> ThreadPoolExecutor:
        """The threads :meth:`call_many` makes its other calls in (made on first use, and again
        in a forked child: a parent's threads are not there)."""
        with self._lock:
            if self._helper_threads is None or self._helpers_pid != os.getpid():
                self._helper_threads = ThreadPoolExecutor(CALL_HELPER_THREADS,
                                                          thread_name_prefix="bot-calls")
                self._helpers_pid = os.getpid()
            return self._helper_threads

    # ---- helpers -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def _limited(self, calls: Sequence[Call]) -> Iterator[None]:
        """Hold ``calls`` until each bot has room for them under its ``Call.limit`` (all of
        one step's at once, never some: two threads each holding part of what they need would
        wait for each other forever), counted across this process's threads; a step that
        needs more than the limit at once goes when the bot has nothing else on the wire."""
        wanted: dict[str, int] = {}
        limits: dict[str, int] = {}
        for call in calls:
            if call.limit:
                wanted[call.url] = wanted.get(call.url, 0) + 1
                limits[call.url] = call.limit
        if not wanted:
            yield
            return
        sending = self._sending

        def room() -> bool:
            return all(not sending.get(url, 0) or sending.get(url, 0) + n <= limits[url]
                       for url, n in wanted.items())

        with self._sending_changed:
            self._sending_changed.wait_for(room)
            for url, n in wanted.items():
                sending[url] = sending.get(url, 0) + n
        try:
            yield
        finally:
            with self._sending_changed:
                for url, n in wanted.items():
                    sending[url] -= n
                    if not sending[url]:
                        del sending[url]
                self._sending_changed.notify_all()

    def _begin_checked(self, call: Call, start: float, pool: _Pool | None = None,
                       grace: float = 0.0) -> Transfer | Reply:
        """:meth:`_begin`, or the failure reply of a call that cannot be made."""
        try:
            return self._begin(call, pool, grace)
        except BlockedAddress as exc:
            return self._failed(start, BLOCKED_ADDRESS, str(exc))
        except BadBotURL as exc:
            return self._failed(start, CONNECTION_ERROR, str(exc))
        except ResolverUnavailable as exc:
            return self._failed(start, RESOLVER_UNAVAILABLE, str(exc))
        except Exception as exc:  # ours (e.g. a corrupt stored secret)
            log.exception("bot call to %s failed on our side", call.url)
            return self._failed(start, PLATFORM_ERROR, f"{type(exc).__name__}: {exc}")

    @staticmethod
    def _failed(start: float, reason: str, detail: str) -> Reply:
        return Reply(b"", time.perf_counter() - start, failure=Failure(reason, detail))

    def _easy(self, pool: _Pool | None, options: _Options) -> pycurl.Curl:
        """An idle easy handle of ``pool`` (default: this thread's), with the options every
        call shares (and of ``pool``, one set up with ``options`` if there is one)."""
        if pool is not None:
            return pool.take(options) or self._new_easy(pool.share)
        handles = self._handles
        if handles.share is None or handles.pid != os.getpid():
            handles.share = pycurl.CurlShare()
            handles.share.setopt(pycurl.SH_SHARE, pycurl.LOCK_DATA_CONNECT)
            handles.idle = []
            handles.options = {}
            handles.pid = os.getpid()
            with self._lock:
                self._owned.append((handles.share, handles.idle))
        if handles.idle:
            return handles.idle.pop()
        return self._new_easy(handles.share)

    def _new_easy(self, share: pycurl.CurlShare | None) -> pycurl.Curl:
        easy = pycurl.Curl()
        if share is not None:
            easy.setopt(pycurl.SHARE, share)
        easy.setopt(pycurl.MAXCONNECTS, self.max_connections)
        easy.setopt(pycurl.PROTOCOLS, pycurl.PROTO_HTTP | pycurl.PROTO_HTTPS)
        easy.setopt(pycurl.FOLLOWLOCATION, 0)
        easy.setopt(pycurl.PROXY, "")  # no proxy, whatever *_PROXY variables say
        easy.setopt(pycurl.NOPROXY, "*")
        easy.setopt(pycurl.NOSIGNAL, 1)
        easy.setopt(pycurl.TCP_NODELAY, 1)
        easy.setopt(pycurl.HTTP_VERSION, pycurl.CURL_HTTP_VERSION_1_1)
        easy.setopt(pycurl.MAXAGE_CONN, KEEPALIVE_SECONDS)
        easy.setopt(pycurl.CAINFO, certifi.where())
        easy.setopt(pycurl.USERAGENT, USER_AGENT)
        easy.setopt(pycurl.MAXFILESIZE_LARGE, self.max_response_bytes)
        easy.transfer = None  # its callbacks' transfer, from its first call (_begin)
        return easy

    def _begin(self, call: Call, pool: _Pool | None = None, grace: float = 0.0) -> Transfer:
        """Check the call and set up a handle of ``pool`` (default: this thread's) for it;
        curl's own time limits ``grace`` seconds longer than the call's (a :class:`CallLoop`
        judges them itself)."""
        target = call_target(call.url, call.path)
        resolve = resolve_entry(target, allow_private=self.allow_private, cache=self._dns,
                                clock=self.dns_clock)
        timeout_ms = max(1, round((call.timeout + grace) * 1000))
        connect_ms = max(1, min(timeout_ms, round((self.connect_timeout + grace) * 1000)))
        options = (target.url, resolve, timeout_ms, connect_ms)
        easy = self._easy(pool, options)
        set_on = (pool or self._handles).options
        try:
            # A handle keeps its options from call to call: most calls go where the handle's
            # last one went (the same bot, the same checked addresses, the same time limit), and
            # then setting them again is work for nothing.
            if set_on.get(easy) != options:
                set_on.pop(easy, None)  # unknown until all are set
                easy.setopt(pycurl.URL, target.url)
                easy.setopt(pycurl.RESOLVE, [resolve] if resolve else [])
                easy.setopt(pycurl.TIMEOUT_MS, timeout_ms)
                easy.setopt(pycurl.CONNECTTIMEOUT_MS, connect_ms)
                set_on[easy] = options
            transfer: Transfer | None = easy.transfer
            if transfer is None:
                transfer = Transfer(call, easy, self.max_response_bytes, self.allow_private)
                easy.setopt(pycurl.OPENSOCKETFUNCTION, transfer.open_socket)
                easy.setopt(pycurl.HEADERFUNCTION, transfer.header)
                easy.setopt(pycurl.WRITEFUNCTION, transfer.write)
                easy.transfer = transfer
            else:
                transfer.again(call)
            headers = signed_header_lines(call.secret, call.body,
                                          previous_secret=call.previous_secret,
                                          timestamp=int(self.wall_clock()))
            if call.method == "POST":
                easy.setopt(pycurl.HTTPHEADER, headers + _POST_HEADERS)
                easy.setopt(pycurl.POSTFIELDS, call.body)
            else:
                easy.setopt(pycurl.HTTPHEADER, headers + _GET_HEADERS)
                easy.setopt(pycurl.HTTPGET, 1)
        except BaseException:
            if pool is not None:
                pool.put(easy)
            else:
                self._handles.idle.append(easy)
            raise
        return transfer

    @staticmethod
    def _perform(transfer: Transfer) -> None:
        """Make one call with libcurl's own loop, noting when it ended and how it failed, as
        :meth:`_run` notes a call made with others."""
        sent = time.perf_counter()
        try:
            transfer.easy.perform()
        except pycurl.error as exc:
            transfer.errno, transfer.error = exc.args[0], exc.args[1]
        transfer.done_at = _ended_at(transfer, sent, time.perf_counter())

    def _reply(self, transfer: Transfer, start: float) -> Reply:
        call, easy = transfer.call, transfer.easy
        elapsed = transfer.done_at - start
        if transfer.errno:
            if transfer.blocked:
                return Reply(b"", elapsed, None, Failure(BLOCKED_ADDRESS, transfer.blocked))
            if transfer.oversized or transfer.errno == pycurl.E_FILESIZE_EXCEEDED:
                return Reply(b"", elapsed, easy.getinfo(pycurl.RESPONSE_CODE) or None, Failure(
                    OVERSIZED_BODY, f"body is over the {transfer.cap}-byte limit"))
            if transfer.errno == pycurl.E_OPERATION_TIMEDOUT:
                limit_ms = _limit_ms(call)
                if _all_there_in_time(transfer):
                    return _kept_from_reading(elapsed, limit_ms)
                return Reply(b"", elapsed, None, Failure(
                    TIMEOUT, f"no answer within {limit_ms} ({transfer.error})"))
            return Reply(b"", elapsed, None, Failure(CONNECTION_ERROR, transport_detail(
                f"curl error {transfer.errno}: {transfer.error}",
                refused=transfer.errno == pycurl.E_COULDNT_CONNECT)))
        status = easy.getinfo(pycurl.RESPONSE_CODE)
        if status != 200:
            return Reply(b"", elapsed, status, Failure(HTTP_STATUS, status_detail(
                status, b"".join(transfer.chunks), easy.getinfo(pycurl.REDIRECT_URL),
                headers=transfer.headers)))
        if elapsed > call.timeout:
            limit_ms = _limit_ms(call)
            if _all_there_in_time(transfer):
                return _kept_from_reading(elapsed, limit_ms)
            return Reply(b"", elapsed, status, Failure(
                TIMEOUT, f"answered in {elapsed * 1000:.0f} ms, over the {limit_ms} limit"))
        return Reply(b"".join(transfer.chunks), elapsed, status)


def _limit_ms(call: Call) -> str:
    return f"{call.timeout * 1000:.0f} ms"


def _ended_at(transfer: Transfer, sent: float, now: float) -> float:
    """When a blocking call (:meth:`BotClient.call`, ``call_many``), sent at ``sent`` and seen
    back at ``now``, ended by curl's own clock: the thread's wait for the interpreter's lock
    after curl is done is not the bot's (a wait before is :func:`_all_there_in_time`'s)."""
    took = transfer.easy.getinfo(pycurl.TOTAL_TIME_T) / 1e6
    return min(now, sent + took) if took > 0 else now


def _all_there_in_time(transfer: Transfer) -> bool:
    """Whether a blocking call over its limit had its whole answer in within it. curl reads the
    sockets without the interpreter's lock but hands each header line and the body to Python
    with it, so a thread kept from the lock by the process's other threads is late with an
    answer that came in time: its first byte within the limit by curl's clock, and every byte
    its ``Content-Length`` announced read. That wait is the worker's, never the bot's
    ``timeout``; an answer still arriving (a bot sending its head at once and its body late)
    is the bot's."""
    easy = transfer.easy
    first_byte = easy.getinfo(pycurl.STARTTRANSFER_TIME_T) / 1e6
    announced = easy.getinfo(pycurl.CONTENT_LENGTH_DOWNLOAD_T)
    return (0 < first_byte <= transfer.call.timeout and announced >= 0
            and not transfer.oversized and transfer.size == announced)


def _kept_from_reading(elapsed: float, limit_ms: str) -> Reply:
    return Reply(b"", elapsed, None, Failure(WORKER_LATE, (
        f"the whole answer was here within {limit_ms}, and this worker's thread was kept from "
        "reading it in time: ours, asked again")))


class CallLoop:
    """Bot calls in flight from one thread without waiting on any: what the multiplexed worker
    (``games.services.multiplexed``) plays hundreds of matches with. :meth:`start` begins a
    call and returns at once; :meth:`pump` waits for the sockets (at most a given time) and
    hands each finished call's :class:`Reply` to its callback, in this thread.

    One libcurl multi handle driven by ``socket_action`` and an epoll object used directly (no
    ``select()``, whose ``FD_SETSIZE`` stops at 1,024 sockets; no ``selectors`` layer, whose
    bookkeeping cost more than the system calls on every call), its easy
    handles and kept-alive connections shared with the client's blocking calls in this thread,
    so connections are reused per bot host. No bot (its base URL) is sent more than its
    ``Call.limit`` calls at once: the next wait in order and start as one finishes, and a call's
    time counts from when it is sent, never from when it waited here.

    A busy loop must never cost a bot (the platform's faults never do): the thread that reads
    the sockets also plays hundreds of matches, and may come back to them late. So the loop
    times a call's limit itself, on a clock that counts the time it spends waiting on the
    sockets and at most ``AWAY_SECONDS`` of each stretch it spends elsewhere: a bot is never
    charged for the time its answer, or its connection, waited for the loop to look. A call
    still not answered when that clock passes its limit, every socket read, is the bot's
    timeout; an answer is in time otherwise (its recorded time is that clock's, capped at the
    limit). curl's own limits are ``LATE_GRACE_SECONDS`` longer and stop only a call the loop
    left that long: it cannot tell when such an answer came, so the call fails as
    ``worker_late``, ours, and is asked again (``bots.caller``).
    """

    def __init__(self, client: BotClient, *, max_connections: int = 4096) -> None:
        self.client = client
        self.multi = pycurl.CurlMulti()
        # Its own connection cache, not the thread's share: a share keeps about a hundred
        # connections alive, and hundreds of calls in flight then open one each, every time.
        self.multi.setopt(pycurl.M_MAXCONNECTS, max_connections)
        self._pool = _Pool()
        self.multi.setopt(pycurl.M_SOCKETFUNCTION, self._watch)
        self.multi.setopt(pycurl.M_TIMERFUNCTION, self._timer)
        self.epoll = select.epoll()
        #: The sockets curl asked to watch, and what for (curl's ``POLL_*`` mask, which is
        #: also the ``CSELECT_*`` mask of their events).
        self._watched: dict[int, int] = {}
        self._timer_at: float | None = None
        self._running: dict[pycurl.Curl, _Flight] = {}
        #: Calls added since curl last ran its timers (sent by that run: their time starts).
        self._unsent: list[_Flight] = []
        #: (deadline, order, call) of the calls sent, earliest first, on the clock of
        #: :attr:`_charged` (:meth:`_expire`).
        self._deadlines: list[tuple[float, int, _Flight]] = []
        self._order = itertools.count()
        #: Seconds a call is charged for (class doc), and when the loop last looked.
        self._charged = 0.0
        self._looked_at = time.perf_counter()
        #: Calls started per bot URL, and those waiting for one of them to finish.
        self._sending: dict[str, int] = {}
        self._waiting: dict[str, deque[tuple[Call, Callable[[Reply], None]]]] = {}
        #: Replies ready without a transfer (a blocked address...), handed over by the next pump.
        self._ready: list[tuple[Reply, Callable[[Reply], None]]] = []

    def __len__(self) -> int:
        """Calls started or waiting, not handed back yet."""
        return (len(self._running) + len(self._ready)
                + sum(len(queue) for queue in self._waiting.values()))

    def sending(self, url: str) -> int:
        """Calls to the bot at ``url`` on the wire now (never more than its limit)."""
        return self._sending.get(url, 0)

    def start(self, call: Call, done: Callable[[Reply], None]) -> None:
        """Send ``call`` once the bot at its URL has fewer than ``call.limit`` calls on the
        wire; ``done`` gets its reply from a later :meth:`pump` (never raises, as
        :meth:`BotClient.call` never does)."""
        if call.limit and self._sending.get(call.url, 0) >= call.limit:
            self._waiting.setdefault(call.url, deque()).append((call, done))
            return
        self._send(call, done)

    def _send(self, call: Call, done: Callable[[Reply], None]) -> None:
        start = time.perf_counter()
        transfer = self.client._begin_checked(call, start, self._pool, LATE_GRACE_SECONDS)
        if isinstance(transfer, Reply):
            self._ready.append((transfer, done))
            return
        self._sending[call.url] = self._sending.get(call.url, 0) + 1
        flight = self._running[transfer.easy] = _Flight(transfer, start, done)
        self._unsent.append(flight)
        try:
            self.multi.add_handle(transfer.easy)
        except Exception as exc:  # curl itself failed: ours, never a strike
            log.exception("starting a bot call failed")
            self._finished(transfer.easy, PLATFORM_ERROR, f"{type(exc).__name__}: {exc}")

    def pump(self, timeout: float) -> int:
        """Wait at most ``timeout`` seconds for any call's socket, move every call on as far
        as it goes, and hand each finished one to its callback; how many were handed."""
        if self._ready or self._unsent:
            timeout = 0.0
        if self._timer_at is not None:
            timeout = max(0.0, min(timeout, self._timer_at - time.monotonic()))
        entered = time.perf_counter()
        self._charged += min(entered - self._looked_at, AWAY_SECONDS)
        if self._watched:
            events = self.epoll.poll(timeout, len(self._watched))
        else:  # nothing on the wire (curl's timers only, or calls waiting for the network)
            if timeout > 0:
                time.sleep(timeout)
            events = []
        self._looked_at = time.perf_counter()  # every answer there by now is read below
        self._charged += self._looked_at - entered
        watched = self._watched
        for fd, mask in events:
            # What curl asked for of what came (an error or hang-up wakes either way).
            flags = watched.get(fd, 0) & ((pycurl.CSELECT_IN if mask & ~select.EPOLLOUT else 0)
                                          | (pycurl.CSELECT_OUT if mask & ~select.EPOLLIN else 0))
            if flags:
                self._act(fd, flags)
        self._collect()  # once the sockets are read: curl queues the calls they ended
        self._expire()  # before curl's timers: its longer limits are for a late loop only
        if self._unsent or (self._timer_at is not None
                            and time.monotonic() >= self._timer_at):
            unsent, self._unsent = self._unsent, []
            self._timer_at = None
            self._act(pycurl.SOCKET_TIMEOUT, 0)  # curl sends the calls added since
            self._collect()
            for flight in unsent:
                if self._running.get(flight.transfer.easy) is flight:
                    flight.charged_from = self._charged
                    heapq.heappush(self._deadlines, (
                        self._charged + flight.transfer.call.timeout, next(self._order), flight))
        return self._hand_over()

    def close(self) -> None:
        """Stop every call in flight (their callbacks are not called) and close the handles."""
        for easy in list(self._running):
            self.multi.remove_handle(easy)
            self._pool.put(easy)
        self._running.clear()
        self._unsent.clear()
        self._deadlines.clear()
        self._waiting.clear()
        self._ready.clear()
        self._watched.clear()
        self.epoll.close()
        for handles in self._pool.idle.values():
            for easy in handles:
                easy.close()
        self.multi.close()

    # ---- helpers -----------------------------------------------------------------------------

    def _act(self, fd: int, flags: int) -> None:
        try:
            while self.multi.socket_action(fd, flags)[0] == pycurl.E_CALL_MULTI_PERFORM:
                pass
        except pycurl.error:
            log.exception("driving bot calls failed")  # each call still ends, by its timeout

    def _collect(self) -> None:
        """Finish every call curl says has ended."""
        while True:
            queued, ok, failed = self.multi.info_read()
            for easy in ok:
                self._finished(easy)
            for easy, errno, error in failed:
                self._finished(easy, errno=errno, error=error)
            if not queued:
                break

    def _expire(self) -> None:
        """Fail as the bot's timeout every call charged past its limit whose answer was not
        all there when the loop last looked (class doc)."""
        deadlines = self._deadlines
        while deadlines and deadlines[0][0] < self._charged:
            _, _, flight = heapq.heappop(deadlines)
            if self._running.get(flight.transfer.easy) is flight:
                self._finished(flight.transfer.easy, TIMEOUT, "no answer within "
                               f"{flight.transfer.call.timeout * 1000:.0f} ms")

    def _finished(self, easy: pycurl.Curl, reason: str = "", detail: str = "", *,
                  errno: int = 0, error: str = "") -> None:
        flight = self._running.pop(easy)
        transfer, start, done = flight.transfer, flight.start, flight.done
        # The time charged, not the time passed; a call still running when its charged time
        # passed the limit ended in :meth:`_expire`, so this answer may have come in time.
        charged = (self._charged - flight.charged_from if flight.charged_from is not None
                   else time.perf_counter() - start)
        transfer.done_at = start + min(charged, transfer.call.timeout)
        if errno == pycurl.E_OPERATION_TIMEDOUT and not reason:
            reason, detail = WORKER_LATE, (
                f"the worker came back to this call over {LATE_GRACE_SECONDS:g} s late, and "
                "cannot tell when the answer came: ours, asked again")
        transfer.errno, transfer.error = errno, error
        try:
            self.multi.remove_handle(easy)
        except pycurl.error:
            pass
        reply = (BotClient._failed(start, reason, detail) if reason
                 else self.client._reply(transfer, start))
        self._pool.put(easy)
        self._ready.append((reply, done))
        url = transfer.call.url
        self._sending[url] -= 1
        queue = self._waiting.get(url)
        if queue:
            call, waiting_done = queue.popleft()
            if not queue:
                del self._waiting[url]
            self._send(call, waiting_done)

    def _hand_over(self) -> int:
        handed = 0
        while self._ready:
            ready, self._ready = self._ready, []
            for reply, done in ready:
                try:
                    done(reply)
                except Exception:  # a callback's bug must not stop the others' calls
                    log.exception("a bot call's callback failed")
                handed += 1
        return handed

    def _watch(self, what: int, fd: int, multi: Any, socketp: Any) -> None:
        """curl's socket callback: what to wait for on ``fd`` (or stop watching it)."""
        watched = self._watched
        if what == pycurl.POLL_REMOVE:
            if watched.pop(fd, None) is not None:
                with contextlib.suppress(OSError):  # closed already: epoll forgot it then
                    self.epoll.unregister(fd)
            return
        before = watched.get(fd)
        if before == what:
            return
        watched[fd] = what
        try:
            if before is not None:
                self.epoll.modify(fd, _EPOLL_MASKS[what])
                return
        except FileNotFoundError:  # closed and its number reused without a word from curl
            pass
        self.epoll.register(fd, _EPOLL_MASKS[what])

    def _timer(self, timeout_ms: int) -> None:
        """curl's timer callback: act on no socket at this time (-1: no timer)."""
        self._timer_at = None if timeout_ms < 0 else time.monotonic() + timeout_ms / 1000


#: curl's ``POLL_NONE``, ``POLL_IN``, ``POLL_OUT``, ``POLL_INOUT`` as epoll's masks.
_EPOLL_MASKS: Final = (0, select.EPOLLIN, select.EPOLLOUT, select.EPOLLIN | select.EPOLLOUT)


class _Flight:
    """A call on a :class:`CallLoop`: its transfer, when it was started, the loop's charged
    clock when curl sent it (None until then), and who gets its reply."""

    __slots__ = ("charged_from", "done", "start", "transfer")

    def __init__(self, transfer: Transfer, start: float, done: Callable[[Reply], None]) -> None:
        self.transfer, self.start, self.done = transfer, start, done
        self.charged_from: float | None = None


#: Of each stretch a :class:`CallLoop` spends away from its sockets, at most this much is
#: charged to the calls in flight (its rounds last about 0.05 s: ``MatchLoop.round_seconds``).
AWAY_SECONDS: Final = 0.05
#: How much longer than a call's limit curl's own limits are on a :class:`CallLoop`.
LATE_GRACE_SECONDS: Final = 10.0

_LOOPS = threading.local()


def call_loop() -> CallLoop:
    """This thread's :class:`CallLoop` on the process's pooled client (:func:`bot_client`)."""
    client = bot_client()
    found = getattr(_LOOPS, "loop", None)
    if found is None or found.client is not client or getattr(_LOOPS, "pid", 0) != os.getpid():
        found = _LOOPS.loop = CallLoop(client)
        _LOOPS.pid = os.getpid()
    return found


_GET_HEADERS: Final = [b"accept-encoding: identity"]
#: No "Expect: 100-continue" (a round trip before the body): curl sends head and body at once.
_POST_HEADERS: Final = [*_GET_HEADERS, b"content-type: application/json", b"expect:"]


def client_from_settings(**overrides: Any) -> BotClient:
    """A :class:`BotClient` configured from the ``BOTS_*`` Django settings, signing with the
    platform's clock (``lib.clock``)."""
    from django.conf import settings

    from lib.clock import platform_clock

    kwargs: dict[str, Any] = {"allow_private": settings.BOTS_ALLOW_PRIVATE_ADDRESSES,
                              "max_response_bytes": settings.BOTS_MAX_RESPONSE_BYTES,
                              "wall_clock": platform_clock().now}
    kwargs.update(overrides)
    return BotClient(**kwargs)


_POOLED: dict[tuple[Any, ...], BotClient] = {}
_POOLED_LOCK = threading.Lock()


def bot_client() -> BotClient:
    """The process's pooled :class:`BotClient` for the current ``BOTS_*`` settings (shared by
    threads; a settings change, e.g. in a test, gets a client of its own)."""
    from django.conf import settings

    key = (settings.BOTS_ALLOW_PRIVATE_ADDRESSES, settings.BOTS_MAX_RESPONSE_BYTES)
    client = _POOLED.get(key)  # made once, read on every call: no lock to read it
    if client is None:
        with _POOLED_LOCK:
            client = _POOLED.get(key)
            if client is None:
                client = _POOLED[key] = client_from_settings()
    return client
