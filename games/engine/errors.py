"""The errors the engine raises on purpose: all of them :class:`EngineError`, and
``ValueError`` too (a bad request, never the platform's bug)."""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class IllegalAction(EngineError, ValueError):
    """The action is malformed or not legal now; the message says why, for a human."""


class BadOptions(EngineError, ValueError):
    """Unknown option, bad value, or a player count the game does not support."""


class CorruptState(EngineError, ValueError):
    """A saved state failed its invariant checks on load."""
