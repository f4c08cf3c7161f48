"""Starting a match in the browser and finding one to join: ``/play/`` picks a game, its
options and who sits against you (reference bots, bots people registered, open seats for
people), creates the match as ``POST /api/matches/`` does (``services.match_create``, with you
at the first seat) and sends you to its play page; ``/play/open/`` lists the matches waiting
for players, to join from their play page."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from lib.errors import DomainError

from . import selectors, services
from .engine import game_ids, get_game
from .forms import option_fields, options_set, refused_field, show_refusal
from .models import Match
from .pages import MATCHES_PER_PAGE, game_cards, match_rows
from .seats import PLAYER, REFERENCE, seat_choices, seat_spec

#: A person's match starts short unless they choose otherwise: The Great Dalmuti's 20 hands
#: (GD-10, the API's and the engine's default) keep a person at the table for over an hour.
FOR_PEOPLE: dict[str, dict[str, Any]] = {"great_dalmuti": {"hands": 5}}
#: How long a unit of an option is, said next to it (measured: heuristic bots, 4 to 6 seats,
#: 30 matches each: 20 to 22 moves a seat a hand).
LENGTHS: dict[tuple[str, str], str] = {
    ("great_dalmuti", "hands"): "A hand is about 20 moves for each player."}


class NewMatchForm(forms.Form):
    """The fields of one game: an opponent picker per seat the game may have beyond yours
    (the first ones set to the stronger reference bot), its options that a form can carry
    (yes/no and numbers; a list option stays with the API) and the time per move."""

    def __init__(self, game: str, user: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        engine = get_game(game)
        self.game = game
        choices = [("", "nobody")] + seat_choices(game, user)
        strongest = f"{REFERENCE}:{'heuristic' if 'heuristic' in engine.bots else engine.bots[0]}"
        for n in range(1, engine.max_players):
            self.fields[f"seat_{n}"] = forms.ChoiceField(
                label=f"Seat {n + 1}", choices=choices, required=False,
                initial=strongest if n < engine.default_players else "")
        self.option_names = option_fields(self, game)
        for name, value in FOR_PEOPLE.get(game, {}).items():
            field = self.fields[f"option_{name}"]
            field.initial = value
            field.help_text = f"{field.help_text} {LENGTHS.get((game, name), '')}".strip()
        self.fields["move_time_limit"] = forms.IntegerField(
            label="Seconds per move", required=False, min_value=1, max_value=30 * 24 * 3600,
            help_text=f"How long a person's seat has to act before the game's default action "
                      f"and a strike. Empty: {settings.BLUFF_DEFAULT_MOVE_TIME_LIMIT} s.")

    def seat_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith("seat_")]

    def option_fields(self) -> list[forms.BoundField]:
        return [self[f"option_{name}"] for name in self.option_names]

    def seats(self) -> tuple[list[dict[str, Any]], list[str | None]]:
        """Your seat, then each picked one, with the field each seat came from."""
        specs: list[dict[str, Any]] = [{"kind": PLAYER}]
        fields: list[str | None] = [None]
        for bound in self.seat_fields():
            value = self.cleaned_data.get(bound.name)
            if value:
                specs.append(seat_spec(value))
                fields.append(bound.name)
        return specs, fields

    def options(self) -> dict[str, Any]:
        return options_set(self, self.option_names)


@login_required
def new_match(request: HttpRequest) -> HttpResponse:
    """``?game=``: that game's form, else the games to pick from. A match whose every seat
    is taken starts at once; one with open seats waits for people in the lobby."""
    game = request.GET.get("game", "")
    if game not in game_ids():
        return render(request, "games/new_match.html", {"games": game_cards()})
    form = NewMatchForm(game, request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        specs, fields = form.seats()
        try:
            match = services.match_create(
                game=game, created_by=request.user, seats=specs, options=form.options(),
                move_time_limit=form.cleaned_data["move_time_limit"], join=True)
        except DomainError as error:
            show_refusal(form, error, refused_field(error, form.option_names, fields, "seat"),
                         drop_index=True)
        else:
            return redirect("play-page", match.pk)
    return render(request, "games/new_match.html", {"game": get_game(game), "form": form})


def open_matches(request: HttpRequest) -> HttpResponse:
    """The lobby: matches waiting for players, newest first, by game, each to join from its
    play page."""
    game = request.GET.get("game", "")
    if game not in game_ids():
        game = ""
    matches = selectors.match_list(game=game or None, status=Match.Status.OPEN)
    page = Paginator(matches, MATCHES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "games/open_matches.html", {
        "page": page, "rows": match_rows(page.object_list), "games": game_ids(),
        "query": {"game": game}, "filters": f"game={game}" if game else "",
    })
