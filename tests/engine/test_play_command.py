"""``manage.py play`` and ``bench/engine.py``: the command-line ways to watch the engine play."""

from __future__ import annotations

import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.engine import game_ids, get_game

ROOT = Path(__file__).resolve().parents[2]


def _play(*args: str) -> str:
    out = StringIO()
    call_command("play", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("game_id", game_ids())
def test_play_prints_the_events_and_the_result(game_id: str) -> None:
    game = get_game(game_id)
    bots = ",".join(["heuristic"] + ["random"] * (game.default_players - 1))
    output = _play(game_id, "--seed", "7", "--bots", bots)
    lines = output.splitlines()
    assert lines[0].split()[0] == "0"  # the first event, numbered
    assert any(line.startswith("result: ") for line in lines)
    assert f"seat {game.default_players - 1} (random)" in output


def test_play_is_reproducible_from_its_seed() -> None:
    first = _play("dtc", "--players", "4", "--seed", "7", "--bots", "heuristic,random,random,random")
    again = _play("dtc", "--players", "4", "--seed", "7", "--bots", "heuristic,random,random,random")
    other = _play("dtc", "--players", "4", "--seed", "8", "--bots", "heuristic,random,random,random")
    assert first == again != other


@pytest.mark.parametrize("args, message", [
    (["dtc", "--bots", "random,random", "--players", "4"], "names 2 bots for 4 players"),
    (["dtc", "--bots", "genius,random"], "no reference bot 'genius'"),
    (["dtc", "--players", "9"], "2 to 6 players"),
    (["dtc", "--options", "{\"nope\": 1}"], "unknown option"),
    (["dtc", "--options", "[1"], "not valid JSON"),
])
def test_play_explains_bad_arguments(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        _play(*args)


def test_bench_engine_prints_figures_for_every_game() -> None:
    done = subprocess.run([sys.executable, "bench/engine.py", "--seconds", "0.05"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    for game_id in game_ids():
        assert any(line.startswith(game_id) for line in done.stdout.splitlines()), done.stdout
