"""Seats as people read them: numbered from 1 on every page, in every drawing, caption, button
and form ("seat 1" is the first seat), while the API, the bot protocol and the engine keep their
``seat`` fields numbered from 0 (``seat 0`` there is "seat 1" here). One place, so a page never
shows the other numbering (docs/api.md, "Seat numbers")."""

from __future__ import annotations

from typing import Any


def seat_number(seat: int) -> int:
    """The number a person reads for the API's seat ``seat`` (0-based in, 1-based out)."""
    return seat + 1


def seat_word(seat: Any) -> str:
    """"seat 3" for the API's seat 2; anything but a seat index is shown as it is."""
    if isinstance(seat, int) and not isinstance(seat, bool):
        return f"seat {seat_number(seat)}"
    return f"seat {seat}"
