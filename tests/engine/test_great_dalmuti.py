"""The Great Dalmuti: rulebook examples and house rules GD-1..GD-12 (and G-*).

Positions are built by crafting saved states (``craft``) so each rule is tested on a known
deal, not only through random play (the generic suite in test_all_games.py covers that).
"""

from __future__ import annotations

import json

import pytest

from games.engine import BadOptions, IllegalAction, Rng, get_game
from games.engine.great_dalmuti import (
    GAME,
    RANK_OF,
    HeuristicBot,
    PlayActions,
    deck_counts,
    title,
)
from games.engine.play import play_bots, random_playout
from games.engine.results import order_with_newcomer

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def grid_of(hands: dict[int, dict[str, int]], players: int) -> list[list[int]]:
    grid = [[0] * 14 for _ in range(players)]
    for seat, hand in hands.items():
        for key, count in hand.items():
            grid[seat][RANK_OF[key]] = count
    return grid


def craft(players: int = 4, hands: dict[int, dict[str, int]] | None = None, *,
          order: list[int] | None = None, phase: str = "play", turn: int | None = None,
          top: list[int] | None = None, last_player: int | None = None, passes: int = 0,
          out: list[int] | None = None, points: list[int] | None = None,
          options: dict | None = None, rest_to: int | None = None, hand_no: int = 1):
    """A state with the given hands. Cards of the deck not in ``hands`` go to ``rest_to``'s
    hand in the sealed steps, or count as already played by ``rest_to`` in the play phase."""
    state = GAME.new_match(players=players, seed=1, options=options)
    data = state.to_json()
    s = data["state"]
    order = list(range(players)) if order is None else order
    grid = grid_of(hands or {}, players)
    rest = [s["deck"][r] - sum(g[r] for g in grid) for r in range(14)]
    assert min(rest) >= 0
    played = [[0] * 14 for _ in range(players)]
    filler = order[-1] if rest_to is None else rest_to
    if phase == "play":
        played[filler] = rest
    else:
        grid[filler] = [a + b for a, b in zip(grid[filler], rest)]
    if out is None:
        out = [p for p in order if phase == "play" and not sum(grid[p])]
    waiting: list[int] = []
    if phase == "revolution":
        waiting = list(range(players))
    elif phase == "taxation":
        waiting = [order[0], order[1]]
        if (options or {}).get("merchant_exchange"):
            waiting.append(order[2])
        waiting.sort()
    automatic = hand_no == 1 and bool((options or {}).get("first_deal_revolution"))
    s.update(order=order, hands=grid, played_by=played, phase=phase,
             turn=turn if phase == "play" else None, top=top, last_player=last_player,
             passes=passes, out=out, waiting=waiting, sealed=[None] * players, known=[],
             floors=[], exchanges=[], my_exchange=[[] for _ in range(players)],
             revolution=None,
             automatic_revolution=automatic, hand_points=[0] * players,
             points=points or [0] * players, hand_no=hand_no)
    data["events"] = []
    return GAME.from_json(data)


def hand(state, seat: int) -> dict[str, int]:
    return state.view(seat)["hand"]


def events(state, kind: str, seat: int | None = None) -> list[dict]:
    return [e for e in state.events_since(0, seat) if e["type"] == kind]


# --------------------------------------------------------------------------------------------
# GD-1 deck and players
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players, stripped, size", [
    (4, False, 80), (5, False, 80), (8, False, 80), (5, True, 68), (4, True, 57), (6, True, 80),
])
def test_gd_1_deck_sizes_and_stripped_deck(players: int, stripped: bool, size: int) -> None:
    state = GAME.new_match(players=players, seed=4, options={"stripped_deck": stripped})
    assert sum(state.view(None)["hand_sizes"]) == size
    deck = state.view(None)["deck"]
    assert deck["jester"] == 2 and deck["1"] == 1 and deck["10"] == 10
    if stripped and players <= 5:
        assert "12" not in deck
    if stripped and players == 4:
        assert "11" not in deck


def test_gd_1_rank_r_has_r_copies() -> None:
    assert deck_counts(6, False) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 2]


@pytest.mark.parametrize("players", [3, 9])
def test_gd_1_four_to_eight_players(players: int) -> None:
    with pytest.raises(BadOptions):
        GAME.new_match(players=players)


# --------------------------------------------------------------------------------------------
# GD-2 social order, seats and titles
# --------------------------------------------------------------------------------------------


def draws_by_seat(state) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for e in events(state, "order_draw"):
        for seat, key in e["draws"]:
            out.setdefault(seat, []).append(RANK_OF[key])
    return out


def test_gd_2_first_order_is_the_public_draw_best_first_ties_redrawn() -> None:
    saw_tie = saw_jester = False
    for seed in range(60):
        state = GAME.new_match(players=8, seed=seed)
        draws = draws_by_seat(state)
        order = events(state, "social_order")[0]["order"]
        # Lowest (best) card first; a tie is broken by the tied seats' next draws only.
        assert order == sorted(range(8), key=lambda s: draws[s])
        assert len({tuple(d) for d in draws.values()}) == 8
        saw_tie |= any(len(d) > 1 for d in draws.values())
        first_round = {s: d[0] for s, d in draws.items()}
        if 13 in first_round.values():
            saw_jester = True
            jester_seats = [s for s, r in first_round.items() if r == 13]
            assert set(order[-len(jester_seats):]) == set(jester_seats)  # Jesters worst
        assert state.view(None)["order"] == order
    assert saw_tie and saw_jester


def test_gd_2_later_hands_follow_the_order_of_going_out() -> None:
    state = GAME.new_match(players=5, seed=8, options={"hands": 3})
    random_playout(state, Rng(8))
    ends = events(state, "hand_end")
    starts = events(state, "hand_start")
    assert len(ends) == 3 and len(starts) == 3
    assert starts[1]["order"] == ends[0]["out_order"]
    assert starts[2]["order"] == ends[1]["out_order"]


def test_gd_2_play_goes_clockwise_in_social_order_not_seat_number() -> None:
    state = craft(4, {2: {"9": 2}, 0: {"8": 2}, 3: {"7": 2}, 1: {"6": 2}},
                  order=[2, 0, 3, 1], turn=2, rest_to=2)
    state.apply(2, {"type": "play", "cards": {"9": 1}})
    assert state.to_act() == [0]
    state.apply(0, {"type": "pass"})
    assert state.to_act() == [3]
    state.apply(3, {"type": "pass"})
    assert state.to_act() == [1]


def test_gd_2_views_name_match_seats_and_show_titles() -> None:
    state = craft(5, {0: {"5": 3}, 1: {"6": 3}, 2: {"7": 3}, 3: {"8": 3}, 4: {"9": 3}},
                  order=[3, 1, 4, 0, 2], turn=3)
    view = state.view(None)
    assert view["order"] == [3, 1, 4, 0, 2]
    assert view["positions"] == [3, 1, 4, 0, 2]
    assert view["titles"][3] == "Greater Dalmuti"
    assert view["titles"][1] == "Lesser Dalmuti"
    assert view["titles"][4] == "Merchant"
    assert view["titles"][0] == "Lesser Peon"
    assert view["titles"][2] == "Greater Peon"
    assert [title(p, 4) for p in range(4)] == [
        "Greater Dalmuti", "Lesser Dalmuti", "Lesser Peon", "Greater Peon"]


# --------------------------------------------------------------------------------------------
# GD-3 deal
# --------------------------------------------------------------------------------------------


def test_gd_3_deal_starts_with_the_greater_dalmuti_round_the_whole_deck() -> None:
    order = [4, 2, 0, 5, 1, 3]
    state = GAME.new_match(players=6, seed=2, options={"initial_order": order})
    sizes = state.view(None)["hand_sizes"]
    assert sum(sizes) == 80  # 80 = 6 * 13 + 2: the first two in order get 14
    assert [sizes[s] for s in order] == [14, 14, 13, 13, 13, 13]
    start = events(state, "hand_start", seat=4)[0]
    assert sum(start["private"]["hand"].values()) == 14
    assert "private" not in events(state, "hand_start")[0]


# --------------------------------------------------------------------------------------------
# GD-4 taxation
# --------------------------------------------------------------------------------------------


def taxation_state(**kwargs):
    # order 0 GD, 1 LD, 2 LP, 3 GP (4 players, stripped deck: 57 cards)
    hands = {
        0: {"10": 10, "9": 4},                # GD
        1: {"10": 0, "8": 8, "7": 6},          # LD
        2: {"2": 1, "3": 3, "9": 5, "6": 5},   # LP: best card is a 2
        3: {"1": 1, "4": 4, "5": 5, "jester": 2, "3": 0},  # GP: best two are 1 and a 4
    }
    return craft(4, hands, order=[0, 1, 2, 3], phase="taxation", rest_to=1,
                 options={"stripped_deck": True}, **kwargs)


def test_gd_4_peons_pay_best_cards_dalmutis_give_back_their_choice() -> None:
    state = taxation_state()
    assert state.to_act() == [0, 1]
    assert state.legal_actions(2) == [] and state.legal_actions(3) == []
    before = {s: hand(state, s) for s in range(4)}
    state.apply(0, {"type": "give_back", "cards": {"10": 2}})
    assert hand(state, 3) == before[3]  # sealed: nothing moves until all answered
    state.apply(1, {"type": "give_back", "cards": {"7": 1}})
    assert state.view(None)["phase"] == "play" and state.to_act() == [0]
    gd, ld, lp, gp = (hand(state, s) for s in range(4))
    assert gd["1"] == 1 and gd["4"] == 1 and gd["10"] == 8
    assert gp.get("1", 0) == 0 and gp["4"] == 3 and gp["10"] == 2 and gp["jester"] == 2
    assert ld["2"] == before[1]["2"] + 1 and ld["7"] == before[1]["7"] - 1
    assert lp.get("2", 0) == 0 and lp["7"] == 1
    state.check_invariants()


def test_gd_4_jesters_count_worst_when_paying_tax() -> None:
    hands = {0: {"10": 10, "9": 4}, 1: {"8": 8, "7": 6}, 2: {"2": 1, "3": 3, "9": 5},
             3: {"11": 1, "12": 3, "jester": 2}}
    state = craft(4, hands, order=[0, 1, 2, 3], phase="taxation", rest_to=2)
    gp_before = hand(state, 3)
    state.apply(0, {"type": "give_back", "cards": {"10": 1, "9": 1}})
    state.apply(1, {"type": "give_back", "cards": {"8": 1}})
    gp = hand(state, 3)
    assert gp["jester"] == 2  # the Greater Peon keeps its Jesters: they are its worst cards
    worst_two = events(state, "taxation", seat=3)[0]["private"]["gave"]
    assert sum(worst_two.values()) == 2 and "jester" not in worst_two
    assert gp_before.get("11", 0) == 1 and gp.get("11", 0) == 0


def test_gd_4_dalmuti_gives_back_from_its_hand_before_the_exchange() -> None:
    state = taxation_state()
    with pytest.raises(IllegalAction, match="hold 0"):  # the 1 it is about to receive
        state.apply(0, {"type": "give_back", "cards": {"1": 1, "10": 1}})
    with pytest.raises(IllegalAction, match="exactly 2"):
        state.apply(0, {"type": "give_back", "cards": {"10": 1}})
    with pytest.raises(IllegalAction, match="exactly 1"):
        state.apply(1, {"type": "give_back", "cards": {"7": 2}})
    assert {"type": "give_back", "cards": {"9": 1, "10": 1}} in state.legal_actions(0)
    assert len(state.legal_actions(1)) == len(hand(state, 1))  # any one card of its ranks


def test_gd_4_tax_cards_are_known_to_giver_and_receiver_only() -> None:
    state = taxation_state()
    state.apply(1, {"type": "give_back", "cards": {"8": 1}})
    state.apply(0, {"type": "give_back", "cards": {"9": 2}})
    public = events(state, "taxation")[0]
    assert "private" not in public
    assert {"from": 3, "to": 0, "count": 2} in public["exchanges"]
    assert "gave" not in json.dumps(public)
    for seat, other in ((0, 3), (3, 0), (1, 2), (2, 1)):
        private = events(state, "taxation", seat)[0]["private"]
        assert private["with"] == other
    assert events(state, "taxation", 0)[0]["private"]["received"] == {"1": 1, "4": 1}
    assert events(state, "taxation", 3)[0]["private"]["received"] == {"9": 2}
    assert state.view(1)["my_exchanges"] == [{"with": 2, "gave": {"8": 1}, "received": {"2": 1}}]
    assert state.view(0)["my_exchanges"][0]["received"] == {"1": 1, "4": 1}
    assert "my_exchanges" not in state.view(None)


# --------------------------------------------------------------------------------------------
# GD-5 revolution
# --------------------------------------------------------------------------------------------


def revolution_state(jester_holder: int, options: dict | None = None, hand_no: int = 1):
    hands = {s: {str(10 - s): 3} for s in range(4)}
    hands[jester_holder] = {**hands[jester_holder], "jester": 2}
    return craft(4, hands, order=[0, 1, 2, 3], phase="revolution", rest_to=(jester_holder + 1) % 4,
                 options={"stripped_deck": True, **(options or {})}, hand_no=hand_no)


def test_gd_5_every_seat_answers_only_the_holder_may_declare() -> None:
    state = revolution_state(1)
    assert state.to_act() == [0, 1, 2, 3]  # being asked reveals nothing
    for seat in (0, 2, 3):
        assert state.legal_actions(seat) == [{"type": "no"}]
    assert state.legal_actions(1) == [{"type": "no"}, {"type": "declare"}]
    with pytest.raises(IllegalAction, match="both Jesters"):
        state.apply(0, {"type": "declare"})


def test_gd_5_revolution_cancels_taxation() -> None:
    state = revolution_state(1)
    state.apply(1, {"type": "declare"})
    assert state.view(0)["my_answer"] is None and state.view(1)["my_answer"] == {
        "type": "declare"}
    assert state.view(0)["answered"] == [1]
    assert state.view(0)["revolution"] is None  # sealed until every seat has answered
    for seat in (0, 2, 3):
        state.apply(seat, {"type": "no"})
    assert state.view(None)["phase"] == "play"
    assert state.view(None)["revolution"] == {"seat": 1, "greater": False}
    assert state.view(None)["order"] == [0, 1, 2, 3] and state.to_act() == [0]
    assert events(state, "taxation") == []


def test_gd_5_greater_revolution_reverses_the_order_and_the_new_dalmuti_leads() -> None:
    state = revolution_state(3)
    for seat in (0, 1, 2):
        state.apply(seat, {"type": "no"})
    state.apply(3, {"type": "declare"})
    view = state.view(None)
    assert view["revolution"] == {"seat": 3, "greater": True}
    assert view["order"] == [3, 2, 1, 0]
    assert view["titles"][3] == "Greater Dalmuti" and view["titles"][0] == "Greater Peon"
    assert state.to_act() == [3] and view["phase"] == "play"
    assert events(state, "taxation") == []


def test_gd_5_no_declaration_leads_to_taxation() -> None:
    state = revolution_state(2)
    for seat in range(4):
        state.apply(seat, {"type": "no"})
    assert state.view(None)["phase"] == "taxation" and state.to_act() == [0, 1]


def test_gd_5_first_deal_revolution_option() -> None:
    state = revolution_state(2, {"first_deal_revolution": True})
    assert state.legal_actions(2) == [{"type": "no"}]  # a Lesser Peon: taxes are off anyway
    for seat in range(4):
        state.apply(seat, {"type": "no"})
    assert state.view(None)["phase"] == "play"  # no taxation on the first deal
    state = revolution_state(3, {"first_deal_revolution": True})
    assert {"type": "declare"} in state.legal_actions(3)  # a greater revolution still may
    for seat in range(4):
        state.apply(seat, {"type": "declare" if seat == 3 else "no"})
    assert state.view(None)["order"] == [3, 2, 1, 0]
    later = revolution_state(2, {"first_deal_revolution": True}, hand_no=2)
    assert {"type": "declare"} in later.legal_actions(2)
    for seat in range(4):
        later.apply(seat, {"type": "no"})
    assert later.view(None)["phase"] == "taxation"  # only the first deal is automatic


# --------------------------------------------------------------------------------------------
# GD-6 sets and following
# --------------------------------------------------------------------------------------------


def play_state(**kwargs):
    hands = {0: {"5": 2, "7": 3, "jester": 2}, 1: {"3": 1, "6": 3, "9": 2},
             2: {"2": 2, "4": 1, "8": 4}, 3: {"1": 1, "10": 3, "11": 2}}
    kwargs.setdefault("turn", 0)
    return craft(4, hands, order=[0, 1, 2, 3], **kwargs)


def test_gd_6_jesters_join_a_set_and_take_its_rank() -> None:
    state = play_state()
    state.apply(0, {"type": "play", "cards": {"7": 1, "jester": 1}})
    trick = state.view(None)["trick"]
    assert trick == {"seat": 0, "cards": {"7": 1, "jester": 1}, "rank": 7, "count": 2}
    legal = state.legal_actions(1)
    assert {"type": "play", "cards": {"6": 2}} in legal
    assert {"type": "play", "cards": {"9": 2}} not in legal  # 9 is worse than 7
    with pytest.raises(IllegalAction, match="does not beat"):
        state.apply(1, {"type": "play", "cards": {"9": 2}})


def test_gd_6_jesters_alone_are_rank_13_and_can_only_be_led() -> None:
    state = play_state()
    assert {"type": "play", "cards": {"jester": 2}} in state.legal_actions(0)
    state.apply(0, {"type": "play", "cards": {"jester": 1}})
    assert state.view(None)["trick"]["rank"] == 13
    # any single natural card beats a lone Jester
    assert {"type": "play", "cards": {"9": 1}} in state.legal_actions(1)
    state = play_state(top=[12, 1, 0], last_player=3, turn=0)
    assert all("jester" not in a.get("cards", {}) or len(a["cards"]) == 2
               for a in state.legal_actions(0))
    with pytest.raises(IllegalAction, match="only be led"):
        state.apply(0, {"type": "play", "cards": {"jester": 1}})


def test_gd_6_follow_with_the_same_count_and_a_better_rank() -> None:
    state = play_state(top=[8, 2, 0], last_player=3, turn=0)
    with pytest.raises(IllegalAction, match="exactly 2"):
        state.apply(0, {"type": "play", "cards": {"7": 3}})
    with pytest.raises(IllegalAction, match="one rank"):
        state.apply(0, {"type": "play", "cards": {"7": 1, "5": 1}})
    legal = list(state.legal_actions(0))
    assert legal == [
        {"type": "pass"},
        {"type": "play", "cards": {"5": 2}},
        {"type": "play", "cards": {"5": 1, "jester": 1}},
        {"type": "play", "cards": {"7": 2}},
        {"type": "play", "cards": {"7": 1, "jester": 1}},
    ]
    state.apply(0, {"type": "play", "cards": {"7": 1, "jester": 1}})
    with pytest.raises(IllegalAction, match="does not beat"):
        state.apply(1, {"type": "play", "cards": {"9": 2}})
    state.apply(1, {"type": "play", "cards": {"6": 2}})


def test_gd_6_the_leader_may_not_pass() -> None:
    state = play_state()
    assert {"type": "pass"} not in state.legal_actions(0)
    with pytest.raises(IllegalAction, match="leader may not pass"):
        state.apply(0, {"type": "pass"})


def test_gd_6_a_player_who_passed_may_play_later_in_the_same_trick() -> None:
    state = play_state()
    state.apply(0, {"type": "play", "cards": {"7": 1}})
    state.apply(1, {"type": "pass"})
    state.apply(2, {"type": "play", "cards": {"4": 1}})
    state.apply(3, {"type": "pass"})
    state.apply(0, {"type": "pass"})
    assert state.to_act() == [1]
    assert {"type": "play", "cards": {"3": 1}} in state.legal_actions(1)
    state.apply(1, {"type": "play", "cards": {"3": 1}})
    assert state.view(None)["trick"]["seat"] == 1


# --------------------------------------------------------------------------------------------
# GD-7 trick end, GD-8 hand end, GD-9 points
# --------------------------------------------------------------------------------------------


def test_gd_7_the_last_player_to_play_leads_the_next_trick() -> None:
    state = play_state()
    state.apply(0, {"type": "play", "cards": {"7": 2}})
    state.apply(1, {"type": "play", "cards": {"6": 2}})
    state.apply(2, {"type": "pass"})
    state.apply(3, {"type": "pass"})
    assert state.view(None)["trick"] is not None
    state.apply(0, {"type": "pass"})
    view = state.view(None)
    assert view["trick"] is None and state.to_act() == [1]
    assert {"type": "pass"} not in state.legal_actions(1)
    assert events(state, "trick_end")[-1]["leader"] == 1


def test_gd_7_lead_skips_clockwise_when_the_last_player_went_out() -> None:
    hands = {0: {"9": 1}, 1: {"8": 2}, 2: {"6": 1, "11": 1}, 3: {"10": 3}}
    state = craft(4, hands, order=[0, 1, 2, 3], turn=0, top=[12, 1, 0], last_player=3)
    state.apply(0, {"type": "play", "cards": {"9": 1}})  # seat 0 goes out
    assert events(state, "out")[-1] == {"n": events(state, "out")[-1]["n"], "type": "out",
                                        "seat": 0, "place": 1, "points": 3}
    for seat in (1, 2, 3):
        state.apply(seat, {"type": "pass"})
    assert state.to_act() == [1]  # next clockwise with cards after seat 0
    assert state.view(None)["trick"] is None


def test_gd_8_hand_ends_when_one_player_still_has_cards() -> None:
    hands = {0: {}, 1: {"8": 1}, 2: {}, 3: {"10": 3}}
    state = craft(4, hands, order=[0, 1, 2, 3], turn=1, out=[2, 0], points=[2, 0, 3, 0],
                  options={"hands": 2}, rest_to=0)
    state.apply(1, {"type": "play", "cards": {"8": 1}})
    end = events(state, "hand_end")[0]
    assert end["out_order"] == [2, 0, 1, 3]  # seat 3, the last with cards, is Greater Peon
    start = events(state, "hand_start")[-1]
    assert start["order"] == [2, 0, 1, 3] and start["hand"] == 2
    assert state.view(None)["titles"][3] == "Greater Peon"
    assert state.view(None)["phase"] == "revolution"


def test_gd_9_one_point_per_player_still_in_the_hand() -> None:
    hands = {0: {"1": 1}, 1: {"2": 1}, 2: {"3": 1}, 3: {"4": 2}}
    state = craft(4, hands, order=[0, 1, 2, 3], turn=0, options={"hands": 1})
    state.apply(0, {"type": "play", "cards": {"1": 1}})        # out first: 3 still in
    state.apply(1, {"type": "pass"})
    state.apply(2, {"type": "pass"})
    state.apply(3, {"type": "pass"})
    state.apply(1, {"type": "play", "cards": {"2": 1}})        # out second: 2 still in
    state.apply(2, {"type": "pass"})
    state.apply(3, {"type": "pass"})
    state.apply(2, {"type": "play", "cards": {"3": 1}})        # out third: 1 still in
    assert state.is_over
    assert state.result() == {"scores": [3, 2, 1, 0], "ranks": [1, 2, 3, 4],
                              "order": [0, 1, 2, 3]}


@pytest.mark.parametrize("philanthropic", [False, True])
def test_gd_9_philanthropic_bonus_when_the_peons_move_up(philanthropic: bool) -> None:
    # Greater Peon (3) went out first, Lesser Peon (2) second; seat 1 goes out now.
    hands = {0: {"9": 2}, 1: {"8": 1}, 2: {}, 3: {}}
    state = craft(4, hands, order=[0, 1, 2, 3], turn=1, out=[3, 2], points=[0, 0, 2, 3],
                  options={"hands": 1, "philanthropic": philanthropic})
    state.apply(1, {"type": "play", "cards": {"8": 1}})
    bonus = 1 if philanthropic else 0
    assert state.result()["scores"] == [0 + bonus, 1 + bonus, 2, 3]
    assert len(events(state, "hand_end")[0]["philanthropic"]) == 2 * bonus
    # GD-2: the going-out order, which with the bonus the ranks no longer tell: seat 1 (out
    # third, +1) ties seat 2 (out second) on 2 points.
    assert state.result()["order"] == [3, 2, 1, 0] == events(state, "hand_end")[0]["out_order"]
    assert state.result()["ranks"] == ([4, 2, 2, 1] if philanthropic else [4, 3, 2, 1])


def test_gd_9_no_philanthropic_bonus_when_the_peons_stay() -> None:
    hands = {0: {}, 1: {}, 2: {"8": 1}, 3: {"9": 2}}
    state = craft(4, hands, order=[0, 1, 2, 3], turn=2, out=[0, 1], points=[3, 2, 0, 0],
                  options={"hands": 1, "philanthropic": True})
    state.apply(2, {"type": "play", "cards": {"8": 1}})
    assert state.result()["scores"] == [3, 2, 1, 0]


# --------------------------------------------------------------------------------------------
# GD-10 match length and winner
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("hands", [1, 3])
def test_gd_10_a_match_is_a_number_of_hands(hands: int) -> None:
    state = GAME.new_match(players=6, seed=hands, options={"hands": hands})
    random_playout(state, Rng(hands))
    assert len(events(state, "hand_end")) == hands
    assert events(state, "match_end")[0]["reason"] == "hands_played"
    assert sum(state.result()["scores"]) == hands * (5 + 4 + 3 + 2 + 1)


def test_gd_10_highest_total_points_wins_ties_share() -> None:
    state = craft(4, {0: {"1": 1}, 1: {"2": 1}}, points=[5, 9, 9, 1], turn=0)
    # The order is the social order (GD-2: seats 2 and 3 out, then 0 and 1 still in as they
    # sit), not the ranking by total points.
    assert state.result() == {"scores": [5, 9, 9, 1], "ranks": [3, 1, 1, 4],
                              "order": [2, 3, 0, 1]}
    assert GAME.default_options["hands"] == 20
    with pytest.raises(BadOptions):
        GAME.new_match(options={"hands": 0})


# --------------------------------------------------------------------------------------------
# GD-11 merchant exchange
# --------------------------------------------------------------------------------------------


def test_gd_11_merchant_exchange_needs_six_players() -> None:
    with pytest.raises(BadOptions, match="6 or more"):
        GAME.new_match(players=5, options={"merchant_exchange": True})
    GAME.new_match(players=6, options={"merchant_exchange": True})


def merchant_state():
    hands = {0: {"12": 10}, 1: {"11": 10}, 2: {"1": 1, "2": 2}, 3: {"9": 9},
             4: {"3": 3, "4": 4}, 5: {"5": 5, "6": 6}}
    return craft(6, hands, order=[0, 1, 2, 3, 4, 5], phase="taxation", rest_to=1,
                 options={"merchant_exchange": True})


def test_gd_11_highest_merchant_swaps_a_random_card_with_a_merchant_of_its_choice() -> None:
    state = merchant_state()
    assert state.to_act() == [0, 1, 2]
    assert state.legal_actions(2) == [{"type": "decline"}, {"type": "exchange", "with": 3}]
    with pytest.raises(IllegalAction, match="not another Merchant"):
        state.apply(2, {"type": "exchange", "with": 4})
    state.apply(2, {"type": "exchange", "with": 3})
    state.apply(0, {"type": "give_back", "cards": {"12": 2}})
    state.apply(1, {"type": "give_back", "cards": {"11": 1}})
    m2, m3 = hand(state, 2), hand(state, 3)
    assert sum(m2.values()) == 3 and sum(m3.values()) == 9
    assert m2.get("9") == 1 and m3.get("9") == 8  # seat 3 only held 9s
    got = events(state, "merchant_exchange", 3)[0]["private"]
    assert got["gave"] == {"9": 1} and m3.get(next(iter(got["received"]))) == 1
    assert "private" not in events(state, "merchant_exchange", 4)[0]
    assert events(state, "merchant_exchange")[0]["with_seat"] == 3
    state.check_invariants()


def test_gd_11_merchant_may_decline() -> None:
    state = merchant_state()
    state.apply(2, {"type": "decline"})
    state.apply(0, {"type": "give_back", "cards": {"12": 2}})
    state.apply(1, {"type": "give_back", "cards": {"11": 1}})
    assert hand(state, 2) == {"1": 1, "2": 2} and hand(state, 3) == {"9": 9}
    assert state.view(None)["exchanges"][-1] == {"merchant": 2, "with": None}


# --------------------------------------------------------------------------------------------
# GD-12 leagues
# --------------------------------------------------------------------------------------------


def test_gd_12_initial_order_carries_the_social_order_into_a_match() -> None:
    state = GAME.new_match(players=5, seed=3, options={"initial_order": [2, 4, 0, 1, 3]})
    assert state.view(None)["order"] == [2, 4, 0, 1, 3]
    assert events(state, "order_draw") == []
    for bad in ([0, 1, 2, 3], [0, 1, 2, 3, 3], [0, 1, 2, 3, 5], [True, 1, 2, 3, 4],
                "01234", [0, 1, 2, 3, "4"]):
        with pytest.raises(BadOptions):
            GAME.new_match(players=5, options={"initial_order": bad})


def test_gd_2_the_result_carries_the_last_hands_going_out_order() -> None:
    state = GAME.new_match(players=5, seed=7, options={"hands": 3})
    random_playout(state, Rng(7))
    ends = events(state, "hand_end")
    assert len(ends) == 3 and state.result()["order"] == ends[-1]["out_order"]
    assert GAME.order_carries_over, "GD-2: the order of going out seats the next hand"


def test_gd_2_a_forfeited_seat_is_last_in_the_order_as_in_the_ranks() -> None:
    state = craft(4, {0: {"1": 1}, 1: {"2": 1}}, points=[5, 9, 9, 1], turn=0)
    state.forfeit(2)
    assert state.result()["order"] == [3, 0, 1, 2] and state.result()["ranks"][2] == 4


def test_gd_2_a_hand_cut_by_the_move_cap_orders_those_out_then_the_rest_as_seated() -> None:
    state = craft(4, {0: {"5": 1}, 2: {"4": 1}, 3: {"6": 1}}, order=[3, 2, 1, 0], turn=3,
                  out=[1], points=[0, 3, 0, 0])
    state._end_at_move_cap()  # G-7: scored as it stands
    assert state.is_over and state.result()["order"] == [1, 3, 2, 0]


def test_a_series_of_one_hand_matches_carries_the_order_in() -> None:
    """GD-2/GD-12: a league hand is a one-hand match seated in social order, the order
    handed in as ``initial_order`` (or drawn before there is one); GD-5's
    ``first_deal_revolution`` applies to the series' first match only."""
    league = {"philanthropic": True, "first_deal_revolution": True}
    first = GAME.series_options(league, players=5, ordered=False, first=True)
    assert first == {**league, "hands": 1, "initial_order": None}
    later = GAME.series_options(league, players=5, ordered=True, first=False)
    assert later == {"philanthropic": True, "first_deal_revolution": False, "hands": 1,
                     "initial_order": [0, 1, 2, 3, 4]}
    assert league == {"philanthropic": True, "first_deal_revolution": True}, "not changed"
    GAME.check_options(later, 5)
    assert GAME.scores_add_up and not GAME.lower_score_wins, "GD-9/GD-10: most points win"


def test_gd_12_newcomer_enters_as_a_merchant_in_the_middle() -> None:
    order = [0, 1, 2, 3]
    assert order_with_newcomer(order, 4) == [0, 1, 4, 2, 3]  # exact middle of 5
    assert order == [0, 1, 2, 3]  # pure
    assert order_with_newcomer([0, 1, 2, 3, 4], 5) == [0, 1, 5, 2, 3, 4]  # upper of 2 middles
    assert order_with_newcomer([5, 3, 1, 0, 2, 4, 6], 7) == [5, 3, 1, 7, 0, 2, 4, 6]
    new = order_with_newcomer([0, 1, 2, 3, 4], 5)
    assert title(new.index(5), 6) == "Merchant"
    with pytest.raises(BadOptions):
        order_with_newcomer([0, 1, 2], 1)
    with pytest.raises(BadOptions):
        order_with_newcomer([0, 0, 2], 5)
    with pytest.raises(BadOptions):
        order_with_newcomer([[0], [1]], 5)
    with pytest.raises(BadOptions):
        order_with_newcomer("0123", 5)
    # and a league can feed it straight into the next match
    state = GAME.new_match(players=6, options={"initial_order": new})
    assert state.view(None)["titles"][5] == "Merchant"


# --------------------------------------------------------------------------------------------
# General rules, views, determinism, validation, resample, bots
# --------------------------------------------------------------------------------------------


def test_g_1_same_seed_same_match_event_for_event() -> None:
    a = GAME.new_match(players=7, seed=99, options={"hands": 2, "merchant_exchange": True})
    b = GAME.new_match(players=7, seed=99, options={"hands": 2, "merchant_exchange": True})
    actions = random_playout(a, Rng(5))
    for seat, action in actions:
        b.apply(seat, action)
    assert a.to_json() == b.to_json()


def test_g_3_views_show_own_hand_and_public_counts_only() -> None:
    state = GAME.new_match(players=5, seed=12)
    spectator = state.view(None)
    assert "hand" not in spectator and "my_answer" not in spectator
    for seat in range(5):
        view = state.view(seat)
        assert sum(view["hand"].values()) == view["hand_sizes"][seat]
        for other in range(5):
            if other != seat:
                assert str(state.hands[other]) not in json.dumps(view)
    for e in state.events_since(0):
        assert "private" not in e
    assert events(state, "hand_start", 2)[0]["private"]["hand"] == state.view(2)["hand"]


def test_g_5_resample_keeps_what_a_dalmuti_knows_about_the_peon() -> None:
    state = taxation_state()
    state.apply(0, {"type": "give_back", "cards": {"10": 2}})
    state.apply(1, {"type": "give_back", "cards": {"7": 1}})
    # GD knows the Greater Peon holds its two 10s and nothing better than a 4 of its own.
    changed = False
    for seed in range(30):
        copy = state.resample(0, seed)
        copy.check_invariants()
        assert copy.view(0) == state.view(0)
        assert list(copy.legal_actions(0)) == list(state.legal_actions(0))
        gp = copy.hands[3]
        assert gp[10] >= 2
        naturals = [r for r in range(1, 13) for _ in range(gp[r])]
        assert sum(1 for r in naturals if r < 4) == 0
        changed |= copy.hands != state.hands
    assert changed


def test_g_5_resample_pins_the_declared_jesters_for_everyone() -> None:
    state = revolution_state(1)
    for seat in range(4):
        state.apply(seat, {"type": "declare" if seat == 1 else "no"})
    for seat in (None, 0, 2, 3):
        copy = state.resample(seat, 7)
        assert copy.hands[1][13] == 2
        assert copy.view(seat) == state.view(seat)


def test_g_5_resample_redraws_sealed_answers_others_cannot_see() -> None:
    state = taxation_state()
    state.apply(0, {"type": "give_back", "cards": {"10": 2}})
    answers = {json.dumps(state.resample(1, seed).sealed[0]) for seed in range(40)}
    assert len(answers) > 1
    assert state.resample(0, 3).sealed[0] == state.sealed[0]


def test_g_6_malformed_actions_are_refused_without_change() -> None:
    state = play_state(top=[8, 2, 0], last_player=3)
    before = state.to_json()
    junk = [
        {"type": "play"}, {"type": "play", "cards": []}, {"type": "play", "cards": {}},
        {"type": "play", "cards": {"7": -1}}, {"type": "play", "cards": {"7": True}},
        {"type": "play", "cards": {"7": 2.0}}, {"type": "play", "cards": {"seven": 2}},
        {"type": "play", "cards": {7: 2}}, {"type": "play", "cards": {"7": "2"}},
        {"type": "play", "cards": {"7": 0}}, {"type": "play", "cards": {"jester": 2}},
        {"type": "play", "cards": {"5": 3}}, {"type": "give_back", "cards": {"5": 1}},
        {"type": "declare"}, {"type": ["pass"]}, {"cards": {"5": 2}},
    ]
    for action in junk:
        with pytest.raises(IllegalAction) as caught:
            state.apply(0, action)
        assert str(caught.value)
    with pytest.raises(IllegalAction):
        state.apply(1, {"type": "pass"})  # not its turn
    assert state.to_json() == before
    tax = taxation_state()
    for action in [{"type": "give_back", "cards": {"10": 1, "9": False}},
                   {"type": "give_back"}, {"type": "exchange", "with": 3}, {"type": "no"}]:
        with pytest.raises(IllegalAction):
            tax.apply(0, action)
    merchant = merchant_state()
    for action in [{"type": "exchange", "with": True}, {"type": "exchange", "with": "3"},
                   {"type": "exchange"}, {"type": "exchange", "with": 2}]:
        with pytest.raises(IllegalAction):
            merchant.apply(2, action)


def test_g_6_zero_counts_are_ignored() -> None:
    state = play_state(top=[8, 2, 0], last_player=3)
    state.apply(0, {"type": "play", "cards": {"7": 2, "jester": 0, "12": 0}})
    assert state.view(None)["trick"]["cards"] == {"7": 2}


def test_g_7_move_cap_ends_the_match_as_it_stands() -> None:
    state = play_state(points=[4, 0, 2, 1])
    cap = GAME.move_cap(4, state.options)
    assert cap == 20 * (4 + 3 + 80 * 4)
    state.moves = cap - 1
    state.apply(0, {"type": "play", "cards": {"7": 1}})
    assert state.is_over and state.to_act() == []
    assert state.result()["ranks"] == [1, 4, 2, 3]
    assert events(state, "match_end")[0]["reason"] == "move_cap"


def test_default_action_is_documented_and_legal() -> None:
    state = taxation_state()
    assert state.default_action(0) == {"type": "give_back", "cards": {"10": 2}}
    assert state.default_action(1) == {"type": "give_back", "cards": {"8": 1}}
    state = play_state()
    assert state.default_action(0) == {"type": "play", "cards": {"7": 3}}
    state = play_state(top=[8, 2, 0], last_player=3)
    assert state.default_action(0) == {"type": "pass"}
    state = craft(4, {0: {"jester": 2}, 1: {"1": 1}}, turn=0)
    assert state.default_action(0) == {"type": "play", "cards": {"jester": 2}}
    state = revolution_state(0)
    assert state.default_action(0) == {"type": "no"}
    assert merchant_state().default_action(2) == {"type": "decline"}


def test_lazy_play_actions_behave_like_a_list() -> None:
    state = play_state()
    legal = state.legal_actions(0)
    assert isinstance(legal, PlayActions)
    plain = list(legal)
    assert legal == plain and len(legal) == len(plain)
    assert legal[-1] == plain[-1] == {"type": "play", "cards": {"jester": 2}}
    assert legal[1:3] == plain[1:3]
    assert all(a in legal for a in plain)
    assert {"type": "play", "cards": {"9": 1}} not in legal
    assert plain[0] == {"type": "play", "cards": {"5": 1}}
    with pytest.raises(IndexError):
        legal[len(plain)]


def test_round_trip_of_crafted_states_is_exact() -> None:
    for state in (taxation_state(), play_state(top=[8, 2, 0], last_player=3), merchant_state()):
        data = state.to_json()
        assert get_game("great_dalmuti").from_json(json.loads(json.dumps(data))).to_json() == data


def test_heuristic_bot_clearly_beats_random_play() -> None:
    wins = 0
    points = 0.0
    matches = 200
    for seed in range(matches):
        seat = seed % 5
        bots = ["random"] * 5
        bots[seat] = "heuristic"
        state = play_bots("great_dalmuti", bots, seed=seed, options={"hands": 2})
        result = state.result()
        wins += result["ranks"][seat] == 1
        points += result["scores"][seat] / max(1, sum(result["scores"]))
    # A random seat wins about 1/5 of the time and takes about 1/5 of the points.
    assert wins / matches > 0.45
    assert points / matches > 0.3


def test_heuristic_bot_declares_only_when_it_would_be_taxed() -> None:
    for holder, declares in ((3, True), (2, True), (1, False), (0, False)):
        state = revolution_state(holder)
        bot = HeuristicBot(GAME, holder)
        choice = bot.choose(state.view(holder), state.legal_actions(holder))
        assert choice == {"type": "declare" if declares else "no"}


def test_g_5_resample_keeps_the_card_a_merchant_gave_away() -> None:
    state = merchant_state()
    state.apply(2, {"type": "exchange", "with": 3})
    state.apply(0, {"type": "give_back", "cards": {"12": 2}})
    state.apply(1, {"type": "give_back", "cards": {"11": 1}})
    gave = state.view(2)["my_exchanges"][0]["gave"]
    rank = RANK_OF[next(iter(gave))]
    for seed in range(20):
        copy = state.resample(2, seed)
        assert copy.hands[3][rank] >= 1  # seat 2 knows seat 3 holds the card it gave
        assert copy.view(2) == state.view(2)


def test_g_3_resample_drops_other_seats_private_events() -> None:
    state = taxation_state()
    state.apply(0, {"type": "give_back", "cards": {"10": 2}})
    state.apply(1, {"type": "give_back", "cards": {"7": 1}})
    copy = state.resample(1, 5)
    assert "private" not in events(copy, "taxation", 0)[0]
    assert events(copy, "taxation", 1)[0]["private"] == events(state, "taxation", 1)[0]["private"]
    assert "private" in events(state, "taxation", 0)[0]  # the original is untouched
    fresh = GAME.new_match(players=5, seed=4)
    copy = fresh.resample(None, 1)
    assert all("private" not in e for s in range(5) for e in copy.events_since(0, s))
    assert "private" in events(fresh.resample(2, 1), "hand_start", 2)[0]
