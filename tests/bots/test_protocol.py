"""Protocol v1 bodies carry only the seat's view and what it may do (G-3); answers are read and
validated by the engine."""

from __future__ import annotations

import json

import pytest

from bots import protocol
from bots.protocol import Failure, MatchInfo, MoveAnswer
from bots.refserver import legal_from_body
from games.engine import get_game
from games.engine.play import random_playout
from games.engine.rng import Rng


def _match(state) -> MatchInfo:
    return MatchInfo(id=1, game=state.game.id, options=state.options,
                     seats=[f"p{i}" for i in range(state.players)], timeout_ms=500,
                     strike_limit=3)


def _walk(game_id: str, seed: int = 1, players: int | None = None):
    """Yield ``(state, seat)`` at every decision of a random match (of ``players``, default
    the game's)."""
    state = get_game(game_id).new_match(seed=seed, players=players)
    rng = Rng(seed)
    while not state.is_over:
        seat = state.to_act()[0]
        yield state, seat
        legal = state.legal_actions(seat)
        state.apply(seat, legal[rng.below(len(legal))])


def test_move_body_holds_the_view_and_the_legal_actions(game_id) -> None:
    for n, (state, seat) in enumerate(_walk(game_id)):
        body = json.loads(protocol.encode(protocol.move_body(_match(state), state, seat)))
        assert set(body) <= {"apiversion", "match", "seat", "turn", "view", "legal_count",
                             "legal_actions", "legal_description"}
        assert body["view"] == state.view(seat)  # only the seat's view: nothing else of the state
        assert (body["seat"], body["turn"], body["apiversion"]) == (seat, state.moves, "1")
        assert body["match"]["seats"][seat] == {"seat": seat, "name": f"p{seat}"}
        legal = state.legal_actions(seat)
        assert body["legal_count"] == len(legal)
        assert body["legal_actions"] == list(legal)  # the complete list, unless asked otherwise
        if n > 300:
            break


def test_the_complete_list_goes_to_every_bot_that_did_not_ask_for_the_compact_form() -> None:
    """A bot written from the request table reads legal_actions: it is never left out for it,
    however long (DTC offers above LEGAL_LIST_LIMIT)."""
    for seed in range(20):
        for state, seat in _walk("dtc", seed):
            legal = state.legal_actions(seat)
            if len(legal) > protocol.LEGAL_LIST_LIMIT:
                body = protocol.move_body(_match(state), state, seat)
                assert body["legal_actions"] == list(legal)
                assert body["legal_description"] == legal.describe()
                return
    pytest.fail("no DTC offer step above the limit in 20 matches")


def test_large_dtc_offer_lists_are_sent_as_a_description_to_bots_that_accept_it() -> None:
    seen_large = seen_small = False
    for seed in range(20):
        for state, seat in _walk("dtc", seed):
            legal = state.legal_actions(seat)
            if not hasattr(legal, "describe"):
                continue
            body = protocol.move_body(_match(state), state, seat, compact=True)
            assert body["legal_description"] == legal.describe()
            if len(legal) > protocol.LEGAL_LIST_LIMIT:
                seen_large = True
                assert "legal_actions" not in body
                assert list(legal_from_body("dtc", body)) == list(legal)
            else:
                seen_small = True
                assert body["legal_actions"] == list(legal)
        if seen_large and seen_small:
            return
    pytest.fail("no DTC offer step above and below the limit in 20 matches")


def test_every_list_left_out_for_a_compact_bot_is_rebuilt_by_its_game(game_id) -> None:
    """The reference bots' handshake says ``compact_legal_actions``: whatever list the protocol
    leaves out for them, their server rebuilds from the description as the engine had it
    (``Game.legal_from_description``; a game with long described lists must declare it)."""
    for seed in range(5):
        for state, seat in _walk(game_id, seed):
            legal = state.legal_actions(seat)
            if protocol.omits_legal_list(legal, compact=True):
                body = protocol.move_body(_match(state), state, seat, compact=True)
                assert list(legal_from_body(game_id, json.loads(protocol.encode(body)))) == list(
                    legal)


def test_every_described_list_is_rebuilt_by_its_game(game_id) -> None:
    """Any list a game can describe it can rebuild, long or short, after a JSON round trip:
    which lists are over the limit depends on the seats and the deal (a dice cup call step
    reaches it only now and then, and the reference bots then answered HTTP 400)."""
    game = get_game(game_id)
    described = 0
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(3):
            for state, seat in _walk(game_id, seed, players=players):
                legal = state.legal_actions(seat)
                if hasattr(legal, "describe"):
                    description = json.loads(json.dumps(legal.describe()))
                    assert list(game.legal_from_description(description)) == list(legal)
                    described += 1
    if game_id in ("dtc", "dice_cup"):
        assert described > 20


def test_starter_bot_plays_legally_from_a_description(starter) -> None:
    checked = 0
    for seed in range(10):
        for state, seat in _walk("dtc", seed):
            legal = state.legal_actions(seat)
            if hasattr(legal, "describe"):
                body = {"legal_description": legal.describe()}
                for _ in range(5):
                    state.validate(seat, starter.choose(body))
                checked += 1
    assert checked > 20


def test_start_and_end_bodies(game_id) -> None:
    state = get_game(game_id).new_match(seed=3)
    start = protocol.start_body(_match(state), state, 0)
    assert start["view"] == state.view(0) and "legal_actions" not in start
    random_playout(state, Rng(3))
    end = protocol.end_body(_match(state), state, 0)
    assert end["result"] == state.result() == end["view"]["result"]


@pytest.fixture
def asked():
    state = get_game("dice_cup").new_match(players=2, seed=1)
    return state, state.to_act()[0]


@pytest.mark.parametrize("raw, reason", [
    (b"", protocol.INVALID_JSON),
    (b"{", protocol.INVALID_JSON),
    (b"\xff\xfe", protocol.INVALID_JSON),
    (b"[" * 100_000, protocol.INVALID_JSON),
    (b"[]", protocol.BAD_SHAPE),
    (b'{"move": {}}', protocol.BAD_SHAPE),
    (b'{"action": "roll"}', protocol.BAD_SHAPE),
    (b'{"action": {"type": "x"}, "log": 5}', protocol.BAD_SHAPE),
    (b'{"action": {"type": "no such move"}}', protocol.ILLEGAL_ACTION),
    (b'{"action": {}}', protocol.ILLEGAL_ACTION),
])
def test_bad_answers_are_failures_with_reasons(asked, raw, reason) -> None:
    state, seat = asked
    before = state.to_json()
    outcome = protocol.parse_move_answer(state, seat, raw)
    assert isinstance(outcome, Failure) and outcome.reason == reason and outcome.detail
    assert outcome.is_bot_fault
    assert state.to_json() == before  # reading an answer never changes the state


@pytest.mark.parametrize("raw", [
    b'{"a": 1, "a": 2}', b'[NaN, Infinity, -Infinity, 1e400]', b'\xef\xbb\xbf{"a": [1.5, -0.0]}',
    b'"\\ud800"', b'[18446744073709551616, -9223372036854775809, 9223372036854775807, 0.1]',
    b'{"x": "\\u00e9 \\n \xc3\xa9", "y": [true, false, null, -0]}',
])
def test_answers_read_as_the_standard_library_reads_them(raw) -> None:
    """orjson reads most answers; what it reads differently (an integer beyond 64 bits becomes
    a float) or refuses goes to the standard library: the same values, of the same types."""
    assert repr(protocol._load(raw)) == repr(json.loads(raw))


def test_a_good_answer_and_its_log(asked) -> None:
    state, seat = asked
    action = state.legal_actions(seat)[0]
    raw = json.dumps({"action": action, "log": "y" * 5000, "extra": 1}).encode()
    outcome = protocol.parse_move_answer(state, seat, raw)
    assert outcome == MoveAnswer(action=action, log="y" * protocol.LOG_LIMIT)


@pytest.mark.parametrize("action, reason", [({"type": "no such move"}, protocol.ILLEGAL_ACTION),
                                            (None, protocol.BAD_SHAPE)])
def test_a_failed_answer_keeps_its_log(asked, action, reason) -> None:
    state, seat = asked
    raw = json.dumps({"action": action, "log": "z" * 5000}).encode()
    outcome = protocol.parse_move_answer(state, seat, raw)
    assert outcome == Failure(reason, outcome.detail, log="z" * protocol.LOG_LIMIT)


def test_an_answer_for_a_seat_not_asked_is_illegal(asked) -> None:
    state, seat = asked
    other = 1 - seat
    raw = json.dumps({"action": state.legal_actions(seat)[0]}).encode()
    outcome = protocol.parse_move_answer(state, other, raw)
    assert isinstance(outcome, Failure) and outcome.reason == protocol.ILLEGAL_ACTION


def _long_dtc_offer():
    for seed in range(20):
        for state, seat in _walk("dtc", seed):
            if len(state.legal_actions(seat)) > protocol.LEGAL_LIST_LIMIT:
                return state, seat
    pytest.fail("no DTC offer step above the limit in 20 matches")


@pytest.mark.parametrize("raw", [b'{"action": null}', b'{"log": "no list, no action"}'])
def test_a_missing_action_without_the_complete_list_names_legal_description(raw) -> None:
    state, seat = _long_dtc_offer()
    compact = protocol.parse_move_answer(state, seat, raw, compact=True)
    assert compact.reason == protocol.BAD_SHAPE and "legal_description" in compact.detail
    listed = protocol.parse_move_answer(state, seat, raw)
    assert listed.reason == protocol.BAD_SHAPE and "legal_description" not in listed.detail


@pytest.mark.parametrize("extra, compact", [("", False),
                                            (', "compact_legal_actions": false', False),
                                            (', "compact_legal_actions": true', True),
                                            (', "compact_legal_actions": "yes"', None)])
def test_the_handshake_says_whether_the_bot_accepts_the_compact_form(extra, compact) -> None:
    raw = b'{"apiversion": "1", "games": ["dtc"]%s}' % extra.encode()
    outcome = protocol.parse_handshake(raw)
    if compact is None:
        assert outcome.reason == protocol.BAD_SHAPE and "compact_legal_actions" in outcome.detail
    else:
        assert outcome.compact_legal_actions is compact


@pytest.mark.parametrize("raw, ok", [
    (b'{"apiversion": "1", "name": "n", "author": "a", "games": ["dtc"]}', True),
    (b'{"apiversion": "1", "games": []}', True),
    (b'{"apiversion": 1, "games": ["dtc"]}', False),
    (b'{"apiversion": "2", "games": []}', False),
    (b'{"apiversion": "1", "games": "dtc"}', False),
    (b"nope", False),
])
def test_handshake(raw, ok) -> None:
    outcome = protocol.parse_handshake(raw)
    assert isinstance(outcome, protocol.Handshake) is ok


@pytest.mark.parametrize("version, said", [(1, 'not the number 1'), (None, "not null"),
                                           ("2", 'not the string "2"')])
def test_apiversion_must_be_the_string_1(version, said) -> None:
    outcome = protocol.parse_handshake(json.dumps({"apiversion": version,
                                                   "games": ["dtc"]}).encode())
    assert outcome == Failure(protocol.BAD_SHAPE, f'"apiversion" must be the string "1", {said}')


def test_handshake_games_are_listed_once_and_unknown_ids_kept_apart() -> None:
    raw = b'{"apiversion": "1", "games": ["dtc", "chess", "dot", "dtc", "chess"]}'
    outcome = protocol.parse_handshake(raw)
    assert outcome.games == ["dtc", "dot"] and outcome.unknown_games == ["chess"]


def test_bodies_are_compact_utf8_json_with_string_keys() -> None:
    """What is signed is what is sent: compact UTF-8 (a player named Zoë stays two bytes of
    UTF-8, not an escape), integer keys written as strings as ``json.dumps`` would."""
    body = protocol.encode({"seats": [{"seat": 0, "name": "Zoë"}], "scores": {1: 3}})
    assert body == '{"seats":[{"seat":0,"name":"Zoë"}],"scores":{"1":3}}'.encode()
    assert json.loads(body) == json.loads(json.dumps({"seats": [{"seat": 0, "name": "Zoë"}],
                                                      "scores": {1: 3}}))


@pytest.mark.parametrize("declared", [1, 8, 256])
def test_the_handshake_may_declare_how_many_requests_the_bot_takes_at_once(declared) -> None:
    raw = json.dumps({"apiversion": "1", "games": ["dtc"], "max_concurrency": declared}).encode()
    assert protocol.parse_handshake(raw).max_concurrency == declared


def test_a_handshake_that_declares_no_concurrency_gets_the_platform_default() -> None:
    assert protocol.parse_handshake(b'{"apiversion": "1", "games": ["dtc"]}').max_concurrency \
        is None


@pytest.mark.parametrize("declared, said", [(0, "the number 0"), (257, "the number 257"),
                                            ("8", 'the string "8"'), (True, "the boolean true"),
                                            (1.5, "the number 1.5"), (8.0, "the number 8.0"),
                                            (None, "null"), (10**30, "the number 1000")])
def test_max_concurrency_must_be_an_integer_from_1_to_256(declared, said) -> None:
    raw = json.dumps({"apiversion": "1", "games": ["dtc"], "max_concurrency": declared}).encode()
    outcome = protocol.parse_handshake(raw)
    assert isinstance(outcome, Failure) and outcome.reason == protocol.BAD_SHAPE
    assert outcome.detail.startswith('"max_concurrency" must be an integer from 1 to 256')
    assert f"not {said}" in outcome.detail
