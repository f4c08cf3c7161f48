"""Versions of a bot (docs/ladder.md, "Versions"), joining its two halves: the bots' (the
candidate row, its handshake and seat kind, promotion: ``bots.versions``) and the ladder's
(the provisional run and its comparison, the burst of a changed bot:
``tournaments.ladders.versions``). Bots and tournaments never import each other; the API and
the page forms call these."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet

from bots import versions as bot_versions
from bots.errors import BadVersion, VersionPending
from bots.models import BotVersion
from bots.selectors import bot_get_owned
from bots.webhook import WEBHOOK
from tournaments.ladders import versions as runs


def version_register(*, bot_id: int, user: AbstractBaseUser, url: str | None = None,
                     game: str | None = None, seats: int | None = None) -> BotVersion:
    """A new version of the bot at ``url``: its handshake (signed with the bot's secret) must
    pass and list ``game`` (default: the bot's first game); its provisional run of ``game``
    starts at once, at tables of ``seats`` (checked before the handshake: ``bad_ladder`` for a
    size the game is not played at; default: the size of the one ladder of the game the bot is
    on, else the game's first, ``runs.run_seats``). Nothing of the bot changes.
    ``version_pending`` if it has a candidate.

    ``url`` empty or the bot's own: an in-place version, if the handshake there declares a new
    ``version`` (``bad_version`` if not). Its run plays the field alone (the old code no longer
    answers), and until it is decided the bot is paused on every ladder it is on, so its
    rating does not move with code not yet promoted (``runs.hold``)."""
    bot = bot_get_owned(bot_id=bot_id, user=user)
    url = url or bot.url
    game = bot.games[0] if game is None and bot.games else game or ""
    if game not in bot.games:
        raise BadVersion(f"bot {bot.pk} does not play {game!r} (its handshake lists "
                         f"{', '.join(bot.games) or 'nothing'})")
    seats = runs.run_seats(game=game, kind=WEBHOOK, bot=str(bot.pk), seats=seats)
    bot_versions.check_no_candidate(bot)  # before calling the bot
    handshake = bot_versions.version_check(bot=bot, url=url, game=game)
    with transaction.atomic():
        version = bot_versions.version_create(bot=bot, url=url, handshake=handshake)
        run = runs.provisional_run_create(
            organiser=user, name=f"{bot.name} v{version.number}: provisional run", game=game,
            candidate={"kind": bot_versions.CANDIDATE, "bot": str(version.pk),
                       "name": f"{bot.name} v{version.number} (candidate)"},
            current={"kind": WEBHOOK, "bot": str(bot.pk),
                     "name": f"{bot.name} v{bot_versions.current_version(bot)} (current)"},
            seats=seats, in_place=version.in_place)
        version.run = run.pk
        version.save(update_fields=["run"])
        if version.in_place:
            runs.hold(kind=WEBHOOK, bot=str(bot.pk), declared=version.declared_version)
    return version


def version_list(*, bot_id: int, user: AbstractBaseUser) -> QuerySet[BotVersion]:
    """The bot's versions, newest first (its owner's only)."""
    return BotVersion.objects.filter(bot=bot_get_owned(bot_id=bot_id, user=user))


def version_comparisons(versions: list[BotVersion]) -> dict[int, dict[str, Any] | None]:
    """Each version's comparison with the bot in its run, by version id (None: no run)."""
    found = runs.run_comparisons({v.run: (WEBHOOK, str(v.bot_id)) for v in versions
                                  if v.run is not None})
    return {v.pk: found.get(v.run) if v.run is not None else None for v in versions}


def _owned(bot_id: int, user: AbstractBaseUser, number: int) -> BotVersion:
    return bot_versions.version_get(bot=bot_get_owned(bot_id=bot_id, user=user), number=number)


def version_promote(*, bot_id: int, user: AbstractBaseUser, number: int) -> BotVersion:
    """The candidate replaces the bot once its run is over (``version_pending`` while it
    plays): the bot's URL becomes the version's (its handshake must pass), or in place its
    declared version is the bot's; its matches, rating and history stay, and on each ladder it
    is on it plays (again, in place) the burst of a changed bot."""
    version = _owned(bot_id, user, number)
    status = runs.run_playing(version.run)
    if status is not None and version.status == BotVersion.Status.CANDIDATE:
        raise VersionPending(f"version {number}'s provisional run is still playing ({status}): "
                             f"promote it once it is over, or discard it")
    bot_versions.version_promote(version=version, user=user)
    if version.in_place:
        runs.release(kind=WEBHOOK, bot=str(bot_id))
    runs.bot_changed(kind=WEBHOOK, bot=str(bot_id))
    version.refresh_from_db()
    return version


def version_discard(*, bot_id: int, user: AbstractBaseUser, number: int) -> BotVersion:
    """Set the candidate aside, its run stopped if it still plays; the bot is unchanged. In
    place, the bot plays its ladders again, but its URL still serves the discarded code (the
    platform cannot bring the old one back): ``bots.versions.version_note`` says so."""
    version = _owned(bot_id, user, number)
    if version.status == BotVersion.Status.CANDIDATE and version.run is not None:
        runs.run_cancel(run_id=version.run, user=user)
    discarded = bot_versions.version_discard(version=version)
    if discarded.in_place:
        runs.release(kind=WEBHOOK, bot=str(bot_id))
    return discarded

