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
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

#: The AEC fields every step reads or writes (AECEnv.last, the wrappers' own checks).
AEC_FIELDS = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos",
              "_cumulative_rewards")


#: Reads an observation's mask as stored (the mask is never made lazily): no Python-level
#: ``Observation.__getitem__`` call.
_dict_get = dict.get

#: What ``ActionSpace.contains`` answers at once: a plain int, and numpy's int64 (what
#: ``sample(mask)`` and ``np.flatnonzero`` give), which gymnasium accepts whenever in range.
_QUICK = frozenset((int, np.int64))


class ActionSpace(gymnasium.spaces.Discrete):
    """``Discrete(n)``, whose ``contains`` is quick for an ``int`` or ``np.int64`` (the same
    answer)."""

    def __init__(self, n: int, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self._size = int(n)

    def contains(self, x: Any) -> bool:
        if type(x) in _QUICK:  # not bool; an int64 dtype holds every index below n
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
    """PettingZoo's, with the common case of each call done at once: a legal action after the
    observation that gave its mask is stepped, the acting agent's observation is kept for that
    check. Any other case (no observation yet, a dead agent, an illegal action) is PettingZoo's."""

    def observe(self, agent: Any) -> Any:
        obs = self.env.observe(agent)
        aec = self._aec
        if agent == aec.agent_selection:
            self._prev_obs = obs
            self._prev_info = aec.infos.get(agent, {})
        return obs

    def step(self, action: Any) -> None:
        if self._quick(action):
            self.env.step(action)
        else:
            super().step(action)

    def _quick(self, action: Any) -> bool:
        """Whether ``action`` is PettingZoo's plain case, a live agent's action legal in the
        mask it last observed: then the observation kept is dropped (as PettingZoo's step
        does) and the caller steps the environment below."""
        prev, aec = self._prev_obs, self._aec
        agent = aec.agent_selection
        mask = _dict_get(prev, "action_mask") if isinstance(prev, dict) else None
        if (mask is not None and not self._terminated and not aec.terminations[agent]
                and not aec.truncations[agent] and mask[action]):
            self._prev_obs = self._prev_info = None
            return True
        return False


class AssertOutOfBoundsWrapper(_ReadsThrough, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's; an action its space contains is stepped at once (the same check)."""

    def step(self, action: Any) -> None:
        if action is not None and self.env.action_space(self._aec.agent_selection).contains(
                action):
            self.env.step(action)
        else:
            super().step(action)


class OrderEnforcingWrapper(_ReadsThrough, wrappers.OrderEnforcingWrapper):
    """Before ``reset()``, its fields raise as PettingZoo's (through its ``__getattr__``).

    Over the two others as :func:`recommended_wrappers` stacks them (exactly those classes,
    on the unwrapped environment), a step's common case makes all three layers' checks here
    and calls the environment once: each layer is a Python call or two per ``last()`` and
    ``step()``, some 2 µs a step (bench/envs.py). Every other case goes down the layers."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        inner = getattr(env, "env", None)
        stacked = (type(env) is AssertOutOfBoundsWrapper
                   and type(inner) is TerminateIllegalWrapper and inner.env is self._aec)
        self._illegal: TerminateIllegalWrapper | None = inner if stacked else None

    def step(self, action: Any) -> None:
        if self._has_reset and self._aec.agents:  # PettingZoo's else-branch, at once
            illegal, aec = self._illegal, self._aec
            if (illegal is not None and action is not None  # AssertOutOfBounds', then
                    and aec.action_space(aec.agent_selection).contains(action)
                    and illegal._quick(action)):  # TerminateIllegal's checks
                self._has_updated = True
                aec.step(action)
                return
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def observe(self, agent: Any) -> Any:
        if not self._has_reset:
            return super().observe(agent)
        illegal = self._illegal
        if illegal is None:
            return self.env.observe(agent)
        aec = self._aec  # TerminateIllegalWrapper.observe, at once
        obs = aec.observe(agent)
        if agent == aec.agent_selection:
            illegal._prev_obs = obs
            illegal._prev_info = aec.infos.get(agent, {})
        return obs

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``, reading the fields from the unwrapped environment (and over
        :func:`recommended_wrappers`' stack, TerminateIllegalWrapper's observe at once)."""
        if not self._has_reset:
            return super().last(observe)
        aec, illegal = self._aec, self._illegal
        agent = aec.agent_selection
        assert agent is not None
        infos = aec.infos
        if not observe:
            obs = None
        elif illegal is None:
            obs = self.env.observe(agent)
        else:
            obs = illegal._prev_obs = aec.observe(agent)
            illegal._prev_info = infos.get(agent, {})
        return (obs, aec._cumulative_rewards[agent], aec.terminations[agent],
                aec.truncations[agent], infos[agent])

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
