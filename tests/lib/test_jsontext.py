"""``lib.jsontext.dumps``: the bytes ``orjson`` writes with non-string keys allowed, whichever
way it took, and ``json.dumps``'s reading of them."""

from __future__ import annotations

import enum
import json
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import get_game
from lib import jsontext

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.text(max_size=5) | st.integers(-9, 99), inner, max_size=4),
    max_leaves=20)


@given(json_values)
def test_the_bytes_are_those_of_orjson_with_non_string_keys(value: Any) -> None:
    assert jsontext.dumps(value) == orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


class Rank(enum.StrEnum):
    ONE = "1"


@pytest.mark.parametrize(("value", "text"), [
    ({"scores": {1: 3, 2: 0}}, '{"scores":{"1":3,"2":0}}'),
    ([{"a": {0: [None, True]}}], '[{"a":{"0":[null,true]}}]'),
    ({Rank.ONE: 2}, '{"1":2}'),
    ({"name": "Zoë"}, '{"name":"Zoë"}'),
])
def test_keys_that_are_not_strings_are_written_as_json_dumps_writes_them(value: Any,
                                                                         text: str) -> None:
    assert jsontext.dumps(value) == text.encode()
    assert json.loads(jsontext.dumps(value)) == json.loads(json.dumps(value))


def test_what_json_cannot_hold_is_refused() -> None:
    with pytest.raises(TypeError):
        jsontext.dumps({"when": object()})


@pytest.mark.parametrize("game_id", ["dtc", "great_dalmuti", "dutch", "dice_cup", "dot"])
def test_a_whole_match_state_is_written_without_the_slower_option(game_id: str,
                                                                  monkeypatch) -> None:
    """The fast path is the one taken: a whole match's state (its events too) and views have
    string keys all through."""
    game = get_game(game_id)
    state = game.new_match(seed=11)
    bots = [game.make_bot("random", seat, 11) for seat in range(state.players)]
    while not state.is_over:
        seat = state.to_act()[0]
        state.apply(seat, bots[seat].choose(state.view(seat), state.legal_actions(seat)))
    calls: list[Any] = []
    real = orjson.dumps

    def counting(value: Any, *args: Any, **kwargs: Any) -> bytes:
        calls.append(kwargs.get("option"))
        return real(value, *args, **kwargs)

    monkeypatch.setattr(orjson, "dumps", counting)
    jsontext.dumps({"state": state.to_json(), "view": state.view(0)})
    assert calls == [None]
