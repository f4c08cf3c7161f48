"""Organising in the browser: ``/tournaments/new/`` and ``/leagues/new/`` (a game first, then
its form: entrants picked from the reference bots, the bots the organiser may enter and people
by username; the format, schedule and options), a tournament's cancellation, a league's
one-off night and a night's cancellation. Each calls the service the API calls
(``tournaments.services``, ``tournaments.leagues.services``), so its checks and error codes are the
API's, shown at the field they are about; only the organiser or staff changes a series (a 403
for anyone else, as ``not_your_tournament`` and ``not_your_league``).
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from games.engine import game_ids, get_game
from games.forms import show_refusal
from games.pages import game_cards
from games.seats import PLAYER, seat_spec
from lib.errors import DomainError

from .. import entries, services
from ..errors import (
    LeagueNotFound,
    NotYourBot,
    NotYourLeague,
    NotYourTournament,
    TournamentNotFound,
)
from ..leagues import services as leagues
from ..leagues.rules import in_zone
from ..models import Tournament
from .forms import LeagueForm, MemberForm, NightForm, SeriesForm, TournamentForm
from .pages import league as league_page


def _new_series(request: HttpRequest, what: str, form_class: type[SeriesForm],
                arguments: Callable[[SeriesForm], dict[str, Any]],
                create: Callable[..., Any], problems: Callable[..., list[DomainError]],
                page: str) -> HttpResponse:
    """``?game=``: its form, sent to ``create`` (the service), else the games to pick from.
    A sent form answers every mistake at once: each field's own, and each of the service's
    ``problems`` with what was typed (a problem at a field already refused is left out: it
    is about the field's default), each at its field; a success goes to the series' page."""
    game = request.GET.get("game", "")
    context: dict[str, Any] = {"what": what}
    if game not in game_ids():
        return render(request, "tournaments/new_series.html", {**context, "games": game_cards()})
    form = form_class(game, request.user, request.POST or None)
    if request.method == "POST":
        valid = form.is_valid()
        _, fields = form.entrants()
        given = arguments(form)
        for problem in problems(**given):
            form.refused(problem, fields, unless_refused=True)
        if valid and not form.errors:
            try:
                series = create(**given)
            except DomainError as error:
                form.refused(error, fields)
            else:
                return redirect(page, series.pk)
    return render(request, "tournaments/new_series.html",
                  {**context, "game": get_game(game), "form": form})


@login_required
def tournament_new(request: HttpRequest) -> HttpResponse:
    """Pick a game, then organise a tournament of it (``POST /api/tournaments/``)."""
    def arguments(form: SeriesForm) -> dict[str, Any]:
        data = form.cleaned_data
        starts_at = data.get("starts_at")
        return {"organiser": request.user, "participants": form.entrants()[0],
                **form.common(), "table_size": data.get("table_size"),
                "meetings": data.get("meetings") or 1, "duplicate": data.get("duplicate", False),
                "format": data.get("format") or Tournament.Format.ROUND_ROBIN,
                "rounds": data.get("rounds"), "open_entries": data.get("open_entries", False),
                "entry_cap": data.get("entry_cap"),
                "starts_at": None if starts_at is None else in_zone(
                    _wall_time(starts_at),
                    zoneinfo.ZoneInfo(data.get("timezone_name") or "UTC"))}

    return _new_series(request, "tournament", TournamentForm, arguments,
                       services.tournament_create, services.tournament_problems,
                       "tournament-page")


@login_required
@require_POST
def tournament_cancel(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Stop the tournament (``POST /api/tournaments/{id}/cancel/``): organiser or staff."""
    try:
        services.tournament_cancel(tournament_id=tournament_id, user=request.user)
    except TournamentNotFound:
        raise Http404("no such tournament") from None
    except NotYourTournament as error:
        raise PermissionDenied(error.detail) from None
    except DomainError as error:
        messages.error(request, f"{error.detail} ({error.code})")
    else:
        messages.success(request, "Cancelled: no match of it starts any more.")
    return redirect("tournament-page", tournament_id)


@login_required
@require_POST
def tournament_enter(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Enter yourself or one of your bots (``POST /api/tournaments/{id}/entries/``): the
    ``entrant`` picked on the tournament's page; a refusal is a message there."""
    return _entry(request, tournament_id, entries.tournament_enter, "Entered")


@login_required
@require_POST
def tournament_leave(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Leave before the start (``DELETE /api/tournaments/{id}/entries/``)."""
    return _entry(request, tournament_id, entries.tournament_leave, "Left")


def _entry(request: HttpRequest, tournament_id: int, call: Callable[..., Any],
           done: str) -> HttpResponse:
    spec = seat_spec(request.POST.get("entrant") or PLAYER)
    try:
        entry = call(tournament_id=tournament_id, user=request.user, kind=spec["kind"],
                     bot=spec.get("bot", ""))
    except TournamentNotFound:
        raise Http404("no such tournament") from None
    except NotYourBot as error:
        raise PermissionDenied(error.detail) from None
    except DomainError as error:
        messages.error(request, f"{error.detail} ({error.code})")
    else:
        messages.success(request, f"{done}: {entry.name}.")
    return redirect("tournament-page", tournament_id)


@login_required
def league_new(request: HttpRequest) -> HttpResponse:
    """Pick a game, then start a league of it (``POST /api/leagues/``)."""
    def arguments(form: SeriesForm) -> dict[str, Any]:
        data = form.cleaned_data
        return {"organiser": request.user, "members": form.entrants()[0], **form.common(),
                "table_size": data.get("table_size"),
                "hands_per_night": data.get("hands_per_night") or 1,
                "weekday": data.get("weekday"), "night_time": data.get("night_time"),
                "timezone_name": data.get("timezone_name") or "UTC",
                "season_start": _wall_time(data.get("season_start")),
                "season_end": _wall_time(data.get("season_end"))}

    return _new_series(request, "league", LeagueForm, arguments, leagues.league_create,
                       leagues.league_problems, "league-page")


def _wall_time(moment: Any) -> Any:
    """A form's date as the wall time it was typed (the service reads a naive one in the
    league's time zone; Django's field made it aware in the site's)."""
    return moment.replace(tzinfo=None) if moment is not None else None


def _changing_league(call: Any, request: HttpRequest, league_id: int, **kwargs: Any) -> Any:
    try:
        return call(league_id=league_id, user=request.user, **kwargs)
    except LeagueNotFound:
        raise Http404("no such league or night") from None
    except NotYourLeague as error:
        raise PermissionDenied(error.detail) from None


@login_required
@require_POST
def night_add(request: HttpRequest, league_id: int) -> HttpResponse:
    """A one-off night (``POST /api/leagues/{id}/nights/``); its refusal is shown at the
    field on the league page."""
    form = NightForm(request.POST)
    if form.is_valid():
        try:
            night = _changing_league(leagues.night_schedule, request, league_id,
                                     starts_at=_wall_time(form.cleaned_data["starts_at"]))
        except DomainError as error:
            show_refusal(form, error, "starts_at")
        else:
            messages.success(request, f"Night {night.number} scheduled.")
            return redirect("league-page", league_id)
    return league_page(request, league_id, night_form=form)


@login_required
@require_POST
def member_add(request: HttpRequest, league_id: int) -> HttpResponse:
    """A member joins (``POST /api/leagues/{id}/members/``): organiser or staff; its refusal
    is shown on the league page, at the form."""
    found = _changing_league(leagues.league_get_changeable, request, league_id)
    form = MemberForm(found.game, request.user, request.POST)
    if form.is_valid():
        try:
            joined = leagues.members_join(league_id=league_id, user=request.user,
                                          specs=[form.spec()])
        except DomainError as error:
            show_refusal(form, error, None)
        else:
            messages.success(request, f"{joined[0].name} joins at the next night.")
            return redirect("league-page", league_id)
    return league_page(request, league_id, member_form=form)


@login_required
@require_POST
def night_cancel(request: HttpRequest, league_id: int, number: int) -> HttpResponse:
    """Cancel a scheduled or running night (``POST .../nights/{number}/cancel/``)."""
    try:
        _changing_league(leagues.night_cancel, request, league_id, number=number)
    except DomainError as error:
        messages.error(request, f"{error.detail} ({error.code})")
    else:
        messages.success(request, f"Night {number} cancelled: it counts for nothing.")
    return redirect("league-page", league_id)
