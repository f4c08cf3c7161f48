"""The ladder's pages (docs/ladder.md): a game's ladder and its standings, 50 a page."""

from __future__ import annotations

from collections.abc import Sequence

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from games.engine import get_game
from games.links import SeriesLink
from games.models import Match
from games.pages import match_rows

from ..errors import GameNotFound
from ..ladders import selectors
from ..models import LadderMatch

#: Standings a page.
PER_PAGE = 50
#: The latest matches shown under the standings.
MATCHES_SHOWN = 20


def ladder(request: HttpRequest, game: str) -> HttpResponse:
    """A game's ladder: its figures and its standings, best ordinal first, each with its
    interval, matches, last match and chance to be ahead of the next; a paused bot's owner
    reads why."""
    try:
        found = selectors.ladder_get(game=game)
    except GameNotFound:
        raise Http404("no such game") from None
    entries = selectors.ladder_entries(ladder=found)
    page = Paginator(entries, PER_PAGE).get_page(request.GET.get("page"))
    viewer = request.user if request.user.is_authenticated else None
    latest = (Match.objects.filter(ladder_match__ladder=found).order_by("-created_at", "-id")
              .prefetch_related("seats__user").defer("state")[:MATCHES_SHOWN]
              if found is not None else [])
    return render(request, "tournaments/ladder.html", {
        "game": get_game(game), "summary": selectors.ladder_summary(game=game, ladder=found),
        "page": page, "rows": selectors.standings_rows(
            entries=entries, page=list(page.object_list), viewer=viewer),
        "matches": match_rows(latest),
    })


def ladder_match_links(match_ids: Sequence[int]) -> dict[int, SeriesLink]:
    """Each ladder match's link to its ladder's page (``games.links``)."""
    rows = (LadderMatch.objects.filter(match_id__in=match_ids)
            .values_list("match_id", "ladder__game", "number"))
    return {match: SeriesLink(f"{get_game(game).name} ladder, match {number + 1}",
                              reverse("ladder-page", args=[game]))
            for match, game, number in rows}
