"""Pages of the games and of people's accounts: each game's rules as implemented, rendered
from docs/rules/<game>.md; sign-up (sign-in and out are Django's own views).

Markdown is rendered by markdown-it-py with raw HTML escaped, so a rules file can never put
markup or scripts into the page.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import UserCreationForm
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from .engine import game_ids, get_game
from .services.accounts import user_sign_up


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


class SignUpForm(UserCreationForm):
    """A person's account (the API's tokens come with it: ``user_sign_up``)."""

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)

    def save(self, commit: bool = True) -> Any:
        user, _ = user_sign_up(username=self.cleaned_data["username"],
                               password=self.cleaned_data["password1"])
        return user


def sign_up(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("my-bots")
    return render(request, "games/sign_up.html", {"form": form})
