"""A developer's first failure explains itself: a refused answer's status, the start of its
body (escaped) and what usually causes it; a refused connection said plainly. Through the
client against real sockets, and the wording alone."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from bots import failures, protocol
from bots.net import BotClient, Call

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def answering(status: int, body: bytes, header: str = ""
              ) -> tuple[str, threading.Thread, socket.socket]:
    """A one-shot HTTP server on loopback answering ``status`` with ``body`` (and one more
    ``header`` line)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            extra = f"{header}\r\n" if header else ""
            conn.sendall(f"HTTP/1.1 {status} X\r\nContent-Length: {len(body)}\r\n{extra}"
                         f"Connection: close\r\n\r\n".encode() + body)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{server.getsockname()[1]}", thread, server


def call(url: str) -> protocol.Failure:
    with BotClient(allow_private=True) as client:
        reply = client.call(Call(url=url, path="move", body=b"{}", secret=SECRET, timeout=2))
    assert reply.failure is not None
    return reply.failure


@pytest.mark.parametrize(("status", "body", "says"), [
    (401, b'{"error": "bad signature"}', failures.SECRET_MISMATCH),
    (403, b"Invalid HMAC", failures.SECRET_MISMATCH),
    (401, b"", failures.REFUSED_HINT),
    # The starter bots' and svix's words for a call signed more than 5 minutes off their clock.
    (401, b'{"error": "bad signature: Message timestamp too old"}', failures.CLOCK_MISMATCH),
    (500, b"Traceback (most recent call last):\n  KeyError: 'seat'", "KeyError"),
])
def test_a_refused_answer_shows_its_status_body_and_cause(status, body, says) -> None:
    url, thread, server = answering(status, body)
    try:
        failure = call(url)
    finally:
        thread.join(5)
        server.close()
    assert failure.reason == protocol.HTTP_STATUS
    assert failure.detail.startswith(f"HTTP {status}") and says in failure.detail
    if body:
        assert "\\n" in failure.detail or b"\n" not in body, "escaped, on one line"
        assert "\n" not in failure.detail


@pytest.mark.parametrize(("status", "body", "header", "says"), [
    (401, b"", 'WWW-Authenticate: Signature error="invalid_signature"',
     failures.SECRET_MISMATCH),
    (403, b"Forbidden", "X-Error: bad HMAC", failures.SECRET_MISMATCH),
    (401, b"", "X-Bad-Signature: 1", failures.SECRET_MISMATCH),
    (401, b"", "WWW-Authenticate: Bearer", failures.REFUSED_HINT),
])
def test_a_refusal_said_in_a_header_explains_itself(status, body, header, says) -> None:
    url, thread, server = answering(status, body, header)
    try:
        failure = call(url)
    finally:
        thread.join(5)
        server.close()
    assert failure.reason == protocol.HTTP_STATUS
    assert failure.detail.endswith(says), failure.detail
    if says == failures.SECRET_MISMATCH:
        assert f"header {json.dumps(header)}" in failure.detail, "the header is shown"
    else:
        assert "header" not in failure.detail


def test_the_header_hint_only_reads_header_lines_of_a_refusal() -> None:
    lines = [b"HTTP/1.1 401 Unauthorized\r\n", b"WWW-Authenticate: Signature\r\n", b"\r\n"]
    assert failures.status_detail(401, b"", headers=lines).endswith(failures.SECRET_MISMATCH)
    assert failures.status_detail(500, b"", headers=lines) == "HTTP 500", "not a refusal"
    assert failures.status_detail(
        403, b"", headers=[b"HTTP/1.1 403 Signature\r\n"]).endswith(failures.REFUSED_HINT), \
        "the status line is not a header"


def test_a_refused_connection_says_so(refused_url) -> None:
    failure = call(refused_url)
    assert failure.reason == protocol.CONNECTION_ERROR
    assert failure.detail.startswith(failures.CONNECTION_REFUSED) and "curl error 7" in \
        failure.detail


def test_a_long_body_is_cut_and_markup_stays_text() -> None:
    detail = failures.status_detail(502, b"<b>" + b"x" * 5000 + b"</b>")
    assert detail.startswith('HTTP 502, body "<b>xxx') and detail.endswith('…"')
    assert len(detail) < failures.SHOWN_BODY_CHARS + 40
    assert failures.status_detail(404, b"  ") == "HTTP 404", "no body: nothing to show"
    assert failures.status_detail(302, b"", "http://x/") == (
        "HTTP 302 redirect to 'http://x/' (redirects are not followed)")
    assert failures.status_detail(401, "clé refusée".encode("latin-1")).startswith(
        'HTTP 401, body "cl\ufffd refus\ufffde"'), "not UTF-8: replaced, never an error"
