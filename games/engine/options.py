"""A game's documented match options: default, type, allowed values, and their check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import BadOptions

JSON = dict[str, Any]


@dataclass(frozen=True)
class Option:
    """One documented match option: its default, type, and allowed values."""

    name: str
    default: Any
    doc: str
    type: type = int
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[Any, ...] | None = None
    #: Extra check on the whole (merged) option set and player count; returns an error or None.
    check: Callable[[Any, JSON, int], str | None] | None = None
    nullable: bool = False
    #: As ``check``, for new matches only: a rule made stricter after matches were played
    #: (their saved states and replays still load under the rule of their day).
    new_check: Callable[[Any, JSON, int], str | None] | None = None

    def clean(self, value: Any) -> Any:
        if value is None and self.nullable:
            return None
        if self.type is bool:
            if not isinstance(value, bool):
                raise BadOptions(f"option {self.name!r} must be true or false, not {value!r}")
        elif self.type is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadOptions(f"option {self.name!r} must be an integer, not {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise BadOptions(f"option {self.name!r} must be >= {self.minimum}, not {value}")
            if self.maximum is not None and value > self.maximum:
                raise BadOptions(f"option {self.name!r} must be <= {self.maximum}, not {value}")
        elif not isinstance(value, self.type):
            raise BadOptions(
                f"option {self.name!r} must be of type {self.type.__name__}, not {value!r}"
            )
        if self.choices is not None and value not in self.choices:
            raise BadOptions(f"option {self.name!r} must be one of {list(self.choices)}, not {value!r}")
        return value

    def describe(self) -> JSON:
        out: JSON = {"name": self.name, "default": self.default, "doc": self.doc,
                     "type": {bool: "boolean", int: "integer", list: "array"}.get(self.type,
                                                                                 "object")}
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.choices is not None:
            out["choices"] = list(self.choices)
        return out
