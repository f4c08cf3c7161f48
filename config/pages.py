"""The site's home page: the games, running and upcoming tournaments, the next league nights.

Server-rendered, read-only, public: it shows what the public API shows (never a seed). The
pages of games live in ``games.pages``, those of tournaments and leagues in
``tournaments.pages``; this top layer only gathers them.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from games.pages import game_cards
from tournaments import selectors
from tournaments.models import League, Night, Tournament

#: Rows per section of the home page.
SHOWN = 10


def home(request: HttpRequest) -> HttpResponse:
    running = selectors.tournament_list(status=Tournament.Status.RUNNING)[:SHOWN]
    upcoming = selectors.tournament_list(status=Tournament.Status.SCHEDULED)[:SHOWN]
    now = timezone.now()
    nights = []
    playing = set(Night.objects.filter(status=Night.Status.RUNNING)
                  .values_list("league_id", flat=True))
    for league in League.objects.filter(season_end__gte=now).order_by("season_start")[:50]:
        live = league.pk in playing
        starts = selectors.league_next_night(league=league, now=now)
        if live or starts is not None:
            nights.append({"league": league, "live": live, "starts_at": starts})
    nights.sort(key=lambda n: (not n["live"], n["starts_at"] or now))
    return render(request, "home.html", {
        "games": game_cards(), "running": running, "upcoming": upcoming,
        "nights": nights[:SHOWN],
    })
