"""Each game's table drawing, checked against the engine's own views over seeded random games:
at every turn, every seat's view and the public view are drawn, and the drawing must show what
the view holds (own cards face up, other hands as as many backs as they hold, piles, dice,
chips, tokens, the claim or call under way) and nothing the view hides: whatever one seat's
view holds and another's omits (hands, an offer's cards, dice under the cup, a Dutch slot, a
sealed commit) never shows in the other's drawing. Every view key is placed or listed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from games.drawings import DRAWINGS, draw_view
from games.drawings import dice_cup as dice_drawing
from games.drawings import dot as dot_drawing
from games.drawings import dtc as dtc_drawing
from games.drawings import dutch as dutch_drawing
from games.drawings import great_dalmuti as gd_drawing
from games.drawings.generic import view_html
from games.drawings.table import TABLE_KEYS
from games.engine import Rng, State, game_ids, get_game

PLAYERS = {"dtc": (3, 5), "great_dalmuti": (4, 6), "dutch": (2, 4), "dice_cup": (2, 4),
           "dot": (2,)}
USED = {"dtc": dtc_drawing.USED, "great_dalmuti": gd_drawing.USED, "dutch": dutch_drawing.USED,
        "dice_cup": dice_drawing.USED, "dot": dot_drawing.USED}
MAX_MOVES = 160
FACE = re.compile(r'class="pcard face[ "]')
BACK = '<span class="pcard back"></span>'
DIE = re.compile(r'<span class="die pips-(\d)"')


def frames(game: str, players: int, seed: int) -> Iterator[State]:
    """A seeded random game, paused after each move (the engine's legal actions only)."""
    state = get_game(game).new_match(players=players, seed=seed)
    rng = Rng(seed * 7 + players)
    yield state
    while not state.is_over and state.moves < MAX_MOVES:
        to_act = state.to_act()
        seat = to_act[rng.below(len(to_act))]
        legal = state.legal_actions(seat)
        state.apply(seat, legal[rng.below(len(legal))])
        yield state


def drawings(state: State) -> Iterator[tuple[int | None, dict[str, Any], str]]:
    """``(viewer, view, html)`` for the spectator and every seat."""
    for viewer in [None, *range(state.players)]:
        view = state.view(viewer)
        yield viewer, view, str(draw_view(state.game.id, view, state.players))


def place(html: str, seat: int) -> str:
    found = re.findall(rf'<section class="place[^"]*" data-seat="{seat}">(.*?)</section>',
                       html, re.DOTALL)
    assert len(found) == 1, f"seat {seat} has one place"
    return found[0]


def areas(html: str, name: str) -> list[str]:
    """The contents of every area of that name (areas hold only spans: no nested div)."""
    return re.findall(rf'<div class="area" data-area="{name}">(.*?)</div>', html, re.DOTALL)


def area(html: str, name: str) -> str:
    found = areas(html, name)
    assert len(found) == 1, f"one {name} area, found {len(found)}"
    return found[0]


def middle(html: str) -> str:
    return re.search(r'<div class="felt">(.*?)</div><div class="table-row bottom">', html,
                     re.DOTALL).group(1)


def faces(html: str) -> int:
    return len(FACE.findall(html))


def games_and_players() -> list[tuple[str, int, int]]:
    return [(game, n, seed) for game in PLAYERS for n in PLAYERS[game] for seed in (1, 2)]


def test_every_game_has_a_drawing() -> None:
    assert set(DRAWINGS) == set(game_ids()) == set(PLAYERS)


@pytest.mark.parametrize(("game", "players", "seed"), games_and_players())
def test_the_table_seats_everyone_lights_the_turn_and_loses_no_view_key(
        game: str, players: int, seed: int) -> None:
    for state in frames(game, players, seed):
        for viewer, view, html in drawings(state):
            seats = [int(s) for s in re.findall(r'<section class="place[^"]*" data-seat="(\d+)"',
                                                html)]
            assert sorted(seats) == list(range(players))
            if viewer is not None:
                assert seats[-1] == viewer, "the viewing seat sits at the bottom"
                assert 'class="place me turn"' in html or 'class="place me"' in html
            lit = [int(s) for s in re.findall(r'class="place[^"]* turn" data-seat="(\d+)"',
                                              html)]
            assert sorted(lit) == sorted(view["to_act"])
            for key in set(view) - set(USED[game]) - TABLE_KEYS:
                assert f"<dt>{key.replace('_', ' ')}</dt>" in html, f"{key} is not drawn"
            if view.get("result"):
                ranks = view["result"]["ranks"]
                for seat in range(players):
                    assert f"rank {ranks[seat]} · " in place(html, seat)


def _hidden_hands(html: str, view: dict[str, Any], viewer: int | None, sizes: list[int],
                  hand_faces: int) -> None:
    """The viewer's hand face up, card for card; every other hand as that many backs."""
    for seat, size in enumerate(sizes):
        hand = area(place(html, seat), "hand")
        if seat == viewer:
            assert faces(hand) == hand_faces and BACK not in hand
        else:
            assert faces(hand) == 0 and hand.count(BACK) == size


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 2), (5, 3)])
def test_dtc_hands_penalties_and_the_offer(players: int, seed: int) -> None:
    offers = 0
    for state in frames("dtc", players, seed):
        for viewer, view, html in drawings(state):
            own = sum(view["hand"].values()) if "hand" in view else 0
            _hidden_hands(html, view, viewer, view["hand_sizes"], own)
            for seat in range(players):
                penalty = areas(place(html, seat), "penalty")
                assert faces("".join(penalty)) == view["penalty_sizes"][seat]
            offer, shown = view["offer"], own + sum(view["penalty_sizes"])
            if offer:
                offers += 1
                claim = f"{offer['count']} × {offer['value']}"
                assert claim in place(html, offer["giver"]), "the claim in the giver's bubble"
                offered = area(middle(html), "offer")
                if viewer == offer["giver"]:
                    assert faces(offered) == offer["count"] == sum(offer["cards"].values())
                    shown += offer["count"]
                else:
                    assert "cards" not in offer and faces(offered) == 0
                    assert offered.count(BACK) == offer["count"]
            if view["to_beat"]:
                beat = view["to_beat"]
                assert f"to beat: {beat['count']} × {beat['value']}" in middle(html)
            if view["last_call"]:
                shown += sum(view["last_call"]["cards"].values())
                assert faces(area(middle(html), "last-call")) == sum(
                    view["last_call"]["cards"].values())
            assert faces(html) == shown, "no card face the view does not hold"
    assert offers > 10


@pytest.mark.parametrize(("players", "seed"), [(4, 1), (5, 2), (7, 3)])
def test_great_dalmuti_hands_and_the_trick(players: int, seed: int) -> None:
    tricks = 0
    for state in frames("great_dalmuti", players, seed):
        for viewer, view, html in drawings(state):
            own = sum(view["hand"].values()) if "hand" in view else 0
            _hidden_hands(html, view, viewer, view["hand_sizes"], own)
            trick = view["trick"]
            if trick:
                tricks += 1
                assert faces(area(middle(html), "trick")) == trick["count"]
                rank = "jester" if list(trick["cards"]) == ["jester"] else str(trick["rank"])
                assert f"plays {trick['count']} × {rank}" in place(html, trick["seat"])
            for seat in range(players):
                assert view["titles"][seat] in place(html, seat)
            mine = view.get("my_exchanges") or []
            exchanged = sum(sum(x["gave"].values()) + sum(x["received"].values())
                            for x in mine)
            played = len([n for n in view["played"].values() if n])
            assert faces(html) == own + (trick["count"] if trick else 0) + played + exchanged
    assert tricks > 10


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_dutch_slots_show_only_the_cards_the_view_knows(players: int, seed: int) -> None:
    held_hidden = 0
    for state in frames("dutch", players, seed):
        for _, view, html in drawings(state):
            for hand in view["hands"]:
                mine = place(html, hand["seat"])
                for slot in hand["slots"]:
                    drawn = re.search(rf'<span class="slot" title="slot {slot["slot"]}, known by'
                                      rf'[^"]*">(.*?)<small>', mine).group(1)
                    if slot["card"] is None:
                        assert drawn == BACK
                    else:
                        assert f'title="{slot["card"]}"' in drawn and faces(drawn) == 1
            held = areas(html, "held")
            if view["held"]:
                assert f'title="{view["held"]}"' in held[0]
            elif view["held_from"]:
                held_hidden += 1
                assert held == ['<span class="label">in hand, from the pile</span>' + BACK]
            known = sum(s["card"] is not None for h in view["hands"] for s in h["slots"])
            assert faces(html) == known + len(view["discard"]) + bool(view["held"]), \
                "no face the view does not know"
            if view.get("snap"):
                assert "snap?" in place(html, view["snap"]["discarder"])
    assert held_hidden, "a card drawn from the pile is hidden from the others"


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (6, 3)])
def test_dice_cup_dice_show_only_where_the_view_holds_them(players: int, seed: int) -> None:
    hidden = 0
    for state in frames("dice_cup", players, seed):
        views = {viewer: (view, html) for viewer, view, html in drawings(state)}
        roller_view = views[state.public_view()["roller"]][0]
        for view, html in views.values():
            for seat in range(players):
                chips = area(place(html, seat), "chips")
                assert chips.count('class="token chip-token"') == len(view["chips"][seat])
            assert area(middle(html), "middle").count('class="token chip-token"') == len(
                view["middle"])
            last = view["last"]["dice"] if view["last"] else []
            shown = [int(d) for d in DIE.findall("".join(areas(middle(html), "last")))]
            assert shown == last, "the last turn's dice, revealed to all"
            if view["phase"] == "over":
                continue
            cup = area(place(html, view["roller"]), "cup")
            if view["dice"]:
                assert [int(d) for d in DIE.findall(cup)] == view["dice"]
            else:
                assert roller_view["dice"], "the roller holds dice this view hides"
                hidden += 1
                assert not DIE.findall(cup) and cup.count('class="die hidden"') == 3
                assert len(DIE.findall(html)) == len(last), "no die face beyond the last turn's"
            if view["call"]:
                assert f"calls {view['call']['number']} on seat {view['call']['target'] + 1}" in \
                    place(html, view["roller"])
    assert hidden > 10


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_dot_hands_pools_tokens_and_sealed_commits(seed: int) -> None:
    sealed = 0
    for state in frames("dot", 2, seed):
        views = {viewer: (view, html) for viewer, view, html in drawings(state)}
        for viewer, (view, html) in views.items():
            own = len(view["hand"]) if "hand" in view else 0
            _hidden_hands(html, view, viewer, view["hand_sizes"], own)
            for seat in (0, 1):
                mine = place(html, seat)
                assert faces(area(mine, "pool")) == len(view["pools"][seat])
                assert faces(area(mine, "stars")) == len(view["stars_left"][seat])
                tokens = re.findall(r'class="token (blue|black|red)" title="(\d+) ', area(
                    mine, "tokens"))
                assert [int(n) for _, n in tokens] == view["tokens"][seat]
                other = views[seat][0]
                if seat != viewer and other["my_commit"]:
                    sealed += 1
                    assert "commits star" not in html, "another seat's sealed commit"
                if seat == viewer and view["my_commit"]:
                    assert f"commits star {view['my_commit']['star']}" in mine
    assert sealed > 2


def test_everything_is_escaped_and_an_unknown_game_is_drawn_generically() -> None:
    state = get_game("dice_cup").new_match(players=2, seed=1)
    html = str(draw_view("dice_cup", state.view(0), 2, ["<b>eve</b>", "bob"]))
    assert "&lt;b&gt;eve&lt;/b&gt;" in html and "<b>eve</b>" not in html
    view = {"game": "other", "players": 2, "seat": None, "stuff": "<i>x</i>"}
    assert draw_view("other", view, 2) == view_html(view, 2)
    assert "&lt;i&gt;x&lt;/i&gt;" in str(draw_view("other", view, 2))


@pytest.mark.parametrize("game", sorted(DRAWINGS))
def test_the_face_up_table_lays_each_seat_from_its_own_view(game: str) -> None:
    """A finished match's one table (issue 48): each seat's place is exactly what that seat's
    own drawing puts in front of it (bar the "you" tag), the middle is the spectator's, so it
    shows what the views hold and nothing more."""
    from games.drawings import draw_face_up

    players = PLAYERS[game][-1]
    you = '<span class="tag you">you</span>'
    for state in frames(game, players, seed=5):
        public = state.public_view()
        views = [state.view(seat) for seat in range(players)]
        face_up = str(draw_face_up(game, public, views, players))
        spectator = str(draw_view(game, public, players))
        assert middle(face_up) == middle(spectator)
        for seat, view in enumerate(views):
            own = place(str(draw_view(game, view, players)), seat)
            assert place(face_up, seat) == own.replace(f" {you}", "").replace(you, "")
