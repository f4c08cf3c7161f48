"""The ``<id:...>`` path converter every API URL uses for object ids.

Django's ``<int:...>`` takes any number of digits, and an id beyond what the database's integer
columns hold made a seat poll a 500 on SQLite (found by the schema fuzzer). At most 18 digits
is below 2**63 and above any id we will ever hand out; a longer one is no URL of ours: the API's
JSON 404. Registered when this module is imported (``games.urls``, ``bots.urls``,
``tournaments.urls`` import it).
"""

from __future__ import annotations

from django.urls import register_converter

#: For drf-spectacular (``PATH_CONVERTER_OVERRIDES``): what the schema says of an id.
ID_SCHEMA = {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
