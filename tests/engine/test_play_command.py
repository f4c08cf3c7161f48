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
    assert "seat 1 (heuristic)" in output and f"seat {game.default_players} (random)" in output


@pytest.mark.parametrize("game_id", game_ids())
def test_play_numbers_seats_from_one_as_people_read_them(game_id: str) -> None:
    """Issue 48: what a person reads says seat 1 for the engine's seat 0 (games.numbering):
    every event's seats, the result's order and the summary; --json stays the engine's events,
    seats from 0 as in the API and the log."""
    import json
    import re

    from games.engine.play import play_bots

    game = get_game(game_id)
    players = game.max_players
    bots = ["heuristic"] + ["random"] * (players - 1)
    events = play_bots(game_id, bots, seed=3).events_since(0)
    lines = _play(game_id, "--seed", "3", "--bots", ",".join(bots)).splitlines()
    described = lines[:len(events)]
    for event, line in zip(events, described, strict=True):
        assert line.split()[:2] == [str(event["n"]), event["type"]]
        for key in ("seat", "target", "first", "first_player", "to", "giver", "leader"):
            if isinstance(event.get(key), int):
                assert f" {key}={event[key] + 1}" in line, (key, event, line)
        for key in ("order", "out_order"):
            if key in event:
                assert f" {key}={json.dumps([s + 1 for s in event[key]], separators=(',', ':'))}" \
                    in line, (key, event, line)
    said = "\n".join(lines)
    assert not re.search(r"\b(seat|target|first|first_player|to|from|challenger|giver|taker|"
                         r"winner|leader|with_seat|pool)=0\b", said), "no seat 0"
    assert not re.search(r"\bseat 0\b", said)
    result = play_bots(game_id, bots, seed=3).result()
    shown = json.loads(lines[len(events)].removeprefix("result: "))
    if "order" in result:
        assert shown["order"] == [seat + 1 for seat in result["order"]]
    assert lines[len(events) + 1:] == [
        f"  seat {seat + 1} ({bot}): score {result['scores'][seat]}, rank {result['ranks'][seat]}"
        for seat, bot in enumerate(bots)]
    raw = _play(game_id, "--seed", "3", "--bots", ",".join(bots), "--json").splitlines()
    assert [json.loads(line) for line in raw[:len(events)]] == events, \
        "--json: the engine's events as they are"


def test_play_numbers_the_seats_inside_events_from_one() -> None:
    """Seats inside an event too: a Dalmuti exchange's from and to, its order draw's pairs."""
    from games.numbering import numbered_for_people

    assert numbered_for_people({"n": 0, "type": "taxation", "exchanges": [
        {"from": 5, "to": 0, "count": 2}]})["exchanges"] == [{"from": 6, "to": 1, "count": 2}]
    assert numbered_for_people({"draws": [[0, "6"], [3, "jester"]], "hand_sizes": [0, 3],
                                "order": [2, 0, 1], "slot": {"seat": 0, "slot": 0}}) == {
        "draws": [[1, "6"], [4, "jester"]], "hand_sizes": [0, 3], "order": [3, 1, 2],
        "slot": {"seat": 1, "slot": 0}}


def test_the_readmes_play_output_is_what_it_prints() -> None:
    """README shows `manage.py play`'s output (seats from 1): the lines it shows are printed,
    in that order."""
    readme = (ROOT / "README.md").read_text()
    command = readme.split(".venv/bin/python manage.py play ")[1].split("\n")[0].split()
    shown = readme.split("as in the API):\n\n```text\n")[1].split("```")[0].splitlines()
    cut = shown.index("...")
    printed = _play(*command).splitlines()
    assert printed[:cut] == shown[:cut] and printed[cut - len(shown) + 1:] == shown[cut + 1:]


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
