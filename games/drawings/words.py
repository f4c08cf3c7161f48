"""Actions and log entries in words, as a player would say them: the play page's buttons
(``action_label``, any game) and the replay's move list and caption (``entry_text``, with a
sentence per game where one reads better than the generic "type: field value").

An action is named only where the page may show it: the replay passes no action while the
match is not disclosed (a sealed choice, a hidden card), and the entry reads "alice moved".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..driver import EntryKind
from ..numbering import seat_word

JSON = dict[str, Any]


def action_label(action: JSON, game: str = "") -> str:
    """An action as a button says it: its type first (in the game's words, where it has
    them: :data:`BUTTONS`), then its other fields in words."""
    kind = str(action.get("type", "act"))
    name, rest = BUTTONS.get(game, {}).get(kind, (words(kind), ""))[0], action_fields(action)
    return f"{name}: {rest}" if rest else name


def action_hint(action: JSON, game: str) -> str:
    """What pressing the action's button does, in a few words ("" where its name says it)."""
    return BUTTONS.get(game, {}).get(str(action.get("type", "act")), ("", ""))[1]


#: Per game, per action type: the button's name and a hint of what it does, where the type's
#: id alone would not say it (DU-3, DU-5, DU-6; DOT-4).
BUTTONS: dict[str, dict[str, tuple[str, str]]] = {
    "dutch": {
        "draw": ("draw", "the top card of the face-down pile"),
        "take": ("take the discard", ("the top card of the discard pile; you must keep it "
                                     "(DU-3)")),
        "done": ("J'ai terminé (done)", ("instead of drawing: every other player has one more "
                                        "turn (DU-6)")),
        "discard": ("discard the drawn card", "a power card's power may be used (DU-4)"),
        "replace": ("keep it in place of", ("the drawn card takes that slot; the card there is "
                                           "discarded")),
        "pass": ("don't snap", "let this discard go (DU-5)"),
        "snap": ("snap", ("name a card of yours of the discard's rank; wrong: 2 penalty cards "
                         "(DU-5)")),
        "no_power": ("use no power", "the discarded card's power is not used"),
    },
    "dot": {
        "discard": ("discard from your opponent's pool", ("those cards leave the other "
                                                        "player's own pool (DOT-4)")),
        "commit": ("commit", ("your star card and the 3 cards you give the shared pool; the "
                             "other 3 go to your own pool (sealed until both commit)")),
    },
    "great_dalmuti": {
        "no": ("no revolution", ""),
        "declare": ("declare a revolution", "no taxation this hand (GD-5)"),
        "give_back": ("give back", "the cards you return for the taxes (GD-4)"),
    },
    "dice_cup": {"truth": ("believe it", ""), "bluff": ("call it a bluff", "")},
    "dtc": {"accept": ("accept the offer", ""), "call": ("call it a bluff", "")},
}


#: Action fields that hold a seat (0-based in the API): a button says "target seat 2".
SEAT_KEYS = frozenset({"target", "seat", "player", "to", "with", "pool", "from"})


def action_fields(action: JSON) -> str:
    return " · ".join(f"{words(k)} {_field_words(k, v)}" for k, v in action.items()
                      if k != "type")


def _field_words(key: str, value: Any) -> str:
    """A seat field as a person numbers seats (``games.numbering``), any other as its value."""
    if key in SEAT_KEYS and isinstance(value, int) and not isinstance(value, bool):
        return seat_word(value)
    return value_words(value)


def words(name: str) -> str:
    return name.replace("_", " ")


def value_words(value: Any) -> str:
    """A field's value as a person reads it (house rule G-6): a face-down card's slot handle
    as "seat 1 slot 2" (seats numbered from 1, ``games.numbering``), equal-rank cards given as counts as the cards ("4 ×2, joker"), a list
    as its items."""
    if isinstance(value, dict):
        if value.keys() <= {"seat", "slot"}:
            return " ".join(_field_words(k, v) if k == "seat" else f"{k} {value_words(v)}"
                            for k, v in value.items())
        return ", ".join(f"{rank} ×{count}" if count != 1 else str(rank)
                         for rank, count in value.items())
    if isinstance(value, list):
        return ", ".join(value_words(v) for v in value)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)


def _cards(counts: Mapping[str, int]) -> str:
    return value_words(dict(counts)) or "nothing"


def _seat(names: Sequence[str], seat: Any) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else seat_word(seat)


def _slot(names: Sequence[str], slot: Mapping[str, Any]) -> str:
    return f"{_seat(names, slot.get('seat'))}'s card {slot.get('slot')}"


Sayer = Callable[[JSON, Sequence[str]], "str | None"]


def _dtc(a: JSON, names: Sequence[str]) -> str | None:
    if a["type"] == "offer":
        count = sum(a.get("cards", {}).values())
        return f"offers {count} card{'s' * (count != 1)} as {a.get('value')}s " \
               f"(really {_cards(a.get('cards', {}))})"
    return {"accept": "accepts the offer", "call": "calls it a bluff"}.get(a["type"])


def _great_dalmuti(a: JSON, names: Sequence[str]) -> str | None:
    kind = a["type"]
    if kind in ("play", "give_back"):
        return f"{'plays' if kind == 'play' else 'gives back'} {_cards(a.get('cards', {}))}"
    if kind == "exchange" and "with" in a:
        return f"exchanges with {_seat(names, a['with'])}"
    return {"pass": "passes", "no": "calls no revolution", "declare": "declares a revolution",
            "decline": "declines the exchange"}.get(kind)


def _dutch(a: JSON, names: Sequence[str]) -> str | None:
    kind, slot = a["type"], a.get("slot")
    if isinstance(slot, dict):
        verb = {"replace": "keeps the drawn card in place of", "snap": "snaps",
                "queen": "looks at (queen)", "peek": "looks at"}.get(kind, words(kind))
        return f"{verb} {_slot(names, slot)}"
    if kind == "jack" and isinstance(a.get("a"), dict) and isinstance(a.get("b"), dict):
        return f"swaps {_slot(names, a['a'])} and {_slot(names, a['b'])} (jack)"
    if kind == "ace" and "seat" in a:
        return f"gives {_seat(names, a['seat'])} a card (ace)"
    return {"draw": "draws", "take": "takes the top discard",
            "discard": "discards the drawn card", "done": "says \"J'ai terminé\" (done)",
            "no_power": "uses no power", "pass": "passes"}.get(kind)


def _dice_cup(a: JSON, names: Sequence[str]) -> str | None:
    kind = a["type"]
    if kind == "call":
        return f"tells {_seat(names, a.get('target'))} the dice show {a.get('number')}"
    if kind == "give":
        return f"gives chip {a.get('chip')}"
    if kind == "trade":
        return f"trades chips {value_words(a.get('give', []))} for chip {a.get('take')}"
    return {"truth": "believes it", "bluff": "calls it a bluff"}.get(kind)


def _dot(a: JSON, names: Sequence[str]) -> str | None:
    if a["type"] == "commit":
        return f"commits star {a.get('star')} with {_cards(a.get('shared', {}))}"
    if a["type"] == "discard":
        return f"discards {_cards(a.get('cards', {}))}"
    return None


#: A sentence per game for its actions; an action a game's sayer does not know (None) reads
#: as the generic ``action_label``.
SAYERS: dict[str, Sayer] = {"dtc": _dtc, "great_dalmuti": _great_dalmuti, "dutch": _dutch,
                            "dice_cup": _dice_cup, "dot": _dot}


def action_text(game: str, action: JSON, names: Sequence[str] = ()) -> str:
    """The action in the game's own words ("offers 2 cards as 4s (really 3, joker)")."""
    sayer = SAYERS.get(game)
    try:
        said = sayer(action, names) if sayer is not None and "type" in action else None
    except (AttributeError, TypeError, ValueError):  # an odd logged action: say it plainly
        said = None
    return said or action_label(action, game)


def entry_text(game: str, kind: str, seat: int | None, action: JSON | None,
               names: Sequence[str]) -> str:
    """A log entry as the move list says it; ``action`` None where it may not be shown."""
    if kind == EntryKind.START:
        return "the deal"
    who = _seat(names, seat) if seat is not None else "the table"
    said = action_text(game, action, names) if isinstance(action, dict) else None
    if kind == EntryKind.RESIGN:
        return f"{who} resigned"
    if kind == EntryKind.TIMEOUT:
        return f"{who} ran out of time: {said}" if said else f"{who} ran out of time"
    if kind == EntryKind.DEFAULT:
        return f"{who} was played for: {said}" if said else f"{who} was played for"
    return f"{who} {said}" if said else f"{who} moved"
