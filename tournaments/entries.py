"""Entering a tournament open for entries (``Tournament.entries_open``) and leaving it before
it starts: a bot owner enters one of their bots, a person enters themself
(``POST/DELETE /api/tournaments/{id}/entries/``, the tournament's page).

Each entry or leave holds the tournament's row lock, as its start does
(``services.tournament_start``), so none lands after the schedule was made: participants stay
numbered 0, 1, 2 ... without a gap (a leave closes the gap), as the formats count them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from games.seats import PLAYER, get_seat_kind

from .entrants import entered_twice, entrant_fields, entrant_kind_label
from .errors import (
    AlreadyEntered,
    BadEntry,
    EntriesClosed,
    NotEntered,
    NotYourBot,
    NotYourTournament,
    TournamentFull,
    TournamentNotFound,
    TournamentStarted,
)
from .models import Participant, Tournament


def tournament_enter(*, tournament_id: int, user: AbstractBaseUser, kind: str = PLAYER,
                     bot: str = "", name: str = "") -> Participant:
    """``user`` enters themself (``kind`` player) or one of their bots (any other kind whose
    bots have owners: ``SeatKind.bot_owners``) as the last participant. The bot must be one
    the tournament's matches can seat: they are made for its organiser, so a private bot
    enters only its owner's tournament."""
    tournament = _open_tournament(tournament_id)
    spec = _spec(user, kind, bot, name)
    with transaction.atomic():
        tournament = _locked(tournament.pk)
        entered = list(tournament.participants.order_by("index"))
        try:
            fields = entrant_fields(tournament.game, spec, tournament.organiser)
        except ValueError as exc:
            raise BadEntry(f"{exc}: only a bot that plays {tournament.game}, enabled, through "
                           f"its handshake and public (unless the tournament is yours) can "
                           f"enter; enter another bot, or fix this one on its page") from None
        entrant = Participant(tournament=tournament, index=len(entered), **fields)
        twice = entered_twice([*entered, entrant])
        if twice is not None:
            raise AlreadyEntered(f"{entrant.name} is entered already (participant "
                                 f"{twice[0].index}); to enter again, leave first")
        cap = tournament.entry_cap or settings.TOURNAMENT_MAX_PARTICIPANTS
        if len(entered) >= cap:
            raise TournamentFull(f"the tournament is full ({cap} of {cap} places taken); "
                                 f"enter again if someone leaves before the start")
        entrant.save()
    return entrant


def tournament_leave(*, tournament_id: int, user: AbstractBaseUser, kind: str = PLAYER,
                     bot: str = "", username: str = "") -> Participant:
    """The entry of ``user`` (``kind`` player) or of their bot leaves before the start; the
    organiser (or staff) may take out any entry, a person's by ``username``. The
    participants after it move up one."""
    tournament = _open_tournament(tournament_id)
    organising = user.is_staff or user.pk == tournament.organiser_id
    username = username or user.get_username()
    if kind != PLAYER and not organising:
        _check_owner(user, kind, bot)
    if kind == PLAYER and username != user.get_username() and not organising:
        raise NotYourTournament("only the tournament's organiser (or staff) takes out "
                                "someone else's entry; leave with your own")
    with transaction.atomic():
        tournament = _locked(tournament.pk)
        entries = Participant.objects.filter(tournament=tournament, kind=kind)
        entries = (entries.filter(user__username=username) if kind == PLAYER
                   else entries.filter(bot=str(bot)))
        entry = entries.order_by("index").first()
        if entry is None:
            who = ("you are" if username == user.get_username() else f"{username} is") \
                if kind == PLAYER else f"{entrant_kind_label(kind)} {bot} is"
            raise NotEntered(f"{who} not entered in this tournament")
        entry.delete()
        # One at a time, upwards: each index is free when the next takes it.
        for later in (Participant.objects.filter(tournament=tournament, index__gt=entry.index)
                      .order_by("index")):
            Participant.objects.filter(pk=later.pk).update(index=later.index - 1)
    return entry


def _open_tournament(tournament_id: int) -> Tournament:
    """The tournament, if it takes entries now (checked again under its lock)."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentNotFound()
    _check_taking(tournament)
    return tournament


def _locked(tournament_id: int) -> Tournament:
    tournament = (Tournament.objects.select_for_update().select_related("organiser")
                  .get(pk=tournament_id))
    _check_taking(tournament)
    return tournament


def _check_taking(tournament: Tournament) -> None:
    if tournament.status != Tournament.Status.SCHEDULED:
        raise TournamentStarted(f"the tournament is {tournament.status}: entries closed when "
                                f"it started")
    if not tournament.entries_open:
        raise EntriesClosed("this tournament is not open for entries: its organiser chose its "
                            "participants when creating it; ask them to add you")


def _spec(user: AbstractBaseUser, kind: str, bot: str, name: str) -> dict[str, Any]:
    """The participant spec of an entry by ``user``: themself, or a bot they own."""
    label = {"name": name} if name else {}
    if kind == PLAYER:
        return {"kind": PLAYER, "user": user.get_username(), **label}
    _check_owner(user, kind, bot)
    return {"kind": kind, "bot": str(bot), **label}


def _check_owner(user: AbstractBaseUser, kind: str, bot: str) -> None:
    """Only a bot's owner enters it or takes it out (the organiser too, for the latter)."""
    try:
        owners = get_seat_kind(kind).bot_owners
    except KeyError:
        owners = None
    if owners is None:
        raise BadEntry(f"a {entrant_kind_label(kind)} cannot enter by itself: only the "
                       f"organiser enters one, when creating the tournament; enter a bot of "
                       f"yours (webhook) or yourself (player)")
    owner = owners({str(bot)}).get(str(bot))
    if owner is None:
        raise BadEntry(f"no {entrant_kind_label(kind)} {bot!r}; enter one of your bots by its id")
    if owner != user.pk:
        raise NotYourBot(f"{entrant_kind_label(kind)} {bot} is not yours: only its owner "
                         f"enters it")
