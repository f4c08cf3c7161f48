"""Services of webhook bots: registration, management and the handshake health check.

Every change goes through here (``bot_<action>``); views stay thin. The handshake is network
I/O, so it runs before any transaction is opened: a slow bot never holds a database lock.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from games.engine import game_ids, get_game
from games.models import Match
from games.services import NewMatch, matches_create
from lib.clock import platform_clock

from . import protocol
from .addresses import BadBotURL, check_url
from .errors import BadBotUrl, BadVersion, BotNameTaken, HandshakeFailed
from .models import TEST_SERIES, Bot, BotCall
from .net import Call, Reply, bot_client
from .selectors import bot_get_owned, bot_previous_secret, bots_held
from .signing import new_secret

log = logging.getLogger(__name__)

def check_bot_url(url: str) -> str:
    """The URL as a bot's base URL (``bad_url`` if it cannot be one)."""
    try:
        return str(check_url(url))
    except BadBotURL as exc:
        raise BadBotUrl(str(exc)) from None


def bot_handshake(*, url: str, secret: str,
                  previous_secret: str = "") -> tuple[protocol.Handshake, Reply]:
    """``GET {url}/`` signed with ``secret`` (and ``previous_secret``, if any); raise
    :class:`HandshakeFailed` unless it is a valid protocol-v1 handshake naming at least one of
    our games (the ids it names that are not ours are in ``unknown_games``)."""
    check_bot_url(url)
    platform_clock().refresh()  # the time the handshake is signed with
    reply = bot_client().call(Call(url=url, path="", body=protocol.handshake_body(),
                                   secret=secret, previous_secret=previous_secret, method="GET",
                                   timeout=settings.BOTS_HANDSHAKE_TIMEOUT_MS / 1000))
    outcome = reply.failure or protocol.parse_handshake(reply.body)
    if isinstance(outcome, protocol.Failure):  # its detail says what usually causes it
        raise HandshakeFailed(f"{outcome.reason}: {outcome.detail}", reason=outcome.reason)
    if not outcome.games:
        raise HandshakeFailed(f"no_games: the handshake lists none of our games "
                              f"({', '.join(game_ids())}); it says {outcome.unknown_games[:10]}",
                              reason="no_games")
    return outcome, reply


def _handshake_fields(handshake: protocol.Handshake) -> dict[str, Any]:
    """What a handshake that passed says of the bot: every one records what its URL serves
    now (``serving_version``), never the version taken as the bot's (``declared_version``)."""
    return {"serving_version": handshake.version, "games": handshake.games,
            "handshake_ok": True, "handshake_at": timezone.now(), "handshake_error": "",
            "remote_name": handshake.name, "remote_author": handshake.author,
            "compact_legal_actions": handshake.compact_legal_actions,
            "max_concurrency": handshake.max_concurrency,
            "unknown_games": handshake.unknown_games}


def note_serving_version(*, bot_id: int, version: str) -> bool:
    """What the bot's URL was just seen serving (a handshake there, a /start answer), written
    only if it changed: one conditional UPDATE, nothing when it did not. True if it did."""
    return bool(Bot.objects.filter(pk=bot_id).exclude(serving_version=version)
                .update(serving_version=version))


def _record_handshake(bot: Bot, reply: Reply, failure: HandshakeFailed | None = None) -> None:
    BotCall.objects.create(bot=bot, path=BotCall.Path.HANDSHAKE, elapsed_ms=reply.elapsed * 1000,
                           status=reply.status, reason=failure.reason if failure else "",
                           detail=failure.detail if failure else "")


def bot_register(*, owner: AbstractBaseUser, name: str, url: str,
                 public: bool = True) -> tuple[Bot, str]:
    """Register a bot; its handshake (signed with its new secret) must pass. Returns the bot and
    its secret, which is never shown again."""
    url = check_bot_url(url)
    if Bot.objects.filter(owner=owner, name=name).exists():
        raise BotNameTaken(f"you already have a bot named {name!r}")
    secret = new_secret()
    handshake, reply = bot_handshake(url=url, secret=secret)
    try:
        with transaction.atomic():
            bot = Bot.objects.create(owner=owner, name=name, url=url, secret=secret,
                                     public=public, declared_version=handshake.version,
                                     **_handshake_fields(handshake))
            _record_handshake(bot, reply)
    except IntegrityError:
        raise BotNameTaken(f"you already have a bot named {name!r}") from None
    return bot, secret


def bot_update(*, bot_id: int, user: AbstractBaseUser, name: str | None = None,
               url: str | None = None, public: bool | None = None) -> Bot:
    """Rename or move a bot, or say who may seat it. A rename or move runs the handshake
    again (with the bot's secret), which must pass, or nothing changes. A move records the
    ``version`` the new URL declares as the bot's live code (``declared_version``); a rename or
    a health check does not, or a redeploy would be absorbed without its provisional run."""
    bot = bot_get_owned(bot_id=bot_id, user=user)
    fields: dict[str, Any] = {} if public is None else {"public": public}
    reply = None
    if name is not None or url is not None:
        new_url = check_bot_url(url) if url is not None else bot.url
        new_name = name if name is not None else bot.name
        if new_name != bot.name and Bot.objects.filter(owner=bot.owner, name=new_name).exists():
            raise BotNameTaken(f"you already have a bot named {new_name!r}")
        handshake, reply = bot_handshake(url=new_url, secret=bot.secret,
                                         previous_secret=bot_previous_secret(bot=bot))
        fields.update(name=new_name, url=new_url, **_handshake_fields(handshake))
        if new_url != bot.url:  # new code taken as the bot's: what it declares is the live one
            fields["declared_version"] = handshake.version
    if not fields:
        return bot
    with transaction.atomic():
        for key, value in fields.items():
            setattr(bot, key, value)
        try:
            bot.save()
        except IntegrityError:
            raise BotNameTaken(f"you already have a bot named {fields.get('name')!r}") from None
        if reply is not None:
            _record_handshake(bot, reply)
    return bot


def bot_redeployed(*, bot_id: int, user: AbstractBaseUser, version: str) -> Bot:
    """Take the code at the bot's own URL as the bot's (an in-place version promoted): the
    handshake runs again and must pass and still declare ``version`` (the code its run tried:
    ``bad_version`` if the URL serves another by now), then ``version`` is the bot's
    ``declared_version``."""
    bot = bot_get_owned(bot_id=bot_id, user=user)
    handshake, reply = bot_handshake(url=bot.url, secret=bot.secret,
                                     previous_secret=bot_previous_secret(bot=bot))
    if handshake.version != version:
        raise BadVersion(f"{bot.url} now declares version {handshake.version!r}, not the "
                         f"{version!r} its run tried: discard it and register what it serves")
    with transaction.atomic():
        Bot.objects.filter(pk=bot.pk).update(declared_version=version,
                                             **_handshake_fields(handshake))
        _record_handshake(bot, reply)
    bot.refresh_from_db()
    return bot


def bot_set_enabled(*, bot_id: int, user: AbstractBaseUser, enabled: bool) -> Bot:
    """Disable (no new seats; in running matches it plays default actions with a
    ``bot_unavailable`` strike) or enable a bot again."""
    bot = bot_get_owned(bot_id=bot_id, user=user)
    Bot.objects.filter(pk=bot.pk).update(enabled=enabled, updated_at=timezone.now())
    bot.refresh_from_db()
    return bot


def bot_delete(*, bot_id: int, user: AbstractBaseUser) -> None:
    """Delete a bot and its call log; its seats in running matches play default actions."""
    bot_get_owned(bot_id=bot_id, user=user).delete()


def bot_rotate_secret(*, bot_id: int, user: AbstractBaseUser) -> tuple[Bot, str]:
    """A new secret, returned once; calls are signed with it from now on, and also with the
    replaced one for ``BOTS_SECRET_OVERLAP_HOURS`` (``previous_secret_expires_at``), so the bot
    keeps working until it is redeployed with the new one. No handshake: the bot must first
    learn the new secret."""
    bot = bot_get_owned(bot_id=bot_id, user=user)
    secret, now = new_secret(), timezone.now()
    hours = settings.BOTS_SECRET_OVERLAP_HOURS
    Bot.objects.filter(pk=bot.pk).update(
        secret=secret, previous_secret=bot.secret if hours else "",
        previous_secret_expires_at=now + timedelta(hours=hours) if hours else None,
        updated_at=now)
    bot.refresh_from_db()
    return bot, secret


#: A test run: this many matches against a reference bot, the bot's seat moving round.
TEST_MATCHES = 4


def bot_test(*, bot_id: int, user: AbstractBaseUser, game: str,
             opponent: str = "heuristic", matches: int = TEST_MATCHES) -> list[Match]:
    """A few matches of ``game`` against the ``opponent`` reference bot at the game's fewest
    seats, the bot's seat moving round: what ``manage.py check_bot`` plays, as real matches
    the workers play (strikes, latency and the call log as in any match). The bot must be
    seatable in ``game`` (``bad_seats`` otherwise, as a match of it would say)."""
    bot = bot_get_owned(bot_id=bot_id, user=user)
    players = get_game(game).min_players if game in game_ids() else 2
    runs = [NewMatch(seats=[{"kind": "webhook", "bot": str(bot.pk)} if seat == n % players
                            else {"kind": "reference", "bot": opponent}
                            for seat in range(players)]) for n in range(matches)]
    return matches_create(game=game, created_by=user, matches=runs, series=TEST_SERIES)


def bot_check(*, bot_id: int) -> Bot:
    """Run the handshake now and record the result (a failure makes the bot unseatable until a
    later check passes). Never raises for what the bot does."""
    bot = Bot.objects.get(pk=bot_id)
    try:
        handshake, reply = bot_handshake(url=bot.url, secret=bot.secret,
                                         previous_secret=bot_previous_secret(bot=bot))
    except (HandshakeFailed, BadBotUrl) as exc:
        reason = getattr(exc, "reason", "bad_url")
        Bot.objects.filter(pk=bot.pk).update(handshake_ok=False, handshake_at=timezone.now(),
                                             handshake_error=exc.detail)
        BotCall.objects.create(bot=bot, path=BotCall.Path.HANDSHAKE, elapsed_ms=0, reason=reason,
                               detail=exc.detail)
    else:
        Bot.objects.filter(pk=bot.pk).update(**_handshake_fields(handshake))
        _record_handshake(bot, reply)
    bot.refresh_from_db()
    return bot


def bot_check_owned(*, bot_id: int, user: AbstractBaseUser) -> Bot:
    bot_get_owned(bot_id=bot_id, user=user)
    return bot_check(bot_id=bot_id)


def bots_health_check(*, limit: int = 1000) -> int:
    """Periodic: re-handshake every enabled bot (oldest check first). Returns how many."""
    return _check_each(Bot.objects.filter(enabled=True).order_by("handshake_at"), limit)


def bots_recheck_held(*, limit: int = 40) -> int:
    """Periodic, more often than the health check: re-handshake the bots a handshake holds
    out of play (:func:`bots_held`), so one that answers again, or whose URL serves its own
    version again (a rolled-back redeploy), plays again within minutes, not at the next hourly
    check. At most ``limit`` a run, the longest unchecked first (40 handshakes of 5 s fit the
    task's time limit; more held bots take turns). Returns how many were checked."""
    every = timedelta(seconds=settings.BOTS_RECHECK_HELD_SECONDS)
    # Half the period: a bot this task checked last time is due again now, and one its owner
    # (or the health check) checked a moment ago is not.
    return _check_each(bots_held(checked_before=timezone.now() - every / 2), limit)


def _check_each(bots: QuerySet[Bot], limit: int) -> int:
    """Run the handshake of the first ``limit`` of ``bots``, one after the other; how many."""
    ids = list(bots.values_list("pk", flat=True)[:limit])
    for bot_id in ids:
        try:
            bot_check(bot_id=bot_id)
        except Bot.DoesNotExist:  # deleted meanwhile
            continue
    return len(ids)


def calls_prune(*, days: int | None = None, chunk: int = 5000,
                max_rows: int = 1_000_000) -> int:
    """Delete call log rows older than ``days`` (default ``BOTS_CALL_LOG_DAYS``; 0 keeps them
    all), oldest first, ``chunk`` rows per statement so no delete holds locks for long, at most
    ``max_rows`` per run (the next run goes on). One row per bot move would otherwise grow
    without bound; bots' stats are over the rows kept. Returns how many were deleted."""
    days = settings.BOTS_CALL_LOG_DAYS if days is None else days
    if days <= 0:
        return 0
    cutoff = timezone.now() - timedelta(days=days)
    # Ids grow with time: everything below the first recent id is old (found on the pk index).
    first_kept = (BotCall.objects.filter(created_at__gte=cutoff).order_by("id")
                  .values_list("id", flat=True).first())
    old = BotCall.objects.all() if first_kept is None else BotCall.objects.filter(id__lt=first_kept)
    deleted = 0
    while deleted < max_rows:
        ids = list(old.order_by("id").values_list("id", flat=True)[:min(chunk,
                                                                        max_rows - deleted)])
        if not ids:
            break
        deleted += BotCall.objects.filter(id__in=ids).delete()[0]
    return deleted
