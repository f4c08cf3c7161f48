"""``manage.py play GAME``: play one match between reference bots and print it.

    python manage.py play dtc --players 4 --seed 7 --bots heuristic,random,random,random

A person reads it, so seats are numbered from 1 as on every page (``seat=1`` is the first
seat, ``games.numbering``); ``--json`` prints the engine's events as they are, seats from 0 as
in the API and the log.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine import EngineError, game_ids, get_game
from games.engine.play import play_bots
from games.numbering import numbered_for_people, seat_number


class Command(BaseCommand):
    help = ("Play a match between the engine's reference bots and print its events and result, "
            "seats numbered from 1 (--json: the engine's events, seats from 0).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", choices=game_ids())
        parser.add_argument("--players", type=int, help="number of seats (default: the game's)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--bots", default="",
                            help="comma-separated bot per seat, e.g. heuristic,random "
                                 "(default: all random; a single name is used for every seat)")
        parser.add_argument("--options", default="{}", help='match options as JSON, e.g. \'{"hands": 3}\'')
        parser.add_argument("--quiet", action="store_true", help="print only the result")
        parser.add_argument("--json", action="store_true",
                            help="print events as JSON lines, as the engine gives them (seats "
                                 "from 0, as the API)")

    def handle(self, *args, game: str, players: int | None, seed: int, bots: str, options: str,
               quiet: bool, **kwargs) -> None:
        engine_game = get_game(game)
        names = [b.strip() for b in bots.split(",") if b.strip()] or ["random"]
        if players is None:
            players = len(names) if len(names) > 1 else engine_game.default_players
        if len(names) == 1:
            names = names * players
        if len(names) != players:
            raise CommandError(f"--bots names {len(names)} bots for {players} players")
        try:
            parsed_options = _loads(options)
            state = play_bots(game, names, seed=seed, options=parsed_options)
        except EngineError as exc:
            raise CommandError(str(exc)) from exc
        if not quiet:
            for event in state.events_since(0):
                self.stdout.write(_dumps(event) if kwargs["json"]
                                  else _describe(numbered_for_people(event)))
        result = state.result()
        self.stdout.write(f"result: {_dumps(numbered_for_people(result))}")
        for seat, name in enumerate(names):
            self.stdout.write(f"  seat {seat_number(seat)} ({name}): score "
                              f"{result['scores'][seat]}, rank {result['ranks'][seat]}")


def _loads(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise CommandError(f"--options is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise CommandError("--options must be a JSON object")
    return value


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _describe(event: dict) -> str:
    details = " ".join(f"{k}={_dumps(v)}" for k, v in event.items() if k not in ("n", "type"))
    return f"{event['n']:>5} {event['type']:<16} {details}"
