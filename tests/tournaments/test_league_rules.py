"""League rules keep the promises docs/leagues.md makes (pure: no database needed)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import get_game
from tournaments.leagues.rules import (
    HandOutcome,
    HandPlan,
    HandRecord,
    SeasonRow,
    between_nights,
    hand_outcome,
    hand_plan,
    lower_is_better,
    season_table,
    split_tables,
    with_newcomers,
    without_leavers,
)

FAST = settings(max_examples=60, deadline=None, derandomize=True)


# ---- split_tables ------------------------------------------------------------------------


def test_ten_members_at_tables_of_four_make_four_three_three() -> None:
    tables = split_tables(list(range(10)), table_size=4, min_players=3)
    assert tables == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]


def test_dot_tables_are_pairs_in_order() -> None:
    tables = split_tables("abcdef", table_size=2, min_players=2)
    assert tables == [["a", "b"], ["c", "d"], ["e", "f"]]


@pytest.mark.parametrize(
    ("members", "size", "minimum", "message"),
    [
        (5, 4, 4, "5 members cannot fill tables of at least 4"),
        (3, 8, 4, "3 members cannot fill tables of at least 4"),
        (0, 4, 2, "0 members"),
        (7, 2, 2, "7 members cannot fill tables of at least 2"),
    ],
)
def test_too_few_members_for_a_table_is_refused(
    members: int, size: int, minimum: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        split_tables(list(range(members)), table_size=size, min_players=minimum)


def test_a_member_listed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        split_tables([1, 2, 1, 3], table_size=4, min_players=2)


@FAST
@given(members=st.integers(1, 64), size=st.integers(2, 8), minimum=st.integers(2, 8))
def test_tables_cover_the_order_evenly(members: int, size: int, minimum: int) -> None:
    order = [f"m{i}" for i in range(members)]
    try:
        tables = split_tables(order, table_size=size, min_players=minimum)
    except ValueError:
        # Refused only when no cut into tables of minimum..size players exists.
        assert not any(
            k * minimum <= members <= k * size for k in range(1, members + 1)
        )
        return
    assert [m for table in tables for m in table] == order
    sizes = [len(table) for table in tables]
    assert len(tables) == -(-members // size)
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)
    assert all(minimum <= s <= size for s in sizes)


# ---- hand_plan ---------------------------------------------------------------------------

TABLE = ["ann", "bob", "cat", "dan", "eve"]


def test_dalmuti_plan_carries_the_order_into_a_one_hand_match() -> None:
    league = {"hands": 20, "philanthropic": True, "stripped_deck": True,
              "first_deal_revolution": True}
    plan = hand_plan(
        "great_dalmuti", TABLE, hand_number=4, options=league, ordered=True, first_of_season=False
    )
    assert plan.seats == tuple(TABLE)
    assert plan.options["hands"] == 1
    assert plan.options["initial_order"] == [0, 1, 2, 3, 4]
    assert plan.options["first_deal_revolution"] is False
    assert plan.options["philanthropic"] is True
    assert plan.options["stripped_deck"] is True
    assert league["hands"] == 20  # the league's options are not changed
    get_game("great_dalmuti").new_match(players=5, seed=1, options=plan.options)  # valid


def test_dalmuti_first_hand_draws_the_order_and_keeps_the_first_deal_revolution() -> None:
    plan = hand_plan(
        "great_dalmuti", TABLE, hand_number=1, options={"first_deal_revolution": True},
        ordered=False, first_of_season=True,
    )
    assert plan.options == {"first_deal_revolution": True, "hands": 1, "initial_order": None}
    later = hand_plan(
        "great_dalmuti", TABLE, hand_number=2, options={"first_deal_revolution": True},
        ordered=True, first_of_season=False,
    )
    assert later.options["first_deal_revolution"] is False


def test_other_games_rotate_the_first_seat_and_pass_options_through() -> None:
    options = {"target_points": 7}
    plans = [
        hand_plan("dice_cup", TABLE[:4], hand_number=h, options=options, ordered=True,
                  first_of_season=h == 1)
        for h in (1, 2, 5)
    ]
    assert [p.seats for p in plans] == [
        ("ann", "bob", "cat", "dan"), ("bob", "cat", "dan", "ann"), ("ann", "bob", "cat", "dan"),
    ]
    assert all(p.options == options and p.options is not options for p in plans)


@FAST
@given(players=st.integers(2, 6), start=st.integers(1, 50))
def test_rotation_makes_each_member_first_once_in_n_hands(players: int, start: int) -> None:
    table = [f"p{i}" for i in range(players)]
    firsts = [
        hand_plan("dtc", table, hand_number=h, options={}, ordered=True,
                  first_of_season=False).seats[0]
        for h in range(start, start + players)
    ]
    assert sorted(firsts) == sorted(table)


def test_a_table_the_game_cannot_seat_is_refused() -> None:
    with pytest.raises(ValueError, match="4 to 8"):
        hand_plan("great_dalmuti", TABLE[:3], hand_number=1, options={}, ordered=False,
                  first_of_season=True)
    with pytest.raises(ValueError, match="^dot is played by 2 players, not 3$"):  # not "2 to 2"
        hand_plan("dot", TABLE[:3], hand_number=1, options={}, ordered=True, first_of_season=True)


# ---- hand_outcome ------------------------------------------------------------------------


def test_dalmuti_outcome_orders_by_going_out_and_takes_the_points() -> None:
    plan = HandPlan(tuple(TABLE), {})
    # Philanthropic: bob (Lesser Dalmuti, went out 3rd) got +1 and ties dan's 3 points.
    result = {"scores": [5, 3, 0, 3, 1], "ranks": [1, 2, 5, 2, 4]}
    outcome = hand_outcome("great_dalmuti", plan, result)
    assert outcome.points == {"ann": 5, "bob": 3, "cat": 0, "dan": 3, "eve": 1}
    assert outcome.finish == {"ann": 1, "bob": 2, "cat": 5, "dan": 2, "eve": 4}
    assert outcome.order == ["ann", "bob", "dan", "eve", "cat"]  # ranks; the tie by seat
    exact = hand_outcome("great_dalmuti", plan, {**result, "order": [0, 3, 1, 4, 2]})
    assert exact.order == ["ann", "dan", "bob", "eve", "cat"]  # GD-2: the going-out order
    assert exact.finish == {"ann": 1, "dan": 2, "bob": 3, "eve": 4, "cat": 5}
    with pytest.raises(ValueError, match="order"):
        hand_outcome("great_dalmuti", plan, {**result, "order": [0, 1, 2]})


def test_dice_cup_points_count_the_members_ranked_below() -> None:
    plan = HandPlan(("a", "b", "c", "d"), {})
    plain = hand_outcome("dice_cup", plan, {"scores": [9, 12, 3, 7], "ranks": [2, 1, 4, 3]})
    assert plain.points == {"a": 2, "b": 3, "c": 0, "d": 1}
    assert plain.order == ["b", "a", "d", "c"]
    tied = hand_outcome("dice_cup", plan, {"scores": [5, 9, 5, 1], "ranks": [2, 1, 2, 4]})
    assert tied.points == {"a": 1, "b": 3, "c": 1, "d": 0}
    assert tied.finish == {"a": 2, "b": 1, "c": 2, "d": 4}
    assert tied.order == ["b", "a", "c", "d"]  # the tie keeps the hand's seating order


def test_dot_winner_takes_one_point() -> None:
    outcome = hand_outcome("dot", HandPlan(("x", "y"), {}), {"scores": [3, 8], "ranks": [2, 1]})
    assert outcome == HandOutcome({"x": 0, "y": 1}, ["y", "x"], {"x": 2, "y": 1})
    draw = hand_outcome("dot", HandPlan(("x", "y"), {}), {"scores": [4, 4], "ranks": [1, 1]})
    assert draw.points == {"x": 0, "y": 0} and draw.order == ["x", "y"]


def test_dutch_points_are_the_card_totals() -> None:
    plan = HandPlan(("a", "b", "c"), {})
    outcome = hand_outcome("dutch", plan, {"scores": [14, 2, 14], "ranks": [2, 1, 2]})
    assert lower_is_better("dutch")  # DU-8
    assert not lower_is_better("dtc"), "DTC-8's fewest-is-best scores: league points by rank"
    assert outcome.points == {"a": 14, "b": 2, "c": 14}
    assert outcome.order == ["b", "a", "c"]


def test_a_result_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ValueError, match="3 seats"):
        hand_outcome("dtc", HandPlan(("a", "b", "c"), {}), {"scores": [1, 2], "ranks": [1, 2]})


# ---- between nights, newcomers, leavers --------------------------------------------------


def test_one_member_moves_across_each_boundary() -> None:
    tables = [["a1", "a2", "a3", "a4"], ["b1", "b2", "b3"], ["c1", "c2", "c3"]]
    assert between_nights(tables) == [
        "a1", "a2", "a3", "b1",
        "a4", "b2", "c1",
        "b3", "c2", "c3",
    ]


def test_moves_are_capped_at_half_the_smaller_table() -> None:
    tables = [["a1", "a2", "a3", "a4", "a5"], ["b1", "b2", "b3"]]
    assert between_nights(tables, moves=3) == ["a1", "a2", "a3", "a4", "b1", "a5", "b2", "b3"]
    pairs = [["a1", "a2"], ["b1", "b2"], ["c1", "c2"]]
    assert between_nights(pairs, moves=2) == ["a1", "b1", "a2", "c1", "b2", "c2"]


@FAST
@given(
    sizes=st.lists(st.integers(1, 8), min_size=1, max_size=8),
    moves=st.integers(0, 5),
)
def test_between_nights_is_a_permutation(sizes: list[int], moves: int) -> None:
    tables, next_id = [], 0
    for size in sizes:
        tables.append(list(range(next_id, next_id + size)))
        next_id += size
    flat = [m for table in tables for m in table]
    order = between_nights(tables, moves=moves)
    assert sorted(order) == flat
    if len(tables) == 1 or moves == 0:
        assert order == flat
    # Nobody moves by more than one table.
    table_of = {m: t for t, table in enumerate(tables) for m in table}
    start = 0
    for t, table in enumerate(tables):
        for m in order[start : start + len(table)]:
            assert abs(table_of[m] - t) <= 1
        start += len(table)


def test_negative_moves_are_refused() -> None:
    with pytest.raises(ValueError):
        between_nights([[1, 2], [3, 4]], moves=-1)


def test_newcomers_enter_in_the_upper_middle() -> None:
    assert with_newcomers([1, 2, 3, 4], ["n"]) == [1, 2, "n", 3, 4]
    assert with_newcomers([1, 2, 3, 4, 5], ["n"]) == [1, 2, "n", 3, 4, 5]
    assert with_newcomers([1, 2, 3, 4], ["n", "m"]) == [1, 2, "m", "n", 3, 4]
    assert with_newcomers([], ["n"]) == ["n"]
    with pytest.raises(ValueError):
        with_newcomers([1, 2, 3], [2])


def test_leavers_go_and_the_rest_keep_their_order() -> None:
    assert without_leavers([1, 2, 3, 4, 5], {2, 4, 9}) == [1, 3, 5]


# ---- season table ------------------------------------------------------------------------


def test_dutch_season_table_lowest_total_wins() -> None:
    hands = [
        HandRecord(1, {"a": 10, "b": 3, "c": 7}, {"a": 3, "b": 1, "c": 2}),
        HandRecord(1, {"a": 2, "b": 9, "c": 6}, {"a": 1, "b": 3, "c": 2}),
        HandRecord(2, {"a": 0, "d": 4}, {"a": 1, "d": 2}),
    ]
    rows = season_table("dutch", hands, order=["b", "a", "c", "d", "e"],
                        previous_order=["a", "b", "c", "d"])
    assert rows == [
        SeasonRow("d", 1, 4, 1, 2.0, 3, 0),
        SeasonRow("b", 2, 12, 2, 2.0, 0, 1),
        SeasonRow("a", 2, 12, 3, 5 / 3, 1, -1),
        SeasonRow("c", 4, 13, 2, 2.0, 2, 0),
        SeasonRow("e", 5, 0, 0, None, 4, None),  # no hands: after everyone who played
    ]


def test_season_table_highest_total_wins_and_leavers_go_last_in_position() -> None:
    hands = [
        HandRecord(1, {"a": 3, "b": 2, "c": 1, "x": 0}, {"a": 1, "b": 2, "c": 3, "x": 4}),
        HandRecord(2, {"a": 0, "b": 3, "c": 1, "x": 2}, {"a": 4, "b": 1, "c": 3, "x": 2}),
    ]
    rows = season_table("great_dalmuti", hands, order=["c", "b", "a"], previous_order=None)
    assert [(r.member, r.place, r.points, r.position, r.movement) for r in rows] == [
        ("b", 1, 5, 1, None),
        ("a", 2, 3, 2, None),
        ("c", 3, 2, 0, None),
        ("x", 3, 2, 3, None),  # left the league: after the order, place shared on points
    ]


# ---- end to end: real Great Dalmuti hands ------------------------------------------------


def play(game: str, plan: HandPlan, seed: int) -> tuple[dict, list[int]]:
    """Play one match with random reference bots; its result and the last hand's out order."""
    engine = get_game(game)
    state = engine.new_match(players=len(plan.seats), seed=seed, options=plan.options)
    bots = [engine.make_bot("random", seat, seed + seat) for seat in range(len(plan.seats))]
    while not state.is_over:
        for seat in state.to_act():
            state.apply(seat, bots[seat].choose(state.view(seat), state.legal_actions(seat)))
    out = [e["out_order"] for e in state.events_since(0) if e["type"] == "hand_end"]
    assert state.result()["order"] == out[-1], "GD-2: the result carries the going-out order"
    return state.result(), out[-1]


def test_three_dalmuti_hands_carry_the_order_and_the_points() -> None:
    members = [101, 102, 103, 104, 105]
    order = list(members)
    totals = dict.fromkeys(members, 0)
    previous: HandOutcome | None = None
    for hand in (1, 2, 3):
        plan = hand_plan("great_dalmuti", order, hand_number=hand, options={},
                         ordered=hand > 1, first_of_season=hand == 1)
        result, out_order = play("great_dalmuti", plan, seed=40 + hand)
        if previous is not None:
            assert plan.seats[0] == previous.order[0]
            assert plan.seats == tuple(previous.order)
        outcome = hand_outcome("great_dalmuti", plan, result)
        assert outcome.order == [plan.seats[s] for s in out_order]  # GD-2
        assert sorted(outcome.points.values()) == [0, 1, 2, 3, 4]  # GD-9
        for m, p in outcome.points.items():
            totals[m] += p
        previous, order = outcome, outcome.order
    assert sum(totals.values()) == 3 * 10


def test_a_philanthropic_hand_uses_the_going_out_order() -> None:
    """GD-9's bonus ties points though one member went out first: ranks cannot tell who."""
    ranks_were_wrong = 0
    for seed in range(20):
        plan = hand_plan("great_dalmuti", [1, 2, 3, 4, 5], hand_number=2,
                         options={"philanthropic": True}, ordered=True, first_of_season=False)
        result, out_order = play("great_dalmuti", plan, seed)
        outcome = hand_outcome("great_dalmuti", plan, result)
        assert outcome.order == [plan.seats[s] for s in out_order]
        assert sum(outcome.points.values()) >= 10
        ranks_only = {"scores": result["scores"], "ranks": result["ranks"]}
        ranks_were_wrong += hand_outcome("great_dalmuti", plan, ranks_only).order != outcome.order
    assert ranks_were_wrong > 0


def test_a_forfeited_member_scores_nothing_finishes_last_and_drops_to_the_bottom() -> None:
    plan = HandPlan(seats=(7, 8, 9, 10), options={})
    result = {"ranks": [2, 1, 3, 4], "scores": [2, 3, 1, 0]}
    outcome = hand_outcome("great_dalmuti", plan, result, forfeited={8})
    assert outcome.points == {7: 2, 8: 0, 9: 1, 10: 0}
    assert outcome.order == [7, 9, 10, 8] and outcome.finish[8] == 4
    dutch = hand_outcome("dutch", plan, {"ranks": [1, 2, 3, 4], "scores": [5, 9, 12, 20]},
                         forfeited={7})
    assert dutch.points[7] == 20, "lower is better: the table's worst score"
    assert dutch.order == [8, 9, 10, 7]

