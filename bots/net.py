"""Calling developers' bot URLs safely: an SSRF-guarded, pooled httpcore client.

A bot URL is attacker-controlled, and the platform runs inside a network with databases, brokers
and a cloud metadata endpoint. So every connection:

* resolves the host once and refuses it if *any* of its addresses is loopback, private,
  link-local, carrier-grade NAT, multicast, reserved, unspecified or a cloud metadata address
  (IPv4 and IPv6, looking inside IPv4-mapped, 6to4, NAT64 and Teredo IPv6 addresses);
* connects to the very address it checked (the check lives in the httpcore network backend, at
  connect time, so a second DNS answer can never swap in another address: no DNS rebinding),
  while the Host header and TLS SNI keep the URL's name;
* follows no redirects, ignores proxy environment variables, asks for no compression, reads the
  body as a stream and stops past a size cap, and bounds connect and read time.

``allow_private`` (the ``BOTS_ALLOW_PRIVATE_ADDRESSES`` setting, on for local runs and tests)
lets loopback, private and carrier-grade NAT addresses through; link-local, metadata,
multicast, reserved and unspecified addresses are refused always.

Connections are pooled and kept alive per origin; :meth:`BotClient.call_many` calls several bots
concurrently for simultaneous steps.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

import httpcore
import httpx

from .protocol import (BLOCKED_ADDRESS, CONNECTION_ERROR, HTTP_STATUS, OVERSIZED_BODY,
                       PLATFORM_ERROR, TIMEOUT, Failure)
from .signing import signed_header_pairs

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Metadata services of the big clouds (AWS IMDS v4/v6 and ECS, GCP/Azure/OpenStack share the
#: AWS address, Alibaba). Most are link-local or private anyway; naming them gives a clear reason.
METADATA_ADDRESSES: Final = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254", "169.254.170.2", "169.254.170.23", "fd00:ec2::254", "fd00:ec2::23",
    "100.100.100.200",
))
_CGNAT: Final = ipaddress.ip_network("100.64.0.0/10")
_PRIVATE: Final = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"))
_NAT64: Final = ipaddress.ip_network("64:ff9b::/96")
_COMPAT: Final = ipaddress.ip_network("::/96")  # deprecated IPv4-compatible ::a.b.c.d
#: Categories that ``allow_private`` lets through (local development and tests).
ALLOWABLE: Final = frozenset({"loopback", "private", "carrier-grade NAT"})

DEFAULT_MAX_RESPONSE_BYTES: Final = 64 * 1024
DEFAULT_CONNECT_TIMEOUT: Final = 2.0
USER_AGENT: Final = "BluffLeague-Bots/1"

log = logging.getLogger(__name__)


class BlockedAddress(Exception):
    """The URL's host resolves to an address we must not call; the message says which and why."""


class BadBotURL(ValueError):
    """The URL cannot be a bot URL at all (scheme, host, credentials)."""


# ---- the address policy ------------------------------------------------------------------------


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries, if it is one of the forms that reach it."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64 or (ip in _COMPAT and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def classify_address(ip: IPAddress) -> str | None:
    """Why ``ip`` must not be called (a category), or None for a public unicast address."""
    if ip in METADATA_ADDRESSES:
        return "cloud metadata"
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_ipv4(ip)
        if inner is not None:
            why = classify_address(inner)
            # 6to4/NAT64 of a public IPv4 is a fine public address; of a private one, refused.
            return why
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip in _CGNAT:
        return "carrier-grade NAT"
    if any(ip in net for net in _PRIVATE if net.version == ip.version):
        return "private"
    if ip.is_reserved or ip.is_private or not ip.is_global:
        return "reserved"
    return None


def check_address(ip: IPAddress, *, allow_private: bool) -> None:
    """Raise :class:`BlockedAddress` unless the policy lets us connect to ``ip``."""
    why = classify_address(ip)
    if why is not None and not (allow_private and why in ALLOWABLE):
        raise BlockedAddress(f"{ip} is a {why} address")


def resolve_host(host: str, port: int) -> list[str]:
    """Every address of ``host`` (one DNS resolution). Tests replace this to fake DNS."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def check_url(url: str) -> httpx.URL:
    """Parse a bot URL: http(s), a host, no credentials or fragment. Addresses are checked at
    connect time, where they cannot change under us."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise BadBotURL(f"not a URL: {exc}") from None
    if parsed.scheme not in ("http", "https"):
        raise BadBotURL(f"a bot URL must be http:// or https://, not {parsed.scheme or 'none'}")
    if not parsed.host:
        raise BadBotURL("a bot URL needs a host")
    if parsed.userinfo:
        raise BadBotURL("a bot URL must not contain credentials")
    if parsed.fragment:
        raise BadBotURL("a bot URL must not contain a #fragment")
    return parsed


class CoalescingStream(httpcore.NetworkStream):
    """A socket stream that holds written bytes until the first read, then sends them at once.

    httpcore writes a request's head and body separately; on a kept-alive loopback connection
    that second ``send`` (a syscall and a TCP segment the bot must read separately) was a good
    part of the platform's time per move. Requests are read only after being fully written, so
    nothing waits longer than before.
    """

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner
        self._pending: list[bytes] = []
        self._timeout: float | None = None

    def _flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            self._inner.write(data, self._timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if buffer:
            self._pending.append(buffer)
            self._timeout = timeout

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._flush()
        return self._inner.read(max_bytes, timeout)

    def close(self) -> None:
        self._pending.clear()
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        self._flush()
        return CoalescingStream(self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class GuardedBackend(httpcore.SyncBackend):
    """httpcore's socket backend, resolving and checking the host itself before connecting to
    the checked address. httpcore still hands ``host`` (the name) to TLS for SNI."""

    def __init__(self, *, allow_private: bool) -> None:
        self.allow_private = allow_private

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Any = None) -> httpcore.NetworkStream:
        try:
            addresses = [ipaddress.ip_address(a.split("%", 1)[0]) for a in resolve_host(host, port)]
        except (OSError, UnicodeError) as exc:
            raise httpcore.ConnectError(f"cannot resolve {host!r}: {exc}") from exc
        if not addresses:
            raise httpcore.ConnectError(f"{host!r} has no address")
        for ip in addresses:  # one bad record is enough: the resolver might pick it next time
            check_address(ip, allow_private=self.allow_private)
        return CoalescingStream(super().connect_tcp(
            str(addresses[0]), port, timeout=timeout, local_address=local_address,
            socket_options=socket_options))


# ---- the client --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One signed request to a bot: ``path`` is appended to the bot's base URL."""

    url: str
    path: str
    body: bytes
    secret: str
    timeout: float
    method: str = "POST"


@dataclass(frozen=True)
class Reply:
    """What came back: a 200 ``body``, or a ``failure``; ``elapsed`` in seconds either way."""

    body: bytes
    elapsed: float
    status: int | None = None
    failure: Failure | None = None


@dataclass(frozen=True)
class _Target:
    """A bot URL + path parsed and checked once: the httpcore URL and the ``Host`` header."""

    url: httpcore.URL
    host: bytes


@lru_cache(maxsize=4096)
def _target(base: str, path: str) -> _Target:
    parsed = check_url(join_url(base, path))
    return _Target(httpcore.URL(scheme=parsed.raw_scheme, host=parsed.raw_host, port=parsed.port,
                                target=parsed.raw_path), parsed.netloc)


@lru_cache(maxsize=64)
def _timeouts(timeout: float, connect_timeout: float) -> dict[str, float]:
    return {"connect": min(connect_timeout, timeout), "read": timeout, "write": timeout,
            "pool": timeout}


def join_url(base: str, path: str) -> str:
    """``https://bot.example/api`` + ``move`` -> ``https://bot.example/api/move``."""
    return base.rstrip("/") + "/" + path.lstrip("/")


def _header(headers: Sequence[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


_FIXED_HEADERS: Final = [(b"user-agent", USER_AGENT.encode()), (b"accept-encoding", b"identity")]
_JSON_HEADER: Final = (b"content-type", b"application/json")


class BotClient:
    """A pooled, guarded HTTP client for bot calls. Thread-safe; share one per worker process.

    Requests go straight to httpcore's connection pool (the transport under ``httpx.Client``):
    httpx's own layer (request/response models, cookies, auth, redirects, hooks) is nothing we
    want and cost about 0.2 ms per call, a third of the platform's time per move.

    Every call returns a :class:`Reply` and never raises for anything the bot or network does.
    """

    def __init__(self, *, allow_private: bool = False,
                 max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
                 connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
                 max_connections: int = 100, workers: int = 8) -> None:
        self.allow_private = allow_private
        self.max_response_bytes = max_response_bytes
        self.connect_timeout = connect_timeout
        # No proxy (environment variables are never read here), keep-alive per origin.
        self._http = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=max_connections, max_keepalive_connections=max_connections,
            keepalive_expiry=30.0, network_backend=GuardedBackend(allow_private=allow_private))
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None

    def close(self) -> None:
        self._http.close()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> BotClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(self, call: Call) -> Reply:
        """Send one signed request; a non-200, oversize, slow or failed call is a Failure, and
        so is an error of ours (``platform_error``, logged), so a caller never sees it raise."""
        start = time.perf_counter()
        try:
            return self._send(call, start)
        except BlockedAddress as exc:
            return self._failed(start, BLOCKED_ADDRESS, str(exc))
        except BadBotURL as exc:
            return self._failed(start, CONNECTION_ERROR, str(exc))
        except httpcore.PoolTimeout as exc:  # all our connections busy: our problem
            return self._failed(start, PLATFORM_ERROR, f"connection pool exhausted: {exc}")
        except httpcore.TimeoutException as exc:
            return self._failed(start, TIMEOUT, f"{type(exc).__name__}: no answer within "
                                                f"{call.timeout * 1000:.0f} ms")
        except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol,
                OSError) as exc:
            return self._failed(start, CONNECTION_ERROR, f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - ours (e.g. a corrupt stored secret): no strike
            log.exception("bot call to %s failed on our side", call.url)
            return self._failed(start, PLATFORM_ERROR, f"{type(exc).__name__}: {exc}")

    def call_many(self, calls: Sequence[Call]) -> list[Reply]:
        """All ``calls`` at once (a simultaneous step); replies in the same order."""
        if len(calls) <= 1:
            return [self.call(c) for c in calls]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self._workers,
                                            thread_name_prefix="bot-call")
        return list(self._pool.map(self.call, calls))

    @staticmethod
    def _failed(start: float, reason: str, detail: str) -> Reply:
        return Reply(b"", time.perf_counter() - start, failure=Failure(reason, detail))

    def _send(self, call: Call, start: float) -> Reply:
        target = _target(call.url, call.path)
        headers = [(b"host", target.host), *_FIXED_HEADERS,
                   *signed_header_pairs(call.secret, call.body)]
        if call.method == "POST":
            headers += [_JSON_HEADER, (b"content-length", b"%d" % len(call.body))]
        deadline = start + call.timeout
        response = self._http.handle_request(httpcore.Request(
            call.method, target.url, headers=headers, content=call.body or None,
            extensions={"timeout": _timeouts(call.timeout, self.connect_timeout)}))
        try:
            status = response.status
            if status != 200:
                detail = f"HTTP {status}"
                location = _header(response.headers, b"location")
                if 300 <= status < 400 and location is not None:
                    detail += (f" redirect to {location.decode('latin-1')!r} "
                               "(redirects are not followed)")
                return Reply(b"", time.perf_counter() - start, status,
                             Failure(HTTP_STATUS, detail))
            cap = self.max_response_bytes
            declared = (_header(response.headers, b"content-length") or b"").decode("latin-1")
            if declared.isdigit() and int(declared) > cap:
                return Reply(b"", time.perf_counter() - start, status, Failure(
                    OVERSIZED_BODY, f"Content-Length {declared} is over the {cap}-byte limit"))
            chunks: list[bytes] = []
            size = 0
            # Raw bytes: we asked for no compression and never inflate a body.
            for chunk in response.stream:
                size += len(chunk)
                if size > cap:
                    return Reply(b"", time.perf_counter() - start, status, Failure(
                        OVERSIZED_BODY, f"body is over the {cap}-byte limit"))
                chunks.append(chunk)
                if time.perf_counter() > deadline:
                    break
        finally:
            response.close()
        elapsed = time.perf_counter() - start
        if elapsed > call.timeout:
            return Reply(b"", elapsed, status, Failure(
                TIMEOUT, f"answered in {elapsed * 1000:.0f} ms, over the "
                         f"{call.timeout * 1000:.0f} ms limit"))
        return Reply(b"".join(chunks), elapsed, status)


def client_from_settings(**overrides: Any) -> BotClient:
    """A :class:`BotClient` configured from the ``BOTS_*`` Django settings."""
    from django.conf import settings

    kwargs: dict[str, Any] = {"allow_private": settings.BOTS_ALLOW_PRIVATE_ADDRESSES,
                              "max_response_bytes": settings.BOTS_MAX_RESPONSE_BYTES}
    kwargs.update(overrides)
    return BotClient(**kwargs)
