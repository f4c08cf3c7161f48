"""The failure policy over real HTTP: every misbehaving bot gets the game's default action and a
strike with the right reason, the match always completes, and other seats are not affected."""

from __future__ import annotations

import pytest

from bots import protocol
from bots.offline import ReferenceSeat, WebhookSeat, play_webhook_match
from games.engine import get_game
from games.engine.play import replay

from .conftest import SHORT_OPTIONS

MISBEHAVIOURS = [
    ("error500", protocol.HTTP_STATUS),
    ("invalid_json", protocol.INVALID_JSON),
    ("bad_shape", protocol.BAD_SHAPE),
    ("illegal", protocol.ILLEGAL_ACTION),
    ("huge", protocol.OVERSIZED_BODY),
    ("huge_stream", protocol.OVERSIZED_BODY),
    ("redirect", protocol.HTTP_STATUS),
]


def _seats(url: str, secret: str, players: int) -> list:
    return [WebhookSeat(url, secret, "bot under test")] + [ReferenceSeat("random")] * (players - 1)


def assert_defaults_replayed(report, seat: int) -> None:
    """Replaying the match, every action of ``seat`` is exactly the engine's default action."""
    state = report.state
    game = get_game(state.game.id)
    fresh = game.new_match(players=state.players, seed=state.seed, options=state.options)
    for decision in report.history:
        if decision.seat == seat:
            assert decision.source == "default"
            assert decision.action == fresh.default_action(seat)
        fresh.apply(decision.seat, decision.action)
    assert fresh.is_over


@pytest.mark.parametrize("behaviour, reason", MISBEHAVIOURS)
def test_each_failure_gives_the_default_action_and_a_strike(client, fake_bot, secret, behaviour,
                                                            reason) -> None:
    bot = fake_bot(behaviour)
    report = play_webhook_match("dice_cup", _seats(bot.url, secret, 3), client=client, seed=4,
                                timeout_ms=2000, strike_limit=None)
    stats = report.seats[0]
    assert report.state.is_over and report.aborted is None
    assert stats.moves > 0
    assert dict(stats.strikes) == {reason: stats.moves}
    assert stats.defaults == stats.moves
    assert stats.last_error["reason"] == reason and stats.last_error["detail"]
    assert report.platform_errors == []
    assert all(not s.strikes and s.defaults == 0 for s in report.seats[1:])
    assert bot.calls["/move"] == stats.moves and bot.calls["/start"] == bot.calls["/end"] == 1
    assert bot.bad_signatures == 0
    assert_defaults_replayed(report, 0)


def test_a_redirect_is_not_followed(client, fake_bot, secret) -> None:
    bot = fake_bot("redirect")
    report = play_webhook_match("dice_cup", _seats(bot.url, secret, 2), client=client, seed=1,
                                strike_limit=1)
    assert "not followed" in report.seats[0].last_error["detail"]
    assert "169.254.169.254" in report.seats[0].last_error["detail"]


def test_slow_bot_times_out_then_forfeits_at_the_strike_limit(client, fake_bot, secret) -> None:
    bot = fake_bot("slow")
    bot.sleep = 0.4
    report = play_webhook_match("dice_cup", _seats(bot.url, secret, 3), client=client, seed=2,
                                timeout_ms=150, strike_limit=2)
    stats = report.seats[0]
    assert report.state.is_over
    assert dict(stats.strikes) == {protocol.TIMEOUT: 2}
    assert stats.forfeited and 0 in report.state.forfeited
    assert report.state.result()["ranks"][0] == 3  # forfeited: ranked last
    # Each strike after a second try (bots.reachability: a failure in transport is asked once
    # more before it counts); after the forfeit the seat is not called any more.
    assert bot.calls["/move"] == 4 and stats.defaults == stats.moves
    assert bot.calls["/start"] == bot.calls["/end"] == 1, "told the end, as in a real match"


def test_connection_refused_is_a_strike_and_the_match_completes(client, refused_url,
                                                                secret) -> None:
    report = play_webhook_match("dice_cup", _seats(refused_url, secret, 3), client=client,
                                seed=3, strike_limit=None)
    stats = report.seats[0]
    assert report.state.is_over
    assert dict(stats.strikes) == {protocol.CONNECTION_ERROR: stats.moves}
    assert stats.call_errors[protocol.CONNECTION_ERROR] == 2  # /start and /end: noted, no strike
    assert_defaults_replayed(report, 0)


@pytest.mark.parametrize("behaviour, log", [("illegal", "I meant to bluff"),
                                            ("null_action", "nothing to choose from")])
def test_the_log_line_of_a_failed_answer_is_kept(client, fake_bot, secret, behaviour,
                                                 log) -> None:
    bot = fake_bot(behaviour)
    report = play_webhook_match("dice_cup", _seats(bot.url, secret, 3), client=client, seed=4,
                                strike_limit=None)
    stats = report.seats[0]
    assert stats.strike_count == stats.moves > 0
    assert [line for _, line in stats.logs] == [log] * stats.moves


def test_good_bot_plays_every_move_itself_with_logs(client, fake_bot, secret, game_id) -> None:
    bot = fake_bot("good")
    game = get_game(game_id)
    report = play_webhook_match(game_id, _seats(bot.url, secret, game.min_players),
                                client=client, seed=5, options=SHORT_OPTIONS.get(game_id))
    stats = report.seats[0]
    assert report.state.is_over and report.aborted is None
    assert not stats.strikes and stats.defaults == 0 and stats.moves > 0
    assert len(stats.latencies_ms) == stats.moves == bot.calls["/move"]
    assert stats.logs[-1][1] == "thinking"
    assert len(bot.match_ids) == 1 and isinstance(bot.match_ids.pop(), int)
    summary = stats.summary()
    assert summary["latency_ms"]["p50"] <= summary["latency_ms"]["p95"] <= summary["latency_ms"]["max"]


def test_the_game_is_the_same_whoever_plays_it(client, ref_server, secret) -> None:
    """Reference bots over HTTP make the same match as in-process: the protocol loses nothing."""
    url = ref_server.base_url + "/random"
    over_http = play_webhook_match("dice_cup", [WebhookSeat(url, secret)] * 3, client=client,
                                   seed=11, match_id=7)
    assert all(d.source == "bot" for d in over_http.history)
    again = replay("dice_cup", 3, 11, None, [(d.seat, d.action) for d in over_http.history])
    assert again.result() == over_http.state.result()


def test_simultaneous_steps_call_the_bots_concurrently(client, fake_bot, secret) -> None:
    first, second = fake_bot("slow"), fake_bot("slow")
    first.sleep = second.sleep = 0.2
    report = play_webhook_match("dot", [WebhookSeat(first.url, secret),
                                        WebhookSeat(second.url, secret)],
                                client=client, seed=1, timeout_ms=2000)
    assert report.state.is_over and not report.seats[0].strikes and not report.seats[1].strikes
    calls = first.calls["/move"] + second.calls["/move"]
    # Sequential calls would take calls * 0.2 s; commits are simultaneous, so much less.
    wall = sum(max(a, b) for a, b in zip(report.seats[0].latencies_ms,
                                         report.seats[1].latencies_ms)) / 1000
    assert wall < calls * 0.2 * 0.75


def test_a_platform_error_is_recorded_apart_and_never_strikes(client, monkeypatch) -> None:
    game = get_game("dice_cup")
    bot_class = game.bots["random"]

    def broken(self, view, legal):
        raise RuntimeError("bug in a reference bot")

    monkeypatch.setattr(bot_class, "choose", broken)
    report = play_webhook_match("dice_cup", [ReferenceSeat("random")] * 2, client=client, seed=1)
    assert report.state.is_over and report.aborted is None
    assert report.platform_errors and "bug in a reference bot" in report.platform_errors[0]["detail"]
    assert all(not s.strikes for s in report.seats)
    assert report.seats[0].platform_errors > 0


def test_mixed_seats_webhook_and_reference(client, ref_server, starter_url, secret,
                                           game_id) -> None:
    """The starter bot, a served reference bot and an in-process reference bot at one table."""
    game = get_game(game_id)
    seats = [WebhookSeat(starter_url, secret, "starter"),
             WebhookSeat(f"{ref_server.base_url}/{game_id}/heuristic", secret, "served")]
    seats += [ReferenceSeat("heuristic")] * (max(game.min_players, 3 if game.max_players > 2
                                                 else 2) - 2)
    report = play_webhook_match(game_id, seats, client=client, seed=8,
                                options=SHORT_OPTIONS.get(game_id))
    assert report.state.is_over and report.aborted is None and not report.platform_errors
    assert all(not s.strikes for s in report.seats), [s.summary() for s in report.seats]
    sources = {d.seat: d.source for d in report.history}
    assert sources[0] == sources[1] == "bot"
