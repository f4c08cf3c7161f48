"""Seat kinds: who sits at a seat, and how an automatic seat picks its action.

``games`` knows two kinds: ``"player"`` (a user polling the API) and ``"reference"`` (one of the
engine's reference bots, run in-process). Other apps add kinds without ``games`` importing them,
from their ``AppConfig.ready()``::

    from games.seats import SeatKind, register_seat_kind
    register_seat_kind(SeatKind(name="webhook", automatic=WebhookSeat(), inline=False,
                                check_bot=check_webhook_bot))

An automatic seat is asked through :class:`AutomaticSeat`. ``inline=True`` kinds are asked
inside the transaction that holds the match row lock, right after the action that made them
due (so they must be fast and must not do network I/O); ``inline=False`` kinds are asked by the
``games.advance_automatic_seats`` Celery task: in batches under the match row lock while only
automatic seats are due, otherwise outside the lock with their answers submitted under the
per-step version rule (see ``games.services.match_advance_automatic_seats``). They may do network
I/O, bounded by their own timeouts, and may define ``flush(match)`` to write their own records
in the same transaction as a batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .engine import get_game

if TYPE_CHECKING:
    from .models import Match

JSON = dict[str, Any]

PLAYER = "player"
REFERENCE = "reference"


class AutomaticSeat(Protocol):
    """Something that answers for a seat by itself.

    Out-of-process kinds (``inline=False``) may also define, all optional:

    * ``choose_many(match, state, seats) -> {seat: SeatAnswer}``: answer every due seat of one
      step at once (e.g. concurrently for a simultaneous step), and report failures. ``state``
      is the engine state the answers are for (read-only: never change it). Preferred over
      ``choose`` when present.
    * ``match_started(match)`` / ``match_finished(match)``: told once the match runs / is
      over, from the ``games.advance_automatic_seats`` task (outside any lock). Called at least
      once each (a re-run task may call again): make them idempotent.
    """

    def choose(self, match: Match, seat_number: int, view: JSON,
               legal_actions: Sequence[JSON]) -> JSON:
        """The action for ``seat_number``, from what that seat may know (``view``) only."""
        ...


@dataclass(frozen=True)
class SeatAnswer:
    """What an out-of-process seat answered for one decision.

    ``action`` None: no usable answer, the seat gets the game's default action. ``strike``: the
    seat itself is at fault (a short reason such as ``"timeout"``): it also gets a strike, and
    reaching the match's ``strike_limit`` forfeits it. ``action`` given but refused by the engine
    counts as a strike with reason ``"illegal_action"``. No action and no strike is a platform failure:
    the default action, no strike.
    """

    action: JSON | None = None
    strike: str | None = None
    detail: str = ""


@dataclass(frozen=True)
class SeatKind:
    name: str
    #: ``None``: a user plays this seat through the API.
    automatic: AutomaticSeat | None = None
    #: Ask the automatic seat in the same request (True) or in a Celery task (False).
    inline: bool = True
    #: Check the ``bot`` named in a seat spec when ``user`` (the creator, None for the
    #: platform itself) creates a match of the game; raise ``ValueError`` with a readable
    #: reason. ``None``: the kind takes no bot name.
    check_bot: Callable[[str, str, Any], None] | None = None


class ReferenceBotSeat:
    """The engine's reference bots (``random``, ``heuristic``, ...), asked in-process.

    Bots are rebuilt for every decision, seeded from the match seed and version, so a match
    between reference bots is reproducible from its seed alone.
    """

    def choose(self, match: Match, seat_number: int, view: JSON,
               legal_actions: Sequence[JSON]) -> JSON:
        # match.seats is prefetched by the services, so this costs no query per move.
        seat = next(s for s in match.seats.all() if s.number == seat_number)
        bot = get_game(match.game).make_bot(seat.bot_name, seat_number,
                                            match.seed * 7919 + match.version)
        return bot.choose(view, legal_actions)


def _check_reference_bot(game_id: str, bot_name: str, user: Any = None) -> None:
    game = get_game(game_id)
    if bot_name not in game.bots:
        raise ValueError(f"no reference bot {bot_name!r} for {game_id} "
                         f"(have: {', '.join(game.bots)})")


_KINDS: dict[str, SeatKind] = {}


def register_seat_kind(kind: SeatKind) -> None:
    """Make ``kind`` usable in matches; registering a name again replaces it."""
    _KINDS[kind.name] = kind


def unregister_seat_kind(name: str) -> None:
    """Remove a kind (tests); the built-in kinds cannot be removed."""
    if name not in (PLAYER, REFERENCE):
        _KINDS.pop(name, None)


def get_seat_kind(name: str) -> SeatKind:
    """The registered kind; ``KeyError`` if there is none by that name."""
    return _KINDS[name]


def seat_kinds() -> list[str]:
    return list(_KINDS)


register_seat_kind(SeatKind(name=PLAYER))
register_seat_kind(SeatKind(name=REFERENCE, automatic=ReferenceBotSeat(),
                            check_bot=_check_reference_bot))

__all__ = [
    "PLAYER", "REFERENCE", "AutomaticSeat", "ReferenceBotSeat", "SeatAnswer", "SeatKind",
    "get_seat_kind", "register_seat_kind", "seat_kinds", "unregister_seat_kind",
]
