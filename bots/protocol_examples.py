"""Generate the JSON examples of ``docs/bot-protocol.md`` from the engine, so they are true.

    python -m bots.protocol_examples --write    # rewrite the generated part of the doc
    python -m bots.protocol_examples            # print it

Each example is a real /move body of a seeded match (built by :mod:`bots.protocol`, exactly as
sent) and a legal answer to it. ``tests/bots/test_docs.py`` fails when the doc is out of date.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from games.engine import State, get_game
from games.engine.rng import Rng

from . import protocol

DOC = Path(__file__).resolve().parent.parent / "docs" / "bot-protocol.md"
BEGIN = "<!-- BEGIN GENERATED EXAMPLES (python -m bots.protocol_examples --write) -->"
END = "<!-- END GENERATED EXAMPLES -->"
EXAMPLE_MATCH_ID = 42
#: (game, players, options, pick): ``pick`` says which decision to show.
EXAMPLES = [
    ("dtc", 3, None, "description"),
    ("great_dalmuti", 4, {"hands": 1}, 8),
    ("dutch", 3, {"rounds": 3}, 6),
    ("dice_cup", 3, None, 4),
    ("dot", 2, None, 0),
]


def _match(state: State) -> protocol.MatchInfo:
    """As a real match sends it: an integer id, the default timeout and strike limit."""
    from django.conf import settings

    return protocol.MatchInfo(id=EXAMPLE_MATCH_ID, game=state.game.id, options=state.options,
                              seats=[f"player{i}" for i in range(state.players)],
                              timeout_ms=settings.BOTS_MOVE_TIMEOUT_MS,
                              strike_limit=settings.BLUFF_MAX_STRIKES or None)


def _find(game_id: str, players: int, options: dict | None, pick: int | str) -> tuple[State, int]:
    """The state and seat of the chosen decision of a seeded random match."""
    for seed in range(1, 200):
        state = get_game(game_id).new_match(players=players, seed=seed, options=options)
        rng = Rng(seed)
        n = 0
        while not state.is_over:
            seat = state.to_act()[0]
            legal = state.legal_actions(seat)
            if pick == "description":
                if len(legal) > protocol.LEGAL_LIST_LIMIT and hasattr(legal, "describe"):
                    return state, seat
            elif n == pick:
                return state, seat
            state.apply(seat, legal[rng.below(len(legal))])
            n += 1
    raise LookupError(f"no example decision {pick!r} for {game_id}")


def _pretty(value: object, indent: int = 0, width: int = 96) -> str:
    """JSON, indented, but with any value that fits on its line kept on one line (readable)."""
    flat = json.dumps(value, separators=(", ", ": "))
    if len(flat) + indent <= width or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {_pretty(v, indent + 2, width)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + _pretty(v, indent + 2, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def _block(value: object) -> str:
    return "```json\n" + _pretty(value) + "\n```\n"


def generate() -> str:
    """The generated markdown: one /move example per game, then /start and /end."""
    parts = []
    for game_id, players, options, pick in EXAMPLES:
        state, seat = _find(game_id, players, options, pick)
        compact = pick == "description"
        body = protocol.move_body(_match(state), state, seat, compact=compact)
        to_whom = ""
        if compact:
            to_whom = (" to a bot whose handshake says `\"compact_legal_actions\": true` (any "
                       "other bot gets the same body with the complete `legal_actions` list of "
                       f"{body['legal_count']} offers too)")
        parts.append(f"### {get_game(game_id).name} (`{game_id}`)\n\n`POST /move`{to_whom}:\n\n"
                     + _block(body)
                     + "\nA legal answer (here the game's default action):\n\n"
                     + _block({"action": state.default_action(seat), "log": "why I did it"}))
    state, _ = _find("dot", 2, None, 0)
    parts.append("### `POST /start` and `POST /end`\n\nThe same fields without the legal "
                 "actions (D.O.T, seat 0); `/end` adds `result`:\n\n"
                 + _block(protocol.start_body(_match(state), state, 0)))
    return "\n".join(parts)


def splice(doc: str, generated: str) -> str:
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n\n{generated}\n{END}{tail}"


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")  # the defaults shown
    generated = generate()
    if "--write" in argv:
        DOC.write_text(splice(DOC.read_text(), generated))
        print(f"wrote {DOC}")
    else:
        print(generated)


if __name__ == "__main__":
    main(sys.argv[1:])
