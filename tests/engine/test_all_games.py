"""Every registered game, played at random many times, keeps the engine's invariants.

The OpenSpiel ``games_sim_test`` idea: one parametrized test over the registry, so a new game is
covered the moment it registers. Checks: every action taken was legal; non-asked seats have no
legal actions; invariants (cards/chips/tokens conserved) hold; views leak nothing (a view and the
legal actions are unchanged when everything the seat cannot know is re-drawn: G-3, G-5); JSON
round trip is exact; a replay from seed + actions is identical; every match ends within its
move cap with valid G-4 ranks.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import BadOptions, Rng, game_ids, get_game
from games.engine.play import random_playout, replay
from games.engine.results import competition_ranks
from tests.helpers.engine import random_options

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)


def new_random_match(game_id: str, seed: int):
    game = get_game(game_id)
    rng = Rng(seed)
    players = rng.randint(game.min_players, game.max_players)
    options = random_options(game, players, rng)
    return game, game.new_match(players=players, seed=seed, options=options), rng


def check_result(state) -> None:
    result = state.result()
    assert len(result["scores"]) == len(result["ranks"]) == state.players
    assert min(result["ranks"]) == 1
    # G-4: a rank equals 1 + the number of seats strictly ahead.
    assert competition_ranks(result["ranks"]) == result["ranks"]
    assert set(result) <= {"scores", "ranks", "order"}
    if state.game.order_carries_over:
        assert "order" in result, "the order that seats the next match"
    if "order" in result:  # every seat once, forfeited seats last as they rank
        assert sorted(result["order"]) == list(range(state.players))
        forfeited = [seat in state.forfeited for seat in result["order"]]
        assert forfeited == sorted(forfeited)
    json.dumps(result)


def check_round_trip(game, state) -> None:
    data = state.to_json()
    assert json.loads(json.dumps(data)) == data, "to_json must be plain JSON"
    assert game.from_json(json.loads(json.dumps(data))).to_json() == data


@pytest.mark.parametrize("game_id", game_ids())
@settings(max_examples=1000, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS)
def test_random_matches_end_legally_and_replay(game_id: str, seed: int) -> None:
    """Thousands of whole random matches: end within the cap, valid result, exact replay."""
    game, state, rng = new_random_match(game_id, seed)
    actions = random_playout(state, rng)
    cap = game.move_cap(state.players, state.options)
    assert state.is_over and state.to_act() == []
    assert state.moves == len(actions) <= cap
    state.check_invariants()
    check_result(state)
    check_round_trip(game, state)
    again = replay(game_id, state.players, seed, state.options, actions)
    assert again.to_json() == state.to_json()


@pytest.mark.parametrize("game_id", game_ids())
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS)
def test_every_move_keeps_invariants_and_leaks_nothing(game_id: str, seed: int) -> None:
    """Checks at every move of fewer matches: legality, invariants, views, round trip. The
    spectator's view and one seat's, drawn at random each move (every seat is drawn many
    times a match), are JSON and checked against a redrawing of what they cannot see."""
    game, state, rng = new_random_match(game_id, seed)
    resampled_differs = False
    while not state.is_over:
        to_act = state.to_act()
        assert to_act and len(set(to_act)) == len(to_act)
        for other in range(state.players):
            if other not in to_act:
                assert len(state.legal_actions(other)) == 0
        state.check_invariants()
        for seat in (None, rng.below(state.players)):
            view = state.view(seat)
            assert json.loads(json.dumps(view)) == view
            hidden_redrawn = state.resample(seat, seed=rng.next64())
            hidden_redrawn.check_invariants()
            assert hidden_redrawn.view(seat) == view, f"view of seat {seat} depends on hidden info"
            assert hidden_redrawn.to_act() == to_act
            if seat is not None:
                assert list(hidden_redrawn.legal_actions(seat)) == list(state.legal_actions(seat))
            resampled_differs |= hidden_redrawn.dump() != state.dump()
        if rng.below(8) == 0:
            check_round_trip(game, state)
        seat = to_act[rng.below(len(to_act))]
        legal = state.legal_actions(seat)
        action = legal[rng.below(len(legal))]
        assert action in legal
        state.validate(seat, action)
        state.apply(seat, action)
    check_result(state)
    assert resampled_differs, "resample() never changed any hidden information"


@pytest.mark.parametrize("game_id", game_ids())
def test_a_series_match_gets_valid_options(game_id: str) -> None:
    """``series_options`` (a league's hand after hand) gives options the game accepts, for
    the first match and the later ones, and leaves the series' own options alone."""
    game = get_game(game_id)
    players = game.min_players
    for ordered, first in ((False, True), (True, False)):
        series = game.check_options({}, players)
        passed = game.series_options(series, players=players, ordered=ordered, first=first)
        assert game.check_options(passed, players) == passed
        assert series == game.check_options({}, players)
        state = game.new_match(players=players, seed=3, options=passed)
        random_playout(state, Rng(3))
        check_result(state)


@pytest.mark.parametrize("game_id", game_ids())
def test_default_action_is_always_legal(game_id: str) -> None:
    for seed in range(30):
        _, state, rng = new_random_match(game_id, seed)
        while not state.is_over:
            for seat in state.to_act():
                state.validate(seat, state.default_action(seat))
            seat = state.to_act()[0]
            legal = state.legal_actions(seat)
            state.apply(seat, legal[rng.below(len(legal))])


@pytest.mark.parametrize("game_id", game_ids())
def test_reference_bots_play_whole_matches(game_id: str) -> None:
    from games.engine.play import play_bots

    game = get_game(game_id)
    for seed in range(5):
        players = game.min_players + seed % (game.max_players - game.min_players + 1)
        bots = ["heuristic"] + ["random"] * (players - 1)
        state = play_bots(game_id, bots, seed=seed)
        assert state.is_over
        check_result(state)


@pytest.mark.parametrize("game_id", game_ids())
def test_same_seed_same_match_and_other_seed_differs(game_id: str) -> None:
    game = get_game(game_id)
    a, b, c = (game.new_match(seed=s) for s in (11, 11, 12))
    assert a.to_json() == b.to_json()
    assert a.to_json()["state"] != c.to_json()["state"]


@pytest.mark.parametrize("game_id", game_ids())
def test_malformed_actions_are_refused_with_a_reason(game_id: str) -> None:
    from games.engine import IllegalAction

    state = get_game(game_id).new_match(seed=3)
    seat = state.to_act()[0]
    before = state.to_json()
    for junk in [None, [], "x", 7, {}, {"type": "nonsense"}, {"type": None},
                 {"type": 3, "cards": "all"}]:
        with pytest.raises(IllegalAction) as caught:
            state.apply(seat, junk)
        assert str(caught.value)
    for legal in list(state.legal_actions(seat))[:20]:
        broken = {k: ("?" if k != "type" else v) for k, v in legal.items()}
        if broken != legal:
            with pytest.raises(IllegalAction):
                state.apply(seat, broken)
    assert state.to_json() == before


@pytest.mark.parametrize("game_id", game_ids())
def test_a_state_saved_without_its_event_log_plays_on_identically(game_id: str) -> None:
    """``to_json(events=False)`` (the platform stores events itself) loses nothing else."""
    for seed in range(20):
        game, full, rng = new_random_match(game_id, seed)
        detached = game.from_json(full.to_json(events=False))
        while not full.is_over:
            seen = detached.event_count
            assert seen == full.event_count
            seat = full.to_act()[0]
            legal = full.legal_actions(seat)
            action = legal[rng.below(len(legal))]
            full.apply(seat, action)
            detached.apply(seat, action)
            for who in (None, seat):
                assert detached.events_since(seen, who) == full.events_since(seen, who)
                assert detached.view(who) == full.view(who)
            if rng.below(3) == 0:
                detached = game.from_json(json.loads(json.dumps(detached.to_json(events=False))))
        assert detached.to_json(events=False) == full.to_json(events=False)
        assert detached.result() == full.result()
        with pytest.raises(Exception, match="not in this state"):
            detached.events_since(0)


def test_player_counts_read_as_words() -> None:
    """"dot is for 2 to 2 players" read like a typo."""
    from games.engine.base import counted, players_range

    with pytest.raises(BadOptions, match="is for 2 players, not 3$"):
        get_game("dot").new_match(players=3)
    with pytest.raises(BadOptions, match="is for 2 to 6 players, not 7"):
        get_game("dice_cup").new_match(players=7)
    assert (players_range(2, 2), players_range(4, 8)) == ("2 players", "4 to 8 players")
    assert (counted(1, "participant"), counted(0, "participant")) == (
        "1 participant", "0 participants")


@pytest.mark.parametrize("game_id", game_ids())
def test_a_face_up_view_is_a_seats_view_with_its_own_place_face_up(game_id: str) -> None:
    """Issue 48: the replay of a match that is over lays each seat's place from
    ``face_up_view(seat)``: the same keys as ``view(seat)``, and the same values but for the
    cards a seat holds without seeing them (Le Dutch's slots, all named); asking for it
    changes neither the state nor any view a running match sends."""
    from games.engine.dutch import NAME

    _, state, rng = new_random_match(game_id, 11)
    hidden_own = 0
    while not state.is_over:
        saved = state.to_json()
        for seat in range(state.players):
            view = state.view(seat)
            face_up = state.face_up_view(seat)
            assert json.loads(json.dumps(face_up)) == face_up and face_up.keys() == view.keys()
            assert state.view(seat) == view and state.to_json() == saved, "nothing changed"
            if game_id != "dutch":
                assert face_up == view, "a seat already sees all it holds"
                continue
            own, seen = face_up["hands"][seat]["slots"], view["hands"][seat]["slots"]
            assert [slot["card"] for slot in own] == [NAME[card] for card in state.cd[seat]], \
                "every slot of its own named, as it lies"
            assert [{**slot, "card": None} for slot in own] == [
                {**slot, "card": None} for slot in seen], "slots and who knows them unchanged"
            assert all(a["card"] == b["card"] for a, b in zip(own, seen) if b["card"])
            hidden_own += sum(slot["card"] is None for slot in seen)
            assert {**face_up, "hands": None} == {**view, "hands": None}
            assert all(face_up["hands"][other] == hand for other, hand in
                       enumerate(view["hands"]) if other != seat), "nobody else's card turned"
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        state.apply(seat, legal[rng.below(len(legal))])
    if game_id == "dutch":
        assert hidden_own, "some slot was hidden from its owner, then turned face up"
