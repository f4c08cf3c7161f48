"""Seats are numbered one way wherever a person reads them (issue 48): from 1 ("seat 1" is the
API's seat 0) in every drawing, caption, move button and page, while the API keeps its 0-based
``seat`` fields (docs/api.md, "Seat numbers"). A page or drawing that says "seat 0", or a seat
past the last, fails here."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from games import services
from games.drawings import draw_view
from games.drawings.words import action_label, entry_text
from games.engine import Rng, game_ids, get_game
from games.numbering import seat_number, seat_word

#: Any "seat N" a person reads (data-seat="0" attributes are for scripts and are not matched).
SEAT_SAID = re.compile(r"\b[Ss]eat (\d+)\b")
PLAYERS = {"dtc": 4, "great_dalmuti": 5, "dutch": 3, "dice_cup": 4, "dot": 2}


def numbers_said(text: str) -> set[int]:
    return {int(n) for n in SEAT_SAID.findall(text)}


def test_the_helper_numbers_from_one() -> None:
    assert seat_number(0) == 1 and seat_word(0) == "seat 1" and seat_word(4) == "seat 5"
    assert seat_word(None) == "seat None" and seat_word(True) == "seat True", "not an index"


@pytest.mark.parametrize("game", game_ids())
def test_drawings_buttons_and_captions_number_seats_from_one(game: str) -> None:
    players = PLAYERS.get(game, get_game(game).min_players)
    state = get_game(game).new_match(players=players, seed=11)
    rng = Rng(11)
    said: set[int] = set()
    for _ in range(200):
        for viewer in [None, *range(players)]:
            html = str(draw_view(game, state.view(viewer), players))
            assert re.search(r'data-seat="0"><header><strong>Seat 1</strong>', html), \
                "the first seat's place is headed Seat 1"
            said |= numbers_said(html)
        if state.is_over:
            break
        seat = state.to_act()[rng.below(len(state.to_act()))]
        legal = state.legal_actions(seat)
        for action in legal[:50]:
            said |= numbers_said(action_label(action, game))
            said |= numbers_said(entry_text(game, "action", seat, action, ()))
        state.apply(seat, legal[rng.below(len(legal))])
    assert said and said <= set(range(1, players + 1)), \
        f"seats said {sorted(said)}, people number 1..{players}"


@pytest.mark.django_db
def test_the_replay_and_play_pages_number_seats_from_one(alice: Any) -> None:
    finished = services.match_create(game="dice_cup", created_by=alice, seed=3,
                                     seats=[{"kind": "reference", "bot": "heuristic"}] * 3)
    assert finished.status == "finished"
    web = Client()
    for turn in (0, 4, finished.version):
        html = web.get(f"/matches/{finished.pk}/?turn={turn}").content.decode()
        assert "<strong>Seat 1</strong>" in html and "<strong>Seat 3</strong>" in html
        assert numbers_said(html) <= {1, 2, 3}, "never seat 0, never seat 4"

    playing = services.match_create(game="dice_cup", created_by=alice, join=True, seed=5,
                                    seats=[{"kind": "player"},
                                           {"kind": "reference", "bot": "heuristic"}])
    web.force_login(alice)
    page = web.get(f"/matches/{playing.pk}/play/").content.decode()
    assert "Seat 1 · version" in page and numbers_said(page) <= {1, 2}
    assert 'data-seat="0"' in page, "the script still polls the API's seat 0"
    assert web.get(f"/api/matches/{playing.pk}/seats/0/").json()["seat"] == 0, \
        "the API keeps its 0-based seat field"


def test_a_refusal_at_a_seat_field_drops_the_apis_seat_index() -> None:
    from django import forms

    from games.errors import BadSeats
    from games.forms import show_refusal

    form = forms.Form(data={})
    form.fields["seat_1"] = forms.CharField(label="Seat 2", required=False)
    form.is_valid()
    show_refusal(form, BadSeats("seat 1: no reference bot 'x' for dot"), "seat_1",
                 drop_index=True)
    assert form.errors["seat_1"] == ["no reference bot 'x' for dot (bad_seats)"]
