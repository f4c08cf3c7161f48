"""examples/selfplay_dice_cup: tuned by self-play offline, it beats the random reference bot,
and served on the starter kit's webhook server it passes check_bot (docs/training.md)."""

from __future__ import annotations

import importlib.util
import threading
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
