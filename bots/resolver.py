"""Where a bot call may connect: the DNS half of the SSRF guard (``bots.addresses`` is the
policy, ``bots.net`` the client that pins curl to what is found here).

A call's URL is joined and checked once (:func:`call_target`); its host is resolved once and
refused if *any* of its addresses is (:func:`resolve_entry`), and the checked answer is reused
for :data:`DNS_CACHE_SECONDS`, handed to curl as a ``RESOLVE`` entry so curl does no DNS of its
own (no DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final
from urllib.parse import urlsplit, urlunsplit

from .addresses import BadBotURL, IPAddress, check_address, check_url

#: How long a host's resolved and checked addresses are reused for new connections.
DNS_CACHE_SECONDS: Final = 30.0

#: One client's checked answers: ``(host, port)`` -> (reused until, curl's ``RESOLVE`` entry).
DnsCache = dict[tuple[str, int], tuple[float, str]]


def resolve_host(host: str, port: int) -> list[str]:
    """Every address of ``host`` (one DNS resolution). Tests replace this to fake DNS."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def join_url(base: str, path: str) -> str:
    """``https://bot.example/api`` + ``move`` -> ``https://bot.example/api/move``; a query
    string stays at the end: ``http://h/api?x=1`` + ``move`` -> ``http://h/api/move?x=1``
    (``""``, the handshake, gives ``http://h/api/?x=1``)."""
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/" + path.lstrip("/")))


@dataclass(frozen=True)
class CallTarget:
    """A bot URL + path parsed and checked once: what curl needs to call it."""

    url: str
    host: str
    port: int
    ip: IPAddress | None  # the host, when it is an address literal


@lru_cache(maxsize=4096)
def call_target(base: str, path: str) -> CallTarget:
    """The checked target of ``path`` under the bot URL ``base`` (raises :class:`BadBotURL`)."""
    parsed = check_url(join_url(base, path))
    host = parsed.raw_host.decode("ascii")
    try:
        ip: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        ip = None
    return CallTarget(str(parsed), host,
                      parsed.port or (443 if parsed.scheme == "https" else 80), ip)


#: getaddrinfo's errors that say the resolver did not answer (the platform's own DNS or network
#: is down), where EAI_NONAME and EAI_NODATA say the bot's name has no address (its fault).
_RESOLVER_DOWN: Final = frozenset({socket.EAI_AGAIN, socket.EAI_FAIL})


class ResolverUnavailable(Exception):
    """The platform's resolver did not answer for a bot's host: never the bot's fault."""


def resolve_entry(target: CallTarget, *, allow_private: bool, cache: DnsCache,
                  clock: Callable[[], float] = time.monotonic) -> str | None:
    """curl's ``RESOLVE`` entry for the target's host: its addresses, every one checked
    (raises :class:`BlockedAddress`); None for an address literal (checked here too). ``cache``
    keeps the checked answers of one client, each reused for :data:`DNS_CACHE_SECONDS` by
    ``clock`` (seconds, never going back)."""
    if target.ip is not None:
        check_address(target.ip, allow_private=allow_private)
        return None
    key = (target.host, target.port)
    now = clock()
    cached = cache.get(key)
    if cached is not None and cached[0] > now:
        return cached[1]
    try:
        found = resolve_host(target.host, target.port)
        addresses = [ipaddress.ip_address(a.split("%", 1)[0]) for a in found]
    except socket.gaierror as exc:
        if exc.errno in _RESOLVER_DOWN:  # no answer, not "no such name": the platform's own
            raise ResolverUnavailable(f"cannot resolve {target.host!r}: {exc}") from None
        raise BadBotURL(f"cannot resolve {target.host!r}: {exc}") from None
    except (OSError, UnicodeError, ValueError) as exc:
        raise BadBotURL(f"cannot resolve {target.host!r}: {exc}") from None
    if not addresses:
        raise BadBotURL(f"{target.host!r} has no address")
    for ip in addresses:  # one bad record is enough: the resolver might pick it next time
        check_address(ip, allow_private=allow_private)
    entry = f"{target.host}:{target.port}:" + ",".join(
        f"[{ip}]" if ip.version == 6 else str(ip) for ip in addresses)
    cache[key] = (now + DNS_CACHE_SECONDS, entry)
    return entry
