"""The engine's own random number generator (G-1).

Python's ``random`` module does not promise that ``shuffle``/``randrange`` keep their algorithm
across versions, so a deal could change under a Python upgrade. SplitMix64 is tiny, fast,
well studied, and its whole state is one 64-bit integer, which makes a match's JSON round trip
trivial and exact.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class Rng:
    """Deterministic RNG seeded per match; ``state`` is all there is to save."""

    __slots__ = ("state",)

    def __init__(self, seed: int = 0, *, state: int | None = None) -> None:
        # Mixing the seed once keeps small neighbouring seeds (0, 1, 2...) far apart.
        self.state = (state if state is not None else _mix(seed & _MASK)) & _MASK

    def next64(self) -> int:
        self.state = s = (self.state + _GAMMA) & _MASK
        return _mix(s)

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)``, unbiased (rejection sampling)."""
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        limit = _MASK + 1 - ((_MASK + 1) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def randint(self, low: int, high: int) -> int:
        """Uniform integer in ``[low, high]`` (both ends included)."""
        return low + self.below(high - low + 1)

    def choice(self, seq: Sequence[T]) -> T:
        return seq[self.below(len(seq))]

    def shuffle(self, seq: MutableSequence[T]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(seq) - 1, 0, -1):
            j = self.below(i + 1)
            seq[i], seq[j] = seq[j], seq[i]

    def coin(self) -> bool:
        return bool(self.next64() >> 63)

    def fork(self) -> Rng:
        """An independent generator derived from this one (advances this one by one step)."""
        return Rng(state=_mix(self.next64()))
