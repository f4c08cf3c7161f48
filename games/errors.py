"""Domain errors of matches, each with a stable ``code`` clients can switch on.

Services raise these; ``lib.errors`` has their base, :class:`DomainError`, and what becomes of
them (the ``{"code": ..., "detail": ...}`` body, ``status`` its HTTP status).
"""

from __future__ import annotations

from lib.errors import DomainError


class MatchNotFound(DomainError):
    code, status, default_detail = "match_not_found", 404, "No such match."


class SeatNotFound(DomainError):
    code, status, default_detail = "seat_not_found", 404, "No such seat in this match."


class BadMatchOptions(DomainError):
    """The engine refused the game, player count, options or seed; detail is its reason."""

    code, status, default_detail = "bad_options", 400, "The engine refused these options."


class BadSeats(DomainError):
    code, status, default_detail = "bad_seats", 400, "The seat assignment is not valid."


class MatchNotOpen(DomainError):
    code, status, default_detail = "match_not_open", 409, "The match is not waiting for players."


class NoOpenSeat(DomainError):
    code, status, default_detail = "no_open_seat", 409, "That seat is not open."


class AlreadySeated(DomainError):
    code, status, default_detail = "already_seated", 409, "You already have a seat in this match."


class NotYourSeat(DomainError):
    code, status, default_detail = "not_your_seat", 403, "This seat is not yours."


class MatchNotRunning(DomainError):
    code, status, default_detail = "match_not_running", 409, "The match is not running."


class SeatForfeited(DomainError):
    code, status, default_detail = "seat_forfeited", 409, "This seat has resigned or forfeited."


class StaleVersion(DomainError):
    """The client acted on an old version; ``current_version`` tells it what to poll for."""

    code, status, default_detail = "stale_version", 409, "The match has moved on; poll again."

    def __init__(self, detail: str | None = None, *, current_version: int) -> None:
        super().__init__(detail, current_version=current_version)
        self.current_version = current_version


class IllegalMove(DomainError):
    """The engine refused the action; detail is its reason. Nothing changed."""

    code, status, default_detail = "illegal_action", 422, "The action is not legal now."


class NotSeated(DomainError):
    code, status, default_detail = "not_seated", 409, "You have no seat in this match."
