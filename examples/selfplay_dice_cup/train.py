#!/usr/bin/env python3
"""Tune the dice cup policy by self-play through the PettingZoo environment, check it beats the
random reference bot, and save its parameters for ``bot.py``.

    python examples/selfplay_dice_cup/train.py --rounds 30 --matches 40 --out params.json

Self-play hill climbing: each round a challenger (the champion with one parameter changed at
random) plays ``--matches`` 2-player matches against the champion, seats alternating; it becomes
the champion when it wins more of them than it loses by a margin. Every match runs through
``games.envs.env("dice_cup")``: each agent reads its observation's JSON view and action mask.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections.abc import Callable
from dataclasses import replace

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np
from policy import Params, choose_index

from games.engine import Rng, get_game
from games.envs import env

GAME = "dice_cup"
#: An agent: (observation, its seat) -> action index.
Agent = Callable[[dict, int], int]


def policy_agent(params: Params, codec) -> Agent:
    def act(obs: dict, seat: int) -> int:
        legal = [int(i) for i in np.flatnonzero(obs["action_mask"])]
        return choose_index(params, codec, json.loads(obs["view"]), legal)
    return act


def random_agent(codec, seat: int, seed: int) -> Agent:
    """The engine's ``random`` reference bot (uniform over the legal actions), as an agent."""
    bot = get_game(GAME).make_bot("random", seat, seed)

    def act(obs: dict, _seat: int) -> int:
        view = json.loads(obs["view"])
        legal = [codec.decode(view, int(i))[0] for i in np.flatnonzero(obs["action_mask"])]
        return codec.indices(view, bot.choose(view, legal))[0]
    return act


def play(agents: list[Agent], seed: int) -> list[float]:
    """One match, seat ``s`` played by ``agents[s]``; returns the rank rewards (+1 win, -1 loss,
    0 shared)."""
    e = env(GAME, players=len(agents))
    e.reset(seed=seed)
    totals = [0.0] * len(agents)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        seat = int(agent.removeprefix("player_"))
        totals[seat] += reward
        e.step(None if terminated or truncated else agents[seat](obs, seat))
    return totals


def head_to_head(mine: Callable[[int], Agent], theirs: Callable[[int], Agent], matches: int,
                 seed: int) -> tuple[int, int, int]:
    """(wins, losses, ties) of ``mine`` over ``matches`` 2-player matches, seats alternating."""
    wins = losses = ties = 0
    for m in range(matches):
        me = m % 2
        agents = [mine(0), theirs(1)] if me == 0 else [theirs(0), mine(1)]
        reward = play(agents, seed + m)[me]
        wins += reward > 0
        losses += reward < 0
        ties += reward == 0
    return wins, losses, ties


def mutate(params: Params, rng: Rng) -> Params:
    which = rng.below(3)
    if which == 0:
        return replace(params, doubt=round(min(0.2, max(0.0, params.doubt
                                                         + (rng.below(9) - 4) / 100)), 3))
    if which == 1:
        return replace(params, truth_points=1 + rng.below(5))
    return replace(params, plausible=max(1, min(27, params.plausible + rng.below(11) - 5)))


def tune(rounds: int, matches: int, seed: int = 0, start: Params | None = None,
         log: Callable[[str], None] = lambda _: None) -> Params:
    codec = env(GAME, players=2).unwrapped.codec
    rng = Rng(seed)
    champion = start or Params()
    for r in range(rounds):
        challenger = mutate(champion, rng)
        if challenger == champion:
            continue
        w, l, _ = head_to_head(lambda s: policy_agent(challenger, codec),
                               lambda s: policy_agent(champion, codec),
                               matches, seed=seed * 1_000_003 + r * matches)
        if w - l >= max(2, matches // 10):
            log(f"round {r}: {challenger} beats {champion} {w}-{l}")
            champion = challenger
    return champion


def against_random(params: Params, matches: int, seed: int = 10**6) -> tuple[int, int, int]:
    codec = env(GAME, players=2).unwrapped.codec
    return head_to_head(lambda s: policy_agent(params, codec),
                        lambda s: random_agent(codec, s, seed), matches, seed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--matches", type=int, default=40, help="matches per round")
    parser.add_argument("--eval", type=int, default=200, help="matches against random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent / "params.json")
    args = parser.parse_args()
    params = tune(args.rounds, args.matches, args.seed, log=print)
    print(f"tuned: {params}")
    wins, losses, ties = against_random(params, args.eval)
    print(f"against the random reference bot: won {wins}, lost {losses}, tied {ties} "
          f"of {args.eval} ({100 * wins / args.eval:.0f}% won)")
    params.save(args.out)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
