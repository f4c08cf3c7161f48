"""Pages of the games: each game's rules as implemented, rendered from docs/rules/<game>.md.

Markdown is rendered by markdown-it-py with raw HTML escaped, so a rules file can never put
markup or scripts into the page.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from .engine import game_ids, get_game


def game_cards() -> list[dict[str, Any]]:
    """Id, name and player counts of every game, in the engine's order."""
    return [{"id": game.id, "name": game.name, "min_players": game.min_players,
             "max_players": game.max_players} for game in map(get_game, game_ids())]


@cache
def rules_html(game: str) -> SafeString:
    """The game's rules page as HTML (read once per process: the file ships with the code)."""
    text = (settings.RULES_DIR / f"{game}.md").read_text(encoding="utf-8")
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    return mark_safe(renderer.render(text))  # noqa: S308 - raw HTML in the source is escaped


def rules(request: HttpRequest, game: str) -> HttpResponse:
    if game not in game_ids():
        raise Http404("no such game")
    engine = get_game(game)
    return render(request, "games/rules.html", {"game": engine, "rules": rules_html(game)})
