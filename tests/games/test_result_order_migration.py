"""Migration 0013 gives finished Great Dalmuti matches stored before results carried the order
of going out (GD-2) their ``result["order"]``, as the engine gives it now, and takes it back."""

from __future__ import annotations

import pytest

from games.engine import Rng, get_game
from games.engine.play import random_playout

from ..migrations import migrate, migrate_to_latest

BEFORE = [("games", "0012_match_lease_and_resume")]
AFTER = [("games", "0013_dalmuti_result_order")]

pytestmark = pytest.mark.django_db(transaction=True)


def _finished(game: str, seed: int, options: dict):
    state = get_game(game).new_match(players=5 if game == "great_dalmuti" else 2, seed=seed,
                                     options=options)
    random_playout(state, Rng(seed))
    return state


def test_finished_dalmuti_results_get_their_order_of_going_out_and_lose_it_back() -> None:
    dalmuti = _finished("great_dalmuti", 4, {"hands": 1, "philanthropic": True})
    dice = _finished("dice_cup", 4, {})
    old = {k: v for k, v in dalmuti.result().items() if k != "order"}
    apps = migrate(BEFORE)
    try:
        Match = apps.get_model("games", "Match")

        def stored(state, result, status="finished"):
            return Match.objects.create(game=state.game.id, seed=state.seed,
                                        players=state.players, options=state.options,
                                        state=state.to_json(events=False), status=status,
                                        version=state.moves, result=result).pk

        finished = stored(dalmuti, old)
        running = stored(dalmuti, None, status="running")
        other = stored(dice, dice.result())

        apps = migrate(AFTER)
        Match = apps.get_model("games", "Match")
        result = Match.objects.get(pk=finished).result
        assert result == dalmuti.result() and result["order"] == [
            e for e in dalmuti.events_since(0) if e["type"] == "hand_end"][-1]["out_order"]
        assert Match.objects.get(pk=running).result is None
        assert Match.objects.get(pk=other).result == dice.result()

        apps = migrate(BEFORE)
        assert apps.get_model("games", "Match").objects.get(pk=finished).result == old
    finally:
        migrate_to_latest()
