"""What every game's codec shares: the fixed action index and the observation vector.

A *codec* turns one seat's view and legal actions (exactly what a webhook bot or a polling
client gets, nothing more) into what learning code wants: a fixed-size float vector, and the
legal indices of a fixed, documented action index; and an index back into an engine action.
Each game's index and vector are defined in one place, ``games/envs/<game>.py``, and documented
in ``docs/training.md``.

An engine action is normally one index (one environment step). Where a game's action space is
too large to list (DTC offers: any part of a hand of up to 66 cards), an action is built over
several steps of the same seat; the part built so far is the *pending* value, private to that
seat and part of its observation.

Seats in actions and observations are *offsets* from the observing seat: offset ``k`` is seat
``(me + k) % players`` (0 = me, 1 = my left...), so one policy fits every seat.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

import numpy as np

JSON = dict[str, Any]
#: The observation's and the mask's dtypes, as dtype objects: ``np.frombuffer`` takes one a
#: third quicker than a scalar type (it runs twice per step).
FLOAT32 = np.dtype(np.float32)
INT8 = np.dtype(np.int8)


class Codec:
    """One game's action index and observation vector for a player count and options."""

    game_id: ClassVar[str]
    #: Every observation value lies in ``[0, observation_high]``.
    observation_high: float
    #: The observation's last values that encode the pending part (:meth:`encode_pending`).
    pending_size: ClassVar[int] = 0

    def __init__(self, players: int, options: JSON) -> None:
        self.players = players
        self.options = options
        self.action_size = 0
        self.observation_size = 0

    # ---- the action index --------------------------------------------------------------------

    def legal_indices(self, view: JSON, legal: Sequence[JSON], pending: Any = None) -> list[int]:
        """The indices the seat may take now (its view, its legal actions, its pending part)."""
        raise NotImplementedError

    def legal_mask(self, view: JSON, legal: Sequence[JSON], pending: Any = None) -> np.ndarray:
        """The action mask: ``action_size`` int8 values, 1 at each of :meth:`legal_indices`.
        Not to be changed: a codec may hand out the same cached array again."""
        return np.frombuffer(self.legal_bytes(view, legal, pending), INT8)

    def legal_bytes(self, view: JSON, legal: Sequence[JSON],
                    pending: Any = None) -> bytes | bytearray:
        """:meth:`legal_mask` as bytes (0 or 1 each): what the environment keeps to check a
        step and copies into each observation. Not to be changed (a codec may cache it)."""
        mask = bytearray(self.action_size)  # set item by item: quicker than numpy's
        for index in self.legal_indices(view, legal, pending):  # fancy indexing of a list
            mask[index] = 1
        return mask

    def decode(self, view: JSON, index: int, pending: Any = None) -> tuple[JSON | None, Any]:
        """``(engine action, None)`` when ``index`` completes an action, else ``(None, the new
        pending part)``. ``index`` must be one of :meth:`legal_indices`."""
        raise NotImplementedError

    def indices(self, view: JSON, action: JSON) -> list[int]:
        """The indices, in order, that make the legal engine ``action`` (one for most games)."""
        raise NotImplementedError

    # ---- the observation ---------------------------------------------------------------------

    def encode(self, view: JSON) -> list[float]:
        """The vector of the seat's view: the observation without its pending part."""
        raise NotImplementedError

    def encode_pending(self, pending: Any) -> list[float]:
        """The observation's last values: the part-built action (none for most games)."""
        return []

    def observe(self, view: JSON, pending: Any = None) -> list[float]:
        """The whole observation vector (``observation_size`` values)."""
        return self.encode(view) + self.encode_pending(pending)

    def vector(self, view: JSON, pending: Any = None) -> np.ndarray:
        """:meth:`observe` as a read-only float32 array (:meth:`packed`)."""
        return np.frombuffer(self.packed(view, pending), FLOAT32)

    def packed(self, view: JSON, pending: Any = None) -> bytes:
        """:meth:`observe` as native float32 bytes. Packed by ``struct`` (C floats, rounded to
        nearest as numpy does): half the time of ``np.fromiter`` on a list of Python numbers,
        and it too refuses a list of the wrong length."""
        if pending is None and not self.pending_size:  # most games: no list concatenation
            return self._packer.pack(*self.encode(view))
        return self._packer.pack(*self.observe(view, pending))

    def with_pending(self, packed: bytes, pending: Any) -> bytes:
        """``packed(view)`` (no pending part) turned into ``packed(view, pending)``: only the
        last :attr:`pending_size` values are packed again (the steps of a DTC offer share
        their view, hence the rest of the vector)."""
        if not self.pending_size:
            return packed
        return packed[:-4 * self.pending_size] + self._pending_packer.pack(
            *self.encode_pending(pending))

    @functools.cached_property
    def _packer(self) -> struct.Struct:
        return struct.Struct(f"{self.observation_size}f")

    @functools.cached_property
    def _pending_packer(self) -> struct.Struct:
        return struct.Struct(f"{self.pending_size}f")

    # ---- helpers -----------------------------------------------------------------------------

    @staticmethod
    def indices_of(mask: bytes | bytearray) -> list[int]:
        """The legal indices of a mask made by :meth:`legal_bytes`, in index order (for codecs
        whose mask is made first, and for error messages)."""
        return [index for index, bit in enumerate(mask) if bit]

    def offset(self, seat: int, me: int) -> int:
        """The offset of ``seat`` seen from ``me`` (0 = me, 1 = my left, ...)."""
        return (seat - me) % self.players

    def seat(self, offset: int, me: int) -> int:
        return (me + offset) % self.players

    def by_offset(self, per_seat: Sequence[Any], me: int) -> list[Any]:
        """A per-seat list reordered so that index ``k`` is offset ``k`` (a rotation)."""
        return per_seat[me:] + per_seat[:me]  # type: ignore[operator]

    def one_hot(self, k: int | None, size: int) -> list[float]:
        """``size`` values, 1.0 at ``k`` (none for ``None``)."""
        out = [0.0] * size
        if k is not None:
            out[k] = 1.0
        return out


class FlatCodec(Codec):
    """A codec where every engine action is one index: a table of hashable keys, in index
    order, built once from the player count and options. Subclasses give the table
    (:meth:`keys`), the key of an action seen from a view (:meth:`key`) and back (:meth:`build`)."""

    def __init__(self, players: int, options: JSON) -> None:
        super().__init__(players, options)
        self.table: list[Hashable] = list(self.keys())
        self.index_of: dict[Hashable, int] = {k: i for i, k in enumerate(self.table)}
        if len(self.index_of) != len(self.table):
            raise AssertionError(f"{self.game_id}: duplicate keys in the action index")
        self.action_size = len(self.table)

    def keys(self) -> Sequence[Hashable]:
        raise NotImplementedError

    def key(self, view: JSON, action: JSON) -> Hashable:
        raise NotImplementedError

    def build(self, view: JSON, key: Any) -> JSON:
        raise NotImplementedError

    def legal_indices(self, view: JSON, legal: Sequence[JSON], pending: Any = None) -> list[int]:
        index_of, key = self.index_of, self.key
        return [index_of[key(view, action)] for action in legal]

    def decode(self, view: JSON, index: int, pending: Any = None) -> tuple[JSON | None, Any]:
        return self.build(view, self.table[index]), None

    def indices(self, view: JSON, action: JSON) -> list[int]:
        return [self.index_of[self.key(view, action)]]
