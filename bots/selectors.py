"""Reads of bots: ownership checks and per-bot stats from the call log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, F, Q, QuerySet
from django.utils import timezone

from games.models import Seat
from lib.filtering import filtered

from .caller import percentile
from .errors import BotNotFound, NotYourBot
from .filters import BotCallFilter
from .models import REDEPLOYED, TEST_SERIES, Bot, BotCall, BotSeat
from .protocol import PLATFORM_ERROR

JSON = dict[str, Any]

#: Latency percentiles are over this many of the bot's latest /move calls.
LATENCY_WINDOW = 1000


def bot_list(*, owner: AbstractBaseUser) -> QuerySet[Bot]:
    return Bot.objects.filter(owner=owner).order_by("name", "pk")


#: At most this many bots offered in a seat picker (the most recently checked first).
SEATABLE_SHOWN = 200


def bots_seatable(*, game: str, user: AbstractBaseUser | None) -> list[Bot]:
    """The bots ``user`` may seat in a match of ``game`` now (what ``check_webhook_bot``
    accepts): enabled, handshake passed, playing the game, public or theirs; theirs first,
    then by name. The game is checked here, not in SQL (SQLite has no JSON containment)."""
    mine = Q(owner=user) if user is not None and user.is_authenticated else Q(pk__in=[])
    found = (Bot.objects.filter(Q(public=True) | mine, enabled=True, handshake_ok=True)
             .select_related("owner").order_by("-handshake_at")[:SEATABLE_SHOWN])
    bots = [bot for bot in found if game in bot.games]
    return sorted(bots, key=lambda bot: (bot.owner_id != getattr(user, "pk", None),
                                         bot.name.lower(), bot.pk))


def bot_previous_secret(*, bot: Bot, now: datetime | None = None) -> str:
    """The secret replaced by the last rotation while its overlap lasts (calls are signed with
    it too), else ``""``."""
    expires = bot.previous_secret_expires_at
    if not bot.previous_secret or expires is None or expires <= (now or timezone.now()):
        return ""
    return bot.previous_secret


def bot_concurrency(bot: Bot) -> int:
    """How many requests ``bot`` is sent at once at most from one worker process: what its
    last good handshake declared (``max_concurrency``, 1..256), else the platform's
    ``BOTS_MAX_CONCURRENCY``. Why: a bot seated in many matches at once would otherwise get
    as many simultaneous calls as a worker plays its matches, and a small server then answers
    late (a strike). The bot knows what it can take, so it says; one that says nothing gets
    the default."""
    return bot.max_concurrency or settings.BOTS_MAX_CONCURRENCY


def bot_get_owned(*, bot_id: int, user: AbstractBaseUser) -> Bot:
    """The bot if ``user`` owns it: 404 ``bot_not_found`` if there is none, 403 ``not_your_bot``
    if it is someone else's (bot ids are public: anyone may seat a public bot)."""
    bot = Bot.objects.filter(pk=bot_id).first()
    if bot is None:
        raise BotNotFound()
    if bot.owner_id != user.pk:
        raise NotYourBot()
    return bot


def bot_stats(*, bot: Bot) -> JSON:
    """What a developer needs to debug the bot: matches, strikes by reason, latency, errors."""
    seats = BotSeat.objects.filter(bot=bot)
    calls = BotCall.objects.filter(bot=bot)
    moves = calls.filter(path=BotCall.Path.MOVE)
    strikes = {row["reason"]: row["n"] for row in
               calls.filter(strike=True).values("reason").annotate(n=Count("id"))}
    call_errors = {f"{row['path']}:{row['reason']}": row["n"] for row in
                   calls.exclude(path=BotCall.Path.MOVE).exclude(reason="")
                   .values("path", "reason").annotate(n=Count("id"))}
    latencies = list(moves.exclude(reason=PLATFORM_ERROR)
                     .values_list("elapsed_ms", flat=True)[:LATENCY_WINDOW])
    last = calls.exclude(reason="").first()
    return {
        "matches_played": seats.filter(ended_at__isnull=False).count(),
        "matches_running": seats.filter(ended_at__isnull=True).count(),
        "moves": moves.count(),
        "strikes": strikes,
        "strike_total": sum(strikes.values()),
        "platform_errors": calls.filter(reason=PLATFORM_ERROR).count(),
        "call_errors": call_errors,
        "latency_ms": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95),
                       "max": max(latencies) if latencies else None, "count": len(latencies)},
        "last_error": None if last is None else {
            "at": last.created_at, "path": last.path, "match": last.match_id, "seat": last.seat,
            "turn": last.turn, "reason": last.reason, "detail": last.detail,
            "status": last.status},
    }


def bot_matches(*, bot: Bot) -> QuerySet[BotSeat]:
    """The bot's seats in matches, newest match first, each with its match."""
    return BotSeat.objects.filter(bot=bot).select_related("match").order_by("-match_id",
                                                                            "number")


def seat_rank(seat: BotSeat) -> int | None:
    """The seat's rank (1 = best) once its match is over and may be shown (a sealed duplicate
    deal shows nothing until its tournament is over), else None."""
    match = seat.match
    if match.status != match.Status.FINISHED or match.sealed or not match.result:
        return None
    return match.result["ranks"][seat.number]


def bot_recent_calls(*, bot: Bot, limit: int = 20) -> list[BotCall]:
    return list(bot_calls(bot=bot)[:limit])


def bot_calls(*, bot: Bot, path: str | None = None, match: int | None = None,
              reason: str | None = None, failed: bool | None = None) -> QuerySet[BotCall]:
    """The bot's call log, newest first, filtered: ``failed`` True keeps calls with a reason
    (a strike, a /start or /end failure, or ours), False the successful ones."""
    calls = filtered(BotCallFilter, BotCall.objects.filter(bot=bot),
                     {"path": path, "match": match, "reason": reason, "failed": failed})
    return calls.order_by("-id")


def bot_test_runs(*, bot: Bot, limit: int = 12) -> JSON:
    """The bot's latest test matches (``services.bot_test``), newest first, each with its
    seat, rank once over and strikes, and over them what ``check_bot`` reports: finished,
    won, strikes, the /move latency p50, p95 and max."""
    seats = list(Seat.objects.filter(kind="webhook", bot_name=str(bot.pk),
                                     match__series=TEST_SERIES)
                 .select_related("match").order_by("-match_id")[:limit])
    ranks = [seat.match.result["ranks"][seat.number]
             if seat.match.status == seat.match.Status.FINISHED and seat.match.result else None
             for seat in seats]
    times = list(BotCall.objects.filter(bot=bot, path=BotCall.Path.MOVE,
                                        match_id__in=[seat.match_id for seat in seats])
                 .exclude(reason=PLATFORM_ERROR).values_list("elapsed_ms", flat=True))
    return {"rows": [{"seat": seat, "rank": rank} for seat, rank in zip(seats, ranks)],
            "finished": sum(rank is not None for rank in ranks),
            "won": sum(rank == 1 for rank in ranks),
            "strikes": sum(seat.strikes for seat in seats),
            "latency_ms": {"p50": percentile(times, 50), "p95": percentile(times, 95),
                           "max": max(times, default=None), "count": len(times)}}


def bots_held(*, checked_before: datetime) -> QuerySet[Bot]:
    """Enabled bots a handshake holds out of play, last checked before ``checked_before``:
    the last one failed, or the URL was seen serving a version other than the bot's own (a
    ladder pauses such a bot as redeployed). A handshake that passes puts either back."""
    due = Q(handshake_at__isnull=True) | Q(handshake_at__lt=checked_before)
    return (Bot.objects.filter(due, enabled=True).filter(Q(handshake_ok=False) | REDEPLOYED)
            .order_by(F("handshake_at").asc(nulls_first=True)))
