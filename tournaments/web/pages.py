"""Pages of tournaments and leagues: what spectators look at.

Read-only and public, built from the same selectors as the API (so they show what the API
shows: a series' deal secret once it is over, never before). Confidence intervals of the standings are drawn as bars: the range of
a participant's bootstrap interval of mean points (0..1) and a mark at its points. A league's
season points and social order night by night are drawn as line charts (``lib.charts``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone

from games.engine import game_ids
from games.links import SeriesLink
from games.seats import PLAYER, get_seat_kind, seat_choices, seat_spec
from lib.charts import line_chart
from lib.live import live_part

from .. import selectors
from ..errors import LeagueNotFound, TournamentNotFound
from ..leagues.night_kind import published_secret
from ..models import Hand, League, Tournament, TournamentMatch
from .forms import MemberForm, NightForm

#: Rows per page of the tournament and league lists.
PER_PAGE = 25
WEEKDAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays",
            "Sundays")


def _listing(request: HttpRequest, statuses: Sequence[str]) -> dict[str, str]:
    """The list filters asked for (``game``, ``status``), unknown values dropped; 404 for a
    game the engine does not have."""
    query = {key: request.GET.get(key, "").strip() for key in ("game", "status")}
    if query["game"] not in ("", *game_ids()):
        raise Http404("no such game")
    if query["status"] not in ("", *statuses):
        query["status"] = ""
    return query


def tournament_list(request: HttpRequest) -> HttpResponse:
    """Every tournament, newest first (running, upcoming, finished), filtered by game and
    status, paginated: so a finished one is found again."""
    query = _listing(request, Tournament.Status.values)
    found = selectors.tournament_list(game=query["game"] or None,
                                      status=query["status"] or None)
    page = Paginator(found, PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "tournaments/tournaments.html", {
        "page": page, "query": query, "games": game_ids(),
        "statuses": Tournament.Status.choices,
        "filters": urlencode({k: v for k, v in query.items() if v}),
    })


def league_list(request: HttpRequest) -> HttpResponse:
    """Every league, newest first, filtered by game and state (its season to come, under
    way or over), paginated, each with its weekly night."""
    query = _listing(request, tuple(selectors.LEAGUE_STATES))
    now = timezone.now()
    page = Paginator(selectors.league_list(game=query["game"] or None,
                                           state=query["status"] or None, now=now),
                     PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "tournaments/leagues.html", {
        "page": page, "query": query, "games": game_ids(),
        "states": selectors.LEAGUE_STATES.items(),
        "rows": [{"league": league, "weekly": weekly_night(league),
                  "state": selectors.LEAGUE_STATES[selectors.league_state(league, now)]}
                 for league in page.object_list],
        "filters": urlencode({k: v for k, v in query.items() if v}),
    })


def weekly_night(league: League) -> str:
    """"Thursdays at 20:00 (Europe/Paris)" for a recurring league, else ""."""
    if league.weekday is None or league.night_time is None:
        return ""
    return f"{WEEKDAYS[league.weekday]} at {league.night_time:%H:%M} ({league.timezone})"


#: Matches per page of a tournament's match table.
MATCHES_PER_PAGE = 50


def tournament(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A tournament's page. While it is scheduled or running, its live part (status and
    times, progress, standings, the page of matches on screen) is fetched again on its own
    (``?part=live``, by htmx) every few seconds, with an ETag: an unchanged part is a 304."""
    try:
        found = selectors.tournament_get(tournament_id=tournament_id)
    except TournamentNotFound:
        raise Http404("no such tournament") from None
    progress = selectors.tournament_progress(tournament=found)
    names = entrant_names(selectors.tournament_participants(tournament=found))
    page = Paginator(selectors.tournament_matches(tournament=found)
                     .exclude(status=TournamentMatch.Status.CANCELLED),
                     MATCHES_PER_PAGE).get_page(request.GET.get("page"))
    matches = [{"number": row.number + 1, "round": row.round + 1, "status": row.status,
                "seats": [names.get(i, i) for i in row.seats], "match_id": row.match_id,
                "winners": [names.get(i, i) for i, rank in zip(row.seats, row.ranks or ())
                            if rank == 1]}
               for row in page.object_list]
    part = request.GET.get("part") == "live"
    answer = render(request, "tournaments/_tournament_live.html" if part
                    else "tournaments/tournament.html", {
        "tournament": found, "progress": progress,
        "done_percent": round(100 * progress["finished"] / progress["total"]) if progress["total"]
        else 0,
        "standings": [{**_with_bar(row), "name": names[row["participant"]]}
                      for row in selectors.tournament_standings(tournament=found)],
        "matches": matches, "page": page,
        "poll_seconds": _poll_seconds(found.status, found.starts_at),
        "organising": _organising(request, found),
        "entries": None if part or not found.taking_entries else _entries(request, found),
    })
    return live_part(request, answer) if part else answer


def _entries(request: HttpRequest, found: Tournament) -> dict[str, Any]:
    """A tournament open for entries: how many places are taken, and for the signed-in
    person what they may enter (themself, their bots that play the game) and their entries
    to take out, each as an ``entrant`` value (``games.seats.seat_spec``)."""
    entered = list(found.participants.all())
    cap = found.entry_cap or settings.TOURNAMENT_MAX_PARTICIPANTS
    user = request.user
    if not user.is_authenticated:
        return {"count": len(entered), "cap": cap, "choices": [], "mine": []}
    seatable = [(value, label, seat_spec(value)) for value, label in
                seat_choices(found.game, user)]
    owners: dict[str, dict[str, Any]] = {}  # kind -> bot -> owner, one query a kind
    for kind in {spec["kind"] for _, _, spec in seatable if spec.get("bot")}:
        lookup = get_seat_kind(kind).bot_owners
        if lookup is not None:
            owners[kind] = lookup({spec["bot"] for _, _, spec in seatable
                                   if spec["kind"] == kind and spec.get("bot")})
    owned = {value: label for value, label, spec in seatable  # entrant value -> label
             if owners.get(spec["kind"], {}).get(spec.get("bot")) == user.pk}
    taken = {PLAYER if e.kind == PLAYER and e.user_id == user.pk else f"{e.kind}:{e.bot}"
             for e in entered}
    names = entrant_names(entered)
    mine = [{"value": PLAYER, "name": names[e.index]} for e in entered
            if e.kind == PLAYER and e.user_id == user.pk]
    mine += [{"value": f"{e.kind}:{e.bot}", "name": names[e.index]} for e in entered
             if f"{e.kind}:{e.bot}" in owned]
    choices = [(PLAYER, f"yourself ({user.get_username()})")] + list(owned.items())
    return {"count": len(entered), "cap": cap, "mine": mine,
            "choices": [(value, label) for value, label in choices if value not in taken]}


def _poll_seconds(status: str, starts_at: datetime | None = None) -> int | None:
    """How often a series' (or a night's) page fetches its live part again: every few
    seconds while it runs or is due within the hour (so it switches to running by itself),
    every minute while it starts later, never once it is over."""
    live = settings.BLUFF_LIVE_REFRESH_SECONDS
    if status == "running":
        return live
    if status != "scheduled":
        return None
    soon = starts_at is None or starts_at - timezone.now() < timedelta(hours=1)
    return live if soon else max(live, 60)


def _organising(request: HttpRequest, series: Any) -> bool:
    """The signed-in person may change the series (its organiser, or staff): the page shows
    them its forms (``tournaments.web.organise_pages``)."""
    user = request.user
    return user.is_authenticated and (user.pk == series.organiser_id or user.is_staff)


def entrant_names(entrants: Iterable[Any]) -> dict[int, str]:
    """Each participant or member (by index) named as everywhere else (``games.names``: a
    bot by its owner's name for it), with the series' own label beside it in quotes when the
    organiser gave one: a label never renames the bot."""
    entrants = list(entrants)
    labels = selectors.entrant_labels(entrants)
    names = {}
    for entrant in entrants:
        label = labels[entrant.index]
        default = (entrant.user.get_username() if entrant.user_id
                   else f"{entrant.kind} {entrant.bot}")
        names[entrant.index] = label if entrant.name in (label, default) \
            else f"{label} “{entrant.name}”"
    return names


def _with_bar(row: dict[str, Any]) -> dict[str, Any]:
    """The row with its interval as percentages of the 0..1 points scale, for the bar."""
    bar = None
    if row["interval"] is not None and row["points"] is not None:
        low, high = row["interval"]
        bar = {"left": 100 * low, "width": max(100 * (high - low), 0.5),
               "mark": 100 * row["points"]}
    ahead = row["ahead_of_next"]
    return {**row, "bar": bar, "ahead_percent": None if ahead is None else round(100 * ahead)}


def league(request: HttpRequest, league_id: int, night_form: Any = None,
           member_form: Any = None) -> HttpResponse:
    """A league's season table, charts, nights and next night; its organiser also gets the
    forms that add a one-off night (``night_form``: as sent, with its error) and cancel one.
    While a night is to come or being played, its live part (next night, the night being
    played, season table, charts, nights) is fetched again on its own (``?part=live``, by
    htmx) with an ETag, as a tournament's is; the form that adds a night is outside it, so
    what an organiser types there is never swapped away."""
    try:
        found = selectors.league_get(league_id=league_id)
    except LeagueNotFound:
        raise Http404("no such league") from None
    names = entrant_names(found.members.select_related("user"))
    rated = selectors.league_ratings(league_id=found.pk)
    table = [{"row": row, "name": names.get(row.member, row.member),
              "rating": rated.get(row.member)}
             for row in selectors.league_table(league_id=found.pk)]
    live = selectors.league_live_night(league=found)
    if live is not None:
        for seated in live["tables"]:
            seated["names"] = [names.get(m, m) for m in seated["members"]]
            for row in seated["standings"]:
                row["name"] = names.get(row["member"], row["name"])
    history = selectors.league_history(league_id=found.pk)
    next_night = selectors.league_next_night(league=found)
    label = {m: names.get(m, str(m)) for m in history["points"]}
    part = request.GET.get("part") == "live"
    answer = render(request, "tournaments/_league_live.html" if part
                    else "tournaments/league.html", {
        "league": found, "table": table, "live": live,
        "points_chart": line_chart(history["points"], labels=label),
        "order_chart": line_chart(history["positions"], labels=label, low=1, downward=True),
        "nights_played": history["nights"],
        "next_night": next_night, "weekly": weekly_night(found),
        "cannot_start": selectors.league_cannot_start(league=found),
        "nights": selectors.league_nights(league=found)[:20],
        "poll_seconds": _league_poll_seconds(live is not None, next_night),
        "organising": _organising(request, found), "night_form": night_form or NightForm(),
        "member_form": member_form or (MemberForm(found.game, request.user)
                                       if _organising(request, found) else None),
    })
    return live_part(request, answer) if part else answer


def _league_poll_seconds(playing: bool, next_night: datetime | None) -> int | None:
    """A league's page polls as a running series while a night is played, as a scheduled
    one while its next night is to come, and not once no night is to come."""
    if playing:
        return _poll_seconds("running")
    return None if next_night is None else _poll_seconds("scheduled", next_night)


def night(request: HttpRequest, league_id: int, number: int) -> HttpResponse:
    """One night of a league: its tables, each with its members' points that night and its
    hands (each linked to its match's replay). While it is scheduled or running its live part
    (everything under the heading) is fetched again on its own, as a tournament's is."""
    try:
        found = selectors.league_get(league_id=league_id)
    except LeagueNotFound:
        raise Http404("no such league") from None
    evening = selectors.league_nights(league=found).filter(number=number).first()
    if evening is None:
        raise Http404("no such night")
    evening.league = found
    names = entrant_names(found.members.select_related("user"))
    tables = selectors.night_tables(night=evening)
    for table in tables:
        for row in table["standings"]:
            row["name"] = names.get(row["member"], row["member"])
        for hand in table["hands"]:
            hand["by_place"] = [names.get(m, m) for _, m in
                                sorted(zip(hand["finish"] or (), hand["seats"]))]
            hand["names"] = [names.get(m, m) for m in hand["seats"]]
            hand["scored"] = list(zip(hand["names"], hand["points"] or ()))
    part = request.GET.get("part") == "live"
    answer = render(request, "tournaments/_night_live.html" if part
                    else "tournaments/night.html", {
        "league": found, "night": evening, "tables": tables,
        "withdrawn": [{"name": names.get(int(m), m), "reason": why}
                      for m, why in (evening.withdrawn or {}).items()],
        "poll_seconds": _poll_seconds(evening.status, evening.starts_at),
        "deal_secret": published_secret(evening),
    })
    return live_part(request, answer) if part else answer


def tournament_match_links(match_ids: Sequence[int]) -> dict[int, SeriesLink]:
    """Each tournament match's link to its tournament's page (``games.links``)."""
    rows = (TournamentMatch.objects.filter(match_id__in=match_ids)
            .values_list("match_id", "tournament_id", "tournament__name", "round", "number"))
    return {match: SeriesLink(f"{name}, round {rnd + 1}, match {number + 1}",
                              reverse("tournament-page", args=[tournament]))
            for match, tournament, name, rnd, number in rows}


def league_hand_links(match_ids: Sequence[int]) -> dict[int, SeriesLink]:
    """Each league hand's link to its table on its night's page (``games.links``)."""
    rows = (Hand.objects.filter(match_id__in=match_ids)
            .values_list("match_id", "night__league_id", "night__league__name", "night__number",
                         "table", "number"))
    return {match: SeriesLink(f"{name}, night {night}, table {table + 1}, hand {hand}",
                              reverse("league-night-page", args=[league, night])
                              + f"#table-{table + 1}")
            for match, league, name, night, table, hand in rows}


#: At most this many of each kind of series on a person's page.
PERSON_SERIES_SHOWN = 20


def person_series(user: Any) -> list[SeriesLink]:
    """The tournaments (scheduled or running) and leagues (season not over) ``user`` is
    entered in, a member of or organises, for their page (``games.links.series_of``)."""
    now = timezone.now()
    tournaments = (Tournament.objects.filter(
        Q(participants__user=user) | Q(organiser=user),
        status__in=[Tournament.Status.SCHEDULED, Tournament.Status.RUNNING])
        .distinct().order_by("-id")[:PERSON_SERIES_SHOWN])
    clubs = (League.objects.filter(Q(members__user=user, members__left_at__isnull=True)
                                   | Q(organiser=user), season_end__gte=now)
             .distinct().order_by("-id")[:PERSON_SERIES_SHOWN])
    links = [SeriesLink(f"{t.name}: a tournament of {t.game}, {t.status}"
                        + (", organised by you" if t.organiser_id == user.pk else ""),
                        reverse("tournament-page", args=[t.pk])) for t in tournaments]
    links += [SeriesLink(f"{club.name}: a league of {club.game}"
                         + (f", {weekly_night(club)}" if club.weekday is not None else "")
                         + (", organised by you" if club.organiser_id == user.pk else ""),
                         reverse("league-page", args=[club.pk])) for club in clubs]
    return links
