"""Which addresses and URLs a bot may have: the policy half of the SSRF guard (``bots.resolver``
checks every address a host resolves to, ``bots.net`` is the client that enforces it at every
connect).

Refused: loopback, private, link-local, carrier-grade NAT, multicast, reserved, unspecified and
cloud metadata addresses, IPv4 and IPv6, looking inside IPv4-mapped, 6to4, NAT64 and Teredo IPv6
addresses. ``allow_private`` (the ``BOTS_ALLOW_PRIVATE_ADDRESSES`` setting, on for local runs
and tests) lets loopback, private and carrier-grade NAT addresses through; the others are refused
always. A bot URL is http(s) with a host and a port, no credentials or fragment.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Final

import httpx

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


@lru_cache(maxsize=4096)
def classify_address(ip: IPAddress) -> str | None:
    """Why ``ip`` must not be called (a category), or None for a public unicast address
    (remembered: every call checks its address, and the answer never changes)."""
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


#: What a refusal says about allowing the address: a bot on the developer's machine is the
#: usual surprise, and the message must say which switch lets it through.
ALLOW_PRIVATE_HINT: Final = ("bots on this machine or a private network need "
                             "BOTS_ALLOW_PRIVATE_ADDRESSES=1 (make run sets it) or "
                             "--allow-private (manage.py check_bot, run_tournament)")
NEVER_ALLOWED_HINT: Final = ("refused even with BOTS_ALLOW_PRIVATE_ADDRESSES=1 or "
                             "--allow-private")


def check_address(ip: IPAddress, *, allow_private: bool) -> None:
    """Raise :class:`BlockedAddress` unless the policy lets us connect to ``ip``; the message
    names the address, its category and whether the setting (or the flag) would allow it."""
    why = classify_address(ip)
    if why is not None and not (allow_private and why in ALLOWABLE):
        article = "an" if why[0] in "aeiou" else "a"
        hint = ALLOW_PRIVATE_HINT if why in ALLOWABLE else NEVER_ALLOWED_HINT
        raise BlockedAddress(f"{ip} is {article} {why} address: {hint}")


def check_url(url: str) -> httpx.URL:
    """Parse a bot URL: http(s), a host, a port in 1-65535, no credentials or fragment.
    Addresses are checked at connect time, where they cannot change under us."""
    if not isinstance(url, str):
        raise BadBotURL(f"a bot URL must be a string, not {type(url).__name__}")
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise BadBotURL(f"{url!r} is not a URL: {exc}") from None
    if not parsed.scheme:
        raise BadBotURL(f"{url!r} is not a URL: it must start with http:// or https://")
    if parsed.scheme not in ("http", "https"):
        raise BadBotURL(f"a bot URL must be http:// or https://, not {parsed.scheme}")
    if not parsed.host:
        raise BadBotURL("a bot URL needs a host")
    if parsed.port is not None and not 1 <= parsed.port <= 65535:
        raise BadBotURL(f"port {parsed.port} is out of range (1-65535)")
    if parsed.userinfo:
        raise BadBotURL("a bot URL must not contain credentials")
    if parsed.fragment:
        raise BadBotURL("a bot URL must not contain a #fragment")
    return parsed
