"""How a failed call to a bot reads in its call log and on its page: what came back, and what
usually causes it, so that a developer's first failure explains itself (docs/bot-protocol.md,
"Whose fault a failure is"). Pure wording; ``bots.net`` decides what failed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

#: How much of a refused answer's body the call log shows (escaped, as a JSON string).
SHOWN_BODY_CHARS: Final = 200
#: Words in a 401/403 body or header that say the bot checked our signature and refused it.
_SIGNATURE_WORDS: Final = ("signature", "secret", "hmac")
SECRET_MISMATCH: Final = ("the secret the bot checks does not match this bot's secret (copy it "
                          "again from the bot's page, or rotate it and give the bot the new one)")
#: Words of a refusal of the call's signed time (svix and the Standard Webhooks libraries say
#: "Message timestamp too old" / "too new").
_TIMESTAMP_WORDS: Final = ("timestamp", "too old", "too new")
CLOCK_MISMATCH: Final = ("the bot refused the call's signed time: its host's clock is more than "
                         "5 minutes from the platform's, which signs every call (set the bot "
                         "host's clock right, e.g. with NTP)")
REFUSED_HINT: Final = ("the bot refused the request; if it checks signatures, does it use this "
                       "bot's secret?")
CONNECTION_REFUSED: Final = ("connection refused: nothing listens at that address and port (is "
                             "the bot running, on that port, reachable from the platform?)")


def status_detail(status: int, body: bytes, location: str | None = None, *,
                  headers: Sequence[bytes] = ()) -> str:
    """A non-200 answer: its status, a redirect's target, the start of its body, and a hint
    for a refusal (401, 403): the bot's clock is wrong when its body says the timestamp is too
    old or new; else the secret does not match when its body or a header (its name
    or value: ``WWW-Authenticate: Signature error="mismatch"``, ``X-Bad-Signature: 1``; the
    lines as curl hands them over) is about the signature; that header is shown too, as the
    body is (a bot may say it only there)."""
    detail = f"HTTP {status}"
    if 300 <= status < 400 and location:
        detail += f" redirect to {location!r} (redirects are not followed)"
    text = body.decode("utf-8", "replace").strip()
    if text:
        detail += f", body {_shown(text)}"
    if status in (401, 403):
        about_signature = _about_signature(text)
        if not about_signature:
            header = next((line for line in _header_lines(headers)
                           if _about_signature(line)), None)
            if header is not None:
                about_signature = True
                detail += f", header {_shown(header)}"
        if any(word in text.lower() for word in _TIMESTAMP_WORDS):
            detail += f": {CLOCK_MISMATCH}"
        else:
            detail += f": {SECRET_MISMATCH if about_signature else REFUSED_HINT}"
    return detail


def _about_signature(text: str) -> bool:
    return any(word in text.lower() for word in _SIGNATURE_WORDS)


def _header_lines(headers: Sequence[bytes]) -> list[str]:
    """The header lines of an answer (not its status line nor the blank line after)."""
    lines = (line.decode("latin-1").strip() for line in headers)
    return [line for line in lines if ":" in line and not line.startswith("HTTP/")]


def _shown(text: str) -> str:
    """The start of ``text``, escaped as a JSON string: one line, markup as text."""
    shown = text[:SHOWN_BODY_CHARS] + ("…" if len(text) > SHOWN_BODY_CHARS else "")
    return json.dumps(shown, ensure_ascii=False)


def transport_detail(error: str, *, refused: bool) -> str:
    """A call that got no answer (curl's error), said plainly when the connection was
    refused."""
    return f"{CONNECTION_REFUSED}; {error}" if refused else error
