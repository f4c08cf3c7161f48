"""The developer tools: ``serve_bots`` as a real process, ``check_bot`` against real bots."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from bots import protocol
from bots.net import Call
from bots.offline import FailureStreak, ReferenceSeat, WebhookSeat, play_webhook_match
from bots.refserver import RefBotServer
from bots.signing import new_secret, sign_headers
from games.driver import Move
from games.engine import get_game

from .conftest import ROOT, SHORT_OPTIONS


@pytest.fixture(scope="module")
def served_bots():
    """``manage.py serve_bots`` in its own process, on a free port, signatures checked."""
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    proc = subprocess.Popen([sys.executable, "manage.py", "serve_bots", "--port", "0",
                             "--secret", secret], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert match, line
        yield f"http://127.0.0.1:{match.group(1)}", secret
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_bots_plays_whole_matches(served_bots, client, game_id) -> None:
    base, secret = served_bots
    game = get_game(game_id)
    seats = [WebhookSeat(f"{base}/heuristic", secret), WebhookSeat(f"{base}/{game_id}/random",
                                                                   secret)]
    seats += [ReferenceSeat("random")] * (game.min_players - 2)
    report = play_webhook_match(game_id, seats, client=client, seed=2,
                                options=SHORT_OPTIONS.get(game_id))
    assert report.state.is_over and not report.platform_errors
    assert all(not s.strikes and s.defaults == 0 for s in report.seats)


def test_serve_bots_refuses_unsigned_calls(served_bots, client) -> None:
    base, _ = served_bots
    reply = client.call(Call(url=f"{base}/random", path="", body=b"",
                             secret="whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", timeout=2,
                             method="GET"))
    assert reply.failure.reason == "http_status" and reply.status == 401


def test_check_bot_reports_a_good_bot(starter_url, secret) -> None:
    out = StringIO()
    call_command("check_bot", starter_url, "--game", "dice_cup", "--matches", "3",
                 "--secret", secret, "--no-progress", stdout=out)
    text = out.getvalue()
    assert "handshake ok: 'starter bot'" in text
    assert "illegal actions: 0, protocol errors: 0" in text
    assert re.search(r"latency ms: p50 [\d.]+  p95 [\d.]+  max [\d.]+", text)
    assert "no failures" in text


def test_check_bot_reports_illegal_actions_and_fails(fake_bot, secret) -> None:
    bot = fake_bot("illegal")
    out = StringIO()
    with pytest.raises(CommandError, match="failed move"):
        call_command("check_bot", bot.url, "--game", "dice_cup", "--matches", "2",
                     "--secret", secret, "--no-progress", stdout=out)
    assert re.search(r"illegal actions: [1-9]", out.getvalue())


@pytest.mark.parametrize("compact", [False, True])
def test_check_bot_sends_what_the_handshake_asked_for(fake_bot, secret, compact) -> None:
    """A bot that reads only legal_actions passes unless it asked for the compact form; then
    the report names the field it should have read."""
    bot = fake_bot("list_only")
    bot.compact = compact
    out = StringIO()
    args = ("check_bot", bot.url, "--game", "dtc", "--matches", "2", "--secret", secret,
            "--no-progress")
    if not compact:
        call_command(*args, stdout=out)
        assert "no failures" in out.getvalue()
        assert "gets always the complete legal_actions" in out.getvalue()
        return
    with pytest.raises(CommandError, match="failed move"):
        call_command(*args, stdout=out)
    assert re.search(r"strike bad_shape: \d+ .*build the action from legal_description",
                     out.getvalue())


def test_check_bot_reports_unknown_game_ids(fake_bot, secret) -> None:
    bot = fake_bot("good")
    bot.handshake = {"games": ["dice_cup", "chess", "dice_cup"]}
    out = StringIO()
    call_command("check_bot", bot.url, "--game", "dice_cup", "--matches", "1", "--secret",
                 secret, "--no-progress", stdout=out)
    assert "games ['dice_cup']" in out.getvalue()
    assert "not games here (ignored): ['chess']" in out.getvalue()


@pytest.mark.parametrize("limit, stops", [(3, True), (0, False)])
def test_check_bot_stops_after_max_failures_in_a_row(fake_bot, secret, limit, stops) -> None:
    bot = fake_bot("illegal")
    out = StringIO()
    with pytest.raises(CommandError, match="failed move"):
        call_command("check_bot", bot.url, "--game", "dice_cup", "--matches", "3", "--secret",
                     secret, "--no-progress", "--max-failures", str(limit), stdout=out)
    text = out.getvalue()
    if stops:
        assert bot.calls["/move"] == 3 and bot.calls["/end"] == 0
        assert ("stopped early in match 1 of 3 after 3 consecutive failed moves (the last: "
                "illegal_action: ") in text and "--max-failures 3" in text
    else:
        assert bot.calls["/end"] == 3 and bot.calls["/move"] > 3 and "stopped" not in text


def test_a_good_move_ends_a_failure_streak() -> None:
    streak = FailureStreak(limit=2)
    failed = Move(n=1, kind="default", seat=0, action={}, events=[], event_count=0,
                  strike="timeout", detail="no answer")
    played = Move(n=2, kind="action", seat=0, action={}, events=[], event_count=0)
    for move in (failed, played, failed):
        streak.note(move)
    assert not streak.reached
    streak.note(failed)
    assert streak.reached and streak.why() == ("2 consecutive failed moves (the last: timeout: "
                                               "no answer)")
    assert not FailureStreak(limit=0, count=99).reached


def test_check_bot_stops_at_a_failed_handshake(starter_url) -> None:
    with pytest.raises(CommandError, match="handshake failed.*wrong --secret"):
        call_command("check_bot", starter_url, "--matches", "1", "--no-progress",
                     stdout=StringIO())


def test_the_starter_bot_without_a_secret_answers_the_handshake_and_says_so(client) -> None:
    """Run as the README says before registering: no BOT_SECRET. It must pass the registration
    handshake (signed with a secret it cannot know yet) and warn loudly that it checks
    nothing."""
    env = {k: v for k, v in os.environ.items() if k != "BOT_SECRET"}
    proc = subprocess.Popen([sys.executable, str(ROOT / "examples/starter_bot/bot.py"),
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**env, "PYTHONUNBUFFERED": "1"})
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+", proc.stdout.readline()).group(0)
        reply = client.call(Call(url=url, path="", body=b"", secret=new_secret(), timeout=2,
                                 method="GET"))
    finally:
        proc.terminate()
        warning = proc.communicate(timeout=10)[1]
    assert reply.failure is None and json.loads(reply.body)["apiversion"] == "1"
    assert warning.startswith("WARNING: BOT_SECRET is not set")
    assert "accepts EVERY call" in warning and "restart it with" in warning


def test_starter_bot_answers_under_a_url_with_a_query_string(starter_url, secret, client) -> None:
    state = get_game("dice_cup").new_match(players=3, seed=1)
    match = protocol.MatchInfo(id=1, game="dice_cup", options=state.options,
                               seats=["a", "b", "c"], timeout_ms=1000)
    body = protocol.encode(protocol.move_body(match, state, state.to_act()[0]))
    reply = client.call(Call(url=starter_url + "/?team=blue", path="move", body=body,
                             secret=secret, timeout=2))
    assert reply.failure is None and "action" in json.loads(reply.body)


def test_starter_bot_checks_the_signature_and_answers_a_legal_action(starter, secret) -> None:
    """Its work per move, as bench/starter_bot.py times it: a good signature passes, a forged
    one does not, and the answer is one of the legal actions."""
    state = get_game("dice_cup").new_match(players=4, seed=1)
    match = protocol.MatchInfo(id=1, game="dice_cup", options=state.options,
                               seats=["a", "b", "c", "d"], timeout_ms=1000)
    raw = protocol.encode(protocol.move_body(match, state, state.to_act()[0]))
    headers = sign_headers(secret, raw)
    key = starter.secret_key(secret)
    assert starter.signature_ok(key, headers, raw)
    assert not starter.signature_ok(key, headers, raw + b" ")
    body = json.loads(raw)
    assert starter.choose(body) in body["legal_actions"]


def test_starter_bot_round_trip_avoids_the_delayed_ack_trap(starter) -> None:
    """Without TCP_NODELAY and a buffered writer a stdlib bot takes ~40 ms per answer (the
    headers and the body go out as two segments and the second waits for a delayed ack);
    bench/starter_bot.py prints the round trip these settings give."""
    assert starter.Handler.disable_nagle_algorithm is True
    assert starter.Handler.wbufsize >= 16 * 1024

def test_serve_bots_can_answer_each_move_late(client) -> None:
    """``--move-delay-ms``: each /move answer is held that long (a bot as far away as one on
    the internet), and still a legal action."""
    server = RefBotServer(("127.0.0.1", 0), move_delay=0.25)
    server.serve_in_thread()
    try:
        state = get_game("dice_cup").new_match(players=2, seed=4)
        seat = state.to_act()[0]
        info = protocol.MatchInfo(id=1, game="dice_cup", options=state.options,
                                  seats=["a", "b"], timeout_ms=5000)
        reply = client.call(Call(url=f"{server.base_url}/random", path="move",
                                 body=protocol.encode(protocol.move_body(info, state, seat)),
                                 secret=new_secret(), timeout=5))
    finally:
        server.shutdown()
        server.server_close()
    assert reply.failure is None and reply.elapsed >= 0.25
    assert json.loads(reply.body)["action"] in state.legal_actions(seat)


def test_serve_bots_refuses_a_negative_delay() -> None:
    with pytest.raises(CommandError, match="--move-delay-ms"):
        call_command("serve_bots", "--port", "0", "--move-delay-ms", "-1")
