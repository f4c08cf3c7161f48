"""Domain errors of bot registration and management (``{"code", "detail"}`` bodies)."""

from __future__ import annotations

from lib.errors import DomainError


class BotNotFound(DomainError):
    code, status, default_detail = "bot_not_found", 404, "No such bot."


class NotYourBot(DomainError):
    code, status, default_detail = "not_your_bot", 403, "This bot belongs to someone else."


class BadBotUrl(DomainError):
    code, status, default_detail = "bad_url", 400, "This cannot be a bot URL."


class BotNameTaken(DomainError):
    code, status, default_detail = "bot_name_taken", 409, "You already have a bot by that name."


class HandshakeFailed(DomainError):
    """``GET {url}/`` did not give a valid protocol-v1 handshake; ``reason`` is the failure
    reason (timeout, http_status, bad_shape, ...), ``detail`` says what came back."""

    code, status, default_detail = "handshake_failed", 422, "The bot's handshake failed."

    def __init__(self, detail: str | None = None, *, reason: str) -> None:
        super().__init__(detail, reason=reason)
        self.reason = reason


class VersionNotFound(DomainError):
    code, status, default_detail = "version_not_found", 404, "No such version of this bot."


class BadVersion(DomainError):
    """A version that cannot be one: the bot's own URL (a secret rotation or a redeploy at the
    same URL is not a version), a game the bot does not play."""

    code, status, default_detail = "bad_version", 400, "This cannot be a new version."


class VersionPending(DomainError):
    """The bot has a candidate already (one at a time), or the version's run still plays, or it
    was decided already."""

    code, status, default_detail = "version_pending", 409, "A version of this bot is pending."
