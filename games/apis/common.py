"""What the games API's modules share: help texts, the action field, path parameters and the
match and seat errors."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    OpenApiParameter,
)

from lib.api import error_response

from .. import schema
from ..converters import ID_SCHEMA

#: The ``deadline`` of every answer that has one.
DEADLINE_HELP = ("When the polling seats to act (people, programs) get the default action and a "
                 "strike; null when none is to act (only bots are: a bot is judged on its own "
                 "calls, never on this) or the match is not running.")
#: The ``result`` of a match in every answer that has one.
RESULT_HELP = ("Once over (null before): scores and ranks by seat (rank 1 is best, ties share). "
               "A game whose finishing order the ranks do not imply adds order, every seat "
               "once, best first, forfeited seats last: The Great Dalmuti's order of going out "
               "of the last hand (GD-2), public at the table.")


E403 = error_response("Not your seat.", ("not_your_seat", "This seat is not yours.", None))
E404 = error_response("No such match or seat.", ("match_not_found", "No such match.", None),
              ("seat_not_found", "match 7 has no seat 5", None))
#: The largest integer a client may send where the database stores it (a PostgreSQL integer):
#: beyond it a query would overflow (a 500) instead of answering 400 ``invalid``.
MAX_STORED_INT = 2**31 - 1


class ActionField(schema.AnyGameActionField):
    """An action of the match's game, documented as ``ActionRequest`` (any game's action).
    Anything but a JSON object is ``invalid`` here, before the engine is asked."""

    default_error_messages = {
        "not_an_object": "An action is a JSON object with a \"type\", not {input_type}."}

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            self.fail("not_an_object", input_type=type(data).__name__)
        return super().to_internal_value(data)




MATCH_ID = OpenApiParameter("match_id", ID_SCHEMA, OpenApiParameter.PATH,
                            description="The match id.")
SEAT = OpenApiParameter("seat", ID_SCHEMA, OpenApiParameter.PATH,
                        description="Seat number, 0..players-1 (clockwise). The API counts seats from 0; "
                                    "the site's pages say \"seat 1\" for seat 0.")
