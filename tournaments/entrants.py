"""Who takes part in a tournament or a league, and at what table: a person polling the API or
a bot of any seat kind that names one (a webhook bot, a reference bot: the seat-kind registry's,
:func:`entrant_kinds`), from the spec an organiser gives, the games seat spec it sits
in, and the game, table size and options checked by the engine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from games.engine import BadOptions, get_game
from games.engine.base import players_range
from games.seats import PLAYER, REFERENCE, get_seat_kind, seat_kinds

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser


def entrant_kinds(*, every: bool = False) -> list[tuple[str, str]]:
    """The seat kinds an entrant may be, as ``(name, label)``, from the seat-kind registry
    (``games.seats``): a person (``player``) and every kind whose seats name a bot it checks
    (``SeatKind.check_bot``: reference bots, webhook bots, any kind an app registers) that an
    organiser may enter (``SeatKind.enterable``), or with ``every`` any such kind (a bot
    version's candidate, in its provisional run)."""
    kinds = [get_seat_kind(name) for name in seat_kinds()]
    return [(kind.name, kind.label or kind.name) for kind in kinds
            if kind.name == PLAYER or (kind.check_bot is not None and
                                       (kind.enterable or every))]


def entrant_kind_label(kind: str) -> str:
    """What an entrant of ``kind`` is called ("webhook bot"): its seat kind's label, or the
    name itself for a kind no app registers (any more)."""
    return dict(entrant_kinds(every=True)).get(kind, kind)


def unknown_kind(kind: object) -> str:
    """The one reason an entrant's kind is refused, wherever it is (API, forms, models)."""
    return (f"unknown entrant kind {kind!r} "
            f"(known: {', '.join(name for name, _ in entrant_kinds())})")


def validate_entrant_kind(kind: str) -> None:
    """The models' validator of ``kind`` (``full_clean``, the admin): one of
    :func:`entrant_kinds`, checked when called, so a kind an app registers is one too."""
    if kind not in dict(entrant_kinds(every=True)):
        raise ValidationError(unknown_kind(kind), code="unknown_entrant_kind")


def entrant_fields(game: str, spec: Mapping[str, Any], organiser: AbstractBaseUser, *,
                   provisional: bool = False) -> dict[str, Any]:
    """``kind``, ``bot``, ``user`` and ``name`` of a tournament participant or league member
    from its spec (``{"kind": "webhook", "bot": <id>}``, ``{"kind": "reference", "bot":
    "heuristic"}`` or ``{"kind": "player", "user": "<username>"}``, optional ``name``).
    Raises ``ValueError`` with the reason a spec cannot take part (the bot's own check).
    ``provisional``: a bot version's provisional run, whose candidate is of a kind nobody
    enters (``entrant_kinds(every=True)``)."""
    kind = spec.get("kind")
    if kind == PLAYER:
        username = spec.get("user")
        user = get_user_model().objects.filter(username=username).first() \
            if isinstance(username, str) else None
        if user is None:
            raise ValueError(f"no user {username!r}")
        return {"kind": kind, "bot": "", "user": user,
                "name": spec.get("name") or user.get_username()}
    if kind not in dict(entrant_kinds(every=provisional)):
        raise ValueError(unknown_kind(kind))
    bot = str(spec.get("bot") or "")
    try:
        get_seat_kind(kind).check_bot(game, bot, organiser)
    except KeyError as exc:
        raise ValueError(str(exc)) from None
    return {"kind": kind, "bot": bot, "user": None, "name": spec.get("name") or f"{kind} {bot}"}


def entered_twice(entrants: Sequence[Any]) -> tuple[Any, Any] | None:
    """(the earlier, the later) of the first two of ``entrants`` (participants or members)
    that are the same webhook bot or the same person, or None. A reference bot may be entered
    any number of times: it is a program anyone may seat, not someone's entry
    (docs/series.md)."""
    seen: dict[tuple[str, str, Any], Any] = {}
    for entrant in entrants:
        key = (entrant.kind, entrant.bot, entrant.user_id)
        if key in seen and entrant.kind != REFERENCE:
            return seen[key], entrant
        seen.setdefault(key, entrant)
    return None


def seat_spec(participant: Any) -> dict[str, Any]:
    """The games seat spec of a participant or league member."""
    if participant.kind == PLAYER:
        return {"kind": PLAYER}
    return {"kind": participant.kind, "bot": participant.bot}


def game_table(game: str, table_size: int | None, options: Mapping[str, Any] | None, *,
               default: str) -> tuple[Any, int, dict[str, Any]]:
    """(the engine, the table size, the options merged over the game's defaults) of a
    tournament or league; ``table_size`` None takes the engine's ``default`` attribute
    (``"default_players"``, ``"max_players"``). Raises ``ValueError`` with the reason."""
    engine = get_game(game)  # BadOptions is a ValueError
    size = table_size or getattr(engine, default)
    if not engine.min_players <= size <= engine.max_players:
        raise ValueError(f"{game} is played by "
                         f"{players_range(engine.min_players, engine.max_players)}, not {size}")
    try:
        merged = engine.new_match(players=size, seed=0, options=dict(options or {})).options
    except BadOptions as exc:
        raise ValueError(str(exc)) from None
    return engine, size, merged
