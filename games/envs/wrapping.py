"""PettingZoo's recommended wrappers, without their per-read cost; a quick ``Discrete``.

PettingZoo's wrappers reach the environment's AEC fields (``agent_selection``, ``terminations``,
...) through ``__getattr__``, one call per layer and per read: with three layers, some 30 reads
per step cost more than a dice cup move in the engine (bench/envs.py). The subclasses here read
those fields from the unwrapped environment at once, by properties; every check the wrappers
make, and every other attribute, is still theirs. ``AssertOutOfBoundsWrapper`` asks the action
space ``contains(action)`` every step, which gymnasium's ``Discrete`` answers slowly (it
re-derives its dtype's range each time; docs/performance.md); :class:`ActionSpace` answers a plain ``int`` at
once and anything else as gymnasium does.
"""

from __future__ import annotations

from typing import Any

import gymnasium
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

#: The AEC fields every step reads or writes (AECEnv.last, the wrappers' own checks).
AEC_FIELDS = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos",
              "_cumulative_rewards")


class ActionSpace(gymnasium.spaces.Discrete):
    """``Discrete(n)``, whose ``contains`` is quick for a plain ``int`` (the same answer)."""

    def __init__(self, n: int, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self._size = int(n)

    def contains(self, x: Any) -> bool:
        if type(x) is int:  # not bool; an int64 dtype holds every index below n
            return 0 <= x < self._size
        return super().contains(x)


def _setter(name: str) -> Any:
    def put(self: Any, value: Any) -> None:
        setattr(self._aec, name, value)

    return put


class _ReadsThrough:
    """Mixin for a PettingZoo wrapper: the :data:`AEC_FIELDS` are the unwrapped environment's,
    read (and written) there directly, by plain attribute reads (a closure over the name costs
    half as much again). A field the environment lacks still goes through the wrapper's
    ``__getattr__`` (the property's AttributeError sends Python there), so its errors are
    PettingZoo's."""

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        self._aec = env.unwrapped
        super().__init__(env, *args, **kwargs)

    def __str__(self) -> str:
        return str(self.env)

    @property
    def agent_selection(self) -> Any:
        return self._aec.agent_selection

    @property
    def agents(self) -> Any:
        return self._aec.agents

    @property
    def rewards(self) -> Any:
        return self._aec.rewards

    @property
    def terminations(self) -> Any:
        return self._aec.terminations

    @property
    def truncations(self) -> Any:
        return self._aec.truncations

    @property
    def infos(self) -> Any:
        return self._aec.infos

    @property
    def _cumulative_rewards(self) -> Any:
        return self._aec._cumulative_rewards


for _name in AEC_FIELDS:
    _field = getattr(_ReadsThrough, _name)
    setattr(_ReadsThrough, _name, _field.setter(_setter(_name)))


class TerminateIllegalWrapper(_ReadsThrough, wrappers.TerminateIllegalWrapper):
    pass


class AssertOutOfBoundsWrapper(_ReadsThrough, wrappers.AssertOutOfBoundsWrapper):
    pass


class OrderEnforcingWrapper(_ReadsThrough, wrappers.OrderEnforcingWrapper):
    """Before ``reset()``, its fields raise as PettingZoo's (through its ``__getattr__``)."""

    @property
    def agent_selection(self) -> Any:
        return self._aec.agent_selection if self._has_reset else \
            self.__getattr__("agent_selection")

    @property
    def agents(self) -> Any:
        return self._aec.agents if self._has_reset else self.__getattr__("agents")

    @property
    def rewards(self) -> Any:
        return self._aec.rewards if self._has_reset else self.__getattr__("rewards")

    @property
    def terminations(self) -> Any:
        return self._aec.terminations if self._has_reset else self.__getattr__("terminations")

    @property
    def truncations(self) -> Any:
        return self._aec.truncations if self._has_reset else self.__getattr__("truncations")

    @property
    def infos(self) -> Any:
        return self._aec.infos if self._has_reset else self.__getattr__("infos")


for _name in AEC_FIELDS[:-1]:
    _field = getattr(OrderEnforcingWrapper, _name)
    setattr(OrderEnforcingWrapper, _name, _field.setter(_setter(_name)))


def recommended_wrappers(environment: AECEnv, illegal_reward: float = -1) -> AECEnv:
    """``environment`` inside the wrappers PettingZoo recommends for turn-based games, in the
    order of its own games: an illegal action ends the match with ``illegal_reward`` for its
    agent, out-of-range actions fail an assertion, the AEC call order is enforced."""
    environment = TerminateIllegalWrapper(environment, illegal_reward=illegal_reward)
    environment = AssertOutOfBoundsWrapper(environment)
    return OrderEnforcingWrapper(environment)
