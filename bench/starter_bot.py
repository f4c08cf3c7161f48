"""The starter bot's own speed: its work per move, and a /move round trip over HTTP.

    python bench/starter_bot.py [--moves 2000] [--rounds 300]

Work per move: verify the call's signature and choose an action from a 4-seat dice-cup /move
body, as examples/starter_bot/bot.py does for every call (CPU time of this process). Round
trip: the bot served on loopback by its own ``make_server``, one kept-alive stdlib connection,
a signed /move per round. Targets: under 0.5 ms of work per move, and a round trip far below
TCP's ~40 ms delayed-acknowledgement stall (the bot sets TCP_NODELAY and writes each answer
in one buffered send; without them a stdlib bot takes ~40 ms per answer).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import raw_round_ms
from bots import protocol
from bots.signing import new_secret, sign_headers
from games.engine import get_game

TARGET_WORK_MS = 0.5


def load_starter():
    """The starter bot imported from its file, as a developer runs it."""
    spec = importlib.util.spec_from_file_location("starter_bot",
                                                  ROOT / "examples" / "starter_bot" / "bot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def move_body() -> bytes:
    state = get_game("dice_cup").new_match(players=4, seed=1)
    match = protocol.MatchInfo(id=1, game="dice_cup", options=state.options,
                               seats=["a", "b", "c", "d"], timeout_ms=1000)
    return protocol.encode(protocol.move_body(match, state, state.to_act()[0]))


def work_ms(starter, secret: str, raw: bytes, moves: int) -> float:
    """CPU ms per move of the bot's own work: signature check and choice."""
    headers = sign_headers(secret, raw)
    key = starter.secret_key(secret)
    started = time.process_time()
    for _ in range(moves):
        assert starter.signature_ok(key, headers, raw)
        starter.choose(json.loads(raw))
    return (time.process_time() - started) * 1000 / moves


def round_trip_ms(starter, secret: str, raw: bytes, rounds: int) -> float:
    server = starter.make_server("127.0.0.1", 0, secret)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        return raw_round_ms(url, "/move", [[raw]], rounds, secret=secret)
    finally:
        server.shutdown()
        server.server_close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args(argv)
    starter, secret, raw = load_starter(), new_secret(), move_body()
    work = work_ms(starter, secret, raw, args.moves)
    trip = round_trip_ms(starter, secret, raw, args.rounds)
    print(f"starter bot work per move: {work:.3f} ms CPU (target < {TARGET_WORK_MS} ms)")
    print(f"starter bot /move round trip: {trip:.2f} ms mean over {args.rounds} "
          f"(a delayed-ack stall would be ~40 ms)")


if __name__ == "__main__":
    main()
