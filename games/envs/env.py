"""Every game as a PettingZoo AEC environment (docs/training.md).

The environment sits on the rules engine only (no Django): each step is one index of the game's
fixed action index (``games/envs/<game>.py``), most often one engine move. A seat observes its
own view only, the same one the API gives, so an agent trained here sees in play exactly what
it saw in training.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from games.engine import Rng, get_game
from games.engine.base import State

from .base import FLOAT32, INT8, JSON, Codec
from .dice_cup import DiceCupCodec
from .dot import DotCodec
from .dtc import DtcCodec
from .dutch import DutchCodec
from .great_dalmuti import GreatDalmutiCodec
from .observation import Observation
from .wrapping import ActionSpace, recommended_wrappers

CODECS: dict[str, type[Codec]] = {c.game_id: c for c in (
    DtcCodec, GreatDalmutiCodec, DutchCodec, DiceCupCodec, DotCodec)}
#: How the final result becomes rewards (docs/training.md, "Rewards").
REWARDS = ("rank", "score")
#: The JSON view's characters: printable ASCII (non-ASCII text is escaped as \\uXXXX).
VIEW_CHARSET = frozenset(chr(c) for c in range(32, 127))
VIEW_MAX_LENGTH = 1 << 20


def codec(game_id: str, players: int | None = None, **options: Any) -> Codec:
    """The action index and observation vector of ``game_id`` for that player count and
    options (the engine's defaults where not given; ``BadOptions`` for bad ones). Codecs never
    change once built, so one is shared by every environment of the same game and options."""
    game = get_game(game_id)
    players = game.check_players(game.default_players if players is None else players)
    options = game.check_options(options, players)
    key = (game_id, players, json.dumps(options, sort_keys=True))
    if key not in _codecs:
        _codecs[key] = CODECS[game_id](players, options)
    return _codecs[key]


_codecs: dict[tuple[str, int, str], Codec] = {}


def rank_rewards(ranks: list[int]) -> list[float]:
    """Per seat: (seats ranked below it - seats ranked above it) / (players - 1), in [-1, 1]
    and zero-sum: +1 / -1 for a 2-player win / loss, 0 for a shared place."""
    n = len(ranks)
    return [sum((other > mine) - (other < mine) for other in ranks) / (n - 1) for mine in ranks]


class raw_env(AECEnv):  # PettingZoo's name for the unwrapped environment
    """One Bluff League game as an AEC environment; ``env()`` gives it with PettingZoo's
    recommended wrappers. Agents ``player_0..player_{n-1}`` are seats ``0..n-1``."""

    metadata = {"render_modes": ["human", "ansi"], "is_parallelizable": False}

    def __init__(self, game_id: str, players: int | None = None, reward: str = "rank",
                 render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.game = get_game(game_id)
        self.codec = codec(game_id, players, **options)
        self.players = self.codec.players
        self.options = self.codec.options
        self.reward_kind = reward
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"bluff_{game_id}_v0"}
        self.possible_agents = [f"player_{s}" for s in range(self.players)]
        self.agent_seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        c = self.codec
        self.observation_spaces = {agent: gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0.0, c.observation_high, (c.observation_size,),
                                                np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (c.action_size,), np.int8),
            "view": gymnasium.spaces.Text(VIEW_MAX_LENGTH, min_length=2,
                                          charset=VIEW_CHARSET),
        }) for agent in self.possible_agents}
        self.action_spaces = {agent: ActionSpace(c.action_size)
                              for agent in self.possible_agents}
        self._seeds: Rng | None = None
        self._next_seed: int | None = None
        # The engine state of the match (named so as not to shadow AECEnv.state(), the
        # optional global observation, which this kit does not offer: it would show hidden cards).
        self.match: State | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ---- the AEC API -------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new match. ``seed`` gives the deal (the engine's match seed, G-1), and seeds the
        seeds of the following resets without one; with no seed ever given, a random one."""
        if seed is None and self._next_seed is not None:
            seed = self._next_seed
        self._next_seed = None
        if seed is not None:
            self._seeds = Rng(seed)
            match_seed = seed
        elif self._seeds is not None:
            match_seed = self._seeds.next64() >> 1
        else:
            match_seed = secrets.randbits(63)
            self._seeds = Rng(match_seed)
        self.seed_used = match_seed
        self.match = self.game.new_match(players=self.players, seed=match_seed,
                                         options=self.options)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.pending: Any = None  # the acting seat's part-built action (DTC offers)
        self.forget_position()
        self.agent_selection = self.possible_agents[self._next_seat()]

    def seed(self, seed: int | None = None) -> None:
        """The older PettingZoo call: the next ``reset()`` deals as ``reset(seed=seed)``."""
        self._next_seed = seed

    def _next_seat(self) -> int:
        """The seat to step: the first one asked (in a simultaneous step, each asked seat in
        turn; the others' answers stay sealed in its view)."""
        return self.match.to_act()[0]

    def observe(self, agent: str) -> JSON:
        """The agent's :class:`Observation`: fresh arrays (the caller may change them), its
        JSON view made when first read. The vector and the mask are made once per position
        (and per pending part), then copied out of their bytes."""
        seat = self.agent_seat[agent]
        entry = self._position(seat)
        packed = entry[2]
        if packed is None:  # first observation of this position: the vector is packed once
            packed = entry[2] = self.codec.packed(entry[0])
        if agent == self.agent_selection and not self.match.is_over:
            if self.pending is not None:  # the part-built action, seen by its seat alone
                packed = self.codec.with_pending(packed, self.pending)
            mask = np.frombuffer(bytearray(self._mask(seat, entry[0])), INT8)
        else:
            mask = np.zeros(self.codec.action_size, INT8)
        return Observation.lazy(np.frombuffer(bytearray(packed), FLOAT32), mask, entry)

    def forget_position(self) -> None:
        """Drop what is cached about the current position (after ``match`` is replaced)."""
        # Per (seat, moves): [the view, its JSON text, its packed observation vector with no
        # pending part] (the text made when an observation's "view" is first read, the vector
        # on the first observe()); per (seat, moves, pending): the action mask's bytes.
        self._position_cache: tuple[tuple, list] = ((), [])
        self._mask_cache: tuple[tuple, Any] = ((), None)

    def _position(self, seat: int) -> list:
        """``[view, text, packed vector]`` of the seat's position, each computed once per
        position (observe and step both need the view; the steps of a DTC offer share all
        three). ``step()`` needs nothing but the view, so the others wait to be asked for."""
        key = (seat, self.match.moves)
        if self._position_cache[0] != key:
            self._position_cache = (key, [self.match.view(seat), None, None])
        return self._position_cache[1]

    def _mask(self, seat: int, view: JSON) -> bytes | bytearray:
        """The acting seat's action mask as bytes (never changed: observe() copies it)."""
        key = (seat, self.match.moves, self.pending)
        if self._mask_cache[0] != key:
            legal = self.match.legal_actions(seat)
            self._mask_cache = (key, self.codec.legal_bytes(view, legal, self.pending))
        return self._mask_cache[1]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_seat[agent]
        state = self.match
        view = self._position(seat)[0]
        index = int(action)
        mask = self._mask(seat, view)
        if not 0 <= index < len(mask) or not mask[index]:
            raise ValueError(f"{agent}: action {action!r} is not legal now (legal: "
                             f"{self.codec.indices_of(mask)})")
        self._cumulative_rewards[agent] = 0.0
        move, self.pending = self.codec.decode(view, index, self.pending)
        if move is not None:  # else a part-built action: the same seat goes on
            state.apply(seat, move)
            if state.is_over:
                self._finish()  # the only rewards: every step before pays 0
                self._accumulate_rewards()
            else:
                self.agent_selection = self.possible_agents[self._next_seat()]
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        result = self.match.result()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.reward_kind == "rank":
            values = rank_rewards(result["ranks"])
        else:
            sign = -1.0 if self.game.lower_score_wins else 1.0  # more is better, always
            values = [sign * float(score) for score in result["scores"]]
        capped = self.match.moves >= self.game.move_cap(self.players, self.options)
        for agent, value in zip(self.agents, values):
            self.rewards[agent] = value
            self.infos[agent] = {"result": result}
        # G-7: a match stopped by the move cap is scored as it stands, but was cut short.
        self.terminations = dict.fromkeys(self.agents, not capped)
        self.truncations = dict.fromkeys(self.agents, capped)
        self.agent_selection = self.agents[0]

    def render(self) -> str | None:
        """The spectator's view (what anyone watching may know), as JSON text."""
        if self.match is None:
            return None
        text = json.dumps(self.match.public_view(), indent=1)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def env(game_id: str, **kwargs: Any) -> AECEnv:
    """``raw_env(game_id, **kwargs)`` with the wrappers PettingZoo recommends for turn-based
    games: an illegal action ends the match with reward -1 for its agent (and a warning),
    out-of-range actions raise, and the AEC call order is enforced."""
    return recommended_wrappers(raw_env(game_id, **kwargs), illegal_reward=-1)


