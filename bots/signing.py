"""Standard Webhooks signatures on every call to a bot, so a bot can reject calls not from us.

The scheme (https://www.standardwebhooks.com): headers ``webhook-id``, ``webhook-timestamp``
(Unix seconds) and ``webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`` keyed
with the secret's bytes (``whsec_<base64>``). After a secret rotation a call carries two
space-separated signatures, by the new and the previous secret, so a bot that still holds the
previous one keeps verifying our calls until it is redeployed (the scheme allows several).
Signing and verifying use the ``standardwebhooks`` package, the specification's own reference
implementation, so any of its libraries in other languages verifies our calls.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import threading
import time
from collections.abc import Mapping
from functools import lru_cache

from standardwebhooks import Webhook, WebhookVerificationError

__all__ = ["WebhookVerificationError", "new_secret", "sign_headers", "signed_header_lines",
           "signed_header_pairs", "verify"]

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32  # 256 bits; the scheme asks for 24 to 64 random bytes
ID_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER = (b"webhook-id", b"webhook-timestamp",
                                                 b"webhook-signature")


def new_secret() -> str:
    """A fresh ``whsec_<base64 of 32 random bytes>`` secret (shown to the owner once)."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def sign_headers(secret: str, body: bytes, *, previous_secret: str = "",
                 msg_id: str | None = None, timestamp: int | None = None) -> dict[str, str]:
    """The three ``webhook-*`` headers for ``body``, signed with ``secret`` and, if given, also
    with ``previous_secret``. A fresh id per call lets a bot drop replays."""
    return {name.decode(): value.decode()
            for name, value in signed_header_pairs(secret, body, previous_secret=previous_secret,
                                                    msg_id=msg_id, timestamp=timestamp)}


def signed_header_pairs(secret: str, body: bytes, *, previous_secret: str = "",
                        msg_id: str | None = None,
                        timestamp: int | None = None) -> list[tuple[bytes, bytes]]:
    """:func:`sign_headers` as the ``(name, value)`` byte pairs an HTTP client sends as is."""
    msg, timestamp, signatures = _sign(secret, body, previous_secret, msg_id, timestamp)
    return [(ID_HEADER, msg), (TIMESTAMP_HEADER, b"%d" % timestamp),
            (SIGNATURE_HEADER, signatures)]


def signed_header_lines(secret: str, body: bytes, *, previous_secret: str = "",
                        timestamp: int | None = None) -> list[bytes]:
    """:func:`sign_headers` as the ``name: value`` lines libcurl sends (``HTTPHEADER``), built
    at once: every call to a bot makes them. ``timestamp``: Unix seconds, this host's clock's by
    default (a worker passes the platform's: ``lib.clock``)."""
    msg, timestamp, signatures = _sign(secret, body, previous_secret, None, timestamp)
    return [ID_HEADER + b": " + msg, b"%s: %d" % (TIMESTAMP_HEADER, timestamp),
            SIGNATURE_HEADER + b": " + signatures]


def _sign(secret: str, body: bytes, previous_secret: str, msg_id: str | None,
          timestamp: int | None) -> tuple[bytes, int, bytes]:
    """(id, timestamp, the signature header's value) for ``body``."""
    msg = msg_id.encode() if msg_id else b"msg_" + _uuid4_hex()
    timestamp = int(time.time()) if timestamp is None else timestamp
    signed = b"%s.%d.%s" % (msg, timestamp, body)
    signatures = _signature(secret, signed)
    if previous_secret:
        signatures += b" " + _signature(previous_secret, signed)
    return msg, timestamp, signatures


def _signature(secret: str, signed: bytes) -> bytes:
    """``v1,<base64 HMAC-SHA256>``: the scheme's HMAC computed directly with the decoded key
    (the same bytes as ``Webhook(secret).sign``; the specification's test vector checks it),
    from a copy of an HMAC keyed once per secret (:func:`_keyed`), without re-decoding the
    secret and round-tripping the body through str on every call."""
    mac = _keyed(secret).copy()
    mac.update(signed)
    return b"v1," + base64.b64encode(mac.digest())


@lru_cache(maxsize=4096)
def _keyed(secret: str) -> hmac.HMAC:
    """An HMAC-SHA256 keyed with ``secret``'s bytes and fed nothing: copied for each call (its
    key's padding hashed once, not per call; copying only reads it, so threads share it)."""
    return hmac.new(base64.b64decode(secret.removeprefix(SECRET_PREFIX)),
                    digestmod=hashlib.sha256)


def _uuid4_hex() -> bytes:
    """``uuid.uuid4().hex`` as bytes (random, version 4, RFC 4122 variant) without building a
    ``UUID``: a third of its time, on every call to a bot. The random bytes come from the
    system's source 4 KiB at a time, per thread (one system call per 256 ids: under load a
    call each cost a worker playing hundreds of matches 2% of its time)."""
    pool = _RANDOM
    if getattr(pool, "pid", 0) != os.getpid() or pool.at >= len(pool.bytes):
        pool.bytes, pool.at, pool.pid = os.urandom(4096), 0, os.getpid()
    raw = bytearray(pool.bytes[pool.at:pool.at + 16])
    pool.at += 16
    raw[6] = raw[6] & 0x0F | 0x40
    raw[8] = raw[8] & 0x3F | 0x80
    return raw.hex().encode()


_RANDOM = threading.local()


def verify(secret: str, body: bytes, headers: Mapping[str, str]) -> None:
    """Raise :class:`WebhookVerificationError` unless ``headers`` sign ``body`` with ``secret``
    within the scheme's 5-minute timestamp tolerance."""
    try:
        Webhook(secret).verify(body, dict(headers), json_parse=False)
    except WebhookVerificationError:
        raise
    except (ValueError, UnicodeDecodeError) as exc:  # a malformed header, e.g. no "v1," part
        raise WebhookVerificationError(f"malformed signature headers: {exc}") from exc
