"""``State.log_since``: the record of events (public, every seat's private part) that the match
log stores is exactly what each seat and a spectator were shown, merged."""

from __future__ import annotations

import pytest

from games.engine import game_ids, get_game


@pytest.mark.parametrize("game_id", game_ids())
def test_the_log_merges_what_each_seat_saw(game_id: str) -> None:
    game = get_game(game_id)
    for seed in range(5):
        state = game.new_match(players=game.min_players, seed=seed)
        bots = [game.make_bot("random", seat, seed) for seat in range(state.players)]
        while not state.is_over:
            for seat in state.to_act():
                if not state.is_over and seat in state.to_act():
                    state.apply(seat, bots[seat].choose(state.view(seat),
                                                        state.legal_actions(seat)))
        for since in (0, state.event_count // 2):
            log = state.log_since(since)
            assert [{k: v for k, v in e.items() if k != "private"} for e in log] == \
                state.events_since(since)
            for seat in range(state.players):
                seen = [e.get("private") for e in state.events_since(since, seat)]
                assert [e.get("private", {}).get(str(seat)) for e in log] == seen


@pytest.mark.parametrize("game_id", game_ids())
def test_what_a_caller_does_with_events_never_changes_the_state(game_id: str) -> None:
    """The log hands out the state's own public events (no copy a move): a seat's events and a
    saved state are copies, so changing them changes nothing; a saved state keeps its format
    (the events' indices come back from the offset) and loads to the same events."""
    game = get_game(game_id)
    state = game.new_match(players=game.min_players, seed=3)
    bot = [game.make_bot("random", seat, 3) for seat in range(state.players)]
    for _ in range(6):
        seat = state.to_act()[0]
        state.apply(seat, bot[seat].choose(state.view(seat), state.legal_actions(seat)))
    log = state.log_since(0)
    assert [e["n"] for e in log] == list(range(state.event_count))
    for seat in (None, *range(state.players)):
        for event in state.events_since(0, seat):
            event["type"], event["private"] = "changed", "changed"
    saved = state.to_json()
    assert all("n" not in event for event, _ in saved["events"])
    for event, _ in saved["events"]:
        event["type"] = "changed"
    assert state.log_since(0) == log
    loaded = game.from_json(state.to_json())
    assert loaded.log_since(0) == log and loaded.events_since(1) == state.events_since(1)
