"""Random-play speed of every game on one core.

    python bench/engine.py [--seconds 3] [--game dtc]

A move is: ``legal_actions`` of an acting seat, pick one uniformly, ``apply``. Prints moves/s
and matches/s per game, by CPU time of this process (what one core does, whatever else the
machine runs) and by wall-clock time (equal on a quiet machine). Target: at least 50,000 moves/s for every game. For scale: OpenSpiel's
pure-Python liar's poker plays about 49k decisions/s on this kind of machine.
"""

from __future__ import annotations

import argparse
import pathlib
import platform
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from games.engine import Rng, game_ids, get_game
from games.engine.play import random_playout

TARGET_MOVES_PER_SECOND = 50_000


def bench_game(game_id: str, seconds: float) -> tuple[float, float, float, int]:
    """Random matches for ``seconds`` of CPU time: (moves/s CPU, moves/s wall, matches/s CPU, n)."""
    game = get_game(game_id)
    moves = matches = 0
    seed = 0
    cpu_started, wall_started = time.process_time(), time.perf_counter()
    while time.process_time() - cpu_started < seconds:
        state = game.new_match(seed=seed)
        moves += len(random_playout(state, Rng(seed)))
        matches += 1
        seed += 1
    cpu = time.process_time() - cpu_started
    wall = time.perf_counter() - wall_started
    return moves / cpu, moves / wall, matches / cpu, matches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU time per game")
    parser.add_argument("--game", action="append", choices=game_ids(), help="only these games")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, one core, "
          f"default options, {args.seconds:g}s of CPU per game; rates per CPU second")
    print(f"{'game':<15}{'moves/s':>12}{'(wall)':>10}{'matches/s':>12}{'matches':>9}  target")
    for game_id in args.game or game_ids():
        cpu_rate, wall_rate, matches_rate, matches = bench_game(game_id, args.seconds)
        verdict = "ok" if cpu_rate >= TARGET_MOVES_PER_SECOND else "BELOW"
        print(f"{game_id:<15}{cpu_rate:>12,.0f}{wall_rate:>10,.0f}{matches_rate:>12,.1f}"
              f"{matches:>9}  {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
