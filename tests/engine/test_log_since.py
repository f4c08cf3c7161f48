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
