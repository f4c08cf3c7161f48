"""The site's home page (the games, running and upcoming tournaments, the next league
nights) and each game's page (its rules, leaderboard and latest matches).

Server-rendered, read-only, public: it shows what the public API shows (never a seed). The
pages of games live in ``games.pages``, those of tournaments and leagues in
``tournaments.web.pages``; this top layer only gathers them.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from games import selectors as game_selectors
from games.engine import game_ids, get_game
from games.pages import game_cards, match_rows
from tournaments import selectors
from tournaments.models import League, Night, Tournament

#: Rows per section of the home page; recent matches and leaderboard rows on a game's page.
SHOWN = 10
LEADERBOARD_ROWS = 50


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


def game_page(request: HttpRequest, game: str) -> HttpResponse:
    """One game: its rules, its rating leaderboard over every tournament (bots by their
    owners' names) and its latest matches."""
    if game not in game_ids():
        raise Http404("no such game")
    recent = game_selectors.match_list(game=game)[:SHOWN]
    return render(request, "game.html", {
        "game": get_game(game), "matches": match_rows(recent),
        "leaderboard": selectors.ratings_leaderboard(game=game, limit=LEADERBOARD_ROWS),
    })
