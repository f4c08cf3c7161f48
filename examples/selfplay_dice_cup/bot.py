#!/usr/bin/env python3
"""The tuned dice cup policy as a Bluff League webhook bot, on the starter kit's server.

    python examples/selfplay_dice_cup/bot.py --port 8001     # then register it, as the starter
    BOT_SECRET=whsec_... python examples/selfplay_dice_cup/bot.py --port 8001

Everything HTTP (signatures, handshake, keep-alive) is ``examples/starter_bot/bot.py``; this file
only swaps its ``choose()`` for the policy with the parameters ``train.py`` saved (``params.json``
beside this file, or ``--params``). It reads the view and legal actions of each ``/move`` body,
maps them onto the training kit's action index, and answers the action of the index it picks.
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys
from types import ModuleType
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

from policy import Params, choose_index

from games.envs import codec as make_codec


def load_starter() -> ModuleType:
    spec = importlib.util.spec_from_file_location("starter_bot",
                                                  HERE.parent / "starter_bot" / "bot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


starter = load_starter()
params = Params.load(HERE / "params.json") if (HERE / "params.json").exists() else Params()
_codecs: dict[int, Any] = {}


def legal_list(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The legal actions, from the list or, when the platform left a long one out, from the
    compact description (calls per target, then trades)."""
    if "legal_actions" in body:
        return body["legal_actions"]
    d = body["legal_description"]
    return ([{"type": "call", "target": c["target"], "number": n}
             for c in d["calls"] for n in c["numbers"]] + d["trades"])


def choose(body: dict[str, Any]) -> dict[str, Any]:
    """The starter's hook: the policy's action for ``body["seat"]``."""
    view = body["view"]
    players = view["players"]
    codec = _codecs.get(players) or _codecs.setdefault(players, make_codec("dice_cup", players))
    legal = codec.legal_indices(view, legal_list(body))
    return codec.decode(view, choose_index(params, codec, view, legal))[0]


starter.choose = choose
starter.NAME = "self-play dice cup"
starter.GAMES = ["dice_cup"]


make_server = starter.make_server


def main() -> None:
    """The starter's own ``main()`` (``--host``, ``--port``, ``BOT_SECRET``, its warnings),
    after ``--params``."""
    global params
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--params", type=pathlib.Path, help="parameters saved by train.py")
    args, rest = parser.parse_known_args()
    if args.params:
        params = Params.load(args.params)
    print(f"policy: {params}", flush=True)
    sys.argv = [sys.argv[0], *rest]
    starter.main()


if __name__ == "__main__":
    main()
