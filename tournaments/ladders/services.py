"""Ladder services (docs/ladder.md): a game's ladder made when its first bot joins, bots opted
in and out by their owners. Playing it is the series runner's (``ladders.kind``): a join queues
the ladder's ``advance``, so a new bot's first match starts within seconds, not at the
reaper's next sweep."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.engine import game_ids, get_game
from games.engine.base import players_range
from games.engine.rng import new_secret
from games.errors import BadSeats
from games.seats import REFERENCE, get_seat_kind

from ..entrants import game_table
from ..errors import GameNotFound
from ..models import Ladder, LadderEntry, LeaderboardEntry
from ..runner import kinds
from ..scoring.leaderboard import MODEL
from .errors import BadLadder, BadLadderEntry, LadderBotNotFound, NotOnLadder, NotYourLadderBot
from .kind import SERIES

#: The end of the pause reason of a bot whose in-place version plays its provisional run
#: (``versions.hold``): only the version's decision lifts it, not a join.
VERSION_HELD = "(in place) in its provisional run"
PAUSE = ("paused", "paused_reason", "paused_at")


def ladder_seats(game: str, seats: int | None = None) -> int:
    """The table size of a game's ladder: ``seats`` if the game is played by so many
    (``BadLadder`` if not), by default two seats where the game allows them (a pair's result is
    the clearest comparison), else its smallest table."""
    engine = get_game(game)
    if seats is None:
        return max(2, engine.min_players)
    if not engine.min_players <= seats <= engine.max_players:
        raise BadLadder(f"{game} is played by "
                        f"{players_range(engine.min_players, engine.max_players)}: it has no "
                        f"ladder of {seats} seats")
    return seats


def _check_game(game: str) -> None:
    if game not in game_ids():
        raise GameNotFound(f"no game {game!r} (have: {', '.join(game_ids())})")


def ladder_get_or_create(*, game: str, seats: int | None = None) -> Ladder:
    """The game's ladder of ``seats`` (default :func:`ladder_seats`), made (running, with a
    fresh deal secret and the settings' caps) if it has none yet. ``GameNotFound`` for a game
    the engine does not have, ``BadLadder`` for a table it is not played at."""
    _check_game(game)
    seats = ladder_seats(game, seats)
    found = Ladder.objects.filter(game=game, seats=seats).first()
    if found is not None:
        return found
    _, _, options = game_table(game, seats, {}, default="min_players")
    now = timezone.now()
    try:
        with transaction.atomic():
            return Ladder.objects.create(
                game=game, seats=seats, options=options, deal_secret=new_secret(),
                strike_limit=settings.BLUFF_MAX_STRIKES,
                move_time_limit=settings.BLUFF_DEFAULT_MOVE_TIME_LIMIT,
                max_in_flight=settings.LADDER_MAX_IN_FLIGHT,
                in_flight_per_entrant=settings.LADDER_IN_FLIGHT_PER_BOT,
                pair_cap_per_day=settings.LADDER_PAIR_CAP_PER_DAY,
                starve_after_seconds=settings.LADDER_STARVE_SECONDS,
                burst=settings.LADDER_BURST, started_at=now)
    except IntegrityError:  # made meanwhile by another join
        return Ladder.objects.get(game=game, seats=seats)


def _owner_of(kind: str, bot: str) -> Any:
    """The bot's owner's user id (``SeatKind.bot_owners``), None for a reference bot;
    ``LadderBotNotFound`` if there is no such bot."""
    if kind == REFERENCE:
        return None
    try:
        owners = get_seat_kind(kind).bot_owners
    except KeyError:
        raise BadLadderEntry(f"unknown bot kind {kind!r}") from None
    if owners is None:
        raise BadLadderEntry(f"a {kind} bot cannot join a ladder (it has no owner)")
    owner = owners({bot}).get(bot)
    if owner is None:
        raise LadderBotNotFound(f"no {kind} bot {bot}")
    return owner


def _check_may_change(user: AbstractBaseUser | None, kind: str, owner: Any, bot: str) -> None:
    """Its owner or staff; a reference bot, staff only (``user`` None: the platform itself,
    ``manage.py ladder``)."""
    if user is None or user.is_staff:
        return
    if kind == REFERENCE:
        raise NotYourLadderBot("only staff put reference bots on a ladder or take them off")
    if owner != user.pk:
        raise NotYourLadderBot(f"{kind} bot {bot} is not yours: only its owner may put it "
                               f"on a ladder or take it off")


def ladder_join(*, game: str, user: AbstractBaseUser | None, bot: str,
                kind: str = "webhook", seats: int | None = None) -> tuple[LadderEntry, bool]:
    """Put ``user``'s bot on the game's ladder, or back on it (after leaving, or paused: the
    owner says it is fixed). The bot must be one any match may seat (public, enabled, through
    its handshake, playing the game): ladder matches are the platform's. A bot held by its
    in-place version's run (:data:`VERSION_HELD`) joins paused so, on any ladder, until the
    version is decided. Returns (the entry, whether it changed: False if it was on and playing,
    or held, already)."""
    bot = str(bot)
    _check_game(game)
    seats = ladder_seats(game, seats)
    owner = _owner_of(kind, bot)
    _check_may_change(user, kind, owner, bot)
    try:
        get_seat_kind(kind).check_bot(game, bot, None)
    except (KeyError, ValueError, BadSeats) as exc:
        raise BadLadderEntry(f"{exc}: a ladder seats bots any match may seat (public, "
                             f"enabled, through their handshake, playing {game}); fix it on "
                             f"its page, then join again") from None
    ladder = ladder_get_or_create(game=game, seats=seats)
    now = timezone.now()
    start = MODEL.rating()
    held = (LadderEntry.objects.filter(kind=kind, bot=bot, paused=True,
                                       paused_reason__endswith=VERSION_HELD)
            .values_list("paused_reason", flat=True).first())
    pause = (True, held, now) if held else (False, "", None)
    with transaction.atomic():
        rating, _ = LeaderboardEntry.objects.get_or_create(
            game=game, kind=kind, ref=bot, defaults={"mu": start.mu, "sigma": start.sigma,
                                                     "ordinal": start.ordinal()})
        entry, made = LadderEntry.objects.select_for_update().get_or_create(
            ladder=ladder, kind=kind, bot=bot, defaults={
                "owner_id": owner, "rating": rating, "joined_at": now,
                "burst_left": ladder.burst, **dict(zip(PAUSE, pause))})
        changed = made or (entry.paused and not held) or entry.left_at is not None
        if not made and changed:
            if entry.left_at is not None:
                entry.joined_at = now
            entry.left_at = None
            entry.paused, entry.paused_reason, entry.paused_at = pause
            entry.save(update_fields=["joined_at", "left_at", "paused", "paused_reason",
                                      "paused_at"])
        if changed:
            kinds.enqueue("advance", SERIES, ladder.pk)  # its first match now, not later
    return entry, changed


def ladder_leave(*, game: str, user: AbstractBaseUser | None, bot: str,
                 kind: str = "webhook", seats: int | None = None) -> LadderEntry:
    """Take the bot off the game's ladder: no new match seats it; its matches in play end as
    they would, and count. ``NotOnLadder`` if it is not on it."""
    bot = str(bot)
    _check_game(game)
    seats = ladder_seats(game, seats)
    owner = _owner_of(kind, bot)
    _check_may_change(user, kind, owner, bot)
    with transaction.atomic():
        entry = (LadderEntry.objects.select_for_update()
                 .filter(ladder__game=game, ladder__seats=seats, kind=kind, bot=bot,
                         left_at__isnull=True).first())
        if entry is None:
            raise NotOnLadder(f"{kind} bot {bot} is not on the {game} ladder of {seats} seats")
        entry.left_at = timezone.now()
        entry.save(update_fields=["left_at"])
    return entry
