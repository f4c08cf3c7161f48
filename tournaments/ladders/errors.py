"""Domain errors of ladders (``{"code", "detail"}`` bodies, see ``config.exceptions``)."""

from __future__ import annotations

from lib.errors import DomainError


class LadderBotNotFound(DomainError):
    code, status, default_detail = "bot_not_found", 404, "No such bot."


class NotYourLadderBot(DomainError):
    code, status = "not_your_bot", 403
    default_detail = "Only a bot's owner (or staff) may put it on a ladder or take it off."


class BadLadderEntry(DomainError):
    """The bot cannot play on the ladder: not public, disabled, not through its handshake, not
    playing the game."""

    code, status, default_detail = "bad_ladder_entry", 400, "This bot cannot join the ladder."


class NotOnLadder(DomainError):
    code, status, default_detail = "not_on_ladder", 404, "The bot is not on this ladder."


class BadLadder(DomainError):
    """No ladder of that table size: the game is not played by so many."""

    code, status, default_detail = "bad_ladder", 400, "The game has no such ladder."
