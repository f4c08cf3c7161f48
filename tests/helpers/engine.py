"""Engine helpers of the property tests: random valid options of a game."""

from __future__ import annotations

from games.engine import BadOptions, Rng


def random_options(game, players: int, rng: Rng) -> dict:
    """Random values for the game's boolean / small-integer options; invalid combos dropped."""
    options: dict = {}
    for opt in game.options:
        if opt.choices is not None:
            options[opt.name] = rng.choice(opt.choices)
        elif opt.type is bool:
            options[opt.name] = rng.coin()
        elif opt.type is int and opt.minimum is not None:
            if opt.nullable and rng.coin():
                options[opt.name] = None
                continue
            high = opt.minimum + 3 if opt.maximum is None else min(opt.maximum, opt.minimum + 3)
            options[opt.name] = rng.randint(opt.minimum, high)
    valid: dict = {}
    for name, value in options.items():  # keep each drawn value that fits with those kept
        try:
            game.check_options({**valid, name: value}, players)
        except BadOptions:
            continue
        valid[name] = value
    return valid
