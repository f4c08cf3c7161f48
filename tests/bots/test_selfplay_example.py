"""examples/selfplay_dice_cup: tuned by self-play offline, it beats the random reference bot,
and served on the starter kit's webhook server it passes check_bot, registers, and plays a
tournament through ``manage.py run_tournament`` (docs/training.md)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO
from types import ModuleType

import pytest
from django.core.management import call_command

from .conftest import ROOT

pytest.importorskip("pettingzoo")

EXAMPLE = ROOT / "examples" / "selfplay_dice_cup"


def load(name: str) -> ModuleType:
    """An example file, imported from its path as a developer runs it."""
    spec = importlib.util.spec_from_file_location(f"selfplay_{name}", EXAMPLE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_tuned_by_self_play_it_beats_the_random_reference_bot() -> None:
    train = load("train")
    params = train.tune(rounds=4, matches=6, seed=1)
    wins, losses, ties = train.against_random(params, matches=40)
    assert wins >= 30, (params, wins, losses, ties)


def test_the_shipped_parameters_are_what_the_bot_plays() -> None:
    bot = load("bot")
    assert bot.params == bot.Params.load(EXAMPLE / "params.json")


def test_served_on_the_starter_server_it_passes_check_bot(secret: str) -> None:
    bot = load("bot")
    server = bot.make_server("127.0.0.1", 0, secret)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        out = StringIO()
        call_command("check_bot", f"http://127.0.0.1:{server.server_address[1]}",
                     "--game", "dice_cup", "--players", "2", "--opponents", "random",
                     "--matches", "3", "--secret", secret, "--no-progress", stdout=out)
    finally:
        server.shutdown()
        server.server_close()
    text = out.getvalue()
    assert "handshake ok: 'self-play dice cup'" in text
    assert "illegal actions: 0, protocol errors: 0" in text
    assert "no failures" in text



@contextmanager
def served(port: int = 0, secret: str | None = None) -> Iterator[str]:
    """``python3 examples/selfplay_dice_cup/bot.py --port PORT`` (with ``BOT_SECRET`` when
    given), as docs/training.md runs it; yields its URL, and stops the process on exit (its
    connections die with it, as when a developer restarts it)."""
    env = {k: v for k, v in os.environ.items() if k != "BOT_SECRET"}
    if secret:
        env["BOT_SECRET"] = secret
    proc = subprocess.Popen([sys.executable, str(EXAMPLE / "bot.py"), "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**env, "PYTHONUNBUFFERED": "1"})
    try:
        for line in proc.stdout:  # "policy: ...", then "<name> on <url> (...)"
            found = re.search(r"http://127\.0\.0\.1:\d+", line)
            if found:
                yield found.group(0)
                break
        else:
            pytest.fail(f"the example bot exited ({proc.wait()}) before serving")
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.django_db(transaction=True)
def test_served_registered_it_finishes_a_tournament_on_the_workers_code_path(alice) -> None:
    """The walk-through of docs/training.md to the end: serve the bot with no secret, register
    its URL (the handshake), restart it with the secret the registration answered, then
    ``run_tournament`` (the workers' code path: claim, start, ask the webhook seats, record)
    plays a round robin with it and two reference bots. Every one of its moves is the bot's
    own answer: no failure, no strike, no forfeit."""
    from bots.models import BotCall
    from bots.services import bot_register
    from tournaments.models import Participant, Tournament, TournamentMatch

    with served() as url:  # step 1: no secret yet
        registered, secret = bot_register(owner=alice, name="self-play", url=url)
    assert registered.handshake_ok and registered.games == ["dice_cup"]
    out = StringIO()
    with served(port=int(url.rsplit(":", 1)[1]), secret=secret):  # step 2: with its secret
        call_command("run_tournament", "--create", "dice_cup", "--participants",
                     f"webhook:{registered.pk},reference:random,reference:heuristic",
                     "--table-size", "2", "--meetings", "2", "--seed", "3",
                     "--organiser", "alice", "--name", "self-play cup", "--allow-private",
                     "--no-progress", stdout=out)
    tournament = Tournament.objects.get(name="self-play cup")
    assert tournament.status == "finished", out.getvalue()
    mine = Participant.objects.get(tournament=tournament, kind="webhook")
    assert mine.bot == str(registered.pk)
    rows = TournamentMatch.objects.filter(tournament=tournament)
    assert rows.count() == 6 and {r.status for r in rows} == {"finished"}
    assert "finished, 6/6 matches finished (0 forfeits" in out.getvalue()
    moves = BotCall.objects.filter(bot=registered, path="move")
    assert moves.count() > 20, "it was asked for its moves"
    failed = moves.exclude(reason="")
    assert not failed.exists(), list(failed.values_list("reason", "detail")[:3])
