"""Standard Webhooks signatures: the specification's test vector, and the starter bot agrees."""

from __future__ import annotations

import base64
import time

import pytest

from bots.signing import (
    WebhookVerificationError,
    new_secret,
    sign_headers,
    signed_header_lines,
    verify,
)

# The published test vector of the Standard Webhooks specification.
SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SPEC_TIMESTAMP = 1614265330
SPEC_BODY = b'{"test": 2432232314}'
SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_signing_matches_the_specification_vector() -> None:
    headers = sign_headers(SPEC_SECRET, SPEC_BODY, msg_id=SPEC_ID, timestamp=SPEC_TIMESTAMP)
    assert headers == {"webhook-id": SPEC_ID, "webhook-timestamp": str(SPEC_TIMESTAMP),
                       "webhook-signature": SPEC_SIGNATURE}


def test_the_starter_bot_verifies_the_specification_vector(starter, monkeypatch) -> None:
    monkeypatch.setattr(starter.time, "time", lambda: SPEC_TIMESTAMP + 10)
    key = starter.secret_key(SPEC_SECRET)
    headers = {"webhook-id": SPEC_ID, "webhook-timestamp": str(SPEC_TIMESTAMP),
               "webhook-signature": "v1,bm90IGl0 " + SPEC_SIGNATURE}  # several signatures
    assert starter.signature_ok(key, headers, SPEC_BODY)
    assert not starter.signature_ok(key, headers, SPEC_BODY + b" ")
    monkeypatch.setattr(starter.time, "time", lambda: SPEC_TIMESTAMP + 3600)
    assert not starter.signature_ok(key, headers, SPEC_BODY)  # a replay an hour later


def test_fresh_signatures_verify_and_tampering_does_not(starter) -> None:
    secret = new_secret()
    body = b'{"seat": 1}'
    headers = sign_headers(secret, body)
    verify(secret, body, headers)
    assert starter.signature_ok(starter.secret_key(secret), headers, body)
    with pytest.raises(WebhookVerificationError):
        verify(secret, b'{"seat": 2}', headers)
    with pytest.raises(WebhookVerificationError):
        verify(new_secret(), body, headers)
    with pytest.raises(WebhookVerificationError):
        verify(secret, body, {**headers, "webhook-signature": "garbage"})
    old = sign_headers(secret, body, timestamp=int(time.time()) - 3600)
    with pytest.raises(WebhookVerificationError):
        verify(secret, body, old)


def test_signed_with_the_previous_secret_too_both_verify(starter) -> None:
    """After a rotation a call carries two signatures: a bot holding either secret accepts it,
    with the scheme's own library and with the starter bot; a third secret does not."""
    new, previous, other = new_secret(), new_secret(), new_secret()
    body = b'{"seat": 1}'
    headers = sign_headers(new, body, previous_secret=previous)
    assert len(headers["webhook-signature"].split(" ")) == 2
    for secret in (new, previous):
        verify(secret, body, headers)
        assert starter.signature_ok(starter.secret_key(secret), headers, body)
    with pytest.raises(WebhookVerificationError):
        verify(other, body, headers)
    assert " " not in sign_headers(new, body)["webhook-signature"]


@pytest.mark.parametrize("rotated", [False, True])
def test_the_header_lines_libcurl_sends_verify_with_each_secret(rotated) -> None:
    """What the bot client sends (``name: value`` lines): the same three headers, fresh per
    call, verifying with the secret and, after a rotation, with the previous one."""
    secret, previous = new_secret(), new_secret()
    body = b'{"seat": 0}'
    lines = signed_header_lines(secret, body, previous_secret=previous if rotated else "")
    headers = dict(line.decode().split(": ", 1) for line in lines)
    assert list(headers) == ["webhook-id", "webhook-timestamp", "webhook-signature"]
    for key in (secret, previous) if rotated else (secret,):
        verify(key, body, headers)
    if not rotated:
        with pytest.raises(WebhookVerificationError):
            verify(previous, body, headers)
    again = dict(line.decode().split(": ", 1) for line in signed_header_lines(secret, body))
    assert again["webhook-id"] != headers["webhook-id"], "a fresh id per call"


def test_secrets_are_random_whsec_base64_of_32_bytes() -> None:
    first, second = new_secret(), new_secret()
    assert first.startswith("whsec_") and first != second
    assert len(base64.b64decode(first.removeprefix("whsec_"))) == 32
    assert sign_headers(first, b"x")["webhook-id"] != sign_headers(first, b"x")["webhook-id"]


def test_message_ids_are_random_uuid4s() -> None:
    import uuid

    ids = {sign_headers(new_secret(), b"x")["webhook-id"] for _ in range(200)}
    assert len(ids) == 200
    for msg_id in ids:
        found = uuid.UUID(hex=msg_id.removeprefix("msg_"))
        assert msg_id == f"msg_{found.hex}" and found.version == 4
        assert found.variant == uuid.RFC_4122
