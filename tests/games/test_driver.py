"""The match driver without a database: the one failure policy, versions and steps, settling
forfeited and inline seats, and kinds that fail."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from games.driver import APPLIED, EntryKind, MatchDriver, replay
from games.engine import State, get_game
from games.seats import SeatAnswer, SeatKind, SeatSession, Table, TableSeat

OUT = "scripted"


class Scripted(SeatSession):
    """An out-of-process kind whose answers a test sets per seat (a function of the state)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.asked: list[tuple[int, ...]] = []

    def session(self, table: Table) -> Scripted:
        return self

    def ask(self, state: State, seats: Sequence[int], version: int) -> dict[int, SeatAnswer]:
        self.asked.append(tuple(seats))
        return {n: self.answer(state, n) for n in seats}


def driver(kinds: list[str], answer: Any = None, *, game: str = "dice_cup",
           strike_limit: int = 3, seed: int = 1) -> tuple[MatchDriver, Scripted]:
    state = get_game(game).new_match(players=len(kinds), seed=seed)
    table = Table(match_id="t", game=game, options=state.options, seed=seed,
                  seats=tuple(TableSeat(n, k, bot="random" if k == "reference" else "")
                              for n, k in enumerate(kinds)),
                  move_time_limit=60, strike_limit=strike_limit)
    seat = Scripted(answer or (lambda state, n: SeatAnswer(action=state.legal_actions(n)[0])))
    return MatchDriver(state, table, kinds={OUT: SeatKind(OUT, automatic=seat, inline=False)}
                       ), seat


def play_out(d: MatchDriver) -> None:
    """What the games task does, without a database: settle, then ask, until the end."""
    d.settle()
    while not d.state.is_over:
        d.run()
        d.settle()


def first_legal(state: State, n: int) -> SeatAnswer:
    return SeatAnswer(action=state.legal_actions(n)[0])


def test_a_legal_answer_is_applied_and_logged() -> None:
    d, _ = driver([OUT, "player"])
    seat = d.state.to_act()[0]
    assert d.decide(seat, first_legal(d.state, seat))
    [move] = d.moves
    assert move.kind == "action" and move.seat == seat and move.strike is None
    assert d.version == move.n == 1 and d.strikes == [0, 0]


@pytest.mark.parametrize("answer, kind, strike", [
    (SeatAnswer(action={"type": "no such action"}), EntryKind.DEFAULT, "illegal_action"),
    (SeatAnswer(strike="http_status", detail="HTTP 500"), EntryKind.DEFAULT, "http_status"),
    (SeatAnswer(detail="platform error: our bug"), EntryKind.DEFAULT, None),
])
def test_a_failed_answer_gets_the_default_action_and_a_strike_when_the_seat_is_at_fault(
        answer: SeatAnswer, kind: str, strike: str | None) -> None:
    d, _ = driver([OUT, "player"])
    seat = d.state.to_act()[0]
    default = d.state.default_action(seat)
    assert d.decide(seat, answer)
    [move] = d.moves
    assert (move.kind, move.action, move.strike) == (kind, default, strike)
    assert move.detail, "the reason is kept for the seat's developer"
    assert d.strikes[seat] == (1 if strike else 0)


def test_the_strike_limit_forfeits_and_a_forfeited_seat_is_not_asked_again() -> None:
    d, seat = driver([OUT, "reference"], lambda s, n: SeatAnswer(strike="timeout"),
                     strike_limit=2)
    play_out(d)
    assert d.strikes[0] == 2 and d.forfeited == {0}
    resign = [m for m in d.moves if m.kind == EntryKind.RESIGN]
    assert [(m.seat, m.action["reason"]) for m in resign] == [(0, "strikes")]
    assert len(seat.asked) == 2, "asked twice, then defaults without asking"
    assert d.state.result()["ranks"][0] == 2


def test_a_strike_limit_of_zero_never_forfeits() -> None:
    d, seat = driver([OUT, "reference"], lambda s, n: SeatAnswer(strike="timeout"),
                     strike_limit=0)
    play_out(d)
    assert d.strikes[0] == len(seat.asked) > 3 and not d.forfeited


def test_only_polling_seats_have_a_deadline_an_automatic_seat_is_never_struck_by_it() -> None:
    """A deadline that passes while an out-of-process seat is due means the platform did not
    ask it (a dead worker, a backlog): nothing is applied, no strike; it is asked later."""
    d, seat = driver([OUT, OUT], strike_limit=1)
    assert d.polling_due() == [] and d.expire() == 0
    assert d.moves == [] and d.strikes == [0, 0] and d.version == 0 and not seat.asked
    d.settle()
    d.run(max_steps=1)
    assert len(seat.asked) == 1 and d.strikes == [0, 0], "asked when the platform is back"
    # A simultaneous step shared by a bot and a person (D.O.T's commits): only the person is
    # late.
    d, _ = driver([OUT, "player"], game="dot", strike_limit=0)
    assert sorted(d.state.to_act()) == [0, 1] and d.polling_due() == [1]
    assert d.expire() == 1
    assert [(m.kind, m.seat, m.strike) for m in d.moves] == [(EntryKind.TIMEOUT, 1, "timeout")]
    assert d.strikes == [0, 1] and d.state.to_act() == [0]


def test_a_missed_deadline_is_a_timeout_strike_and_forfeits_as_timeouts() -> None:
    d, _ = driver(["player", "player"], strike_limit=1)
    seat = d.state.to_act()[0]
    assert d.expire() == 1
    timeout, resign = d.moves
    assert timeout.kind == EntryKind.TIMEOUT and timeout.strike == "timeout" and timeout.seat == seat
    assert resign.kind == EntryKind.RESIGN and resign.action == {"type": "resign", "reason": "timeouts"}
    assert d.version == 2


def test_settle_plays_forfeited_seats_and_reference_bots_until_a_player_is_due() -> None:
    d, _ = driver(["player", "reference", "reference"])
    d.resign(0)
    d.settle()
    assert d.state.is_over, "nobody left to wait for"
    kinds = {(m.seat, m.kind) for m in d.moves}
    assert (0, EntryKind.DEFAULT) in kinds and (1, "action") in kinds and (2, "action") in kinds


def test_a_kind_that_raises_is_a_platform_failure_never_a_strike() -> None:
    def broken(state: State, n: int) -> SeatAnswer:
        raise RuntimeError("bug in a kind")

    d, _ = driver([OUT, "player"], broken)
    due, _ = d.due_out_of_process()
    answers = d.ask(due)
    assert "bug in a kind" in answers[due[0]].detail and answers[due[0]].strike is None
    d.submit(answers)
    assert d.strikes == [0, 0] and d.moves[0].kind == EntryKind.DEFAULT


def test_a_reference_bot_that_fails_is_a_platform_failure(monkeypatch) -> None:
    bot_class = get_game("dice_cup").bots["random"]
    monkeypatch.setattr(bot_class, "choose", lambda self, view, legal: {"type": "nonsense"})
    d, _ = driver(["reference", "player"])
    d.settle()
    first = d.moves[0]
    assert first.kind == EntryKind.DEFAULT and first.strike is None and "platform error" in first.detail


def test_a_step_goes_on_while_the_seats_left_are_fewer() -> None:
    """D.O.T commits are simultaneous: the first answer keeps the step, the last ends it."""
    d, _ = driver([OUT, OUT], game="dot")
    assert sorted(d.state.to_act()) == [0, 1]
    answers = d.ask([0, 1])
    d.decide(0, answers[0])
    assert (d.version, d.step_version) == (1, 0), "seat 1 may still answer for version 0"
    d.decide(1, answers[1])
    assert d.step_version == d.version == 2


def test_run_stops_at_a_polling_seat_and_at_its_budget() -> None:
    d, seat = driver([OUT, OUT, "player"])
    d.settle()
    steps, applied = d.run()
    assert d.state.to_act() == [2] or d.state.is_over
    assert steps == applied == len(seat.asked) > 0
    d2, _ = driver([OUT, OUT, OUT])
    assert d2.run(max_steps=3) == (3, 3) and len(d2.take_moves()) == 3
    assert d2.run(max_moves=2)[0] == 2, "stops once the batch has enough entries"
    assert len(d2.moves) == 2


def test_replay_rebuilds_a_match_from_its_entries_forfeits_included() -> None:
    d, _ = driver([OUT, "reference"], lambda s, n: SeatAnswer(strike="timeout"),
                  strike_limit=2, seed=4)
    play_out(d)
    assert any(m.kind == EntryKind.RESIGN for m in d.moves)
    fresh = get_game("dice_cup").new_match(players=2, seed=4)
    again = replay(fresh, d.moves)
    assert again.result() == d.state.result() and again.is_over
    assert again.forfeited == d.state.forfeited == [0] and again.dump() == d.state.dump()
    # Without the forfeit (actions alone, as games.engine.play.replay takes them) it differs.
    actions_only = get_game("dice_cup").new_match(players=2, seed=4)
    for move in d.moves:
        if move.kind in APPLIED:
            actions_only.apply(move.seat, move.action)
    assert actions_only.forfeited == []
