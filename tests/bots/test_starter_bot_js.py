"""The JavaScript starter bot (examples/starter_bot_js), run with ``node`` as its README says:
its handshake, forged calls refused, whole matches through ``check_bot``; and the one line per
request that it and the Python starter bot write on stderr. Node 20 is needed: without it these
tests fail, they do not skip (CI has it)."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.core.management import call_command

from bots import protocol
from bots.net import Call
from bots.signing import new_secret, sign_headers
from games.engine import game_ids, get_game

from .conftest import ROOT, SHORT_OPTIONS

JS_BOT = ROOT / "examples" / "starter_bot_js" / "bot.js"
PY_BOT = ROOT / "examples" / "starter_bot" / "bot.py"
NODE_MAJOR = 20


def node() -> str:
    """The ``node`` program, version 20 or later; the test fails (not skips) without it."""
    found = shutil.which("node")
    if found is None:
        pytest.fail(f"Node {NODE_MAJOR} is needed to run {JS_BOT.relative_to(ROOT)}: no `node` "
                    f"on PATH (install Node {NODE_MAJOR} or later: https://nodejs.org)",
                    pytrace=False)
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=False,
                             timeout=30).stdout.strip()
    major = re.match(r"v(\d+)\.", version)
    if not major or int(major.group(1)) < NODE_MAJOR:
        pytest.fail(f"Node {NODE_MAJOR} is needed to run {JS_BOT.relative_to(ROOT)}: "
                    f"`node --version` says {version!r}", pytrace=False)
    return found


def command(kind: str) -> list[str]:
    """How the READMEs run each starter bot, on a free port."""
    if kind == "js":
        return [node(), str(JS_BOT), "--port", "0"]
    return [sys.executable, str(PY_BOT), "--port", "0"]


@dataclass
class Served:
    url: str
    log: Path  # the process's stderr

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines()

    def wait_for(self, line: str | re.Pattern[str], timeout: float = 5) -> str:
        """The first log line equal to ``line`` (or matching the whole pattern), waited for
        up to ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            for found in self.lines():
                if (found == line if isinstance(line, str) else line.fullmatch(found)):
                    return found
            if time.monotonic() > deadline:
                pytest.fail(f"no log line {line!r} in:\n" + self.log.read_text())
            time.sleep(0.02)


@contextmanager
def served(kind: str, tmp_path: Path, secret: str | None) -> Iterator[Served]:
    """The starter bot ``kind`` ("js" or "python") in its own process, with ``BOT_SECRET`` when
    given; stderr goes to a file (a pipe nobody reads would fill up and stall the bot)."""
    env = {k: v for k, v in os.environ.items() if k != "BOT_SECRET"}
    if secret:
        env["BOT_SECRET"] = secret
    log = tmp_path / f"{kind}-bot.log"
    with log.open("w") as err:
        proc = subprocess.Popen(command(kind), stdout=subprocess.PIPE, stderr=err, text=True,
                                env={**env, "PYTHONUNBUFFERED": "1"})
    try:
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert found, f"{kind} bot: {line!r} {log.read_text()}"
        yield Served(found.group(0), log)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()


@pytest.fixture(params=["js", "python"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def move_body(match_id: int = 7) -> tuple[bytes, list[dict[str, Any]]]:
    """A dice cup /move body at turn 0, and its legal actions."""
    state = get_game("dice_cup").new_match(players=3, seed=1)
    seat = state.to_act()[0]
    match = protocol.MatchInfo(id=match_id, game="dice_cup", options=state.options,
                               seats=["a", "b", "c"], timeout_ms=1000)
    return protocol.encode(protocol.move_body(match, state, seat)), state.legal_actions(seat)


def post(url: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
    """One POST with exactly these headers: (status, the answer's JSON)."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    try:
        conn.request("POST", path, body=body,
                     headers={"Content-Type": "application/json", **headers})
        reply = conn.getresponse()
        return reply.status, json.loads(reply.read())
    finally:
        conn.close()


# ---- the JavaScript bot -----------------------------------------------------------------------


def test_the_js_starter_bot_answers_the_handshake_as_the_python_one(
        tmp_path, secret, client, starter_url) -> None:
    with served("js", tmp_path, secret) as bot:
        reply = client.call(Call(url=bot.url, path="", body=b"", secret=secret, timeout=2,
                                 method="GET"))
        bot.wait_for("GET /: ok")
    assert reply.failure is None and reply.status == 200
    python = client.call(Call(url=starter_url, path="", body=b"", secret=secret, timeout=2,
                              method="GET"))
    assert json.loads(reply.body) == json.loads(python.body)
    assert json.loads(reply.body)["games"] == list(game_ids())


def test_the_js_starter_bot_without_a_secret_answers_the_handshake_and_says_so(
        tmp_path, client) -> None:
    """Run as its README says before registering: no BOT_SECRET. The registration handshake
    (signed with a secret it cannot know yet) passes, and it warns loudly that it checks
    nothing."""
    with served("js", tmp_path, None) as bot:
        reply = client.call(Call(url=bot.url, path="", body=b"", secret=new_secret(), timeout=2,
                                 method="GET"))
        bot.wait_for("GET /: ok")
    assert reply.failure is None and json.loads(reply.body)["apiversion"] == "1"
    warning = bot.log.read_text()
    assert warning.startswith("WARNING: BOT_SECRET is not set")
    assert "accepts EVERY call" in warning and "restart it with" in warning


@pytest.mark.parametrize("game", ["dice_cup", "dtc", "great_dalmuti", "dutch", "dot"])
def test_check_bot_reports_the_js_starter_bot_good(tmp_path, secret, game) -> None:
    """Whole matches through ``check_bot`` (the handshake, /start, every /move, /end): DTC's
    long offer lists come as ``legal_description`` alone, which its ``choose()`` reads."""
    out = StringIO()
    with served("js", tmp_path, secret) as bot:
        call_command("check_bot", bot.url, "--game", game, "--matches", "3", "--secret", secret,
                     "--options", json.dumps(SHORT_OPTIONS.get(game, {})), "--no-progress",
                     stdout=out)
        bot.wait_for(re.compile(r"POST /end match \d+ turn \d+: ok"))
    text = out.getvalue()
    assert "handshake ok: 'starter bot'" in text
    assert "illegal actions: 0, protocol errors: 0" in text
    assert "no failures" in text, text
    lines = bot.lines()
    assert sum(line.startswith("POST /move match ") for line in lines) > 3
    assert all(line.endswith(": ok") or ": ok {" in line for line in lines), lines


# ---- both starter bots: refused calls and the log line --------------------------------------


def test_a_starter_bot_refuses_forged_calls_and_logs_each(kind, tmp_path, secret) -> None:
    """Another secret, a changed body, a timestamp 10 minutes old, no signature at all: each
    is a 401 and one ``bad signature`` line, with no match or turn read from the body."""
    raw, _ = move_body()
    assert b'"turn":0' in raw
    now = int(time.time())
    forged = [
        (raw, sign_headers(new_secret(), raw)),
        (raw.replace(b'"turn":0', b'"turn":1'), sign_headers(secret, raw)),
        (raw, sign_headers(secret, raw, timestamp=now - 600)),
        (raw, {}),
    ]
    with served(kind, tmp_path, secret) as bot:
        for body, headers in forged:
            assert post(bot.url, "/move", body, headers) == (401, {"error": "bad signature"})
        status, _ = post(bot.url, "/move", raw, sign_headers(secret, raw))  # then a good one
        bot.wait_for(re.compile(r"POST /move match 7 turn 0: ok .*"))
    assert status == 200
    assert bot.lines()[:4] == ["POST /move: bad signature"] * 4


def test_a_starter_bot_answers_a_signed_move_and_logs_the_action(kind, tmp_path, secret) -> None:
    """A call signed by the bot's secret, also after a rotation (two signatures, the bot's one
    second): a legal action, logged with the path, match, turn and the action."""
    raw, legal = move_body()
    rotated = sign_headers(new_secret(), raw, previous_secret=secret)
    with served(kind, tmp_path, secret) as bot:
        answers = [post(bot.url, "/move?team=blue", raw, sign_headers(secret, raw)),
                   post(bot.url, "/move", raw, rotated)]
        logged = [bot.wait_for(re.compile(r"POST /move\?team=blue match 7 turn 0: ok .*")),
                  bot.wait_for(re.compile(r"POST /move match 7 turn 0: ok .*"))]
    for (status, answer), line in zip(answers, logged, strict=True):
        assert status == 200 and answer["action"] in legal
        assert json.loads(line.split(": ok ", 1)[1]) == answer["action"]


def test_a_starter_bot_answers_a_bad_move_400_and_logs_it(kind, tmp_path, secret) -> None:
    with served(kind, tmp_path, secret) as bot:
        for raw in (b"not json", b'{"match": {"id": 7}, "turn": 3, "view": {}}'):
            status, _ = post(bot.url, "/move", raw, sign_headers(secret, raw))
            assert status == 400
        bot.wait_for(re.compile(r"POST /move: bad request: .*"))
        bot.wait_for(re.compile(r"POST /move match 7 turn 3: bad request: .*"))


def test_a_starter_bot_keeps_each_log_line_one_line(kind, tmp_path, secret) -> None:
    """A body's values are written as JSON: a line break in them stays ``\\n``."""
    raw = b'{"match": {"id": "7\\nforged line"}, "turn": 1}'
    with served(kind, tmp_path, secret) as bot:
        assert post(bot.url, "/end", raw, sign_headers(secret, raw)) == (200, {})
        bot.wait_for('POST /end match "7\\nforged line" turn 1: ok')
    assert len(bot.lines()) == 1


def test_the_python_starter_bot_escapes_the_path_it_logs(starter: ModuleType) -> None:
    """Python's server takes any byte but a space or line end in the request's path (Node's
    refuses control characters): a terminal escape is %-escaped in the log."""
    assert starter.log_line("POST", "/move\x1b[2J", {"match": {"id": 7}, "turn": 3}, "ok {}") == (
        "POST /move%1B[2J match 7 turn 3: ok {}")
