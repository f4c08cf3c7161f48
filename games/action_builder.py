"""A long group of legal actions of one type as a few controls a person builds one from, instead
of a list of hundreds (a D.T.C offer: the cards, then the value claimed; a D.O.T commit: the
star, then the cards shared; a dice-cup call: who, then the number).

Each field of the group's actions becomes one control: a field whose values are sets of cards
(``{"5": 2, "joker": 1}``: counts by card) a row of card buttons to press, one per card the
legal actions can hold; any other field a picker of the values it takes. The page (play.js)
reads what is pressed and picked, looks it up among the legal actions (each given whole, in the
canonical JSON :func:`canonical` makes) and plays it: a person can only ever send a legal
action, and the engine still checks it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .drawings.words import action_fields, value_words, words
from .numbering import seat_word

JSON = dict[str, Any]

#: Fields naming a seat: their values are shown as the seat's name.
SEAT_FIELDS = {"target", "seat", "player", "to"}


def canonical(value: Any) -> str:
    """JSON with sorted keys and no spaces, as play.js writes what is built (JSON.stringify
    over sorted keys), so the two compare as strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _is_cards(values: Sequence[Any]) -> bool:
    return all(isinstance(v, dict) and v.keys() - {"seat", "slot"} and
               all(isinstance(n, int) and not isinstance(n, bool) for n in v.values())
               for v in values)


def builder(kind: str, actions: Sequence[JSON], names: Sequence[str] = ()) -> JSON | None:
    """The controls of a group of ``kind`` actions, set to its first action, or None when the
    actions do not all have the same fields (a list is then the way to pick)."""
    keys = [k for k in actions[0] if k != "type"]
    if not keys or any(sorted(k for k in a if k != "type") != sorted(keys) for a in actions):
        return None
    first = actions[0]
    fields = []
    for key in keys:
        values = [a[key] for a in actions]
        if _is_cards(values):
            most: dict[str, int] = {}
            for value in values:
                for card, count in value.items():
                    most[card] = max(most.get(card, 0), count)
            chosen = dict(first[key])
            units = []
            for card in sorted(most, key=_card_order):
                for n in range(most[card]):
                    units.append({"card": card, "label": str(card),
                                  "pressed": n < chosen.get(card, 0)})
            fields.append({"name": key, "label": words(key), "cards": units})
        else:
            seen: dict[str, Any] = {}
            for value in values:
                seen.setdefault(canonical(value), value)
            fields.append({"name": key, "label": words(key), "options": [
                {"json": text, "label": _value_label(key, value, names),
                 "selected": text == canonical(first[key])}
                for text, value in sorted(seen.items(), key=lambda item: _value_order(item[1]))]})
    return {"type": kind, "fields": fields,
            "legal": json.dumps([canonical(a) for a in actions]),
            "labels": json.dumps([action_fields(a) or words(kind) for a in actions]),
            "first": {"json": canonical(first), "label": action_fields(first) or words(kind)}}


def _card_order(card: str) -> tuple[int, Any]:
    return (0, int(card)) if card.isdigit() else (1, card)


def _value_order(value: Any) -> tuple[int, Any]:
    if isinstance(value, bool) or value is None:
        return (0, str(value))
    if isinstance(value, int | float):
        return (1, value)
    return (2, canonical(value))


def _value_label(key: str, value: Any, names: Sequence[str]) -> str:
    if key in SEAT_FIELDS and isinstance(value, int) and 0 <= value < len(names):
        return f"{names[value]} ({seat_word(value)})"
    return value_words(value)
