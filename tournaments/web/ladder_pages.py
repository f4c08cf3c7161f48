"""The ladder's pages (docs/ladder.md): a game's ladder and its standings, 50 a page."""

from __future__ import annotations

from collections.abc import Sequence

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from games.engine import get_game
from games.links import SeriesLink

from ..errors import GameNotFound
from ..ladders import selectors
from ..models import LadderMatch

#: Standings a page.
PER_PAGE = 50


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
    return render(request, "tournaments/ladder.html", {
        "game": get_game(game), "summary": selectors.ladder_summary(game=game, ladder=found),
        "page": page, "rows": selectors.standings_rows(
            entries=entries, page=list(page.object_list), viewer=viewer),
    })


def ladder_match_links(match_ids: Sequence[int]) -> dict[int, SeriesLink]:
    """Each ladder match's link to its ladder's page (``games.links``)."""
    rows = (LadderMatch.objects.filter(match_id__in=match_ids)
            .values_list("match_id", "ladder__game", "number"))
    return {match: SeriesLink(f"{get_game(game).name} ladder, match {number + 1}",
                              reverse("ladder-page", args=[game]))
            for match, game, number in rows}
