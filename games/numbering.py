"""Seats as people read them: numbered from 1 on every page, in every drawing, caption, button
and form ("seat 1" is the first seat), while the API, the bot protocol and the engine keep their
``seat`` fields numbered from 0 (``seat 0`` there is "seat 1" here). One place, so a page never
shows the other numbering (docs/api.md, "Seat numbers")."""

from __future__ import annotations

from typing import Any

#: Keys of an engine event (or result) whose whole number is a seat (a call's ``seat`` and
#: ``target``, a deal's ``first``, an exchange's ``from`` and ``to``).
EVENT_SEAT_KEYS = frozenset({"seat", "first", "first_player", "target", "to", "from",
                             "challenger", "giver", "taker", "winner", "leader", "with",
                             "with_seat", "player", "pool"})
#: Keys whose value is a list of seats (a social order, an order of going out).
EVENT_SEAT_LIST_KEYS = frozenset({"order", "out_order"})
#: Keys whose value is a list of pairs, each led by a seat (The Great Dalmuti's order draw).
EVENT_SEAT_PAIR_KEYS = frozenset({"draws"})


def seat_number(seat: int) -> int:
    """The number a person reads for the API's seat ``seat`` (0-based in, 1-based out)."""
    return seat + 1


def seat_word(seat: Any) -> str:
    """"seat 3" for the API's seat 2; anything but a seat index is shown as it is."""
    if isinstance(seat, int) and not isinstance(seat, bool):
        return f"seat {seat_number(seat)}"
    return f"seat {seat}"


def numbered_for_people(value: Any, key: str = "") -> Any:
    """An engine event or result (plain JSON) with every seat in it numbered from 1, for a
    person reading it in a terminal (``manage.py play``); the engine's events, the API and the
    log keep seats from 0. A list by seat (scores, hands) stays a list: its order says the
    seat. Nested handles and records (a slot's ``seat``, an exchange's ``from``/``to``) too."""
    if isinstance(value, dict):
        return {k: numbered_for_people(v, k) for k, v in value.items()}
    if key in EVENT_SEAT_KEYS and _is_seat(value):
        return seat_number(value)
    if isinstance(value, list):
        if key in EVENT_SEAT_LIST_KEYS:
            return [seat_number(v) if _is_seat(v) else v for v in value]
        if key in EVENT_SEAT_PAIR_KEYS:
            return [[seat_number(v[0]), *v[1:]] if isinstance(v, list) and v and _is_seat(v[0])
                    else v for v in value]
        return [numbered_for_people(v) for v in value]
    return value


def _is_seat(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
