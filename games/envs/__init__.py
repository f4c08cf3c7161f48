"""The offline training kit: every game as a PettingZoo AEC environment.

    from games.envs import env
    e = env("dice_cup", players=2)      # game options as keywords: env("dutch", initial_peek=2)
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Needs the ``train`` extra (``pip install -e '.[train]'``: pettingzoo, gymnasium); the platform
itself never imports it. Sits on ``games.engine`` only (no Django). See ``docs/training.md``.
"""

from .base import Codec, FlatCodec
from .env import CODECS, REWARDS, codec, env, rank_rewards, raw_env
from .observation import view_json

__all__ = ["CODECS", "REWARDS", "Codec", "FlatCodec", "codec", "env", "rank_rewards", "raw_env",
           "view_json"]
