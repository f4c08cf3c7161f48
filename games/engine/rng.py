"""The engine's own random number generator (G-1).

Python's ``random`` module does not promise that ``shuffle``/``randrange`` keep their algorithm
across versions, so a deal could change under a Python upgrade. SplitMix64 is tiny, fast,
well studied, and its whole state is one 64-bit integer, which makes a match's JSON round trip
trivial and exact.
"""

from __future__ import annotations

import hashlib
import secrets
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


# --------------------------------------------------------------------------------------------
# Deal seeds of a series: keyed, so one published seed tells nothing of the others
# --------------------------------------------------------------------------------------------

#: Engine seeds are non-negative 63-bit integers (they fit a signed 64-bit database column).
SEED_BITS = 63
#: A deal secret is this many bytes, written as twice as many hex digits.
SECRET_BYTES = 32


def new_secret() -> str:
    """A fresh deal secret (hex), from the operating system's randomness."""
    return secrets.token_hex(SECRET_BYTES)


def secret_from_seed(seed: int) -> str:
    """The deal secret of a series whose organiser chose its ``seed`` (tests, replays): the
    same seed gives the same deals. Anyone who knows the seed knows every deal, so a
    competition leaves the seed out and gets a :func:`new_secret`."""
    return hashlib.blake2b(f"bluff-league deal secret {seed}".encode(),
                           digest_size=SECRET_BYTES).hexdigest()


def deal_seed(secret: str, *place: object) -> int:
    """The seed of the deal at ``place`` in a series (its deal number, a Swiss match's number,
    a league hand's table and number): BLAKE2b keyed with the series' ``secret`` over the
    place's parts joined by ":", its first 8 bytes big-endian, shifted right once.

    A keyed one-way function: the seeds of a series' other deals cannot be computed from any
    number of published ones without the secret (docs/tournaments.md, "What is public when"),
    where successive outputs of one SplitMix64 generator gave away its state, and so every
    deal, from one of them. With the secret, anyone recomputes every deal."""
    digest = hashlib.blake2b(":".join(map(str, place)).encode(), key=bytes.fromhex(secret),
                             digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


def derived_secret(secret: str, *place: object) -> str:
    """The deal secret of a part of a series (a league night, from its league's secret and
    its number): published once that part is over, it tells nothing of the others'."""
    return hashlib.blake2b(":".join(map(str, place)).encode(), key=bytes.fromhex(secret),
                           digest_size=SECRET_BYTES).hexdigest()
