"""Versions of a bot (docs/ladder.md, "Versions"): a new URL registered as a candidate, played
beside the live bot before it may replace it, then promoted (the bot's URL becomes it) or
discarded; or an in-place one, the bot's own URL once its handshake declares a new
``version`` (a redeploy: it plays alone, the old code gone). This module is the bots' half: the candidate row, its handshake, the ``candidate``
seat kind that seats it (the bot's secret, the version's URL), and promoting or discarding it.
The provisional run and its comparison are ``tournaments.ladders.versions`` (bots never
imports tournaments).

A secret rotation is never a version: it changes how calls are signed, not what plays.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.urls import reverse
from django.utils import timezone

from games.seats import SeatKind, register_seat_kind

from . import protocol, services
from .errors import BadVersion, VersionNotFound, VersionPending
from .models import Bot, BotVersion
from .selectors import bot_previous_secret
from .webhook import WebhookSession, bot_label

#: The seat kind of a candidate version: ``{"kind": "candidate", "bot": <version id>}``.
CANDIDATE = "candidate"


def version_check(*, bot: Bot, url: str, game: str) -> protocol.Handshake:
    """The version's handshake, signed with the bot's secret (network I/O: before any
    transaction). At the bot's own URL it is a version (in place) only if the handshake
    declares a ``version`` other than the one recorded for the bot's live code
    (``Bot.declared_version``). Raises ``bad_url``, ``bad_version`` (the bot's own URL
    declaring nothing new; a handshake that does not list ``game``) or ``handshake_failed``."""
    url = services.check_bot_url(url)
    handshake, _ = services.bot_handshake(url=url, secret=bot.secret,
                                          previous_secret=bot_previous_secret(bot=bot))
    if url == bot.url:  # what the bot's URL serves now, a version or not
        services.note_serving_version(bot_id=bot.pk, version=handshake.version)
    if url == bot.url and handshake.version in ("", bot.declared_version):
        said = (f'declares version "{handshake.version}", as the bot\'s live code did'
                if handshake.version else "declares no version")
        raise BadVersion(f"{url} is the bot's URL already and its handshake {said}: a redeploy "
                         f"at the same URL is a version only when its handshake declares a new "
                         f"`version`; otherwise a version is a new URL, played beside the bot "
                         f"(a secret rotation is not a version)")
    if game not in handshake.games:
        raise BadVersion(f"the handshake at {url} does not list {game} (it lists "
                         f"{', '.join(handshake.games)}): the provisional run plays {game}")
    return handshake


def version_create(*, bot: Bot, url: str, handshake: protocol.Handshake) -> BotVersion:
    """The candidate row (call inside the transaction that makes its run): numbered after the
    bot's last (the bot as registered is version 1), in place at the bot's own URL
    (:func:`version_check` let it through). ``version_pending`` if it has one."""
    check_no_candidate(bot)
    last = BotVersion.objects.filter(bot=bot).aggregate(last=Max("number"))["last"] or 1
    try:
        with transaction.atomic():
            url = services.check_bot_url(url)
            return BotVersion.objects.create(
                bot=bot, number=last + 1, url=url, in_place=url == bot.url,
                declared_version=handshake.version,
                compact_legal_actions=handshake.compact_legal_actions)
    except IntegrityError:  # another registration won the race
        check_no_candidate(bot)
        raise


def check_no_candidate(bot: Bot) -> None:
    """``version_pending`` if the bot has a candidate (one at a time)."""
    if BotVersion.objects.filter(bot=bot, status=BotVersion.Status.CANDIDATE).exists():
        raise VersionPending(f"bot {bot.pk} has a candidate version already: promote or "
                             f"discard it before registering another")


def version_get(*, bot: Bot, number: int) -> BotVersion:
    version = BotVersion.objects.filter(bot=bot, number=number).first()
    if version is None:
        raise VersionNotFound(f"bot {bot.pk} has no version {number}")
    return version


def _undecided(version: BotVersion) -> None:
    if version.status != BotVersion.Status.CANDIDATE:
        raise VersionPending(f"version {version.number} was {version.status} already")


def version_promote(*, version: BotVersion, user: AbstractBaseUser) -> Bot:
    """The bot plays at the version's URL from now on (its handshake runs again and must pass:
    ``bot_update``); in place, the code at its URL is the bot's (its handshake must still
    declare the version: ``bot_redeployed``). The bot keeps its id, matches, rating and
    history. The caller checks the run is over."""
    _undecided(version)
    if version.in_place:
        bot = services.bot_redeployed(bot_id=version.bot_id, user=user,
                                      version=version.declared_version)
    else:
        bot = services.bot_update(bot_id=version.bot_id, user=user, url=version.url)
    _decide(version, BotVersion.Status.PROMOTED)
    return bot


def version_discard(*, version: BotVersion) -> BotVersion:
    """The candidate is set aside; nothing of the bot changes."""
    _undecided(version)
    return _decide(version, BotVersion.Status.DISCARDED)


def _decide(version: BotVersion, status: str) -> BotVersion:
    done = BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.CANDIDATE).update(
        status=status, decided_at=timezone.now())
    if not done:
        raise VersionPending(f"version {version.number} was decided meanwhile")
    version.refresh_from_db()
    return version


def version_note(version: BotVersion) -> str | None:
    """What its owner should know of an in-place version (None for others): a candidate holds
    the bot off its ladders; a discarded one still answers at the bot's URL."""
    if not version.in_place:
        return None
    if version.status == BotVersion.Status.CANDIDATE:
        return ("In place: the bot is paused on its ladders until you promote or discard this "
                "version (its old code no longer answers).")
    if version.status == BotVersion.Status.DISCARDED:
        return (f"Discarded in place: the bot's URL still serves this code (it declared "
                f"\"{version.declared_version}\") unless you redeployed since, and the bot is "
                f"paused on its ladders while it does (its rating never moves with code not "
                f"promoted): redeploy the version you want there, then run its handshake (the "
                f"platform cannot bring old code back).")
    return None


def current_version(bot: Bot) -> int:
    """The number of the version the bot plays now: its last promoted one, else 1."""
    return (BotVersion.objects.filter(bot=bot, status=BotVersion.Status.PROMOTED)
            .aggregate(last=Max("number"))["last"] or 1)


# ---- the candidate seat kind ---------------------------------------------------------------

def _versions(ids: set[str]) -> dict[str, BotVersion]:
    wanted = {int(i) for i in ids if str(i).isdigit()}
    return {str(v.pk): v for v in
            BotVersion.objects.filter(pk__in=wanted).select_related("bot__owner")}


def check_candidate(game_id: str, version: str, user: Any = None) -> None:
    """A candidate seats only in its owner's matches (its provisional run), while undecided,
    its bot enabled and playing the game."""
    found = _versions({str(version)}).get(str(version))
    if found is None:
        raise ValueError(f"no bot version {version!r}")
    if user is None or user.pk != found.bot.owner_id:
        raise ValueError(f"bot version {version} is a candidate: only its owner may seat it")
    if found.status != BotVersion.Status.CANDIDATE:
        raise ValueError(f"bot version {version} was {found.status}")
    if not found.bot.enabled:
        raise ValueError(f"bot {found.bot_id} is disabled")
    if game_id not in found.bot.games:
        raise ValueError(f"bot {found.bot_id} does not play {game_id}")


def candidate_names(ids: set[str]) -> dict[str, str]:
    """"ada (alice) v2 candidate"."""
    return {pk: f"{bot_label(v.bot.name, v.bot.owner.get_username())} v{v.number} candidate"
            for pk, v in _versions(ids).items()}


def candidate_url(version: str) -> str | None:
    found = _versions({version}).get(version)
    return reverse("bot-page", args=[found.bot_id]) if found else None


class CandidateSession(WebhookSession):
    """Webhook seats played by a candidate: its bot (secret, settings, call log, seats) at the
    version's URL."""

    kind = CANDIDATE
    bots_read_with_claim = False  # seats name versions, not bots
    # Its seats play a version, not the code at the bot's URL (an in-place one's handshake
    # at registration recorded that): what its /start answers declare is left alone.
    tracks_versions = False

    def _load(self, ids: set[int]) -> dict[int, Bot]:
        found = {}
        for pk, version in _versions({str(i) for i in ids}).items():
            bot = version.bot
            # Never saved: the live bot keeps its URL and what its own handshake said.
            bot.url, bot.compact_legal_actions = version.url, version.compact_legal_actions
            found[int(pk)] = bot
        return found


class CandidateSeatKind:
    def session(self, table: Any) -> CandidateSession:
        return CandidateSession(table)


def register() -> None:
    register_seat_kind(SeatKind(name=CANDIDATE, automatic=CandidateSeatKind(), inline=False,
                                check_bot=check_candidate, bot_is_id=True,
                                bot_names=candidate_names, bot_url=candidate_url,
                                label="bot version candidate", enterable=False))
