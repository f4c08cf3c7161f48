"""How a failed call to a bot reads in its call log and on its page: what came back, and what
usually causes it, so that a developer's first failure explains itself (docs/bot-protocol.md,
"Whose fault a failure is"). Pure wording; ``bots.net`` decides what failed."""

from __future__ import annotations

import json
from typing import Final

#: How much of a refused answer's body the call log shows (escaped, as a JSON string).
SHOWN_BODY_CHARS: Final = 200
#: Words in a 401/403 body that say the bot checked our signature and refused it.
_SIGNATURE_WORDS: Final = ("signature", "secret", "hmac")
SECRET_MISMATCH: Final = ("the secret the bot checks does not match this bot's secret (copy it "
                          "again from the bot's page, or rotate it and give the bot the new one)")
REFUSED_HINT: Final = ("the bot refused the request; if it checks signatures, does it use this "
                       "bot's secret?")
CONNECTION_REFUSED: Final = ("connection refused: nothing listens at that address and port (is "
                             "the bot running, on that port, reachable from the platform?)")


def status_detail(status: int, body: bytes, location: str | None = None) -> str:
    """A non-200 answer: its status, a redirect's target, the start of its body, and a hint
    for a refusal (401, 403)."""
    detail = f"HTTP {status}"
    if 300 <= status < 400 and location:
        detail += f" redirect to {location!r} (redirects are not followed)"
    text = body.decode("utf-8", "replace").strip()
    if text:
        shown = text[:SHOWN_BODY_CHARS] + ("…" if len(text) > SHOWN_BODY_CHARS else "")
        detail += f", body {json.dumps(shown, ensure_ascii=False)}"
    if status in (401, 403):
        about_signature = any(word in text.lower() for word in _SIGNATURE_WORDS)
        detail += f": {SECRET_MISMATCH if about_signature else REFUSED_HINT}"
    return detail


def transport_detail(error: str, *, refused: bool) -> str:
    """A call that got no answer (curl's error), said plainly when the connection was
    refused."""
    return f"{CONNECTION_REFUSED}; {error}" if refused else error
