"""Serializer fields the apps' APIs share for values JSON numbers cannot carry as they are.

**Seeds are decimal strings.** A seed is a 64-bit integer (``0 .. 2**63 - 1`` for the seeds the
platform draws), and JSON parsers that read every number as a double (JavaScript, jq, many
others) round integers above 2**53: ``8242869483248298026`` reads back as
``8242869483248298000``, and a client could not replay the match from it. So every seed goes
out as a string, ``"8242869483248298026"``; a request may send one as a string or as a JSON
integer. (Object ids stay numbers: they count up from 1, far below 2**53.)

**A seat's bot** is a reference bot's name (a string) or a webhook bot's id (a number, as every
other id in the API): :func:`games.seats.bot_reference` gives the value to show.
"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1
SEED_PATTERN = r"^-?[0-9]{1,19}$"
_SEED = re.compile(SEED_PATTERN)


class SeedField(serializers.Field):
    """A seed: out as a decimal string, in as a decimal string or a JSON integer."""

    default_error_messages = {
        "invalid": 'A seed is an integer: a decimal string such as "8242869483248298026", or a '
                   "JSON integer.",
        "range": "Ensure this value is between {low} and {high}.",
    }

    def __init__(self, *, min_value: int = SEED_MIN, max_value: int = SEED_MAX,
                 **kwargs: Any) -> None:
        self.min_value, self.max_value = min_value, max_value
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, str) and _SEED.fullmatch(data):
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        if not self.min_value <= data <= self.max_value:
            self.fail("range", low=self.min_value, high=self.max_value)
        return data

    def to_representation(self, value: int) -> str:
        return str(value)


class BotReferenceField(serializers.Field):
    """A seat's, participant's or member's bot: shown as given (an id as a number, a name as a
    string); read as a string (the services take either: a webhook bot's id may be sent as a
    number or a string)."""

    default_error_messages = {"invalid": "A bot is a webhook bot's id or a reference bot's "
                                         "name."}

    def __init__(self, *, max_length: int = 100, **kwargs: Any) -> None:
        self.max_length = max_length
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, bool) or not isinstance(data, (int, str)):
            self.fail("invalid")
        text = str(data).strip()
        if not text or len(text) > self.max_length:
            self.fail("invalid")
        return text

    def to_representation(self, value: Any) -> Any:
        return value


_SEED_STRING = {"type": "string", "pattern": SEED_PATTERN, "example": "8242869483248298026",
                "description": "A 64-bit integer as a decimal string (float-number JSON "
                               "parsers such as JavaScript's and jq's round integers above "
                               "2^53)."}


class SeedFieldExtension(OpenApiSerializerFieldExtension):
    """Answers carry the string; a request may send the string or a JSON integer."""

    target_class = SeedField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        if direction == "response":
            return dict(_SEED_STRING)
        return {"anyOf": [dict(_SEED_STRING), {"type": "integer",
                                              "minimum": self.target.min_value,
                                              "maximum": self.target.max_value}],
                "description": "A 64-bit integer: a decimal string, or a JSON integer."}


class BotReferenceFieldExtension(OpenApiSerializerFieldExtension):
    target_class = BotReferenceField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        nullable = {"nullable": True} if self.target.allow_null else {}
        return {"anyOf": [{"type": "integer", "description": "A webhook bot's id.", **nullable},
                          {"type": "string", "description": 'A reference bot\'s name '
                                                            '("heuristic", "random").',
                           **nullable}]}


class StrictSerializer(serializers.Serializer):
    """A request body whose unknown keys are refused (``invalid``, the key named), not ignored:
    a misspelt ``formt`` or ``metings`` would otherwise make a tournament of another shape
    without a word."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {key: [f"unknown field (known: {', '.join(sorted(self.fields))})"]
                     for key in unknown})
        return super().to_internal_value(data)
